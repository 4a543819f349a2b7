"""A switch source's ways for one platform, tried in order over network_cli: JSON first, and the text form where the
release refuses the JSON one (EOS answers `% This is an unconverted command`, which network_cli passes on as output;
a command the release lacks fails with "% Invalid input", which the terminal plugin raises). The way that answered
is the one parsed (run/engine.answered puts that way's parser on the answer)."""

import pytest

from ansible.module_utils.connection import ConnectionError as NetworkConnectionError

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.collect import cli as _cli
# connect: test_cli.py's fixture (a scripted network_cli connection), used by name as every test's argument
from ansible_collections.gpufabric.pyramid.tests.unit.test_cli import PROMPT, connect  # noqa: F401 pylint: disable=unused-import

SOURCE = {"id": "sw_interfaces", "ways": [{"cli": "show interfaces status | json"}, {"cli": "show interfaces status"}]}
# What EOS prints over SSH for `| json` of a command with no JSON model (aristanetworks/vane's device connection
# drivers, error_responses, code-index id 16863309891; they fall back to text too): the refusal, then the error as JSON.
UNCONVERTED = '% This is an unconverted command\n{\n    "errors": [\n        "This is an unconverted command"\n    ]\n}\n'


def test_the_json_way_answers_and_the_text_way_is_never_asked(connect):
    fake = connect([("", PROMPT), ('{"interfaceStatuses": {}}', PROMPT)])
    raw, unreachable = _cli.collect("/sock", [SOURCE])
    assert unreachable is None
    assert (raw["sw_interfaces"]["status"], raw["sw_interfaces"]["way"]) == ("ok", 0) and "attempts" not in raw["sw_interfaces"]
    assert fake.calls == [("get", ""), ("get", "show interfaces status | json")]


@pytest.mark.parametrize("refusal", [(UNCONVERTED, PROMPT), NetworkConnectionError("% Invalid input (at token 3: 'json')")])
def test_a_json_way_the_release_refuses_falls_back_to_the_text_way_and_says_so(connect, refusal):
    fake = connect([("", PROMPT), refusal, ("Port Name Status\n", PROMPT)])
    raw, unreachable = _cli.collect("/sock", [SOURCE])
    assert unreachable is None
    answer = raw["sw_interfaces"]
    assert (answer["status"], answer["way"], answer["command"], answer["stdout"]) == ("ok", 1, "show interfaces status", "Port Name Status\n")
    assert len(answer["attempts"]) == 1 and answer["attempts"][0].startswith("show interfaces status | json: %")
    assert fake.calls[-1] == ("get", "show interfaces status")


def test_the_last_ways_refusal_is_its_answer_so_the_parser_says_what_it_could_not_read(connect):
    connect([("", PROMPT), (UNCONVERTED, PROMPT), (UNCONVERTED, PROMPT)])
    raw, unreachable = _cli.collect("/sock", [SOURCE])
    assert unreachable is None
    assert (raw["sw_interfaces"]["status"], raw["sw_interfaces"]["way"], raw["sw_interfaces"]["stdout"]) == ("ok", 1, UNCONVERTED)


def test_every_way_failing_is_one_failure_listing_each_attempt(connect):
    connect([("", PROMPT), NetworkConnectionError("% Invalid input"), NetworkConnectionError("% Invalid input")])
    raw, unreachable = _cli.collect("/sock", [SOURCE])
    assert unreachable is None
    answer = raw["sw_interfaces"]
    assert (answer["status"], answer["command"], answer["way"]) == ("failed", "show interfaces status", 1)
    assert answer["attempts"] == ["show interfaces status | json: % Invalid input", "show interfaces status: % Invalid input"]


def test_a_timeout_on_the_json_way_is_a_finding_not_a_reason_to_ask_the_text_way(connect):
    fake = connect([("", PROMPT), NetworkConnectionError("command timeout triggered, timeout value is 30 secs")])
    raw, unreachable = _cli.collect("/sock", [SOURCE])
    assert unreachable is None
    assert raw["sw_interfaces"]["status"] == "timeout" and fake.closed
    assert ("get", "show interfaces status") not in fake.calls


def test_a_timeout_on_the_text_way_names_it_after_the_refused_json_way(connect):
    connect([("", PROMPT), (UNCONVERTED, PROMPT), NetworkConnectionError("command timeout triggered, timeout value is 30 secs")])
    later = {"id": "sw_lldp", "ways": [{"cli": "show lldp neighbors | json"}, {"cli": "show lldp neighbors"}]}
    raw, _unreachable = _cli.collect("/sock", [SOURCE, later])
    answer = raw["sw_interfaces"]
    assert (answer["status"], answer["command"], answer["way"]) == ("timeout", "show interfaces status", 1)
    assert answer["attempts"][0].startswith("show interfaces status | json: % This is an unconverted command")
    assert answer["attempts"][1].startswith("show interfaces status: command timeout triggered")
    assert raw["sw_lldp"]["attempts"] == ["not run: the CLI stopped answering at `show interfaces status`"]
