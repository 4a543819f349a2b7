"""Every parser, fed damaged copies of its real outputs (tests/unit/parsers/<parser>/*.raw) through
engine.parse_one, the function the engine turns a collected source into facts with (issue 17).

- No exception escapes parse_one: damaged output is facts or a SourceFailure naming the command.
- Transport noise the parse stage removes (CRLF line ends, ANSI colour codes) changes nothing.
- A parse of a bounded input (100 kB: one long line, or many lines) takes under 2 s of CPU time.
- A long output (10,000 lines) costs the parse a bounded multiple of its size in memory (issue 40).

What each damage is: hostile_damage.py; what the tool does with it: docs/robustness.md.
"""

import tracemalloc

import pytest
from hypothesis import given, strategies as st

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils import parsing
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import engine as _engine
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core.model import SourceFailure

from ansible_collections.gpufabric.pyramid.tests.property import hostile_damage
from ansible_collections.gpufabric.pyramid.tests.property import hostile_engine

FIXTURES = hostile_engine.fixtures()
PARSERS = sorted(parsing.PARSERS)
BIG = 100 * 1024  # the size bound of one collected output in the time test
SGR = ("\x1b[1;31m", "\x1b[0m", "\x1b[32m")  # colour codes: the parse stage strips them


def _command(parser):
    """The command line whose output this parser reads (the first catalog way using it), else its name."""
    for source in hostile_engine.CATALOG["sources"].values():
        for way in source["ways"]:
            if way["parser"] == parser:
                if "run" in way:
                    return " ".join(str(arg) for arg in way["run"])
                return way.get("cli") or "cat %s" % way["read"] if "read" in way else way.get("cli") or "ls %s" % way.get("list")
    return parser


def parse(parser, text):
    """engine.parse_one of ``text`` collected by a way read with ``parser``, under the CPU limit."""
    command = _command(parser)
    with hostile_engine.cpu_limit(hostile_engine.PARSE_CPU_SECONDS, "%s parsing %d characters" % (parser, len(text))):
        return _engine.parse_one(hostile_engine.collected(text, parser, command)), command


def _same(first, second):
    if isinstance(first, SourceFailure) or isinstance(second, SourceFailure):
        return isinstance(first, SourceFailure) and isinstance(second, SourceFailure)
    return hostile_engine._shown(first) == hostile_engine._shown(second)  # pylint: disable=protected-access


def _outputs(parser):
    return list(FIXTURES.get(parser, []))


def _others(parser):
    """Other commands' real outputs, to stand in for this one's."""
    return tuple(("%s/%s" % (other, case), text) for other in PARSERS if other != parser for case, text in FIXTURES.get(other, [])[:1])


@pytest.mark.parametrize("parser", PARSERS)
@hostile_damage.settings_for(25)
@given(data=st.data())
def test_no_exception_escapes(parser, data):
    case, intact = data.draw(st.sampled_from(_outputs(parser)), label="case")
    damage = data.draw(hostile_damage.damage(intact, _others(parser)), label="damage")
    text = damage.apply(intact)
    try:
        outcome, command = parse(parser, text)
    except hostile_engine.TooSlow as exc:
        pytest.fail("%s/%s %r: %s" % (parser, case, damage, exc))
    except Exception as exc:  # pylint: disable=broad-exception-caught
        pytest.fail("%s/%s %r: %s escaped parse_one (the check's results are lost): %s" % (parser, case, damage, type(exc).__name__, exc))
    assert isinstance(outcome, (dict, SourceFailure)), outcome
    if isinstance(outcome, SourceFailure):
        assert command in outcome.reason, "%s/%s %r: the failure does not name `%s`: %s" % (parser, case, damage, command, outcome.reason)
    if damage.kind == "crlf" or damage.kind == "escape" and damage.args["code"] in SGR:
        expected = parse(parser, intact)[0]
        assert _same(outcome, expected), "%s/%s %r: transport noise changed the facts: %r, intact %r" % (parser, case, damage, outcome, expected)


SWEEP_LINES = 3000  # lines parsed per damage class and output: a long output gets fewer, spread evenly


