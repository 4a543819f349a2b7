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
- MTU, the switch's DSCP map and its ECN profile on the RoCE queue: not read from any platform yet, said so
  (never a PASS on them).
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
NOT_READ = "switch port MTU, DSCP-to-priority map and ECN profile on the RoCE queue not read from the switches yet"


def cabled_ports(node, switch_docs):
    """The planned switch ports whose peer is ``node``: [{switch, os, port, peer_port, pfc}] from the switches'
    results files. ``pfc``: that port's {"enabled", "priorities"} (priorities None: the platform names none), a
    SourceFailure (the read failed), or None (the switch's Layer 3 did not read PFC: its platform has no way)."""
    found = []
    for doc in switch_docs:
        expect = doc.get("expect") or {}
        for entry in expect.get("pyramid_switch_ports") or []:
            if entry.get("peer") != node or entry.get("role", "host") != "host":
                continue
            found.append({"switch": doc["host"], "os": expect.get("pyramid_switch_os"), "port": entry["port"],
                          "peer_port": entry.get("peer_port"), "pfc": _port_pfc(doc, entry["port"])})
    return found


def _port_pfc(doc, port):
    state = (doc.get("facts") or {}).get("layer3", {}).get("sw_pfc_state")
    if state is None:
        return None
    if isinstance(state, SourceFailure):
        return state
    if isinstance(state.get(port), SourceFailure):  # a per-port read (NVUE) that failed for this port
        return state[port]
    table, _failures = _table(state, "pfc")
    if port not in table:
        return SourceFailure("sw_pfc_state", "%s not listed in the PFC state read" % port, "unreadable")
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


def _compare(node, rail_said, qos, port):
    """(problem, compared, not_compared, unread) for one rail and its leaf port."""
    end = "%s %s" % (port["switch"], port["port"])
    pfc = port["pfc"]
    if isinstance(pfc, SourceFailure):
        return None, None, None, "%s: PFC state not read (%s)" % (end, pfc.reason)
    if pfc is None:
        return None, None, "%s: PFC priority not read on %s" % (end, port["os"] or "this platform"), None
    nic = _nic_lossless(qos)
    if pfc["priorities"] is None:  # NX-OS: the Oper Mode alone
        if not pfc["enabled"]:
            return ("%s %s PFC on priority %s; %s PFC Oper Mode Off" % (node, rail_said, _prios(nic), end)), None, None, None
        return None, None, "%s: PFC on, priority not shown by %s" % (end, port["os"] or "the platform"), None
    lossless = sorted(pfc["priorities"]) if pfc["enabled"] else []
    if not nic or not set(nic) <= set(lossless):
        return ("%s %s PFC on priority %s; %s lossless priority %s" % (node, rail_said, _prios(nic), end, _prios(lossless))), \
            None, None, None
    return None, "%s PFC %s = %s %s" % (rail_said.split(" ")[0], _prios(nic), end, _prios(lossless)), None, None


def _judge_node(node, facts, expect):
    rails = expect["pyramid_rails"]
    expected = ("every rail's PFC priorities lossless on its leaf port (pyramid_switch_ports); host MTU <= switch MTU, "
                "DSCP %d mapped and ECN on that queue where the switch shows them" % expect["pyramid_roce_dscp"])
    if expect["pyramid_rdma_link_layer"] != "roce":
        return verdict(SKIP, expected, "not applicable: the rails are InfiniBand (pyramid_rdma_link_layer), not RoCE",
                       not_applicable=True)
    ports = facts.get("cabled_switch_ports") or []
    if not ports:
        return verdict(SKIP, expected, "not applicable: no switch in this run plans a port cabled to %s" % node,
                       not_applicable=True)
    bad, unread, compared, skipped = [], [], [], []
    for port in ports:
        rail = _rail_of(facts, rails, port["peer_port"])
        if rail is None:
            unread.append("%s %s: its peer port %s is no rail netdev of %s" % (port["switch"], port["port"], port["peer_port"], node))
            continue
        qos = (facts.get("roce_qos") or {}).get(rail)
        if qos is None or isinstance(qos, SourceFailure):
            unread.append("%s: mlnx_qos not read (%s)" % (rail_name(facts, rail), qos.reason if qos is not None else "not read"))
            continue
        problem, same, left, failed = _compare(node, rail_name(facts, rail), qos, port)
        for kept, into in ((problem, bad), (same, compared), (left, skipped), (failed, unread)):
            if kept:
                into.append(kept)
    if bad:
        return verdict(FAIL, expected, _summary(bad + ["not read: " + item for item in unread]))
    if unread:
        return verdict(ERROR, expected, "not read: %s" % _summary(unread),
                       cause="One end of a rail's link not read: host and switch cannot be compared there")
    if not compared:
        return verdict(SKIP, expected, "not applicable: nothing comparable (%s; %s)" % (_summary(skipped, 3), NOT_READ),
                       not_applicable=True)
    said = "%s agree with their leaf ports: %s" % (counted(len(compared), "rail"), _summary(sorted(set(compared)), 4))
    if skipped:
        said += "; not compared: %s" % _summary(skipped, 3)
    return verdict(PASS, expected, "%s (%s)" % (said, NOT_READ))


@judge("roce_host_switch_agree", pod=True)
def roce_host_switch_agree(facts_by_host, expect_by_host):
    return {host: _judge_node(host, facts, expect_by_host[host]) for host, facts in facts_by_host.items()}
