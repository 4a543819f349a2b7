# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Where a run stands, and its report written when it is interrupted (issue 66); the progress callback feeds it.

ansible-playbook's task queue manager catches SIGINT and SIGTERM in the controller and hands them on to its workers.
On SIGINT it then raises KeyboardInterrupt, which unwinds the run to "User interrupted execution" (exit 99): the
report is written at the interpreter's exit, once the workers are gone. On SIGTERM it kills its own process with the
signal, and nothing runs after: the report is written in the handler, before it is handed the signal. A SIGKILL (what
ansible-runner sends a cancelled job's process group) cannot be caught: the run directory keeps what
``playbooks/report.yml`` reports.
"""

from __future__ import annotations

import atexit
import os
import signal
import sys

from . import interrupted as _interrupted

SIGNALS = (signal.SIGINT, signal.SIGTERM)
REPORT_ROLE = "gpufabric.pyramid.report"


def writes_a_report(plays):
    """Whether the playbook's plays end with the go/no-go report (validate.yml, remediate.yml; not plan.yml)."""
    for play in plays:
        if str(play.get_name()).startswith("Go/no-go report"):
            return True
        try:
            roles = [role.get_name() for role in play.get_roles()]
        except Exception:  # pylint: disable=broad-exception-caught
            roles = []  # a play whose roles cannot be listed here writes no report this module can tell
        if REPORT_ROLE in roles:
            return True
    return False


class Watch:
    """The run's directory, devices and place (play, layer, task), kept as the callback hears of them; written as the
    interrupted run's report when a signal ends the run before its report."""

    def __init__(self, say=None, before_writing=None):
        self.say = say or (lambda line: sys.stderr.write(line + "\n"))
        self.before_writing = before_writing or (lambda: None)  # the progress lines stop first
        self.reports = False
        self.run_dir, self.devices, self.pod_order = None, None, None
        self.play, self.layer, self.task = None, None, None
        self.report_written = False
        self.signal = None  # the first signal's name
        self.where = None  # (layer, play, task) when it came
        self.handled = False
        self.writing = False
        self._pid = None
        self._previous = {}

    # --- what the callback hears
    def started(self, reports):
        """The playbook starts: watch its signals when it writes a report, once per ansible-playbook process."""
        self.reports = self.reports or reports
        if not self.reports or self._pid is not None:
            return
        self._pid = os.getpid()
        for signum in SIGNALS:
            try:
                self._previous[signum] = signal.getsignal(signum)
                signal.signal(signum, self.on_signal)
            except (ValueError, OSError):  # not the main thread (an embedding program): its own business
                self._previous.pop(signum, None)
        atexit.register(self.at_exit)

    def opened(self, run_dir, devices, pod_order):
        """Pre-flight opened the run directory: remembered here and in run.json (playbooks/report.yml reads it)."""
        self.run_dir, self.devices, self.pod_order = run_dir, devices, list(pod_order)
        try:
            _interrupted.remember_run(run_dir, devices, self.pod_order)
        except OSError as exc:
            self.say("[interrupted] %s/%s not written (%s): a report of this directory reads the inventory" % (
                run_dir, _interrupted.RUN_FILE, exc))

    def at_play(self, name, tags):
        self.play, self.layer, self.task = name, _interrupted.layer_of(name, tags), None

    def at_task(self, name):
        self.task = name

    # --- the signals
    def on_signal(self, signum, frame):
        previous = self._previous.get(signum, signal.SIG_DFL)
        if os.getpid() == self._pid and self.signal is None:
            self.signal, self.where = signal.Signals(signum).name, (self.layer, self.play, self.task)
        if os.getpid() == self._pid and signum == signal.SIGTERM:
            if self.writing:
                return  # the report being written is finished first; a SIGKILL is what cannot wait
            self.write()
        self._hand_on(previous, signum, frame)

    @staticmethod
    def _hand_on(previous, signum, frame):
        """What the signal did before this watch: the task queue manager's handler (to the workers, then
        KeyboardInterrupt or the signal's own end), else the default."""
        if callable(previous):
            previous(signum, frame)
        elif previous != signal.SIG_IGN:
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)

    def at_exit(self):
        if os.getpid() == self._pid and self.signal is not None:
            self.write()

    # --- the report
    def write(self):
        """Write the interrupted run's report once; say what was written, or why not; never raise."""
        if self.handled or not self.reports:
            return
        self.handled, self.writing = True, True
        try:
            self.before_writing()
            self._write()
        except BaseException as exc:  # pylint: disable=broad-exception-caught
            # never a traceback at the end of an interrupted run: say what to do instead, if anything can be said
            try:
                self.say("[interrupted] the report was not written (%s: %s); write it from the run directory: "
                         "ansible-playbook playbooks/report.yml -e pyramid_run_dir=%s" % (type(exc).__name__, exc, self.run_dir))
            except BaseException:  # pylint: disable=broad-exception-caught
                pass  # stdout itself is gone (a closed pipe): the run directory still holds every results file
        finally:
            self.writing = False

    def _write(self):
        layer, play, task = self.where or (self.layer, self.play, self.task)
        if self.report_written:
            self.say("[interrupted] %s: the run's report was written before it" % self.signal)
            return
        if not self.run_dir:
            self.say("[interrupted] %s before pre-flight opened a run directory: no report written" % self.signal)
            return
        found = _interrupted.marker(layer, play, task, self.signal)
        report, why = _interrupted.write_report(self.run_dir, found, self.devices, self.pod_order)
        if report is None:
            self.say("[interrupted] no report written: %s" % why)
            return
        for warning in why:
            self.say("[interrupted] %s" % warning)
        summary = report["summary"]
        self.say("[interrupted] NO-GO: the run was %s; its report of what was judged (%d of %d hosts GO): %s/report.md" % (
            _interrupted.where(found), summary["go"], summary["hosts"], self.run_dir))
