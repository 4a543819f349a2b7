"""The hand-over to the scheduler's decisions (run/handover.py) as data tables: one row per case.

The refusals (nothing handed over at all) and, per node, what the scheduler's state makes of a finding: drained, left
as it is (out of service for another reason), unknown to the scheduler, or given back. The state of each row is a real
`scontrol show node` (the parser fixtures captured from the twin's Slurm 22.05 and public 20.11/25.05 captures) or
`kubectl get nodes -o json`, read through the parser as the hand-over reads it; the report is the smallest that says
which node has a finding and which is GO.
"""

import os

import pytest

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import handover as _handover

PARSERS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "parsers")


def _raw(parser, case):
    with open(os.path.join(PARSERS, parser, case + ".raw"), encoding="utf-8") as handle:
        return handle.read()


# name, mode, scheduler host, nodes with a finding, GPU nodes of the run, pyramid_drain_max_fraction, refusal wanted
REFUSALS = [
    ("none: a skip, whatever was found", "none", "node-001", 5, 6, 0.5, ("skip", "pyramid_drain is none")),
    ("no scheduler host", "slurm", "", 1, 6, 0.5, ("fail", "add one to the inventory group scheduler")),
    ("no scheduler host, kubectl named", "kubernetes", "", 0, 6, 0.5, ("fail", "runs kubectl")),
    ("one node of six", "slurm", "node-001", 1, 6, 0.5, None),
    ("two nodes: always (a --limit rerun of two)", "slurm", "node-001", 2, 2, 0.5, None),
    ("three of six: half, handed over", "slurm", "node-001", 3, 6, 0.5, None),
    ("three of five: more than half, refused", "slurm", "node-001", 3, 5, 0.5, ("fail", "3 of the run's 5 GPU nodes")),
    ("three of five with the fraction raised", "kubernetes", "node-001", 3, 5, 0.6, None),
    ("the whole pod: the fabric's fault", "slurm", "node-001", 32, 32, 0.5, ("fail", "not each node's")),
]


@pytest.mark.parametrize("name, mode, scheduler, failing, total, fraction, wanted", REFUSALS, ids=[row[0] for row in REFUSALS])
def test_refusals(name, mode, scheduler, failing, total, fraction, wanted):  # pylint: disable=unused-argument
    nodes = ["node-%03d" % index for index in range(1, total + 1)]
    found = {node: ("pyramid: L0 iommu FAIL: off", "iommu") for node in nodes[:failing]}
    refused = _handover.refusal(mode, scheduler, found, nodes, fraction)
    if wanted is None:
        assert refused is None
    else:
        assert refused[0] == wanted[0] and wanted[1] in refused[1], refused


SHOW_2205 = ("slurm_scontrol_show_node", "slurm2205_drains")  # node-001 ours, node-002 an admin's, 003 UNKNOWN+DRAIN, 004 UNKNOWN
SHOW_2205_GONE = ("slurm_scontrol_show_node", "slurm2205_not_responding")  # 002/003 DOWN+DRAIN+NOT_RESPONDING, 004 DOWN
SHOW_2011 = ("slurm_scontrol_show_node", "slurm2011_down_not_responding")  # slurmw1 IDLE, slurmw2 DOWN* Not responding
SHOW_2505 = ("slurm_scontrol_show_node", "slurm2505_admin_drain")  # server5 IDLE+DRAIN maintenance
SHOW_RESUMED = ("slurm_scontrol_show_node", "slurm2205_just_resumed")  # node-045 IDLE+NOT_RESPONDING, resumed a moment ago
KUBE = ("kubernetes_get_nodes_json", "cordoned_and_tainted")  # gpu-007 ours, gpu-008 an admin's cordon, gpu-009 in service

# name, mode, state (parser, case), nodes with a finding, GO nodes, resume, wanted (drained, left, unknown, given back)
DECISIONS = [
    ("a node in service is drained", "slurm", SHOW_2011, ["slurmw1"], [], False, (["slurmw1"], [], [], [])),
    ("an admin's drain is left", "slurm", SHOW_2505, ["server5"], [], False, ([], ["server5"], [], [])),
    ("our own drain is drained again (its reason now)", "slurm", SHOW_2205, ["node-001"], [], False, (["node-001"], [], [], [])),
    ("an admin's drain with a quote in its reason is left", "slurm", SHOW_2205, ["node-002"], [], False, ([], ["node-002"], [], [])),
    ("a node whose slurmd never registered (UNKNOWN) is drained", "slurm", SHOW_2205, ["node-004"], [], False,
     (["node-004"], [], [], [])),
    ("DOWN* (Slurm cannot reach it) is left, 20.11's asterisk", "slurm", SHOW_2011, ["slurmw2"], [], False, ([], ["slurmw2"], [], [])),
    ("a node resumed a moment ago (IDLE+NOT_RESPONDING until its ping) is drained", "slurm", SHOW_RESUMED, ["node-045"], [],
     False, (["node-045"], [], [], [])),
    ("DOWN set by an admin is left, 22.05", "slurm", SHOW_2205_GONE, ["node-004"], [], False, ([], ["node-004"], [], [])),
    ("a node Slurm does not know is named, the others go on", "slurm", SHOW_2011, ["slurmw1", "node-099"], [], False,
     (["slurmw1"], [], ["node-099"], [])),
    ("a GO node the pyramid drained is given back", "slurm", SHOW_2205, [], ["node-001"], True, ([], [], [], ["node-001"])),
    ("... only where pyramid_drain_resume asks", "slurm", SHOW_2205, [], ["node-001"], False, ([], [], [], [])),
    ("a GO node an admin drained is never given back", "slurm", SHOW_2505, [], ["server5"], True, ([], [], [], [])),
    ("a GO node in service is not touched", "slurm", SHOW_2011, [], ["slurmw1"], True, ([], [], [], [])),
    ("our drain on a node now DOWN* is ours to give back (22.05)", "slurm", SHOW_2205_GONE, [], ["node-001"], True,
     ([], [], [], ["node-001"])),
    ("kubernetes: our taint is ours to give back", "kubernetes", KUBE, [], ["gpu-007"], True, ([], [], [], ["gpu-007"])),
    ("kubernetes: an admin's cordon is left", "kubernetes", KUBE, ["gpu-008"], ["gpu-009"], True, ([], ["gpu-008"], [], [])),
    ("kubernetes: a node in service is cordoned", "kubernetes", KUBE, ["gpu-009"], [], True, (["gpu-009"], [], [], [])),
]


@pytest.mark.parametrize("name, mode, source, failing, go, resume, wanted", DECISIONS, ids=[row[0] for row in DECISIONS])
def test_decisions(name, mode, source, failing, go, resume, wanted):  # pylint: disable=unused-argument
    state = _handover.scheduler_nodes(mode, _raw(*source))
    found = {node: ("pyramid: L0 iommu FAIL: off", "iommu") for node in failing}
    names = {node: node for node in failing + go}
    drain, left, unknown, back = _handover.decide(found, go, names, state, resume)
    assert (sorted(drain), sorted(left), unknown, back) == wanted
    for name_left, why in left.items():  # the other reason is said, as the scheduler has it
        assert why == state[name_left]["reason"]
