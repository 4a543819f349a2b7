"""Ctrl-C during Layer 4 on the twin (issue 66): validate.yml, interrupted while Layer 4's ib_write_bw servers listen,
still writes its report of what Layers 0-3 judged, marked interrupted at layer 4 and its task, NO-GO; the load ends;
playbooks/report.yml writes the same report again from the run directory; and the next run's Layer 4 passes."""

import glob
import json
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

pytestmark = [pytest.mark.twin, pytest.mark.slow]

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.path.dirname(sys.executable)
POD = {"pod": {"nodes": 4}, "faults": []}
# the twin's shortest windows but Layer 4's runs, 5 s each so that the signal finds its load running; a 3 s listen wait
# keeps a server's lifetime (run/rail_mesh.py server_lifetime, one wave of forks) at 3 x 5 s of task slack, the round's
# two 5 s runs and the 5 s command timeout, the runs again, the listen wait and twice the command timeout: 53 s
FAST = ["-e", "pyramid_rdma_duration=5", "-e", "pyramid_soak_seconds=1", "-e", "pyramid_command_timeout=5",
        "-e", "pyramid_rdma_listen_timeout=3"]
LIFETIME_S = 53
MESH_TASK = "gpufabric.pyramid.rail_mesh : "
CLIENTS = "TASK [%sRun this round's clients" % MESH_TASK


def _servers(started_before=None):
    """The twin's ib_write_bw processes (pid, what), those started before ``started_before`` (a time.time()) if given."""
    found = subprocess.run(["ps", "-ww", "-eo", "pid=,etimes=,args="], capture_output=True, text=True, check=True)
    now, running = time.time(), []
    for line in found.stdout.splitlines():
        pid, elapsed, args = line.split(None, 2)
        if "run_tool.py ib_write_bw" in args and (started_before is None or now - int(elapsed) < started_before):
            running.append((pid, args))
    return running


def _env():
    return dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"), ANSIBLE_NOCOLOR="1", PYTHONUNBUFFERED="1",
                PATH=BIN + os.pathsep + os.environ["PATH"])


def _playbook(playbook, scenario, *args):
    return [os.path.join(BIN, "ansible-playbook"), os.path.join(ROOT, "playbooks", playbook), "-i",
            os.path.join(ROOT, "inventories", "twin"), "-e", "twin_scenario=%s" % scenario] + list(args)


def _statuses(report):
    return {host: sorted((r["layer"], r["check"], r["status"]) for r in info["checks"]) for host, info in report["hosts"].items()}


@pytest.fixture(scope="module")
def interrupted(twin, tmp_path_factory):
    """validate.yml on a healthy 4-node pod, SIGINT as Layer 4's servers listen: (its output, exit code, run dir)."""
    base = tmp_path_factory.mktemp("interrupted")
    scenario = base / "pod.yml"
    scenario.write_text(json.dumps(POD))
    command = _playbook("validate.yml", scenario, "-e", "pyramid_report_dir=%s" % (base / "reports"), *FAST)
    process = subprocess.Popen(command, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT)
    lines = []
    reader = threading.Thread(target=lambda: lines.extend(process.stdout), daemon=True)
    reader.start()
    # the moment Layer 4's clients are started: its servers listen (the task before saw each listening)
    deadline, clients = time.time() + 480, False
    while time.time() < deadline and process.poll() is None and not clients:
        shown = "".join(lines)
        clients = CLIENTS in shown[shown.find("PLAY [Layer 4"):] if "PLAY [Layer 4" in shown else False
        time.sleep(0.1)
    listening, deadline = [], time.time() + 5
    while clients and not listening and time.time() < deadline:
        listening = _servers()
    assert process.poll() is None and clients and listening, "".join(lines)[-5000:]
    process.send_signal(signal.SIGINT)
    signalled = time.time()
    process.wait(timeout=180)
    reader.join(timeout=10)
    (base / "stdout.txt").write_text("".join(lines))  # to read after a failure
    run_dirs = sorted(glob.glob(str(base / "reports" / "*")))
    assert len(run_dirs) == 1, run_dirs
    return {"stdout": "".join(lines), "rc": process.returncode, "run_dir": run_dirs[0], "scenario": scenario,
            "signalled": signalled}


def _report(run_dir):
    with open(os.path.join(run_dir, "report.json"), encoding="utf-8") as handle:
        return json.load(handle)


