# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The parser registry: each parser registers once, with @parser, next to its code.

A parser turns one command's (or file's) raw text into typed facts on the controller. Its kind
says what its function gets:

- ``textfsm``: the rows of parsers/textfsm/<template>.textfsm (lowercase keys); ``prepare`` may
  first tidy the text (interleaved lines, fixed-width cells); ``ntc=True`` reads ntc-templates'
  template of that name instead of ours; ``template`` shares another parser's template (one
  command, two facts).
- ``json``: the decoded JSON document (EOS ``| json``, NVUE ``-o json``).
- ``text``: the text itself (formats no template describes well).

``partial``, where given, reads what a run that did not finish printed (a hang's last words: which
ranks started, which sizes completed), so judges never scan raw text themselves.

The function raises ValueError (or KeyError/TypeError for a JSON document of another shape) for
output it cannot read completely: empty, cut short, an error message, another command's report.
parse() turns that into ParseError naming the parser: a check never reads a truncated listing as
"device absent".
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Sequence

try:
    import textfsm
except ImportError as exc:  # a controller dependency: say so when a parser is used, not at import
    textfsm = None
    TEXTFSM_IMPORT_ERROR = exc
else:
    TEXTFSM_IMPORT_ERROR = None

TEMPLATE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "parsers", "textfsm")
KINDS = ("textfsm", "json", "text")
PARSERS = {}  # name -> Parser

# Terminal escapes a tool or a PTY adds (colours, erase-line ESC[K, cursor moves): CSI sequences, never data
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")

# Bounds on what the controller parses, so damaged output costs bounded time: no report a parser reads
# comes near them (a 40,000-port switch's JSON is a few MB; a line of a text report is under 1 kB), and
# TextFSM's regexes run per line, so a 1 MB line of garbage would cost its rules' worst case.
MAX_OUTPUT_CHARS = 64 * 1024 * 1024
MAX_LINE_CHARS = 64 * 1024


class ParseError(Exception):
    """The text is not a complete, recognizable output of the command."""


class Parser:
    """One registered parser: its name, what it reads, and how."""

    def __init__(self, name, description, function, kind="textfsm", template=None, prepare=None, ntc=False,
                 empty_ok=False, with_text=False, partial=None, foreign_text=False):
        if kind not in KINDS:
            raise ValueError("parser %s: unknown kind %r" % (name, kind))
        self.name = name
        self.description = description
        self.function = function
        self.kind = kind
        self.template = (template or name) if kind == "textfsm" else None
        self.prepare = prepare
        self.ntc = ntc
        self.empty_ok = empty_ok  # empty output is an answer ("no IOMMU units"), not a failure
        self.with_text = with_text  # the function also gets the raw text (rows, text)
        self.partial = partial  # text of a run that did not finish -> the facts it still tells
        # the output carries lines of programs that are not ours (a training script's prints): bytes there
        # that are not text do not make the answer unreadable
        self.foreign_text = foreign_text

    def __repr__(self):
        return "Parser(%r, kind=%r)" % (self.name, self.kind)


def parser(name, description, **options):
    """Register the decorated function as parser ``name`` (see Parser for the options)."""
    def register(function):
        if name in PARSERS:
            raise ValueError("parser %s is registered twice" % name)
        PARSERS[name] = Parser(name, description, function, **options)
        return function
    return register


def _ntc_template_dir():
    try:
        import ntc_templates  # pylint: disable=import-outside-toplevel
    except ImportError:
        return None
    return os.path.join(os.path.dirname(ntc_templates.__file__), "templates")


def template_path(name):
    """The template a textfsm parser reads (ours, or ntc-templates' where it parses right); None for other kinds."""
    entry = PARSERS[name]
    if entry.template is None:
        return None
    own = os.path.join(TEMPLATE_DIR, entry.template + ".textfsm")
    if not entry.ntc or os.path.exists(own):
        return own
    ntc_dir = _ntc_template_dir()
    return os.path.join(ntc_dir, entry.template + ".textfsm") if ntc_dir else own


class TableRows(Sequence):
    """TextFSM's table as rows of {lowercase key: value}, each row's dict made when the parser reads it, so the table
    is never held whole as dicts (issue 40): 200,000 lines of NX-OS routes (9 MB) held 324 MB as TextFSM's dicts and
    their lowercase copies, 83 MB read this way (bench/big_outputs.py)."""

    __slots__ = ("_keys", "_table")

    def __init__(self, keys, table):
        self._keys, self._table = keys, table

    def __len__(self):
        return len(self._table)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return TableRows(self._keys, self._table[index])
        return dict(zip(self._keys, self._table[index]))

    def __iter__(self):
        keys = self._keys
        return (dict(zip(keys, row)) for row in self._table)


def table_rows(name, text):
    """The TextFSM rows of one output as a TableRows (what a textfsm parser's function reads)."""
    entry = PARSERS[name]
    if entry.prepare:
        text = entry.prepare(text)
    with open(template_path(name), encoding="utf-8") as handle:
        fsm = textfsm.TextFSM(handle)
    return TableRows(tuple(key.lower() for key in fsm.header), fsm.ParseText(text))


def textfsm_rows(name, text):
    """Raw TextFSM rows as dicts with lowercase keys (what fixtures hold)."""
    return list(table_rows(name, text))


