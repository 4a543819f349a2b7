"""validate.yml on twin fabrics: switch faults caught at the right layer, switch and port, with the
cheat-sheet cause; the nodes behind a failing leaf BLOCKED, not failing on their own; a switch that
cannot be reached is an ERROR while the run goes on. EOS and NX-OS answer through network_cli, SONiC
and Cumulus over SSH, all over real SSH.
"""

import re

import pytest

pytestmark = [pytest.mark.twin, pytest.mark.slow]

# 4 nodes, one leaf per rail (8 leaves: eos, nxos, sonic, cumulus twice) and 4 spines of each vendor.
FABRIC = {"spines": 4, "nodes_per_leaf": 4, "leaf_os": ["eos", "nxos", "sonic", "cumulus"],
          "spine_os": ["eos", "nxos", "sonic", "cumulus"]}
SOAK = 3


def _pod(*faults):
    return {"pod": {"nodes": 4}, "switches": dict(FABRIC, faults=list(faults)), "faults": []}


def _status(run, device):
    """What did not pass on the device, a check its platform has no way for (SKIP not applicable) aside."""
    return {r["check"]: r for r in run.host(device)["checks"] if r["status"] != "PASS" and not r.get("not_applicable")}


def _judged(run, device):
    return {r["status"] for r in run.host(device)["checks"] if not r.get("not_applicable")}


@pytest.fixture(scope="module")
def healthy(healthy_fabric):
    """The session's healthy fabric (tests/e2e/conftest.py: this FABRIC, this SOAK), shared with the incast's file."""
    return healthy_fabric


def test_a_healthy_mixed_vendor_fabric_raises_no_alarm(healthy):
    run = healthy
    switches = [h for h, info in run.report["hosts"].items() if info["device"] == "switch"]
    assert len(switches) == 12, run.stdout[-3000:]
    for name, info in run.report["hosts"].items():
        assert _judged(run, name) == {"PASS"}, (name, run.not_passing(name))
    # fec_counters: PASS on the EOS and SONiC switches though their optics correct codewords, not applicable elsewhere
    fec = {name: next(r for r in run.host(name)["checks"] if r["check"] == "fec_counters") for name in switches}
    assert {name for name, r in fec.items() if r["status"] == "PASS"} == {"leaf1-r0", "leaf1-r4", "leaf1-r2", "leaf1-r6",
                                                                          "spine-01", "spine-03"}
    assert all(r["status"] == "SKIP" and r.get("not_applicable") for name, r in fec.items() if name in ("leaf1-r1", "spine-04"))
    assert run.report["verdict"] == "GO" and run.rc == 0
    rows = {row["row"]: row for row in run.report["checklist"]}
    assert rows["links"]["status"] == rows["bgp_ecmp"]["status"] == rows["qos_idle"]["status"] == "pass"
    ecmp = next(r for r in run.host("leaf1-r3")["checks"] if r["check"] == "ecmp")
    assert ecmp["actual"] == "7 prefixes, 4-way ECMP each"
    # each switch task closed its network_cli connection: none was left for a later task to find closing
    assert run.open_sockets == []


# EOS's text forms, each its source's next way (catalog/switch.yml): leaf1-r4's release refuses their `| json` form
TEXT_FORMS = ["show interfaces status", "show interfaces counters errors", "show interfaces transceiver", "show lldp neighbors",
              "show ip bgp summary", "show ip route bgp", "show priority-flow-control counters", "show interfaces counters discards"]

