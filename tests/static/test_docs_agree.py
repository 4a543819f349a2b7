"""The user docs say what the catalog and the code do, and nothing a user cannot follow.

Each test reads the catalog or runs the code and holds the pages to it: an unchecked go-live row (the incast not asked
for, no Prometheus URL) holds no device back but makes the pod NO-GO unless waived; EOS is read as JSON first; the
IOMMU row claims only what its check reads (ACS is not read, and is left off for GPUDirect); Layer 4 runs two rounds
whatever the pod's size; no page points at a runbook, a seed or an issue the reader does not have.
"""

import glob
import importlib.util
import os
import re

import pytest

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import model as _model
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import results as _results
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.report import go_no_go as _report
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import rail_rounds as _rounds

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CATALOG = _catalog.load_catalog()
# Pages for the project's developers, where the history (issues, the seeds the checks came from) is the point.
DEVELOPER_PAGES = {"docs/adding-a-check.md", "docs/robustness.md", "docs/lab.md"}
USER_PAGES = sorted({"README.md"} | {os.path.relpath(path, ROOT) for path in glob.glob(os.path.join(ROOT, "docs", "*.md"))}
                    - DEVELOPER_PAGES)
INTERNAL = re.compile(r"\b[Ss]eed 0\d\d\b|\b[Ss]eed \d\d\d's\b|\bthe seed(?:'s)?\b|node-047 RCA|\bRCA's\b|\b[Ii]ssue \d+\b|"
                      r"Phase \d|Configure the hosts →")
# References left on purpose, each with why; anything else fails.
KNOWN = {
    # the end-to-end tests (tests/e2e/test_remediate_node047.py, test_validate_roce_host.py) read "node-047" in
    # these two causes; they go when those expectations do
    "docs/checks.md": ["(node-047 RCA)", "(the node-047 RCA)"],
    "docs/stack.md": ["(seed 003)"],  # the pinned stack's page, owned by that work
}


def _read(page):
    with open(os.path.join(ROOT, page), encoding="utf-8") as handle:
        return handle.read()


