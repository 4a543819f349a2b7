"""remediate.yml on the twin's node-047 (seed 001's RCA, twin/scenarios/node047.yml): a reimaged node, its firmware's
ROCE_CC_PRIO_MASK 0, its sysfs DCQCN switches off, its NICs trusting PCP, nvidia_peermem not loaded. Validation
stops it at Layer 0 with the RCA's cause; remediate.yml --check --diff shows what it would change and changes
nothing; remediate.yml puts back the firmware config, GPUDirect, the DCQCN switches and mlnx_qos's trust and PFC
(and the udev rule that puts them back at boot, where the node has udev), then validates it: GO. A second run
changes nothing.

The pod is 48 nodes (node-047 must exist); the runs are limited to node-046..node-048 to stay small."""

import json
import os
import sys

import pytest
import yaml

from ansible_collections.gpufabric.pyramid.tests.e2e.waivers import GPU_ONLY_WAIVERS

pytestmark = [pytest.mark.twin, pytest.mark.slow]

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "twin"))
from pyramid_twin import changes, entry  # noqa: E402  pylint: disable=wrong-import-position

from ansible_collections.gpufabric.pyramid.tests.e2e import real_slurm  # noqa: E402  pylint: disable=wrong-import-position
SCENARIO = os.path.join(ROOT, "twin", "scenarios", "node047.yml")
LIMIT = "node-046,node-047,node-048"
# node047.yml has no switch: its GO runs waive the rows that need them (tests/e2e/waivers.py)
# a site's own group names (twin_group_names: the twin's inventory names its groups so) and the variables that say them
RENAMED = {"twin_group_names": {"gpu_nodes": "gpus", "launcher": "login_nodes"}, "pyramid_group_gpu_nodes": "gpus",
           "pyramid_group_launcher": "login_nodes"}
FAST = {"pyramid_rdma_duration": 1, "pyramid_soak_seconds": 1, "pyramid_waive": GPU_ONLY_WAIVERS}


def _changes_dir():
    with open(SCENARIO, "rb") as handle:
        return os.path.join(changes.STATE_DIR, "changes", entry.digest(handle.read()))


def _forget_the_scheduler():
    """The run's nodes in service in the twin's real Slurm (twin/slurm), whatever an earlier test left."""
    real_slurm.give_back(LIMIT.split(","))


def _scontrol_calls():
    """The launcher's scontrol calls so far (ran/<launcher>.log: the real scontrol, run through the twin's node)."""
    path = os.path.join(_changes_dir(), "ran", "node-001.log")
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as handle:
        return [line for line in handle.read().splitlines() if line.startswith("scontrol")]


def _drained():
    """The run's nodes the twin's real Slurm holds drained (sinfo)."""
    return set(real_slurm.drained(LIMIT.split(",")))


def _layer3_roce(run, node):
    return {r["check"]: r for r in run.host(node)["checks"] if r["check"] in ("roce_dcqcn", "roce_trust")}


