# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Judge stage: compare normalized facts with expectations, one verdict per check (see registry.py)."""

from __future__ import annotations

import importlib
import pkgutil

from .registry import JUDGES, judge_of  # noqa: F401

# Every module of this package registers its judges with @judge as it is imported: all are imported here, so a new
# judging module needs no line anywhere else.
for _module in pkgutil.iter_modules(__path__):
    importlib.import_module("%s.%s" % (__name__, _module.name))
