"""The production path, for damaged outputs: collected record -> parse_one -> counter window -> judge.

Every call here is the one the engine makes in production (run/layer.py run(), action
fabric): a collected source is a record as the collect module returns it ({"status": "ok",
"stdout", "command", "way", "rc"}), parsed by engine.parse_one; a counters source is windowed by
run/counters.windows against a snapshot; a host check is judged by engine.judge_host, a pod check
by engine.judge_pod, a fabric check by engine.run_judge around its fabric judge as the straggler hunt
does, a mesh check (one run between two nodes on one rail) by engine.run_judge as run/rail_mesh
does. Nothing is caught here: an exception that escapes is the finding.

The corpus of intact outputs is the judge data tables (tests/unit/judge_data/<module>/*.py): every row whose
verdict is PASS on every host and that gives raw tool output. Each raw output of such a row is a slot
to damage (one at a time, the rest of the row intact).

Judged facts: what a judge read of its facts. trace() runs the judge once more on facts wrapped so
that every read is recorded (a key looked up, a list's length, a value compared); two runs judged the
same facts when their records are equal. A damaged PASS on other judged facts is a false PASS, while
a damaged fact the judge never looked at (an unrelated module cut from lsmod) is not. Reads of a
source the check declares in `names_from` (read only to name what it found) are left out of that
comparison when the damaged status equals the intact one: damage there may rename, never re-judge.
"""

import copy
import functools
import math
import os
import signal
import time

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils import judging as _judging
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import counters as _counters
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import incast_reads as _incast_reads
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog, expectations as _expectations
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import engine as _engine
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core.model import PASS, SourceFailure
from ansible_collections.gpufabric.pyramid.tests.unit.judge_data import tables as judge_data_tables

CATALOG = _catalog.load_catalog()
CHECKS = {check["id"]: check for check in CATALOG["checks"]}
FIXTURES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "unit", "parsers")
HOST = "node-001"
PARSE_CPU_SECONDS = 2.0  # a parse of a bounded input (100 kB at most) that takes longer is a finding


class TooSlow(BaseException):
    """A parse ran out of its CPU time (BaseException: no `except Exception` in product code eats it)."""


class cpu_limit:  # pylint: disable=invalid-name
    """Raise TooSlow in the code under test once the process has spent ``seconds`` of CPU time in it
    (ITIMER_PROF: a loaded machine does not make a fast parser look slow). SRE checks signals, so a
    runaway regex is interrupted too."""

    def __init__(self, seconds, what):
        self.seconds, self.what = seconds, what
        self.previous, self.started, self.spent = None, 0.0, 0.0

    def _fire(self, signum, frame):
        raise TooSlow("%s: more than %.1f s of CPU time" % (self.what, self.seconds))

    def __enter__(self):
        self.previous = signal.signal(signal.SIGPROF, self._fire)
        self.started = time.process_time()
        signal.setitimer(signal.ITIMER_PROF, self.seconds)
        return self

    def __exit__(self, *exc):
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, self.previous)
        self.spent = time.process_time() - self.started
        return False


# --- the corpus -------------------------------------------------------------------------------

def fixtures():
    """{parser: [(case, text)]} of every tests/unit/parsers/<parser>/<case>.raw."""
    found = {}
    for parser in sorted(os.listdir(FIXTURES)):
        folder = os.path.join(FIXTURES, parser)
        if os.path.isdir(folder):
            for name in sorted(os.listdir(folder)):
                if name.endswith(".raw"):
                    with open(os.path.join(folder, name), encoding="utf-8", newline="") as handle:
                        found.setdefault(parser, []).append((name[:-4], handle.read()))
    return found


def _rows():
    for name, table in judge_data_tables.tables().items():  # by name: one check's rows keep their order, so slots() picks as it did
        for row in table.DATA:
            yield name, row


def _all_pass(row):
    status = row["status"]
    return all(value == PASS for value in status.values()) if isinstance(status, dict) else status == PASS