def test_the_interrupted_run_reports_what_layers_0_to_3_judged(interrupted):
    stdout, run_dir = interrupted["stdout"], interrupted["run_dir"]
    assert interrupted["rc"] == 99 and "User interrupted execution" in stdout, stdout[-3000:]
    assert "Traceback" not in stdout and "[interrupted] NO-GO: the run was interrupted at layer 4" in stdout, stdout[-3000:]
    report = _report(run_dir)
    assert report["verdict"] == "NO-GO" and report["interrupted"]["layer"] == 4 and report["interrupted"]["signal"] == "SIGINT"
    # the task it was in: one of Layer 4's, as its header read
    layer4 = stdout[stdout.index("PLAY [Layer 4"):]
    headers = [line[len("TASK ["):line.rindex("]")] for line in layer4.splitlines() if line.startswith("TASK [")]
    assert report["interrupted"]["task"] in headers and report["interrupted"]["task"].startswith(MESH_TASK), (report["interrupted"], headers)
    assert set(report["hosts"]) >= {"node-001", "node-002", "node-003", "node-004"}
    for host in ("node-001", "node-002", "node-003", "node-004"):
        checks = report["hosts"][host]["checks"]
        below = [r for r in checks if r["layer"] < 4 and not r.get("not_applicable")]
        # Layers 0 to 3 judged on a healthy pod: every check PASS (the incast, not asked for, is not applicable)
        assert below and {r["status"] for r in below} == {"PASS"}, [(r["check"], r["status"], r["actual"]) for r in below
                                                                    if r["status"] != "PASS"]
        above = [r for r in checks if r["layer"] > 4]
        assert above and all(r["actual"].startswith("not run: the run was interrupted at layer 4") for r in above)
    with open(os.path.join(run_dir, "report.md"), encoding="utf-8") as handle:
        markdown = handle.read()
    assert markdown.startswith("# Go/no-go: NO-GO") and "- NO-GO: interrupted at layer 4, task \"%s\"" % report["interrupted"]["task"] in markdown
    with open(os.path.join(run_dir, "junit.xml"), encoding="utf-8") as handle:
        assert 'name="interrupted"' in handle.read()
    assert os.path.exists(os.path.join(run_dir, "report.html"))


def test_the_load_ends_after_the_interrupt(interrupted):
    # each server ends within its lifetime, the clients within their -D and timeout: the run's own, those started
    # before the signal (a later twin run's are not this one's load)
    deadline = interrupted["signalled"] + LIFETIME_S + 15
    while time.time() < deadline and _servers(interrupted["signalled"] + 1):
        time.sleep(0.5)
    assert _servers(interrupted["signalled"] + 1) == []


def test_report_yml_writes_the_same_report_again_from_the_run_directory(interrupted):
    run_dir = interrupted["run_dir"]
    before = _report(run_dir)
    again = subprocess.run(_playbook("report.yml", interrupted["scenario"], "-e", "pyramid_run_dir=%s" % run_dir),
                           env=_env(), capture_output=True, text=True, check=False, timeout=300, cwd=ROOT)
    # the verdict task ends a NO-GO report with a failure, as validate.yml's does
    assert again.returncode == 2 and "NO-GO: interrupted at layer 4" in again.stdout, again.stdout[-3000:] + again.stderr[-3000:]
    after = _report(run_dir)
    assert after["interrupted"] == before["interrupted"] and after["verdict"] == "NO-GO"
    assert _statuses(after) == _statuses(before)


def test_the_next_run_climbs_layer_4_again(interrupted):
    test_the_load_ends_after_the_interrupt(interrupted)
    reports = os.path.join(os.path.dirname(interrupted["run_dir"]), "..", "next")
    # Layer 4 alone, its gate lifted: its servers and clients start again where the interrupted run left them
    subprocess.run(_playbook("validate.yml", interrupted["scenario"], "-e", "pyramid_report_dir=%s" % reports, "--tags", "layer4",
                             "-e", "pyramid_enforce_gate=false", *FAST), env=_env(), capture_output=True, text=True,
                   check=False, timeout=400, cwd=ROOT)
    report = _report(sorted(glob.glob(os.path.join(reports, "*")))[-1])
    assert "interrupted" not in report
    for host in ("node-001", "node-002", "node-003", "node-004"):
        layer4 = [r for r in report["hosts"][host]["checks"] if r["layer"] == 4 and not r.get("not_applicable")]
        assert layer4 and {r["status"] for r in layer4} == {"PASS"}, [(r["check"], r["actual"]) for r in layer4]