def _gen_docs():
    spec = importlib.util.spec_from_file_location("gen_docs", os.path.join(ROOT, "scripts", "gen_docs.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("page", USER_PAGES)
def test_no_reference_a_user_cannot_follow(page):
    text = _read(page)
    for known in KNOWN.get(page, []):
        text = text.replace(known, "")
    found = [line.strip()[:160] for line in text.splitlines() if INTERNAL.search(line)]
    assert not found, found


def test_the_catalog_points_at_what_to_do_not_at_a_runbook():
    for check in CATALOG["checks"]:
        assert not re.search(r"Phase \d|Configure the hosts", check["go_back_to"]), (check["id"], check["go_back_to"])


def _gpu_node_run(tmp_path, waive):
    """A real-catalog report of one GPU node that passed every check but the two a run can leave unchecked."""
    not_checked = {"incast_ecn": "pyramid_incast is false", "telemetry_signals": "no Prometheus URL (pyramid_prometheus_url)"}
    records = []
    for check in _catalog.checks_for(CATALOG, "gpu_node"):
        record = {"host": "node-001", "layer": check["layer"], "check": check["id"], "title": check["title"], "row": check["row"],
                  "status": _model.PASS, "expected": "", "actual": "", "cause": "", "go_back_to": "", "command": ""}
        if check["id"] in not_checked:  # what the incast's and telemetry's own code write (run/incast_phases, run/telemetry)
            record.update(status=_model.SKIP, actual="not checked: " + not_checked[check["id"]], not_applicable=True,
                          not_checked=not_checked[check["id"]])
        records.append(record)
    _results.save(str(tmp_path), {"host": "node-001", "results": records, "facts": {}, "expect": {"pyramid_waive": waive}})
    return _report.build(CATALOG, str(tmp_path), {"gpu_node": ["node-001"]})


def test_an_unchecked_go_live_row_holds_no_device_back_but_the_pod_is_no_go_unless_waived(tmp_path):
    switch_rows = [{"row": row["id"], "reason": "the switches are another run's"} for row in CATALOG["rows"]
                   if {c["device"] for c in CATALOG["checks"] if c["row"] == row["id"]} == {"switch"}]
    report = _gpu_node_run(tmp_path / "unwaived", switch_rows)
    assert report["hosts"]["node-001"]["verdict"] == "GO"  # no device is held back...
    assert report["verdict"] == "NO-GO"  # ...but the pod is
    assert {row["row"] for row in report["unchecked_rows"]} == {"qos_load", "telemetry"}
    waived = _gpu_node_run(tmp_path / "waived", switch_rows + [{"row": "qos_load", "reason": "r"}, {"row": "telemetry", "reason": "r"}])
    assert waived["verdict"] == "GO" and not waived["unchecked_rows"]
    # Every page that speaks of it says the same: no device held back, the pod NO-GO unless waived.
    for name in ("pyramid_incast", "pyramid_telemetry_required", "pyramid_waive"):
        description = " ".join(CATALOG["expectations"][name]["description"].split())
        assert "NO-GO" in description and "waive" in description, name
    said = {"README.md": "unless the inventory waives it", "docs/incast.md": "which makes the pod NO-GO unless the inventory waives it",
            "docs/telemetry.md": "but the pod's verdict is NO-GO", "docs/report.md": "makes the pod NO-GO\nunless waived"}
    for page, words in said.items():
        assert words in _read(page), page
    for page in USER_PAGES:
        assert not re.search(r"held against GO|counts against GO", _read(page)), page


def test_the_switch_commands_table_shows_every_way_in_the_order_tried():
    rendered = _gen_docs().render(CATALOG)
    assert rendered == _read("docs/checks.md")
    table = {line.split(" | ")[0].strip("| `").split("`")[0]: line.split(" | ")[1:] for line in rendered.splitlines()
             if line.startswith("| `sw_")}
    json_first = 0
    for name, cells in table.items():
        for platform, cell in zip(_catalog.SWITCH_OSES, cells):
            ways = [way for way in CATALOG["sources"][name]["ways"] if way.get("platform") == platform]
            shown = [way["parser"] for way in ways if "`%s`" % way["parser"] in cell]
            assert shown == [way["parser"] for way in ways], (name, platform, cell)
            positions = [cell.index("`%s`" % parser) for parser in shown]
            assert positions == sorted(positions), (name, platform, cell)
            if platform == "eos" and ways and ways[0].get("cli", "").endswith("| json"):
                assert cell.startswith("`%s`" % ways[0]["cli"].replace("|", "\\|")), (name, cell)
                json_first += 1
    assert json_first >= 5  # EOS is read as JSON (docs/switches.md), and the table shows it
    assert "EOS is read as JSON" in _read("docs/switches.md")


def test_the_iommu_row_claims_what_its_check_reads_and_acs_is_off():
    row = next(row for row in CATALOG["rows"] if row["id"] == "iommu")
    assert "ACS" not in row["title"]
    (check,) = [check for check in CATALOG["checks"] if check["row"] == "iommu"]
    assert "ACS off" in check["go_back_to"]
    texts = [_read(page) for page in USER_PAGES] + [
        " ".join(str(check.get(key, "")).split()) for check in CATALOG["checks"] for key in ("title", "cause", "go_back_to")]
    assert not [text for text in texts if re.search(r"ACS (on|enabled)", text)]


def test_layer4_runs_two_rounds_whatever_the_pod_and_the_docs_say_so():
    for size in (8, 32, 128, 512):
        assert len(_rounds.plan_rounds(["node-%03d" % i for i in range(size)])) == 2, size
    readme = next(line for line in _read("README.md").splitlines() if line.startswith("| L4 |"))
    assert "two rounds of pairs whatever the pod's size" in readme
    scale = next(line for line in _read("docs/scale.md").splitlines() if line.startswith("| 4 |"))
    assert "2 rounds whatever the pod's size" in scale
    assert "plans two rounds" in _read("docs/rail-mesh.md")
    for page in USER_PAGES:  # (the incast's retests have rounds of their own)
        said = [line for line in _read(page).splitlines() if re.search(r"Layer 4|ib_write_bw|rail mesh", line)
                and re.search(r"\b(4|four) (ib_write_bw |rail mesh )?rounds\b", line)]
        assert not said, (page, said)
