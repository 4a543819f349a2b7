# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Host and switch agree (issue 14, catalog/roce_agree.yml): each GPU node's rail NIC against the leaf port it is
cabled to, at Layer 3. Each end may pass its own checks against the plan and still disagree with the other (a
per-host or per-switch override of pyramid_roce_priority / pyramid_pfc_priorities, a platform whose own check
cannot name the priority): then RoCE is lossy on that link.

The switch side comes from the switches' own results files (their Layer 3 facts, read by their Layer 3 checks):
``cabled_ports`` turns them into the node's ``cabled_switch_ports`` input (core/engine.py check_inputs passes it to
a check with ``switch_facts: true``). The cabling is the plan, pyramid_switch_ports (port -> peer node and the
peer's rail netdev), proven against LLDP at Layer 1 (a miscabled port failed there and blocked its node).

What is compared, per rail, where both ends show it:
- PFC: every priority the NIC has PFC on is lossless on the switch port (SONiC `show pfc priority`, NVUE `nv show
  interface <port> qos roce status`; NX-OS shows only the Oper Mode, EOS is not read: not compared, said so).
- MTU: the host's rail MTU no larger than the port's (SONiC `show interfaces status`, NVUE `nv show interface`; EOS and
  NX-OS not read yet: not compared, said so).
- The switch's DSCP map and its ECN profile on the RoCE queue: not read from any platform yet, said so (never a
  PASS on them).
