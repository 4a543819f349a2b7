"""Every tests/unit/parsers/<parser>/<case>.raw against its <case>.yml.

The yml holds parsed_sample (the raw TextFSM rows, for template parsers),
and either facts (what parse() must return; optional) or parse_error: true.
"""

import glob
import os

import pytest
import yaml

FIXTURE_DIR = os.path.join(os.path.dirname(__file__), "parsers")
RAW_FILES = sorted(glob.glob(os.path.join(FIXTURE_DIR, "*", "*.raw")))


def _case_id(path):
    return "%s/%s" % (os.path.basename(os.path.dirname(path)), os.path.basename(path)[:-4])


def _load(raw_path):
    with open(raw_path, encoding="utf-8", newline="") as handle:
        raw = handle.read()
    with open(raw_path[:-4] + ".yml", encoding="utf-8") as handle:
        expected = yaml.safe_load(handle)
    return raw, expected


@pytest.mark.parametrize("raw_path", RAW_FILES, ids=_case_id)
def test_fixture(parsers, raw_path):
    parser = os.path.basename(os.path.dirname(raw_path))
    assert parser in parsers.PARSERS
    raw, expected = _load(raw_path)
    if parsers.PARSERS[parser].kind == "textfsm":
        assert parsers.textfsm_rows(parser, raw) == expected["parsed_sample"]
    else:
        assert "parsed_sample" not in expected, "a %s parser has no TextFSM rows" % parsers.PARSERS[parser].kind
    if expected.get("parse_error"):
        with pytest.raises(parsers.ParseError):
            parsers.parse(parser, raw)
    else:
        facts = parsers.parse(parser, raw)
        if "facts" in expected:
            assert facts == expected["facts"]


def test_every_parser_has_good_and_bad_fixtures(parsers):
    for parser in parsers.PARSERS:
        outcomes = set()
        for raw_path in glob.glob(os.path.join(FIXTURE_DIR, parser, "*.raw")):
            outcomes.add(bool(_load(raw_path)[1].get("parse_error")))
        assert outcomes == {True, False}, parser


def test_fixture_files_come_in_pairs():
    ymls = {path[:-4] for path in glob.glob(os.path.join(FIXTURE_DIR, "*", "*.yml"))}
    raws = {path[:-4] for path in RAW_FILES}
    assert ymls == raws


def test_every_template_is_read_by_a_parser(parsers):
    read = {entry.template for entry in parsers.PARSERS.values() if entry.kind == "textfsm"}
    for path in glob.glob(os.path.join(parsers.TEMPLATE_DIR, "*.textfsm")):
        assert os.path.basename(path)[:-len(".textfsm")] in read


def test_every_textfsm_parser_has_its_template(parsers):
    for name, entry in parsers.PARSERS.items():
        if entry.kind == "textfsm":
            assert os.path.exists(parsers.template_path(name)), name


def test_unknown_parser_and_none_text(parsers):
    with pytest.raises(parsers.ParseError):
        parsers.parse("linux_nope", "x")
    with pytest.raises(parsers.ParseError):
        parsers.parse("linux_lsmod", None)
    assert parsers.parse("linux_sys_class_iommu", None) == {"units": []}


def test_crlf_and_ansi_are_tolerated(parsers):
    raw, expected = _load(os.path.join(FIXTURE_DIR, "linux_nvidia_smi_topo_m", "eight_rails_pix.raw"))
    assert parsers.parse("linux_nvidia_smi_topo_m", raw.replace("\n", "\r\n")) == expected["facts"]


# Hostile inputs (issue "Hostile inputs"): a line of word characters once cost the NCCL row regexes
# quadratic time (30 kB: 11 s). Every parser answers without an exception other than ParseError, whatever
# one long line holds, and in linear time. No wall-clock bound that a loaded machine could miss (issue 33):
# the lines are long enough (120 kB, under the parsers' 1 MB line bound) that a quadratic parser needs
# minutes (16 x 11 s for the old NCCL regexes), and the bound is 30 s of the process's own CPU time per
# parser (ITIMER_PROF, as the property suite's cpu_limit: another process's load does not count), which a
# linear one (milliseconds here) meets on any machine. Timings belong in bench/, not here.
LONG_LINES = {"word characters": "a" * 120000, "a 1 MB word": "x" * (1 << 20), "digits and letters": "1a" * 60000,
              "host-like words": "node-001:" * 12000, "a 1 MB line of spaces and digits": "1 " * (1 << 19)}
QUADRATIC_ONLY_SECONDS = 30


@pytest.mark.parametrize("what", sorted(LONG_LINES))
def test_one_long_line_is_parsed_in_linear_time(parsers, what):
    import signal  # pylint: disable=import-outside-toplevel

    def blown(_signum, _frame):
        raise AssertionError("over %d CPU s on one %d-character line: not linear" % (QUADRATIC_ONLY_SECONDS, len(LONG_LINES[what])))

    previous = signal.signal(signal.SIGPROF, blown)
    try:
        for parser in sorted(parsers.PARSERS):
            signal.setitimer(signal.ITIMER_PROF, QUADRATIC_ONLY_SECONDS)
            try:
                parsers.parse(parser, LONG_LINES[what] + "\n")
            except parsers.ParseError:
                pass
            except AssertionError as error:
                raise AssertionError("%s: %s" % (parser, error)) from None
            finally:
                signal.setitimer(signal.ITIMER_PROF, 0)
    finally:
        signal.signal(signal.SIGPROF, previous)


def test_a_line_past_the_bound_is_a_parse_error_naming_it(parsers):
    with pytest.raises(parsers.ParseError, match="a line of 1048576 characters"):
        parsers.parse("nccl_tests", "# nThread 1 nGpus 1\n" + "x" * (1 << 20) + "\n")
    assert parsers.partial("nccl_tests", "x" * (1 << 20)) is None  # a hang's last words, bounded too


def test_a_number_beyond_float_range_is_a_parse_error(parsers):
    with open(os.path.join(FIXTURE_DIR, "nccl_tests", "wrong_1e999.raw"), encoding="utf-8") as handle:
        text = handle.read()
    with pytest.raises(parsers.ParseError, match="#wrong '1e999' is not a count"):
        parsers.parse("nccl_tests", text)
    with pytest.raises(parsers.ParseError, match="busbw '1e999' is not a finite number"):
        parsers.parse("nccl_tests", text.replace("   4.53       0   110.62", "  1e999       0   110.62"))


def test_every_real_capture_says_where_it_comes_from():
    """A `_real` case is a real output: its yml names the capture (a public page, a commit, the lent device)."""
    unsourced = [_case_id(path) for path in RAW_FILES if os.path.basename(path).endswith("_real.raw")
                 and not str(_load(path)[1].get("source") or "").strip()]
    assert not unsourced
