# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What libibverbs' own tools print about a host's RDMA devices (rdma-core's ibverbs-utils)."""

from __future__ import annotations

import re

from ._registry import parser

# ibv_devinfo.c (rdma-core): "hca_id:\t<name>", the device's fields one tab in, then per port "\t\tport:\t<n>" and
# its fields two tabs in, in this order: state, max_mtu, active_mtu, sm_lid, port_lid, port_lmc, link_layer (absent
# from releases before RoCE, 2010). An MTU prints as "4096 (5)": bytes and the IBA enum. The state words changed
# ("active (4)" in OFED 1.x, "PORT_ACTIVE (4)" since). Captures: tests/unit/parsers/linux_ibv_devinfo.
_HCA = re.compile(r"^hca_id:\s*(\S+)\s*$")
_FIELD = re.compile(r"^(\t+|\s+)(\w+):\s*(.*?)\s*$")
_MTU = re.compile(r"^(256|512|1024|2048|4096) \(([1-5])\)$")
PORT_FIELDS = ("state", "max_mtu", "active_mtu", "sm_lid", "port_lid", "port_lmc")  # every release prints these
_STATES = {"1": "Down", "2": "Initializing", "3": "Armed", "4": "Active", "5": "Active_defer"}


def _mtu(text, field, where):
    match = _MTU.match(text)
    if not match or 2 ** (int(match.group(2)) + 7) != int(match.group(1)):
        raise ValueError("%s: %s %r is not an InfiniBand MTU (256-4096 and its enum)" % (where, field, text))
    return int(match.group(1))


@parser("linux_ibv_devinfo",
        "ibv_devinfo -d DEV: each port's state, its largest and its active (negotiated) MTU, LIDs and link layer",
        kind="text")
def ibv_devinfo(text):
    """{"devices": {name: {"fw_ver", "node_guid", "ports": {"1": {"state" (Active, Down...), "max_mtu", "active_mtu"
    (bytes), "sm_lid", "port_lid", "link_layer" (None before RoCE)}}}}}. A device's ports must be the phys_port_cnt it
    declares, each with every field every release prints: a port cut short is no read."""
    devices, device, port = {}, None, None
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        head = _HCA.match(line)
        if head:
            device = devices.setdefault(head.group(1), {"ports": {}, "fields": {}})
            port = None
            continue
        field = _FIELD.match(line)
        if not field or device is None:
            raise ValueError("line %d is no ibv_devinfo field: %r" % (number, line[:120]))
        indent, name, value = field.groups()
        if name == "port":
            port = device["ports"].setdefault(value, {})
        elif port is not None and len(indent.expandtabs(8)) > 8:
            port[name] = value
        else:
            device["fields"][name] = value
    if not devices:
        raise ValueError("no hca_id: not ibv_devinfo's output (no RDMA device, or another command's answer)")
    return {"devices": {name: _device(name, device) for name, device in devices.items()}}


def _device(name, device):
    fields = device["fields"]
    count = fields.get("phys_port_cnt")
    if count is None or not count.isdigit() or int(count) != len(device["ports"]):
        raise ValueError("%s: %d ports listed, phys_port_cnt %s: the read was cut short" % (name, len(device["ports"]), count))
    ports = {}
    for number, port in device["ports"].items():
        where = "%s port %s" % (name, number)
        missing = [field for field in PORT_FIELDS if field not in port]
        if missing:
            raise ValueError("%s: no %s: the read was cut short" % (where, ", ".join(missing)))
        state = re.match(r"^\S+ \(([1-5])\)$", port["state"])
        if not state:
            raise ValueError("%s: state %r is no port state" % (where, port["state"]))
        ports[number] = {"state": _STATES[state.group(1)], "max_mtu": _mtu(port["max_mtu"], "max_mtu", where),
                         "active_mtu": _mtu(port["active_mtu"], "active_mtu", where), "sm_lid": port["sm_lid"],
                         "port_lid": port["port_lid"], "link_layer": port.get("link_layer")}
    return {"fw_ver": fields.get("fw_ver"), "node_guid": fields.get("node_guid"), "ports": ports}
