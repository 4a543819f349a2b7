"""The twin's iblinkinfo (twin/pyramid_twin/formats_infiniband.py) against real captures: the same subnet rendered by
the twin is the real text, block for block; and a twin pod's subnet is read by the product's parser, each node's rails
found by the port GUIDs its own ibstat shows."""

import os

import pytest

from pyramid_twin import formats, formats_infiniband, model

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.parsing import parse
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.parsing._registry import ParseError

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "parsers", "linux_iblinkinfo")


def _blocks(text):
    """A subnet's text as its node blocks, in any order (iblinkinfo prints them in discovery order)."""
    blocks, current = [], None
    for line in text.splitlines():
        if line.startswith(("Switch: ", "CA: ")):
            current = [line]
            blocks.append(current)
        else:
            current.append(line)
    return sorted("\n".join(block) for block in blocks)


def _port(port):
    if port["remote"] is None:
        return {"state": port["state"], "phys": port["phys_state"], "remote": None}
    remote = {key: port["remote"][key] for key in ("lid", "port", "name")}  # what the text shows of the far end
    could = port["could_be"]
    top = float(could.split()[0]) if could.endswith("Gbps") else port["speed_gbps"]
    return {"width": port["width"], "speed": port["speed_gbps"], "max_speed": top, "remote": remote}


@pytest.mark.parametrize("case", ["ibsim_ndr_4_nodes_2_rails", "ibsim_ndr_rail_at_1x"])
def test_the_twin_prints_a_real_subnet_as_iblinkinfo_does(case):
    with open(os.path.join(FIXTURES, case + ".raw"), encoding="utf-8") as handle:
        real = handle.read()
    facts = parse("linux_iblinkinfo", real)
    switches = [(switch["guid"], switch["name"], switch["lid"],
                 {int(n): _port(p) for n, p in switch["ports"].items()}) for switch in facts["switches"].values()]
    cas = [(port["name"], guid, port["lid"], _port(port)) for guid, port in facts["ca_ports"].items()]
    assert _blocks(formats_infiniband.render(switches, cas)) == _blocks(real)


def named(facts):
    """The read's switches by their names (the parsers key them by GUID: a description may name several)."""
    return {switch["name"]: switch for switch in facts["switches"].values()}


def _pod(tmp_path, nodes, faults="[]", ib_sm=""):
    path = tmp_path / "ib.yml"
    path.write_text("pod: {nodes: %d, rails: 8, node_defaults: {link_layer: InfiniBand}%s}\nfaults: %s\n" % (
        nodes, ", ib_sm: %s" % ib_sm if ib_sm else "", faults))
    scenario = model.load_scenario(str(path))
    return {name: model.node_state(scenario, name) for name in model.node_names(scenario)}


def test_a_twin_pods_subnet_shows_every_rail_on_its_rails_leaf_found_by_its_port_guid(tmp_path):
    states = _pod(tmp_path, 4, "[{node: node-001, kind: ib_cable_swap, rails: [6, 7]}]")
    rc, out, err = formats_infiniband.iblinkinfo(states["node-002"], [], {}, states.get)
    assert rc == 0 and not err
    facts = parse("linux_iblinkinfo", out)
    assert sorted(named(facts)) == ["leaf1-r%d" % r for r in range(8)] + ["spine-01", "spine-02"]
    assert all(len(switch["ports"]) == 64 for switch in facts["switches"].values())
    for name, state in states.items():
        for number, rail in enumerate(state["rails"]):
            port = facts["ca_ports"][rail["port_guid"]]
            leaf = "leaf1-r%d" % ({6: 7, 7: 6}.get(number, number) if name == "node-001" else number)
            assert (port["name"], port["width"], port["speed_gbps"], port["remote"]["name"]) == (
                "%s mlx5_%d" % (name, number), "4X", 106.25, leaf)
    assert named(facts)["leaf1-r0"]["ports"]["33"]["remote"]["name"] == "spine-01"


def test_a_degraded_link_shows_at_both_ends_with_what_it_could_be_and_ibstat_follows(tmp_path):
    states = _pod(tmp_path, 2, "[{node: node-002, kind: ib_link, rail: mlx5_3, width: 1X}]")
    facts = parse("linux_iblinkinfo", formats_infiniband.iblinkinfo(states["node-001"], [], {}, states.get)[1])
    port = facts["ca_ports"][states["node-002"]["rails"][3]["port_guid"]]
    assert (port["width"], port["could_be"]) == ("1X", "4X") and states["node-002"]["rails"][3]["rate"] == 100
    assert named(facts)["leaf1-r3"]["ports"]["2"]["width"] == "1X"


