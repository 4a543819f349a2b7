"""validate.yml the way AWX runs a job: ansible-runner on a private data directory laid out as AWX
lays it out (env/extravars, env/envvars, inventory/, project/), on the twin. The outcome comes back
through set_stats, read from the runner's artifacts (the playbook_on_stats event's artifact_data),
as AWX reads it into the job's artifacts and the next workflow node's extra vars. No AWX server runs
here; the job templates themselves are checked offline (tests/unit/test_awx_templates.py)."""

import glob
import json
import os
import shutil
import sys

import pytest
import yaml

from ansible_collections.gpufabric.pyramid.tests.e2e.waivers import GPU_ONLY_WAIVERS

pytestmark = [pytest.mark.twin, pytest.mark.slow]

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUTCOME = {"pyramid_verdict", "pyramid_summary", "pyramid_failing_hosts", "pyramid_blocked_hosts", "pyramid_stopped_at",
           "pyramid_causes", "pyramid_report_run_dir", "pyramid_reports", "pyramid_unchecked_rows", "pyramid_waived_rows"}


def _awx_job(tmp_path, scenario, playbook="playbooks/validate.yml", limit=None, tags=None, ident="1"):
    """A private data directory as AWX writes it for a job, then ansible-runner on it."""
    import ansible_runner  # pylint: disable=import-outside-toplevel

    os.environ["PATH"] = os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")
    data = tmp_path / "job"
    (data / "env").mkdir(parents=True)
    (tmp_path / "scenario.yml").write_text(yaml.safe_dump(scenario))
    # The survey's answers and the job's extra vars; the reports go where the job can keep them.
    (data / "env" / "extravars").write_text(yaml.safe_dump({
        "twin_scenario": str(tmp_path / "scenario.yml"), "pyramid_report_dir": str(tmp_path / "reports"),
        "pyramid_command_timeout": 5, "pyramid_rdma_duration": 1, "pyramid_soak_seconds": 1,  # the suite's windows
        # an AWX job's copy of the twin inventory names no Prometheus URL: its telemetry row is proven elsewhere
        "pyramid_waive": GPU_ONLY_WAIVERS + [{"row": "telemetry", "reason": "proven by tests/e2e/test_telemetry_prometheus.py"}]}))
    (data / "env" / "envvars").write_text(yaml.safe_dump({"ANSIBLE_PERSISTENT_CONTROL_PATH_DIR": str(tmp_path / "pc")}))
    # AWX writes the job's inventory into inventory/; here the twin's inventory source and its group_vars.
    shutil.copytree(os.path.join(ROOT, "inventories", "twin"), data / "inventory")
    # AWX checks the project out into project/ and runs ansible-playbook there (its ansible.cfg applies).
    os.symlink(ROOT, data / "project")
    runner = ansible_runner.run(private_data_dir=str(data), playbook=playbook, limit=limit, tags=tags, ident=ident,
                                quiet=True)
    return runner, data / "artifacts" / ident


def _stats_event(artifacts):
    for path in sorted(glob.glob(str(artifacts / "job_events" / "*.json"))):
        with open(path, encoding="utf-8") as handle:
            event = json.load(handle)
        if event.get("event") == "playbook_on_stats":
            return event
    raise AssertionError("no playbook_on_stats event in %s" % artifacts)


def test_a_go_run_returns_its_outcome_through_set_stats(twin, tmp_path):
    runner, artifacts = _awx_job(tmp_path, {"pod": {"nodes": 2}, "faults": []})
    assert runner.rc == 0 and runner.status == "successful", runner.stdout.read()[-3000:]
    outcome = _stats_event(artifacts)["event_data"]["artifact_data"]
    assert set(outcome) == OUTCOME
    assert outcome["pyramid_verdict"] == "GO" and outcome["pyramid_summary"]["go"] == 2
    assert outcome["pyramid_failing_hosts"] == [] and outcome["pyramid_blocked_hosts"] == [] and outcome["pyramid_stopped_at"] == {}
    for path in outcome["pyramid_reports"].values():  # the files the job's artifact links point to exist
        assert os.path.isfile(path) and path.startswith(outcome["pyramid_report_run_dir"]), path
    assert set(outcome["pyramid_reports"]) == {"report.md", "report.html", "report.json", "junit.xml", "pyramid.prom", "baseline.yml"}