def parse(name, text):
    """Typed facts of one output, or ParseError saying why the output is not a complete answer."""
    entry = PARSERS.get(name)
    if entry is None:
        raise ParseError("unknown parser %r" % name)
    text = _ANSI.sub("", (text or "").replace("\r\n", "\n"))
    if not text.strip() and not entry.empty_ok:
        raise ParseError("%s: empty output" % name)
    too_big = _too_big(text, lines=entry.kind != "json") or (None if entry.foreign_text else _not_text(text))
    if too_big:
        raise ParseError("%s: %s" % (name, too_big))
    try:
        return _plausible(_facts(entry, name, text))
    except ParseError:
        raise
    except ValueError as exc:
        raise ParseError("%s: %s" % (name, exc))
    except Exception as exc:  # pylint: disable=broad-exception-caught
        # a line no parser rule foresaw (damage) must not escape as a traceback that loses the host's whole layer:
        # it is an ERROR about this read, naming the parser and what it met
        raise ParseError("%s: output the parser could not read (%s: %s)" % (name, type(exc).__name__, exc))


def _facts(entry, name, text):
    if entry.kind == "text":
        return entry.function(text)
    if entry.kind == "json":
        return _json(entry, text)
    if textfsm is None:
        raise ParseError("%s: the textfsm Python package is not installed on the controller (%s)" % (name, TEXTFSM_IMPORT_ERROR))
    try:
        rows = table_rows(name, text)
    except textfsm.TextFSMError as exc:
        raise ParseError("%s: %s" % (name, exc))
    return entry.function(rows, text) if entry.with_text else entry.function(rows)


_MAX_COUNTER = 2 ** 64  # no counter, size or rate these tools print is wider than 64 bits


def _plausible(facts):
    """The facts, once no number in them is beyond what the tool can print (wider than 64 bits, NaN or
    infinite): such a number is damage, and a judge comparing it would pass or fail on nothing."""
    stack = [(facts, ())]
    while stack:
        value, path = stack.pop()
        if isinstance(value, dict):
            stack.extend((item, path + (key,)) for key, item in value.items())
        elif isinstance(value, list):
            stack.extend((item, path + (index,)) for index, item in enumerate(value))
        elif isinstance(value, float) and not math.isfinite(value) or isinstance(value, (int, float)) and not isinstance(value, bool) \
                and abs(value) >= _MAX_COUNTER:
            raise ValueError("%s is %r: no figure this tool prints" % ("/".join(str(part) for part in path) or "the value", value))
    return facts


def _too_big(text, lines=True):
    """Why the text is beyond what a parser reads (an output or a line too long), or None."""
    if len(text) > MAX_OUTPUT_CHARS:
        return "output of %d characters, more than the %d a report of this command runs to" % (len(text), MAX_OUTPUT_CHARS)
    if lines and len(text) > MAX_LINE_CHARS:
        longest = max(text.splitlines(), key=len)
        if len(longest) > MAX_LINE_CHARS:
            return "a line of %d characters (%r...): not a line of this command's report" % (len(longest), longest[:40])
    return None


def _not_text(text):
    """Where the output holds bytes that were not UTF-8 (the collect module shows each as U+FFFD), or None.
    A vendor tool prints text: such bytes mean a damaged read, and the line they fall in may no longer
    match its rule, so the facts around them cannot be trusted to be complete."""
    at = text.find("\ufffd")
    what = "bytes that are not UTF-8 text"
    control = _CONTROL.search(text)
    if control and (at < 0 or control.start() < at):
        # a NUL or another control character: no tool prints one in its report (a NUL in an LLDP port id read as
        # another port, a miscabling that is only damage)
        at, what = control.start(), "a control character (%r)" % control.group(0)
    if at < 0:
        return None
    line = text.count("\n", 0, at) + 1
    return "%s in line %d (%r): a damaged output, not this command's report" % (what, line, text.splitlines()[line - 1][:60])


_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")  # C0 controls but tab, line feed and carriage return; DEL


def partial(name, text):
    """What the output of a run that did not finish still tells (e.g. the ranks that started), or None."""
    entry = PARSERS.get(name)
    if entry is None or entry.partial is None or not text or _too_big(text):
        return None
    return entry.partial(_ANSI.sub("", text.replace("\r\n", "\n")))


def _control_in(document):
    """(character, string) for the first key or string value that holds a control character, or None. JSON escapes
    one (\\u0000), so the raw text's check (_not_text) does not see it: decoded, a NUL in a port name is the same
    damage as in a text report."""
    stack = [document]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, str):
            found = _CONTROL.search(item)
            if found:
                return found.group(0), item[:60]
    return None


def _json(entry, text):
    try:
        document = json.loads(text)
    except (ValueError, RecursionError) as exc:  # RecursionError: brackets nested past the decoder's depth (garbage)
        first = text.strip().splitlines()[0] if text.strip() else ""
        why = exc if isinstance(exc, ValueError) else "nested deeper than any report"
        raise ValueError("not a JSON document (%s): %r" % (why, first[:120]))
    control = _control_in(document)
    if control:
        raise ValueError("a JSON string holds a control character (%r in %r): a damaged output, not this command's report" % control)
    try:
        return entry.function(document)
    except (KeyError, TypeError, AttributeError) as exc:  # a document of another shape: an error reply, say
        raise ValueError("the JSON document has another shape (%s: %s)" % (type(exc).__name__, exc))
