"""A twin pod's InfiniBand subnet as infiniband-diags prints it from any node: iblinkinfo, ibqueryerrors.

Layout (iblinkinfo.c, and real captures: tests/unit/parsers/linux_iblinkinfo, infiniband-diags 44.0 on ibsim, and a
public HDR Quantum capture for the speed hint): a "Switch: <GUID> <name>:" block with one line per port, every port
of the switch listed (an unused one Down/Polling), and a "CA: <node description>:" block per HCA whose port line starts
with the port GUID; a link shows "( <width> <speed> Gbps <state>/<physical state>)" and the far end's LID, port and
node description, then what both ends could do beyond it ("(Could be 4X )", "( Could be 106.25 Gbps)", else "( )").

The subnet follows the scenario's nodes: rail r of node i on leaf "leaf<u>-r<r>" port ((i - 1) % n) + 1 (u the
scalable unit of n nodes: pod.ib_fabric.nodes_per_leaf, 32 by default), each leaf's ports 33 and 34 up to spine-01 and
spine-02; 64-port switches (Quantum-2). A
node's fault `ib_cable_swap` {rails: [a, b]} crosses its two rails' cables at the leaves; a rail's `ib_width` or
`ib_speed_gbps` (the `ib_link` fault) is what that link trained at, seen from both ends.
"""

from __future__ import annotations

import os

PORTS = 64
NODES_PER_LEAF = 32
SPINES = ("spine-01", "spine-02")
LANE_GBPS = {100: 25.78125, 200: 53.125, 400: 106.25, 800: 212.5}  # the rail's rate at 4X -> a lane's speed


def _speed(gbps):
    return ("%.5f" % gbps).rstrip("0").rstrip(".") + " Gbps"


def _link(port):
    """The link part of a port line, and the far end (iblinkinfo.c print_port)."""
    if port.get("remote") is None:
        return "==(%20s/%8s)==>%13s[  ] \"\" ( )" % (port["state"], port["phys"], "")
    could = ""
    if port["width"] != "4X":
        could += "Could be 4X "
    if port["speed"] < port["max_speed"]:
        could += " Could be %s" % _speed(port["max_speed"])
    remote = port["remote"]
    return "==( %2s %18s %6s/%8s)==>%8d %4d[  ] \"%s\" (%s)" % (
        port["width"], _speed(port["speed"]), port.get("state", "Active"), "LinkUp", remote["lid"], remote["port"], remote["name"],
        could or " ")


def render(switches, cas):
    """iblinkinfo's text of a subnet: ``switches`` [(guid, name, lid, {port: port})], ``cas`` [(description, port guid,
    lid, port)]; a port {"state", "phys"} when down, else {"width", "speed", "max_speed", "remote": {lid, port, name}}."""
    lines = []
    for guid, name, lid, ports in switches:
        lines.append("Switch: %s %s:" % (guid, name))
        for number in range(1, len(ports) + 1):
            lines.append("      %6d %4d[  ] %s" % (lid, number, _link(ports[number])))
    for description, guid, lid, port in cas:
        lines.append("CA: %s:" % description)
        lines.append("      %s %6d %4d[  ] %s" % (guid, lid, 1, _link(port)))
    return "\n".join(lines) + "\n"


def _pod(load_node):
    nodes, index = [], 1
    while True:
        state = load_node("node-%03d" % index)
        if state is None:
            return nodes
        nodes.append(state)
        index += 1


def nodes_per_leaf(nodes):
    """The nodes of a scalable unit (pod.ib_fabric.nodes_per_leaf, as every node's multi-node runs see it): 32 by
    default, a leaf's host ports. The uplinks stay on ports 33 and 34 whatever the unit's size."""
    view = (nodes[0].get("switch_fabric") if nodes else None) or {}
    return view.get("nodes_per_leaf") or NODES_PER_LEAF