def test_a_no_go_run_fails_the_job_with_one_line_and_its_outcome(twin, tmp_path):
    scenario = {"pod": {"nodes": 2}, "faults": [{"node": "node-002", "kind": "module_missing", "module": "nvidia_peermem"}]}
    runner, artifacts = _awx_job(tmp_path, scenario)
    stdout = runner.stdout.read()
    assert runner.rc == 2 and runner.status == "failed", stdout[-3000:]  # AWX marks the job failed
    outcome = _stats_event(artifacts)["event_data"]["artifact_data"]
    assert outcome["pyramid_verdict"] == "NO-GO"
    assert outcome["pyramid_failing_hosts"] == ["node-002"] and outcome["pyramid_stopped_at"] == {"node-002": 0}
    with open(outcome["pyramid_reports"]["report.json"], encoding="utf-8") as handle:
        node = json.load(handle)["hosts"]["node-002"]
    assert node["verdict"] == "NO-GO"
    # every device not GO with its cause, as report.md says it (issue 66): node-002's own finding, and node-001, which
    # nothing failed on, held back by the rail mesh it had no partner for
    assert outcome["pyramid_causes"]["node-002"] == node["cause"]["text"] and node["cause"]["text"].startswith("L0 ")
    assert outcome["pyramid_causes"]["node-001"] == ("L2 rail_ping not proven (SKIP): no partner: every other node stopped below "
                                                     "layer 2, so no rail of node-001 was measured")
    # The run ends with the verdict line, not ansible-core's error block with a code excerpt.
    assert "[ERROR]" not in stdout and "Origin:" not in stdout, stdout[-3000:]
    tail = stdout[stdout.index("TASK [gpufabric.pyramid.report : End with the verdict]"):stdout.index("PLAY RECAP")]
    verdict_lines = [line for line in tail.splitlines() if "NO-GO:" in line]
    assert len(verdict_lines) == 1, tail
    expected = "NO-GO: %d of 2 hosts GO. See %s/report.md" % (outcome["pyramid_summary"]["go"], outcome["pyramid_report_run_dir"])
    assert expected in verdict_lines[0], tail


def test_job_tags_run_some_layers_and_say_the_rest_did_not_run(twin, tmp_path):
    # The job template prompts for job tags: layer0 only is a quick look, and never a GO.
    runner, artifacts = _awx_job(tmp_path, {"pod": {"nodes": 2}, "faults": []}, tags="layer0")
    assert runner.rc == 2
    outcome = _stats_event(artifacts)["event_data"]["artifact_data"]
    assert outcome["pyramid_verdict"] == "NO-GO" and outcome["pyramid_failing_hosts"] == []
    with open(outcome["pyramid_reports"]["report.json"], encoding="utf-8") as handle:
        report = json.load(handle)
    for record in report["hosts"]["node-001"]["checks"]:
        if record.get("not_applicable"):  # InfiniBand's Layer 0 check on this RoCE pod: neither PASS nor run
            assert record["status"] == "SKIP", record
            continue
        assert (record["status"] == "PASS") == (record["layer"] == 0), record
        if record["layer"] > 0:
            assert record["status"] == "SKIP" and record["actual"] == "not run in this play", record


def test_a_remediate_job_says_what_it_changed_and_the_verdict_after(twin, tmp_path):
    reimaged = {"pod": {"nodes": 2}, "faults": [
        {"node": "node-002", "kind": "mlxconfig", "set": {"ROCE_CC_PRIO_MASK_P1": 0}},
        {"node": "node-002", "kind": "module_missing", "module": "nvidia_peermem"}]}
    runner, artifacts = _awx_job(tmp_path, reimaged, playbook="playbooks/remediate.yml")
    assert runner.rc == 0, runner.stdout.read()[-3000:]
    outcome = _stats_event(artifacts)["event_data"]["artifact_data"]
    # node-001 was healthy, yet had no modules-load.d entry: only that is written there.
    assert outcome["pyramid_remediated"] == {"node-001": ["nvidia_peermem at boot"],
                                             "node-002": ["nic_firmware", "nvidia_peermem loaded", "nvidia_peermem at boot"]}
    assert outcome["pyramid_verdict"] == "GO" and outcome["pyramid_failing_hosts"] == []
    # Pre-flight ran before the remediation, and the validation after it kept its run directory: one run, one directory.
    assert os.listdir(tmp_path / "reports") == [os.path.basename(outcome["pyramid_report_run_dir"])]
