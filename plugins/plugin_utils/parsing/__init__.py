# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The parse stage: raw command/file text -> typed facts, on the controller.

One module per family of outputs; each parser registers itself with @parser next to its code
(_registry.py says how). Importing this package registers them all. Needs only textfsm and the
standard library.
"""

from __future__ import annotations

from . import cumulus, eos, linux, nccl, nxos, sonic, training  # noqa: F401  registers their parsers
from . import kernel_log, nvidia_smi  # noqa: F401  registers the GPU health parsers
from . import iputils, perftest  # noqa: F401  registers the rail mesh parsers (ping, ib_write_bw)
from . import roce  # noqa: F401  registers the host RoCE parsers (mlnx_qos, ethtool -S, rail sysfs)
from . import prometheus  # noqa: F401  registers the telemetry parser (Prometheus' HTTP API)
from ._registry import KINDS, PARSERS, TEMPLATE_DIR, TEXTFSM_IMPORT_ERROR, ParseError, parse, parser, partial, template_path, textfsm_rows

__all__ = ["KINDS", "PARSERS", "TEMPLATE_DIR", "TEXTFSM_IMPORT_ERROR", "ParseError", "parse", "parser", "partial", "template_path", "textfsm_rows"]
