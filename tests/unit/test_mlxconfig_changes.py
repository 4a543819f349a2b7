"""What remediate.yml's mlxconfig action sets and resets (run/mlxconfig_changes.py), from the parser's facts of a real
query (tests/unit/parsers/linux_mlxconfig_query/next_boot_differs: a single-port ConnectX-7 whose next boot differs
from its current value for one parameter), without Ansible."""

import os

import pytest

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils import parsing
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import mlxconfig_changes as _changes

RAW = os.path.join(os.path.dirname(os.path.abspath(__file__)), "parsers", "linux_mlxconfig_query", "next_boot_differs.raw")
with open(RAW, encoding="utf-8") as _handle:
    QUERIED = {"mlx5_0": parsing.parse("linux_mlxconfig_query", _handle.read())}
PARAMS = QUERIED["mlx5_0"]["params"]
DIFFERS = sorted(name for name, values in PARAMS.items() if values["current"] != values["next_boot"])
SAME = sorted(name for name, values in PARAMS.items() if values["current"] == values["next_boot"] and not name.endswith("_P2"))


def test_the_fixture_has_a_parameter_pending_and_one_settled():
    assert DIFFERS and SAME


def test_a_value_already_set_for_both_boots_changes_nothing():
    name = SAME[0]
    changed = _changes.changes(QUERIED, {name: PARAMS[name]["current"]})
    assert changed == {"set": {}, "reset": [], "before": {}, "after": {}}
    assert _changes.commands(changed, reset=True) == []


def test_a_value_set_for_the_next_boot_only_needs_a_reset_not_a_set():
    name = DIFFERS[0]
    changed = _changes.changes(QUERIED, {name: PARAMS[name]["next_boot"]})
    assert changed["set"] == {} and changed["reset"] == ["mlx5_0"]
    assert _changes.commands(changed, reset=False) == []
    assert _changes.commands(changed, reset=True) == [["mlxfwreset", "-d", "mlx5_0", "-y", "reset"]]


def test_a_new_value_is_set_then_reset_and_the_diff_says_the_old():
    name = SAME[0]
    changed = _changes.changes(QUERIED, {name: "12345"})
    assert changed["set"] == {"mlx5_0": {name: "12345"}} and changed["reset"] == ["mlx5_0"]
    assert changed["before"] == {"mlx5_0": {name: PARAMS[name]["next_boot"]}} and changed["after"] == changed["set"]
    assert _changes.commands(changed, reset=True) == [["mlxconfig", "-d", "mlx5_0", "-y", "set", "%s=12345" % name],
                                                      ["mlxfwreset", "-d", "mlx5_0", "-y", "reset"]]


def test_a_port_2_parameter_is_not_set_on_a_single_port_card():
    changed = _changes.changes(QUERIED, {"ROCE_CC_PRIO_MASK_P2": "255"})
    assert changed["set"] == {} and changed["reset"] == []


def test_a_parameter_the_card_does_not_report_refuses_every_change():
    with pytest.raises(_changes.MlxconfigChangeError, match="mlx5_0 does not report NO_SUCH_PARAM"):
        _changes.changes(QUERIED, {"NO_SUCH_PARAM": "1", SAME[0]: "12345"})


@pytest.mark.parametrize("reset,diff", [(False, False), (True, True)])
def test_the_task_result_says_what_changed_and_what_waits_for_a_reset(reset, diff):
    name = SAME[0]
    result = _changes.task_result(_changes.changes(QUERIED, {name: "12345"}), reset, diff)
    assert result["changed"] and result["set"] == {"mlx5_0": {name: "12345"}}
    assert (result["reset"], result["pending_reset"]) == ((["mlx5_0"], []) if reset else ([], ["mlx5_0"]))
    assert ("diff" in result) == diff
    if diff:
        assert result["diff"]["before"] == {"mlx5_0": {name: PARAMS[name]["next_boot"]}} and result["diff"]["after"] == result["set"]


def test_a_reset_alone_is_a_change_only_when_asked_for():
    name = DIFFERS[0]
    waiting = _changes.changes(QUERIED, {name: PARAMS[name]["next_boot"]})  # set for the next boot, not yet current
    assert not _changes.task_result(waiting, False, True)["changed"] and _changes.task_result(waiting, True, True)["changed"]


def test_a_vpi_port_in_the_other_link_layer_is_set_back_to_the_fabrics():
    # the fixture's card is a VPI ConnectX in Ethernet (LINK_TYPE_P1 ETH(2)): on a RoCE pod nothing to do, on an
    # InfiniBand pod it is set to IB and reset; a LINK_TYPE the inventory names wins; no link layer, link types alone
    assert PARAMS["LINK_TYPE_P1"]["current"] == PARAMS["LINK_TYPE_P1"]["next_boot"] == "ETH(2)"
    assert _changes.changes(QUERIED, {}, "roce") == {"set": {}, "reset": [], "before": {}, "after": {}}
    changed = _changes.changes(QUERIED, {}, "infiniband")
    assert changed["set"] == {"mlx5_0": {"LINK_TYPE_P1": "IB"}} and changed["reset"] == ["mlx5_0"]
    assert changed["before"] == {"mlx5_0": {"LINK_TYPE_P1": "ETH(2)"}}
    assert _changes.commands(changed, reset=True)[0] == ["mlxconfig", "-d", "mlx5_0", "-y", "set", "LINK_TYPE_P1=IB"]
    assert _changes.changes(QUERIED, {"LINK_TYPE_P1": "ETH"}, "infiniband")["set"] == {}
    assert _changes.changes(QUERIED, {}, None)["set"] == {}


def test_a_card_without_link_type_is_left_alone():
    # an Ethernet-only or InfiniBand-only card reports no LINK_TYPE_P<n>: nothing to set, never a refusal
    without = {"mlx5_0": dict(QUERIED["mlx5_0"], params={k: v for k, v in PARAMS.items() if not k.startswith("LINK_TYPE")})}
    assert _changes.changes(without, {}, "infiniband")["set"] == {}
