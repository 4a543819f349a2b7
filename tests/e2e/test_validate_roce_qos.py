"""validate.yml on a twin mixed-vendor fabric: each leaf's own side of RoCE's class (roce_port_qos, issue 14) on EOS and
NX-OS, read from their configuration (docs/roce.md).

One leaf per rail (r0 eos, r1 nxos, r2 sonic, r3 cumulus, r4 eos, r5 nxos, r6 sonic, r7 cumulus). ECN is taken off the
RoCE queue of node-004's port on leaf1-r1 (NX-OS: its queuing policy has no `random-detect ... ecn` line). NX-OS's
configuration is one complete read: a FAIL naming the queuing class and the port, which holds back the node behind that
port and only it. The healthy EOS and NX-OS leaves PASS, saying they read the configuration. EOS's port stanza has no
trailer, so a missing ECN line there cannot be told from a read cut before it: an ERROR, never a PASS
(tests/e2e/test_validate_incast.py's switch faults: test_ecn_off_on_an_eos_leaf_is_seen_at_idle_in_its_configuration_too).
"""

import pytest

pytestmark = [pytest.mark.twin, pytest.mark.slow]


@pytest.fixture(scope="module")
def qos_pod(roce_fabric):
    """The session's RoCE fabric (tests/e2e/conftest.py), shared with tests/e2e/test_validate_roce_agree.py: no ECN on
    node-004's port of leaf1-r1 (Ethernet1/4); leaf1-r0 and leaf1-r5 healthy."""
    return roce_fabric


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
    assert record["detail"]["ports"] == ["Ethernet1/4"], record


def test_the_node_behind_that_port_is_blocked_at_layer_3_and_only_it(qos_pod):
    info = qos_pod.host("node-004")
    assert info["stopped_at"] == 3, qos_pod.not_passing("node-004")
    by = {(entry["switch"], entry["check"], tuple(entry["ports"])) for r in info["checks"] if r["status"] == "BLOCKED"
          for entry in r["blocked_by"]}
    assert ("leaf1-r1", "roce_port_qos", ("Ethernet1/4",)) in by, by
    assert not {r["status"] for r in info["checks"]} & {"FAIL", "ERROR"}, qos_pod.not_passing("node-004")
    healthy = qos_pod.host("node-001")  # behind the same leaf, on another port
    assert "BLOCKED" not in {r["status"] for r in healthy["checks"]}, qos_pod.not_passing("node-001")