def _leaves(value, path=()):
    """(path, parser, text) of every raw text in a row's raw value: a text, (parser, text), {item: ...},
    or a counters source's {"before": ..., "after": ..., "seconds": s}."""
    if isinstance(value, str):
        yield path, None, value
    elif isinstance(value, tuple):
        yield path, value[0], value[1]
    elif isinstance(value, dict):
        for key, item in value.items():
            if key != "seconds":
                yield from _leaves(item, path + (key,))


class Slot:
    """One raw output of a healthy (all-PASS) judge data row, to damage with the rest intact."""

    def __init__(self, table, row, host, source):
        self.table, self.row, self.host, self.source = table, row, host, source
        self.check = CHECKS[row["check"]]
        raw = row["raw"][host] if host else row["raw"]
        self.leaves = list(_leaves(raw[source]))

    @property
    def streamed(self):
        """Whether the source's output is a command's stdout (run, or a switch CLI), which can be cut or
        carry error text. A `read` or `list` way is read by the collect module itself (open().read(),
        os.listdir()): whole, or a failed status, so read damage does not apply to it (a cut listing is
        indistinguishable from a smaller directory, and an empty /sys/class/iommu is a real FAIL)."""
        source = CATALOG["sources"][self.source]
        parsers = {leaf[1] for leaf in self.leaves}
        ways = [way for way in source["ways"] if way["parser"] in parsers] or source["ways"][:1]
        return all("run" in way or "cli" in way for way in ways)

    @property
    def id(self):
        return "%s: %s [%s%s]" % (self.row["check"], self.row["name"], "%s/" % self.host if self.host else "", self.source)

    def __repr__(self):
        return "Slot(%s)" % self.id


SLOTS_OF_A_KIND = 2  # twelve real H100 training logs of one format and one inventory: two are damaged


def slots():
    found, kinds = [], {}
    for table, row in _rows():
        if not row.get("raw") or not _all_pass(row):
            continue
        if CHECKS[row["check"]]["scope"] == "pod":
            candidates = [Slot(table, row, host, source) for host in sorted(row["raw"]) for source in sorted(row["raw"][host])]
        else:
            candidates = [Slot(table, row, None, source) for source in sorted(row["raw"])]
        for slot in candidates:
            kind = (slot.check["id"], slot.host, slot.source, tuple(sorted({leaf[1] or "" for leaf in slot.leaves})),
                    repr(sorted(row.get("expect", {}).items(), key=repr)), tuple(sorted(row.get("facts", {}))))
            kinds[kind] = kinds.get(kind, 0) + 1
            if kinds[kind] <= SLOTS_OF_A_KIND:
                found.append(slot)
    return found


# --- the production path ------------------------------------------------------------------------

def expectations(overrides):
    values, errors = _expectations.resolve(CATALOG, overrides)
    assert not errors, errors
    return values


def _parser(source, parser, expect):
    """The parser a collected output of ``source`` names: ``parser`` (a capture in a format the catalog no longer
    plans, EOS text tables read as `| json` since, is still parsed by its own registered parser and must hold to
    the same promises), else the first planned way's."""
    return parser or _engine._ways(source, expect)[0]["parser"]  # pylint: disable=protected-access


def command_of(name, expect, item=None):
    """The command line the collect module reports for a source (the planned one, its item filled in)."""
    command = _engine.commands_of({"sources": [name]}, CATALOG, expect)
    return command.replace("<%s>" % _engine.foreach_of(CATALOG["sources"][name], expect), str(item)) if item else command


def collected(text, parser, command):
    """A collected source as the collector returns it (engine.answered: it names its parser): the command answered, exit 0."""
    return {"status": "ok", "parser": parser, "command": command, "rc": 0, "stdout": text, "stderr": "", "msg": "",
            "attempts": ["%s: ok" % command]}


