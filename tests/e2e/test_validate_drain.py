"""pyramid_drain on the twin (issue 39): the demo pod's failing GPU nodes handed to Slurm, each with its first cause,
from the launcher host; the GO nodes left alone. Slurm is real (twin/slurm: slurmctld and a slurmd per node): the
launcher's scontrol is the real client, every call of it in the twin's ran/<host>.log; what Slurm then holds is read
with sinfo. remediate.yml's resume is tests/e2e/test_remediate_node047.py's, check mode
tests/e2e/test_validate_check_mode.py's, the refusals against the real Slurm tests/e2e/test_handover_slurm.py's."""

import json
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "twin"))
from pyramid_twin import changes, entry  # noqa: E402  pylint: disable=wrong-import-position

from ansible_collections.gpufabric.pyramid.tests.e2e import real_slurm  # noqa: E402  pylint: disable=wrong-import-position

pytestmark = [pytest.mark.twin, pytest.mark.slow]
DEMO = os.path.join(ROOT, "twin", "scenarios", "default.yml")


def test_each_failing_node_of_the_demo_is_drained_with_its_first_cause_and_no_go_node_is(demo_pod):
    run = demo_pod
    hosts = run.report["hosts"]
    with_finding = {host for host, info in hosts.items() if info["device"] == "gpu_node"
                    and any(r["status"] in ("FAIL", "ERROR", "BLOCKED") for r in info["checks"])}
    assert {"node-007", "node-019", "node-028"} <= with_finding
    with open(os.path.join(run.run_dirs[-1], "drain.json"), encoding="utf-8") as handle:
        drain = json.load(handle)
    assert set(drain["drained"]) == with_finding and not drain["check_mode"]
    assert drain["drained"]["node-007"].startswith("pyramid: L0 gpudirect FAIL: GPUDirect not active (nvidia_peermem missing)")
    with open(DEMO, "rb") as handle:
        folder = os.path.join(changes.STATE_DIR, "changes", entry.digest(handle.read()))
    gpu_nodes = sorted(host for host, info in hosts.items() if info["device"] == "gpu_node")
    # what the real Slurm holds: each of them drained with the pyramid's reason, every other node of the pod in service
    assert real_slurm.drained(gpu_nodes) == drain["drained"]
    assert not os.path.exists(os.path.join(folder, "scheduler.json"))  # the twin's simulated scontrol not used
    # from the launcher (node-001): the state read first, then one scontrol per reason, argv with the reason whole
    with open(os.path.join(folder, "ran", "node-001.log"), encoding="utf-8") as handle:
        calls = [line for line in handle.read().splitlines() if line.startswith("scontrol")]
    assert "scontrol show node" in calls
    updates = [line for line in calls if line.startswith("scontrol update")]
    assert set(drain["drained"].values()) == {line.split(" reason=", 1)[1] for line in updates}
    assert "scontrol update nodename=node-007 state=drain reason=pyramid: L0 " in "\n".join(updates)
    assert "[scheduler] handed %d node(s) to slurm, gave back 0" % len(with_finding) in run.stdout
