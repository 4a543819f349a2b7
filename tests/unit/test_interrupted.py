"""The report of an interrupted run (issue 66), written from a run directory's results files: marked where it stopped,
never GO, written whole or not at all, never over the finished report of a run that ended; and the watch that writes
it when SIGTERM ends the controller (a real signal, in a child process). The real Ctrl-C of validate.yml on the twin
is tests/e2e/test_interrupted_run.py."""

import json
import os
import signal
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog, results as _results
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.report import (
    files as _files, go_no_go as _report, interrupt_watch as _watch, interrupted as _interrupted)

CATALOG = _catalog.load_catalog()
DEVICES = {"gpu_node": ["node-001", "node-002"]}
WHERE = _interrupted.marker(4, "Layer 4 - ib_write_bw on every rail between pairs of nodes (servers listening before clients)",
                            "Run this round's clients - round 1", "SIGINT")


def _judged_up_to(run_dir, host, layer, failing=()):
    """A GPU node's results file as its layers leave it when the run stops before ``layer``: every check below it
    PASS (``failing`` FAIL), the other fabric's checks not applicable, nothing at ``layer`` and above."""
    doc = {"host": host, "results": [], "facts": {}, "expect": {"pyramid_rdma_link_layer": "roce"}}
    records = []
    for check in _catalog.checks_for(CATALOG, "gpu_node"):
        if check["layer"] >= layer:
            continue
        status = "FAIL" if check["id"] in failing else "PASS"
        record = {"host": host, "layer": check["layer"], "check": check["id"], "title": check["title"], "row": check["row"],
                  "status": status, "expected": "e", "actual": "a", "command": "c",
                  "cause": "why" if status == "FAIL" else None, "go_back_to": "there" if status == "FAIL" else None}
        if _catalog.not_applicable(check, doc["expect"]):
            record.update(status="SKIP", not_applicable=True)
        records.append(record)
    _results.record(doc, records)
    _results.save(str(run_dir), doc)


@pytest.fixture(name="run_dir")
def _run_dir(tmp_path):
    run_dir = tmp_path / "20260101T000000Z-abcdef"
    _judged_up_to(run_dir, "node-001", 4)
    _judged_up_to(run_dir, "node-002", 4, failing=("gpudirect",))
    _interrupted.remember_run(str(run_dir), DEVICES, ["node-001", "node-002"])
    return run_dir


def test_an_interrupted_run_is_reported_from_its_directory_marked_where_it_stopped(run_dir):
    report, warnings = _interrupted.write_report(str(run_dir), WHERE)  # the devices from run.json
    assert warnings == []
    saved = json.loads((run_dir / "report.json").read_text())
    assert saved["verdict"] == "NO-GO" and saved["interrupted"]["layer"] == 4
    assert saved["interrupted"]["task"] == "Run this round's clients - round 1" and saved["interrupted"]["signal"] == "SIGINT"
    # what Layers 0-3 judged is there as judged: node-002's FAIL with its cause, node-001's passes
    node1, node2 = saved["hosts"]["node-001"]["checks"], saved["hosts"]["node-002"]["checks"]
    assert {r["status"] for r in node1 if r["layer"] < 4 and not r.get("not_applicable")} == {"PASS"}
    assert [r["check"] for r in node2 if r["status"] == "FAIL"] == ["gpudirect"]
    # what it never reached says so, not "not run in this play"
    above = [r for r in node1 if r["layer"] >= 4]
    assert above and {r["status"] for r in above} == {"SKIP"}
    assert {r["actual"] for r in above} == {'not run: the run was interrupted at layer 4, task "Run this round\'s clients - round 1"'}
    markdown = (run_dir / "report.md").read_text().splitlines()
    assert markdown[0] == "# Go/no-go: NO-GO"
    first_said = next(line for line in markdown if line.startswith("- "))
    assert first_said.startswith('- NO-GO: interrupted at layer 4, task "Run this round\'s clients - round 1" (SIGINT at ')
    assert "interrupted at layer 4" in (run_dir / "report.html").read_text()
    suite = ET.parse(run_dir / "junit.xml").getroot()
    case = suite.find("testcase[@name='interrupted']")
    assert case is not None and case.find("error") is not None and "interrupted at layer 4" in case.find("error").get("message")
    assert int(suite.get("errors")) == len(suite.findall("testcase/error")) and json.loads((run_dir / "interrupted.json").read_text())["layer"] == 4
    assert report["summary"]["hosts"] == 2 and not list(run_dir.glob(".*.tmp"))


def test_a_run_whose_every_host_passed_what_it_reached_is_still_no_go(tmp_path):
    # Layer 7 alone left, every check below it passed: the hosts' missing checks keep them NO-GO, and the marker the run
    for host in DEVICES["gpu_node"]:
        _judged_up_to(tmp_path, host, 7)
    report, _paths = _interrupted.write_report(str(tmp_path), _interrupted.marker(7, "Layer 7 - telemetry", "Read", "SIGTERM"), DEVICES)
    assert report["verdict"] == "NO-GO" and report["interrupted"]["signal"] == "SIGTERM"


def test_the_finished_report_of_a_run_that_ended_is_never_overwritten(run_dir):
    finished = _report.build(CATALOG, str(run_dir), DEVICES)
    _files.write(finished)
    before = (run_dir / "report.json").read_text()
    report, why = _interrupted.write_report(str(run_dir), WHERE)
    assert report is None and "complete already" in why
    assert (run_dir / "report.json").read_text() == before and not (run_dir / "interrupted.json").exists()


