"""No check id and no source name written in the runners' or the report's Python (issue 69): what a check of a kind
does beyond its kind's run (the round that runs it, the picture drawn of it, the sources an incast reads and the
names its judge takes them by) is a key of the check in the catalog (catalog/kinds.yml check_fields), read from there.

Every string literal of plugins/plugin_utils/run/*.py and report/*.py is compared with the catalog's check ids and
source names; the exceptions below are the honest ones, each with why."""

import ast
import os

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FOLDERS = ("plugins/plugin_utils/run", "plugins/plugin_utils/report")
# (file, literal): why it is no check's id or source's name written in code
EXCEPTIONS = {
    # discovery judges nothing (it writes a plan for review), so no check can say what it reads (run/discover.py)
    ("run/discover.py", "sw_lldp"): "discovery's read of the switches' LLDP neighbours",
    ("run/discover.py", "sw_bgp"): "discovery's read of the switches' BGP sessions",
    ("run/discover.py", "sw_routes"): "discovery's read of the switches' BGP routes",
    # the same word as Layer 0's check of GPUDirect, meaning another thing
    ("run/rail_mesh.py", "gpudirect"): "the mesh plan's key of a rail's run from GPU memory",
    ("run/rail_mesh_phases.py", "gpudirect"): "the mesh plan's key of a rail's run from GPU memory",
    ("report/html.py", "gpudirect"): "the name of the GPUDirect picture (catalog/rail_mesh.yml picture), its short title",
    ("run/mlxconfig_changes.py", "mlxconfig"): "the command mlxconfig's argv, not Layer 0's check of that name",
}


def named_in(source, names):
    """[(line, literal)] of the string literals of Python ``source`` that are one of ``names``."""
    return sorted((node.lineno, node.value) for node in ast.walk(ast.parse(source))
                  if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in names)


def _names():
    catalog = _catalog.load_catalog()
    return {check["id"] for check in catalog["checks"]} | set(catalog["sources"])


def test_the_scan_finds_a_check_id_and_a_source_name_written_as_a_string():
    names = _names()
    assert named_in('ROUNDS = {"nccl_pairs": 1}\nread(["sw_pfc"])\n"""nccl_pairs, in words"""', names) == [
        (1, "nccl_pairs"), (2, "sw_pfc")]


def test_no_check_id_or_source_name_in_the_runners_or_the_report():
    names, found, used = _names(), [], set()
    for folder in FOLDERS:
        for name in sorted(os.listdir(os.path.join(ROOT, folder))):
            if not name.endswith(".py"):
                continue
            where = "%s/%s" % (os.path.basename(folder), name)
            with open(os.path.join(ROOT, folder, name), encoding="utf-8") as handle:
                for line, literal in named_in(handle.read(), names):
                    if (where, literal) in EXCEPTIONS:
                        used.add((where, literal))
                    else:
                        found.append("%s:%d %r" % (where, line, literal))
    assert not found, "check ids or source names written in code (a key of the check in the catalog instead): %s" % found
    assert used == set(EXCEPTIONS), "exceptions no longer needed: %s" % sorted(set(EXCEPTIONS) - used)


# The plan is drawn from each kind's declaration (catalog/kinds.yml planned_by): the parts that make and print it
PLAN_FILES = ("plugins/plugin_utils/run/plan.py", "plugins/plugin_utils/report/plan_markdown.py")


def test_the_plan_names_no_kind_and_imports_no_kinds_planner():
    """No kind's name as a string and no kind's planner imported in the plan's own code: a kind is planned by its
    declaration's planned_by, so a new kind with a planner is planned without touching these files."""
    kinds = _catalog.kinds()
    planners = {kind["planned_by"] for kind in kinds.values() if kind.get("planned_by")}
    assert planners, "no kind declares its planner"
    for path in PLAN_FILES:
        with open(os.path.join(ROOT, path), encoding="utf-8") as handle:
            tree = ast.parse(handle.read())
        assert not named_in(ast.unparse(tree), set(kinds)), "%s names a kind: %s" % (path, named_in(ast.unparse(tree), set(kinds)))
        imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) for alias in node.names}
        assert not imported & planners, "%s imports a kind's planner: %s" % (path, sorted(imported & planners))


def test_no_runner_looks_a_judge_up_by_a_kinds_name():
    """A runner asks for a check's judge by the check (judging/registry.py judge_of: its own kind's table), never
    ``JUDGES["<kind>"]``: the kind is the check's ``scope``, said once in the catalog."""
    found = []
    for folder in FOLDERS:
        for name in sorted(os.listdir(os.path.join(ROOT, folder))):
            if not name.endswith(".py"):
                continue
            with open(os.path.join(ROOT, folder, name), encoding="utf-8") as handle:
                tree = ast.parse(handle.read())
            found += ["%s/%s:%d" % (os.path.basename(folder), name, node.lineno) for node in ast.walk(tree)
                      if isinstance(node, ast.Subscript) and getattr(node.value, "attr", getattr(node.value, "id", None)) == "JUDGES"
                      and isinstance(node.slice, ast.Constant)]
    assert not found, "a judge looked up by a kind's name (judge_of(check) instead): %s" % found