def parse_text(name, parser, text, expect, item=None):
    """engine.parse_one of one collected output of source ``name``, under the CPU limit."""
    source = CATALOG["sources"][name]
    command = command_of(name, expect, item)
    with cpu_limit(PARSE_CPU_SECONDS, "%s parsing %d characters" % (parser or name, len(text))):
        return _engine.parse_one(collected(text, _parser(source, parser, expect), command))


def _source_facts(name, raw, expect, replaced):
    """Facts of one source of a row: ``raw`` as the row gives it; ``replaced``: {leaf path: text}."""
    def parsed(value, path, item=None):
        parser, text = value if isinstance(value, tuple) else (None, value)
        return parse_text(name, parser, replaced.get(path, text), expect, item)

    def one(value, path):
        if isinstance(value, dict):  # a foreach source: item -> output
            return {item: parsed(text, path + (item,), item) for item, text in value.items()}
        return parsed(value, path)

    if CATALOG["sources"][name].get("counters"):
        before, after = one(raw["before"], ("before",)), one(raw["after"], ("after",))
        doc = {"snapshot": {"at": time.time() - raw["seconds"], "facts": _engine.serializable_facts({name: before})}}
        facts = {name: after}
        _counters.windows(facts, [name], doc)  # as run_layer windows a counters source against its snapshot
        return facts[name]
    return one(raw, ())


def host_facts(row_facts, row_raw, expect, source=None, replaced=None):
    facts = copy.deepcopy(row_facts or {})
    for name, raw in (row_raw or {}).items():
        value = _source_facts(name, raw, expect, (replaced or {}) if name == source else {})
        if isinstance(value, dict) and isinstance(facts.get(name), dict) and _engine.foreach_of(CATALOG["sources"][name], expect) \
                and not CATALOG["sources"][name].get("counters"):
            value = dict(facts[name], **value)  # row facts for some items, raw output for others
        facts[name] = value
    return facts


def judge(slot, replaced=None):
    """{host: result} of the slot's row through the production path; ``replaced``: {leaf path: damaged text}."""
    row, check = slot.row, slot.check
    expect = expectations(row.get("expect", {}))
    if check["scope"] == "pod":
        hosts = sorted(set(row.get("facts", {})) | set(row.get("raw", {})))
        facts_by_host = {host: host_facts(row.get("facts", {}).get(host), row.get("raw", {}).get(host), expect,
                                          slot.source if host == slot.host else None, replaced) for host in hosts}
        return _engine.judge_pod(check, CATALOG, facts_by_host, {host: expect for host in hosts}), facts_by_host, expect
    if check["scope"] == "incast":  # InfiniBand's incast: the fabric host's reads at each label (run/incast_infiniband.py)
        reads = incast_reads(row, expect, replaced or {})
        outcome = _judging.JUDGES["incast"][check["judge"]]({"group": row["group"], "reads": reads}, expect)
        record = _engine.record_of(HOST, check, CATALOG, expect, _judging.incast_infiniband.target_verdict(outcome, expect))
        return {"-": record}, reads, expect
    facts = host_facts(row.get("facts"), row.get("raw"), expect, slot.source, replaced)
    if check["scope"] == "fabric":  # as action fabric judges one run of a group
        (name,) = check["sources"]
        judge_function = _judging.JUDGES["fabric"][check["judge"]]
        outcome = _engine.run_judge(check, judge_function, {"run": facts[name], "group": list(row["group"]), "platforms": CATALOG["platforms"]},
                                    _engine.declared(check, expect))
        return {"-": outcome}, facts, expect
    if check["scope"] == "rail_mesh":  # one run between two nodes on one rail, as run/rail_mesh.measured judges it
        outcome = _engine.run_judge(check, _judging.JUDGES["rail_mesh"][check["judge"]], facts[check["sources"][0]], expect)
        return {"-": _engine.result(HOST, check, CATALOG, expect, outcome["status"], outcome["expected"], outcome["actual"])}, facts, expect
    return {"-": _engine.judge_host(HOST, check, CATALOG, facts, expect)}, facts, expect


