# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What every phased run shares: its files, and the runs it starts in the background on a device and stops.

A phased run (the rail mesh, the incast; docs/adding-a-check.md "Adding a new kind of run") is one task per phase:
its plan on the controller, then on each device a start (servers listening, or clients running, through
gpufabric.pyramid.rail_servers), reads, and a stop that waits for the runs to end and keeps their output; then its
verdict on the controller. The phases are separate tasks, so each keeps what it learnt in the run's files
(``RunFiles``) for the next. ``Background`` starts and stops one device's runs of a round; each run is a planned read
(engine.reads: its id, the command of its first way, the parser chosen for its output), so what the stop keeps names
its parser as a collected answer does.
"""

from __future__ import annotations

import hashlib
import json
import os
import re

from . import engine as _engine

SERVERS = "gpufabric.pyramid.rail_servers"
# The most a device's task of a start or stop phase is taken to cost Ansible beyond the runs themselves (connection,
# module transfer, the check that a server listens).
TASK_SLACK_SECONDS = 5


def waves(devices, forks):
    """How many waves a per-device task runs in: Ansible runs it on at most ``forks`` devices at a time, so with
    fewer forks than devices the later ones start only as earlier ones finish."""
    return -(-max(0, int(devices)) // max(1, int(forks or 1)))


def write_json(path, data):
    """Write ``data`` to ``path`` as JSON, atomically (a reader never sees half a file)."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path + ".tmp", "w", encoding="utf-8") as handle:
        json.dump(data, handle, indent=1, sort_keys=True)
    os.replace(path + ".tmp", path)


def load_json(path, default=None):
    """The JSON at ``path``, or ``default`` for a file not written yet."""
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except FileNotFoundError:
        return default


def safe_name(host):
    """A device's name as a file or directory name part."""
    return re.sub(r"[^\w.-]", "_", host)


class RunFiles:
    """A phased run's files under ``directory``: plan.json, and round-N/<device>.<label>.json for what a phase
    kept of a device in round N (its runs' starts and ends, its reads)."""

    def __init__(self, directory):
        self.directory = directory

    def plan_path(self):
        return os.path.join(self.directory, "plan.json")

    def load_plan(self):
        return load_json(self.plan_path())

    def save_plan(self, plan):
        write_json(self.plan_path(), plan)

    def path(self, index, host, label):
        return os.path.join(self.directory, "round-%d" % (index + 1), "%s.%s.json" % (safe_name(host), label))

    def save(self, index, host, label, data):
        write_json(self.path(index, host, label), data)

    def load(self, index, host, label):
        return load_json(self.path(index, host, label))


def _failed(read, why):
    return {"status": "failed", "command": " ".join(read["ways"][0]["run"]), "msg": why}


def _choice(state):
    """The parser a run's start was planned with (Background.keep_started), for what is read of it later."""
    return {key: state[key] for key in _engine.CHOICE if key in state}


def server_reads(started, ended, lost):
    """What a device's servers (or runs that end by themselves) said: one that never listened keeps what its start
    said; one that listened what the stop said of it, or ``lost`` where the stop said nothing. Each keeps the parser
    its start was planned with."""
    reads = {}
    for run_id, state in started.items():
        if state.get("status") != "listening":
            reads[run_id] = dict(state)
        else:
            reads[run_id] = dict(ended.get(run_id) or {"status": "failed", "command": state.get("command"), "msg": lost}, **_choice(state))
    return reads


def client_reads(started, ended, lost, duration, waited):
    """A device's clients that ran in the background: ``started`` is what rail_servers said at their start
    (``listening``: running), ``ended`` what it said when the stop had waited ``waited`` seconds for them to end. A
    client that ended well is read whatever its start saw (a short run may end before the start looked twice); one
    that never ran keeps what its start said; one still running was killed: a timeout, as the collect module reports a
    hung command. Each keeps the parser its start was planned with."""
    raw = {}
    for cid, state in started.items():
        final = ended.get(cid)
        if final and final.get("status") == "ok":
            raw[cid] = dict(final)
        elif state.get("status") != "listening":
            raw[cid] = dict(state, msg=(state.get("msg") or "").replace("ended before listening", "ended at once"))
        elif final and final.get("status") == "killed":
            raw[cid] = dict(final, status="timeout", msg="%s: hung: still running when the round's stop had waited %d s for %d s of runs (killed); "
                            "output: %s" % (final.get("command"), waited, duration, (final.get("stdout") or final.get("stderr") or "none").strip()[-200:]))
        else:
            raw[cid] = dict(final or {"status": "failed", "command": state.get("command"), "msg": lost})
        raw[cid].update(_choice(state))
    return raw