def test_a_roce_node_has_no_subnet_to_show(tmp_path):
    path = tmp_path / "roce.yml"
    path.write_text("pod: {nodes: 2}\nfaults: []\n")
    scenario = model.load_scenario(str(path))
    state = model.node_state(scenario, "node-001")
    assert formats_infiniband.iblinkinfo(state, [], {}, lambda name: None)[0] == 2


def test_the_twins_ibqueryerrors_lists_the_faulty_ports_whole_and_saturated_as_real_ports_do(tmp_path):
    """ibqueryerrors (formats_infiniband.ibqueryerrors) read by the product's parser: the leaf port facing node-002's
    mlx5_1, node-003's own CA port, a 16-bit counter that stopped at 65535; the summary closes the read."""
    states = _pod(tmp_path, 4, "[{node: node-002, kind: ib_port_errors, rail: mlx5_1, counts: {SymbolErrorCounter: 70000,"
                               " LinkDownedCounter: 2}}, {node: node-003, kind: ib_port_errors, rail: mlx5_0, end: ca,"
                               " counts: {PortRcvErrors: 7}}]")
    rc, out, err = formats_infiniband.ibqueryerrors(states["node-001"], ["--threshold-file", "/dev/null"], {}, states.get)
    assert rc == 1 and not err  # as the real tool: 1 when it listed a port
    facts = parse("linux_ibqueryerrors", out)
    links = parse("linux_iblinkinfo", formats_infiniband.iblinkinfo(states["node-001"], [], {}, states.get)[1])
    leaf = facts["ports"]["%s:2" % named(links)["leaf1-r1"]["guid"]]
    assert leaf == {"SymbolErrorCounter": 65535, "LinkDownedCounter": 2}
    assert facts["ports"]["%s:1" % states["node-003"]["rails"][0]["port_guid"]] == {"PortRcvErrors": 7}
    assert len(facts["ports"]) == 2 and facts["thresholds"] == {} and facts["suppressed"] == []
    healthy = _pod(tmp_path, 2)
    rc, out, _err = formats_infiniband.ibqueryerrors(healthy["node-001"], ["--threshold-file", "/dev/null"], {}, healthy.get)
    assert rc == 0 and parse("linux_ibqueryerrors", out)["ports"] == {}


def test_the_twins_ibdiagnet_writes_every_linked_port_with_its_64_bit_counts(tmp_path):
    """ibdiagnet -o DIR (formats_infiniband.ibdiagnet) writes ibdiagnet2.db_csv, read by the product's parser: the same
    faults as ibqueryerrors', every linked port a row (zeros too), the 16-bit column stopped at 65535 and the 64-bit one
    counting on; the index table names PM_INFO's rows."""
    states = _pod(tmp_path, 4, "[{node: node-002, kind: ib_port_errors, rail: mlx5_1, counts: {SymbolErrorCounter: 70000,"
                               " LinkDownedCounter: 2}}, {node: node-003, kind: ib_port_errors, rail: mlx5_0, end: ca,"
                               " counts: {PortRcvErrors: 7}}]")
    out_dir = tmp_path / "ibdiag"
    rc, out, err = formats_infiniband.ibdiagnet(states["node-001"], ["-o", str(out_dir)], {}, states.get)
    assert rc == 0 and not err and "Port Counters" in out
    raw = (out_dir / "ibdiagnet2.db_csv").read_text(encoding="utf-8")
    assert ",65535," in raw  # the 16-bit SymbolErrorCounter column at its maximum, beside the 64-bit 70000
    facts = parse("linux_ibdiagnet2_db_csv", raw)
    links = parse("linux_iblinkinfo", formats_infiniband.iblinkinfo(states["node-001"], [], {}, states.get)[1])
    leaf = "%s:2" % named(links)["leaf1-r1"]["guid"]
    assert facts["ports"][leaf] == {"SymbolErrorCounter": 70000, "LinkDownedCounter": 2}
    assert facts["widths"][leaf] == {"SymbolErrorCounter": 64, "LinkDownedCounter": 64}
    assert facts["ports"]["%s:1" % states["node-003"]["rails"][0]["port_guid"]] == {"PortRcvErrors": 7}
    # a CA's symbol errors in its 16-bit column alone (the 64-bit one 0, as the real ConnectX-7 rows): read there
    states = _pod(tmp_path, 4, "[{node: node-002, kind: ib_port_errors, rail: mlx5_1, end: ca, counts: {SymbolErrorCounter: 70000}}]")
    formats_infiniband.ibdiagnet(states["node-001"], ["-o", str(out_dir)], {}, states.get)
    ca = parse("linux_ibdiagnet2_db_csv", (out_dir / "ibdiagnet2.db_csv").read_text(encoding="utf-8"))
    key = "%s:1" % states["node-002"]["rails"][1]["port_guid"]
    assert ca["ports"][key] == {"SymbolErrorCounter": 65535} and key not in ca["widths"]
    # every CA port and every switch port with a link: 4 nodes x 8 rails, 8 leaves x (4 nodes + 2 uplinks), 2 spines x 8
    assert facts["checked"] == {"nodes": 32 + 8 + 2, "ports": 32 + 8 * 6 + 2 * 8}
    assert formats_infiniband.ibdiagnet(states["node-001"], [], {}, states.get)[0] == 2  # only -o DIR is simulated