def _spread(count, lines):
    """Indexes 0..count-1, at most SWEEP_LINES // lines (at least 8) of them, spread evenly."""
    most = max(8, SWEEP_LINES // max(lines, 1))
    step = max(1, -(-count // most))
    return range(0, count, step)


def _sweep(text):
    """The damage of the sweep on one output: cut after a line, a line moved to the top (a row before
    its table's header), a number (a field of its own) replaced by a bad value in turn; every line and
    number of a short output, evenly spread ones of a long one (the check sweep cuts every line)."""
    lines = hostile_damage.lines_of(text)
    for keep in _spread(len(lines), len(lines)):
        yield hostile_damage.Damage("cut_line", keep=keep)
    for line in _spread(len(lines), len(lines)):
        if line:
            yield hostile_damage.Damage("move_line", line=line, to=0)
    values = hostile_damage.BAD_NUMBERS
    for index in _spread(len(hostile_damage.NUMBER.findall(text)), len(lines)):
        yield hostile_damage.Damage("bad_number", index=index, value=values[index % len(values)])


@pytest.mark.parametrize("parser", PARSERS)
def test_sweep(parser):
    problems = []
    for case, intact in _outputs(parser):
        for damage in _sweep(intact):
            try:
                outcome = parse(parser, damage.apply(intact))[0]
                assert isinstance(outcome, (dict, SourceFailure)), outcome
            except hostile_engine.TooSlow as exc:
                problems.append("%s/%s %r: %s" % (parser, case, damage, exc))
            except Exception as exc:  # pylint: disable=broad-exception-caught
                problems.append("%s/%s %r: %s escaped parse_one: %s" % (parser, case, damage, type(exc).__name__, exc))
    assert not problems, "%d damaged outputs raised:\n%s" % (len(problems), "\n".join(problems[:12]))


def _filled(intact, shape):
    """``intact`` with a 100 kB insert in the middle: one line of ``shape``, or its middle line repeated."""
    lines = hostile_damage.lines_of(intact) or ["\n"]
    middle = len(lines) // 2
    if shape == "repeated line":
        line = lines[middle] if lines[middle].endswith("\n") else lines[middle] + "\n"
        block = line * (BIG // max(len(line), 1) + 1)
    elif shape == "short lines":
        block = "x1 y2\n" * (BIG // 6)
    else:
        block = (shape * (BIG // len(shape) + 1))[:BIG] + "\n"
    return "".join(lines[:middle]) + block + "".join(lines[middle:])


SHAPES = ("a", "1 ", "ab1_", "repeated line", "short lines")


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("parser", PARSERS)
def test_parse_time_is_bounded(parser, shape):
    case, intact = next(((case, text) for case, text in _outputs(parser) if len(text) > 200), _outputs(parser)[0])
    text = _filled(intact, shape)
    try:
        outcome = parse(parser, text)[0]
    except hostile_engine.TooSlow as exc:
        pytest.fail("%s/%s with a 100 kB insert (%s): %s" % (parser, case, shape, exc))
    except Exception as exc:  # pylint: disable=broad-exception-caught
        pytest.fail("%s/%s with a 100 kB insert (%s): %s escaped parse_one: %s" % (parser, case, shape, type(exc).__name__, exc))
    assert isinstance(outcome, (dict, SourceFailure))


# Bounded memory (issue 40): a parse holds at most MEMORY_FACTOR times its output's size (plus a little for the parser's
# own tables), so a very long output costs memory in proportion, never faster. Held to it: the reads that grow with the
# pod (route tables, port tables of a 512-port switch, nccl-tests and NCCL_DEBUG of many ranks, the kernel log), each in
# the shape that parses to facts (the whole parse, not an early ERROR). bench/big_outputs.py measures parsers at 200,000
# lines (bench/README.md, "Very long outputs"): 2 to 11 times their size there, the same multiple as at 20,000.
MEMORY_FACTOR = 16
MEMORY_SLACK = 2 * 1024 * 1024
LONG_READS = (("arista_eos_show_interfaces_status", "row"), ("cisco_nxos_show_interface_status", "row"),
              ("cisco_nxos_show_ip_route_bgp", "whole"), ("frr_show_ip_route", "row"), ("nccl_debug", "row"),
              ("nccl_tests", "row"), ("sonic_show_interfaces_status", "row"), ("linux_dmesg_xid", "row"))


def _growable(parser, shape):
    """The longest output of the parser whose grown form is still a whole answer (its repeated middle line a row, not
    a line the parser refuses to see twice, such as an FRR route printed twice): the memory of a whole parse."""
    def parses(text):
        try:
            parsing.parse(parser, hostile_damage.grown(text, 50, shape))
        except parsing.ParseError:
            return False
        return True
    outputs = sorted((text for _case, text in _outputs(parser)), key=lambda text: -len(text.splitlines()))
    return next(text for text in outputs if parses(text))


@pytest.mark.parametrize("parser, shape", LONG_READS)
def test_parse_memory_is_a_bounded_multiple_of_the_output(parser, shape):
    intact = _growable(parser, shape)
    text = hostile_damage.grown(intact, 10000, shape)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        facts = parsing.parse(parser, text)
        peak = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
    assert isinstance(facts, dict)  # the whole parse was measured, not an early refusal
    assert peak <= MEMORY_FACTOR * len(text) + MEMORY_SLACK, "%s (%s): %.1f MB held for %.1f MB of output (%.1f x)" % (
        parser, shape, peak / 1e6, len(text) / 1e6, peak / len(text))


def test_every_parser_has_outputs_to_damage():
    assert sorted(FIXTURES) == PARSERS
