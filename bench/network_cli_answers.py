"""How long network_cli takes to read NX-OS's queuing report: all ports in one answer, or one per port.

    .venv/bin/python bench/network_cli_answers.py [--switch leaf1-r1] [--runs 3]

Needs the twin (twin/up, as root) with the default scenario, whose leaf1-r1 runs NX-OS. Times the
reading of `show queuing interface` in one cisco.nxos.nxos_command task over one persistent session,
as the collection's network_cli collection reads a list of commands. It is measured in the play, so
connection setup is left out. Prints figures only; nothing passes or
fails.
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCENARIO = os.path.join(ROOT, "twin", "scenarios", "default.yml")
PLAY = """
- hosts: {switch}
  gather_facts: false
  tasks:
    - ansible.netcommon.cli_command: {{command: show interface status}}  # opens the session
    - ansible.builtin.set_fact: {{started: "{{{{ lookup('ansible.builtin.pipe', 'date +%s.%N') | float }}}}"}}
    - cisco.nxos.nxos_command: {{commands: {commands}}}  # one task, one session: as the collection reads them
      register: answers
    - ansible.builtin.debug:
        msg: "BENCH {{{{ {{'seconds': (lookup('ansible.builtin.pipe', 'date +%s.%N') | float) - (started | float),
                          'bytes': answers.stdout | map('length') | sum}} | to_json }}}}"
"""


def _ports(switch, env):
    inventory = subprocess.run([os.path.join(os.path.dirname(sys.executable), "ansible-inventory"), "-i",
                                "inventories/twin", "-e", "twin_scenario=" + SCENARIO, "--host", switch],
                               cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    return [entry["port"] for entry in json.loads(inventory.stdout)["pyramid_switch_ports"]]


def _once(switch, commands, env, work):
    path = os.path.join(work, "play.yml")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(PLAY.format(switch=switch, commands=json.dumps(commands)))
    run = subprocess.run([os.path.join(os.path.dirname(sys.executable), "ansible-playbook"), path, "-i",
                          "inventories/twin", "-e", "twin_scenario=" + SCENARIO],
                         cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    return json.loads(re.search(r"BENCH (\{[^}]*\})", run.stdout).group(1))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--switch", default="leaf1-r1")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"), ANSIBLE_COMMAND_TIMEOUT="120")
    ports = _ports(args.switch, env)
    forms = {"all ports, one answer": ["show queuing interface"],
             "per port (%d answers)" % len(ports): ["show queuing interface %s" % port for port in ports]}
    print("%-26s %6s %10s %12s" % ("form", "runs", "kB read", "median s"))
    medians = []
    with tempfile.TemporaryDirectory() as work:
        for form, commands in forms.items():
            runs = [_once(args.switch, commands, env, work) for _run in range(args.runs)]
            medians.append(statistics.median(run["seconds"] for run in runs))
            print("%-26s %6d %10.0f %12.2f" % (form, args.runs, runs[0]["bytes"] / 1000.0, medians[-1]))
    print("ratio all-ports / per-port: %.1f" % (medians[0] / medians[1]))


if __name__ == "__main__":
    main()
