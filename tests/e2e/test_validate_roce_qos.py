"""validate.yml on a twin mixed-vendor fabric: each leaf's own side of RoCE's class (roce_port_qos, issue 14) on EOS and
NX-OS, read from their configuration (docs/roce.md).

One leaf per rail (r0 eos, r1 nxos, r2 sonic, r3 cumulus, r4 eos, r5 nxos, r6 sonic, r7 cumulus). ECN is taken off the
RoCE queue on every port of leaf1-r1 (NX-OS: its queuing policy has no `random-detect ... ecn` line) and of leaf1-r4
(EOS: the port's stanza has no `random-detect ecn` under its tx-queue). NX-OS's configuration is one complete read:
a FAIL naming the queuing class. EOS's port stanza has no trailer, so a missing ECN line cannot be told from a read cut
before it: an ERROR confined to those ports, never a PASS. The healthy EOS and NX-OS leaves PASS, saying they read the
configuration. The nodes behind the failing leaves are blocked at Layer 3.
"""

import pytest

pytestmark = [pytest.mark.twin, pytest.mark.slow]

FABRIC = {"spines": 4, "nodes_per_leaf": 4, "leaf_os": ["eos", "nxos", "sonic", "cumulus"],
          "spine_os": ["eos", "nxos", "sonic", "cumulus"]}
FAST = {"pyramid_rdma_duration": 1, "pyramid_soak_seconds": 1}
SWITCH_FAULTS = [{"switch": "leaf1-r1", "kind": "ecn_off"}, {"switch": "leaf1-r4", "kind": "ecn_off"}]


@pytest.fixture(scope="module")
def qos_pod(validate):
    return validate({"pod": {"nodes": 4}, "switches": dict(FABRIC, faults=SWITCH_FAULTS), "faults": []}, **FAST)


def _record(run, device, check):
    return next(r for r in run.host(device)["checks"] if r["check"] == check)


@pytest.mark.parametrize("leaf", ["leaf1-r0", "leaf1-r5"])
def test_a_healthy_eos_or_nxos_leaf_passes_from_its_configuration(qos_pod, leaf):
    record = _record(qos_pod, leaf, "roce_port_qos")
    assert record["status"] == "PASS" and record["layer"] == 3, (record, qos_pod.stdout[-3000:])
    assert record["actual"].startswith("4 host ports: trust dscp, DSCP 26 -> priority 3"), record
    assert "(configured: the running-config, not the operational state)" in record["actual"], record


def test_nxos_without_ecn_on_the_roce_queue_fails_naming_the_queuing_class(qos_pod):
    record = _record(qos_pod, "leaf1-r1", "roce_port_qos")
    assert record["status"] == "FAIL", record
    assert "no random-detect ... ecn in queuing class c-out-8q-q3" in record["actual"], record
    assert len(record["detail"]["ports"]) == 4, record


def test_eos_without_an_ecn_line_in_a_stanza_with_no_trailer_is_an_error_not_a_pass(qos_pod):
    record = _record(qos_pod, "leaf1-r4", "roce_port_qos")
    assert record["status"] == "ERROR", record
    assert "no random-detect ecn on tx-queue" in record["actual"] and "in the stanza as read" in record["actual"], record
    assert len(record["detail"]["ports"]) == 4, record  # confined to the ports it names: only the nodes behind them wait


def test_the_nodes_behind_them_are_blocked_at_layer_3(qos_pod):
    for node in ("node-001", "node-004"):
        info = qos_pod.host(node)
        assert info["stopped_at"] == 3, qos_pod.not_passing(node)
        by = {(entry["switch"], entry["check"]) for r in info["checks"] if r["status"] == "BLOCKED" for entry in r["blocked_by"]}
        assert {("leaf1-r1", "roce_port_qos"), ("leaf1-r4", "roce_port_qos")} <= by, by
        assert not {r["status"] for r in info["checks"]} & {"FAIL", "ERROR"}, qos_pod.not_passing(node)
