# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Run an argv on the host and read its output to the end.

Why not AnsibleModule.run_command: its read loop (ansible-core 2.19, module_utils/basic.py) stops as
soon as a one-second select() came back empty and the process has ended, so a tool that is silent for
more than a second, then prints its result and exits at once (ib_write_bw -D, an all-reduce run) can
lose that result when the host is busy between the two calls: the command "succeeded" with empty
output. communicate() reads every stream to its end.
"""

from __future__ import annotations

import os
import subprocess

# Beyond the command's own coreutils timeout: only for a descendant that keeps the pipes open after
# the command ended (a daemon it started); the run is then cut and says so.
GUARD_SECONDS = 30


def run_argv(argv, environ_update=None, timeout=None, guard_seconds=GUARD_SECONDS):
    """(rc, stdout bytes, stderr bytes, cut): ``cut`` when the guard had to stop the run (rc 124, as
    coreutils timeout says it)."""
    env = dict(os.environ)
    env.update(environ_update or {})
    guard = None if timeout is None else timeout + guard_seconds
    try:
        done = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, env=env, timeout=guard, check=False)
    except subprocess.TimeoutExpired as exc:
        return 124, exc.stdout or b"", exc.stderr or b"", True
    return done.returncode, done.stdout, done.stderr, False
