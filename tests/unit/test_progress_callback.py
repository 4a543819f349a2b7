"""The progress callback's own logic without a playbook around it: the counting, the wording, how long is left,
when a line is due; driven with fake tasks, hosts and results and a fake clock (nothing sleeps). The real run
through ansible-playbook is tests/e2e/test_progress_lines.py."""

import glob
import os
import re
import threading

import pytest
import yaml

from ansible.template import trust_as_template

from ansible_collections.gpufabric.pyramid.plugins.callback import progress as _progress
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class _Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


class _DisplayLock:
    """ansible-core Display's lock: the stdout callback's results are written under it."""

    def __init__(self):
        self.held = False

    def __enter__(self):
        self.held = True

    def __exit__(self, *_):
        self.held = False


class _Display:
    verbosity = 0

    def __init__(self):
        self.lines, self.streams, self.warnings = [], [], []
        self._lock = _DisplayLock()
        self.unlocked = []  # lines written without the lock

    def display(self, msg, stderr=False, **_):
        self.lines.append(msg)
        self.streams.append("stderr" if stderr else "stdout")
        if not self._lock.held:
            self.unlocked.append(msg)

    def warning(self, msg, **_):
        self.warnings.append(msg)

    def vvv(self, msg, **_):
        pass


class _Host:
    def __init__(self, name):
        self.name = name

    def get_name(self):
        return self.name


class _Task:
    def __init__(self, name, uuid="t1", run_once=False):
        self.name, self._uuid, self.run_once = name, uuid, run_once

    def get_name(self):
        return self.name


class _Result:
    def __init__(self, host, task):
        self.host, self.task = _Host(host), task


class _Variables:
    """The play's variable manager: every host gets the same variables (the batch, the task's declarations)."""

    def __init__(self, variables):
        self.variables = variables

    def get_vars(self, **_):
        return dict(self.variables)


class _Play:
    def __init__(self, variables):
        self._variable_manager, self._loader = _Variables(variables), None


def _callback(variables, interval=15, forks=16):
    callback = _progress.CallbackModule(display=_Display())
    callback.clock, callback.interval, callback.forks = _Clock(), interval, forks
    callback.settle_s = 0  # nothing sleeps; the settle itself is tested below
    callback._start_timer = lambda: None  # pylint: disable=protected-access  # the tests tick by hand
    callback.v2_playbook_on_play_start(_Play(variables))
    return callback


def _batch(count):
    return ["node%03d" % number for number in range(1, count + 1)]


def _start(callback, task, hosts):
    callback.v2_playbook_on_task_start(task, False)
    for host in hosts:
        callback.v2_runner_on_start(_Host(host), task)


def test_the_line_says_what_on_how_many_devices_and_how_long_is_left():
    task = _Task("Layer 4 round 1: run")
    callback = _callback({"ansible_play_batch": _batch(128), _progress.EXPECTED: 53})
    _start(callback, task, _batch(128))
    for host in _batch(96):
        callback.v2_runner_on_ok(_Result(host, task))
    callback.clock.now += 41
    assert callback.tick() == "[progress] Layer 4 round 1: run - 96/128 devices done, 41 s elapsed, about 12 s left"
    assert callback._display.streams == ["stdout"]  # pylint: disable=protected-access


class _ResultDuringSettle:
    """The playbook's stop event, whose wait is the settle: the last host's result arrives in it, as it does when the
    stdout callback has printed it and this callback hears of it next (what CI once saw: a line after the result)."""

    def __init__(self, callback, result):
        self.callback, self.result, self.waited = callback, result, []

    def wait(self, seconds):
        self.waited.append(seconds)
        self.callback.v2_runner_on_ok(self.result)
        return False


def test_a_result_printed_as_a_line_falls_due_is_counted_first_and_ends_the_lines():
    task = _Task("Sleep")
    callback = _callback({"ansible_play_batch": ["node001"], _progress.EXPECTED: 3}, interval=1)
    _start(callback, task, ["node001"])
    callback.settle_s = _progress.SETTLE_SECONDS
    callback._stop = _ResultDuringSettle(callback, _Result("node001", task))  # pylint: disable=protected-access
    callback.clock.now += 4
    assert callback.tick() is None
    assert callback._stop.waited == [0.25] and not callback._display.lines  # pylint: disable=protected-access


