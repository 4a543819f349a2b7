"""No status decided outside judging/ (issue 69): the runners move data and record what judges decide; the report
reads verdicts. A status written in plugins/plugin_utils/run/*.py or report/*.py may only be read: compared with
(``record["status"] == PASS``, ``status in (FAIL, ERROR)``), a set of statuses to filter with, a key of what is shown or
counted for a status. Any other use (an argument, a dict's value, a return, an assignment) decides one, and belongs in judging/: the
verdicts a runner records where no judge could measure (not run, not applicable, no data) are judging/unjudged.py's."""

import ast
import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FOLDERS = ("plugins/plugin_utils/run", "plugins/plugin_utils/report")
STATUSES = frozenset(("PASS", "FAIL", "ERROR", "SKIP", "BLOCKED"))


def _is_status(node):
    return (isinstance(node, ast.Name) and node.id in STATUSES) or (
        isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in STATUSES)


def _read_only(tree):
    """The ids of the status nodes that are only read: compared with, a subscript's key, or a module constant's set."""
    allowed = set()

    def allow(node):
        if _is_status(node):
            allowed.add(id(node))
        elif isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            for element in node.elts:
                allow(element)
        elif isinstance(node, ast.Call) and getattr(node.func, "id", None) in ("frozenset", "set", "tuple") and node.args:
            allow(node.args[0])

    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            for operand in [node.left] + node.comparators:
                allow(operand)
        elif isinstance(node, ast.Subscript):
            allow(node.slice)
        elif isinstance(node, (ast.Tuple, ast.List, ast.Set)):  # a set of statuses is a filter to read with
            allow(node)
        elif isinstance(node, ast.Dict):  # a status as a key: what is shown or counted for it
            for key in node.keys:
                allow(key)
    return allowed


def decided_in(source):
    """[(line, what)] where Python ``source`` writes a status other than to read one, or imports the verdict maker."""
    tree = ast.parse(source)
    allowed = _read_only(tree)
    found = [(node.lineno, node.id if isinstance(node, ast.Name) else node.value) for node in ast.walk(tree)
             if _is_status(node) and id(node) not in allowed]
    found += [(node.lineno, "import verdict") for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
              and (node.module or "").endswith("core.model") and any(alias.name == "verdict" for alias in node.names)]
    return sorted(found)


def test_the_scan_tells_a_status_read_from_one_decided():
    source = ('HELD = (FAIL, ERROR)\nif r["status"] == PASS or r["status"] in HELD or s in (SKIP, "ERROR"):\n'
              '    n = counts[FAIL] + first(records, (SKIP,)) + len({PASS: "pass"})\nout = verdict(SKIP, "x", "y")\n'
              'record["status"] = ERROR\nx = {"status": "PASS"}\nfrom ..core.model import FAIL, verdict\n')
    assert decided_in(source) == [(4, "SKIP"), (5, "ERROR"), (6, "PASS"), (7, "import verdict")]


def test_no_status_decided_in_the_runners_or_the_report():
    found = []
    for folder in FOLDERS:
        for name in sorted(os.listdir(os.path.join(ROOT, folder))):
            if name.endswith(".py"):
                with open(os.path.join(ROOT, folder, name), encoding="utf-8") as handle:
                    found += ["%s/%s:%d %s" % (os.path.basename(folder), name, line, status)
                              for line, status in decided_in(handle.read())]
    assert not found, "statuses decided outside judging/ (a judge's, or judging/unjudged.py's): %s" % found
