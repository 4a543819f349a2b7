"""The twin's own cabling and IP plan as the files an operator would hand discover.yml (issue 71): NetBox's REST API
answers and AVD's structured configs, in their real shapes (tests/unit/discover_fixtures/SOURCES.md says where each
shape comes from). Used by tests/unit/test_discover_netbox.py, test_discover_avd.py and tests/e2e/test_discover.py."""

from pyramid_twin import switch_model  # twin/ on sys.path: tests/unit/conftest.py, tests/e2e/conftest.py

NETBOX = "https://netbox.example.net/api"


def links(topo):
    """One (switch, port, peer, peer_port) per cable: every leaf port (its host ports and uplinks); a spine's ports are
    the far ends of the leaves' uplinks."""
    return [(leaf, e["port"], e["peer"], e["peer_port"]) for leaf in topo["leaves"]
            for e in switch_model.inventory_vars(topo, leaf)["pyramid_switch_ports"]]


def _interface(ids, device, port, cable_id, v2=False):
    number = ids.setdefault((device, port), len(ids) + 1)
    device_id = sum(map(ord, device))
    nested = {"id": device_id, "url": "%s/dcim/devices/%d/" % (NETBOX, device_id), "name": device}
    nested["display_name" if v2 else "display"] = device
    found = {"id": number, "url": "%s/dcim/interfaces/%d/" % (NETBOX, number), "device": nested, "name": port, "cable": cable_id}
    if v2:
        found["connection_status"] = {"value": True, "label": "Connected"}
    else:
        found.update(display=port, _occupied=True)
    return found


def netbox_cable(ids, cable_id, a, b, v2=False):
    """One cable of /api/dcim/cables/: NetBox 3.3+'s a_terminations/b_terminations, or 2.x-3.2's termination_a/_b."""
    cable = {"id": cable_id, "url": "%s/dcim/cables/%d/" % (NETBOX, cable_id), "type": "smf", "status":
             {"value": "connected", "label": "Connected"}, "tenant": None, "label": "", "color": "", "length": None,
             "length_unit": None, "tags": [], "custom_fields": {}}
    if v2:
        for end, (device, port) in (("a", a), ("b", b)):
            cable["termination_%s_type" % end] = "dcim.interface"
            cable["termination_%s_id" % end] = ids.setdefault((device, port), len(ids) + 1)
            cable["termination_%s" % end] = _interface(ids, device, port, cable_id, v2=True)
    else:
        cable["display"] = "#%d" % cable_id
        for end, (device, port) in (("a", a), ("b", b)):
            term = _interface(ids, device, port, cable_id)
            cable["%s_terminations" % end] = [{"object_type": "dcim.interface", "object_id": term["id"], "object": term}]
    return cable


def page(results):
    """NetBox's answer to ?limit=0: the page of every object."""
    return {"count": len(results), "next": None, "previous": None, "results": results}


def netbox_export(topo, v2=False, swap=None):
    """(cables page, ip-addresses page) of the twin: ``swap`` a leaf whose first two uplink cables' far ends swap."""
    ids, cables, addresses = {}, [], []
    rows = links(topo)
    if swap:
        ups = [i for i, row in enumerate(rows) if row[0] == swap and row[2] in topo["spines"]]
        first, second = rows[ups[0]], rows[ups[1]]
        rows[ups[0]], rows[ups[1]] = first[:2] + second[2:], second[:2] + first[2:]
    for number, (switch, port, peer, peer_port) in enumerate(rows, start=1):
        cables.append(netbox_cable(ids, number, (switch, port), (peer, peer_port), v2))
    for switch in topo["switches"]:
        for entry in switch_model.inventory_vars(topo, switch)["pyramid_switch_ports"]:
            if entry.get("ip"):
                term = _interface(ids, switch, entry["port"], None)
                term.pop("cable")
                addresses.append({"id": len(addresses) + 1, "url": "%s/ipam/ip-addresses/%d/" % (NETBOX, len(addresses) + 1),
                                  "family": {"value": 4, "label": "IPv4"}, "address": entry["ip"], "vrf": None,
                                  "status": {"value": "active", "label": "Active"}, "role": None,
                                  "assigned_object_type": "dcim.interface", "assigned_object_id": term["id"],
                                  "assigned_object": term, "dns_name": "", "description": ""})
    return page(cables), page(addresses)


def avd_structured_config(topo, switch):
    """The switch's structured config as arista.avd's eos_designs writes it (AVD 4+: lists of dicts with their name)."""
    wanted = switch_model.inventory_vars(topo, switch)
    interfaces = []
    for entry in wanted["pyramid_switch_ports"]:
        peer_type = ("spine" if entry["peer"] in topo["spines"] else "l3leaf") if entry["role"] == "fabric" else "server"
        item = {"name": entry["port"], "description": "P2P_LINK_TO_%s_%s" % (entry["peer"].upper(), entry["peer_port"]),
                "shutdown": False, "mtu": 9214, "peer": entry["peer"], "peer_interface": entry["peer_port"], "peer_type": peer_type}
        if entry.get("ip"):
            item.update(ip_address=entry["ip"], switchport={"enabled": False})
        interfaces.append(item)
    neighbours = [{"ip_address": n["address"], "peer_group": "IPv4-UNDERLAY-PEERS", "remote_as": str(n["remote_as"]),
                   "peer": n["name"], "description": "%s_%s" % (n["name"], "underlay")} for n in wanted["pyramid_bgp_neighbors"]]
    # an EVPN overlay session between loopbacks: AVD writes it beside the underlay's, on no cabled link
    neighbours.append({"ip_address": "192.168.255.%d" % (len(switch) + 200), "peer_group": "EVPN-OVERLAY-PEERS",
                       "remote_as": "65001", "peer": "overlay-peer", "description": "overlay-peer"})
    return {"hostname": switch, "is_deployed": True, "ethernet_interfaces": interfaces,
            "metadata": {"platform": "7050X3", "fabric_name": "PYRAMID_TWIN"},
            "router_bgp": {"as": str(65000 + sum(map(ord, switch)) % 900), "router_id": "192.168.255.%d" % (len(switch) + 1),
                           "maximum_paths": {"paths": 4, "ecmp": 4},
                           "peer_groups": [{"name": "IPv4-UNDERLAY-PEERS", "type": "ipv4", "send_community": "all"},
                                           {"name": "EVPN-OVERLAY-PEERS", "type": "evpn", "update_source": "Loopback0"}],
                           "neighbors": neighbours}}