def incast_reads(row, expect, replaced):
    """An InfiniBand incast row's reads as the verdict phase hands them to the judge: each label's ibqueryerrors
    parsed, a failed read said in words (incast_reads.as_input); ``replaced``: {(label,): damaged text}."""
    (name,) = row["raw"]
    reads = {}
    for label, value in row["raw"][name].items():
        parser, text = value if isinstance(value, tuple) else (None, value)
        reads[label] = _incast_reads.as_input(parse_text(name, parser, replaced.get((label,), text), expect))
    reads["seconds"] = row.get("seconds", {"load": 17.4, "settle": 2.2})
    return reads


@functools.lru_cache(maxsize=None)
def _intact(slot):
    results, facts, expect = judge(slot)
    return results, trace(slot, facts, expect)[1]


def intact(slot):
    return _intact(slot)


# --- judged facts ------------------------------------------------------------------------------

def _shown(value):
    """A value as recorded: NaN equals NaN, 1 differs from 1.0 and True."""
    if isinstance(value, float) and math.isnan(value):
        return "float:nan"
    if isinstance(value, SourceFailure):
        return "SourceFailure"
    if isinstance(value, (dict, list, tuple)):
        return "%s:%r" % (type(value).__name__, [_shown(item) for item in (sorted(value.items(), key=repr) if isinstance(value, dict) else value)])
    return "%s:%r" % (type(value).__name__, value)


class Reads:
    """What a judge read: a set of (path, what, value). Containers record what was asked of them (keys,
    length, membership, equality); a scalar, None or a SourceFailure is recorded where it was taken."""

    def __init__(self):
        self.seen = set()

    def wrap(self, value, path):
        if isinstance(value, dict):
            return _TracedDict(self, path, value)
        if isinstance(value, list):
            return _TracedList(self, path, value)
        return value

    def took(self, path, key, value):
        if not isinstance(value, (dict, list)):
            self.seen.add((path, "value", repr(key), _shown(value)))
        return self.wrap(value, path + (repr(key),))

    def note(self, path, what, value):
        self.seen.add((path, what, "", _shown(value)))


class _TracedDict(dict):
    def __init__(self, reads, path, value):
        super().__init__(value)
        self._reads, self._path = reads, path

    def __getitem__(self, key):
        if not dict.__contains__(self, key):
            self._reads.note(self._path, "missing", key)
        return self._reads.took(self._path, key, dict.__getitem__(self, key))

    def get(self, key, default=None):
        if not dict.__contains__(self, key):
            self._reads.note(self._path, "missing", key)
            return default
        return self[key]

    def __contains__(self, key):
        self._reads.note(self._path, "has %r" % (key,), dict.__contains__(self, key))
        return dict.__contains__(self, key)

    def _keys(self):
        self._reads.note(self._path, "keys", sorted(dict.keys(self), key=repr))
        return list(dict.keys(self))

    def __iter__(self):
        return iter(self._keys())

    def keys(self):
        return self._keys()

    def values(self):
        return [self[key] for key in self._keys()]

    def items(self):
        return [(key, self[key]) for key in self._keys()]

    def __len__(self):
        self._reads.note(self._path, "len", dict.__len__(self))
        return dict.__len__(self)

    def __eq__(self, other):
        self._reads.note(self._path, "equals", dict(self))
        return dict.__eq__(self, other)

    def __ne__(self, other):
        return not self == other

    __hash__ = None


