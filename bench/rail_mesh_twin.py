"""Rounds and wall time of the rail mesh on the twin, by pod size: Layer 2's ping mesh, Layer 4's
ib_write_bw (host memory, then GPUDirect), and Layer 4's share of the whole validate.yml run.

    .venv/bin/python bench/rail_mesh_twin.py [--nodes 8 32 128] [--runs 1] [--extra pyramid_rdma_duration=1] [--json]

Needs the twin (twin/up, as root). Each run is a whole validate.yml on a healthy pod of that size with
Ansible's json stdout callback (ansible.posix.json): its per-play start and end give the two mesh
plays' wall time; the run directory's mesh/layer<N>/plan.json gives the rounds (the planned rounds,
the GPUDirect rounds and the retest rounds). Medians over the runs. Prints figures only; nothing
passes or fails. `--extra NAME=VALUE` passes an extra variable (e.g. pyramid_rdma_duration=1 for the
e2e tests' short runs, pyramid_rdma_gpudirect=false for Layer 4 without its GPUDirect rounds).
"""

import argparse
import datetime
import glob
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [os.path.join(ROOT, ".collections")]

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import rail_rounds  # noqa: E402

# the GPU nodes' mesh plays of playbooks/validate.yml, by a word of their names
PLAYS = {2: "per-rail ping mesh", 4: "ib_write_bw on every rail"}


def _seconds(duration):
    if "end" not in duration:  # a play none of whose tasks returned a result
        return None
    start, end = (datetime.datetime.fromisoformat(duration[key].replace("Z", "+00:00")) for key in ("start", "end"))
    return (end - start).total_seconds()


def _play_seconds(callback_output):
    """Seconds of each mesh play (by layer), from ansible.posix.json's {"plays": [{"play": {"name", "duration"}}]}."""
    found = {}
    for entry in json.loads(callback_output)["plays"]:
        for layer, words in PLAYS.items():
            if words in entry["play"]["name"]:
                found[layer] = _seconds(entry["play"]["duration"])
    return found


def _rounds(run_dir, layer):
    """(planned, GPUDirect, retest) rounds of a layer's mesh, from its plan.json."""
    paths = glob.glob(os.path.join(run_dir, "mesh", "layer%d" % layer, "plan.json"))
    if not paths:
        return None
    with open(paths[0], encoding="utf-8") as handle:
        plan = json.load(handle)
    planned = len(rail_rounds.plan_rounds(plan["nodes"]))
    gpudirect = len(plan.get("gpudirect", {}).get("rounds", []))
    return planned, gpudirect, len(plan["rounds"]) - planned - gpudirect


def run_once(nodes, extra, work):
    scenario = os.path.join(work, "pod-%d.yml" % nodes)
    with open(scenario, "w", encoding="utf-8") as handle:
        handle.write("pod: {nodes: %d}\nfaults: []\n" % nodes)
    reports = tempfile.mkdtemp(dir=work)
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"), ANSIBLE_STDOUT_CALLBACK="ansible.posix.json")
    playbook = os.path.join(os.path.dirname(sys.executable), "ansible-playbook")  # the venv's, beside this Python
    command = [playbook, "playbooks/validate.yml", "-i", "inventories/twin", "-e", "twin_scenario=" + scenario,
               "-e", "pyramid_report_dir=" + reports]
    for item in extra:
        command += ["-e", item]
    start = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    total = time.perf_counter() - start
    if done.returncode not in (0, 2):  # 2: a host failed or was unreachable, still a run with a report
        raise SystemExit("validate.yml exited %d: %s" % (done.returncode, done.stderr[-2000:]))
    plays = _play_seconds(done.stdout)
    run_dir = sorted(glob.glob(os.path.join(reports, "*")))[-1]
    return {"nodes": nodes, "total_s": total, "l2_s": plays.get(2), "l4_s": plays.get(4),
            "l2_rounds": _rounds(run_dir, 2), "l4_rounds": _rounds(run_dir, 4)}


def _median(rows, key):
    values = [row[key] for row in rows if row[key] is not None]
    return statistics.median(values) if values else None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--nodes", type=int, nargs="+", default=[8, 32, 128])
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--extra", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    summary = []
    with tempfile.TemporaryDirectory() as work:
        for nodes in args.nodes:
            rows = [run_once(nodes, args.extra, work) for _run in range(args.runs)]
            total, l2, l4 = (_median(rows, key) for key in ("total_s", "l2_s", "l4_s"))
            summary.append({"nodes": nodes, "runs": args.runs, "total_s": total, "l2_s": l2, "l4_s": l4,
                            "l4_share": l4 / total if l4 is not None and total else None,
                            "l2_rounds": rows[-1]["l2_rounds"], "l4_rounds": rows[-1]["l4_rounds"]})
    if args.json:
        print(json.dumps(summary, indent=1))
        return
    print("| nodes | runs | validate.yml s | L2 s | L2 rounds (planned/retest) | L4 s | L4 rounds (planned/GPUDirect/retest) | L4 share |")
    print("|---|---|---|---|---|---|---|---|")
    for row in summary:
        l2_rounds, l4_rounds = row["l2_rounds"] or (0, 0, 0), row["l4_rounds"] or (0, 0, 0)
        print("| %d | %d | %.1f | %s | %d/%d | %s | %d/%d/%d | %s |" % (
            row["nodes"], row["runs"], row["total_s"], _shown(row["l2_s"]), l2_rounds[0], l2_rounds[2],
            _shown(row["l4_s"]), l4_rounds[0], l4_rounds[1], l4_rounds[2],
            "%.0f%%" % (100 * row["l4_share"]) if row["l4_share"] is not None else "-"))


def _shown(seconds):
    return "%.1f" % seconds if seconds is not None else "-"


if __name__ == "__main__":
    main()