def test_node047_goes_no_go_then_remediated_then_go(validate):
    _forget_the_scheduler()
    before = validate(SCENARIO, limit=LIMIT, pyramid_drain="slurm", **FAST)  # node-047 handed to the twin's Slurm
    assert _drained() == {"node-047"}
    with open(os.path.join(before.run_dirs[-1], "drain.json"), encoding="utf-8") as handle:
        assert json.load(handle)["drained"]["node-047"].startswith("pyramid: L0 ")
    host = before.host("node-047")
    assert host["verdict"] == "NO-GO" and host["stopped_at"] == 0, before.not_passing("node-047")
    failing = {c: r for c, r in before.not_passing("node-047").items() if r["status"] == "FAIL"}
    assert set(failing) == {"gpudirect", "mlxconfig"}, failing
    assert "node-047" in failing["mlxconfig"]["cause"] and "nvidia_peermem" in failing["gpudirect"]["cause"]
    for node in ("node-046", "node-048"):
        assert before.host(node)["verdict"] == "GO", before.not_passing(node)
    # As the report tells an operator: the GO nodes' baseline goes into the inventory, so a node validated alone later
    # (--limit) is judged against the pod's figures, not against nothing (a lone node has no median).
    with open(before.run_dirs[-1] + "/baseline.yml", encoding="utf-8") as handle:
        baseline = yaml.safe_load(handle)
    assert set(baseline) == {"pyramid_nccl_node_busbw", "pyramid_nccl_collective_busbw", "pyramid_nccl_pod_collective_busbw",
                             "pyramid_nccl_scale_busbw", "pyramid_train_step_ms_baseline"}  # scale: per node count (issue 72)
    assert set(baseline["pyramid_nccl_collective_busbw"]) == {"all_gather", "reduce_scatter", "alltoall", "sendrecv"}

    # Layer 3 alone (the gate off for this look): the sysfs DCQCN switches and the trust state, caught with the RCA's cause
    layer3 = validate(SCENARIO, limit="node-047", cmdline="--tags layer3", pyramid_enforce_gate=False, **FAST)
    seen = _layer3_roce(layer3, "node-047")
    assert seen["roce_dcqcn"]["status"] == "FAIL" and "node-047" in seen["roce_dcqcn"]["cause"], seen
    assert "mlx5_0 (ens1np0): roce_rp/enable/3 = 0, roce_np/enable/3 = 0" in seen["roce_dcqcn"]["actual"], seen
    assert seen["roce_trust"]["status"] == "FAIL" and "trust state pcp" in seen["roce_trust"]["actual"], seen

    calls = _scontrol_calls()
    dry = validate(SCENARIO, playbook="playbooks/remediate.yml", limit="node-047", cmdline="--check --diff",
                   **dict(FAST, pyramid_drain="slurm", pyramid_drain_resume=True, **baseline))
    assert "ROCE_CC_PRIO_MASK_P1" in dry.stdout and "dcqcn_rp" in dry.stdout, dry.stdout[-3000:]  # the diffs
    assert dry.host("node-047")["verdict"] == "NO-GO"  # ... and nothing changed
    # check mode: the drain said, not made; the scheduler neither read nor written
    with open(os.path.join(dry.run_dirs[-1], "drain.json"), encoding="utf-8") as handle:
        planned = json.load(handle)
    assert planned["check_mode"] and planned["done"] == [] and planned["commands"][0][:3] == ["scontrol", "update", "nodename=node-047"]
    assert "[scheduler] would run: scontrol update nodename=node-047 state=drain" in dry.stdout
    assert "would read `scontrol show node`" in dry.stdout and _scontrol_calls() == calls

    # remediated and GO: given back to Slurm, as the inventory asks (pyramid_drain_resume)
    fixed = validate(SCENARIO, playbook="playbooks/remediate.yml", limit="node-047",
                     **dict(FAST, pyramid_drain="slurm", pyramid_drain_resume=True, **baseline))
    assert _drained() == set()
    with open(os.path.join(fixed.run_dirs[-1], "drain.json"), encoding="utf-8") as handle:
        assert json.load(handle)["resumed"] == ["node-047"]
    assert fixed.rc == 0 and fixed.status == "successful", fixed.stdout[-3000:]
    assert len(fixed.run_dirs) == 1  # pre-flight before remediating opened the run directory the validation used
    assert list(fixed.report["hosts"]) == ["node-047"]  # --limit scopes the report too
    assert fixed.changed.get("node-047", 0) >= 4  # mlxconfig set + mlxfwreset, modprobe, modules-load.d, RoCE QoS
    assert fixed.host("node-047")["verdict"] == "GO", fixed.not_passing("node-047")
    # GO with the rows this pod cannot check waived, each said in the report's first lines with its reason; without the
    # waivers those rows are a no-go (one unchecked go-live row is, issue 37)
    assert {row["row"] for row in fixed.report["waived_rows"]} == {w["row"] for w in GPU_ONLY_WAIVERS}
    assert fixed.report["unchecked_rows"] == []
    assert "WAIVED: No PFC storms under load: the incast is proven by its own runs" in fixed.stdout
    seen = _layer3_roce(fixed, "node-047")
    assert {check: r["status"] for check, r in seen.items()} == {"roce_dcqcn": "PASS", "roce_trust": "PASS"}, seen

    # Again, on an inventory that names its groups its own way (pyramid_group_*, extra variables): the same run, the nodes
    # outside it still the references of the straggler hunt, started from the renamed launcher group's host
    again = validate(SCENARIO, playbook="playbooks/remediate.yml", limit="node-047", **dict(FAST, **baseline, **RENAMED))
    assert again.rc == 0 and again.changed.get("node-047", 0) == 0, again.stdout[-3000:]  # idempotent
    assert again.host("node-047")["verdict"] == "GO", again.not_passing("node-047")
    pairs = [{r["check"]: r for r in run.host("node-047")["checks"]}["nccl_pairs"] for run in (fixed, again)]
    # the references in the inventory's order of the group (a set's order before): the first node outside the run
    assert [pair["actual"].split(":")[0] for pair in pairs] == ["with known-good node-001"] * 2, pairs
