"""What the progress callback tells the interrupt watch (issue 66): the run directory and devices from pre-flight's
facts (run.json written), the play's layer and the task from their starts, the report task's result closing the run;
a playbook without a report (plan.yml) watched not at all. Fake plays, tasks and results as in
test_progress_callback.py; the real Ctrl-C is tests/e2e/test_interrupted_run.py."""

import functools
import json
import signal

from ansible_collections.gpufabric.pyramid.plugins.callback import progress as _progress
from ansible_collections.gpufabric.pyramid.tests.unit.test_progress_callback import _Display, _Host


class _Inventory:
    def get_groups_dict(self):
        return {"gpu_nodes": ["node-002", "node-001"], "switches": ["leaf1"]}


class _Play:
    def __init__(self, name, tags=(), roles=()):
        self.name, self.tags, self.roles = name, list(tags), list(roles)
        self._variable_manager = type("Variables", (), {"_inventory": _Inventory()})()

    def get_name(self):
        return self.name

    def get_roles(self):
        return [type("Role", (), {"get_name": lambda self, n=name: n})() for name in self.roles]


class _Playbook:
    def __init__(self, plays):
        self.plays = plays

    def get_plays(self):
        return self.plays


class _Task:
    def __init__(self, name):
        self.name, self._uuid, self.run_once = name, name, False

    def get_name(self):
        return self.name


class _Result:
    def __init__(self, task, result):
        self.host, self.task, self._result = _Host("localhost"), task, result


VALIDATE = [_Play("Pre-flight - check the catalog", ["always"], ["gpufabric.pyramid.preflight"]),
            _Play("Layer 4 - ib_write_bw on every rail", ["layer4"], ["gpufabric.pyramid.rail_mesh"]),
            _Play("Go/no-go report", ["always"], ["gpufabric.pyramid.report"])]


def _callback(plays, monkeypatch):
    installed = {}
    monkeypatch.setattr(_progress._watch.signal, "signal", installed.__setitem__)
    monkeypatch.setattr(_progress._watch.atexit, "register", functools.partial(installed.__setitem__, "atexit"))
    callback = _progress.CallbackModule(display=_Display())
    callback.interval = 0  # no timer thread: the tests here start tasks and never end the playbook
    callback.v2_playbook_on_start(_Playbook(plays))
    return callback, installed


def test_pre_flight_opens_the_run_and_each_play_and_task_say_where_it_is(tmp_path, monkeypatch):
    callback, installed = _callback(VALIDATE, monkeypatch)
    assert set(installed) == {signal.SIGINT, signal.SIGTERM, "atexit"}
    callback.v2_playbook_on_play_start(VALIDATE[0])
    preflight = _Task("gpufabric.pyramid.preflight : Check the catalog and the expectations of every device")
    callback.v2_playbook_on_task_start(preflight, False)
    devices = {"gpu_node": ["node-002", "node-001"], "switch": ["leaf1"]}
    callback.v2_runner_on_ok(_Result(preflight, {"ansible_facts": {"pyramid_run_dir": str(tmp_path), "pyramid_devices": devices}}))
    assert json.loads((tmp_path / "run.json").read_text()) == {"devices": devices, "pod_order": ["node-002", "node-001"]}
    callback.v2_playbook_on_play_start(VALIDATE[1])
    callback.v2_playbook_on_task_start(_Task("gpufabric.pyramid.rail_mesh : Run this round's clients - layer 4, round 1"), False)
    watch = callback.watch
    assert (watch.layer, watch.play, watch.task) == (4, "Layer 4 - ib_write_bw on every rail",
                                                     "gpufabric.pyramid.rail_mesh : Run this round's clients - layer 4, round 1")
    assert not watch.report_written
    report = _Task("gpufabric.pyramid.report : Write the go/no-go report")
    callback.v2_runner_on_ok(_Result(report, {"pyramid_checklist_lines": ["GO/NO-GO: GO"]}))
    assert watch.report_written  # a signal after this leaves the report as it is


def test_a_playbook_without_a_report_is_not_watched(tmp_path, monkeypatch):
    plan = [_Play("Pre-flight - check the catalog", ["always"], ["gpufabric.pyramid.preflight"]),
            _Play("Plan - what validate.yml would run", [], [])]
    callback, installed = _callback(plan, monkeypatch)
    assert installed == {}
    task = _Task("gpufabric.pyramid.preflight : Check")
    callback.v2_runner_on_ok(_Result(task, {"ansible_facts": {"pyramid_run_dir": str(tmp_path), "pyramid_devices": {"gpu_node": ["n"]}}}))
    assert not (tmp_path / "run.json").exists() and callback.watch.run_dir is None
