"""run/privilege.py: which switch reads need privileged (enable) mode, which read pre-flight asks each switch, and what
its answer means (issue 71: a switch login without the privilege its reads need, named before any load)."""

import copy

import pytest

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import privilege as _privilege

CATALOG = _catalog.load_catalog()
PORTS = [{"port": "Ethernet1/1", "peer": "node-001", "peer_port": "ens1np0"}, {"port": "Ethernet2/1"}]
FIX = ("set ansible_become: true, ansible_become_method: enable and ansible_become_password (the enable secret) "
       "for rail_leaves")


def _expect(platform):
    return {"pyramid_switch_os": platform, "pyramid_switch_ports": PORTS, "pyramid_rdma_link_layer": "roce"}


@pytest.mark.parametrize("platform, run_tags, skip_tags, command", [
    # EOS reads each planned port's running-config stanza at Layer 3 (sw_pfc_state): its first port's is the read
    ("eos", ["all"], [], "show running-config interfaces Ethernet1/1"),
    ("eos", ["layer3"], [], "show running-config interfaces Ethernet1/1"),
    # a run that leaves Layer 3 out asks no privileged read of it
    ("eos", ["layer1", "layer2"], [], None),
    ("eos", ["all"], ["layer3"], None),
    # NX-OS has no enable level for reads (its role decides; network-operator reads the running-config), SONiC and
    # Cumulus are read over ssh: no way of theirs is marked
    ("nxos", ["all"], [], None),
    ("sonic", ["all"], [], None),
    ("cumulus", ["all"], [], None),
])
def test_the_read_asked_is_the_first_privileged_way_of_the_layers_run(platform, run_tags, skip_tags, command):
    assert _privilege.first_privileged_read(CATALOG, _expect(platform), run_tags, skip_tags) == command


def test_every_privileged_way_is_an_eos_running_config_read():
    marked = {(name, way["cli"]) for name, source in CATALOG["sources"].items() for way in source["ways"]
              if way.get("privileged")}
    assert marked == {("sw_pfc_state", "show running-config interfaces {item}"),
                      ("sw_roce_map", "show running-config interfaces {item}"),
                      ("sw_qos_config", "show running-config section qos")}
    unmarked = [(name, way["cli"]) for name, source in CATALOG["sources"].items() for way in source["ways"]
                if way.get("platform") == "eos" and "running-config" in way.get("cli", "") and not way.get("privileged")]
    assert not unmarked


@pytest.mark.parametrize("way", [{"platform": "sonic", "run": ["show", "pfc", "priority"], "privileged": True},
                                 {"platform": "eos", "cli": "show running-config section qos", "privileged": "yes"}])
def test_privileged_marks_only_a_cli_way_and_only_as_true(way):
    catalog = copy.deepcopy(CATALOG)
    catalog["sources"]["sw_pfc_state"]["ways"].append(dict(way, parser="sonic_show_pfc_priority"))
    with pytest.raises(_catalog.CatalogError, match="privileged: true` marks a cli way"):
        _catalog._check(catalog)  # pylint: disable=protected-access


def test_each_switch_is_asked_its_own_first_privileged_read_and_one_without_any_is_not_asked():
    typed = {"leaf-eos": _expect("eos"), "leaf-nxos": _expect("nxos"), "spine-eos": dict(_expect("eos"), pyramid_switch_ports=[])}
    # a switch with no planned host port has no per-port read: the switch-wide QoS section is its first
    assert _privilege.probes(list(typed), typed, CATALOG) == {"leaf-eos": "show running-config interfaces Ethernet1/1",
                                                              "spine-eos": "show running-config section qos"}


COMMAND = "show running-config interfaces Ethernet1/1"

