# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Collect `cli` ways through a network_cli persistent connection (EOS, NX-OS), on the controller.

The same raw shape as the collect module's, so parsing and judging do not care how output arrived.
A connection that cannot be opened (refused, authentication, no prompt) makes the switch unreachable:
every check of it is an ERROR naming the switch; the play goes on for the others.

network_cli ends an answer at the first text that looks like a prompt and is followed by a short
quiet spell. A line of output can look like one (NX-OS's queuing report prints "QoS-Group#"), so
every answer must end at the switch's own prompt, learned from an empty line; the rest of an answer
cut short is read and dropped, the command asked again, and a cut answer never parsed.

Each task ends its session and waits until the persistent connection is gone (release). ansible-core
reuses a connection whose socket file still exists; one shutting down (idle timeout, end of play)
fails the next task before it starts ("Unable to connect to socket", "Connection reset by peer").
"""

from __future__ import annotations

import os
import re
import time

from ansible.module_utils.connection import Connection, ConnectionError as NetworkConnectionError

COMMAND_TIMEOUT = re.compile(r"command timeout triggered", re.I)
CUT_TRIES = 3  # asks of one command whose answer was cut at a prompt-like line
DRAINS = 20  # reads of the rest of a cut answer, up to the switch's own prompt
# An answer that opens with a `% ...` line is the switch refusing a command, not its output: EOS answers `| json` of a
# command its release cannot print as JSON with `% This is an unconverted command` and the same error as a JSON
# document (aristanetworks/vane's device drivers list that answer), which network_cli passes on as output; a command
# the release lacks (`% Invalid input`) the terminal plugin raises as an error. Where the source has another way for
# the platform (its text form), that one is asked next after either, or after an answer cut at a prompt-like line; a
# timeout is never a reason to ask another way, and the last way's answer is parsed.
_REFUSAL = re.compile(r"\A\s*% \S")
RELEASE_SECONDS = 10.0  # for a closed connection's process to remove its socket


class _Cut(Exception):
    """An answer ended at text that only looks like the prompt."""


class _Lost(_Cut):
    """A cut answer whose rest never ended at the prompt: the session was closed."""


def collect(socket_path, planned):
    """(raw outputs by source id, None), or (None, reason) when the switch could not be reached.

    Each command is bounded by the connection's own timeout (ansible_command_timeout); a CLI that stops
    answering fails that command and the rest as timeouts, never as output.
    """
    connection = Connection(socket_path)
    try:
        prompt = _own_prompt(connection)
    except NetworkConnectionError as exc:
        return None, "%s (network_cli)" % _message(exc)
    raw = {}
    for index, source in enumerate(planned):
        attempts, shown, answered = [], "(none)", None
        for number, way in enumerate(source["ways"] or [{}]):
            command = way.get("cli")
            if command is None:
                attempts.append("no CLI command for this platform in the catalog")
                continue
            shown, refused = command, _refused(command)
            if refused:
                shown = command.encode("unicode_escape").decode("ascii")
                attempts.append(refused)
                continue
            started = time.monotonic()
            try:
                stdout = _ask(connection, command, prompt)
            except _Lost as lost:
                return dict(raw, **_not_run(planned[index:], command, number, attempts, "%s: %s" % (command, lost))), None
            except _Cut as cut:
                attempts.append("%s: %s" % (command, cut))
                continue
            except NetworkConnectionError as exc:
                message = _message(exc)
                if COMMAND_TIMEOUT.search(message):
                    _close(connection)  # what the wedged command prints later must not answer another task
                    return dict(raw, **_not_run(planned[index:], command, number, attempts, "%s: %s" % (command, message),
                                                "timeout")), None
                attempts.append("%s: %s" % (command, message))
                continue
            if _REFUSAL.match(stdout) and number + 1 < len(source["ways"]):
                attempts.append("%s: %s" % (command, stdout.strip().splitlines()[0]))  # the release lacks the way: the next
                continue
            answered = {"status": "ok", "command": command, "way": number, "rc": 0, "stdout": stdout,
                        "seconds": round(time.monotonic() - started, 3)}
            if attempts:
                answered["attempts"] = attempts  # the ways this release refused before
            break
        raw[source["id"]] = answered or {"status": "failed", "command": shown, "way": max(len(source["ways"]) - 1, 0),
                                         "stdout": "", "attempts": attempts}
    return raw, None


# A line break (or any other control character) in a command would type a second command into the
# switch's interactive CLI: a port name from the inventory ("Ethernet1/1\nreload") filled into
# `show interface {item} transceiver details`. Preflight validates port names; this is the last guard.
_CONTROL = re.compile(r"[\x00-\x1f\x7f\u0085\u2028\u2029]")


def _refused(command):
    """Why a command line must not be sent, or None."""
    bad = _CONTROL.search(command)
    if bad is None:
        return None
    return ("refused to send %r: it holds the control character %r, which the switch's CLI would take for the end of "
            "one command and the start of another (a port name or item with a line break?)" % (command, bad.group(0)))


def release(socket_path, seconds=RELEASE_SECONDS):
    """Close the persistent connection and wait for its socket to go, so that the next task starts a
    fresh one; True once it is gone."""
    if not socket_path or not os.path.exists(socket_path):
        return True
    _close(Connection(socket_path))
    deadline = time.monotonic() + seconds
    while os.path.exists(socket_path):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def _not_run(rest, command, number, attempts, why, status="failed"):
    """The failed source (the first of ``rest``, its way ``number`` asked as ``command`` after ``attempts``) and every
    one after it: the session is gone."""
    source = rest[0]
    raw = {source["id"]: {"status": status, "command": command, "way": number, "stdout": "", "attempts": attempts + [why]}}
    for later in rest[1:]:
        shown = (later["ways"][0] if later["ways"] else {}).get("cli", "?")
        raw[later["id"]] = {"status": status, "command": shown, "way": 0, "stdout": "", "attempts": [
            "not run: the CLI stopped answering at `%s`" % command]}
    return raw


def _own_prompt(connection):
    """The switch's prompt: the whole answer to an empty line, so nothing else can be taken for it."""
    connection.get(command="")
    prompt = _matched(connection)
    if not prompt:
        raise NetworkConnectionError("no prompt in the answer to an empty line")
    return prompt


def _ask(connection, command, prompt):
    """The whole answer to one command; _Cut when every try ended at a prompt-like line."""
    for _try in range(CUT_TRIES):
        stdout = connection.get(command=command)
        seen = _matched(connection)
        if seen == prompt:
            return stdout
        _drain(connection, prompt)
    raise _Cut("the answer ended %d times at %r, which network_cli took for the prompt %r; raise "
               "ansible_buffer_read_timeout, or set ansible_terminal_stdout_re to match only this switch's "
               "prompt" % (CUT_TRIES, seen, prompt))


def _drain(connection, prompt):
    """Read the rest of a cut answer, sending nothing (typed-ahead input would be echoed into it),
    until it ends at the switch's own prompt."""
    for _read in range(DRAINS):
        connection.receive()
        if _matched(connection) == prompt:
            return
    _close(connection)
    raise _Lost("the rest of a cut answer never ended at the prompt %r" % prompt)


def _matched(connection):
    return " ".join((connection.get_prompt() or "").split())


def _close(connection):
    """End the session; the next task opens a fresh one."""
    try:
        connection.close()
    except NetworkConnectionError:
        pass


def _message(exc):
    return " ".join(str(exc).split())[:300]
