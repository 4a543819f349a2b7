# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Collect `cli` ways through a network_cli persistent connection (EOS, NX-OS), on the controller.

The same raw shape as the collect module's, so parsing and judging do not care how output arrived.
A connection that cannot be opened (refused, authentication, no prompt) makes the switch unreachable:
every check of it is an ERROR naming the switch; the play goes on for the others.
"""

from __future__ import annotations

import re
import time

from ansible.module_utils.connection import Connection, ConnectionError as NetworkConnectionError

# What network_cli and its SSH clients say when the session itself could not be opened.
SESSION_FAILURE = re.compile(
    r"unable to (?:open|connect)|authentication|connection refused|no route to host|ssh connect failed|"
    r"unable to set terminal parameters|no existing session|not connected|timed out", re.I)
COMMAND_TIMEOUT = re.compile(r"command timeout triggered", re.I)


def collect(socket_path, planned):
    """(raw outputs by source id, None), or (None, reason) when the switch could not be reached.

    Each command is bounded by the connection's own timeout (ansible_command_timeout); a CLI that stops
    answering fails that command and the rest as timeouts, never as output.
    """
    connection = Connection(socket_path)
    raw = {}
    for index, source in enumerate(planned):
        way = source["ways"][0] if source["ways"] else {}
        command = way.get("cli")
        if command is None:
            raw[source["id"]] = {"status": "failed", "command": "(none)",
                                 "attempts": ["no CLI command for this platform in the catalog"]}
            continue
        started = time.monotonic()
        try:
            stdout = connection.get(command=command)
        except NetworkConnectionError as exc:
            message = " ".join(str(exc).split())[:300]
            if COMMAND_TIMEOUT.search(message):
                for later in planned[index:]:
                    shown = (later["ways"][0] if later["ways"] else {}).get("cli", "?")
                    raw[later["id"]] = {"status": "timeout", "command": shown, "way": 0, "stdout": "", "attempts": [
                        "%s: %s" % (command, message) if later is source else
                        "not run: the CLI stopped answering at `%s`" % command]}
                return raw, None
            if index == 0 and SESSION_FAILURE.search(message):
                return None, "%s (network_cli)" % message
            raw[source["id"]] = {"status": "failed", "command": command, "way": 0, "stdout": "",
                                 "attempts": ["%s: %s" % (command, message)]}
            continue
        raw[source["id"]] = {"status": "ok", "command": command, "way": 0, "rc": 0, "stdout": stdout,
                             "seconds": round(time.monotonic() - started, 3)}
    return raw, None
