"""Layer 3 under load, the induced incast: its plan (run/incast_plan.py), its verdict (judging/incast.py) as a
data table, and the twin's physics (twin/pyramid_twin/incast.py) that tells the seed's cases apart."""

import copy
import time

import pytest

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import incast_plan as _plan, incast_reads as _run
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.judging import incast as _judge
from pyramid_twin import incast as _physics, model

RAILS = {"ens%dnp0" % (r + 1): r for r in range(8)}


def pod(count, per_leaf=32, rails=8):
    """The twin's rail-optimized fabric as the inventory declares it: leaf<su>-r<rail>, port n <- node n of the SU."""
    nodes = ["node-%03d" % i for i in range(1, count + 1)]
    switch_ports = {}
    for su in range(0, count, per_leaf):
        for rail in range(rails):
            switch_ports["leaf%d-r%d" % (su // per_leaf + 1, rail)] = [
                {"port": "Ethernet%d/1" % (n + 1), "peer": node, "peer_port": "ens%dnp0" % (rail + 1), "role": "host"}
                for n, node in enumerate(nodes[su:su + per_leaf])] + [
                {"port": "Ethernet33/1", "peer": "spine-01", "peer_port": "Ethernet1/1", "role": "fabric"}]
    return nodes, switch_ports


# --- the plan -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("count", [16, 32, 64, 128, 512])
def test_one_round_proves_every_leaf_whatever_the_pod_size(count):
    nodes, ports = pod(count)
    leaves = _plan.leaf_ports(ports, RAILS)
    planned = _plan.plan(nodes, leaves, senders=8, rate_gbps=60)
    assert len(planned["rounds"]) == 1
    groups = planned["rounds"][0]
    assert {p["leaf"] for g in groups for p in g["ports"]} == set(leaves), "every leaf has a target"
    members = [n for g in groups for n in [g["target"]] + g["senders"]]
    assert len(members) == len(set(members)), "a node plays one part per round"
    assert all(len(g["senders"]) == 8 for g in groups)
    assert len(groups) == -(-count // 32), "one target per scalable unit covers its 8 rail leaves"


def test_senders_come_from_other_leaves_first():
    nodes, ports = pod(64)
    groups = _plan.plan(nodes, _plan.leaf_ports(ports, RAILS), rate_gbps=60)["rounds"][0]
    first = groups[0]
    assert first["target"] == "node-001"
    assert all(int(s[-3:]) > 32 for s in first["senders"]), first["senders"]
    assert first["ports"][0] == {"leaf": "leaf1-r0", "port": "Ethernet1/1", "rail": 0}


def test_one_rail_only_proves_that_rails_leaves():
    nodes, ports = pod(64)
    leaves = _plan.leaf_ports(ports, {"ens4np0": 3})
    groups = _plan.plan(nodes, leaves, rate_gbps=60)["rounds"][0]
    assert sorted(p["leaf"] for g in groups for p in g["ports"]) == ["leaf1-r3", "leaf2-r3"]


def test_small_leaves_take_more_rounds_but_still_not_more_with_the_pod():
    rounds = {count: len(_plan.plan(*_pod_leaves(count, per_leaf=4), rate_gbps=60)["rounds"]) for count in (16, 64, 256)}
    # targets = N / 4, incasts per round ~ N / 9: about (K + 1) / 4 rounds, whatever N (a small pod has fewer spare senders)
    assert max(rounds.values()) <= 4 and rounds[256] <= rounds[16], rounds


def _pod_leaves(count, per_leaf):
    nodes, ports = pod(count, per_leaf=per_leaf, rails=1)
    return nodes, _plan.leaf_ports(ports, RAILS)


def test_a_small_pod_sends_with_what_it_has_and_says_so():
    nodes, ports = pod(4)
    planned = _plan.plan(nodes, _plan.leaf_ports(ports, RAILS), senders=8, rate_gbps=200)
    assert planned["senders"] == 3 and "3 senders" in planned["notes"][0]


@pytest.mark.parametrize("senders, rate", [(8, 40), (4, 100)])
def test_a_load_that_cannot_congest_the_port_is_refused(senders, rate):
    nodes, ports = pod(32)
    with pytest.raises(_plan.IncastPlanError, match="does not exceed the target port's 400 Gb/s"):
        _plan.plan(nodes, _plan.leaf_ports(ports, RAILS), senders=senders, rate_gbps=rate)


def test_a_lone_node_cannot_incast():
    with pytest.raises(_plan.IncastPlanError, match="at least one sender"):
        _plan.plan(["node-001"], {})


# --- the verdict: a data table ----------------------------------------------------------------------------

EXPECT = {"pyramid_pfc_priorities": [3], "pyramid_incast_discards_max": 0, "pyramid_incast_ecn_marks_min": 0,
          "pyramid_incast_pfc_tail_max_per_s": 50}
GROUP = {"target": "node-001", "senders": ["node-033", "node-034"],
         "ports": [{"leaf": "leaf1-r0", "port": "Ethernet1/1", "rail": 0}]}
LEAF_PORTS = ("Ethernet1/1", "Ethernet33/1")


def _snap(marks=0, pfc_tx=0, discards=0):
    """The leaf's sw_ecn / sw_pfc / sw_discards facts (the EOS parsers' shape: queues as strings)."""
    return {"ecn": {"ports": {p: {"3": marks if p == "Ethernet1/1" else 0, "0": 0} for p in LEAF_PORTS}},
            "pfc": {"ports": {p: {"3": {"rx": 0, "tx": pfc_tx if p == "Ethernet33/1" else 0}} for p in LEAF_PORTS}},
            "discards": {"ports": {p: {"3": discards if p == "Ethernet33/1" else 0} for p in LEAF_PORTS}}}


def _cc(sent=0, handled=0):
    return {"counters": {"np_cnp_sent": sent, "rp_cnp_handled": handled, "np_ecn_marked_roce_packets": sent}}


def _case(marks, pfc_tx, discards, cnp_sent, handled):
    nic = {"node-001": {0: {"before": _cc(), "after": _cc(sent=cnp_sent)}}}
    for sender, count in zip(GROUP["senders"], handled):
        nic[sender] = {0: {"before": _cc(), "after": _cc(handled=count)}}
    return {"leaf1-r0": {"before": _snap(), "after": _snap(marks, pfc_tx, discards)}}, nic


ROWS = [
    # (name, after: ECN marks, PFC TX, discards, CNPs sent by the target, handled per sender, status, cause)
    ("healthy: marks, CNPs, a PFC blip", (600000, 300, 0, 300000, (150000, 150000)), "PASS", None),
    ("min_th too high: PFC storms, no marks", (0, 120000, 0, 0, (0, 0)), "FAIL", "ecn_min_th"),
    ("dcqcn_off on the target: marks, no CNP sent", (600000, 120000, 0, 0, (0, 0)), "FAIL", "dcqcn_np"),
    ("dcqcn_off on a sender: its CNPs not handled", (600000, 120000, 0, 300000, (150000, 0)), "FAIL", "dcqcn_rp"),
    ("headroom short: drops", (600000, 300, 1500, 300000, (150000, 150000)), "FAIL", "drops"),
    ("storm despite DCQCN", (600000, 120000, 0, 300000, (150000, 150000)), "FAIL", "pfc_storm"),
    ("nothing moved: no congestion", (0, 0, 0, 0, (0, 0)), "FAIL", "no_load"),
]


def _verdict(group, expect, switch, nic, seconds, tail=None):
    """judging/incast.py's judge as the runner calls it (one signature: facts, expectations)."""
    return _judge.verdict({"group": group, "switch": switch, "nic": nic, "seconds": seconds, "tail": tail}, expect)


@pytest.mark.parametrize("name, after, status, cause", ROWS, ids=[r[0] for r in ROWS])
def test_verdict(name, after, status, cause):
    switch, nic = _case(*after)
    record = _verdict(GROUP, EXPECT, switch, nic, seconds=30)
    assert (record["status"], record["cause"]) == (status, cause), record["msg"]
    assert "node-001" in record["msg"] and "node-033, node-034" in record["msg"]
    assert "leaf1-r0 port Ethernet1/1" in record["msg"]
    if cause:
        assert _judge.CAUSES[cause] in record["msg"]


def test_a_deaf_sender_is_named():
    record = _verdict(GROUP, EXPECT, *_case(600000, 120000, 0, 300000, (150000, 0)), seconds=30)
    assert "no CNP handled on node-034" in record["msg"]


def test_the_tail_window_tells_a_blip_from_a_storm():
    switch, nic = _case(600000, 3000, 0, 300000, (150000, 150000))  # 100/s over 30 s: above the bound ...
    assert _verdict(GROUP, EXPECT, switch, nic, seconds=30)["cause"] == "pfc_storm"
    tail = {"leaf1-r0": {"at": _snap(600000 * 2 // 3, 3000, 0), "seconds": 10}}  # ... but all of it in the first part
    assert _verdict(GROUP, EXPECT, switch, nic, seconds=30, tail=tail)["status"] == "PASS"


FIRED = [{"started": 1000.0, "running": 1001.5}, {"started": 1000.4, "running": 1002.0}]  # two senders' fire records


def test_a_tail_read_within_the_window_bounds_pfc_up_to_the_end_of_the_load():
    # read 24 s after the first start, the after read 16 s later: the load ran on until 1002.0 + 30 at the latest,
    # so the tail's PFC is over 8 s of load, not over the 16 s up to the after read (which would halve a storm's rate)
    entry = _judge.tail_entry("leaf1-r0", {"snap": 1}, 1024.0, 1040.0, FIRED, 30)
    assert entry == {"at": {"snap": 1}, "seconds": 8.0}
    assert _judge.tail_entry("leaf1-r0", {}, 1024.0, 1029.0, FIRED, 30)["seconds"] == 5.0  # read after before the end


@pytest.mark.parametrize("read_at, fired, said", [
    (1030.5, FIRED, "leaf1-r0: its tail read ended 0.5 s after the first sender's 30 s window could have ended"),
    (1024.0, [], "leaf1-r0: when the senders fired was not recorded"),
], ids=["after the window", "no fire record"])
def test_a_tail_read_that_cannot_be_placed_in_the_window_is_said_why(read_at, fired, said):
    assert _judge.tail_entry("leaf1-r0", {}, read_at, 1040.0, fired, 30).startswith(said)


def test_the_tail_read_needs_only_the_pfc_counters():
    # the tail read collects sw_pfc alone (incast_leaf's tail_sources, catalog/incast.yml): it bounds PFC, and ends sooner for it
    switch, nic = _case(600000, 3000, 0, 300000, (150000, 150000))
    pfc_only = {"pfc": _snap(600000 * 2 // 3, 3000, 0)["pfc"]}
    assert _verdict(GROUP, EXPECT, switch, nic, seconds=30, tail={"leaf1-r0": {"at": pfc_only, "seconds": 10}})["status"] == "PASS"
    storm = {"pfc": _snap(0, 100, 0)["pfc"]}  # 2900 pause frames over the last 10 s
    assert _verdict(GROUP, EXPECT, switch, nic, seconds=30, tail={"leaf1-r0": {"at": storm, "seconds": 10}})["cause"] == "pfc_storm"
    catalog = _catalog.load_catalog()
    assert _run.switch_sources(catalog, "tail") == ["sw_pfc"]
    assert _run.switch_sources(catalog, "before") == ["sw_ecn", "sw_pfc", "sw_discards"]


def test_a_late_or_missing_tail_read_is_an_error_about_the_read_never_a_pass():
    # the healthy case of test_the_tail_window_tells_a_blip_from_a_storm: with its tail read too late, or none,
    # a storm that stopped with the load could not show: ERROR, naming the leaf, never PASS
    switch, nic = _case(600000, 3000, 0, 300000, (150000, 150000))
    late = _judge.tail_entry("leaf1-r0", _snap(400000, 3000, 0), 1040.0, 1045.0, FIRED, 30)
    for tail, said in (({"leaf1-r0": late}, "its tail read ended 10.0 s after"), ({}, "leaf1-r0: not read near the end")):
        record = _verdict(GROUP, EXPECT, switch, nic, seconds=30, tail=tail)
        assert record["status"] == "ERROR" and said in record["msg"], record


def test_a_fail_found_before_the_storm_bound_stands_without_the_tail_read():
    # ECN min_th too high (no marks, PFC fires) is a FAIL whatever the tail read says: it is not needed to see it
    switch, nic = _case(0, 120000, 0, 0, (0, 0))
    record = _verdict(GROUP, EXPECT, switch, nic, seconds=30, tail={"leaf1-r0": "leaf1-r0: its tail read ended late"})
    assert (record["status"], record["cause"]) == ("FAIL", "ecn_min_th"), record


def test_eos_per_port_pfc_counts_are_read_under_all():
    switch, nic = _case(600000, 300, 0, 300000, (150000, 150000))
    for side in switch["leaf1-r0"].values():
        side["pfc"]["ports"] = {p: {"all": v["3"]} for p, v in side["pfc"]["ports"].items()}
    assert _verdict(GROUP, EXPECT, switch, nic, seconds=30)["status"] == "PASS"


def _broken(change):
    switch, nic = _case(600000, 300, 0, 300000, (150000, 150000))
    change(switch, nic)
    return _verdict(GROUP, EXPECT, switch, nic, seconds=30)


@pytest.mark.parametrize("change, said", [
    (lambda s, n: s["leaf1-r0"].update(after="show qos interfaces ecn counters queue | json: exited 1"), "exited 1"),
    (lambda s, n: s["leaf1-r0"].pop("before"), "were not read before and after"),
    (lambda s, n: s["leaf1-r0"]["after"]["ecn"]["ports"].pop("Ethernet1/1"), "Ethernet1/1 ECN-marked: no counters"),
    (lambda s, n: s["leaf1-r0"]["after"]["discards"]["ports"]["Ethernet33/1"].update({"3": "n/a"}), "'n/a' is not a counter"),
    (lambda s, n: s["leaf1-r0"]["before"]["pfc"]["ports"]["Ethernet33/1"]["3"].update(tx=10 ** 6), "went back"),
    (lambda s, n: n["node-034"][0].update(after="cat: rp_cnp_handled: No such file or directory"), "node-034 0 hw_counters"),
    (lambda s, n: n.pop("node-001"), "node-001 rail 0: its hw_counters were not read"),
], ids=["switch read failed", "no before", "port missing", "not a count", "went back", "nic read failed", "target not read"])
def test_unreadable_counters_are_an_error_never_a_pass(change, said):
    record = _broken(change)
    assert record["status"] == "ERROR" and said in record["msg"], record["msg"]
    assert "node-001" in record["msg"]


# --- the twin's physics -----------------------------------------------------------------------------------

def _events(senders=8, rate=60, rp_on=True, np_on=True, deaf=()):
    events = [{"role": "server", "node": "node-001", "device": "mlx5_0", "start": 1000.0, "np_on": np_on}]
    events += [{"role": "client", "node": "node-%03d" % (33 + i), "target": "node-001", "device": "mlx5_0",
                "start": 1000.0 + i * 0.01, "duration": 30, "rate_gbps": rate,
                "rp_on": rp_on and "node-%03d" % (33 + i) not in deaf} for i in range(senders)]
    return events


def _effect(faults=(), **kwargs):
    groups = _physics.incasts(_events(**kwargs))
    assert len(groups) == 1
    return _physics.effect(next(iter(groups.values())), 400, set(faults))


def test_healthy_incast_marks_handles_cnps_and_blips_pfc():
    out = _effect()
    assert out["ecn_marked"] > 0 and out["np_cnp_sent"] > 0 and all(out["rp_cnp_handled"].values())
    assert 0 < out["pfc_tx"] <= _physics.BLIP_PFC and out["discards"] == 0


def test_dcqcn_off_storms_and_marks_without_cnps():
    out = _effect(np_on=False, rp_on=False)
    assert out["ecn_marked"] > 0 and out["np_cnp_sent"] == 0 and not any(out["rp_cnp_handled"].values())
    assert out["pfc_tx"] == _physics.STORM_PFC_PER_S * 30


def test_one_deaf_sender_keeps_the_storm_going():
    out = _effect(deaf=("node-035",))
    assert out["rp_cnp_handled"]["node-035"] == 0 and out["pfc_tx"] > _physics.BLIP_PFC


@pytest.mark.parametrize("fault", ["ecn_min_th_high", "ecn_off"])
def test_no_marks_means_pfc_fires_all_along(fault):
    out = _effect([fault])
    assert out["ecn_marked"] == 0 and out["np_cnp_sent"] == 0 and out["pfc_tx"] == _physics.STORM_PFC_PER_S * 30


def test_short_headroom_drops():
    out = _effect(["headroom_short"])
    assert out["discards"] > 0 and out["ecn_marked"] > 0


def test_a_load_under_line_rate_changes_nothing():
    out = _effect(rate=40)  # the seed's 8 x 40 Gb/s: 320 Gb/s into a 400G port
    assert out["ecn_marked"] == out["pfc_tx"] == out["discards"] == 0


def test_events_persist_between_sessions_and_later_incasts_are_their_own(tmp_path):
    for event in _events() + [dict(e, start=e["start"] + 100) for e in _events() if e["role"] == "client"]:
        _physics.record(str(tmp_path), event)
    groups = _physics.incasts(_physics.load(str(tmp_path)))
    assert sorted(len(g["clients"]) for g in groups.values()) == [8, 8]


@pytest.mark.parametrize("faults, np_on, rp_on, cause", [
    ((), True, True, None), ((), False, False, "dcqcn_np"), (("ecn_min_th_high",), True, True, "ecn_min_th"),
    (("ecn_off",), True, True, "ecn_min_th"), (("headroom_short",), True, True, "drops"),
])
def test_the_judge_tells_the_twins_cases_apart(faults, np_on, rp_on, cause):
    out = _effect(faults, np_on=np_on, rp_on=rp_on)
    group = copy.deepcopy(GROUP)
    group["senders"] = sorted(out["rp_cnp_handled"])
    switch, nic = _case(out["ecn_marked"], out["pfc_tx"], out["discards"], out["np_cnp_sent"], [0] * 8)
    for sender in group["senders"]:
        nic[sender] = {0: {"before": _cc(), "after": _cc(handled=out["rp_cnp_handled"][sender])}}
    assert _verdict(group, EXPECT, switch, nic, seconds=30)["cause"] == cause


# --- the twin's hooks: what its switches and nodes print after an incast, read by the product's parsers -----

def _leaf(tmp_path, *faults):
    from pyramid_twin import switch_model
    scenario = {"pod": {"nodes": 12, "gpus_per_node": 8, "rails": 1},
                "switches": {"spines": 2, "nodes_per_leaf": 4, "leaf_os": ["eos"], "spine_os": ["eos"],
                             "faults": [dict(f, switch="leaf1-r0") for f in faults]}, "faults": []}
    state = switch_model.switch_state(scenario, "leaf1-r0")
    return dict(state, rendered_at=time.time() - 60, incast_events=str(tmp_path))


def _record(tmp_path, faults=(), rp_on=True, np_on=True, start=None, duration=30):
    start = time.time() - duration - 1 if start is None else start
    for i in range(8):
        _physics.record(str(tmp_path), {"role": "client", "node": "node-%03d" % (5 + i), "target": "node-001",
                                        "device": "mlx5_0", "start": start, "duration": duration, "rate_gbps": 60,
                                        "port_gbps": 400, "rp_on": rp_on, "np_on": np_on, "switch_faults": list(faults)})


def _eos_facts(parsers, snapshot):
    from pyramid_twin import formats_eos
    return {name: parsers.parse(parser, formats_eos.COMMANDS[command](snapshot)) for name, parser, command in (
        ("ecn", "arista_eos_show_qos_interfaces_ecn_counters_queue", "show qos interfaces ecn counters queue | json"),
        ("pfc", "arista_eos_show_priority-flow-control_counters_json", "show priority-flow-control counters | json"),
        ("discards", "arista_eos_show_interfaces_counters_discards_json", "show interfaces counters discards | json"))}


@pytest.mark.parametrize("faults, np_on, cause", [
    ((), True, None), ((), False, "dcqcn_np"), (("ecn_min_th_high",), True, "ecn_min_th"), (("headroom_short",), True, "drops")])
def test_the_twins_leaf_prints_the_incast_and_the_judge_reads_it(parsers, tmp_path, faults, np_on, cause):
    from pyramid_twin import switch_session
    leaf = _leaf(tmp_path / "none")
    before = _eos_facts(parsers, switch_session.snapshot_now(leaf))
    _record(tmp_path, faults, np_on=np_on)
    after = _eos_facts(parsers, switch_session.snapshot_now(dict(leaf, incast_events=str(tmp_path))))
    groups = _physics.incasts(_physics.load(str(tmp_path)))
    nic = {host: {0: {"before": _cc(), "after": {"counters": {
        k: v for k, v in _physics.nic_counts(groups, host).get("mlx5_0", {}).items() if k in _judge.CNP}}}}
        for host in ["node-001"] + ["node-%03d" % (5 + i) for i in range(8)]}
    for host in nic:
        nic[host][0]["after"]["counters"] = dict(_cc()["counters"], **nic[host][0]["after"]["counters"])
    group = {"target": "node-001", "senders": ["node-%03d" % (5 + i) for i in range(8)],
             "ports": [{"leaf": "leaf1-r0", "port": "Ethernet1/1", "rail": 0}]}
    record = _verdict(group, EXPECT, {"leaf1-r0": {"before": before, "after": after}}, nic, seconds=30)
    assert (record["status"], record["cause"]) == ("PASS" if cause is None else "FAIL", cause), record["msg"]


def test_the_switch_faults_mark_the_ports():
    from pyramid_twin import switch_model
    leaf = _leaf("/nonexistent", {"kind": "ecn_min_th_high", "port": "Ethernet2/1"}, {"kind": "headroom_short"})
    ports = {p["name"]: _physics.port_faults(p) for p in leaf["ports"]}
    assert ports["Ethernet2/1"] == {"ecn_min_th_high", "headroom_short"} and ports["Ethernet1/1"] == {"headroom_short"}
    assert {"ecn_min_th_high", "ecn_off", "headroom_short"} <= set(switch_model.SWITCH_FAULTS)


def test_a_read_during_the_incast_sees_it_part_way(tmp_path):
    from pyramid_twin import switch_session
    _record(tmp_path, ("ecn_off",), start=time.time() - 10)  # 10 s into a 30 s storm
    port = next(p for p in switch_session.snapshot_now(_leaf(tmp_path))["ports"] if p["name"] == "Ethernet1/1")
    assert port["ecn_marked"]["3"] == 0
    uplink = next(p for p in switch_session.snapshot_now(_leaf(tmp_path))["ports"] if p.get("ip"))
    assert 9 * _physics.STORM_PFC_PER_S <= uplink["pfc"]["3"]["tx"] <= 11 * _physics.STORM_PFC_PER_S


def test_the_nodes_print_their_counts(parsers):
    from pyramid_twin import formats_roce
    state = model.node_state(model.load_scenario(model.DEFAULT_SCENARIO), "node-001")
    state["incast_counters"] = {"mlx5_0": {"np_cnp_sent": 300000, "rp_cnp_handled": 0, "np_ecn_marked_roce_packets": 600000,
                                           "rx_prio3_pause": 37}}
    files = formats_roce.sys_files(state)
    base = "/sys/class/infiniband/mlx5_0/ports/1/hw_counters/"
    text = "".join(files[base + n] for n in _judge.CNP)
    assert parsers.parse("linux_sysfs_rdma_cc_counters", text)["counters"] == {
        "np_cnp_sent": 300000, "rp_cnp_handled": 0, "np_ecn_marked_roce_packets": 600000}
    rc, out, _err = formats_roce.ethtool(state, ["-S", state["rails"][0]["netdev"]], {})
    assert rc == 0 and "     rx_prio3_pause: 37\n" in out


@pytest.mark.parametrize("args, said", [
    (["--rate_limit_type=PP", "--rate_limit=40"], "Packet Pacing is only supported for Raw Ethernet."),
    (["--rate_limit=0"], "Rate limit must be non-negative"),
    (["--rate_limit=40", "--rate_limit_type=XX"], "Invalid rate limit type flag"),
    (["--rate_limit", "40", "--rate_units=q"], "Invalid rate limit units"),
])
def test_the_twins_ib_write_bw_refuses_what_perftest_refuses(args, said):
    from pyramid_twin import formats_perftest
    state = model.node_state(model.load_scenario(model.DEFAULT_SCENARIO), "node-001")
    rc, _out, err = formats_perftest.ib_write_bw(state, ["-d", "mlx5_0", "-D", "30"] + args + ["10.50.0.2"], {})
    assert rc == 1 and said in err


# --- the action's plan file: commands from the catalog's incast sources ---------------------------------------

def test_the_plan_file_holds_one_server_per_sender_and_rail_and_perftests_real_options():
    from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog, expectations as _expectations

    catalog = _catalog.load_catalog()
    check = next(c for c in catalog["checks"] if c["id"] == "incast_ecn")
    names = _catalog.expectation_names([check], catalog)
    expect, errors = _expectations.resolve(catalog, {"pyramid_rails": ["mlx5_0", "mlx5_1"]}, names)
    assert not errors and expect["pyramid_incast_rate_gbps"] == 60 and expect["pyramid_incast"] is False
    nodes, ports = pod(40, per_leaf=32, rails=2)
    expects = {node: expect for node in nodes}
    addresses = {node: ["10.50.0.%d" % i, "10.51.0.%d" % i] for i, node in enumerate(nodes, start=1)}
    plan = _run.make_plan(nodes, ports, expect, addresses, catalog, expects)
    assert len(plan["rounds"]) == 1 and [g["target"] for g in plan["rounds"][0]] == ["node-001", "node-033"]
    assert plan["leaves"] == [["leaf1-r0", "leaf1-r1", "leaf2-r0", "leaf2-r1"]]
    servers, clients = plan["commands"][0]["servers"], plan["commands"][0]["clients"]
    assert len(servers["node-001"]) == 16 and len(clients[plan["rounds"][0][0]["senders"][0]]) == 2
    first = clients[plan["rounds"][0][0]["senders"][0]][0]["ways"][0]["run"]
    assert first == ["ib_write_bw", "-d", "mlx5_0", "-F", "--report_gbits", "-D", "30", "-x", "3", "--rate_limit_type=SW",
                     "--rate_limit=60.0", "-p", str(expect["pyramid_rdma_port_base"] + 100), "10.50.0.1"]
    ports_used = [argv[argv.index("-p") + 1] for argv in (run["ways"][0]["run"] for run in servers["node-001"])]
    assert len(set(ports_used)) == len(ports_used), "every server of a target on its own port"


def test_a_plan_that_cannot_congest_says_why():
    nodes, ports = pod(16)
    expect = {"pyramid_incast_rail": -1, "pyramid_incast_senders": 8, "pyramid_incast_rate_gbps": 40, "pyramid_rail_rate_gbps": 400}
    assert "does not exceed the target port's 400 Gb/s" in _run.make_plan(nodes, ports, expect, {}, None, {})["error"]
    assert "no switch port" in _run.make_plan(nodes, {}, expect, {}, None, {})["error"]


def test_per_port_reads_are_merged_and_failures_said():
    from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core.model import SourceFailure

    # Cumulus: each read is that port's values alone (cumulus_nv_show_interface_counters_qos_ecn: {"all": N})
    merged = _run.as_input({"swp1": {"all": 5000}, "swp2": {"all": 0}}, per_port=True)
    assert merged == {"ports": {"swp1": {"all": 5000}, "swp2": {"all": 0}}}
    assert _run.as_input({"ports": {"Ethernet1/1": {"3": 1}}}) == {"ports": {"Ethernet1/1": {"3": 1}}}
    said = _run.as_input({"swp1": {"all": 0}, "swp2": SourceFailure("nv show interface swp2 counters qos", "exited 1")}, per_port=True)
    assert said == "nv show interface swp2 counters qos: exited 1"


@pytest.mark.parametrize("os_name", ["eos", "nxos", "sonic", "cumulus"])
def test_every_platforms_leaf_reads_back_through_the_catalogs_ways(tmp_path, os_name):
    """The twin's leaf of each platform, before and after an incast with short headroom, read through the catalog's
    sw_ecn / sw_pfc / sw_discards ways and parsers (incast_reads.switch_snapshot), judged: drops, on that port."""
    import importlib
    from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog
    from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import engine as _engine
    from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import expectations as _expectations

    from pyramid_twin import switch_model, switch_session
    catalog = _catalog.load_catalog()
    scenario = {"pod": {"nodes": 4, "gpus_per_node": 8, "rails": 1}, "faults": [],
                "switches": {"spines": 1, "nodes_per_leaf": 4, "leaf_os": [os_name], "spine_os": ["eos"], "faults": []}}
    topo = switch_model.topology(scenario)
    names = _catalog.expectation_names(_catalog.checks_at(catalog, 3, "switch"), catalog)
    expect, errors = _expectations.resolve(catalog, switch_model.inventory_vars(topo, "leaf1-r0"), names)
    assert not errors, errors
    formats = importlib.import_module("pyramid_twin.formats_%s" % os_name)
    leaf = dict(switch_model.switch_state(scenario, "leaf1-r0"), rendered_at=time.time() - 5, incast_events=str(tmp_path / "none"))

    def read(state):
        snapshot = switch_session.snapshot_now(state)
        raw = {}
        for planned in _engine.reads(_run.switch_sources(catalog, "before"), catalog, expect):
            way = planned["ways"][0]
            command = way.get("cli") or " ".join(way["run"])
            raw[planned["id"]] = _engine.answered(planned, {"status": "ok", "way": 0, "command": command, "stdout": formats.COMMANDS[command](snapshot)})
        return _run.switch_snapshot({"at": 0, "raw": raw, "unreachable": None}, catalog, expect)

    before = read(leaf)
    _record(tmp_path, ("headroom_short",))
    after = read(dict(leaf, incast_events=str(tmp_path)))
    target_port = expect["pyramid_switch_ports"][0]["port"]
    group = {"target": "node-001", "senders": ["node-005"], "ports": [{"leaf": "leaf1-r0", "port": target_port, "rail": 0}]}
    nic = {n: {0: {"before": _cc(), "after": _cc(sent=300000, handled=300000)}} for n in ("node-001", "node-005")}
    outcome = _verdict(group, EXPECT, {"leaf1-r0": {"before": before, "after": after}}, nic, seconds=30)
    assert (outcome["status"], outcome["cause"]) == ("FAIL", "drops"), outcome["msg"]
    assert "leaf1-r0 port %s (node-001, rail 0): ECN-marked 600000" % target_port in outcome["msg"]


def test_the_waits_count_from_when_the_senders_were_started_not_from_when_the_fire_task_ended():
    # the tail read is due at the first start plus the window less its last part (the read then has the whole last
    # part to finish in); the end when the last sender to run has had its whole window; nothing fired, nothing to wait
    assert _run.due(FIRED, 30, 10, "tail") == 1020.0
    assert _run.due(FIRED, 30, 10, "end") == 1032.0
    assert _run.due(FIRED, 30, 30, "tail") == 1000.0  # pyramid_incast_tail_percent 100: the whole window
    # never inside the blip: 80% of a 5 s window would be 1 s in, the read waits until half the window; 3 s at most
    assert _run.due(FIRED, 5, 4, "tail") == 1002.5 and _run.due(FIRED, 10, 8, "tail") == 1003.0
    assert _run.due([], 30, 10, "tail") is None


def test_forks_covering_every_round_s_target_leaves_give_no_warning():
    assert _run.forks_warning([["leaf1-r%d" % r for r in range(8)]], 16) is None
    assert _run.forks_warning([], 16) is None  # no round planned


def test_more_target_leaves_than_forks_are_warned_with_their_waves_and_the_fix():
    # 512 nodes: 16 targets on every rail, 128 leaves in round 1, read side by side in forks of 16
    said = _run.forks_warning([["leaf%d-r%d" % (su, r) for su in range(16) for r in range(8)], ["leaf1-r0"]], 16)
    assert said.startswith("forks 16 < 128 target leaves in an incast round")
    assert "8 waves" in said and "ERROR" in said
    assert "--forks 128" in said and "pyramid_incast_tail_percent" in said
