# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Where discovery's plan comes from (playbooks/discover.yml's write step, the gpufabric.pyramid.discover action): one
of a cabling CSV, a NetBox export or AVD's structured configs, else the switches' own reads (run/discover.py)."""

from __future__ import annotations

from . import discover as _discover, discover_avd as _avd, discover_files as _files, discover_netbox as _netbox

FILE_SOURCES = ("cabling_csv", "netbox_export", "avd_structured_config")  # one per run, instead of the switches' reads


def plans(args, reads, inventory, switches, leaves):
    """(plans, failures, what was imported, the plan's origin in words), or None where two file sources are given
    (``args``: the task's; ``reads``: {switch: what its read task registered})."""
    given, imported = [key for key in FILE_SOURCES if args.get(key)], []
    if len(given) > 1:
        return None
    if args.get("netbox_export"):
        found, failures, imported = _netbox.from_export(args["netbox_export"], inventory, switches, leaves)
        return found, failures, imported, "from the NetBox export %s" % args["netbox_export"]
    if args.get("avd_structured_config"):
        found, failures, imported = _avd.from_structured_configs(args["avd_structured_config"], inventory, switches, leaves)
        return found, failures, imported, "from AVD's structured configs in %s" % args["avd_structured_config"]
    if args.get("cabling_csv"):
        try:
            with open(args["cabling_csv"], encoding="utf-8-sig") as handle:
                found, failures = _files.from_cabling_csv(handle.read(), inventory, switches, leaves)
        except (OSError, UnicodeDecodeError) as exc:
            found, failures = {}, ["not read: %s" % exc]
        return (found, ["%s %s" % (args["cabling_csv"], failure) for failure in failures], imported,
                "from the cabling CSV %s" % args["cabling_csv"])
    found, failures = _files.from_reads(reads, inventory, switches, leaves)
    return found, failures, imported, "as the fabric shows it (LLDP neighbours, BGP sessions, BGP routes: %s)" % ", ".join(
        _discover.SOURCES)