def test_a_run_stopped_before_pre_flight_ended_has_nothing_to_report(tmp_path):
    report, why = _interrupted.write_report(str(tmp_path), WHERE)
    assert report is None and "before pre-flight ended" in why and not (tmp_path / "report.json").exists()


def test_a_file_cut_short_mid_write_leaves_the_old_one_whole(tmp_path):
    path = tmp_path / "report.json"
    _interrupted.write_json(str(path), {"verdict": "NO-GO"})
    with pytest.raises(TypeError):  # what a Ctrl-C in the middle of json.dump does: an exception part-way through
        _interrupted.write_json(str(path), {"verdict": "NO-GO", "half": object()})
    assert json.loads(path.read_text()) == {"verdict": "NO-GO"} and os.listdir(tmp_path) == ["report.json"]


def test_the_report_files_are_written_whole_too(run_dir, monkeypatch):
    report = _report.build(CATALOG, str(run_dir), DEVICES)
    _files.write(report)
    before = (run_dir / "report.md").read_text()

    def cut_short(_report):
        raise KeyboardInterrupt  # a second Ctrl-C while junit.xml is drawn
    monkeypatch.setattr(_report, "junit", cut_short)
    with pytest.raises(KeyboardInterrupt):
        _files.write(dict(report, verdict="GO"))
    # report.json written whole before the cut, report.md still the whole one before it, no half file left behind
    assert json.loads((run_dir / "report.json").read_text())["verdict"] == "GO"
    assert (run_dir / "report.md").read_text() == before and not list(run_dir.glob(".*.tmp"))


@pytest.mark.parametrize("play, tags, layer", [
    ("Layer 4 - ib_write_bw on every rail between pairs of nodes (servers listening before clients)", ["layer4"], 4),
    ("Layer 3 - induced incast (RoCE - ECN and DCQCN react, no PFC storm, no drops; InfiniBand - credits wait only under load)",
     ["layer3", "incast"], 3),
    ("Start the soak on the GPU nodes - read every GPU's PCIe replay and NVLink error counters once", ["layer1"], 1),
    ("Pre-flight - check the catalog and every device's expectations before touching any device", ["always"], None),
    ("Go/no-go report", ["always"], None),
])
def test_the_layer_of_a_play_of_validate_yml(play, tags, layer):
    assert _interrupted.layer_of(play, tags) == layer


class _Play:
    def __init__(self, name, roles=()):
        self.name, self.roles = name, roles

    def get_name(self):
        return self.name

    def get_roles(self):
        return [type("Role", (), {"get_name": lambda self, n=name: n})() for name in self.roles]


def test_only_a_playbook_that_writes_a_report_is_watched():
    assert _watch.writes_a_report([_Play("Pre-flight"), _Play("Layer 0"), _Play("Go/no-go report", ["gpufabric.pyramid.report"])])
    assert _watch.writes_a_report([_Play("Report it", ["gpufabric.pyramid.report"])])
    assert not _watch.writes_a_report([_Play("Pre-flight", ["gpufabric.pyramid.preflight"]), _Play("Plan - what validate.yml would run")])


# A controller as ansible-playbook's: its task queue manager's SIGTERM handler (hand it on, then end by the signal)
# in place before the watch, the run directory opened, then SIGTERM from outside (AWX cancelling the job).
CONTROLLER = r"""
import os, signal, sys, time
sys.path[:0] = [%(collections)r]
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.report import interrupt_watch as _watch

def queue_manager(signum, frame):
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)

signal.signal(signal.SIGTERM, queue_manager)
watch = _watch.Watch(say=print)
watch.started(True)
watch.opened(%(run_dir)r, %(devices)r, %(order)r)
watch.at_play("Layer 4 - ib_write_bw on every rail between pairs of nodes", ["layer4"])
watch.at_task("Wait for this round's clients to end, stop its servers, keep their output - round 1")
print("ready", flush=True)
time.sleep(60)
"""


def test_sigterm_writes_the_report_then_ends_the_controller_by_the_signal(run_dir):
    collections = os.path.abspath(os.path.join(os.path.dirname(_catalog.__file__), *[".."] * 6))
    code = CONTROLLER % {"collections": collections, "run_dir": str(run_dir), "devices": DEVICES, "order": ["node-001", "node-002"]}
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert child.stdout.readline().strip() == "ready", child.stderr.read()
    child.send_signal(signal.SIGTERM)
    out, err = child.communicate(timeout=60)
    assert child.returncode == -signal.SIGTERM, (out, err)  # the queue manager's end, as before the watch
    assert "Traceback" not in err and "[interrupted] NO-GO: the run was interrupted at layer 4" in out, (out, err)
    saved = json.loads((run_dir / "report.json").read_text())
    assert saved["interrupted"]["signal"] == "SIGTERM" and saved["interrupted"]["layer"] == 4
    assert saved["interrupted"]["task"].startswith("Wait for this round's clients to end")


def test_a_report_that_cannot_be_written_is_said_in_one_line_never_raised(tmp_path):
    said = []
    watch = _watch.Watch(say=said.append)
    watch.reports, watch.signal = True, "SIGINT"
    watch.opened(str(tmp_path / "gone"), DEVICES, ["node-001"])  # run.json not written either: said
    watch.write()
    watch.write()  # once only
    assert len(said) == 2 and "run.json not written" in said[0]
    assert said[1].startswith("[interrupted] the report was not written (FileNotFoundError") and "playbooks/report.yml" in said[1]
