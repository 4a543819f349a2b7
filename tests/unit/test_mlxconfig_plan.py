"""What remediate.yml's mlxconfig action sets and resets (run/mlxconfig_plan.py), from the parser's facts of a real
query (tests/unit/parsers/linux_mlxconfig_query/next_boot_differs: a single-port ConnectX-7 whose next boot differs
from its current value for one parameter), without Ansible."""

import os

import pytest

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils import parsing
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import mlxconfig_plan as _plan

RAW = os.path.join(os.path.dirname(os.path.abspath(__file__)), "parsers", "linux_mlxconfig_query", "next_boot_differs.raw")
with open(RAW, encoding="utf-8") as _handle:
    QUERIED = {"mlx5_0": parsing.parse("linux_mlxconfig_query", _handle.read())}
PARAMS = QUERIED["mlx5_0"]["params"]
DIFFERS = sorted(name for name, values in PARAMS.items() if values["current"] != values["next_boot"])
SAME = sorted(name for name, values in PARAMS.items() if values["current"] == values["next_boot"] and not name.endswith("_P2"))


def test_the_fixture_has_a_parameter_pending_and_one_settled():
    assert DIFFERS and SAME


def test_a_value_already_set_for_both_boots_plans_nothing():
    name = SAME[0]
    planned = _plan.plan(QUERIED, {name: PARAMS[name]["current"]})
    assert planned == {"set": {}, "reset": [], "before": {}, "after": {}}
    assert _plan.commands(planned, reset=True) == []


def test_a_value_set_for_the_next_boot_only_needs_a_reset_not_a_set():
    name = DIFFERS[0]
    planned = _plan.plan(QUERIED, {name: PARAMS[name]["next_boot"]})
    assert planned["set"] == {} and planned["reset"] == ["mlx5_0"]
    assert _plan.commands(planned, reset=False) == []
    assert _plan.commands(planned, reset=True) == [["mlxfwreset", "-d", "mlx5_0", "-y", "reset"]]


def test_a_new_value_is_set_then_reset_and_the_diff_says_the_old():
    name = SAME[0]
    planned = _plan.plan(QUERIED, {name: "12345"})
    assert planned["set"] == {"mlx5_0": {name: "12345"}} and planned["reset"] == ["mlx5_0"]
    assert planned["before"] == {"mlx5_0": {name: PARAMS[name]["next_boot"]}} and planned["after"] == planned["set"]
    assert _plan.commands(planned, reset=True) == [["mlxconfig", "-d", "mlx5_0", "-y", "set", "%s=12345" % name],
                                                   ["mlxfwreset", "-d", "mlx5_0", "-y", "reset"]]


def test_a_port_2_parameter_is_not_set_on_a_single_port_card():
    planned = _plan.plan(QUERIED, {"ROCE_CC_PRIO_MASK_P2": "255"})
    assert planned["set"] == {} and planned["reset"] == []


def test_a_parameter_the_card_does_not_report_refuses_the_whole_plan():
    with pytest.raises(_plan.MlxconfigPlanError, match="mlx5_0 does not report NO_SUCH_PARAM"):
        _plan.plan(QUERIED, {"NO_SUCH_PARAM": "1", SAME[0]: "12345"})