# leaf -> platform: r0 eos, r1 nxos, r2 sonic, r3 cumulus, r4 eos, r5 nxos, r6 sonic, r7 cumulus
PORT_FAULTS = [
    {"switch": "leaf1-r0", "kind": "port_speed", "port": "Ethernet2/1", "speed": 100},
    {"switch": "leaf1-r1", "kind": "crc_rising", "port": "Ethernet1/3"},
    {"switch": "leaf1-r1", "kind": "crc_old", "port": "Ethernet1/1", "count": 977},
    {"switch": "leaf1-r2", "kind": "rx_power_low", "port": "Ethernet8", "dbm": -11.5},
    {"switch": "leaf1-r3", "kind": "port_down", "port": "swp4"},
    {"switch": "leaf1-r4", "kind": "pfc_rising", "port": "Ethernet1/1", "priority": 3, "direction": "rx"},
    {"switch": "leaf1-r4", "kind": "json_unconverted", "commands": TEXT_FORMS},  # its pfc_idle is read as text
    {"switch": "leaf1-r5", "kind": "ecn_rising", "port": "Ethernet1/2", "priority": 3},
    {"switch": "spine-03", "kind": "discards_rising", "port": "Ethernet16", "priority": 3},  # SONiC spine, to leaf1-r2
    {"kind": "miscabled", "node": "node-001", "rails": [6, 7]},
    {"switch": "leaf1-r0", "kind": "fec_degraded", "port": "Ethernet3/1"},  # EOS: corrected codewords far over the threshold
    {"switch": "leaf1-r6", "kind": "fec_degraded", "port": "Ethernet16", "corrected_per_s": 2000, "uncorrected_per_s": 2},  # SONiC: frames lost
]


@pytest.fixture(scope="module")
def port_faults(validate):
    return validate(_pod(*PORT_FAULTS), pyramid_soak_seconds=SOAK)


@pytest.mark.parametrize("switch, check, layer, words, cause", [
    ("leaf1-r0", "link_status", 1, "Ethernet2/1 up at 100G, want 400G", "transceiver mismatch"),
    ("leaf1-r1", "link_errors", 1, "Ethernet1/3: crc +", "bad optic or cable"),
    ("leaf1-r2", "optics_rx", 1, "Ethernet8: lane 1 -11.50 dBm", "RX power out of range"),
    ("leaf1-r3", "link_status", 1, "swp4 ", "Port down"),
    ("leaf1-r0", "fec_counters", 1, "Ethernet3/1: ", "dirty or damaged fiber"),  # about 250000 corrected codewords/s
    ("leaf1-r6", "fec_counters", 1, "Ethernet16: uncorrected +", "dirty or damaged fiber"),
    ("leaf1-r6", "cabling", 1, "plan node-001 ens7np0, LLDP sees node-001 ens8np0", "Miscabled"),
    ("leaf1-r7", "cabling", 1, "plan node-001 ens8np0, LLDP sees node-001 ens7np0", "Miscabled"),
    ("leaf1-r4", "pfc_idle", 3, "Ethernet1/1: rx", "PFC pauses at idle"),
    ("leaf1-r5", "ecn_idle", 3, "Ethernet1/2: ECN-marked q3 +", "ECN marking at idle"),
    ("spine-03", "discards_idle", 3, "Ethernet16: discards q3 +", "headroom underprovisioned"),
])
def test_each_port_fault_is_caught_on_its_switch_and_port(port_faults, switch, check, layer, words, cause):
    failing = _status(port_faults, switch)
    assert check in failing, (switch, failing, port_faults.stdout[-2000:])
    record = failing[check]
    assert record["status"] == "FAIL" and record["layer"] == layer
    assert words in record["actual"], record["actual"]
    assert cause in record["cause"], record["cause"]


def test_pfc_rising_is_caught_through_the_text_form_where_the_release_refuses_json(port_faults):
    pfc = _status(port_faults, "leaf1-r4")["pfc_idle"]
    assert pfc["command"] == "show priority-flow-control counters", pfc  # the way that answered; the JSON one was refused
    assert set(_status(port_faults, "leaf1-r4")) == {"pfc_idle"}


def test_flat_old_crc_counts_pass_and_other_switches_stay_clean(port_faults):
    # leaf1-r1's link_errors FAILs for Ethernet1/3's rising CRC (above); Ethernet1/1's flat old count is not named
    assert "Ethernet1/1" not in _status(port_faults, "leaf1-r1")["link_errors"]["actual"]
    leaf = _status(port_faults, "leaf1-r6")  # failed L1 on its ports: climbed to L2 and L3, judged without them
    assert leaf["cabling"]["status"] == "FAIL"
    above = [r for r in port_faults.host("leaf1-r6")["checks"] if r["layer"] >= 2 and not r.get("not_applicable")]
    assert {r["status"] for r in above} == {"PASS"}, above
    assert all("failed a layer below)" in r["expected"] for r in above if r["check"] in ("pfc_idle", "ecn_idle", "discards_idle"))
    for spine in ("spine-01", "spine-02", "spine-04"):
        assert _status(port_faults, spine) == {}, spine


