"""The hand-over to the scheduler (run/handover.py, what the gpufabric.pyramid.drain action runs) against a real Slurm:
the twin's slurmctld and a slurmd per GPU node (twin/slurm), the real scontrol run here as the action runs it on the
scheduler host, and sinfo read after through the product's parser. Not the twin's simulated scontrol.

A NO-GO node is drained with its cause as the reason and sinfo shows it drained; a node an admin drained, or set DOWN,
first is left as it is, its reason untouched; a GO node is given back only where the pyramid drained it; a controller
that does not answer fails the hand-over, naming the command, and changes nothing. The nodes are node-041..node-046 of
the twin's Slurm (no twin scenario's run hands them over in the same session but node047.yml's 46..48, which gives them
back), each given back before and after."""

import json
import os

import pytest

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import handover as _handover
from ansible_collections.gpufabric.pyramid.tests.e2e import real_slurm

pytestmark = [pytest.mark.twin]
NODES = ["node-%03d" % index for index in range(41, 47)]
ADMIN_DRAIN = "bad dimm, ticket INC-42"


def _report(failing):
    """The smallest report the hand-over reads: ``failing`` nodes with an L0 gpudirect FAIL, the others GO."""
    def host(node):
        if node in failing:
            return {"device": "gpu_node", "verdict": "NO-GO", "checks": [{
                "check": "gpudirect", "layer": 0, "status": "FAIL", "actual": "nvidia_peermem not loaded",
                "cause": "GPUDirect not active (nvidia_peermem missing) on %s" % node}]}
        passed = {"check": "gpudirect", "layer": 0, "status": "PASS", "actual": "active", "cause": None}
        return {"device": "gpu_node", "verdict": "GO", "checks": [passed]}
    return {"hosts": {node: host(node) for node in NODES}}


def _hand_over(tmp_path, failing, resume=False, command=None):
    calls = []

    def run(argv):
        calls.append(argv)
        return (command or real_slurm.run)(argv)
    chosen = ("slurm", resume, 0.5, {node: node for node in NODES})
    result = _handover.run(str(tmp_path), _report(failing), NODES, chosen, "localhost", False, run)
    return result, calls


@pytest.fixture
def slurm_nodes(twin):  # pylint: disable=unused-argument
    """The test's nodes in service before and after, whatever an earlier test left."""
    real_slurm.conf()
    real_slurm.give_back(NODES)
    yield NODES
    real_slurm.give_back(NODES)


@pytest.mark.usefixtures("slurm_nodes")
def test_a_no_go_node_is_drained_with_its_cause_and_an_admins_drain_or_down_is_left(tmp_path):
    assert real_slurm.run(["scontrol", "update", "nodename=node-042", "state=drain", "reason=" + ADMIN_DRAIN])["rc"] == 0
    assert real_slurm.run(["scontrol", "update", "nodename=node-043", "state=down", "reason=power cycle"])["rc"] == 0
    result, calls = _hand_over(tmp_path, ["node-041", "node-042", "node-043"])
    assert not result["failed"] and result["changed"], result
    reason = "pyramid: L0 gpudirect FAIL: GPUDirect not active (nvidia_peermem missing) on node-041"
    assert result["drain"]["drained"] == {"node-041": reason}
    assert result["drain"]["left"] == {"node-042": ADMIN_DRAIN, "node-043": "power cycle"}
    assert calls == [["scontrol", "show", "node"], ["scontrol", "update", "nodename=node-041", "state=drain", "reason=" + reason]]
    seen = real_slurm.sinfo()
    assert (seen["node-041"]["state"], seen["node-041"]["reason"]) == ("drained", reason)  # Slurm's own word for it
    assert (seen["node-042"]["state"], seen["node-042"]["reason"]) == ("drained", ADMIN_DRAIN)  # untouched
    assert (seen["node-043"]["state"], seen["node-043"]["reason"]) == ("down", "power cycle")
    assert all(seen[node]["state"] == "idle" for node in NODES[3:])
    with open(tmp_path / "drain.json", encoding="utf-8") as handle:
        assert json.load(handle)["drained"] == {"node-041": reason}
    assert "[scheduler] node-042 left as it is, out of service for another reason: %s" % ADMIN_DRAIN in result["pyramid_scheduler_lines"]


@pytest.mark.usefixtures("slurm_nodes")
def test_a_go_node_is_given_back_only_where_the_pyramid_drained_it(tmp_path):
    assert real_slurm.run(["scontrol", "update", "nodename=node-042", "state=drain", "reason=" + ADMIN_DRAIN])["rc"] == 0
    first, _calls = _hand_over(tmp_path, ["node-041"])
    assert first["drain"]["drained"] == {"node-041": "pyramid: L0 gpudirect FAIL: GPUDirect not active (nvidia_peermem missing) on node-041"}
    without, calls = _hand_over(tmp_path, [])  # node-041 remediated, GO: given back only where the inventory asks
    assert without["drain"]["resumed"] == [] and calls == [["scontrol", "show", "node"]]
    assert set(real_slurm.drained(NODES)) == {"node-041", "node-042"}
    back, calls = _hand_over(tmp_path, [], resume=True)
    assert not back["failed"] and back["drain"]["resumed"] == ["node-041"], back
    assert calls[1:] == [["scontrol", "update", "nodename=node-041", "state=resume"]]
    assert real_slurm.drained(NODES) == {"node-042": ADMIN_DRAIN}  # the admin's drain of a GO node stays
    assert real_slurm.sinfo()["node-041"]["state"] == "idle"


@pytest.mark.usefixtures("slurm_nodes")
def test_a_controller_that_does_not_answer_is_an_error_of_the_hand_over(tmp_path):
    # the twin's slurm.conf with the controller's port moved to one no slurmctld listens on: scontrol's own connection
    # failure after its retries, as when slurmctld is down
    with open(real_slurm.conf(), encoding="utf-8") as handle:
        text = handle.read()
    assert "SlurmctldPort=16817" in text
    dead = tmp_path / "slurm.conf"
    dead.write_text(text.replace("SlurmctldPort=16817", "SlurmctldPort=16899"), encoding="utf-8")
    result, calls = _hand_over(tmp_path, ["node-041"], resume=True, command=lambda argv: real_slurm.run(argv, str(dead)))
    assert result["failed"] and "drain" not in result, result
    assert result["msg"].startswith("scontrol show node on localhost: rc 1: slurm_load_node error: Unable to contact slurm controller")
    assert result["msg"].endswith("no node handed over or given back")
    assert calls == [["scontrol", "show", "node"]] and not os.path.exists(tmp_path / "drain.json")
    assert real_slurm.drained(NODES) == {}  # nothing changed on a guess
