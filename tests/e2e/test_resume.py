"""A run resumed from the run directory of a run that failed at Layer 5 (issue 71): -e pyramid_resume=<run dir> takes
Layers 0-4 over from it (every device passed them there, nothing they judge changed), runs Layers 5-7 again and reaches
the verdict the full run reached, saying in its report which layers came from where."""

import os
import re

import pytest

pytestmark = [pytest.mark.twin, pytest.mark.slow]

# node-003 computes a wrong all-reduce: NO-GO at Layer 5; every other node passes every layer
POD = {"pod": {"nodes": 4}, "faults": [{"node": "node-003", "kind": "nccl_wrong", "count": 4096}]}
RERUN = (5, 6, 7)


def _statuses(run):
    return {host: sorted((r["layer"], r["check"], r["status"]) for r in info["checks"]) for host, info in run.report["hosts"].items()}


@pytest.fixture(scope="module")
def full_and_resumed(validate):
    full = validate(POD, pyramid_nccl_timeout=8)
    resumed = validate(POD, pyramid_nccl_timeout=8, pyramid_resume=full.report["run_dir"])
    return full, resumed


def test_the_full_run_fails_node_003_at_layer_5_alone(full_and_resumed):
    full, _resumed = full_and_resumed
    assert full.host("node-003")["verdict"] == "NO-GO" and full.host("node-003")["stopped_at"] == 5
    assert [host for host in ("node-001", "node-002", "node-004") if full.host(host)["verdict"] != "GO"] == []


def test_the_resumed_run_takes_layers_0_to_4_over_and_runs_5_to_7_again(full_and_resumed):
    full, resumed = full_and_resumed
    said = resumed.report["resumed"]
    assert said["layers"] == [0, 1, 2, 3, 4] and said["from"] == full.report["run_dir"], said
    assert "layers 0-4 taken over from %s" % os.path.basename(full.report["run_dir"]) in said["said"]
    assert "RESUMED: layers 0-4 taken over" in open(os.path.join(resumed.report["run_dir"], "report.md"), encoding="utf-8").read()
    for host in ("node-001", "node-003"):
        for record in resumed.host(host)["checks"]:
            if record["layer"] in RERUN:
                assert not record.get("reused_from"), record
            elif record["status"] != "SKIP" or not record.get("not_applicable"):
                assert record.get("reused_from") == os.path.basename(full.report["run_dir"]), record
    # the plays of the layers taken over did not run: each of their tasks skipped on every device
    blocks = re.sub(r"\x1b\[[0-9;]*m", "", resumed.stdout).split("TASK [")[1:]
    lower = [block for block in blocks if re.search(r"(of|on) layer [0-4]\b|the soak", block.splitlines()[0])]
    assert lower and all(not re.search(r"^(ok|changed|failed|fatal): ", block, re.M) for block in lower), lower[:2]
    upper = [block for block in blocks if "Run the catalog checks of layer 5" in block.splitlines()[0]]
    assert upper and re.search(r"^(ok|failed|fatal): ", upper[0], re.M), upper


def test_the_resumed_run_reaches_the_full_runs_verdict(full_and_resumed):
    full, resumed = full_and_resumed
    assert resumed.report["verdict"] == full.report["verdict"] == "NO-GO"
    assert _statuses(resumed) == _statuses(full)
    assert resumed.host("node-003")["stopped_at"] == 5
