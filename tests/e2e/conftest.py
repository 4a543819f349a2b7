"""Run playbooks/validate.yml on twin scenarios through ansible-runner, the way AWX runs it.

The suite's budget (issue 33): every run uses the shortest windows the twin allows (WINDOWS) unless a test asks for
longer, the pods every file reads (the healthy pod, the demo scenario) are run once per session and shared, and the
run's end prints how many twin runs there were and which were slowest, so growth is seen when it happens.
"""

import glob
import json
import os
import subprocess
import sys
import time

import pytest
import yaml

from ansible_collections.gpufabric.pyramid.tests.e2e.incast_load import INCAST

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# The twin's counters follow its own clock and its ib_write_bw runs its -D for real: one second of soak and of
# ib_write_bw proves what ten did (a test that needs a longer window asks for it). A real pod keeps the catalog's
# defaults (300 s soak, 5 s runs).
WINDOWS = {"pyramid_rdma_duration": 1, "pyramid_soak_seconds": 1}


def _record_run(seconds, what):
    """One line for the closing summary of the session's twin runs (tests/conftest.py prints it)."""
    path = os.environ.get("PYRAMID_TWIN_RUNS_LOG")
    if path:
        test = os.environ.get("PYTEST_CURRENT_TEST", "?").split(" ")[0]
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps({"seconds": round(seconds, 1), "test": test, "what": what}) + "\n")


def _describe(scenario, playbook, limit, cmdline, extravars):
    where = os.path.basename(scenario) if isinstance(scenario, str) else "%s nodes" % scenario.get("pod", {}).get("nodes")
    said = [where, os.path.basename(playbook)] + (["--limit " + limit] if limit else []) + ([cmdline] if cmdline else [])
    return " ".join(said + ["%s=%s" % item for item in sorted(extravars.items()) if item[0] not in WINDOWS])


@pytest.fixture(scope="session")
def twin():
    if os.geteuid() != 0:
        pytest.skip("the twin needs root (sshd, mount namespaces)")
    subprocess.run([os.path.join(ROOT, "twin", "up")], check=True)
    return ROOT


class Run:
    def __init__(self, runner, report_root, control_dir):
        self.rc = runner.rc
        self.status = runner.status
        self.stdout = runner.stdout.read()
        found = sorted(glob.glob(os.path.join(report_root, "*", "report.json")))
        self.report = json.load(open(found[-1], encoding="utf-8")) if found else None
        self.run_dirs = sorted(glob.glob(os.path.join(report_root, "*")))
        self.changed = dict((runner.stats or {}).get("changed", {}))
        # network_cli connections still open (or left behind) when the run ended
        self.open_sockets = sorted(os.path.basename(path) for path in glob.glob(os.path.join(control_dir, "*")))

    def host(self, name):
        return self.report["hosts"][name]

    def not_passing(self, name):
        return {r["check"]: r for r in self.host(name)["checks"] if r["status"] != "PASS"}

    def layer_facts(self, name, layer):
        """The facts a device's layer kept in its results file (what it read there, by source)."""
        path = os.path.join(self.run_dirs[-1], "devices", name + ".json")
        with open(path, encoding="utf-8") as handle:
            return json.load(handle).get("facts", {}).get("layer%d" % layer, {})


@pytest.fixture(scope="session")
def validate(twin, tmp_path_factory):
    """validate(scenario dict or path, playbook=..., limit=..., cmdline=..., **extravars) -> Run."""
    import ansible_runner

    # ansible-runner starts ansible-playbook from PATH: the one installed beside this Python.
    os.environ["PATH"] = os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")

    def run(scenario, playbook="playbooks/validate.yml", limit=None, cmdline=None, **extravars):
        what = _describe(scenario, playbook, limit, cmdline, extravars)
        started = time.monotonic()
        base = tmp_path_factory.mktemp("run")
        if isinstance(scenario, dict):
            path = base / "scenario.yml"
            path.write_text(yaml.safe_dump(scenario))
            scenario = str(path)
        report_root = str(base / "reports")
        variables = dict(WINDOWS, twin_scenario=scenario, pyramid_report_dir=report_root, pyramid_command_timeout=5)
        variables.update(extravars)
        (base / "runner").mkdir()
        runner = ansible_runner.run(
            private_data_dir=str(base / "runner"),
            project_dir=ROOT,
            playbook=os.path.join(ROOT, playbook),
            inventory=os.path.join(ROOT, "inventories", "twin"),
            extravars=variables,
            # each run's own persistent-connection sockets, to see which outlive it
            envvars={"ANSIBLE_CONFIG": os.path.join(ROOT, "ansible.cfg"),
                     "ANSIBLE_PERSISTENT_CONTROL_PATH_DIR": str(base / "pc")},
            limit=limit,
            cmdline=cmdline,
            quiet=True,
        )
        done = Run(runner, report_root, str(base / "pc"))
        _record_run(time.monotonic() - started, what)
        return done

    return run


