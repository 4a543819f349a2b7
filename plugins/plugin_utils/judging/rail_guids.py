# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The port GUIDs of rails read by `rdma link` (issue 67): the InfiniBand judges find a node's rails in the subnet read
by the port GUIDs of its rails' read (ibstat's "Port GUID"); where ibstat is missing and the rails were read by
iproute2's `rdma link`, which shows no GUID, the kernel's own (rail_port_guid_sysfs: the interface id of each port's
GID 0, where libibumad reads the GUID ibstat prints) stands in, as ports/1/rate and fw_ver do for the rate and the
firmware (judging/host.py _sysfs_of)."""

from __future__ import annotations

SOURCE = "rail_port_guid_sysfs"


def with_rail_guids(facts_by_host):
    """{host: facts}, each host's as with_rail_guid gives it."""
    return {host: with_rail_guid(facts) for host, facts in facts_by_host.items()}


def with_rail_guid(facts):
    """The host's facts, its rails' read (the ibstat source) with port 1 of each device that shows no port GUID given
    the one rail_port_guid_sysfs read for it (None where that read failed or was not made: the rail is then not found
    in the subnet read, an ERROR of the judge that looks for it). A read that shows port GUIDs (ibstat's) is left as
    it is, and so are the facts it was given."""
    read, sysfs = facts.get("ibstat"), facts.get(SOURCE)
    if not isinstance(read, dict) or not isinstance(read.get("devices"), dict):
        return facts
    devices, filled = {}, False
    for name, device in read["devices"].items():
        port = (device.get("ports") or {}).get("1")
        if port is None or "port_guid" in port:
            devices[name] = device
            continue
        gid = sysfs.get(name) if isinstance(sysfs, dict) else None
        guid = gid.get("port_guid") if isinstance(gid, dict) else None
        devices[name] = dict(device, ports=dict(device["ports"], **{"1": dict(port, port_guid=guid)}))
        filled = True
    return dict(facts, ibstat=dict(read, devices=devices)) if filled else facts
