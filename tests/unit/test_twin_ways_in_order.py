"""Every way of a switch source is reachable and tested: where a platform's source lists its text form after the JSON
one (EOS's `show ...` after `show ... | json`; NVUE's `nv show interface` after `-o json`), the twin's leaf of that
platform is read through each way in turn, and Layers 1 to 3 (run/layer.py, as run_layer runs them) judge it alike:
the same verdict, the same words, only the command that answered differs."""

import re
import time

import pytest

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog, expectations as _expectations
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import engine as _engine, layer as _layer
from pyramid_twin import formats_cumulus, formats_eos, switch_model, switch_session

CATALOG = _catalog.load_catalog()
LEAF = "leaf1-r0"
FORMATS = {"eos": formats_eos, "cumulus": formats_cumulus}
CHECKS = {layer: _catalog.checks_at(CATALOG, layer, "switch") for layer in (1, 2, 3)}


def _multi_way_sources(os_name):
    return sorted(name for name, source in CATALOG["sources"].items()
                  if [way.get("platform") for way in source["ways"]].count(os_name) > 1)


def _scenario(os_name, faults):
    return {"pod": {"nodes": 8, "gpus_per_node": 8, "rails": 1}, "faults": [],
            "switches": {"spines": 2, "nodes_per_leaf": 4, "leaf_os": [os_name], "spine_os": ["eos"], "faults": list(faults)}}


def _judged(os_name, faults, way):
    """Every Layer 1-3 record of the leaf, each source read through its way number ``way`` where it has one."""
    scenario = _scenario(os_name, faults)
    state = dict(switch_model.switch_state(scenario, LEAF), rendered_at=time.time() - 60)
    names = _catalog.expectation_names([c for checks in CHECKS.values() for c in checks], CATALOG)
    expect, errors = _expectations.resolve(CATALOG, switch_model.inventory_vars(switch_model.topology(scenario), LEAF), names)
    assert not errors, errors
    commands = []

    def collect(planned):
        snapshot = switch_session.snapshot_now(state)
        raw = {}
        for item in planned:
            number = min(way, len(item["ways"]) - 1)
            command = item["ways"][number].get("cli") or " ".join(item["ways"][number]["run"])
            commands.append(command)
            raw[item["id"]] = {"status": "ok", "way": number, "rc": 0, "command": command,
                               "stdout": FORMATS[os_name].COMMANDS[command](snapshot)}
        return _engine.answers(planned, raw), None

    doc = {"host": LEAF, "results": [], "facts": {}}
    _layer.snapshot(LEAF, [c for checks in CHECKS.values() for c in checks], CATALOG, expect, doc, collect)
    for layer, checks in CHECKS.items():
        _layer.run(LEAF, layer, checks, CATALOG, expect, doc, collect, wait=lambda *args: 0.0)
    # the soak's length is the wall clock's between the snapshot and the check, and which port corrected most at
    # what rate the twin's FEC counters grown in that time: the same words but for them
    soak_blind = [(r" over \d+s\b", " over <soak>s"), (r"most corrected: \S+ \d+ codewords/s", "most corrected: <port> <n> codewords/s")]
    words = {}
    for record in doc["results"]:
        actual = record["actual"]
        for pattern, replacement in soak_blind:
            actual = re.sub(pattern, replacement, actual)
        words[record["check"]] = (record["status"], actual)
    return words, set(commands)


FAULTS = {
    "eos": [{"switch": LEAF, "kind": "port_down", "port": "Ethernet2/1"}],
    "cumulus": [{"switch": LEAF, "kind": "port_down", "port": "swp2"}],
}


@pytest.mark.parametrize("os_name", sorted(FORMATS))
@pytest.mark.parametrize("faulted", [False, True], ids=["healthy", "port_down"])
def test_the_text_way_is_judged_as_the_json_way(os_name, faulted):
    sources = _multi_way_sources(os_name)
    assert sources, "no source of %s lists a second way" % os_name
    faults = FAULTS[os_name] if faulted else []
    first, asked_first = _judged(os_name, faults, 0)
    second, asked_second = _judged(os_name, faults, 1)
    assert asked_second - asked_first, "the second ways were asked"
    assert second == first
    failed = sorted(check for check, (status, actual) in first.items() if status != "PASS" and not (
        status == "SKIP" and "not applicable" in actual))
    if faulted:  # the port's own checks fail; a switch climbs on, the port set aside (gate/blocking.py)
        assert {"link_status", "optics_rx"} <= set(failed), first
    else:
        assert failed == [], first