def test_nodes_behind_failing_ports_are_blocked_not_failing(port_faults):
    blocked = {node: [r for r in port_faults.host(node)["checks"] if r["status"] == "BLOCKED"]
               for node in ("node-001", "node-002", "node-003", "node-004")}
    for node, records in blocked.items():
        assert records, node
        at = min(r["layer"] for r in records)  # passed every layer below, blocked there, not run above
        checks = port_faults.host(node)["checks"]
        assert {r["status"] for r in checks if r["layer"] < at and not r.get("not_applicable")} == {"PASS"}, node
        assert {r["status"] for r in checks if r["layer"] == at and not r.get("not_applicable")} <= {"PASS", "BLOCKED"}, node
        assert {r["status"] for r in checks if r["layer"] > at} <= {"SKIP", "BLOCKED"}, node  # not run; another switch may block higher up
        assert not {r["status"] for r in checks} & {"FAIL", "ERROR"}, node
    by = {r["check"]: r["blocked_by"] for r in blocked["node-002"]}
    assert {"switch": "leaf1-r0", "check": "link_status", "status": "FAIL", "ports": ["Ethernet2/1"]} in by["link_status"]
    assert port_faults.host("node-002")["stopped_at"] == 1
    rows = {row["row"]: row for row in port_faults.report["checklist"]}
    assert "node-002" in rows["links"]["blocked_hosts"] and "leaf1-r0" in rows["links"]["failing_hosts"]
    assert "Blocked by a switch in their path" in port_faults.stdout


CONTROL_FAULTS = [
    {"switch": "leaf1-r1", "kind": "bgp_down", "peer": "spine-03", "state": "Idle"},
    {"switch": "leaf1-r2", "kind": "maximum_paths", "paths": 1},
    {"switch": "leaf1-r4", "kind": "json_unconverted", "commands": TEXT_FORMS},
]


@pytest.fixture(scope="module")
def control_plane(validate):
    return validate(_pod(*CONTROL_FAULTS), pyramid_soak_seconds=SOAK)


def test_bgp_down_names_both_ends_and_ecmp_names_the_missing_spine(control_plane):
    leaf = _status(control_plane, "leaf1-r1")
    assert leaf["bgp_sessions"]["layer"] == 2 and "(spine-03) Idle" in leaf["bgp_sessions"]["actual"]
    assert "missing via spine-03" in leaf["ecmp"]["actual"]
    assert "session is down" in leaf["ecmp"]["cause"]
    spine = _status(control_plane, "spine-03")
    assert "(leaf1-r1) Active" in spine["bgp_sessions"]["actual"]
    # another leaf: only leaf1-r1's prefix lacks spine-03, its own sessions are up
    other = _status(control_plane, "leaf1-r0")["ecmp"]
    assert "10.51.0.0/24: 3 of 4 next hops (missing via spine-03)" in other["actual"]
    assert "maximum-paths" not in other["cause"]


def test_one_path_with_every_session_up_is_maximum_paths(control_plane):
    ecmp = _status(control_plane, "leaf1-r2")["ecmp"]
    assert "1 of 4 next hops" in ecmp["actual"] and "maximum-paths" in ecmp["cause"]
    assert "bgp_sessions" not in _status(control_plane, "leaf1-r2")


def test_an_eos_release_without_json_for_a_command_is_read_through_its_text_form_and_judged_alike(control_plane):
    """leaf1-r4 (EOS) refuses `| json` for the commands with a text form; leaf1-r0 (EOS, the same run) answers JSON.
    Each check of the two leaves has the same verdict (ecmp fails on both for leaf1-r1's prefix), read by other ways."""
    by_json, by_text = ({r["check"]: r for r in control_plane.host(leaf)["checks"]} for leaf in ("leaf1-r0", "leaf1-r4"))
    assert {c: r["status"] for c, r in by_text.items()} == {c: r["status"] for c, r in by_json.items()}
    assert by_text["ecmp"]["status"] == "FAIL" and by_text["ecmp"]["actual"] == by_json["ecmp"]["actual"]
    for check, command in (("link_status", "show interfaces status"), ("cabling", "show lldp neighbors"),
                           ("bgp_sessions", "show ip bgp summary"), ("ecmp", "show ip route bgp")):
        ran_text, ran_json = by_text[check]["command"].split("; "), by_json[check]["command"].split("; ")
        assert command in ran_text and command + " | json" in ran_json and command + " | json" not in ran_text, (check, ran_text)