# The pods that several files read, run once per session. A test reads a shared run and never changes the twin's
# state for the runs after it (remediate.yml runs on their own scenarios).
DEMO = os.path.join(ROOT, "twin", "scenarios", "default.yml")
MIXED_FABRIC = {"spines": 4, "nodes_per_leaf": 4, "leaf_os": ["eos", "nxos", "sonic", "cumulus"],
                "spine_os": ["eos", "nxos", "sonic", "cumulus"]}
# 8 healthy nodes behind one leaf per rail of the mixed-vendor fabric (EOS, NX-OS, SONiC and Cumulus twice, 4 spines of
# each): one pod for the files that read a healthy pod's nodes (Layer 0, the meshes, the Layer 5 baseline) and for those
# that read its switches (tests/e2e/test_validate_switches.py) and the healthy incast (tests/e2e/test_validate_incast.py):
# one run where there were three (the suite's budget, issue 33), and the no-false-alarm proof made on a pod with its
# fabric, every go-live row checked.
HEALTHY = {"pod": {"nodes": 8}, "switches": dict(MIXED_FABRIC, nodes_per_leaf=8, faults=[]), "faults": []}


@pytest.fixture(scope="session")
def healthy_pod(validate):
    """The healthy pod (HEALTHY), every layer, a 3 s soak (the switch files' soak, long enough for a rising counter of
    the twin's switches to show), the incast on every leaf (INCAST: node-001 the target, node-002 ... node-005 its
    senders): GO with no false alarm on any node or switch and nothing waived. Its tests run after the other worker's
    unit tests (tests/conftest.py): the incast's counters are read within a window."""
    return validate(HEALTHY, pyramid_soak_seconds=3, **INCAST)


@pytest.fixture(scope="session")
def healthy_fabric(healthy_pod):
    """The same run, read for its switches (tests/e2e/test_validate_switches.py, tests/e2e/test_validate_incast.py)."""
    return healthy_pod


@pytest.fixture(scope="session")
def demo_pod(validate):
    """The demo's scenario (`make demo`): 32 nodes, 12 switches, six node and three switch faults. The soak is the
    switch files' 3 s: long enough for the twin's rising CRC and PFC counters to show, short enough to share. Its failing
    nodes are handed to the twin's Slurm (pyramid_drain, tests/e2e/test_validate_drain.py)."""
    return validate(DEMO, pyramid_soak_seconds=3, pyramid_drain="slurm")


# RoCE on both ends of a mixed-vendor fabric (one leaf per rail: r0 eos, r1 nxos, r2 sonic, r3 cumulus, r4 eos, r5 nxos,
# r6 sonic, r7 cumulus), one run for two files: host and switch disagreeing (tests/e2e/test_validate_roce_agree.py) and
# each leaf's own RoCE class read from its configuration (tests/e2e/test_validate_roce_qos.py). node-001 is healthy and
# every switch fault is on node-004's ports (the 4th host port of each leaf), so the faults of one file hold nothing of
# the other's back.
ROCE_SWITCH_FAULTS = [
    {"switch": "leaf1-r6", "kind": "mtu_small", "port": "Ethernet24", "mtu": 1500},  # SONiC: node-004's port at MTU 1500
    {"switch": "leaf1-r7", "kind": "lossless_priority", "port": "swp4", "priority": 4},  # NVUE: lossless on priority 4
    # ECN taken off the RoCE queue of node-004's port on NX-OS: its queuing policy has no `random-detect ... ecn` line.
    # (EOS's case, a stanza without that line and without a trailer, is an ERROR that holds every node behind the leaf
    # back: tests/e2e/test_validate_incast.py's switch faults show it.)
    {"switch": "leaf1-r1", "kind": "ecn_off", "port": "Ethernet1/4"},
]
ROCE_NODE_FAULTS = [
    {"node": "node-002", "kind": "pfc_priority", "priority": 4},  # every rail's NIC lossless on 4, the leaves on 3
    {"node": "node-003", "kind": "mtu", "rail": "mlx5_2", "mtu": 9216},  # over leaf1-r2's 9100
]


@pytest.fixture(scope="session")
def roce_fabric(validate):
    """4 nodes behind the mixed-vendor fabric with the RoCE faults above, Layers 0 to 3 (the soak at the suite's 1 s):
    node-002, node-003 and node-004 stop at Layer 3, node-001 passes it. Both files read Layer 3 and below only: the
    layers above would climb node-001 alone for no assertion (the suite's budget, issue 33)."""
    return validate({"pod": {"nodes": 4}, "switches": dict(MIXED_FABRIC, faults=ROCE_SWITCH_FAULTS), "faults": ROCE_NODE_FAULTS},
                    cmdline="--tags layer0,layer1,layer2,layer3")