def test_ib_mtu_the_twins_ibv_devinfo_shows_a_rail_that_negotiated_less_than_its_port_can(tmp_path):
    """ibv_devinfo -d <rail> (fake_tool.ibv_devinfo) read by the product's parser: every rail at 4096, the faulty one's
    active MTU 2048 beside its max 4096; a device the node does not have is ibv_devinfo's own refusal."""
    from pyramid_twin import fake_tool  # pylint: disable=import-outside-toplevel
    states = _pod(tmp_path, 2, "[{node: node-002, kind: ib_mtu, rail: mlx5_3, mtu: 2048}]")
    for node, rail, active in (("node-001", "mlx5_3", 4096), ("node-002", "mlx5_3", 2048), ("node-002", "mlx5_0", 4096)):
        rc, out, err = fake_tool.ibv_devinfo(states[node], ["-d", rail], {})
        assert rc == 0 and not err
        port = parse("linux_ibv_devinfo", out)["devices"][rail]["ports"]["1"]
        assert (port["state"], port["max_mtu"], port["active_mtu"], port["link_layer"]) == ("Active", 4096, active, "InfiniBand")
    assert fake_tool.ibv_devinfo(states["node-001"], ["-d", "mlx5_9"], {})[0] == 255


def test_a_counter_the_port_does_not_have_is_a_scenario_error(tmp_path):
    with pytest.raises(model.ScenarioError, match="no counter SymbolErrors"):
        _pod(tmp_path, 2, "[{node: node-001, kind: ib_port_errors, rail: mlx5_0, per_s: {SymbolErrors: 5}}]")


def _sm_lids(state):
    return {name: device["ports"]["1"]["sm_lid"] for name, device in parse("linux_ibstat", formats.ibstat(state))["devices"].items()}


@pytest.fixture(name="sm_clock")
def _sm_clock(monkeypatch):
    """The pod clock sminfo reads (seconds since the pod's first sminfo read), set by the test."""
    from pyramid_twin import fake_tool
    seconds = {"sminfo": 0.0}
    monkeypatch.setattr(fake_tool, "pod_clock", lambda name: seconds[name])
    return seconds


def test_the_subnets_master_is_the_first_leafs_sm_every_port_names_it_and_sminfo_reads_as_a_real_one(tmp_path, sm_clock):
    states = _pod(tmp_path, 2)
    rc, out, err = formats_infiniband.sminfo(states["node-002"], [], {}, states.get)
    assert rc == 0 and not err
    facts = parse("linux_sminfo", out)
    links = parse("linux_iblinkinfo", formats_infiniband.iblinkinfo(states["node-001"], [], {}, states.get)[1])
    assert facts == {"answered": True, "lid": 1, "guid": named(links)["leaf1-r0"]["guid"], "activity": 5000,
                     "priority": 15, "state": "SMINFO_MASTER"}
    assert set(_sm_lids(states["node-001"]).values()) == {1}


def test_a_stopped_sm_does_not_answer_and_the_ports_keep_its_lid(tmp_path):
    states = _pod(tmp_path, 2, ib_sm="{state: stopped}")
    rc, out, err = formats_infiniband.sminfo(states["node-001"], [], {}, states.get)
    assert (rc, parse("linux_sminfo", out)) == (255, {"answered": False}) and "_do_madrpc failed; dport (Lid 1)" in err
    assert set(_sm_lids(states["node-002"]).values()) == {1}


def test_the_masters_activity_count_rises_and_starts_over_when_it_restarts_after_the_first_read(tmp_path, sm_clock):
    def activity(states):
        return parse("linux_sminfo", formats_infiniband.sminfo(states["node-001"], [], {}, states.get)[1])["activity"]
    steady, restarts = _pod(tmp_path, 2), _pod(tmp_path, 2, ib_sm="{restarts: true}")
    first = (activity(steady), activity(restarts))
    sm_clock["sminfo"] = 12.0  # as on ibsim: 692 -> 705 in 12 s; killed and started again: 1000 -> 610
    assert activity(steady) == first[0] + 156 and activity(restarts) == 143 < first[1] == first[0]


def test_an_sm_on_a_node_that_became_master_configures_every_port_and_answers_with_its_own_guid(tmp_path, sm_clock):
    states = _pod(tmp_path, 3, ib_sm="{node: node-002, rail: mlx5_0, priority: 15}")
    facts = parse("linux_sminfo", formats_infiniband.sminfo(states["node-001"], [], {}, states.get)[1])
    own = parse("linux_ibstat", formats.ibstat(states["node-002"]))["devices"]["mlx5_0"]["ports"]["1"]
    assert (facts["guid"], facts["state"]) == (own["port_guid"], "SMINFO_MASTER")
    assert set(_sm_lids(states["node-003"]).values()) == {facts["lid"]} == {2 * 16 + 1}


