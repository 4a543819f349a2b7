# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Host and switch agree (issue 14, catalog/roce_agree.yml): each GPU node's rail NIC against the leaf port it is
cabled to, at Layer 3. Each end may pass its own checks against the plan and still disagree with the other (a
per-host or per-switch override of pyramid_roce_priority / pyramid_pfc_priorities, a platform whose own check
cannot name the priority): then RoCE is lossy on that link.

The switch side comes from the switches' own results files (their Layer 3 facts, read by their Layer 3 checks):
``cabled_ports`` turns them into the node's ``cabled_switch_ports`` input (run/engine.py check_inputs passes it to
a check with ``switch_facts: true``). The cabling is the plan, pyramid_switch_ports (port -> peer node and the
peer's rail netdev), proven against LLDP at Layer 1 (a miscabled port failed there and blocked its node).

What is compared, per rail, where both ends show it:
- PFC: every priority the NIC has PFC on is lossless on the switch port (SONiC `show pfc priority`, NVUE `nv show
  interface <port> qos roce status`, EOS the no-drop priorities the port's running-config configures; NX-OS shows only
  the Oper Mode: not compared, said so).
- MTU: the host's rail MTU no larger than the port's (EOS `show interfaces | json`, NX-OS `show interface <port>`, SONiC
  `show interfaces status`, NVUE `nv show interface`).
- The DSCP map (trust dscp both ends; the switch's RoCE DSCP lands on the same priority in the NIC's dscp2prio) and
  ECN on the traffic class of the NIC's lossless priority: NVUE's `qos roce status`; the other platforms not read
  yet: not compared, said so (never a PASS on them).
A rail whose either end was not read is an ERROR naming it; a node where nothing could be compared is SKIP (not
applicable), never a PASS.
"""

from __future__ import annotations

from ..core.model import ERROR, FAIL, PASS, SKIP, SourceFailure, counted, verdict
from .registry import judge, summary as _summary
from .roce import prio_of_dscp, rail_name
from .switch import _table

# Where the switch-side DSCP map and ECN profile come from: named in every PASS so that no one reads it as covering
# them on the other platforms.
NOT_READ = "the DSCP map and the ECN profile read from NVUE only"


def cabled_ports(node, switch_docs):
    """The planned switch ports whose peer is ``node``: [{switch, os, port, peer_port, pfc, mtu, map}] from the switches'
    results files. ``pfc``: that port's {"enabled", "priorities"} (priorities None: the platform names none); ``mtu``
    its MTU; ``map`` its RoCE trust, DSCP, priority, traffic class and ECN classes (NVUE); each either a SourceFailure
    (the read failed) or None (the switch's Layer 3 did not read it: its platform has no way)."""
    found = []
    for doc in switch_docs:
        expect = doc.get("expect") or {}
        for entry in expect.get("pyramid_switch_ports") or []:
            if entry.get("peer") != node or entry.get("role", "host") != "host":
                continue
            found.append({"switch": doc["host"], "os": expect.get("pyramid_switch_os"), "port": entry["port"],
                          "peer_port": entry.get("peer_port"), "pfc": _port_value(doc, "sw_pfc_state", "pfc", entry["port"]),
                          "mtu": _port_value(doc, "sw_port_mtu", "mtu", entry["port"]),
                          "map": _port_value(doc, "sw_roce_map", "roce_map", entry["port"])
                          if expect.get("pyramid_switch_os") == "cumulus" else None,  # EOS's port facts need its qos maps too
                          "failed": _failed_on(doc, entry["port"])})
    return found


def _failed_on(doc, port):
    """The switch's own Layer 3 checks that FAILed on ``port`` (or on the whole switch): a disagreement there is the
    switch's finding, already blocking the node behind it, not the node's."""
    failed = []
    for record in doc.get("results") or []:
        if record.get("layer") != 3 or record.get("status") != FAIL:
            continue
        ports = (record.get("detail") or {}).get("ports") or []
        if port in ports or (record.get("detail") or {}).get("device"):
            failed.append(record["check"])
    return sorted(set(failed))


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
    for item in (_compare_pfc, _compare_mtu, _compare_dscp, _compare_ecn):
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


def _compare_dscp(node, rail_said, host, port, end):
    """The DSCP the switch port classifies RoCE by lands on the same priority at the NIC (trust dscp both ends)."""
    qos_map, qos = port.get("map"), host["qos"]
    if isinstance(qos_map, SourceFailure):
        return None, None, None, "%s: RoCE QoS not read (%s)" % (end, qos_map.reason)
    if qos_map is None:
        return None, None, "%s: DSCP map not read on %s" % (end, port["os"] or "this platform"), None
    dscp, prio = qos_map["roce_dscp"], qos_map["roce_priority"]
    if "dscp" not in qos_map["trust"]:
        return "%s %s trust %s; %s trust %s (no DSCP)" % (node, rail_said, qos["trust"], end, ",".join(qos_map["trust"])), None, None, None
    if qos["trust"] != "dscp":
        return "%s %s trust %s (no DSCP map); %s maps DSCP %d to priority %d" % (node, rail_said, qos["trust"], end, dscp, prio), \
            None, None, None
    mapped = prio_of_dscp(qos["dscp2prio"], dscp)
    if mapped != prio:
        return "%s %s maps DSCP %d to priority %s; %s maps DSCP %d to priority %d" % (
            node, rail_said, dscp, "none" if mapped is None else mapped, end, dscp, prio), None, None, None
    return None, "%s DSCP %d -> %d = %s" % (rail_said.split(" ")[0], dscp, prio, end), None, None


def _compare_ecn(node, rail_said, host, port, end):
    """ECN (the switch marking for DCQCN) on the traffic class of the NIC's lossless priority."""
    qos_map = port.get("map")
    if qos_map is None or isinstance(qos_map, SourceFailure):
        return None, None, (None if isinstance(qos_map, SourceFailure) else "%s: ECN profile not read on %s" % (
            end, port["os"] or "this platform")), None
    nic = _nic_lossless(host["qos"])
    if qos_map["roce_tc"] is None or nic != [qos_map["roce_priority"]]:
        return None, None, "%s: the traffic class of priority %s not shown" % (end, _prios(nic)), None
    if qos_map["roce_tc"] not in qos_map["ecn_tcs"]:
        return "%s %s PFC on priority %s; %s ECN off on its traffic class %d (enabled-tc %s)" % (
            node, rail_said, _prios(nic), end, qos_map["roce_tc"], _prios(qos_map["ecn_tcs"])), None, None, None
    return None, "%s ECN on tc %d at %s" % (rail_said.split(" ")[0], qos_map["roce_tc"], end), None, None


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
        if outcome[0] and port.get("failed"):  # the switch's own check already failed this port: its finding, not the node's
            skipped.append("%s %s (%s FAILed there: the switch's finding)" % (port["switch"], port["port"], ", ".join(port["failed"])))
            continue
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


@judge("roce_host_switch_agree", scope="pod")
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


@judge("roce_port_qos")
def roce_port_qos(facts, expect):
    """The switch's own side of RoCE's class on every host port: trust includes DSCP, the RoCE DSCP is
    pyramid_roce_dscp on a lossless priority (pyramid_pfc_priorities), and ECN is on that priority's traffic class.
    NVUE: its `qos roce status`. EOS: the configuration (the port's stanza, its service-profile and the switch's qos
    maps, see _eos_maps), where nothing the judge needs is taken from EOS's defaults: a port no line configures is
    unverified (ERROR), never assumed right."""
    # EOS's per-port facts are its configuration lines (keyed qos_config), NVUE's the map itself
    # NX-OS's one `show running-config ipqos` read holds every policy and where it is attached
    nxos = "class_maps" in facts["sw_roce_map"]
    eos = nxos or any(isinstance(value, dict) and "qos_config" in value for value in facts["sw_roce_map"].values())
    dscp, lossless = expect["pyramid_roce_dscp"], sorted(set(expect["pyramid_pfc_priorities"]))
    table, failures = ({}, []) if nxos else _table(facts["sw_roce_map"], "qos_config" if eos else "roce_map")
    hosts = [entry for entry in expect["pyramid_switch_ports"] if entry.get("role", "host") == "host"]
    expected = "trust dscp, DSCP %d on lossless priority %s, ECN on its traffic class, on every host port" % (
        dscp, ",".join(map(str, lossless)))
    if nxos:
        table, unread = _nxos_maps(facts["sw_roce_map"], dscp, hosts)
        expected += " (the running-config)"
    elif eos:
        table, unread = _eos_maps(table, facts.get("sw_qos_config"), dscp, hosts, facts["sw_roce_map"])
        expected += " (the running-config)"
    else:
        unread = []
    bad, ports = [], []
    for entry in hosts:
        qos = table.get(entry["port"])
        if qos is None:
            if not eos and (entry["port"] not in facts["sw_roce_map"] or not isinstance(facts["sw_roce_map"][entry["port"]], SourceFailure)):
                unread.append("%s: RoCE QoS not listed" % entry["port"])
            continue
        if qos["roce_tc"] is None:  # the read shows no SP->TC table: ECN on RoCE's class cannot be told
            unread.append("%s: no SP->TC mapping shown" % entry["port"])
            continue
        problems = _port_qos_problems(qos, dscp, lossless)
        if problems:
            bad.append("%s (%s %s): %s" % (entry["port"], entry.get("peer") or "?", entry.get("peer_port") or "?", "; ".join(problems)))
            ports.append(entry["port"])
        elif qos.get("ecn_unproven"):  # no ECN line on a stanza that may be cut: neither right nor wrong
            unread.append(qos["ecn_unproven"])
    if bad:
        return verdict(FAIL, expected, _summary(bad + ["not read: " + item for item in failures + unread]),
                       detail={"ports": sorted(ports), "device": False})
    if (failures or unread) and eos:
        # unverified ports only (no switch-wide read missing): confined to them, so only the nodes behind them wait
        named = sorted(entry["port"] for entry in hosts if any(item.startswith(entry["port"] + ":") for item in failures + unread))
        confined = len(named) == len(failures + unread)
        return verdict(ERROR, expected, "RoCE QoS not read or not configured by any line: %s" % _summary(failures + unread, 3),
                       cause="The configuration read does not say every host port's RoCE class: none is taken as right on "
                             "the platform's defaults or on a read that may be cut short",
                       **({"detail": {"ports": named, "device": False}} if confined else {}))
    if failures or unread:
        return verdict(ERROR, expected, "RoCE QoS not read: %s" % _summary(failures + unread, 3),
                       cause="The RoCE QoS read does not show every host port: none is taken as right on a read that does not show it")
    if not hosts:
        return verdict(SKIP, expected, "not applicable: no host port in pyramid_switch_ports", not_applicable=True)
    return verdict(PASS, expected, "%s: trust dscp, DSCP %d -> priority %s, ECN on traffic class %s%s" % (
        counted(len(hosts), "host port"), dscp, ",".join(sorted({str(table[e["port"]]["roce_priority"]) for e in hosts})),
        ",".join(sorted({str(table[e["port"]]["roce_tc"]) for e in hosts})),
        " (configured: the running-config, not the operational state)" if eos else ""))  # eos: EOS and NX-OS


def _eos_maps(table, switch_wide, dscp, hosts, reads):
    """({port: the NVUE-shaped map}, [unverified]) of EOS's configuration: each port's `qos trust` (its own line, else
    its service-profile's), the traffic class `qos map dscp` puts pyramid_roce_dscp in, the tx-queue `qos map
    traffic-class` puts that class in, and whether that tx-queue marks ECN (the port's or its profile's
    `random-detect ecn minimum-threshold`). Where no line says it, EOS's default (trust, DSCP and queue maps) is not
    assumed: the port is unverified. EOS's PFC priority of a traffic class is its number (`priority-flow-control
    priority 3 no-drop` makes traffic class 3 lossless): the class is the RoCE priority judged against
    pyramid_pfc_priorities."""
    if not isinstance(switch_wide, dict) or "dscp_tc" not in switch_wide:
        return {}, ["show running-config section qos not read (the DSCP map and the qos profiles): no port's class can be told"]
    maps, unread = {}, []
    tc = switch_wide["dscp_tc"].get(dscp)
    queue = switch_wide["tc_queue"].get(tc) if tc is not None else None
    for entry in hosts:
        port = table.get(entry["port"])
        if port is None:  # a failed read is named among the failures; any other port the reads lack, here
            if not isinstance(reads.get(entry["port"]), SourceFailure):
                unread.append("%s: RoCE QoS not listed" % entry["port"])
            continue
        profile = switch_wide["profiles"].get(port["profile"]) if port["profile"] else {}
        if profile is None:
            unread.append("%s: its service-profile %s is not in the qos section read" % (entry["port"], port["profile"]))
            continue
        if port["trust"] is None and not port.get("trust_complete", port["complete"]):
            unread.append("%s: no qos trust line in the stanza as read, which shows no line printed after it (a read cut "
                          "short before it cannot be told from a port on its profile's trust)" % entry["port"])
            continue
        trust = port["trust"] or profile.get("trust")
        said = _eos_unverified(trust, tc, queue, dscp)
        if said:
            unread.append("%s: %s" % (entry["port"], said))
            continue
        if trust != "dscp":  # trust cos or none: the DSCP map does not classify this port's traffic at all
            maps[entry["port"]] = {"trust": [trust], "roce_dscp": dscp, "roce_priority": None, "roce_tc": "-", "ecn_tcs": [],
                                   "ecn_said": ""}
            continue
        ecn = sorted(set(port["ecn_queues"]) | set(profile.get("ecn_queues") or []))
        maps[entry["port"]] = {"trust": [trust], "roce_dscp": dscp, "roce_priority": tc, "roce_tc": tc,
                               "ecn_tcs": [tc] if queue in ecn else [], "ecn_said": "no random-detect ecn on tx-queue %d, RoCE's "
                               "traffic class %d's queue (ECN on tx-queue %s)" % (queue, tc, _prios(ecn))}
        if queue not in ecn and not port["complete"]:
            maps[entry["port"]]["ecn_unproven"] = (
                "%s: no random-detect ecn on tx-queue %d in the stanza as read (no closing line: a read cut short before its "
                "tx-queue blocks cannot be told from none)" % (entry["port"], queue))
            maps[entry["port"]]["ecn_tcs"] = [tc]  # judged unread below, not FAIL
    return maps, unread


def _nxos_maps(config, dscp, hosts):
    """({port: the NVUE-shaped map}, [unverified]) of NX-OS's ipqos configuration: the port's `service-policy type qos
    input` (its own, else system qos's) puts pyramid_roce_dscp in a qos-group by the first class whose class-map matches
    that DSCP (none: class-default, qos-group 0); system qos's network-qos policy pauses that group on its `pause
    pfc-cos` (the RoCE priority; none: lossy); the port's or system qos's `service-policy type queuing output` marks
    ECN on the group's queue (`random-detect ... ecn`). What is attached nowhere is unverified, never NX-OS's default."""
    maps, unread = {}, []
    network = config["network_qos"].get(config["system"].get("network-qos"))
    for entry in hosts:
        attached = dict(config["system"], **config["ports"].get(entry["port"], {}))
        said = _nxos_unattached(config, attached, network) or _nxos_no_block(config, entry["port"])
        if said:
            unread.append("%s: %s" % (entry["port"], said))
            continue
        group, trust, where = 0, ["dscp"], "DSCP %d in no class of %s: class-default, qos-group 0," % (dscp, attached["qos"])
        classes = [(config["class_maps"].get(name, {"dscp": [], "cos": []}), set_group) for name, set_group in config["qos"][attached["qos"]]]
        for matched, set_group in classes:
            if dscp in matched["dscp"]:
                group, where = set_group, "RoCE's qos-group %d" % set_group
                break
        else:  # DSCP in no class: the class-default; a policy that matches CoS alone does not classify by DSCP at all
            if not any(matched["dscp"] for matched, _group in classes) and any(matched["cos"] for matched, _group in classes):
                trust = ["cos"]
        cos = network.get(group) or []
        maps[entry["port"]] = {"trust": trust, "roce_dscp": dscp, "roce_priority": cos[0] if cos else None, "roce_tc": group,
                               "ecn_tcs": [group] if group in config["queuing"][attached["queuing"]] else [],
                               "ecn_said": "no random-detect ... ecn in queuing class c-out-8q-q%d of %s (ECN on qos-group %s)" % (
                                   group, attached["queuing"], _prios(config["queuing"][attached["queuing"]])),
                               "lossy_said": "%s has no pause pfc-cos in %s (lossy)" % (where, config["system"]["network-qos"])}
        if trust == ["cos"]:
            maps[entry["port"]].update(trust=["cos"], ecn_said="")
    return maps, unread


def _nxos_no_block(config, port):
    """Why a host port with no interface block of its own cannot be judged by system qos alone, or None.
    NX-OS prints the interface blocks last, after system qos, so a read cut short loses them first: a port's own
    queuing policy without ECN would then read as system qos's with it. A RoCE host port has a block of its own (its
    `priority-flow-control mode on`, in Cisco's AI/ML blueprint), so one with none is unverified."""
    if port in config["ports"]:
        return None
    return ("no `interface %s` block in the read: NX-OS prints the interface blocks last, so a read cut short loses them "
            "first, and the port's own policies (which override system qos's) cannot be told from none" % port)


def _nxos_unattached(config, attached, network):
    """Why NX-OS's configuration does not say a port's class, or None."""
    for kind, line in (("qos", "service-policy type qos input"), ("queuing", "service-policy type queuing output")):
        if not attached.get(kind):
            return "no %s on the port or under system qos (NX-OS's default policy is not assumed)" % line
        if attached[kind] not in config[kind]:
            return "its %s policy-map %s is not in the read" % (kind, attached[kind])
    if network is None:
        return "no service-policy type network-qos under system qos, or its policy-map not in the read"
    return None


def _eos_unverified(trust, tc, queue, dscp):
    """Why EOS's configuration does not say the port's class, or None."""
    if trust is None:
        return "no qos trust line on the port or its service-profile (EOS's default trust is not assumed)"
    if trust != "dscp":
        return None  # a FAIL, said by _port_qos_problems
    if tc is None:
        return "no qos map dscp line maps DSCP %d (EOS's default DSCP map is not assumed)" % dscp
    if queue is None:
        return "no qos map traffic-class %d to tx-queue line (EOS's default queue map is not assumed)" % tc
    return None


def _port_qos_problems(qos, dscp, lossless):
    problems = []
    if "dscp" not in qos["trust"]:
        problems.append("trust %s, no dscp" % ",".join(qos["trust"]))
        if qos.get("ecn_said") is not None:  # EOS: without trust dscp its class (and queue) is not the DSCP map's
            return problems
    if qos["roce_dscp"] != dscp:
        problems.append("RoCE DSCP %d, want %d" % (qos["roce_dscp"], dscp))
    if qos["roce_priority"] is None and qos.get("lossy_said"):
        problems.append(qos["lossy_said"])
    elif qos["roce_priority"] not in lossless:
        problems.append("RoCE on switch-priority %d, not lossless (%s)" % (qos["roce_priority"], ",".join(map(str, lossless))))
    if qos["roce_tc"] not in qos["ecn_tcs"]:
        problems.append(qos.get("ecn_said") or "ECN off on RoCE's traffic class %d (enabled-tc %s)" % (
            qos["roce_tc"], ",".join(map(str, qos["ecn_tcs"])) or "none"))
    return problems
