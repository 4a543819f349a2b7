"""What one remote module run costs on the twin: the controller's side and the rest (the twin's sshd, its entry point,
and the module's own Python on the "host"), in core-seconds, from the difference of two playbooks on the same pod.

    .venv/bin/python bench/module_cost_twin.py [--nodes 8] [--tasks 11] [--runs 3]

Needs the twin (twin/up). Both playbooks run on the pod's GPU nodes without facts, like validate.yml: the first has one
`ansible.builtin.ping` task (connection set-up, interpreter discovery, Ansible's start), the second `--tasks` of them;
the difference over (tasks - 1) x nodes is the cost of one more module run on one node, the unit every layer of the
pyramid pays per node (bench/README.md, "Where the CPU goes"). Measured: the machine's busy core-seconds (/proc/stat,
anyone's), and ansible-playbook's own with its reaped children (wait4: its workers and ssh clients), the controller's
side; the rest is the twin's. Median of --runs. Prints figures only; nothing passes or fails.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from pod_twin import machine_busy_seconds, scenario_text  # noqa: E402  (bench/ on the path above)


def playbook(tasks):
    return "- hosts: gpu_nodes\n  gather_facts: false\n  tasks:\n" + "    - ansible.builtin.ping:\n" * tasks


def run(path, scenario):
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"))
    command = [os.path.join(os.path.dirname(sys.executable), "ansible-playbook"), path, "-i", "inventories/twin",
               "-e", "twin_scenario=" + scenario]
    busy, start = machine_busy_seconds(), time.time()
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _pid, status, usage = os.wait4(process.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit("%s exited %d: is the twin up (twin/up)?" % (" ".join(command), os.waitstatus_to_exitcode(status)))
    return time.time() - start, machine_busy_seconds() - busy, usage.ru_utime + usage.ru_stime


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=8)
    parser.add_argument("--tasks", type=int, default=11)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="module-cost-")
    scenario = os.path.join(work, "pod.yml")
    with open(scenario, "w", encoding="utf-8") as handle:
        handle.write(scenario_text(args.nodes, 4, None))
    figures = {}
    for tasks in (1, args.tasks):
        path = os.path.join(work, "ping-%d.yml" % tasks)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(playbook(tasks))
        runs = [run(path, scenario) for _attempt in range(args.runs)]
        figures[tasks] = [statistics.median(column) for column in zip(*runs)]
        print("%2d ping tasks on %d nodes: wall %.1f s, machine busy %.1f core-s, controller %.1f core-s (median of %d)" % (
            tasks, args.nodes, figures[tasks][0], figures[tasks][1], figures[tasks][2], args.runs))
    more = (args.tasks - 1) * args.nodes
    busy = (figures[args.tasks][1] - figures[1][1]) / more
    controller = (figures[args.tasks][2] - figures[1][2]) / more
    print("one more module run on one node: %.3f core-s, of which the controller %.3f and the rest (the twin: sshd, "
          "its entry point, the module's Python) %.3f" % (busy, controller, busy - controller))


if __name__ == "__main__":
    main()
