# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Layer 7, telemetry (docs/telemetry.md): Prometheus' HTTP API asked from the controller (client.py) and the
run's results exported as Prometheus textfile metrics (export.py); the golden signals are judged per device by
the runner (run/telemetry.py)."""
