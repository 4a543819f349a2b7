"""playbooks/plan.yml on the twin (issue 37): pre-flight, then the plan of the run (checks, commands, the meshes' pairs,
Layer 5's rounds, the incast's targets, each layer's load and duration) in plan.md and plan.json; nothing is run on any
device (the twin keeps the command line of every simulated tool it ran: none), and the exit code is 0 when the inventory
is sound. The rounds are the planners' own (run/rail_rounds.py, run/fabric_rounds.py, run/incast_reads.py)."""

import json
import os
import re
import shutil
import sys

import pytest
import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "twin"))
from pyramid_twin import changes, entry  # noqa: E402  pylint: disable=wrong-import-position
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import rail_rounds  # noqa: E402  pylint: disable=wrong-import-position

pytestmark = [pytest.mark.slow]
PLAYBOOK = "playbooks/plan.yml"
NODES = ["node-001", "node-002", "node-003", "node-004"]
# 4 nodes behind one leaf per rail of the mixed-vendor fabric (EOS, NX-OS, SONiC, Cumulus twice) and 4 spines
SCENARIO = {"pod": {"nodes": 4}, "faults": [],
            "switches": {"spines": 4, "nodes_per_leaf": 4, "leaf_os": ["eos", "nxos", "sonic", "cumulus"],
                         "spine_os": ["eos", "nxos", "sonic", "cumulus"], "faults": []}}
INCAST = {"pyramid_incast": True, "pyramid_incast_senders": 3, "pyramid_incast_rate_gbps": 150}


def _scenario(tmp_path, name):
    path = tmp_path / name
    path.write_text(yaml.safe_dump(SCENARIO))
    with open(path, "rb") as handle:
        ran = os.path.join(changes.STATE_DIR, "changes", entry.digest(handle.read()), "ran")
    shutil.rmtree(ran, ignore_errors=True)
    return str(path), ran


def _section(plan, kind, layer=None):
    """One kind's section of the plan (its own planner's, catalog/kinds.yml planned_by), of one layer where given."""
    (section,) = [section for section in plan["runs"] if section["kind"] == kind and layer in (None, section["layer"])]
    return section


def _plan(run):
    with open(os.path.join(run.run_dirs[-1], "plan.json"), encoding="utf-8") as handle:
        plan = json.load(handle)
    with open(os.path.join(run.run_dirs[-1], "plan.md"), encoding="utf-8") as handle:
        return plan, handle.read()


def test_the_plan_names_every_round_and_layer_and_runs_nothing(validate, tmp_path):
    path, ran = _scenario(tmp_path, "plan.yml")
    run = validate(path, playbook=PLAYBOOK, **INCAST)
    assert run.rc == 0, run.stdout[-3000:]
    assert not os.path.isdir(ran) or not os.listdir(ran), os.listdir(ran)  # no simulated tool ran on any device
    assert run.report is None  # no verdict: nothing was validated
    plan, markdown = _plan(run)
    assert plan["devices"]["gpu_node"] == NODES and len(plan["devices"]["switch"]) == 12
    # the meshes' pairs are the run's own planner's, every pair both ways on every rail
    expected = [[list(pair) for pair in pairs] for pairs in rail_rounds.plan_rounds(NODES)]
    for layer in (2, 4):
        mesh = _section(plan, "rail_mesh", layer)
        assert [entry["pairs"] for entry in mesh["rounds"]] == expected and mesh["runs"] == 4 * 2 * 8, mesh
    layer4 = _section(plan, "rail_mesh", 4)["seconds"]["about"]
    assert "| 4 | ib_write_bw at line rate on every rail" in markdown and "| about %d s |" % layer4 in markdown
    rounds = {str(entry["round"]): entry for entry in _section(plan, "fabric", 5)["rounds"]}
    assert rounds["2"]["pairs"] == [["node-001", "node-003"], ["node-002", "node-004"]] and rounds["3"]["sizes"] == [2, 4]
    # the incast: one target, three senders, the target's port on each of the 8 leaves
    incast = _section(plan, "incast")
    (group,) = [group for entry in incast["rounds"] for group in entry["groups"]]
    assert group["target"] == "node-001" and sorted(group["senders"]) == NODES[1:] and len(group["ports"]) == 8, group
    assert "3 senders x 150 Gb/s into one port per leaf" in markdown
    # each device's checks with their commands, and those that do not apply with why
    layer3 = next(layer for layer in plan["layers"] if layer["layer"] == 3)["devices"]
    pfc = next(entry for entry in layer3["leaf1-r0"] if entry["check"] == "pfc_idle")
    # every way in the order the switch is asked: EOS's JSON form, its text form where the release refuses the JSON one
    assert pfc["commands"] == "show priority-flow-control counters | json || show priority-flow-control counters", pfc
    layer1 = {entry["check"]: entry for entry in next(layer for layer in plan["layers"] if layer["layer"] == 1)["devices"]["node-001"]}
    assert "pyramid_rdma_link_layer is roce" in layer1["ib_links"]["not_applicable"]
    assert "plan: 4 GPU nodes, 12 switches; nothing run" in run.stdout
    # the load said first, and the total (issue 71): the incast's window counted with the soak and the meshes
    assert markdown.index("**The pod must be idle.**") < markdown.index("## Load and duration by layer")
    assert plan["total"]["timed_seconds"] >= layer4 + incast["seconds"]["about"], plan["total"]
    shown = " ".join(re.sub(r"\x1b\[[0-9;]*m", "", run.stdout).split())  # the play's lines, their colours and wraps out
    assert "Total time: the timed loads (the soak, the ping mesh, the incast, the ib_write_bw mesh) take about" in shown, shown[-3000:]
    # the runs that follow a miss, planned from the link kind's declaration: the switches on the paths read
    assert [entry["check"] for entry in _section(plan, "link")["rounds"]] == ["fabric_link_under_load", "pair_link_under_load"]