def test_a_failing_leaf_blocks_its_nodes_at_layer_2(control_plane):
    for node in ("node-001", "node-004"):
        info = control_plane.host(node)
        assert info["stopped_at"] == 2 and info["verdict"] == "NO-GO"
        assert {r["status"] for r in info["checks"] if r["layer"] == 2 and r["check"] != "rail_ping" and not r.get("not_applicable")} == {"BLOCKED"}
        ping = next(r for r in info["checks"] if r["check"] == "rail_ping")  # the node's own L2 mesh: not run
        assert ping["status"] == "SKIP" and ping["actual"].startswith("not run: blocked at layer 2"), ping
        assert {r["status"] for r in info["checks"] if r["layer"] >= 5} == {"SKIP"}


def test_unreachable_refused_and_wedged_switches_are_errors_and_the_run_goes_on(validate):
    run = validate(_pod({"switch": "leaf1-r0", "kind": "unreachable"}, {"switch": "leaf1-r1", "kind": "auth_fail"},
                        {"switch": "leaf1-r4", "kind": "prompt_timeout"}, {"switch": "leaf1-r2", "kind": "unreachable"},
                        # NX-OS: a pause after "QoS-Group#" cuts the answer there; once is recovered, every try of one
                        # answer (collect/cli.py's three, in each task's session) is an ERROR
                        {"switch": "leaf1-r5", "kind": "cli_stall", "times": 1, "seconds": 0.3},
                        {"switch": "spine-02", "kind": "cli_stall", "times": 3, "seconds": 0.3}),
                   # network_cli's wait for a prompt that never comes: 8 s, not the twin inventory's 15, waited out
                   # three times by the wedged leaf (a healthy switch answers in well under a second)
                   pyramid_soak_seconds=SOAK, ansible_command_timeout=8)
    for switch, words in (("leaf1-r0", "leaf1-r0"), ("leaf1-r1", "leaf1-r1"), ("leaf1-r2", "leaf1-r2"),
                          ("leaf1-r4", "timeout")):
        layer1 = [r for r in run.host(switch)["checks"] if r["layer"] == 1 and not r.get("not_applicable")]
        assert {r["status"] for r in layer1} == {"ERROR"}, (switch, layer1)
        assert any(words in (r["cause"] + r["actual"]) for r in layer1), (switch, layer1[0])
    for switch in ("leaf1-r3", "leaf1-r5", "spine-01"):  # the others were judged
        assert _judged(run, switch) == {"PASS"}, (switch, run.not_passing(switch))
    cut = _status(run, "spine-02")
    # the layers above the one it failed are not climbed: Layer 7's telemetry check says where it stopped
    above = {check for check, r in cut.items() if r["status"] == "SKIP" and "blocked at layer 3" in r["actual"]}
    assert above == {"switch_telemetry_signals"}, run.not_passing("spine-02")
    cut = {check: r for check, r in cut.items() if check not in above}
    assert sorted(cut) == ["discards_idle", "ecn_idle"], run.not_passing("spine-02")
    assert all(r["status"] == "ERROR" and "'QoS-Group#', which network_cli took for the prompt" in r["actual"]
               for r in cut.values())
    assert run.host("node-001")["stopped_at"] == 1
    # a spine serves every rail leaf of a node: named once in what blocks it, not once per leaf
    shown = re.sub(r"\x1b\[[0-9;]*m", "", run.stdout)  # ansible-runner's colours
    assert re.search(r"(?m) L3 by spine-02 ecn_idle: node-001, node-002, node-003, node-004$", shown), shown[-3000:]
    assert run.report["verdict"] == "NO-GO" and run.rc != 0
    assert run.open_sockets == []  # closed after timeouts and failed logins too