def test_a_port_under_a_second_master_names_its_lid(tmp_path):
    states = _pod(tmp_path, 2, "[{node: node-002, kind: ib_sm_lid, rail: mlx5_3, lid: 200}]")
    assert _sm_lids(states["node-002"]) == {"mlx5_%d" % r: 200 if r == 3 else 1 for r in range(8)}


def test_an_unknown_sm_setting_is_a_scenario_error(tmp_path):
    with pytest.raises(model.ScenarioError, match="pod.ib_sm takes state"):
        _pod(tmp_path, 2, ib_sm="{state: sleeping}")
    with pytest.raises(model.ScenarioError, match="pod.ib_sm's node"):
        _pod(tmp_path, 2, ib_sm="{node: node-009}")


def _judged_routing(states, expect=None):
    """ib_routing on the twin's dump_fts and iblinkinfo (node-001 the reader), node-001's own ibstat."""
    from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.judging import infiniband as judges  # pylint: disable=import-outside-toplevel
    rc, out, err = formats_infiniband.dump_fts(states["node-001"], [], {}, states.get)
    assert rc == 0 and not err
    facts = {"ib_routes": parse("linux_dump_fts", out),
             "ib_link_info": parse("linux_iblinkinfo", formats_infiniband.iblinkinfo(states["node-001"], [], {}, states.get)[1]),
             "ibstat": parse("linux_ibstat", formats.ibstat(states["node-001"]))}
    expect = dict({"pyramid_rails": ["mlx5_%d" % r for r in range(8)], "pyramid_ib_route_spread_tolerance": 0.5}, **(expect or {}))
    return facts, judges.ib_routing({"node-001": facts}, {"node-001": expect})["node-001"]


def test_the_twins_dump_fts_reads_as_a_real_one_and_spreads_every_leaf_over_both_spines(tmp_path):
    facts, verdict = _judged_routing(_pod(tmp_path, 4))
    tables = named(facts["ib_routes"])
    assert sorted(tables) == ["leaf1-r%d" % r for r in range(8)] + ["spine-01", "spine-02"]
    leaf, names = tables["leaf1-r0"]["routes"], facts["ib_routes"]["destinations"]
    assert leaf["1"] == 0 and names["1"]["name"] == "leaf1-r0"  # a switch's own LID out of port 0
    ups = [port for lid, port in leaf.items() if names[lid]["kind"] == "Channel Adapter" and port > 32]
    assert len(ups) == 28 and ups.count(33) == ups.count(34) == 14  # the 7 other leaves' 4 CAs each, half over each spine
    assert verdict["status"] == "PASS", verdict
    assert "leaf1-r0: 28 routes to other leaves' CAs: port 33 (spine-01) 14, port 34 (spine-02) 14" in verdict["actual"]


def test_one_spine_as_the_sms_only_root_funnels_every_leaf_onto_it(tmp_path):
    _facts, verdict = _judged_routing(_pod(tmp_path, 4, ib_sm="{roots: [spine-01]}"))
    assert verdict["status"] == "FAIL", verdict
    assert "port 33 (spine-01) 28, port 34 (spine-02) 0 - funnelled onto spine-01, spine-02 starved" in verdict["actual"]


def test_sm_roots_must_be_the_pods_spines(tmp_path):
    with pytest.raises(model.ScenarioError, match="pod.ib_sm.roots"):
        _pod(tmp_path, 2, ib_sm="{roots: [spine-07]}")


def test_the_data_counters_read_is_known_from_an_errors_read_and_never_both_in_one():
    """linux_ibqueryerrors: --counters ("Data Counters for") lists every port, said by "data"; an errors read lists the
    ports with a count; a text holding blocks of both is no one run's output (refused)."""
    fixtures = os.path.join(os.path.dirname(os.path.abspath(__file__)), "parsers", "linux_ibqueryerrors")
    with open(os.path.join(fixtures, "ibsim_counters_loaded.raw"), encoding="utf-8") as handle:
        data = handle.read()
    with open(os.path.join(fixtures, "ibsim_sdr_xmit_wait.raw"), encoding="utf-8") as handle:
        errors = handle.read()
    assert parse("linux_ibqueryerrors", data)["data"] is True and "data" not in parse("linux_ibqueryerrors", errors)
    mixed = errors.split("\n## Summary")[0] + "\n" + data
    with pytest.raises(ParseError, match="error and data counter blocks in one read"):
        parse("linux_ibqueryerrors", mixed)