def test_a_line_waits_for_the_display_and_counts_what_arrived_meanwhile():
    task = _Task("Layer 4 round 1: run")
    callback = _callback({"ansible_play_batch": _batch(2), _progress.EXPECTED: 53})
    _start(callback, task, _batch(2))
    callback._stop = _ResultDuringSettle(callback, _Result("node001", task))  # pylint: disable=protected-access
    callback.clock.now += 20
    assert callback.tick() == "[progress] Layer 4 round 1: run - 1/2 devices done, 20 s elapsed, about 33 s left"
    assert not callback._display.unlocked  # pylint: disable=protected-access  # no result printed between look and line


def test_quiet_on_a_task_shorter_than_the_interval():
    task = _Task("Read the counters")
    callback = _callback({"ansible_play_batch": _batch(4)})
    _start(callback, task, _batch(4))
    callback.clock.now += 14
    assert callback.tick() is None
    for host in _batch(4):
        callback.v2_runner_on_ok(_Result(host, task))
    callback.clock.now += 30
    assert callback.tick() is None  # every host done: nothing more to say
    assert not callback._display.lines  # pylint: disable=protected-access


def test_a_line_every_interval_not_every_tick():
    task = _Task("Run the catalog checks of layer 1")
    callback = _callback({"ansible_play_batch": _batch(2), _progress.AT_MOST: "300"}, interval=15)
    _start(callback, task, _batch(2))
    printed = []
    for _second in range(61):
        callback.clock.now += 1
        printed.append(callback.tick())
    lines = [line for line in printed if line]
    assert len(lines) == 4  # at 15, 30, 45 and 60 s
    assert lines[0] == "[progress] Run the catalog checks of layer 1 - 0/2 devices done, 15 s elapsed, at most 4 min 45 s left"
    assert lines[-1].endswith("60 s elapsed, at most 4 min 0 s left")


@pytest.mark.parametrize("expected, elapsed, words", [
    (("about", 30.0), 10, "about 20 s left"),
    (("about", 30.0), 30.4, "about 0 s left"),
    (("about", 30.0), 42, "12 s over the expected 30 s"),
    (("at_most", 900.0), 100, "at most 13 min 20 s left"),
    (("at_most", 900.0), 905, "5 s past its bound of 15 min 0 s"),
])
def test_left_from_what_the_task_declares(expected, elapsed, words):
    running = _progress.Running("x", "t", 0.0)
    running.total, running.expected = 8, expected
    assert running.left(elapsed) == words


def test_left_from_the_rate_only_when_hosts_run_in_waves():
    running = _progress.Running("x", "t", 0.0)
    running.total, running.forks = 64, 16
    assert running.left(10) == "time left unknown"  # none done yet: no rate
    for host in _batch(16):
        running.finish(host)
    assert running.left(10) == "about 30 s left at the rate so far"  # 48 left at 1.6 a second
    side_by_side = _progress.Running("x", "t", 0.0)
    side_by_side.total, side_by_side.forks = 16, 16
    side_by_side.finish("node001")
    # all 16 started together: the first one done says nothing about the last
    assert side_by_side.left(10) == "time left unknown"


def test_run_once_is_counted_once_for_the_play_and_never_extrapolated():
    task = _Task("Wait until the last part of the incast window - round 1", run_once=True)
    callback = _callback({"ansible_play_batch": _batch(8), _progress.NOTE: "8 senders"}, interval=5)
    _start(callback, task, _batch(1))  # run_once: only the first host starts
    callback.clock.now += 5
    assert callback.tick() == ("[progress] Wait until the last part of the incast window - round 1 - run once for 8 devices, "
                               "5 s elapsed, time left unknown (8 senders)")
    callback.v2_runner_on_ok(_Result("node001", task))
    callback.clock.now += 5
    assert callback.tick() is None


def test_failed_skipped_and_unreachable_hosts_count_as_done():
    task = _Task("Run the catalog checks of layer 5")
    callback = _callback({"ansible_play_batch": _batch(4)})
    _start(callback, task, _batch(4))
    callback.v2_runner_on_ok(_Result("node001", task))
    callback.v2_runner_on_failed(_Result("node002", task))
    callback.v2_runner_on_skipped(_Result("node003", task))
    callback.v2_runner_on_unreachable(_Result("node004", task))
    assert callback.running.finished()


class _Found(_Result):
    """A result of an engine step that recorded findings (core/action.py hands them on as pyramid_findings)."""

    def __init__(self, host, task, findings):
        super().__init__(host, task)
        self._result = {"pyramid_findings": findings}


