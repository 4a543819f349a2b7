# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Read a device's expectations from its (templated) inventory variables."""

from __future__ import annotations

from . import catalog as _catalog, expectations as _expectations


# ansible_network_os -> pyramid_switch_os, for switches whose inventory sets only the former
NETWORK_OS = {"arista.eos.eos": "eos", "arista.eos": "eos", "eos": "eos", "cisco.nxos.nxos": "nxos", "cisco.nxos": "nxos", "nxos": "nxos",
              "dellemc.enterprise_sonic.sonic": "sonic", "sonic": "sonic", "nvidia.nvue.nvue": "cumulus", "cumulus": "cumulus"}


def raw_values(templar, variables, names):
    values = {}
    for name in names:
        if name in variables:
            values[name] = templar.template(variables[name])
    if "pyramid_switch_os" in names and values.get("pyramid_switch_os") is None and "ansible_network_os" in variables:
        network_os = str(templar.template(variables["ansible_network_os"]))
        values["pyramid_switch_os"] = NETWORK_OS.get(network_os, network_os)
    return values


def host_expectations(templar, task_vars, catalog, checks=None, extra=()):
    """(typed expectations, errors) for the checks given, or for the whole catalog, and the ``extra`` names."""
    names = sorted(set(_catalog.expectation_names(checks if checks is not None else catalog["checks"], catalog)) | set(extra))
    return _expectations.resolve(catalog, raw_values(templar, task_vars, names), names)
