"""Wall time of validate.yml (L0, L5, L6) on the twin, by pod size: median of N runs and seconds per node.

    .venv/bin/python bench/validate_twin.py [--nodes 8 32] [--runs 3]

Needs the twin (twin/up, as root). Prints figures only; nothing passes or fails.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--nodes", type=int, nargs="+", default=[8, 32])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"))
    playbook = os.path.join(os.path.dirname(sys.executable), "ansible-playbook")  # the venv's, beside this Python
    print("%6s %10s %12s %14s" % ("nodes", "runs", "median s", "s per node"))
    for nodes in args.nodes:
        with tempfile.TemporaryDirectory() as work:
            scenario = os.path.join(work, "pod.yml")
            with open(scenario, "w", encoding="utf-8") as handle:
                handle.write("pod: {nodes: %d}\nfaults: []\n" % nodes)
            times = []
            for _run in range(args.runs):
                start = time.perf_counter()
                subprocess.run([playbook, "playbooks/validate.yml", "-i", "inventories/twin", "-e", "twin_scenario=" + scenario,
                                "-e", "pyramid_report_dir=" + os.path.join(work, "reports")],
                               cwd=ROOT, env=env, stdout=subprocess.DEVNULL, check=True)
                times.append(time.perf_counter() - start)
        median = statistics.median(times)
        print("%6d %10d %12.1f %14.2f" % (nodes, args.runs, median, median / nodes))


if __name__ == "__main__":
    main()
