# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A progress line every few seconds while a long task runs: what, on how many devices, how long is left."""

from __future__ import annotations

DOCUMENTATION = r"""
name: progress
type: aggregate
short_description: A progress line every few seconds while a long task runs - what, on how many devices, how long is left
version_added: 0.3.0
description:
  - While a task runs longer than O(interval) seconds (the soak, the incast, C(ib_write_bw) rounds, NCCL rounds, a
    training step), prints one plain line every O(interval) seconds beside the stdout callback's output, for
    example C([progress] Wait for this round's clients to end, stop its servers, keep their output - layer 4, round 1 -
    96/128 devices done, 41 s elapsed, about 12 s left). Tasks shorter than O(interval) print nothing.
  - The devices are the hosts of the play's batch that the task runs on (C(ansible_play_batch), failed hosts left
    out), counted done as each one's result arrives (ok, changed, failed, skipped or unreachable); a C(run_once)
    task says C(run once for N devices).
  - The time left comes from what the task declares in its C(vars), templated with the first host's variables -
    C(pyramid_progress_expected_s), the seconds the task is expected to take (C(about N s left)), or
    C(pyramid_progress_at_most_s), an upper bound such as a timeout (C(at most N s left)); an empty or zero value
    declares nothing. Lacking both, and only when the task's hosts run in waves (more hosts than forks), it is
    extrapolated from the rate of completions; else it reads C(time left unknown), never a guess. An optional
    C(pyramid_progress_note) task variable is appended to the line.
  - The lines go through Ansible's Display, without colour, to standard output; to standard error when the stdout
    callback writes JSON (C(ansible.posix.json), C(ansible.posix.jsonl)) so that its output stays parseable. AWX and
    ansible-runner show them in the job output.
  - One timer thread per playbook run, stopped and joined when the playbook ends. With the free strategy, the lines
    follow the task started last.
  - "Each FAIL and ERROR the pyramid records is printed once, as the task that judged it ends, one line each, for
    example C([finding] node-007 L0 gpudirect FAIL: nvidia_peermem not loaded - cause: ...) - host, layer, check,
    status, what was found and the likely cause, each cut to O(finding_width) characters (the report has them whole).
    O(findings) false leaves them to the report alone."
  - Ansible hands each result to the stdout callback before this one, so a line is printed a quarter of a second
    after it falls due, under the display's lock, once any result printed meanwhile has been counted - a line follows
    a task's last result with a count that misses it only when the controller stalls longer than that in between.
  - "The go/no-go checklist is printed as plain lines, one per row, when the report is written (the report task's
    result carries it as C(pyramid_checklist_lines)), whatever the stdout callback and its C(callback_result_format):
    never as one escaped string. O(checklist) false leaves it to C(report.md)."
  - "What C(gpufabric.pyramid.drain) handed to the scheduler (or would, under C(--check)) is printed the same way, one
    line per node or command (its result's C(pyramid_scheduler_lines))."
  - "It also keeps where the run stands (the run directory pre-flight opened, the play, its layer, the task): when
    SIGINT (Ctrl-C) or SIGTERM ends a run that writes a go/no-go report before its report, the report of what was
    judged is written from the run directory, marked interrupted at that layer and task, NO-GO (docs/report.md).
    As pre-flight ends it writes the run's devices to C(run.json) in the run directory, which
    C(playbooks/report.yml) reads to report the directory again."
  - "The collection's playbooks enable it themselves: C(playbooks/callback_plugins/pyramid_progress.py) beside them
    loads this callback without any C(ansible.cfg) setting, for the collection installed elsewhere and run by FQCN too
    (C(ansible-playbook gpufabric.pyramid.validate)). Enabling C(gpufabric.pyramid.progress) in C(callbacks_enabled)
    as well is harmless: the playbooks' copy then stands aside, so every line is printed once."
extends_documentation_fragment:
  - gpufabric.pyramid.progress
"""

import contextlib
import sys
import threading
import time

from ansible import constants as C
from ansible import context
from ansible.plugins.callback import CallbackBase
from ansible.template import Templar

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.report import interrupt_watch as _watch

EXPECTED = "pyramid_progress_expected_s"
AT_MOST = "pyramid_progress_at_most_s"
NOTE = "pyramid_progress_note"
# Stdout callbacks whose output a program parses: progress lines on stdout would break it.
JSON_STDOUT = ("json", "jsonl", "ansible.posix.json", "ansible.posix.jsonl")
TICK_SECONDS = 1.0
# Ansible hands each result to the stdout callback first, then to this one. A line due in between would follow the
# printed result with a count that misses it; waiting this long and looking again lets this callback hear of it first.
SETTLE_SECONDS = 0.25
FINDINGS = "pyramid_findings"  # the engine's results: the FAIL and ERROR records a task wrote (core/action.py)
CHECKLIST = "pyramid_checklist_lines"  # the report task's result: the go/no-go checklist, one line per row
SCHEDULER = "pyramid_scheduler_lines"  # the drain task's result: each node handed to (or back from) the scheduler