def subnet(nodes):
    """The switches and CAs of the pod's InfiniBand rails (render's arguments)."""
    rails = [r for r in nodes[0]["rails"] if r["link_layer"] == "InfiniBand"] if nodes else []
    per_leaf = nodes_per_leaf(nodes)
    units = (len(nodes) + per_leaf - 1) // per_leaf
    leaves = [(unit, rail) for unit in range(1, units + 1) for rail in range(len(rails))]
    lids = {}
    for name in ["leaf%d-r%d" % leaf for leaf in leaves] + list(SPINES):
        lids[name] = len(lids) + 1
    ports = {name: {n: {"state": "Down", "phys": "Polling", "remote": None} for n in range(1, PORTS + 1)} for name in lids}
    cas = []
    for state in nodes:
        swapped = dict(zip(state.get("ib_cable_swap", []), reversed(state.get("ib_cable_swap", []))))
        for number, rail in enumerate(state["rails"]):
            # a port that trained but no SM configured is in the subnet too, as ibsim showed it with OpenSM stopped
            # (captures-ndr fault_d: "Initialize/  LinkUp" at both ends); a port down is not
            if rail["link_layer"] != "InfiniBand" or rail.get("state") not in ("Active", "Initializing"):
                continue
            lid = len(lids) + 1
            lids["%s %s" % (state["hostname"], rail["device"])] = lid
            leaf = "leaf%d-r%d" % ((state["index"] - 1) // per_leaf + 1, swapped.get(number, number))
            port_number = (state["index"] - 1) % per_leaf + 1
            top = rail.get("ib_top_gbps") or LANE_GBPS.get(rail["rate"], 106.25)  # what both ends can do (the ib_link fault keeps it)
            link = {"width": rail.get("ib_width", "4X"), "speed": rail.get("ib_speed_gbps", top), "max_speed": top,
                    "state": "Active" if rail["state"] == "Active" else "Initialize"}
            description = "%s %s" % (state["hostname"], rail["device"])
            ports[leaf][port_number] = dict(link, remote={"lid": lid, "port": 1, "name": description})
            cas.append((description, rail["port_guid"], lid, dict(link, remote={"lid": lids[leaf], "port": port_number, "name": leaf})))
    # the switches' links at the pod's rate: the fastest lane its rails can do (NDR by default, HDR on an HDR pod)
    top = max([rail.get("ib_top_gbps") or LANE_GBPS.get(rail["rate"], 106.25) for state in nodes for rail in state["rails"]
               if rail["link_layer"] == "InfiniBand"] or [106.25])
    for unit, rail in leaves:
        leaf = "leaf%d-r%d" % (unit, rail)
        for up, spine in enumerate(SPINES):
            down = len([1 for u, _r in leaves if u < unit]) + rail + 1
            ports[leaf][NODES_PER_LEAF + 1 + up] = {"width": "4X", "speed": top, "max_speed": top,
                                                    "remote": {"lid": lids[spine], "port": down, "name": spine}}
            ports[spine][down] = {"width": "4X", "speed": top, "max_speed": top,
                                  "remote": {"lid": lids[leaf], "port": NODES_PER_LEAF + 1 + up, "name": leaf}}
    switches = [("0x0c42a10300%06x" % lids[name], name, lids[name], ports[name]) for name in ports]
    return switches, cas


def iblinkinfo(state, args, env, load_node):  # pylint: disable=unused-argument
    if state.get("ib_stack") == "ibsim":  # the real stack answers (ibsim.py)
        return _real("iblinkinfo", state, args, load_node)
    if args:
        return 2, "", "pyramid twin: `iblinkinfo %s` is not simulated (only the default form)\n" % " ".join(args)
    if not any(rail["link_layer"] == "InfiniBand" for rail in state["rails"]):
        return 2, "", "pyramid twin: `iblinkinfo` on a node without an InfiniBand rail is not simulated\n"
    return (0,) + (render(*subnet(_pod(load_node))), "")


# ibqueryerrors.c's order of a port's error counters, and their widths (the IBA PortCounters attribute): a port's
# counter stops at its maximum.
COUNTERS = (("SymbolErrorCounter", 16), ("LinkErrorRecoveryCounter", 8), ("LinkDownedCounter", 8), ("PortRcvErrors", 16),
            ("PortRcvRemotePhysicalErrors", 16), ("PortRcvSwitchRelayErrors", 16), ("PortXmitDiscards", 16),
            ("PortXmitConstraintErrors", 8), ("PortRcvConstraintErrors", 8), ("LocalLinkIntegrityErrors", 4),
            ("ExcessiveBufferOverrunErrors", 4), ("VL15Dropped", 16), ("PortXmitWait", 32))


def _counts(errors, elapsed, wide=False):
    """A rail's counts now: each stopped at its width's maximum, or not (``wide``: the 64-bit PortCountersExtended)."""
    counts = {}
    for counter, bits in COUNTERS:
        value = int(errors["counts"].get(counter, 0) + errors["per_s"].get(counter, 0.0) * elapsed)
        if value:
            counts[counter] = value if wide else min(value, 2 ** bits - 1)
    return counts


def _line(counts):
    return " ".join("[%s == %d]" % (counter, counts[counter]) for counter, _bits in COUNTERS if counts.get(counter))


def _error_counts(load_node, wide=False):
    """The subnet and its ports' counts now: (switches, cas, {node description: node GUID}, [(CA description, port
    GUID, counts)], {switch: {port: counts}}), from the scenario's `ib_port_errors` faults and the incasts so far; each
    count stopped at its width's maximum, or not (``wide``: the 64-bit counters ibdiagnet reads too)."""
    nodes = _pod(load_node)
    switches, cas = subnet(nodes)
    faulty = [(state_, rail) for state_ in nodes for rail in state_["rails"] if rail.get("ib_errors")]
    elapsed = 0.0
    if any(rail["ib_errors"]["per_s"] for _node, rail in faulty):
        from pyramid_twin.fake_tool import pod_clock  # pylint: disable=import-outside-toplevel
        elapsed = pod_clock("ibqueryerrors")
    by_switch, by_ca = {}, []
    for (leaf, port), counts in _incast_counts(nodes, cas).items():
        by_switch.setdefault(leaf, {})[port] = counts
    for node, rail in faulty:
        description = "%s %s" % (node["hostname"], rail["device"])
        link = next((port for name, _guid, _lid, port in cas if name == description), None)
        counts = _counts(rail["ib_errors"], elapsed, wide)
        if link is None or not counts:
            continue
        if rail["ib_errors"]["end"] == "ca":
            by_ca.append((description, rail["port_guid"], counts))  # ibqueryerrors names a CA's port by its port GUID
        else:
            here = by_switch.setdefault(link["remote"]["name"], {}).setdefault(link["remote"]["port"], {})
            for counter, value in counts.items():
                here[counter] = here.get(counter, 0) + value if wide else min(here.get(counter, 0) + value, 2 ** dict(COUNTERS)[counter] - 1)
    node_guids = {"%s %s" % (node["hostname"], rail["device"]): rail["node_guid"] for node in nodes for rail in node["rails"]}
    return switches, cas, node_guids, by_ca, by_switch


def _fabric_host(state, tool):
    if not any(rail["link_layer"] == "InfiniBand" for rail in state["rails"]):
        return 2, "", "pyramid twin: `%s` on a node without an InfiniBand rail is not simulated\n" % tool
    return None


def ibqueryerrors(state, args, env, load_node):  # pylint: disable=unused-argument
    """`ibqueryerrors --threshold-file /dev/null` (or without a threshold file: the twin has none), in the layout of
    real captures (tests/unit/parsers/linux_ibqueryerrors, infiniband-diags 44.0 on ibsim): each node with a non-zero
    error counter ("Errors for <GUID> "<name>"", a CA's header without its GUID), a port line per such port (a switch's
    "port ALL" first, the sum), then the closing summary. The counters are the scenario's `ib_port_errors` faults."""
    if state.get("ib_stack") == "ibsim":  # the real stack answers (ibsim.py)
        return _real("ibqueryerrors", state, args, load_node)
    if args not in ([], ["--threshold-file", "/dev/null"]):
        return 2, "", "pyramid twin: `ibqueryerrors %s` is not simulated\n" % " ".join(args)
    refused = _fabric_host(state, "ibqueryerrors")
    if refused:
        return refused
    switches, cas, _node_guids, by_ca, by_switch = _error_counts(load_node)
    guids = {name: guid for guid, name, _lid, _ports in switches}
    lines = []
    for description, guid, counts in by_ca:
        lines += ['Errors for "%s"' % description, "   GUID %s port 1: %s" % (_unpadded(guid), _line(counts))]
    for name, ports in sorted(by_switch.items()):
        total = {}
        for counts in ports.values():
            for counter, value in counts.items():
                total[counter] = total.get(counter, 0) + value
        guid = _unpadded(guids[name])
        lines += ['Errors for %s "%s"' % (guid, name), "   GUID %s port ALL: %s" % (guid, _line(total))]
        lines += ["   GUID %s port %d: %s" % (guid, number, _line(ports[number])) for number in sorted(ports)]
    listed = len(by_ca) + sum(len(ports) for ports in by_switch.values())
    checked = len(switches) * PORTS + len(cas) + len(by_switch)
    lines += ["", "## Summary: %d nodes checked, %d bad nodes found" % (len(switches) + len(cas), len(by_ca) + len(by_switch)),
              "##          %d ports checked, %d ports have errors beyond threshold" % (checked, listed),
              "## Thresholds: ", "## Suppressed:"]
    return (1 if listed else 0), "\n".join(lines) + "\n", ""


# ibdiagnet's database (ibdiagnet2.db_csv), PM_INFO and the index table that closes the file, in the layout of the real
# capture (tests/unit/parsers/linux_ibdiagnet2_db_csv/quantum2_fabric_real, IBDIAGNET 2.10.0): one row per linked port
# (a switch's ports without a link have none), each counter's 32-bit column beside its 64-bit one (the 32-bit one
# stopped at its maximum, as the real rows' PortXmitData and PortXmitWait are; a CA's symbol errors and link downs
# in their 16- and 8-bit columns alone, as the real ConnectX-7 rows).
PM_INFO_HEADER = (
    "NodeGUID,PortGUID,PortNumber,LinkDownedCounter,LinkErrorRecoveryCounter,SymbolErrorCounter,PortRcvRemotePhysicalErrors,"
    "PortRcvErrors,PortXmitDiscards,PortRcvSwitchRelayErrors,ExcessiveBufferOverrunErrors,LocalLinkIntegrityErrors,"
    "PortRcvConstraintErrors,PortXmitConstraintErrors,VL15Dropped,PortXmitData,PortRcvData,PortXmitPkts,PortRcvPkts,"
    "PortXmitWait,PortXmitDataExtended,PortRcvDataExtended,PortXmitPktsExtended,PortRcvPktsExtended,PortUniCastXmitPkts,"
    "PortUniCastRcvPkts,PortMultiCastXmitPkts,PortMultiCastRcvPkts,SymbolErrorCounterExt,LinkErrorRecoveryCounterExt,"
    "LinkDownedCounterExt,PortRcvErrorsExt,PortRcvRemotePhysicalErrorsExt,PortRcvSwitchRelayErrorsExt,PortXmitDiscardsExt,"
    "PortXmitConstraintErrorsExt,PortRcvConstraintErrorsExt,LocalLinkIntegrityErrorsExt,ExcessiveBufferOverrunErrorsExt,"
    "VL15DroppedExt,PortXmitWaitExt,QP1DroppedExt,retransmission_per_sec, max_retransmission_rate,PortLocalPhysicalErrors,"
    "PortMalformedPacketErrors,PortBufferOverrunErrors,PortDLIDMappingErrors,PortVLMappingErrors,PortLoopingErrors,"
    "PortInactiveDiscards,PortNeighborMTUDiscards,PortSwLifetimeLimitDiscards,PortSwHOQLifetimeLimitDiscards")


# what the real capture's ConnectX-7 rows show: these 64-bit columns stay 0 beside the 16- and 8-bit counts
CA_NARROW_ONLY = ("SymbolErrorCounter", "LinkDownedCounter")


def _pm_row(node_guid, port_guid, port, counts, ca=False):
    values = dict.fromkeys((name.strip() for name in PM_INFO_HEADER.split(",")), "0")
    values.update(NodeGUID=node_guid, PortGUID=port_guid, PortNumber=str(port), PortLoopingErrors="-1",
                  retransmission_per_sec="0x0000000000000000", max_retransmission_rate="0x0000")
    for counter, bits in COUNTERS:
        if counts.get(counter):
            values[counter] = str(min(counts[counter], 2 ** bits - 1))
            values[counter + "Ext"] = "0" if ca and counter in CA_NARROW_ONLY else str(counts[counter])
    return ",".join(values[name.strip()] for name in PM_INFO_HEADER.split(","))


def ibdiagnet(state, args, env, load_node):  # pylint: disable=unused-argument
    """`ibdiagnet -o DIR`: its log on stdout (the stages' lines the real one prints for the port counters) and
    DIR/ibdiagnet2.db_csv written, every linked port's counters as ibqueryerrors' (the same faults and incasts)."""
    import os  # pylint: disable=import-outside-toplevel
    if len(args) != 2 or args[0] != "-o":
        return 2, "", "pyramid twin: `ibdiagnet %s` is not simulated (only -o DIR)\n" % " ".join(args)
    refused = _fabric_host(state, "ibdiagnet")
    if refused:
        return refused
    switches, cas, node_guids, by_ca, by_switch = _error_counts(load_node, wide=True)
    ca_counts = {description: counts for description, _guid, counts in by_ca}
    rows = []
    for guid, name, _lid, ports in switches:
        for number in sorted(ports):
            if ports[number].get("remote"):
                rows.append(_pm_row(guid, guid, number, by_switch.get(name, {}).get(number, {})))
    for description, port_guid, _lid, _port in cas:
        rows.append(_pm_row(node_guids[description], port_guid, 1, ca_counts.get(description, {}), ca=True))
    head = "START_RUN_INFO\nIBDIAGNET_Version,Date,Args\n\"IBDIAGNET 2.10.0 (pyramid twin)\",\"\",\"-o %s\"\nEND_RUN_INFO\n\n" % args[1]
    body = "START_PM_INFO\n%s\n%s\nEND_PM_INFO\n\n" % (PM_INFO_HEADER, "\n".join(rows))
    index = "START_INDEX_TABLE\nName, Offset, Size, Line, Rows\nRUN_INFO,%12d,%12d,%12d,%12d\nPM_INFO,%12d,%12d,%12d,%12d\nEND_INDEX_TABLE\n" % (
        len(head.split("\n")[0]), len(head), 2, 1, len(head), len(body), head.count("\n") + 2, len(rows))
    text = head + body + index
    os.makedirs(args[1], exist_ok=True)
    with open(os.path.join(args[1], "ibdiagnet2.db_csv"), "w", encoding="utf-8") as handle:
        handle.write("# INDEX_TABLE offset: %11d, line: %11d\n\n" % (len(head) + len(body), text.count("\n") - 4) + text)
    log = ("---------------------------------------------\nPort Counters\n-I- Build Port Counters\n"
           "-I- Ports counters retrieving finished successfully\n\n-I- Ports Counters                      : %s\n" % (
               os.path.join(args[1], "ibdiagnet2.pm")))
    return 0, log, ""


# An incast on InfiniBand (twin/pyramid_twin/incast.py's events, recorded by the rate-limited ib_write_bw clients): the
# leaf port facing the target has more to send than credits for it while the senders' offer exceeds its rate, and
# waits (PortXmitWait) for as long as they run. A target with the fault `ib_hoq_lifetime_short` has its leaf ports drop
# what waited too long (PortXmitDiscards) meanwhile; one with `ib_credit_stall` stops returning credits under the
# burst, so its leaf ports go on waiting after the load ended.
XMIT_WAIT_PER_S = 2000000
HOQ_DISCARDS_PER_S = 900


def _incast_counts(nodes, cas):
    """{(leaf, port): {counter: n}} the incasts so far add to the leaf ports facing their targets."""
    import sys  # pylint: disable=import-outside-toplevel
    import time  # pylint: disable=import-outside-toplevel
    from pyramid_twin import incast  # pylint: disable=import-outside-toplevel
    node_dir = getattr(sys.modules.get("pyramid_twin.fake_tool"), "NODE", [None])[0]
    if not node_dir:
        return {}
    states = {state["hostname"]: state for state in nodes}
    links = {name: port for name, _guid, _lid, port in cas}
    now, added = time.time(), {}
    for (target, device, first), group in incast.incasts(incast.load(incast.events_dir(incast.digest_of(node_dir)))).items():
        link = links.get("%s %s" % (target, device))
        state = states.get(target)
        offered = sum(float(client["rate_gbps"]) for client in group["clients"])
        if link is None or state is None or offered <= float(group["clients"][0].get("port_gbps", 400)):
            continue  # not an InfiniBand rail of the pod, or no queue builds
        duration, elapsed = incast._elapsed(group, now)  # pylint: disable=protected-access
        waited = max(now - first, 0.0) if state.get("ib_credit_stall") else elapsed
        counts = added.setdefault((link["remote"]["name"], link["remote"]["port"]), {})
        counts["PortXmitWait"] = counts.get("PortXmitWait", 0) + int(XMIT_WAIT_PER_S * waited)
        if state.get("ib_hoq_lifetime_short"):
            counts["PortXmitDiscards"] = counts.get("PortXmitDiscards", 0) + int(HOQ_DISCARDS_PER_S * min(elapsed, duration))
    return {where: {counter: min(value, 2 ** dict(COUNTERS)[counter] - 1) for counter, value in counts.items() if value}
            for where, counts in added.items() if any(counts.values())}


def _unpadded(guid):
    """A GUID as ibqueryerrors.c and sminfo.c print it: "0x%" PRIx64, no leading zeros (ibsim's 0x200000)."""
    return "0x%x" % int(guid, 16)


SM_STATE = {"master": (3, "SMINFO_MASTER")}


def sminfo(state, args, env, load_node):  # pylint: disable=unused-argument
    """`sminfo`: the SM at the SM LID of the node's first InfiniBand port (the pod's master, model pod.ib_sm), in
    sminfo.c's one line (real captures: tests/unit/parsers/linux_sminfo, infiniband-diags 44.0 on ibsim). A stopped SM
    does not answer: exit 255, "iberror: failed: query", as a real query to a gone master timed out on ibsim."""
    if state.get("ib_stack") == "ibsim":  # the real stack answers (ibsim.py)
        return _real("sminfo", state, args, load_node)
    if args:
        return 2, "", "pyramid twin: `sminfo %s` is not simulated (only the default form)\n" % " ".join(args)
    ports = [rail for rail in state["rails"] if rail["link_layer"] == "InfiniBand" and rail["state"] == "Active"]
    if not ports:
        return 2, "", "pyramid twin: `sminfo` on a node without an active InfiniBand port is not simulated\n"
    sm = state["ib_sm"]
    if sm["state"] == "stopped":
        # iberror() names the program as it was started: the node's path to it, as collect.py runs it (the real one on
        # ibsim: tests/unit/parsers/linux_sminfo/ibsim_no_answer_started_by_its_path)
        import sys  # pylint: disable=import-outside-toplevel
        node_dir = getattr(sys.modules.get("pyramid_twin.fake_tool"), "NODE", [None])[0]
        program = os.path.join(node_dir, "bin", "sminfo") if node_dir else "sminfo"
        return 255, "%s: iberror: failed: query\n" % program, "ibwarn: [%d] mad_rpc: _do_madrpc failed; dport (Lid %d)\n" % (
            4000 + state["index"], sm["lid"])
    number, name = SM_STATE[sm["state"]]
    return 0, "sminfo: sm lid %d sm guid %s, activity count %d priority %d state %d %s\n" % (
        sm["lid"], _unpadded(sm["guid"]), _activity(sm), sm["priority"], number, name), ""


# The SM's activity count rises while it runs (opensm on ibsim: 692 -> 705 in 12 s) and starts over when it restarts
# (1000 before a kill, 610 after the restart: tests/unit/parsers/linux_sminfo).
SM_ACTIVITY_PER_SECOND = 13
SM_ACTIVITY_AT_THE_FIRST_READ = 5000  # an SM up for some minutes


def _activity(sm):
    """The master's activity count, by the seconds since the pod's first sminfo read; one that restarts right after
    that read (model pod.ib_sm.restarts) counts again from 0 a second later."""
    from pyramid_twin.fake_tool import pod_clock  # pylint: disable=import-outside-toplevel
    elapsed = pod_clock("sminfo")
    if sm["restarts"] and elapsed >= 1.0:
        return int(SM_ACTIVITY_PER_SECOND * (elapsed - 1.0))
    return int(SM_ACTIVITY_AT_THE_FIRST_READ + SM_ACTIVITY_PER_SECOND * elapsed)


def dump_fts(state, args, env, load_node):  # pylint: disable=unused-argument
    """`dump_fts`: every switch's unicast forwarding table as the SM programmed it (ibroute.c's table, one per switch,
    each closed by "N valid lids dumped "; real captures: tests/unit/parsers/linux_dump_fts, infiniband-diags 44.0 on
    ibsim with opensm's minhop, ftree and updn engines). The SM's roots (model pod.ib_sm.roots: both spines by
    default) take a leaf's routes to the rest of the subnet, spread over its uplinks to them in turn, as minhop and
    updn with every spine a root do; with one spine as root (updn with a root GUID file naming it alone) every leaf
    funnels onto it, as the capture shows. Tables in the order the capture printed them: the reverse of discovery from
    the reader's port."""
    if state.get("ib_stack") == "ibsim":  # the real stack answers (ibsim.py)
        return _real("dump_fts", state, args, load_node)
    if args:
        return 2, "", "pyramid twin: `dump_fts %s` is not simulated (only the default form)\n" % " ".join(args)
    ports = [rail for rail in state["rails"] if rail["link_layer"] == "InfiniBand" and rail["state"] == "Active"]
    if not ports:
        return 2, "", "pyramid twin: `dump_fts` on a node without an active InfiniBand port is not simulated\n"
    switches, cas = subnet(_pod(load_node))
    roots = [spine for spine in SPINES if spine in (state["ib_sm"].get("roots") or SPINES)]
    reader = "%s %s" % (state["hostname"], ports[0]["device"])
    return 0, forwarding_tables(switches, cas, roots, reader), ""


def forwarding_tables(switches, cas, roots, reader):
    """dump_fts's text for a subnet (subnet()'s switches and CAs) routed towards ``roots``, read from CA ``reader``."""
    names = {lid: ("Switch", guid, name) for guid, name, lid, _ports in switches}
    names.update({lid: ("Channel Adapter", guid, description) for description, guid, lid, _port in cas})
    leaf_of = {lid: port["remote"]["name"] for _description, _guid, lid, port in cas}
    by_name = {name: (guid, lid, ports) for guid, name, lid, ports in switches}
    home = leaf_of[next(lid for description, _guid, lid, _port in cas if description == reader)]
    paths = {home: "0,1"}
    for number, port in sorted(by_name[home][2].items()):
        if port.get("remote") and port["remote"]["name"] in SPINES:
            paths[port["remote"]["name"]] = "0,1,%d" % number
    first_spine = next(spine for spine in SPINES if spine in paths)
    for number, port in sorted(by_name[first_spine][2].items()):
        if port.get("remote") and port["remote"]["name"] not in paths:
            paths[port["remote"]["name"]] = "%s,%d" % (paths[first_spine], number)
    order = sorted(by_name, key=lambda name: (list(paths).index(name) if name in paths else len(paths), name), reverse=True)
    lines = []
    for name in order:
        guid, lid, ports = by_name[name]
        routes = _routes(name, lid, ports, names, leaf_of, roots)
        lines.append("Unicast lids [0x0-0x%x] of switch DR path slid 0; dlid 0; %s guid 0x%016x (%s):" % (
            max(names), paths.get(name, "0,1"), int(guid, 16), name))
        lines += ["  Lid  Out   Destination", "       Port     Info "]
        for destination, out in sorted(routes.items()):
            kind, dest_guid, dest_name = names[destination]
            lines.append("0x%04x %03d : (%s portguid 0x%016x: '%s')" % (destination, out, kind, int(dest_guid, 16), dest_name))
        lines.append("%d valid lids dumped " % len(routes))
    return "\n".join(lines) + "\n"


def _routes(name, lid, ports, names, leaf_of, roots):
    """{destination LID: out port} of one switch: its own LID out of port 0, its CAs and (a spine) its leaves' down,
    the rest up to the roots in turn (a leaf) or down the first leaf's port (a spine to the other spine, as minhop)."""
    facing = {port["remote"]["name"]: number for number, port in sorted(ports.items()) if port.get("remote")}
    local = {port["remote"]["lid"]: number for number, port in ports.items() if port.get("remote") and port["remote"]["name"] not in SPINES
             and port["remote"]["lid"] in leaf_of}
    up = [facing[spine] for spine in roots if spine in facing]
    routes, turn = {}, 0
    for destination in sorted(names):
        kind, _guid, dest_name = names[destination]
        if destination == lid:
            routes[destination] = 0
        elif name in SPINES:
            leaf = leaf_of.get(destination, dest_name)
            if leaf in facing:
                routes[destination] = facing[leaf]
            elif facing:
                routes[destination] = min(number for other, number in facing.items() if other not in SPINES)
        elif destination in local:
            routes[destination] = local[destination]
        elif kind == "Switch" and dest_name in SPINES and dest_name in facing:
            routes[destination] = facing[dest_name]
        elif up:
            routes[destination] = up[turn % len(up)]
            turn += 1
    return routes


def _real(tool, state, args, load_node):
    """``tool`` run for real on ibsim for this pod (pod.ib_stack: ibsim), started as the node's own path to it: the
    subnet as subnet() has it, the scenario's counts set on its ports before a counters read, the SM stopped after its
    sweep where pod.ib_sm says so."""
    import subprocess  # pylint: disable=import-outside-toplevel
    import sys  # pylint: disable=import-outside-toplevel
    from pyramid_twin import changes, ibsim  # pylint: disable=import-outside-toplevel
    refused = _fabric_host(state, tool)
    if refused:
        return refused
    node_dir = sys.modules["pyramid_twin.fake_tool"].NODE[0]
    nodes = _pod(load_node)
    switches, cas = subnet(nodes)
    reader = next((rail for rail in state["rails"] if rail["link_layer"] == "InfiniBand" and rail["state"] == "Active"), None)
    if reader is None:
        return 2, "", "pyramid twin: `%s` on a node without an active InfiniBand port is not simulated\n" % tool
    switches, cas = ibsim.with_lids(switches, cas, {"%s %s" % (node["hostname"], rail["device"]): node["index"] * 16 + number + 1
                                                    for node in nodes for number, rail in enumerate(node["rails"])})
    pod = ibsim.Pod(changes.changes_dir(node_dir))
    try:
        return _real_read(pod, tool, args, state, (switches, cas), load_node, reader, node_dir)
    except ibsim.StackMissing as missing:
        return 2, "", "pyramid twin: pod.ib_stack ibsim: %s\n" % missing
    except (RuntimeError, ValueError, OSError, subprocess.SubprocessError) as error:  # the stack, not the tool: said so
        return 2, "", "pyramid twin: pod.ib_stack ibsim: the real stack failed: %s\n" % error


def _real_read(pod, tool, args, state, subnet_, load_node, reader, node_dir):  # pylint: disable=too-many-arguments
    from pyramid_twin import ibsim  # pylint: disable=import-outside-toplevel
    switches, cas = subnet_  # cas: ensure() cables the SM host to them
    sm = state["ib_sm"]
    pod.ensure(switches, cas, sm, switch_description=state.get("ib_switch_description"))
    with pod.locked():
        if sm["state"] == "stopped" and pod.once("sm-stopped"):
            pod.stop_sm()  # it swept the subnet, then stopped: the ports keep their LIDs and its SM LID, nothing answers
        if tool == "ibqueryerrors":  # the counts set and read by one caller at a time
            by_ca, by_switch = _error_counts(load_node)[3:]
            guids = {name: guid for guid, name, _lid, _ports in switches}
            settings = [('"%s"[1]' % ibsim.ca_id(port_guid), counts) for _description, port_guid, counts in by_ca]
            settings += [('"%s"[%d]' % (ibsim.node_id("S", guids[name]), port), counts)
                         for name, ports in sorted(_with_loads(by_switch, state, switches).items())
                         for port, counts in sorted(ports.items())]
            pod.set_counters(settings)
        return pod.run(tool, args, ibsim.ca_id(reader["port_guid"]), argv0=os.path.join(node_dir, "bin", tool))


def _with_loads(by_switch, state, switches):
    """The scenario's error counts per switch port, with what the loads recorded so far put through the leaf-spine
    links of a pod whose subnet the runs see (pod.ib_fabric: fabric_load.subnet_loads): the data counters (64-bit,
    PortCountersExtended), and a faulty uplink's PortXmitWait and receive errors on top of the scenario's own."""
    view = state.get("switch_fabric") or {}
    if not view.get("infiniband"):
        return by_switch
    from pyramid_twin import fabric_load  # pylint: disable=import-outside-toplevel
    from pyramid_twin.fake_tool import pod_clock  # pylint: disable=import-outside-toplevel
    event_dir = fabric_load.tool_events_dir()
    loads = fabric_load.subnet_loads(fabric_load.load(event_dir) if event_dir else [], switches, view,
                                     since=pod_clock("subnet-trickle"))
    merged = {name: {port: dict(counts) for port, counts in ports.items()} for name, ports in by_switch.items()}
    widths = dict(COUNTERS)
    for (name, port), counts in loads.items():
        here = merged.setdefault(name, {}).setdefault(port, {})
        for counter, value in counts.items():
            if counter in widths:  # an error or wait counter: PortCounters, stopped at its width's maximum
                here[counter] = min(here.get(counter, 0) + value, 2 ** widths[counter] - 1)
            else:
                here["PortCountersExtended." + counter] = value
    return merged