class Background:
    """One device's background runs of a phased run (``kind``: its name in the work directories), through ``step``
    (run/ansible_step.py: the task's host, a module run there) and ``files`` (RunFiles). A side is a set of runs of
    one round that start and stop together ("servers", "clients")."""

    def __init__(self, step, files, kind, run_dir):
        self._step, self._files, self._kind, self._run_dir = step, files, kind, run_dir

    def workdir(self, host, index, side):
        """Where a device's runs of one side and round keep their output: the same for the start and the stop, named
        for the run directory and the device, so runs that share a /tmp never stop each other's."""
        run = hashlib.sha1(self._run_dir.encode()).hexdigest()[:10]
        return "/tmp/pyramid-%s-%s-round%d-%s-%s" % (self._kind, run, index + 1, side, safe_name(host))

    def start_arguments(self, host, index, side, reads, lifetime, listen_timeout, wait_for="banner"):
        """What rail_servers starts ``reads`` (each run's first way's command) on ``host`` with: the arguments of its
        ``started`` state, or its ``then_start`` after a stop. A read with ``after`` (another read's id) runs once that
        one ended."""
        return {"workdir": self.workdir(host, index, side), "lifetime": int(lifetime), "listen_timeout": listen_timeout,
                "wait_for": wait_for, "servers": [dict({"id": read["id"], "argv": read["ways"][0]["run"]},
                                                       **({"after": read["after"]} if read.get("after") else {})) for read in reads]}

    def keep_started(self, host, index, side, reads, states, lost):
        """Keep what the start of ``reads`` said (the stop reads it), each with its parser; a module run that failed
        says ``lost`` for each. (started states, the ids that are not running)."""
        states = _engine.answers(reads, states or {read["id"]: _failed(read, lost) for read in reads})
        self._files.save(index, host, side + "_start", states)
        return states, sorted(run_id for run_id, state in states.items() if state.get("status") != "listening")

    def start(self, host, index, side, reads, lifetime, listen_timeout, wait_for="banner"):
        """Start ``reads`` on ``host`` in the background and keep what their start said: (states, not running)."""
        answer = self._step.execute(SERVERS, dict(self.start_arguments(host, index, side, reads, lifetime, listen_timeout, wait_for),
                                                  state="started"))
        return self.keep_started(host, index, side, reads, answer.get("servers"), answer.get("msg") or "rail_servers failed")

    def started(self, host, index, side):
        return self._files.load(index, host, side + "_start")

    def stop(self, host, index, graces, then_start=None):
        """Stop the sides of ``graces`` ({side: seconds the stop waits for its runs to end}, in order) that ``host``
        started in round ``index``: one module run for them all (and, with ``then_start``, rail_servers' arguments
        of the next round's start). ({side: (started, ended, lost)}, the module's answer)."""
        sides = [(side, self.started(host, index, side)) for side in graces]
        sides = [(side, started) for side, started in sides if started]
        steps = [{"workdir": self.workdir(host, index, side), "grace": graces[side]} for side, _started in sides]
        if not steps and not then_start:
            return {}, None
        # nothing of this round kept here (a start whose task never returned, say): its servers' directory is stopped all
        # the same, so that a server started then cannot hold a port the next round's start asks for
        arguments = dict(steps[0], state="stopped", and_then=steps[1:]) if steps else {
            "state": "stopped", "workdir": self.workdir(host, index, "servers")}
        if then_start:
            arguments["then_start"] = then_start
        answer = self._step.execute(SERVERS, arguments)
        ended = [answer.get("servers") or {}] + list(answer.get("and_then") or [])
        ended += [{} for _side in range(len(sides) - len(ended))]  # a module run that failed returns neither
        return {side: (started, ended[number], answer.get("msg")) for number, (side, started) in enumerate(sides)}, answer
