"""The incast on a busy controller: are its targets still judged, or "cannot judge" because the leaves' tail reads came
after the window? (issue 37: "an incast that a busy controller can still judge").

    .venv/bin/python bench/incast_busy_twin.py [--nodes 32] [--tail-percent 33 80] [--hogs 2] [--json PATH]

Needs the twin (twin/up). The pod: N nodes behind a leaf per rail per 16 nodes (two scalable units at 32), 2 spines,
EOS and SONiC leaves in turn; two faulty leaves in the second scalable unit (leaf2-r0 an ECN min_th that never marks,
leaf2-r1 PFC headroom too short). Layer 3 and its incast alone, the gate lifted (`--tags layer3 -e
pyramid_enforce_gate=false`), the incast's defaults otherwise (8 senders at 60 Gb/s, 30 s windows), once per tail share
(`pyramid_incast_tail_percent`), while --hogs processes keep the controller's cores busy (a busy loop each, as other
work on a shared controller would). What each run shows: every target's incast_ecn status and why, the two faulty
leaves' incast_leaf status and cause, and how late each leaf's tail read ended after the first sender started.
Prints figures only; nothing passes or fails.
"""

import argparse
import glob
import json
import multiprocessing
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FAULTY = {"leaf2-r0": "ecn_min_th_high", "leaf2-r1": "headroom_short"}


def scenario_text(nodes):
    faults = ", ".join("{switch: %s, kind: %s}" % item for item in sorted(FAULTY.items()))
    return ("pod: {nodes: %d, gpus_per_node: 8, rails: 8}\nswitches: {spines: 2, nodes_per_leaf: 16, leaf_os: [eos, sonic], "
            "spine_os: [eos], faults: [%s]}\nfaults: []\n" % (nodes, faults))


def hog(stop):
    while not stop.is_set():
        sum(range(10000))


def run_once(nodes, tail_percent, hogs, work):
    scenario = os.path.join(work, "pod-%d.yml" % nodes)
    with open(scenario, "w", encoding="utf-8") as handle:
        handle.write(scenario_text(nodes))
    reports = tempfile.mkdtemp(dir=work)
    playbook = os.path.join(os.path.dirname(sys.executable), "ansible-playbook")
    command = [playbook, "playbooks/validate.yml", "-i", "inventories/twin", "--tags", "layer3", "-e", "twin_scenario=" + scenario,
               "-e", "pyramid_report_dir=" + reports, "-e", "pyramid_enforce_gate=false", "-e", "pyramid_incast=true",
               "-e", "pyramid_incast_tail_percent=%g" % tail_percent]
    stop = multiprocessing.Event()
    busy = [multiprocessing.Process(target=hog, args=(stop,), daemon=True) for _loop in range(hogs)]
    for process in busy:
        process.start()
    start = time.time()
    try:
        done = subprocess.run(command, cwd=ROOT, env=dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg")),
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, check=False)
    finally:
        stop.set()
        for process in busy:
            process.join()
    wall = time.time() - start
    if done.returncode not in (0, 2):
        raise SystemExit("validate.yml exited %d:\n%s" % (done.returncode, done.stdout[-3000:]))
    run_dir = sorted(path for path in glob.glob(os.path.join(reports, "*")) if not path.endswith("latest"))[-1]
    return summarize(run_dir, tail_percent, hogs, wall)


def _load(path):
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def summarize(run_dir, tail_percent, hogs, wall):
    plan = _load(os.path.join(run_dir, "incast", "plan.json"))
    targets, leaves, lateness = {}, {}, {}
    for index, groups in enumerate(plan["rounds"]):
        folder = os.path.join(run_dir, "incast", "round-%d" % (index + 1))
        fired = [_load(path)["started"] for path in glob.glob(os.path.join(folder, "*.fired.json"))]
        first = min(fired) if fired else None
        for path in glob.glob(os.path.join(folder, "leaf*.tail.json")):
            if first is not None:
                lateness[os.path.basename(path).split(".")[0]] = round(_load(path)["at"] - first, 1)
        for group in groups:
            record = _record(run_dir, group["target"], "incast_ecn")
            targets[group["target"]] = {"status": record["status"], "actual": record["actual"][:300]}
    for leaf in FAULTY:
        record = _record(run_dir, leaf, "incast_leaf")
        leaves[leaf] = {"status": record["status"], "cause": (record.get("cause") or "")[:160]}
    return {"tail_percent": tail_percent, "hogs": hogs, "wall_s": round(wall, 1), "duration_s": plan.get("duration"),
            "tail_read_window_ends_at_s": plan.get("duration"), "tail_reads_ended_s_after_first_sender": lateness,
            "targets": targets, "faulty_leaves": leaves,
            "targets_cannot_judge": sorted(t for t, r in targets.items() if r["status"] == "ERROR")}


def _record(run_dir, host, check):
    doc = _load(os.path.join(run_dir, "devices", "%s.json" % host))
    return next((r for r in doc["results"] if r["check"] == check), {"status": "none", "actual": "", "cause": ""})


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n", maxsplit=1)[0])
    parser.add_argument("--nodes", type=int, default=32)
    parser.add_argument("--tail-percent", type=float, nargs="+", default=[33, 80])
    parser.add_argument("--hogs", type=int, default=2)
    parser.add_argument("--json")
    args = parser.parse_args()
    results = []
    with tempfile.TemporaryDirectory() as work:
        for tail_percent in args.tail_percent:
            result = run_once(args.nodes, tail_percent, args.hogs, work)
            results.append(result)
            print(json.dumps(result, indent=1))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump({"nodes": args.nodes, "cores": os.cpu_count(), "results": results}, handle, indent=1)


if __name__ == "__main__":
    main()
