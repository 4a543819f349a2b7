"""What hangs cost: validate.yml on a twin pod, healthy and then with one hang of each kind, against the sum
of the timeouts those hangs should cost (issue "Scale and speed": a hang costs its own timeout once).

    .venv/bin/python bench/hangs_twin.py [--nodes 12] [--command-timeout 20] [--nccl-timeout 30] [--train-timeout 40]

Needs the twin (twin/up, as root). The faulty pod has, on four different nodes: `mlxconfig` hung (Layer 0, every
rail's run would wait `--command-timeout`), the node unreachable, an all-reduce that hangs (Layer 5,
`--nccl-timeout`) and a training run that NCCL's watchdog ends (Layer 6; it costs nothing of ours). Layers run one after another
(a gate between each), so the ideal extra cost is the sum of the timeouts of the hangs whose node reached the
layer it hangs in (the report's stopped_at says), and the unreachable node's refused connection costs nothing.
Prints the wall times, per play, and the overhead beyond the ideal; nothing passes or fails.
"""

import argparse
import datetime
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

HANGS = [
    {"node": "node-002", "kind": "tool_hang", "tool": "mlxconfig"},
    {"node": "node-004", "kind": "unreachable"},
    {"node": "node-006", "kind": "nccl_hang"},
    {"node": "node-008", "kind": "training_timeout"},
]
# the layer where each hang should stop its node, and the timeout it should cost there (by argparse dest)
# The twin's training_timeout prints NCCL's watchdog timeout and exits (the watchdog's 10 minutes are the tool's own,
# not ours to wait out): it costs no timeout of ours. A hung torchrun would hang Layer 5's built-in benchmark first.
HANG_COST = {"node-002": (0, "command_timeout"), "node-004": (0, None), "node-006": (5, "nccl_timeout"),
             "node-008": (6, None)}


def _play_seconds(callback_output):
    """[(play name, seconds)] from ansible.posix.json's {"plays": [{"play": {"name", "duration"}}]}."""
    found = []
    for entry in json.loads(callback_output)["plays"]:
        duration = entry["play"]["duration"]
        if "end" in duration:
            start, end = (datetime.datetime.fromisoformat(duration[key].replace("Z", "+00:00")) for key in ("start", "end"))
            found.append((entry["play"]["name"], (end - start).total_seconds()))
    return found


def run_once(nodes, faults, extra, work):
    scenario = os.path.join(work, "pod-%d-%d.yml" % (nodes, len(faults)))
    with open(scenario, "w", encoding="utf-8") as handle:
        handle.write("pod: {nodes: %d}\nfaults: %s\n" % (nodes, json.dumps(faults)))
    reports = tempfile.mkdtemp(dir=work)
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"), ANSIBLE_STDOUT_CALLBACK="ansible.posix.json")
    playbook = os.path.join(os.path.dirname(sys.executable), "ansible-playbook")  # the venv's, beside this Python
    command = [playbook, "playbooks/validate.yml", "-i", "inventories/twin", "-e", "twin_scenario=" + scenario,
               "-e", "pyramid_report_dir=" + reports]
    for name, value in extra.items():
        command += ["-e", "%s=%s" % (name, value)]
    start = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    total = time.perf_counter() - start
    if done.returncode not in (0, 2):  # 2: NO-GO, still a run with a report
        raise SystemExit("validate.yml exited %d: %s" % (done.returncode, done.stderr[-2000:]))
    runs = sorted(name for name in os.listdir(reports) if name != "latest")
    with open(os.path.join(reports, runs[-1], "report.json"), encoding="utf-8") as handle:
        report = json.load(handle)
    return total, _play_seconds(done.stdout), report


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--nodes", type=int, default=12)
    parser.add_argument("--command-timeout", type=int, default=20)
    parser.add_argument("--nccl-timeout", type=int, default=30)
    parser.add_argument("--train-timeout", type=int, default=40)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    extra = {"pyramid_command_timeout": args.command_timeout, "pyramid_nccl_timeout": args.nccl_timeout,
             "pyramid_train_timeout": args.train_timeout}
    with tempfile.TemporaryDirectory() as work:
        healthy, healthy_plays, _report = run_once(args.nodes, [], extra, work)
        faulty, faulty_plays, report = run_once(args.nodes, HANGS, extra, work)
    stopped = {node: report["hosts"][node].get("stopped_at") for node in HANG_COST}
    # a hang costs its timeout only where its node got to the layer it hangs in
    ideal = sum(getattr(args, timeout) for node, (layer, timeout) in HANG_COST.items() if timeout and stopped[node] == layer)
    summary = {"nodes": args.nodes, "healthy_s": healthy, "faulty_s": faulty, "extra_s": faulty - healthy,
               "ideal_extra_s": ideal, "overhead_s": faulty - healthy - ideal, "stopped_at": stopped,
               "plays": [{"play": name, "healthy_s": seconds, "faulty_s": dict(faulty_plays).get(name)}
                         for name, seconds in healthy_plays]}
    if args.json:
        print(json.dumps(summary, indent=1))
        return
    print("%d nodes: healthy %.1f s, with the hangs %.1f s: %.1f s more, against %d s of timeouts (overhead %.1f s)" % (
        args.nodes, healthy, faulty, faulty - healthy, ideal, faulty - healthy - ideal))
    print("stopped at: " + ", ".join("%s layer %s" % item for item in sorted(stopped.items())))
    print("| play | healthy s | with the hangs s |")
    print("|---|---|---|")
    for row in summary["plays"]:
        print("| %s | %.1f | %s |" % (row["play"], row["healthy_s"],
                                      "%.1f" % row["faulty_s"] if row["faulty_s"] is not None else "-"))


if __name__ == "__main__":
    main()
