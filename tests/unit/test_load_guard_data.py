"""The load guard's decisions (run/load_guard.py) as a data table: whether the run may load its nodes, from a real
`scontrol show node` (the parser fixtures captured from the twin's Slurm 22.05) read as the guard reads it."""

import os

import pytest

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import load_guard as _guard

PARSERS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "parsers", "slurm_scontrol_show_node")


def _raw(case):
    with open(os.path.join(PARSERS, case + ".raw"), encoding="utf-8") as handle:
        return handle.read()


def _answer(case, rc=0):
    return lambda argv: {"rc": rc, "stdout": _raw(case) if rc == 0 else "", "stderr": _raw(case) if rc else ""}


# name, pyramid_drain, pyramid_load_guard, nodes to load, scheduler's answer, stops the run, words of the message
DATA = [
    ("a job on one node of two: the run stops naming it and its state", "slurm", True, ["node-039", "node-040"],
     _answer("slurm2205_a_job_running"), True, ["jobs run on node-040 (ALLOCATED)", "pyramid_load_guard: false"]),
    ("both idle: the run goes on", "slurm", True, ["node-039"], _answer("slurm2205_a_job_running"), False,
     ["no job on the 1 nodes to load"]),
    ("drained, not busy: a drain is no job", "slurm", True, ["node-001", "node-002"], _answer("slurm2205_drains"), False,
     ["no job on the 2 nodes to load"]),
    ("a node Slurm does not know is said, not stopped on", "slurm", True, ["node-039", "node-099"],
     _answer("slurm2205_a_job_running"), False, ["(not in Slurm: node-099)"]),
    ("a controller that does not answer: nothing loaded on a guess", "slurm", True, ["node-039"],
     _answer("controller_unreachable", rc=1), True, ["scontrol show node could not say", "rc 1", "nothing loaded"]),
    ("an answer cut before its State: not read, the run stops", "slurm", True, ["node-039"], _answer("cut_before_state"),
     True, ["could not say whether jobs run"]),
    ("the guard lifted: not asked", "slurm", False, ["node-040"], None, False, ["not asked: pyramid_load_guard is false"]),
    ("no scheduler named: not asked, said", "none", True, ["node-040"], None, False, ["pyramid_drain is none"]),
    ("Kubernetes: not asked, said why", "kubernetes", True, ["node-040"], None, False, ["does not show the pods"]),
]


@pytest.mark.parametrize("name, mode, guard, nodes, answer, stops, words", DATA, ids=[row[0] for row in DATA])
def test_row(name, mode, guard, nodes, answer, stops, words):  # pylint: disable=unused-argument
    asked = []

    def command(argv):
        asked.append(argv)
        return answer(argv)
    outcome = _guard.ask(mode, guard, nodes, {node: node for node in nodes}, command)
    assert outcome["failed"] is stops, outcome
    for word in words:
        assert word in outcome["msg"], outcome
    assert asked == ([["scontrol", "show", "node"]] if answer else [])  # one read, and none where not asked


def test_a_limited_run_loads_its_nodes_and_the_first_two_partners_outside_it():
    pod = ["node-%03d" % index for index in range(45, 50)]
    assert _guard.to_load(["node-047"], pod) == ["node-047", "node-045", "node-046"]
    assert _guard.to_load(pod, pod) == pod
