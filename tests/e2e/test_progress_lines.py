"""The progress callback in a real ansible-playbook run: a 3 s task on localhost with a 1 s interval prints progress
lines between its TASK header and its result, with the expected duration the task declares. The test playbook is not
one of the collection's (whose callback_plugins/ load it), so the callback is enabled the configured way
(callbacks_enabled). Needs no twin."""

import os
import re
import subprocess
import sys

import pytest

pytestmark = [pytest.mark.slow]

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.path.dirname(sys.executable)
LINE = re.compile(r"^\[progress\] Sleep longer than the progress interval - 0/1 device done, (\d+) s elapsed, "
                  r"(about (\d+) s left|(\d+) s over the expected 3 s)$")


CONFIGURED = "gpufabric.pyramid.progress"


def _playbook(**env):
    environment = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"), PYRAMID_PROGRESS_INTERVAL="1",
                       ANSIBLE_NOCOLOR="1", ANSIBLE_CALLBACKS_ENABLED=CONFIGURED, **env)
    return subprocess.run([os.path.join(BIN, "ansible-playbook"), "-i", "localhost,", "-e", "ansible_python_interpreter=" + sys.executable,
                           os.path.join(ROOT, "tests", "e2e", "playbooks", "progress_sleep.yml")],
                          cwd=ROOT, env=environment, capture_output=True, text=True, check=False, timeout=120)


def test_a_long_task_prints_progress_lines():
    result = _playbook()
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    lines = result.stdout.splitlines()
    numbers = [number for number, line in enumerate(lines) if line.startswith("[progress]")]
    matches = [LINE.match(lines[number]) for number in numbers]
    assert numbers and all(matches), result.stdout
    header = next(number for number, line in enumerate(lines) if line.startswith("TASK [Sleep longer"))
    recap = next(number for number, line in enumerate(lines) if line.startswith("ok: [localhost]"))
    assert all(header < number < recap for number in numbers), result.stdout
    # the expected 3 s counted down (a busy machine may run the sleep over it: then "N s over the expected 3 s")
    assert all(int(match.group(1)) + int(match.group(3)) == 3 for match in matches if match.group(3)), result.stdout
    assert all(int(match.group(1)) - int(match.group(4)) == 3 for match in matches if match.group(4)), result.stdout
    assert "\x1b[" not in "".join(line for line in lines if line.startswith("[progress]"))


def test_a_json_stdout_stays_json():
    result = _playbook(ANSIBLE_STDOUT_CALLBACK="ansible.posix.json")
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.lstrip().startswith("{") and "[progress]" not in result.stdout
    assert "[progress] Sleep longer than the progress interval" in result.stderr


def test_awx_job_output_shows_the_lines(tmp_path):
    # AWX runs the playbook through ansible-runner with its own stdout callback: the lines become job events
    ansible_runner = pytest.importorskip("ansible_runner")
    env = {"ANSIBLE_CONFIG": os.path.join(ROOT, "ansible.cfg"), "PYRAMID_PROGRESS_INTERVAL": "1", "ANSIBLE_CALLBACKS_ENABLED": CONFIGURED,
           "PATH": BIN + os.pathsep + os.environ.get("PATH", "")}
    runner = ansible_runner.run(private_data_dir=str(tmp_path), playbook=os.path.join(ROOT, "tests", "e2e", "playbooks", "progress_sleep.yml"),
                                inventory="localhost", project_dir=ROOT, envvars=env, quiet=True,
                                extravars={"ansible_python_interpreter": sys.executable})
    assert runner.rc == 0, runner.stdout.read()[-3000:]
    lines = [event["stdout"] for event in runner.events if event.get("stdout", "").startswith("[progress]")]
    assert lines and all(LINE.match(line) for line in lines), lines
