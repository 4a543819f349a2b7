# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The line that says why a run failed: used on the host (the collect module) and on the controller."""

from __future__ import annotations

import re

# The first line that reads like an error: later lines are often a launcher's teardown ("mpirun detected
# that one or more processes exited...", torchrun's ChildFailedError summary) that names no cause.
ERROR_LINE = re.compile(r"error|invalid|fail|exception|abort|denied|not found|cannot|unable|killed|segmentation", re.I)


def why_failed(err, out):
    """The first error-looking line of stderr, then of stdout; else the last line printed (stderr first)."""
    lines = [line.strip() for line in ((err or "").splitlines() + (out or "").splitlines()) if line.strip()]
    last = ((err or "").strip() or (out or "").strip()).splitlines()
    return next((line for line in lines if ERROR_LINE.search(line)), last[-1].strip() if last else "")