def test_an_infiniband_plan_reads_the_subnet_on_one_node_and_chooses_the_incast_at_layer3(validate, tmp_path):
    path, ran = _scenario(tmp_path, "plan-ib.yml")
    run = validate(path, playbook=PLAYBOOK, pyramid_rdma_link_layer="infiniband", **INCAST)
    assert run.rc == 0, run.stdout[-3000:]
    assert not os.path.isdir(ran) or not os.listdir(ran), os.listdir(ran)
    plan, markdown = _plan(run)
    # the leaves are the subnet's: nothing reads it before Layer 3, so the plan says so rather than guess the rounds
    incast = _section(plan, "incast")
    assert incast["at_layer3"] and incast["rounds"] == [] and "off" not in incast
    assert "incast: 3 senders x 150 Gb/s into one port per leaf of the subnet, its rounds chosen at Layer 3" in markdown
    assert "chosen at Layer 3 from the subnet's read" in markdown
    layer1 = {entry["check"]: entry for entry in next(layer for layer in plan["layers"] if layer["layer"] == 1)["devices"]["node-003"]}
    assert layer1["ib_links"]["read_on"] == {"ib_fabric_hosts": "node-001"}, layer1["ib_links"]
    layer3 = {entry["check"]: entry for entry in next(layer for layer in plan["layers"] if layer["layer"] == 3)["devices"]["node-003"]}
    # InfiniBand's own at Layer 3 (congestion at idle) read on the subnet's reader; RoCE's checks not applicable
    assert layer3.pop("ib_congestion_idle")["read_on"] == {"ib_fabric_hosts": "node-001"}
    incast = layer3.pop("incast_ib")  # and its own incast, the load said
    assert incast["loads"] == ["an incast: K senders at line rate into one target per leaf"], incast
    assert all("not_applicable" in entry for entry in layer3.values()), layer3


def test_a_misspelled_expectation_stops_the_plan_in_preflight(validate, tmp_path):
    path, ran = _scenario(tmp_path, "plan-typo.yml")
    run = validate(path, playbook=PLAYBOOK, pyramid_rdma_gbps_mn=300)
    assert run.rc != 0
    assert "pyramid_rdma_gbps_mn" in run.stdout and "pyramid_rdma_gbps_min" in run.stdout, run.stdout[-2000:]
    assert not any(os.path.exists(os.path.join(folder, "plan.json")) for folder in run.run_dirs)
    assert not os.path.isdir(ran) or not os.listdir(ran)
