"""The twin's FEC counters (EOS `show interfaces phy detail | json`, SONiC `show interfaces counters fec-stats`)
read back by the product's parsers, and judged over a soak as validate.yml would.

Snapshots come from the twin's own model (switch_model.switch_state on a small mixed fabric), so
the healthy rate of every port, the fec_degraded fault and a port down are the ones the twin
serves; two snapshots a soak apart go through fec_counters as the run's counter window does.
"""

import copy
import time

import pytest

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog, expectations as _expectations
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import engine as _engine
from pyramid_twin import formats_eos, formats_sonic, switch_model, switch_session

CATALOG = _catalog.load_catalog()
CHECK = next(check for check in CATALOG["checks"] if check["id"] == "fec_counters")
RENDER = {"eos": formats_eos.COMMANDS["show interfaces phy detail | json"],
          "sonic": formats_sonic.COMMANDS["show interfaces counters fec-stats"]}
PARSER = {"eos": "arista_eos_show_interfaces_phy_detail", "sonic": "sonic_show_interfaces_counters_fec_stats"}
LEAF = {"eos": "leaf1-r0", "sonic": "leaf1-r2"}  # leaf_os below: rail r's leaf runs leaf_os[r % 4]
FAULTY_PORT = {"eos": "Ethernet2/1", "sonic": "Ethernet8"}
DOWN_PORT = {"eos": "Ethernet3/1", "sonic": "Ethernet16"}  # node-003: its rails 0 and 2 are down
SOAK = 300


def _scenario(*switch_faults):
    return {"pod": {"nodes": 4, "gpus_per_node": 8, "rails": 8},
            "switches": {"spines": 4, "nodes_per_leaf": 4, "leaf_os": ["eos", "nxos", "sonic", "cumulus"],
                         "spine_os": ["eos", "nxos", "sonic", "cumulus"], "faults": list(switch_faults)},
            "faults": [{"node": "node-003", "kind": "port_state", "rail": rail} for rail in ("mlx5_0", "mlx5_2")]}


def _snapshot(state, seconds_since_render):
    """The switch as a session sees it `seconds_since_render` after the render."""
    return switch_session.snapshot_now(dict(copy.deepcopy(state), rendered_at=time.time() - seconds_since_render))


def _faulty(platform, **fields):
    return dict({"switch": LEAF[platform], "kind": "fec_degraded", "port": FAULTY_PORT[platform]}, **fields)


def _state(platform, *faults):
    return switch_model.switch_state(_scenario(*faults), LEAF[platform])


@pytest.mark.parametrize("platform", ["eos", "sonic"])
def test_every_port_parses_back_to_the_snapshot(parsers, platform):
    snapshot = _snapshot(_state(platform, _faulty(platform, uncorrected_per_s=2)), 60)
    facts = parsers.parse(PARSER[platform], RENDER[platform](snapshot))
    assert facts == {"ports": {port["name"]: {"fec_corrected": port["fec_corrected"], "fec_uncorrected": port["fec_uncorrected"]}
                               for port in snapshot["ports"]}}
    assert facts["ports"][FAULTY_PORT[platform]]["fec_uncorrected"] >= 119  # 2 a second for a minute


def _judge(platform, state, soak=SOAK):
    """fec_counters over two snapshots `soak` seconds apart, with the expectations the twin's inventory gives."""
    scenario_topology = switch_model.topology(_scenario())
    expect, errors = _expectations.resolve(CATALOG, switch_model.inventory_vars(scenario_topology, LEAF[platform]))
    assert not errors, errors
    read = _engine.reads(["sw_fec"], CATALOG, expect)[0]
    reads = [_engine.parse_one(_engine.answered(read, {"status": "ok", "stdout": RENDER[platform](_snapshot(state, age)), "command": "sw_fec"}))
             for age in (10, 10 + soak)]
    facts = {"sw_fec": {"before": reads[0], "after": reads[1], "seconds": soak}}
    return _engine.judge_host(LEAF[platform], CHECK, CATALOG, facts, expect)


@pytest.mark.parametrize("platform", ["eos", "sonic"])
def test_a_healthy_leaf_passes_though_its_optics_correct_codewords(platform):
    record = _judge(platform, _state(platform))
    assert record["status"] == "PASS", record
    assert "8 ports over 300s, none uncorrected; most corrected: " in record["actual"]  # 4 nodes, 4 spines


@pytest.mark.parametrize("platform", ["eos", "sonic"])
def test_a_degraded_port_fails_alone_and_names_the_optics(platform):
    record = _judge(platform, _state(platform, _faulty(platform, uncorrected_per_s=2)))
    assert record["status"] == "FAIL"
    assert record["actual"].startswith("%s: 250000 corrected codewords/s, uncorrected +600 (frames lost)" % FAULTY_PORT[platform])
    assert "dirty or damaged fiber" in record["cause"] and record["detail"]["ports"] == [FAULTY_PORT[platform]]


@pytest.mark.parametrize("platform", ["eos", "sonic"])
def test_a_port_down_stops_counting(parsers, platform):
    state = _state(platform)
    down = next(port for port in state["ports"] if port["name"] == DOWN_PORT[platform])
    assert down["oper"] == "down" and down["fec_corrected"]["per_s"] == 0
    first, later = (parsers.parse(PARSER[platform], RENDER[platform](_snapshot(state, age)))["ports"][DOWN_PORT[platform]]
                    for age in (10, 10 + SOAK))
    assert first == later


def test_the_renderers_leave_the_snapshot_alone():
    for platform in ("eos", "sonic"):
        snapshot = _snapshot(_state(platform, _faulty(platform)), 5)
        before = copy.deepcopy(snapshot)
        RENDER[platform](snapshot)
        assert snapshot == before


@pytest.mark.parametrize("platform, command", [("eos", "show interfaces phy detail"), ("sonic", "show interfaces counters fec-stat")])
def test_the_twins_error_output_never_parses(parsers, platform, command):
    text = {"eos": formats_eos, "sonic": formats_sonic}[platform].error(command)[0]
    with pytest.raises(parsers.ParseError):
        parsers.parse(PARSER[platform], text)


def test_the_fault_needs_a_port_of_the_switch():
    with pytest.raises(switch_model.SwitchScenarioError, match="has no port"):
        _state("eos", {"switch": "leaf1-r0", "kind": "fec_degraded", "port": "Ethernet99/1"})