# (case, collected answer of the read or None, why network_cli could not connect or None, problem's words or None)
VERDICTS = [
    # network_cli raises EOS's refusal (the terminal's "invalid input" error pattern) with the answer as its message
    ("refused unprivileged", {"status": "failed", "command": COMMAND, "stdout": "", "attempts": [
        COMMAND + ": " + COMMAND + "\r\n% Invalid input (privileged mode required)\r\nleaf1-r0>"]}, None,
     "leaf1-r0 (rail_leaves): its login lacks the privilege its reads need: `%s` answered \"%% Invalid input "
     "(privileged mode required)\"; %s" % (COMMAND, FIX)),
    # as network_cli's error reaches collect/cli.py: the answer's bytes, escaped (seen on the twin's EOS leaf)
    ("refused, escaped", {"status": "failed", "command": COMMAND, "stdout": "", "attempts": [
        COMMAND + ": b'" + COMMAND + "\\r\\n% Invalid input (privileged mode required)\\r\\nleaf1-r0>'"]}, None,
     "`%s` answered \"%% Invalid input (privileged mode required)\"; %s" % (COMMAND, FIX)),
    ("AAA authorization denied", {"status": "failed", "command": COMMAND, "stdout": "", "attempts": [
        COMMAND + ": % Authorization denied for command 'show running-config interfaces Ethernet1/1'"]}, None,
     "`%s` answered \"%% Authorization denied for command" % COMMAND),
    ("read", {"status": "ok", "command": COMMAND, "stdout": "interface Ethernet1/1\n   mtu 9214\n"}, None, None),
    # the enable secret refused: network_cli's become fails while the connection opens
    ("enable secret refused", None, "unable to elevate privilege to enable mode, at prompt [b'leaf1-r0>'] with error: "
     "% Bad secret (network_cli)", "leaf1-r0 (rail_leaves): network_cli could not enter enable mode"),
    # not this trap: the checks' own ERROR path names them
    ("unreachable", None, "ssh connection failed: Connection refused (network_cli)", None),
    ("timeout", {"status": "timeout", "command": COMMAND, "stdout": "", "attempts": [
        COMMAND + ": command timeout triggered, timeout value is 15 secs."]}, None, None),
    ("command the release lacks", {"status": "failed", "command": COMMAND, "stdout": "", "attempts": [
        COMMAND + ": % Invalid input at line 1"]}, None, None),
]


@pytest.mark.parametrize("case, raw, unreachable, words", VERDICTS, ids=[row[0] for row in VERDICTS])
def test_the_answer_of_the_privileged_read(case, raw, unreachable, words):
    problem = _privilege.verdict("leaf1-r0", "rail_leaves", COMMAND, raw, unreachable)
    if words is None:
        assert problem is None, case
    else:
        assert words in problem, problem


def test_a_switch_whose_inventory_sets_no_become_is_a_warning_naming_the_fix():
    variables = {"leaf1": {"ansible_become": True}, "leaf2": {"ansible_become": "false"}, "leaf3": {}}
    warnings = _privilege.become_unset({name: COMMAND for name in variables}, variables.get, lambda switch: "rail_leaves")
    assert [warning.split(" ")[0] for warning in warnings] == ["leaf2", "leaf3"]
    assert warnings[0].endswith(FIX)


def test_the_twins_eos_session_starts_unprivileged_and_enable_lets_it_read_the_running_config(monkeypatch, capsys):
    """twin/pyramid_twin/switch_cli.py as network_cli drives it: `leaf>`, the refusal, `enable` (no secret), `leaf#`."""
    import io

    from pyramid_twin import switch_cli

    switch = {"os": "eos", "hostname": "leaf1-r0", "cli_stall": None, "prompt_timeout": False}
    monkeypatch.setattr(switch_cli, "answer", lambda sw, command, privileged=True: (
        switch_cli.PRIVILEGE_REFUSAL, False) if not privileged and command.startswith("show running-config") else ("ok\n", True))
    monkeypatch.setattr("sys.stdin", io.StringIO("show running-config section qos\nenable\nshow running-config section qos\n"
                                                 "disable\nexit\n"))
    assert switch_cli.interactive(switch) == 0
    said = capsys.readouterr().out.split("Last login", 1)[1].split("\n", 1)[1]
    assert said == ("leaf1-r0>% Invalid input (privileged mode required)\nleaf1-r0>leaf1-r0#ok\nleaf1-r0#leaf1-r0>")


@pytest.mark.parametrize("platform, privileged, refused", [("eos", False, True), ("eos", True, False), ("nxos", False, False)])
def test_the_twin_refuses_the_running_config_only_to_an_unprivileged_eos_session(platform, privileged, refused):
    from pyramid_twin import switch_cli

    switch = {"os": platform, "json_unconverted": []}
    text, _known = switch_cli.answer(switch, "show running-config foo-not-a-command", privileged)
    assert (text == switch_cli.PRIVILEGE_REFUSAL) == refused