GPUDIRECT = {"host": "node-007", "layer": 0, "check": "gpudirect", "status": "FAIL",
             "actual": "nvidia_peermem\nnot loaded", "cause": "GPUDirect RDMA off: modprobe nvidia_peermem"}


def test_each_finding_is_one_line_as_its_task_ends_and_once():
    task = _Task("Run the catalog checks of layer 0")
    callback = _callback({"ansible_play_batch": _batch(1)})
    _start(callback, task, _batch(1))
    ran_ok = {"host": "node-008", "layer": 0, "check": "mlxconfig", "status": "ERROR", "actual": "x" * 400, "cause": None}
    callback.v2_runner_on_ok(_Found("node-007", task, [GPUDIRECT, ran_ok]))
    callback.v2_runner_on_failed(_Found("node-007", task, [GPUDIRECT]))  # a later step records the same: told once
    lines = callback._display.lines  # pylint: disable=protected-access
    assert lines[0] == ("[finding] node-007 L0 gpudirect FAIL: nvidia_peermem not loaded - cause: GPUDirect RDMA off: "
                        "modprobe nvidia_peermem")
    assert lines[1] == "[finding] node-008 L0 mlxconfig ERROR: " + "x" * 157 + "..."  # cut to the width, no cause said
    assert len(lines) == 2 and not callback._display.unlocked  # pylint: disable=protected-access


def test_findings_switched_off_and_results_without_them_print_nothing():
    task = _Task("Run the catalog checks of layer 0")
    callback = _callback({"ansible_play_batch": _batch(1)})
    callback.findings = False
    _start(callback, task, _batch(1))
    callback.v2_runner_on_ok(_Found("node-007", task, [GPUDIRECT]))
    callback.findings = True
    callback.v2_runner_on_ok(_Result("node-007", task))  # a result that is not the engine's
    callback.v2_runner_on_ok(_Found("node-007", task, "not a list"))
    assert callback._display.lines == []  # pylint: disable=protected-access


class _Report(_Result):
    """The report task's result: the checklist as lines (plugins/action/go_no_go.py)."""

    def __init__(self, host, task, lines):
        super().__init__(host, task)
        self._result = {"pyramid_checklist_lines": lines, "checklist": "\n".join(lines)}


CHECKLIST = ["GO/NO-GO: NO-GO  (7 of 8 hosts GO)", "", "[✗] L0  GPUDirect RDMA active  FAILING: node-007",
             "[✓] L1  Links up at rated speed, clean"]


def test_the_checklist_is_printed_as_plain_lines_under_the_display_lock():
    task = _Task("Write the go/no-go report", run_once=True)
    callback = _callback({"ansible_play_batch": _batch(1)})
    _start(callback, task, _batch(1))
    callback.v2_runner_on_ok(_Report("node001", task, CHECKLIST))
    assert callback._display.lines == CHECKLIST and not callback._display.unlocked  # pylint: disable=protected-access


def test_the_checklist_switched_off_or_malformed_prints_nothing():
    task = _Task("Write the go/no-go report", run_once=True)
    callback = _callback({"ansible_play_batch": _batch(1)})
    _start(callback, task, _batch(1))
    callback.checklist = False
    callback.v2_runner_on_ok(_Report("node001", task, CHECKLIST))
    callback.checklist = True
    callback.v2_runner_on_ok(_Report("node001", task, "GO/NO-GO: GO"))  # a string, not lines: not taken apart
    assert callback._display.lines == []  # pylint: disable=protected-access


def test_the_playbooks_own_copy_stands_aside_where_the_collection_callback_is_enabled(monkeypatch):
    import importlib.util  # pylint: disable=import-outside-toplevel
    path = os.path.join(ROOT, "playbooks", "callback_plugins", "pyramid_progress.py")
    spec = importlib.util.spec_from_file_location("pyramid_progress_copy", path)
    shim = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(shim)
    assert shim.CallbackModule.CALLBACK_NEEDS_ENABLED is False and issubclass(shim.CallbackModule, _progress.CallbackModule)
    monkeypatch.setattr(shim.C, "CALLBACKS_ENABLED", [])
    assert shim.CallbackModule(display=_Display()).disabled is False  # nothing configured: the playbooks' copy prints
    monkeypatch.setattr(shim.C, "CALLBACKS_ENABLED", ["ansible.posix.profile_tasks", "gpufabric.pyramid.progress"])
    assert shim.CallbackModule(display=_Display()).disabled is True  # configured: that one prints, this one not


