"""The twin's fabric load (twin/pyramid_twin/fabric_load.py) and its link faults that show only under load
(switch_model's uplink_slow, uplink_marginal), without SSH: an all-to-all across scalable units simulated by
formats_fabric records its event, the switches' counters read before and after it show its traffic on the leaf uplinks,
spine ports and host ports of its paths, and the product's parsers and judges read what the four platforms print.
"""

import copy
import importlib
import time

import pytest
import yaml

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog, expectations as _expectations
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.judging import fabric as _judges_fabric
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import engine as _engine
from pyramid_twin import fabric_load, formats_fabric, model, switch_model, switch_session

CATALOG = _catalog.load_catalog()
EXPECT = _expectations.resolve(CATALOG, {})[0]
ENV = dict(EXPECT["pyramid_nccl_env"], OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
OSES = ["eos", "nxos", "sonic", "cumulus"]
# 4 nodes, 2 to a unit (leaf1-r<r>: node-001, node-002; leaf2-r<r>: node-003, node-004), 8 rails, 2 spines;
# rail r's leaves run OSES[r % 4], spine-01 EOS and spine-02 NX-OS
FABRIC = {"spines": 2, "nodes_per_leaf": 2, "leaf_os": OSES, "spine_os": ["eos", "nxos"]}
NAMES = ["node-001", "node-002", "node-003", "node-004"]
SLOW = {"kind": "uplink_slow", "switch": "leaf1-r0", "peer": "spine-02", "factor": 0.25}
MARGINAL = {"kind": "uplink_marginal", "switch": "leaf1-r0", "peer": "spine-02"}


def _facts(run, group):
    """A fabric judge's facts for one run across ``group`` (run/fabric_runs.judged_facts)."""
    return {"run": run, "group": list(group), "platforms": CATALOG["platforms"]}


def _scenario(tmp_path, *switch_faults, nodes=4):
    path = tmp_path / "scenario.yml"
    path.write_text(yaml.safe_dump({"pod": {"nodes": nodes}, "switches": dict(FABRIC, faults=list(switch_faults)),
                                    "faults": []}))
    return model.load_scenario(str(path))


def _states(scenario):
    states = {name: model.node_state(scenario, name) for name in model.node_names(scenario)}
    return states, states.get


def _run(states, load, names, program="alltoall_perf"):
    argv = ["-np", str(8 * len(names)), "-H", ",".join("%s:8" % n for n in names), "--bind-to", "none"]
    for name in sorted(ENV):
        argv += ["-x", name]
    argv += [program, "-b", "8", "-e", "4G", "-f", "2", "-g", "1"]
    rc, out, err, hang = formats_fabric.mpirun(states[names[0]], argv, ENV, load)
    assert not hang and rc == 0, err
    return out


@pytest.fixture
def events(tmp_path, monkeypatch):
    """Where this test's all-to-alls record their load (a twin session: .twin/changes/<digest>/fabric_load)."""
    folder = tmp_path / "fabric_load"
    monkeypatch.setattr(fabric_load, "tool_events_dir", lambda: str(folder))
    return folder


def _switch(scenario, name, events_dir):
    return dict(switch_model.switch_state(scenario, name), rendered_at=time.time() - 30, fabric_load_events=str(events_dir))


def _read(switch):
    """The switch's ports as a session sees them now, by name (a deep copy: counters are plain ints)."""
    return {port["name"]: port for port in switch_session.snapshot_now(copy.deepcopy(switch))["ports"]}


def _delta(before, after, field, priority=None):
    pick = (lambda port: port[field][priority]) if priority else (lambda port: port[field])
    return {name: pick(after[name]) - pick(before[name]) for name in before}


def _pair_bytes(out, ranks_per_node=8, nodes=4):
    """Bytes each node sent each other node in the run, from the table it printed: every row's size out of place and
    in place 20 times each, the largest 5 more (warmup); each rank sends 1/world of its buffer to each rank."""
    sizes = [int(line.split()[0]) for line in out.splitlines() if line.strip() and line.strip()[0].isdigit()]
    per_rank = sum(sizes) * 40 + sizes[-1] * 5
    return per_rank * ranks_per_node * ranks_per_node // (ranks_per_node * nodes)


def _port_to(switch, peer):
    return next(port["name"] for port in switch["ports"] if port["description"].split()[0] == peer)


# --- the load: its event, and the traffic it shows on each port of its paths --------------------------------------

def test_an_all_to_all_across_units_shows_its_share_on_every_port_of_its_paths(tmp_path, events):
    scenario = _scenario(tmp_path)
    states, load = _states(scenario)
    leaf, spine = _switch(scenario, "leaf1-r0", events), _switch(scenario, "spine-01", events)
    before, spine_before = _read(leaf), _read(spine)
    out = _run(states, load, NAMES)
    after, spine_after = _read(leaf), _read(spine)
    recorded = fabric_load.load(str(events))
    assert len(recorded) == 1 and recorded[0]["nodes"] == NAMES and recorded[0]["rails"] == 8
    lane = _pair_bytes(out) / 8.0  # one rail's part of what a node sends each other node
    cross = lane * 2 * 2  # both of leaf1-r0's nodes to both nodes of unit 2, on rail 0
    octets = _delta(before, after, "in_octets")
    assert octets["Ethernet1/1"] == octets["Ethernet2/1"] == pytest.approx(lane * 3, rel=1e-3, abs=2000)  # node-001, 002
    # each uplink carries half of what crosses (2 ECMP spines), both ways; the spine's port to the leaf the same
    for uplink, far in (("Ethernet3/1", "spine-01"), ("Ethernet4/1", "spine-02")):
        assert octets[uplink] == pytest.approx(cross / 2, rel=1e-3, abs=2000), far
        assert _delta(before, after, "out_octets")[uplink] == pytest.approx(cross / 2, rel=1e-3, abs=2000)
        assert _delta(before, after, "in_packets")[uplink] == pytest.approx(cross / 2 / fabric_load.FRAME_BYTES, rel=1e-3, abs=40)
    spine_port = _port_to(spine, "leaf1-r0")
    assert _delta(spine_before, spine_after, "in_octets")[spine_port] == pytest.approx(cross / 2, rel=1e-3, abs=2000)
    # clean: nothing marked, dropped or errored on a healthy fabric
    for field in ("crc", "in_errors", "fec_uncorrected"):
        assert set(_delta(before, after, field).values()) <= {0}, field
    assert set(_delta(before, after, "ecn_marked", "3").values()) == {0}


def test_two_reads_with_no_load_between_them_show_none_and_a_unit_alone_records_nothing(tmp_path, events):
    scenario = _scenario(tmp_path)
    states, load = _states(scenario)
    _run(states, load, NAMES)
    leaf = switch_session.snapshot_now(dict(_switch(scenario, "leaf1-r0", "none"), fabric_load_events=None))
    first = fabric_load.apply_switch(dict(copy.deepcopy(leaf), fabric_load_events=str(events)), now=time.time())
    second = fabric_load.apply_switch(dict(copy.deepcopy(leaf), fabric_load_events=str(events)), now=time.time() + 600)
    assert first["ports"] == second["ports"]  # the run's traffic counted once, whenever it is read after it
    assert [p["in_octets"] for p in first["ports"]] != [p["in_octets"] for p in leaf["ports"]]
    _run(states, load, NAMES[:2])  # unit 1 alone: its rail leaves carry it, no spine: no event
    _run(states, load, NAMES, program="all_reduce_perf")  # a ring: not the all-to-all's load
    assert len(fabric_load.load(str(events))) == 1
    # before the run's start nothing of it shows; a run in the timing mode shows its part so far
    item = dict(fabric_load.load(str(events))[0], start=time.time() + 100, duration=10.0)
    assert fabric_load._done(item, time.time()) == 0.0 and fabric_load._done(item, item["start"] + 5) == 0.5


def test_a_pod_without_switches_records_nothing(tmp_path, events):
    path = tmp_path / "plain.yml"
    path.write_text(yaml.safe_dump({"pod": {"nodes": 4}, "faults": []}))
    states, load = _states(model.load_scenario(str(path)))
    assert states["node-001"]["switch_fabric"] is None
    _run(states, load, NAMES)  # no switches to carry it: no event, the run's output as ever
    assert fabric_load.load(str(events)) == []


# --- a pair's run: its flow on each rail hashed onto one uplink ---------------------------------------------------

def test_a_pair_across_units_takes_one_uplink_per_rail_both_ways_and_a_pair_within_a_unit_none(tmp_path, events):
    scenario = _scenario(tmp_path)
    states, load = _states(scenario)
    spines = ["spine-01", "spine-02"]
    pair = ["node-001", "node-003"]
    assert fabric_load.pair_spine(pair, 0, spines) == fabric_load.pair_spine(pair[::-1], 0, spines)  # either side sends
    assert {fabric_load.pair_spine(pair, rail, spines) for rail in range(8)} == set(spines)  # its rails spread
    leaf = _switch(scenario, "leaf1-r0", events)
    taken = fabric_load.pair_spine(pair, 0, spines)
    spine = _switch(scenario, taken, events)
    before, spine_before = _read(leaf), _read(spine)
    _run(states, load, pair, program="all_reduce_perf")
    after, spine_after = _read(leaf), _read(spine)
    (recorded,) = fabric_load.load(str(events))
    assert recorded["kind"] == "pair" and recorded["nodes"] == pair and recorded["rails"] == 8
    lane = recorded["lane_bytes"]
    octets = _delta(before, after, "out_octets")
    other = next(name for name in spines if name != taken)
    assert octets[_port_to(leaf, taken)] == pytest.approx(lane, abs=2000) and octets[_port_to(leaf, other)] < 2000
    assert octets[_port_to(leaf, "node-001")] == pytest.approx(lane, abs=2000)
    assert octets[_port_to(leaf, "node-002")] < 2000  # not in the run
    assert _delta(spine_before, spine_after, "in_octets")[_port_to(spine, "leaf1-r0")] == pytest.approx(lane, abs=2000)
    _run(states, load, ["node-001", "node-002"], program="all_reduce_perf")  # within unit 1: its rail leaves alone
    assert len(fabric_load.load(str(events))) == 1


def test_a_pair_whose_flow_took_a_faulty_uplink_misses_while_the_other_pair_holds(parsers, tmp_path, events):
    spines = ["spine-01", "spine-02"]
    first, second = ["node-001", "node-003"], ["node-002", "node-004"]
    taken = fabric_load.pair_spine(first, 1, spines)
    assert fabric_load.pair_spine(second, 1, spines) != taken  # the other pair's rail-1 flow hashed elsewhere
    states, load = _states(_scenario(tmp_path, {"kind": "uplink_slow", "switch": "leaf1-r1", "peer": taken, "factor": 0.25}))

    def pair_outcome(names):
        run = parsers.parse("nccl_tests", _run(states, load, names, program="all_reduce_perf"))
        return _judges_fabric.nccl_group(_facts(run, names), EXPECT)
    assert pair_outcome(first)["status"] == "FAIL"
    assert pair_outcome(second)["status"] == "PASS"
    across = ["node-001", "node-004"]  # another partner across the units: it misses where its flow takes the link too
    assert pair_outcome(across)["status"] == ("FAIL" if fabric_load.pair_spine(across, 1, spines) == taken else "PASS")
    assert pair_outcome(["node-001", "node-002"])["status"] == "PASS"  # within a unit: no uplink at all


# --- uplink_slow: a link that carries `factor` of its peers' bytes under load, marking and dropping ---------------

def test_a_slow_uplink_carries_factor_of_its_peers_bytes_and_marks_its_egress_under_load(tmp_path, events):
    scenario = _scenario(tmp_path, SLOW)
    states, load = _states(scenario)
    leaf = _switch(scenario, "leaf1-r0", events)
    before = _read(leaf)
    out = _run(states, load, NAMES)
    middle = _read(leaf)
    _run(states, load, NAMES)
    after = _read(leaf)
    cross = _pair_bytes(out) / 8.0 * 2 * 2
    octets = _delta(before, middle, "out_octets")
    # ECMP weights 1 and 0.25: the slow link a fifth of what crosses, its peer four fifths
    assert octets["Ethernet4/1"] == pytest.approx(cross * 0.25 / 1.25, rel=1e-3, abs=2000)
    assert octets["Ethernet4/1"] == pytest.approx(0.25 * octets["Ethernet3/1"], rel=1e-3)
    marks, drops = _delta(before, middle, "ecn_marked", "3"), _delta(before, middle, "discards", "3")
    packets = _delta(before, middle, "out_packets")["Ethernet4/1"]
    assert marks["Ethernet4/1"] == pytest.approx(packets * 0.1 * 0.75, rel=1e-3) and drops["Ethernet4/1"] > 0
    assert {name: n for name, n in marks.items() if n} == {"Ethernet4/1": marks["Ethernet4/1"]}  # that port alone
    assert {name: n for name, n in drops.items() if n} == {"Ethernet4/1": drops["Ethernet4/1"]}
    # in proportion to the load: a second run as much again
    assert _delta(middle, after, "ecn_marked", "3")["Ethernet4/1"] == pytest.approx(marks["Ethernet4/1"], rel=1e-3, abs=1)
    # the spine's end carries the same bytes, clean
    spine = _switch(scenario, "spine-02", events)
    port = _read(spine)[_port_to(spine, "leaf1-r0")]
    idle = _read(dict(spine, fabric_load_events=str(tmp_path / "none")))[port["name"]]
    assert port["in_octets"] - idle["in_octets"] == pytest.approx(2 * octets["Ethernet4/1"], rel=1e-3, abs=4000)
    assert (port["ecn_marked"]["3"], port["discards"]["3"], port["crc"]) == (0, 0, 0)


def test_a_slow_uplink_fails_the_pod_all_to_all_across_units_while_each_unit_and_the_rings_hold(parsers, tmp_path, events):
    scenario = _scenario(tmp_path, SLOW)
    states, load = _states(scenario)
    units = {"node-001": "su1", "node-002": "su1", "node-003": "su2", "node-004": "su2"}
    expect = dict(EXPECT, scalable_units=units)

    def alltoall(names):
        run = parsers.parse("nccl_tests", _run(states, load, names))
        return _judges_fabric.nccl_alltoall_group(_facts(run, names), expect)
    outcome = alltoall(NAMES)
    assert (outcome["status"], outcome["cause_key"]) == ("FAIL", "slow"), outcome
    assert alltoall(NAMES[:2])["status"] == alltoall(NAMES[2:])["status"] == "PASS"
    for op in ("all_reduce", "all_gather", "reduce_scatter"):  # rings never load the bisection
        run = parsers.parse("nccl_tests", _run(states, load, NAMES, program="%s_perf" % op))
        judge = _judges_fabric.nccl_group if op == "all_reduce" else _judges_fabric.JUDGES["fabric"]["nccl_%s_group" % op]
        assert judge(_facts(run, NAMES), EXPECT)["status"] == "PASS", op
    # the same pod without the fault holds across units: the miss is the link's
    healthy = _states(_scenario(tmp_path))
    run = parsers.parse("nccl_tests", _run(*healthy, NAMES))
    assert _judges_fabric.nccl_alltoall_group(_facts(run, NAMES), expect)["status"] == "PASS"


def test_the_training_step_across_units_holds_with_a_faulty_uplink(parsers, tmp_path):
    states, load = _states(_scenario(tmp_path, SLOW, MARGINAL))
    code = "print('pyramid-train rank=%d ...')  # the built-in payload"
    argv = ["-np", "4", "-H", ",".join(NAMES), "--bind-to", "none", "torchrun", "--nnodes=4", "--nproc_per_node=8",
            "--rdzv-backend=c10d", "--rdzv-endpoint=node-001:29500", "--no-python", "python3", "-c", code,
            "--steps", str(EXPECT["pyramid_train_steps"])]
    rc, out, err, _hang = formats_fabric.mpirun(states["node-001"], argv, ENV, load)
    assert rc == 0, err
    assert _judges_fabric.training_group(_facts(parsers.parse("training_log", out), NAMES), EXPECT)["status"] == "PASS"


# --- uplink_marginal: errors on both ends' receive side in proportion to the traffic, none at idle ---------------

def test_a_marginal_cable_errors_on_both_ends_only_with_traffic(parsers, tmp_path, events):
    scenario = _scenario(tmp_path, MARGINAL)
    states, load = _states(scenario)
    leaf, spine = _switch(scenario, "leaf1-r0", events), _switch(scenario, "spine-02", events)
    spine_port = _port_to(spine, "leaf1-r0")
    reads = [(_read(leaf), _read(spine))]
    time.sleep(0.05)
    reads.append((_read(leaf), _read(spine)))  # idle: no error anywhere
    assert set(_delta(reads[0][0], reads[1][0], "crc").values()) == {0}
    assert set(_delta(reads[0][1], reads[1][1], "crc").values()) == {0}
    assert reads[1][0]["Ethernet4/1"]["crc"] == reads[1][1][spine_port]["crc"] == 0
    _run(states, load, NAMES)
    reads.append((_read(leaf), _read(spine)))
    _run(states, load, NAMES)
    reads.append((_read(leaf), _read(spine)))
    for side, port in ((0, "Ethernet4/1"), (1, spine_port)):
        first = _delta(reads[1][side], reads[2][side], "crc")
        packets = _delta(reads[1][side], reads[2][side], "in_packets")[port]
        assert first[port] == pytest.approx(packets * 1e-5, abs=2) and first[port] > 0, (side, first)  # idle frames aside
        assert {name: n for name, n in first.items() if n} == {port: first[port]}  # that link's receive side alone
        assert _delta(reads[1][side], reads[2][side], "in_errors")[port] == first[port]
        assert _delta(reads[1][side], reads[2][side], "fec_uncorrected")[port] > 0
        assert _delta(reads[2][side], reads[3][side], "crc")[port] == pytest.approx(first[port], abs=1)  # per run
    # the link carries its even share: a cable's errors, not a slow link's
    assert _delta(reads[1][0], reads[2][0], "out_octets")["Ethernet4/1"] == pytest.approx(
        _delta(reads[1][0], reads[2][0], "out_octets")["Ethernet3/1"], rel=1e-6)
    units = {"node-001": "su1", "node-002": "su1", "node-003": "su2", "node-004": "su2"}
    run = parsers.parse("nccl_tests", _run(states, load, NAMES))
    outcome = _judges_fabric.nccl_alltoall_group(_facts(run, NAMES), dict(EXPECT, scalable_units=units))
    assert outcome["status"] == "FAIL", outcome  # the retransmits slow the all-to-all across units
    run = parsers.parse("nccl_tests", _run(states, load, NAMES[:2]))
    assert _judges_fabric.nccl_alltoall_group(_facts(run, NAMES[:2]), dict(EXPECT, scalable_units=units))["status"] == "PASS"


# --- the four platforms: idle reads unchanged by the faults; under load their counters show where the fault says ----

def _leaf_of(os_name):
    return "leaf1-r%d" % OSES.index(os_name)


def _platform_reads(scenario, name, events_dir, sources):
    """One read of ``sources`` on switch ``name`` through the catalog's first ways and parsers, as validate.yml reads."""
    topo = switch_model.topology(scenario)
    expect, errors = _expectations.resolve(CATALOG, switch_model.inventory_vars(topo, name))
    assert not errors, errors
    formats = importlib.import_module("pyramid_twin.formats_%s" % topo["switches"][name]["os"])

    def read(state):
        snapshot = switch_session.snapshot_now(copy.deepcopy(state))
        raw = {}
        for planned in _engine.reads(sources, CATALOG, expect):
            if not planned["ways"]:  # no way on this platform (FEC on NX-OS and Cumulus): the check says not applicable
                continue
            way = planned["ways"][0]
            command = way.get("cli") or " ".join(way["run"])
            raw[planned["id"]] = _engine.answered(planned, {"status": "ok", "way": 0, "command": command,
                                                            "stdout": formats.COMMANDS.get(command)(snapshot)})
        return _engine.parse_sources(sources, CATALOG, raw, expect)
    return read, expect, _switch(scenario, name, events_dir)


WINDOW_CHECKS = {"link_errors": "sw_errors", "fec_counters": "sw_fec", "ecn_idle": "sw_ecn", "discards_idle": "sw_discards"}


def _window(read, state, expect, name, between=None, seconds=3):
    sources = [source for source in WINDOW_CHECKS.values() if any(p["ways"] for p in _engine.reads([source], CATALOG, expect))]
    before = read(state)
    if between:
        between()
    after = read(state)
    verdicts = {}
    for check_id, source in WINDOW_CHECKS.items():
        if source not in sources:
            continue
        check = next(c for c in CATALOG["checks"] if c["id"] == check_id)
        facts = {source: {"before": before[source], "after": after[source], "seconds": seconds}}
        verdicts[check_id] = _engine.judge_host(name, check, CATALOG, facts, expect)
    return verdicts


def _commands(scenario, name, formats):
    """Every command the twin's switch answers: its exact ones and each way of the catalog's switch sources, per port."""
    expect, errors = _expectations.resolve(CATALOG, switch_model.inventory_vars(switch_model.topology(scenario), name))
    assert not errors, errors
    sources = [source for source in CATALOG["sources"] if source.startswith("sw_")]
    asked = {way.get("cli") or " ".join(way["run"]) for planned in _engine.reads(sources, CATALOG, expect)
             for way in planned["ways"]}
    return sorted(set(formats.COMMANDS) | {command for command in asked if formats.COMMANDS.get(command)})


@pytest.mark.parametrize("os_name", OSES)
def test_every_platform_prints_an_idle_faulty_link_as_a_healthy_one(tmp_path, monkeypatch, os_name):
    """Every command the twin answers on the leaf and on its spines prints the same with the faults as without: idle,
    the links are up at their rated speed, their optics, counters over a soak, BGP and ECMP those of a healthy fabric."""
    leaf = _leaf_of(os_name)
    faulty = _scenario(tmp_path, dict(SLOW, switch=leaf), dict(MARGINAL, switch=leaf, peer="spine-01"))
    healthy = _scenario(tmp_path)
    for name in (leaf, "spine-01", "spine-02"):
        formats = switch_session.formats_of(switch_model.switch_state(healthy, name))
        commands = _commands(healthy, name, formats)
        assert len(commands) > 10, commands
        for now in (5000.0, 5000.0 + 300):  # two reads a soak apart, each at one instant on both switches
            monkeypatch.setattr(switch_session.time, "time", lambda now=now: now)
            snapshots = [switch_session.snapshot_now(dict(switch_model.switch_state(s, name), fabric_load_events=None,
                                                          rendered_at=1000.0)) for s in (faulty, healthy)]
            for command in commands:
                assert formats.COMMANDS.get(command)(snapshots[0]) == formats.COMMANDS.get(command)(snapshots[1]), (name, command)


@pytest.mark.parametrize("os_name", OSES)
def test_every_platform_shows_a_marginal_cable_and_a_slow_link_only_under_load(tmp_path, events, os_name):
    """The soak's checks (link_errors, fec_counters, ecn_idle, discards_idle) over an idle window PASS on a leaf of each
    platform with both faults; over a window an all-to-all across units ran in, its counters name the faulty links'
    ports: errors on the marginal cable's, marks and drops on the slow link's."""
    leaf = _leaf_of(os_name)
    scenario = _scenario(tmp_path, dict(SLOW, switch=leaf), dict(MARGINAL, switch=leaf, peer="spine-01"))
    states, load = _states(scenario)
    read, expect, state = _platform_reads(scenario, leaf, events, list(WINDOW_CHECKS.values()))
    idle = _window(read, state, expect, leaf)
    assert {v["status"] for v in idle.values()} <= {"PASS", "SKIP"}, idle
    loaded = _window(read, state, expect, leaf, between=lambda: _run(states, load, NAMES))
    marginal_port, slow_port = _port_to(state, "spine-01"), _port_to(state, "spine-02")
    assert loaded["link_errors"]["status"] == "FAIL" and marginal_port in loaded["link_errors"]["actual"], loaded["link_errors"]
    assert slow_port not in loaded["link_errors"]["actual"]
    assert loaded["ecn_idle"]["status"] == "FAIL" and slow_port in loaded["ecn_idle"]["actual"], loaded["ecn_idle"]
    assert loaded["discards_idle"]["status"] == "FAIL" and slow_port in loaded["discards_idle"]["actual"]
    if os_name in ("eos", "sonic"):  # the platforms whose FEC counters the catalog reads
        assert loaded["fec_counters"]["status"] == "FAIL" and marginal_port in loaded["fec_counters"]["actual"]


# --- the scenario refuses a link the fabric does not have ---------------------------------------------------------

@pytest.mark.parametrize("fault, message", [
    (dict(SLOW, switch="leaf9-r0"), "names unknown switch 'leaf9-r0'"),
    (dict(SLOW, peer="spine-07"), "peer 'spine-07' is not a spine of this fabric"),
    (dict(MARGINAL, peer="leaf2-r0"), "peer 'leaf2-r0' is not a spine of this fabric"),
    (dict(MARGINAL, peer=None), "peer None is not a spine"),
    (dict(SLOW, switch="spine-01", peer="spine-02"), "switch 'spine-01' is a spine"),
    (dict(SLOW, factor=1.5), "factor must be above 0 and below 1"),
    (dict(SLOW, factor="slow"), "factor must be above 0 and below 1"),
    (dict(MARGINAL, factor=0.5), "uplink_marginal takes kind, peer, switch, not factor"),
])
def test_a_link_fault_the_fabric_does_not_have_is_refused(tmp_path, fault, message):
    with pytest.raises(model.ScenarioError, match=message.replace("(", r"\(")):
        _states(_scenario(tmp_path, fault))


def _ib_pod(tmp_path, *faults, nodes=4):
    path = tmp_path / "ib.yml"
    path.write_text(yaml.safe_dump({"pod": {"nodes": nodes, "rails": 2, "ib_stack": "ibsim",
                                            "node_defaults": {"link_layer": "InfiniBand", "rate": 200},
                                            "ib_fabric": {"nodes_per_leaf": 2, "uplink_faults": list(faults)}}, "faults": []}))
    scenario = model.load_scenario(str(path))
    return [model.node_state(scenario, name) for name in model.node_names(scenario)]


def test_an_infiniband_pod_of_two_units_counts_the_all_to_all_on_its_uplinks_a_slow_one_short_and_waiting(tmp_path):
    """pod.ib_fabric: the subnet's units follow nodes_per_leaf (two leaves per rail, uplinks on ports 33 and 34), an
    all-to-all across them records its event as on RoCE, and subnet_loads gives each leaf-spine port its share in the
    PMA's 4-octet units: the slow uplink a quarter of its peer's, its leaf port waiting for credits (PortXmitWait)."""
    from pyramid_twin import formats_infiniband  # pylint: disable=import-outside-toplevel
    states = _ib_pod(tmp_path, {"kind": "uplink_slow", "leaf": "leaf2-r0", "spine": "spine-01", "factor": 0.25})
    switches, _cas = formats_infiniband.subnet(states)
    ports = {name: {number: port["remote"]["name"] for number, port in numbered.items() if port.get("remote")}
             for _guid, name, _lid, numbered in switches}
    assert ports["leaf2-r0"] == {1: "node-003 mlx5_0", 2: "node-004 mlx5_0", 33: "spine-01", 34: "spine-02"}
    assert ports["spine-01"] == {1: "leaf1-r0", 2: "leaf1-r1", 3: "leaf2-r0", 4: "leaf2-r1"}
    assert fabric_load.uplink_pace(states) == pytest.approx(0.375)  # 0.25 over the 2/3 of its traffic that crosses
    item = fabric_load.event(states, 8, (1 << 20, 1 << 30, 2), 0.0, 0.0)
    loads = fabric_load.subnet_loads([item], switches, states[0]["switch_fabric"], now=1.0)
    slow, peer = loads[("leaf2-r0", 33)], loads[("leaf2-r0", 34)]
    assert slow["PortXmitData"] == pytest.approx(peer["PortXmitData"] / 4, rel=1e-6)  # a quarter of its peer's
    assert slow["PortXmitWait"] > 0 and "PortXmitWait" not in peer
    assert loads[("spine-01", 3)]["PortRcvData"] == slow["PortXmitData"]  # the spine's end of the same link
    assert loads[("leaf1-r0", 33)]["PortXmitData"] == loads[("leaf1-r0", 34)]["PortXmitData"]  # a healthy leaf: even
    # a pair's run: on each rail, only the spine its flow hashed onto
    pair = {"kind": "pair", "nodes": ["node-001", "node-003"], "lane_bytes": 4 * 10 ** 9, "spines": {"0": "spine-02", "1": "spine-01"},
            "rails": 2, "nodes_per_leaf": 2, "start": 0.0, "duration": 0.0}
    taken = fabric_load.subnet_loads([pair], switches, states[0]["switch_fabric"], now=1.0)
    assert taken[("leaf1-r0", 34)]["PortXmitData"] == 10 ** 9 and taken[("leaf1-r0", 33)]["PortXmitData"] == 0


def test_a_marginal_infiniband_uplink_errs_at_both_ends_only_with_traffic(tmp_path):
    from pyramid_twin import formats_infiniband  # pylint: disable=import-outside-toplevel
    states = _ib_pod(tmp_path, {"kind": "uplink_marginal", "leaf": "leaf1-r1", "spine": "spine-02"})
    switches, _cas = formats_infiniband.subnet(states)
    assert fabric_load.subnet_loads([], switches, states[0]["switch_fabric"], since=5.0)[("leaf1-r1", 34)] == {
        "PortXmitData": 1250000, "PortRcvData": 1250000, "PortXmitPkts": 20000, "PortRcvPkts": 20000}  # the subnet's trickle
    item = fabric_load.event(states, 8, (1 << 20, 1 << 30, 2), 0.0, 0.0)
    loads = fabric_load.subnet_loads([item], switches, states[0]["switch_fabric"], now=1.0)
    assert loads[("leaf1-r1", 34)]["SymbolErrorCounter"] > 0 and loads[("spine-02", 2)]["PortRcvErrors"] > 0
    assert "SymbolErrorCounter" not in loads[("leaf1-r1", 33)]


@pytest.mark.parametrize("fabric, said", [
    ({"nodes_per_leaf": 0}, "nodes_per_leaf: the nodes of a scalable unit, 1 to 32"),
    ({"uplink_faults": [{"kind": "uplink_slow", "leaf": "leaf9-r0", "spine": "spine-01"}]}, "pod.ib_fabric.uplink_faults"),
    ({"uplink_faults": [{"kind": "uplink_marginal", "leaf": "leaf1-r0", "spine": "spine-01", "factor": 0.5}]},
     "pod.ib_fabric.uplink_faults"),
    ({"spines": 4}, "pod.ib_fabric takes nodes_per_leaf and uplink_faults"),
])
def test_a_wrong_ib_fabric_is_refused_by_name(tmp_path, fabric, said):
    path = tmp_path / "ib.yml"
    path.write_text(yaml.safe_dump({"pod": {"nodes": 4, "rails": 2, "ib_stack": "ibsim", "ib_fabric": fabric,
                                            "node_defaults": {"link_layer": "InfiniBand", "rate": 200}}, "faults": []}))
    with pytest.raises(model.ScenarioError, match=said):
        model.load_scenario(str(path))


def test_uplink_faults_on_infiniband_need_the_real_stack(tmp_path):
    path = tmp_path / "ib.yml"
    path.write_text(yaml.safe_dump({"pod": {"nodes": 4, "node_defaults": {"link_layer": "InfiniBand"},
                                            "ib_fabric": {"nodes_per_leaf": 2, "uplink_faults": [
                                                {"kind": "uplink_marginal", "leaf": "leaf1-r0", "spine": "spine-01"}]}},
                                    "faults": []}))
    with pytest.raises(model.ScenarioError, match="need pod.ib_stack ibsim"):
        model.load_scenario(str(path))
