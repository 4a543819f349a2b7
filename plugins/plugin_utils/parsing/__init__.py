# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The parse stage: raw command/file text -> typed facts, on the controller.

One module per family of outputs; each parser registers itself with @parser next to its code
(_registry.py says how). Importing this package registers them all. Needs only textfsm and the
standard library.
"""

from __future__ import annotations

import importlib
import pkgutil

from ._registry import KINDS, PARSERS, TEMPLATE_DIR, TEXTFSM_IMPORT_ERROR, ParseError, parse, parser, partial, template_path, textfsm_rows

__all__ = ["KINDS", "PARSERS", "TEMPLATE_DIR", "TEXTFSM_IMPORT_ERROR", "ParseError", "parse", "parser", "partial", "template_path", "textfsm_rows"]

# Every module of this package registers its parsers with @parser as it is imported: all are imported here, so a new
# parsing module needs no line anywhere else.
for _module in pkgutil.iter_modules(__path__):
    importlib.import_module("%s.%s" % (__name__, _module.name))