class _TracedList(list):
    def __init__(self, reads, path, value):
        super().__init__(value)
        self._reads, self._path = reads, path

    def __getitem__(self, index):
        if isinstance(index, slice):
            self._reads.note(self._path, "slice %r" % (index,), list.__getitem__(self, index))
            return list.__getitem__(self, index)
        return self._reads.took(self._path, index, list.__getitem__(self, index))

    def __iter__(self):
        self._reads.note(self._path, "len", list.__len__(self))
        return iter([self[index] for index in range(list.__len__(self))])

    def __len__(self):
        self._reads.note(self._path, "len", list.__len__(self))
        return list.__len__(self)

    def __contains__(self, value):
        self._reads.note(self._path, "has %r" % (value,), list.__contains__(self, value))
        return list.__contains__(self, value)

    def __eq__(self, other):
        self._reads.note(self._path, "equals", list(self))
        return list.__eq__(self, other)

    def __ne__(self, other):
        return not self == other

    __hash__ = None


def trace(slot, facts, expect):
    """(status per host, what the judge read) of the slot's check on ``facts``: the judge called as the
    engine calls it, on traced facts; a judge that raises read what it read before it raised."""
    check, reads = slot.check, Reads()
    try:
        if check["scope"] == "pod":
            judged = {}
            for host, host_facts_ in facts.items():
                inputs, failures = _engine.check_inputs(check, CATALOG, host_facts_, expect)
                if not failures:
                    judged[host] = inputs
            outcome = _judging.JUDGES["pod"][check["judge"]](reads.wrap(judged, ()), {host: _engine.declared(check, expect) for host in judged})
            statuses = {host: verdict["status"] for host, verdict in outcome.items()}
        elif check["scope"] == "fabric":
            (name,) = check["sources"]
            judge = _judging.JUDGES["fabric"][check["judge"]]
            outcome = judge({"run": reads.wrap({name: facts[name]}, ())[name], "group": list(slot.row["group"]), "platforms": CATALOG["platforms"]},
                            _engine.declared(check, expect))
            statuses = {"-": outcome["status"]}
        elif check["scope"] == "incast":
            statuses = {"-": _judging.JUDGES["incast"][check["judge"]]({"group": slot.row["group"], "reads": reads.wrap(facts, ())}, expect)["status"]}
        elif check["scope"] == "rail_mesh":
            name = check["sources"][0]
            statuses = {"-": _judging.JUDGES["rail_mesh"][check["judge"]](reads.wrap({name: facts[name]}, ())[name], expect)["status"]}
        else:
            inputs, failures = _engine.check_inputs(check, CATALOG, facts, expect)
            if failures:
                return {"-": "ERROR"}, frozenset()
            statuses = {"-": _judging.JUDGES["host"][check["judge"]](reads.wrap(inputs, ()), _engine.declared(check, expect))["status"]}
    except Exception as exc:  # pylint: disable=broad-exception-caught
        statuses = {"-": "raised %s" % type(exc).__name__}
    return statuses, frozenset(reads.seen)


def differences(intact_reads, damaged_reads, naming=(), pod=False):
    """What the judge read differently: (only in the intact run, only in the damaged run), leaving out a
    None or SourceFailure taken where the other run read nothing under that path (an optional source
    that failed and that the judge did not look at), and every read under a source of ``naming``: the
    check's names_from (sources read only to name what was found: nvidia-smi -q naming the GPU of an
    Xid). The caller passes ``naming`` only where the damaged verdict's status equals the intact one's,
    so damage there may change the wording of a verdict, never its status. ``pod``: the reads are keyed
    by host first (a pod judge's)."""
    def idle(record, other):
        path, what, key, value = record
        if what != "value" or value not in ("SourceFailure", "NoneType:None"):
            return False
        below = path + (key,)
        return not any(seen[0][:len(below)] == below for seen in other)

    names = {repr(name) for name in naming}

    def naming_read(record):
        path, what, key, _value = record
        path = path[1:] if pod else path
        if path:
            return path[0] in names
        return key in names or any(what == "has %s" % name for name in names)  # the source itself, or `in`

    only_damaged = {record for record in damaged_reads - intact_reads if not idle(record, intact_reads) and not naming_read(record)}
    only_intact = {record for record in intact_reads - damaged_reads if not idle(record, damaged_reads) and not naming_read(record)}
    return sorted(only_intact, key=repr), sorted(only_damaged, key=repr)
