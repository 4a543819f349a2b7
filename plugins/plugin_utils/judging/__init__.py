# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Judge stage: compare normalized facts with expectations, one verdict per check (see registry.py)."""

from __future__ import annotations

from . import fabric, host, switch, workload  # noqa: F401  registers their judges
from . import gpu_health, gpu_soak  # noqa: F401  registers the GPU health judges (Layer 0, and Layer 1 over the soak)
from . import rdma  # noqa: F401  registers the Layer 4 judges
from . import roce  # noqa: F401  registers the host RoCE judges (Layer 3)
from . import roce_agree  # noqa: F401  registers the host-and-switch agreement judge (Layer 3)
from . import telemetry  # noqa: F401  registers the Layer 7 judge
from . import incast  # noqa: F401  registers the induced incast's judge (Layer 3 under load)
from .registry import FABRIC_JUDGES, JUDGES, MESH_JUDGES, POD_JUDGES  # noqa: F401
