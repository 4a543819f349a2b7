# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The line that says why a run failed: used on the host (the collect module) and on the controller."""

from __future__ import annotations

import re

# The first line that reads like an error: later lines are often a launcher's teardown ("mpirun detected
# that one or more processes exited...", torchrun's ChildFailedError summary) that names no cause.
ERROR_LINE = re.compile(r"error|invalid|fail|exception|abort|denied|not found|cannot|unable|killed|segmentation", re.I)


# Where it failed, as launchers print it after their message (Open MPI's help text: "Node:  node-008",
# "Executable: all_reduce_perf"; "Local host:"), kept beside the first error line.
WHERE_LINE = re.compile(r"^\s*(Node|Host|Local host|Remote host|Hostname|Executable|Process name)\s*:\s*(\S.*?)\s*$", re.I)


def why_failed(err, out):
    """The first error-looking line of stderr, then of stdout (else the last line printed, stderr first),
    followed by the lines that say where, if the tool printed any."""
    lines = [line.strip() for line in ((err or "").splitlines() + (out or "").splitlines()) if line.strip()]
    last = ((err or "").strip() or (out or "").strip()).splitlines()
    first = next((line for line in lines if ERROR_LINE.search(line)), last[-1].strip() if last else "")
    where = []
    for line in lines:
        match = WHERE_LINE.match(line)
        if match and "%s: %s" % match.groups() not in where:
            where.append("%s: %s" % match.groups())
    return first + (" (%s)" % "; ".join(where[:3]) if where else "")