A rail whose either end was not read is an ERROR naming it; a node where nothing could be compared is SKIP (not
applicable), never a PASS.
"""

from __future__ import annotations

from ..core.model import ERROR, FAIL, PASS, SKIP, SourceFailure, counted, verdict
from .registry import judge, summary as _summary
from .roce import rail_name
from .switch import _table

# The switch-side values not read on any platform yet: named in every verdict so that no one reads a PASS as
# covering them.
NOT_READ = "the switches' DSCP-to-priority map and ECN profile on the RoCE queue not read from the switches yet"


def cabled_ports(node, switch_docs):
    """The planned switch ports whose peer is ``node``: [{switch, os, port, peer_port, pfc, mtu}] from the switches'
    results files. ``pfc``: that port's {"enabled", "priorities"} (priorities None: the platform names none); ``mtu``
    its MTU; either a SourceFailure (the read failed) or None (the switch's Layer 3 did not read it: its platform
    has no way)."""
    found = []
    for doc in switch_docs:
        expect = doc.get("expect") or {}
        for entry in expect.get("pyramid_switch_ports") or []:
            if entry.get("peer") != node or entry.get("role", "host") != "host":
                continue
            found.append({"switch": doc["host"], "os": expect.get("pyramid_switch_os"), "port": entry["port"],
                          "peer_port": entry.get("peer_port"), "pfc": _port_value(doc, "sw_pfc_state", "pfc", entry["port"]),
                          "mtu": _port_value(doc, "sw_port_mtu", "mtu", entry["port"])})
    return found


def _port_value(doc, source, key, port):
    """One port's value of one of the switch's Layer 3 sources: the value, a SourceFailure, or None (not read)."""
    state = (doc.get("facts") or {}).get("layer3", {}).get(source)
    if state is None:
        return None
    if isinstance(state, SourceFailure):
        return state
    if isinstance(state.get(port), SourceFailure):  # a per-port read (NVUE) that failed for this port
        return state[port]
    table, _failures = _table(state, key)
    if port not in table:
        return SourceFailure(source, "%s not listed in the %s read" % (port, source), "unreadable")
    return table[port]


def _rail_of(facts, rails, peer_port):
    """The declared rail whose netdev the plan names at the far end of a switch port, or None."""
    for rail in rails:
        listing = (facts.get("rail_netdev") or {}).get(rail)
        if isinstance(listing, dict) and peer_port in (listing.get("entries") or []):
            return rail
    return None


def _nic_lossless(qos):
    return [prio for prio, on in enumerate(qos["pfc_enabled"]) if on]


def _prios(values):
    return ",".join(str(p) for p in values) or "none"


def _compare(node, rail_said, host, port):
    """(problems, compared, not compared, unread) for one rail (``host``: its mlnx_qos and MTU facts) and its leaf
    port."""
    out = ([], [], [], [])
    for item in (_compare_pfc, _compare_mtu):
        for into, said in zip(out, item(node, rail_said, host, port, "%s %s" % (port["switch"], port["port"]))):
            if said:
                into.append(said)
    return out


def _compare_pfc(node, rail_said, host, port, end):
    pfc = port["pfc"]
    if isinstance(pfc, SourceFailure):
        return None, None, None, "%s: PFC state not read (%s)" % (end, pfc.reason)
    if pfc is None:
        return None, None, "%s: PFC priority not read on %s" % (end, port["os"] or "this platform"), None
    nic = _nic_lossless(host["qos"])
    if pfc["priorities"] is None:  # NX-OS: the Oper Mode alone
        if not pfc["enabled"]:
            return "%s %s PFC on priority %s; %s PFC Oper Mode Off" % (node, rail_said, _prios(nic), end), None, None, None
        return None, None, "%s: PFC on, priority not shown by %s" % (end, port["os"] or "the platform"), None
    lossless = sorted(pfc["priorities"]) if pfc["enabled"] else []
    if not nic or not set(nic) <= set(lossless):
        return "%s %s PFC on priority %s; %s lossless priority %s" % (node, rail_said, _prios(nic), end, _prios(lossless)), \
            None, None, None
    return None, "%s PFC %s = %s %s" % (rail_said.split(" ")[0], _prios(nic), end, _prios(lossless)), None, None


def _compare_mtu(node, rail_said, host, port, end):
    mtu, switch = host["mtu"], port["mtu"]
    if isinstance(switch, SourceFailure):
        return None, None, None, "%s: MTU not read (%s)" % (end, switch.reason)
    if switch is None:
        return None, None, "%s: MTU not read on %s" % (end, port["os"] or "this platform"), None
    if isinstance(mtu, SourceFailure) or mtu is None:
        return None, None, None, "%s: MTU not read (%s)" % (rail_said, mtu.reason if mtu is not None else "not read")
    if mtu["mtu"] > switch:
        return "%s %s MTU %d; %s MTU %d (smaller: the leaf drops the larger frames)" % (node, rail_said, mtu["mtu"], end, switch), \
            None, None, None
    return None, "%s MTU %d <= %s %d" % (rail_said.split(" ")[0], mtu["mtu"], end, switch), None, None


def _judge_node(node, facts, expect):
    rails = expect["pyramid_rails"]
    expected = ("every rail's PFC priorities lossless on its leaf port (pyramid_switch_ports) and its MTU <= the port's; "
                "DSCP %d mapped and ECN on that queue where the switch shows them" % expect["pyramid_roce_dscp"])
    if expect["pyramid_rdma_link_layer"] != "roce":
        return verdict(SKIP, expected, "not applicable: the rails are InfiniBand (pyramid_rdma_link_layer), not RoCE",
                       not_applicable=True)
    ports = facts.get("cabled_switch_ports") or []
    if not ports:
        return verdict(SKIP, expected, "not applicable: no switch in this run plans a port cabled to %s" % node,
                       not_applicable=True)
    bad, unread, compared, skipped, agreeing = [], [], [], [], set()
    for port in ports:
        rail = _rail_of(facts, rails, port["peer_port"])
        if rail is None:
            unread.append("%s %s: its peer port %s is no rail netdev of %s" % (port["switch"], port["port"], port["peer_port"], node))
            continue
        qos = (facts.get("roce_qos") or {}).get(rail)
        if qos is None or isinstance(qos, SourceFailure):
            unread.append("%s: mlnx_qos not read (%s)" % (rail_name(facts, rail), qos.reason if qos is not None else "not read"))
            continue
        host = {"qos": qos, "mtu": (facts.get("rail_mtu") or {}).get(rail)}
        outcome = _compare(node, rail_name(facts, rail), host, port)
        for into, said in zip((bad, compared, skipped, unread), outcome):
            into.extend(said)
        if outcome[1]:
            agreeing.add(rail)
    if bad:
        return verdict(FAIL, expected, _summary(bad + ["not read: " + item for item in unread]))
    if unread:
        return verdict(ERROR, expected, "not read: %s" % _summary(unread),
                       cause="One end of a rail's link not read: host and switch cannot be compared there")
    if not compared:
        return verdict(SKIP, expected, "not applicable: nothing comparable (%s; %s)" % (_summary(skipped, 3), NOT_READ),
                       not_applicable=True)
    said = "%s agree with their leaf ports: %s" % (counted(len(agreeing), "rail"), _summary(sorted(set(compared))))
    if skipped:
        said += "; not compared: %s" % _summary(skipped, 3)
    return verdict(PASS, expected, "%s (%s)" % (said, NOT_READ))


@judge("roce_host_switch_agree", pod=True)
def roce_host_switch_agree(facts_by_host, expect_by_host):
    return {host: _judge_node(host, facts, expect_by_host[host]) for host, facts in facts_by_host.items()}


@judge("port_mtu")
def port_mtu(facts, expect):
    """The switch's own side of the MTU: every host-facing planned port at least the rails' MTU (an uplink's MTU is
    the fabric's concern, not a host's). A planned port the read does not list is not read, never taken as fitting."""
    want = expect["pyramid_rail_mtu"]
    table, failures = _table(facts["sw_port_mtu"], "mtu")
    hosts = [entry for entry in expect["pyramid_switch_ports"] if entry.get("role", "host") == "host"]
    expected = "MTU >= %d (pyramid_rail_mtu) on every host port" % want
    small, ports, unread = [], [], []
    for entry in hosts:
        mtu = table.get(entry["port"])
        if mtu is None:
            unread.append("%s: MTU not listed" % entry["port"])
        elif mtu < want:
            small.append("%s MTU %d < %d (%s %s)" % (entry["port"], mtu, want, entry.get("peer") or "?", entry.get("peer_port") or "?"))
            ports.append(entry["port"])
    if small:
        return verdict(FAIL, expected, _summary(small + ["not read: " + item for item in failures + unread]),
                       detail={"ports": sorted(ports), "device": False})
    if failures or unread:
        return verdict(ERROR, expected, "MTU not read: %s" % _summary(failures + unread, 3),
                       cause="The MTU read does not list every host port: no port is taken as fitting on a read that does not show it")
    if not hosts:
        return verdict(SKIP, expected, "not applicable: no host port in pyramid_switch_ports", not_applicable=True)
    return verdict(PASS, expected, "%s at MTU %s" % (counted(len(hosts), "host port"),
                                                     ", ".join(str(m) for m in sorted({table[e["port"]] for e in hosts}))))