def test_a_result_of_another_task_is_not_counted():
    task, other = _Task("this", uuid="t1"), _Task("the one before", uuid="t0")
    callback = _callback({"ansible_play_batch": _batch(2)})
    _start(callback, task, _batch(2))
    callback.v2_runner_on_ok(_Result("node001", other))
    assert not callback.running.done


def test_the_declaration_is_templated_with_the_hosts_variables():
    task = _Task("Wait for this round's clients to end")
    callback = _callback({"ansible_play_batch": _batch(2), "pyramid_rdma_duration": 7,
                          _progress.EXPECTED: trust_as_template("{{ pyramid_rdma_duration * 2 }}")})
    _start(callback, task, _batch(2))
    assert callback.running.expected == ("about", 14.0)


def test_a_declaration_that_does_not_template_says_unknown():
    task = _Task("Wait for the incast's senders to end - round 1")
    callback = _callback({"ansible_play_batch": _batch(2), _progress.EXPECTED: trust_as_template("{{ incast_plan.tail_wait }}")}, interval=1)
    _start(callback, task, _batch(2))
    callback.clock.now += 1
    assert callback.running.expected is None and callback.tick().endswith("time left unknown")


@pytest.mark.parametrize("value, seconds", [(None, None), ("", None), ("0", None), (0, None), ("abc", None), (True, None),
                                            ("12", 12.0), (5, 5.0), (" 2.5 ", 2.5)])
def test_declared_seconds(value, seconds):
    assert _progress.declared_seconds(value) == seconds


def test_without_variables_the_line_still_says_what_runs():
    task = _Task("Something long")
    callback = _callback({})
    callback.v2_playbook_on_play_start(object())  # no variable manager to ask
    _start(callback, task, _batch(1))
    callback.clock.now += 15
    assert callback.tick() == "[progress] Something long - 0/? devices done, 15 s elapsed, time left unknown"


def test_a_json_stdout_callback_gets_the_lines_on_stderr():
    task = _Task("Something long")
    callback = _callback({"ansible_play_batch": _batch(1)})
    callback.to_stderr = True
    _start(callback, task, _batch(1))
    callback.clock.now += 15
    callback.tick()
    assert callback._display.streams == ["stderr"]  # pylint: disable=protected-access


def test_no_thread_left_behind_at_the_playbook_end():
    callback = _progress.CallbackModule(display=_Display())
    callback.interval = 0.05
    callback.v2_playbook_on_play_start(_Play({}))
    callback.v2_playbook_on_task_start(_Task("x"), False)
    assert any(thread.name == "pyramid-progress" for thread in threading.enumerate())
    callback.v2_playbook_on_stats(None)
    assert not any(thread.name == "pyramid-progress" for thread in threading.enumerate())


def test_interval_zero_starts_no_thread():
    callback = _progress.CallbackModule(display=_Display())
    callback.interval = 0
    callback.v2_playbook_on_play_start(_Play({}))
    callback.v2_playbook_on_task_start(_Task("x"), False)
    assert callback._thread is None  # pylint: disable=protected-access


def _declared_defaults():
    """(variable, default) for every `pyramid_X | default(N)` in the roles' progress declarations."""
    found = []
    for path in glob.glob(os.path.join(ROOT, "roles", "*", "tasks", "*.yml")):
        with open(path, encoding="utf-8") as handle:
            tasks = yaml.safe_load(handle) or []
        for task in [inner for task in tasks for inner in [task] + (task.get("block") or [])]:  # a block's tasks too
            for name, value in (task.get("vars") or {}).items():
                if name.startswith("pyramid_progress_"):
                    found += re.findall(r"(pyramid_\w+) \| default\((\d+)\)", str(value))
    return found


def test_the_roles_declarations_default_to_the_catalogs_defaults():
    expectations = _catalog.load_catalog()["expectations"]
    found = _declared_defaults()
    # (the rail mesh's stop takes its seconds from the plan, resolved from the catalog: rail_mesh_plan.round_seconds)
    assert {name for name, default in found} >= {"pyramid_soak_seconds", "pyramid_nccl_timeout", "pyramid_train_timeout"}
    for name, default in found:
        assert expectations[name]["default"] == int(default), name
