"""twin/README.md documents every fault kind the model knows (scenario authors read it, not model.py)."""

import os

from pyramid_twin import model, switch_model

README = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "twin", "README.md")


def test_readme_lists_every_fault_kind():
    with open(README, encoding="utf-8") as handle:
        text = handle.read()
    undocumented = [kind for kind in model.FAULTS if "| `%s` |" % kind not in text]
    assert not undocumented, "add these fault kinds to twin/README.md: %s" % undocumented


def test_readme_lists_every_switch_fault_kind():
    with open(README, encoding="utf-8") as handle:
        text = handle.read()
    undocumented = [kind for kind in switch_model.SWITCH_FAULTS if "| `%s` |" % kind not in text]
    assert not undocumented, "add these switch fault kinds to twin/README.md: %s" % undocumented


def test_shipped_scenarios_load():
    scenarios = os.path.join(os.path.dirname(README), "scenarios")
    for name in ("default.yml", "healthy.yml"):
        scenario = model.load_scenario(os.path.join(scenarios, name))
        assert len(model.node_names(scenario)) == 32
        for node in model.node_names(scenario):
            model.node_state(scenario, node)
        topo = switch_model.topology(scenario)
        assert len(topo["switches"]) == 12
        for switch in topo["switches"]:
            switch_model.switch_state(scenario, switch)