def finding_line(found, width=160):
    """One line of a FAIL or ERROR record: host, layer, check, status, what was found, the likely cause."""
    def cut(text):
        text = " ".join(str(text or "").split())  # one line, whatever the record holds
        return text if len(text) <= width else text[:max(width - 3, 1)] + "..."
    line = "[finding] %s L%s %s %s: %s" % (
        found.get("host"), found.get("layer"), found.get("check"), found.get("status"), cut(found.get("actual")))
    return line + (" - cause: %s" % cut(found["cause"]) if found.get("cause") else "")


def seconds_text(seconds):
    """'41 s' under two minutes, '5 min 3 s' above (a soak of 300 s reads better in minutes)."""
    seconds = int(round(max(seconds, 0)))
    if seconds < 120:
        return "%d s" % seconds
    return "%d min %d s" % divmod(seconds, 60)


def declared_seconds(value):
    """A task's declared duration as a positive float, else None (empty, zero, not a number: nothing declared)."""
    if value is None or isinstance(value, bool):
        return None
    try:
        seconds = float(str(value).strip())
    except ValueError:
        return None
    return seconds if seconds > 0 else None


class Running:
    """One task's progress: counted by the callback, worded by line()."""

    def __init__(self, name, uuid, started, run_once=False):
        self.name, self.uuid, self.started, self.run_once = name, uuid, started, run_once
        self.total = None  # hosts of the batch, once the first host starts
        self.looked_up = False
        self.done = set()
        self.expected = None  # (kind, seconds): kind "about" or "at_most"
        self.note = ""
        self.forks = None
        self.last_line = None  # when the last line was printed

    def finish(self, host):
        """A host's result arrived; True when every host is done (no more lines)."""
        self.done.add(host)
        return self.finished()

    def finished(self):
        if self.run_once:
            return bool(self.done)
        return self.total is not None and len(self.done) >= self.total

    def devices(self):
        total = self.total if self.total is not None else "?"
        if self.run_once:
            return "run once for %s device%s" % (total, "" if total == 1 else "s")
        return "%d/%s device%s done" % (len(self.done), total, "" if total == 1 else "s")

    def left(self, elapsed):
        """How long is left: from the declared duration, else the rate over waves of hosts, else unknown."""
        if self.expected:
            kind, seconds = self.expected
            over = round(elapsed - seconds)
            if kind == "at_most":
                if over > 0:
                    return "%s past its bound of %s" % (seconds_text(over), seconds_text(seconds))
                return "at most %s left" % seconds_text(-over)
            if over > 0:
                return "%s over the expected %s" % (seconds_text(over), seconds_text(seconds))
            return "about %s left" % seconds_text(-over)
        return self._left_from_rate(elapsed)

    def _left_from_rate(self, elapsed):
        # Hosts running side by side (no more than forks) tell nothing about each other's end: the first to finish
        # says nothing about the last. Hosts running in waves (more than forks) do: so many done per second.
        done = len(self.done)
        waves = self.total is not None and self.forks and self.total > self.forks
        if self.run_once or not waves or not done or done >= self.total or elapsed <= 0:
            return "time left unknown"
        return "about %s left at the rate so far" % seconds_text((self.total - done) * elapsed / done)

    def line(self, now):
        elapsed = int(now - self.started)  # whole seconds, so that elapsed and left add up to what was declared
        text = "[progress] %s - %s, %s elapsed, %s" % (self.name, self.devices(), seconds_text(elapsed), self.left(elapsed))
        return "%s (%s)" % (text, self.note) if self.note else text

    def due(self, now, interval):
        """True when a line is due: the task runs longer than interval and the last line is interval old."""
        if interval <= 0 or self.finished() or now - self.started < interval:
            return False
        return self.last_line is None or now - self.last_line >= interval


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "aggregate"
    CALLBACK_NAME = "gpufabric.pyramid.progress"
    CALLBACK_NEEDS_ENABLED = True

    def __init__(self, display=None):
        super().__init__(display=display)
        self.clock = time.monotonic
        self.interval = 15.0
        self.forks = None
        self.to_stderr = False
        self.running = None
        self.settle_s = SETTLE_SECONDS
        self.findings = True
        self.finding_width = 160
        self.checklist = True
        self._told = set()
        self._play = None
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = None
        self.watch = _watch.Watch(say=self._say_now, before_writing=self._stop_lines)

    def set_options(self, task_keys=None, var_options=None, direct=None):
        super().set_options(task_keys=task_keys, var_options=var_options, direct=direct)
        self.interval = float(self.get_option("interval"))
        self.findings = bool(self.get_option("findings"))
        self.finding_width = int(self.get_option("finding_width"))
        self.checklist = bool(self.get_option("checklist"))
        self.forks = context.CLIARGS.get("forks") or C.DEFAULT_FORKS
        self.to_stderr = str(C.DEFAULT_STDOUT_CALLBACK) in JSON_STDOUT

    # --- the timer: one thread, a tick a second, a line when one is due
    def tick(self):
        """Print the running task's line when due; the thread calls this every second, the tests directly."""
        with self._lock:
            running = self.running
            if running is None or not running.due(self.clock(), self.interval):
                return None
        if self._stop.wait(self.settle_s):
            return None  # the playbook ended meanwhile
        # Under the display's own lock no result is printed between this look and the line: a result printed before
        # it was heard of during the settle (its count is in the line) or the task is over (no line).
        with self._display_lock(), self._lock:
            now = self.clock()
            if self.running is not running or not running.due(now, self.interval):
                return None
            running.last_line = now
            line = running.line(now)
            self._display.display(line, stderr=self.to_stderr)
        return line

    def _display_lock(self):
        # ansible-core's Display writes under this re-entrant lock; a Display without one serializes nothing.
        lock = getattr(self._display, "_lock", None)
        return lock if lock is not None else contextlib.nullcontext()

    def _start_timer(self):
        if self._thread is not None or self.interval <= 0:
            return
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._timer, name="pyramid-progress", daemon=True)
        self._thread.start()

    def _timer(self):
        while not self._stop.wait(min(TICK_SECONDS, self.interval)):
            try:
                self.tick()
            except Exception as error:  # pylint: disable=broad-exception-caught
                # a progress line must never end the run; say it once and stop printing
                self._display.warning("gpufabric.pyramid.progress: no more progress lines (%s)" % error)
                return

    def _stop_timer(self):
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._thread = None

    def _say_now(self, line):
        """A line from a signal handler or the interpreter's exit: through the Display unless its lock is held
        elsewhere (the timer's tick, waiting on the main thread the signal interrupted), then straight out."""
        acquire = getattr(getattr(self._display, "_lock", None), "acquire", None)
        if acquire is None:
            self._display.display(line, stderr=self.to_stderr)
        elif acquire(timeout=2):
            try:
                self._display.display(line, stderr=self.to_stderr)
            finally:
                self._display._lock.release()  # pylint: disable=protected-access
        else:
            (sys.stderr if self.to_stderr else sys.stdout).write(line + "\n")

    def _stop_lines(self):
        self._stop.set()  # the timer's event of now (each start makes a new one); no join: a signal handler may call this

    # --- what runs
    def v2_playbook_on_start(self, playbook):
        try:
            reports = _watch.writes_a_report(playbook.get_plays())
        except Exception as error:  # pylint: disable=broad-exception-caught
            reports = False  # no plays to read: nothing watched, as for plan.yml
            self._display.vvv("gpufabric.pyramid.progress: plays not read (%s)" % error)
        self.watch.started(reports)

    def v2_playbook_on_play_start(self, play):
        with self._lock:
            self._play, self.running = play, None
        # a callback never fails the run: a play object that cannot say its name leaves the place unknown
        self.watch.at_play(getattr(play, "get_name", lambda: None)(), getattr(play, "tags", None) or [])

    def v2_playbook_on_task_start(self, task, is_conditional):
        # the strategy has templated the name with the first host's variables just before this call
        with self._lock:
            self.running = Running(task.get_name(), task._uuid, self.clock(), run_once=task.run_once is True)
            self.running.forks = self.forks
        self.watch.at_task(task.get_name())
        self._start_timer()

    def v2_playbook_on_handler_task_start(self, task):
        self.v2_playbook_on_task_start(task, False)

    def v2_runner_on_start(self, host, task):
        # The first host to start brings the variables: the batch's hosts and what the task declares.
        with self._lock:
            running = self.running
            if running is None or running.uuid != task._uuid or running.looked_up:
                return
            running.looked_up = True  # once per task, even if the lookup fails
        total, expected, note, run_once = self._declared(host, task)
        with self._lock:
            running.total, running.expected, running.note = total, expected, note
            running.run_once = running.run_once or run_once

    def _declared(self, host, task):
        """(hosts of the batch, (kind, seconds) or None, note, run_once) from the host's variables for this task."""
        try:
            variables, templar = self._variables(host, task)
        except Exception as error:  # pylint: disable=broad-exception-caught
            # The callback API hands no variables to a callback; without them the line says what it cannot know.
            self._display.vvv("gpufabric.pyramid.progress: no variables for %s (%s)" % (task.get_name(), error))
            return None, None, "", False
        total = len(variables.get("ansible_play_batch") or []) or None
        expected = None
        for name, kind in ((EXPECTED, "about"), (AT_MOST, "at_most")):
            seconds = declared_seconds(self._template(templar, variables, name))
            if seconds:
                expected = (kind, seconds)
                break
        note = self._template(templar, variables, NOTE)
        try:
            run_once = templar.template(task.run_once) is True
        except Exception:  # pylint: disable=broad-exception-caught
            run_once = False
        return total, expected, str(note or ""), run_once

    def _variables(self, host, task):
        # The play's variable manager and loader are the ones the strategy templates the task with.
        manager = getattr(self._play, "_variable_manager")
        variables = manager.get_vars(play=self._play, host=host, task=task)
        return variables, Templar(loader=getattr(self._play, "_loader"), variables=variables)

    def _template(self, templar, variables, name):
        if name not in variables:
            return None
        try:
            return templar.template(variables[name])
        except Exception as error:  # pylint: disable=broad-exception-caught
            # e.g. a registered plan missing when the task skips: the line then says "unknown"
            self._display.vvv("gpufabric.pyramid.progress: %s not templated (%s)" % (name, error))
            return None

    def _finished(self, result):
        task = getattr(result, "task", None) or getattr(result, "_task", None)
        host = getattr(result, "host", None) or getattr(result, "_host", None)
        with self._lock:
            if self.running is not None and task is not None and host is not None and self.running.uuid == task._uuid:
                self.running.finish(host.get_name())

    def _tell_findings(self, result):
        """Each FAIL and ERROR the task recorded, once per run (a later step may record the same again)."""
        found = (getattr(result, "_result", None) or {}).get(FINDINGS) if self.findings else None
        if not isinstance(found, list):
            return
        lines = []
        for item in found:
            if not isinstance(item, dict):
                continue
            key = (item.get("host"), item.get("layer"), item.get("check"), item.get("status"), item.get("actual"))
            if key not in self._told:
                self._told.add(key)
                lines.append(finding_line(item, self.finding_width))
        if lines:
            with self._display_lock():
                for line in lines:
                    self._display.display(line, stderr=self.to_stderr)

    def _tell_checklist(self, result):
        """The checklist as plain lines, whatever the stdout callback would make of a list or a multi-line string."""
        if self.checklist:
            self._tell_lines(result, CHECKLIST)

    def _tell_lines(self, result, key):
        lines = (getattr(result, "_result", None) or {}).get(key)
        if not isinstance(lines, list):
            return
        with self._display_lock():
            for line in lines:
                self._display.display(str(line), stderr=self.to_stderr)

    def _hear_run(self, result):
        """Pre-flight's facts open the run (its directory, its devices); the report task's checklist closes it."""
        found = getattr(result, "_result", None) or {}
        if CHECKLIST in found:
            self.watch.report_written = True
        facts = found.get("ansible_facts") or {}
        if facts.get("pyramid_run_dir") and isinstance(facts.get("pyramid_devices"), dict) and self.watch.reports:
            self.watch.opened(facts["pyramid_run_dir"], facts["pyramid_devices"],
                              self._pod_order(facts["pyramid_devices"], facts.get("pyramid_group_members") or []))

    def _pod_order(self, devices, members):
        """The pod's GPU nodes in inventory order, as the report task passes them (groups['gpu_nodes']); a group
        renamed by pyramid_group_gpu_nodes joins it after pre-flight, from its members."""
        try:
            groups = getattr(getattr(self._play, "_variable_manager"), "_inventory").get_groups_dict()
        except Exception:  # pylint: disable=broad-exception-caught
            groups = {}
        order = list(groups.get("gpu_nodes") or [])
        order += [m.get("host") for m in members if isinstance(m, dict) and m.get("group") == "gpu_nodes"]
        return list(dict.fromkeys(order)) or list(devices.get("gpu_node") or [])

    def v2_runner_on_ok(self, result):
        self._finished(result)
        self._hear_run(result)
        self._tell_findings(result)
        self._tell_checklist(result)
        self._tell_lines(result, SCHEDULER)

    def v2_runner_on_failed(self, result, ignore_errors=False):
        self._finished(result)
        self._tell_findings(result)

    def v2_runner_on_skipped(self, result):
        self._finished(result)

    def v2_runner_on_unreachable(self, result):
        self._finished(result)

    def v2_playbook_on_stats(self, stats):
        with self._lock:
            self.running = None
        self._stop_timer()
