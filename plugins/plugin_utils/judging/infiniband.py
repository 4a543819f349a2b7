# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""InfiniBand fabric judges: each GPU node judged on its own rails from a read of the whole subnet made once for the
pod (iblinkinfo on the reader of ib_fabric_hosts, run/pod.py), its rails found by the port GUIDs its own ibstat shows."""

from __future__ import annotations

from ..core.model import ERROR, FAIL, PASS, SKIP, verdict
from .rail_guids import with_rail_guids
from .registry import judge, summary

# A lane's signalling rate as iblinkinfo prints it, per rail rate (4X): EDR 100, HDR 200, NDR 400, XDR 800 Gb/s
# (infiniband-diags' mad_dump_linkspeedext: 25.78125, 53.125, 106.25, 212.5 Gbps).
LANE_GBPS = {100: 25.78125, 200: 53.125, 400: 106.25, 800: 212.5}
LANES = {"1X": 1, "2X": 2, "4X": 4, "8X": 8, "12X": 12}


@judge("ib_links", scope="pod")
def ib_links(facts_by_host, expect_by_host):
    facts_by_host = with_rail_guids(facts_by_host)  # rails read by `rdma link`: their GUIDs from sysfs
    return {host: _node(host, facts, expect_by_host[host]) for host, facts in facts_by_host.items()}


def _node(host, facts, expect):
    width, rate = expect["pyramid_ib_link_width"], expect["pyramid_rail_rate_gbps"]
    lane = LANE_GBPS.get(rate)
    reader = (facts.get("read_on_host") or {}).get("ib_link_info", "the fabric host")
    expected = "every rail Active/LinkUp at %s %s Gbps a lane (pyramid_rail_rate_gbps %d), seen by iblinkinfo on %s" % (
        width, lane if lane else "?", rate, reader)
    if lane is None:
        return verdict(ERROR, expected, "no InfiniBand lane speed is known for a %d Gb/s rail (known: %s)" % (
            rate, ", ".join("%d" % known for known in sorted(LANE_GBPS))))
    links, devices = facts["ib_link_info"]["ca_ports"], facts["ibstat"]["devices"]
    switches = facts["ib_link_info"]["switches"]
    bad, unseen, good, stateless = [], [], [], []
    for rail in expect["pyramid_rails"]:
        port = ((devices.get(rail) or {}).get("ports") or {}).get("1")
        if port is None:
            unseen.append("%s: not in %s's ibstat" % (rail, host))
            continue
        link = links.get((port.get("port_guid") or "").lower())
        if link is None:
            unseen.append("%s (port GUID %s): not in iblinkinfo on %s" % (rail, port.get("port_guid"), reader))
            continue
        if link.get("remote") and link["remote"].get("guid") not in switches:  # the far end's block lost: cut short
            unseen.append("%s: its far end %s has no block in iblinkinfo on %s" % (rail, link_leaf(link), reader))
            continue
        said = _said(rail, link)
        if link["state"] is None and not _short(link, width, lane):
            # ibnetdiscover's read (ib_link_info's second way) shows the link up at its width and speed, not its state
            stateless.append(said)
        elif (link["state"], link["phys_state"]) != ("Active", "LinkUp") or _short(link, width, lane):
            bad.append(said + (" (could be %s)" % link["could_be"] if link["could_be"] and _short(link, width, lane) else ""))
        else:
            good.append(said)
    if bad:
        return verdict(FAIL, expected, summary(bad + ["not seen: " + item for item in unseen]),
                       cause=_cause(bad))
    if unseen:
        return verdict(ERROR, expected, "not seen: %s" % summary(unseen),
                       cause="A rail missing from the fabric read while its own host shows it up: the read is cut short "
                             "or the fabric changed since Layer 0 (run iblinkinfo on %s again)" % reader)
    if stateless:
        return verdict(ERROR, expected, "no port state in ibnetdiscover's read: %s" % summary(stateless),
                       cause="The subnet was read by ibnetdiscover (iblinkinfo missing or failing on %s), which shows each "
                             "link's width and speed but not whether the SM made it Active: install or repair "
                             "infiniband-diags' iblinkinfo there and run Layer 1 again" % reader)
    return verdict(PASS, expected, "%d rails at %s %s Gbps a lane, each Active/LinkUp (%s)" % (
        len(good), width, lane, summary(sorted(good), 2)))


def _said(rail, link):
    remote = link.get("remote") or {}
    at = "%s port %s" % (remote.get("name"), remote.get("port")) if remote else "no peer"
    state = "%s/%s" % (link["state"], link["phys_state"]) if link["state"] else "%s, state not shown" % link["phys_state"]
    if link["width"]:
        return "%s: %s %s Gbps %s to %s" % (rail, link["width"], link["speed_gbps"], state, at)
    return "%s: %s to %s" % (rail, state, at)


def _short(link, width, lane):
    return link["width"] != width or link["speed_gbps"] != lane


def _cause(bad):
    if any(" 1X " in item or " 2X " in item for item in bad):
        return ("Degraded InfiniBand link: it trained on fewer lanes (1X/2X of 4X): a bad lane in the cable or "
                "transceiver; reseat or replace it (both ends named)")
    if all("Active/LinkUp" in item or "state not shown" in item for item in bad):
        return ("InfiniBand link at a lower speed than its rate: a cable or transceiver of an older generation, or a "
                "port's speed capped (ibportstate); the other end is named")
    return "InfiniBand link not Active/LinkUp: no subnet manager has brought it up, or the link is training or down"


def link_leaf(link):
    """The name of the switch a CA port's link lands on (linux_iblinkinfo: its description where it names that switch
    alone, a node-name map's name, else its GUID), or None without a link. A far end the read has no block for is said
    with its LID, so that two such never pass for one leaf."""
    remote = (link or {}).get("remote")
    if not remote:
        return None
    if remote.get("guid") is None:
        return "%s (LID %d: no block in the read)" % (remote["name"], remote["lid"])
    return remote["name"]


# The fewest nodes' rails a leaf must carry for the rail it serves to show (a majority of one is no evidence).
RAIL_LEAF_QUORUM = 3


@judge("ib_rail_leaves", scope="pod")
def ib_rail_leaves(facts_by_host, expect_by_host):
    """Rail-optimized cabling from the subnet read: every leaf carries one rail of every node (rail r of each node on
    the leaves of rail r). A leaf's rail is the one most of the pod's rails landing there are (each found by its own
    node's port GUID); a node's rail on another rail's leaf is miscabled (cables swapped at the leaves)."""
    owners, landing = {}, {}
    facts_by_host = with_rail_guids(facts_by_host)  # rails read by `rdma link`: their GUIDs from sysfs
    for host, facts in facts_by_host.items():
        for rail in expect_by_host[host]["pyramid_rails"]:
            port = ((facts["ibstat"]["devices"].get(rail) or {}).get("ports") or {}).get("1") or {}
            if port.get("port_guid"):
                owners[port["port_guid"].lower()] = (host, rail)
    links = next(iter(facts_by_host.values()))["ib_link_info"]["ca_ports"] if facts_by_host else {}
    for guid, (host, rail) in owners.items():
        link = link_leaf(links.get(guid))
        if link:
            landing.setdefault(link, []).append((host, rail, links[guid]["remote"]["port"]))
    serves = {}
    for leaf, rails in landing.items():
        counts = {}
        for _host, rail, _port in rails:
            counts[rail] = counts.get(rail, 0) + 1
        top = max(counts.values())
        leaders = [rail for rail, count in counts.items() if count == top]
        serves[leaf] = leaders[0] if len(leaders) == 1 and top >= RAIL_LEAF_QUORUM else None
    return {host: _rail_leaves(host, facts, expect_by_host[host], landing, serves) for host, facts in facts_by_host.items()}


def _rail_leaves(host, facts, expect, landing, serves):
    reader = (facts.get("read_on_host") or {}).get("ib_link_info", "the fabric host")
    expected = "each rail on the leaf its rail's other nodes land on (rail-optimized), seen by iblinkinfo on %s" % reader
    mine = {rail: (leaf, port) for leaf, rails in landing.items() for node, rail, port in rails if node == host}
    wrong, unseen, untold, right = [], [], [], []
    for rail in expect["pyramid_rails"]:
        if rail not in mine:
            unseen.append("%s: not in iblinkinfo on %s" % (rail, reader))
            continue
        leaf, port = mine[rail]
        if serves.get(leaf) is None:
            untold.append("%s on %s port %s" % (rail, leaf, port))
        elif serves[leaf] != rail:
            others = sum(1 for node, other, _port in landing[leaf] if other == serves[leaf] and node != host)
            home = sorted({name for name, rails in landing.items() if serves.get(name) == rail})
            wrong.append("%s on %s port %s, the leaf of %s (%d other nodes' %s there)%s" % (
                rail, leaf, port, serves[leaf], others, serves[leaf], "; %s's leaf: %s" % (rail, ", ".join(home)) if home else ""))
        else:
            right.append("%s on %s" % (rail, leaf))
    if wrong:
        return verdict(FAIL, expected, summary(wrong + ["not judged: " + item for item in unseen + untold]))
    if unseen:
        return verdict(ERROR, expected, "not seen: %s" % summary(unseen),
                       cause="A rail missing from the subnet read while its own host shows it up: the read is cut short "
                             "or the fabric changed since Layer 0 (run iblinkinfo on %s again)" % reader)
    if untold:  # a leaf whose rail no majority of at least RAIL_LEAF_QUORUM nodes shows: nothing to compare with
        return verdict(SKIP, expected, "cannot tell which rail a leaf serves (fewer than %d nodes' rails on it, or no majority): %s" % (
            RAIL_LEAF_QUORUM, summary(untold, 3)), not_applicable=True)
    return verdict(PASS, expected, "%d rails each on its rail's leaf (%s)" % (len(right), summary(right, 2)))


# The IBA PortCounters' widths (InfiniBand Architecture Specification vol. 1, PortCounters attribute): a counter stops
# at its maximum and no longer counts, so a count there says nothing of what happened since (it is cleared with
# `perfquery -R`). PortXmitWait is congestion, not an error; the data counters are not read here.
COUNTER_BITS = {"SymbolErrorCounter": 16, "LinkErrorRecoveryCounter": 8, "LinkDownedCounter": 8, "PortRcvErrors": 16,
                "PortRcvRemotePhysicalErrors": 16, "PortRcvSwitchRelayErrors": 16, "PortXmitDiscards": 16,
                "PortXmitConstraintErrors": 8, "PortRcvConstraintErrors": 8, "LocalLinkIntegrityErrors": 4,
                "ExcessiveBufferOverrunErrors": 4, "VL15Dropped": 16, "PortXmitWait": 32}


def port_counts(read, key):
    """The counts one read shows for the port "<GUID>:<port>" ({} for none), or None where the read lists every port it
    read (ibdiagnet's PM_INFO: "listed") and not this one: its counts are unknown, never zero. ibqueryerrors lists only
    ports with a count, its closing summary proving the others zero."""
    listed = read.get("listed")
    if listed is not None:
        guid, _sep, port = key.partition(":")
        if not port.isdigit() or int(port) not in listed.get(guid, ()):
            return None
    return read["ports"].get(key, {})


def not_counted(read, key, counters):
    """Those of ``counters`` the port does not count (ibdiagnet's N/A in both columns): unknown, never zero."""
    return [counter for counter in ((read.get("unsupported") or {}).get(key) or ()) if counter in counters]


def stuck(read, key, counter, value):
    """Why ``value`` of a port's counter proves nothing, or None: at its width's maximum it no longer counts (a 16-bit
    SymbolErrorCounter at 65535); a 64-bit count (ibdiagnet's PortCountersExtended) past 2^63 is damage, not a count."""
    bits = ((read.get("widths") or {}).get(key) or {}).get(counter) or COUNTER_BITS.get(counter)
    if bits is None:
        return None
    if bits == 64:
        return "%d, near its 64-bit maximum: damage, not a count" % value if value >= 2 ** 63 else None
    return "%d, its %d-bit maximum: it no longer counts" % (value, bits) if value == 2 ** bits - 1 else None


def reader_tool(window):
    """The tool that read a window's counters: ibqueryerrors, or ibdiagnet where the inventory chose it."""
    return (window.get("after") or {}).get("reader") or "ibqueryerrors"


# The counters that must not rise over the soak on a rail's link (seed 004's fabric check), with what a rise means.
LINK_ERRORS = {
    "SymbolErrorCounter": "bit errors on the link's lanes: a dirty or damaged cable or transceiver",
    "LinkErrorRecoveryCounter": "the link retrained to recover from errors: a marginal cable or transceiver",
    "LinkDownedCounter": "the link went down and came back during the soak: a flapping cable, transceiver or port",
    "PortRcvErrors": "packets received with errors: a damaged cable or transceiver",
    "LocalLinkIntegrityErrors": "the link's integrity errors passed their limit: a marginal cable or transceiver",
    "ExcessiveBufferOverrunErrors": "the receive buffer overran: a peer sending without credits (a misconfigured port)",
    "PortXmitDiscards": "packets discarded on transmit: the port could not send (a stuck or down peer, credits withheld)",
}


@judge("ib_port_errors", scope="pod")
def ib_port_errors(facts_by_host, expect_by_host):
    """Each GPU node's rails, both ends of each link (the CA's port and the leaf port it lands on, found through
    iblinkinfo by the port GUIDs of the node's own ibstat), their error counters read twice a soak apart by
    ibqueryerrors on the fabric host. A counter that rose: FAIL naming the port, the node and rail, the counter and the
    rise. A counter at its maximum (16-bit SymbolErrorCounter at 65535...) no longer counts: ERROR naming the port and
    its reset, never a rate. A counter lower than before was reset during the soak: ERROR. Old counts that did not rise
    pass. The read lists only ports with a count, so it is whole only without thresholds or suppressed counters."""
    return {host: _port_errors(host, facts, expect_by_host[host]) for host, facts in with_rail_guids(facts_by_host).items()}


def _port_errors(host, facts, expect):
    window = facts["ib_port_counters"]
    reader = (facts.get("read_on_host") or {}).get("ib_port_counters", "the fabric host")
    tool = reader_tool(window)
    expected = ("no InfiniBand error counter rising over the %ds soak at either end of each rail's link (%s), read by "
                "%s on %s" % (window["seconds"], ", ".join(sorted(LINK_ERRORS)), tool, reader))
    hidden = _hidden_verdict(window, expected)
    if hidden:
        return hidden
    rising, broken, unseen, old = [], [], [], []
    for said, key, guid, port in _rail_ends(host, facts, expect, unseen):
        before, after = port_counts(window["before"], key), port_counts(window["after"], key)
        if before is None or after is None:
            broken.append(("unread", "%s: no counters in %s's read %s the soak" % (
                said, tool, "at the start of" if before is None else "at the end of")))
            continue
        uncounted = sorted(set(not_counted(window["before"], key, LINK_ERRORS)) | set(not_counted(window["after"], key, LINK_ERRORS)))
        if uncounted:
            broken.append(("unread", "%s: %s not counted by the port (N/A in %s's read)" % (said, ", ".join(uncounted), tool)))
        # PortXmitWait is congestion, not an error: ib_congestion_idle judges it at Layer 3 (a busy fabric's
        # 32-bit count saturates long before anyone clears it, which says nothing about the links)
        for counter in sorted((set(before) | set(after) | set(LINK_ERRORS)) - {"PortXmitWait"}):
            first, last = before.get(counter, 0), after.get(counter, 0)
            why = stuck(window["before"], key, counter, first) or stuck(window["after"], key, counter, last)
            if why:
                broken.append(("saturated", "%s: %s %s (clear it: perfquery -R -G %s %d)" % (said, counter, why, guid, port)))
            elif last < first:
                broken.append(("cleared", "%s: %s went from %d to %d (cleared during the soak)" % (said, counter, first, last)))
            elif counter in LINK_ERRORS and last > first:
                said_rise = "%s: %s +%d in %ds (%d -> %d)" % (said, counter, last - first, window["seconds"], first, last)
                rising.append((counter, said_rise))
            elif counter in LINK_ERRORS and last:
                old.append("%s: %s %d, not rising" % (said, counter, last))
    unjudged = [text for _kind, text in broken] + ["not seen: " + item for item in unseen]
    if rising:
        return verdict(FAIL, expected, summary([text for _counter, text in rising] + unjudged),
                       cause="InfiniBand error counters rising over the soak: %s" % "; ".join(
                           sorted({LINK_ERRORS[counter] for counter, _text in rising})))
    if unjudged:
        return verdict(ERROR, expected, summary(unjudged), cause=_unjudged_cause({kind for kind, _text in broken}, unseen, reader))
    return verdict(PASS, expected, "%d rails, both ends: no error counter rose over %ds%s" % (
        len(expect["pyramid_rails"]), window["seconds"], " (old counts: %s)" % summary(old, 3) if old else ""))


@judge("ib_congestion_idle", scope="pod")
def ib_congestion_idle(facts_by_host, expect_by_host):
    """Each GPU node's rails, both ends of each link, their PortXmitWait read by ibqueryerrors on the fabric host at the
    soak's start and at Layer 3, before any load: a port that waited for credits with nothing running names the port
    and what sits at its other end. Saturated or cleared counters, and a read that may leave counts out, are ERRORs."""
    return {host: _congestion_idle(host, facts, expect_by_host[host]) for host, facts in with_rail_guids(facts_by_host).items()}


def _congestion_idle(host, facts, expect):
    window, allowed = facts["ib_port_counters"], expect["pyramid_ib_xmit_wait_idle_max"]
    reader = (facts.get("read_on_host") or {}).get("ib_port_counters", "the fabric host")
    tool = reader_tool(window)
    expected = ("PortXmitWait at either end of each rail's link rising by at most %d over %ds at idle (the soak's start "
                "to Layer 3), read by %s on %s" % (allowed, window["seconds"], tool, reader))
    hidden = _hidden_verdict(window, expected)
    if hidden:
        return hidden
    waiting, broken, unseen, quiet, unread = [], [], [], 0, False
    for said, key, guid, port in _rail_ends(host, facts, expect, unseen):
        before, after = port_counts(window["before"], key), port_counts(window["after"], key)
        if before is None or after is None:
            broken.append("%s: no counters in %s's read %s" % (said, tool, "at the soak's start" if before is None else "at Layer 3"))
            unread = True
            continue
        if not_counted(window["before"], key, ("PortXmitWait",)) or not_counted(window["after"], key, ("PortXmitWait",)):
            broken.append("%s: PortXmitWait not counted by the port (N/A in %s's read)" % (said, tool))
            unread = True
            continue
        first, last = before.get("PortXmitWait", 0), after.get("PortXmitWait", 0)
        why = stuck(window["before"], key, "PortXmitWait", first) or stuck(window["after"], key, "PortXmitWait", last)
        if why:
            broken.append("%s: PortXmitWait %s (clear it: perfquery -R -G %s %d)" % (said, why, guid, port))
        elif last < first:
            broken.append("%s: PortXmitWait went from %d to %d (cleared since the soak's start)" % (said, first, last))
        elif last - first > allowed:
            waiting.append("%s: PortXmitWait +%d in %ds (%d -> %d)" % (said, last - first, window["seconds"], first, last))
        else:
            quiet += 1
    unjudged = broken + ["not seen: " + item for item in unseen]
    if waiting:
        return verdict(FAIL, expected, summary(waiting + unjudged))
    if unjudged:
        return verdict(ERROR, expected, summary(unjudged),
                       cause=(_unjudged_cause({"unread"}, unseen, reader) if unread else
                              "A PortXmitWait that no longer counts, or was cleared, says nothing of the window: clear "
                              "the named port's counters and run again" if broken else _unjudged_cause(set(), unseen, reader)))
    return verdict(PASS, expected, "%d ports (each rail's two ends): PortXmitWait rose by at most %d over %ds at idle" % (
        quiet, allowed, window["seconds"]))


def _unjudged_cause(kinds, unseen, reader):
    """One cause for counters that could not be compared, the first of: saturated, cleared, a rail not seen."""
    if "saturated" in kinds:
        return ("An error counter at its maximum no longer counts, so its rise over the soak is unknown (a port that has "
                "been erring for long, or never cleared): clear the named port's counters (perfquery -R -G <GUID> <port>) "
                "and run Layer 1 again")
    if "unread" in kinds:
        return ("ibdiagnet read no counters of the named port, or the port does not count them (its performance query "
                "went unanswered or answered N/A: ibdiagnet2.log's Port Counters stage names it): what it counts is "
                "unknown; check the port's HCA or switch firmware, or read it with ibqueryerrors, and run again")
    if "cleared" in kinds:
        return ("Error counters cleared during the soak (perfquery -R, ibclearerrors, a port or switch reset): nothing to "
                "compare; run Layer 1 again and clear nothing while it soaks")
    return ("A rail missing from the fabric read while its own host shows it up: the read is cut short or the fabric "
            "changed since Layer 0 (run iblinkinfo on %s again)" % reader)


def _hidden_verdict(window, expected):
    """ERROR where a read of the window may leave counts out, else None."""
    hidden = _hidden(window)
    if not hidden:
        return None
    return verdict(ERROR, expected, "the read does not show every count: %s" % "; ".join(hidden),
                   cause="ibqueryerrors lists only counts over its thresholds and not suppressed: run it with "
                         "--threshold-file /dev/null and without -s or -c (the catalog's way does)")


def _hidden(window):
    """Why a read of the window may leave counts out (thresholds, suppressed counters), or []."""
    hidden = []
    for when in ("before", "after"):
        read = window[when]
        if read["thresholds"]:
            hidden.append("%s the soak, counts at or under thresholds %s are not listed" % (
                "at the start of" if when == "before" else "at the end of",
                ", ".join("%s %d" % item for item in sorted(read["thresholds"].items()))))
        if set(read["suppressed"]) & set(LINK_ERRORS):
            hidden.append("%s suppressed" % ", ".join(sorted(set(read["suppressed"]) & set(LINK_ERRORS))))
    return hidden


def _rail_ends(host, facts, expect, unseen):
    """Both ends (said, key, GUID, port) of each of the node's rails in turn; a rail not found in the reads is said in
    ``unseen`` instead (never judged as quiet)."""
    for rail in expect["pyramid_rails"]:
        ends, why = _ends(host, rail, facts)
        if why:
            unseen.append(why)
            continue
        yield from ends


def _ends(host, rail, facts):
    """([(said, key, GUID, port)] of the rail's two ends: its CA port and the leaf port it lands on), or (None, why)."""
    leaf, why = leaf_end(host, rail, facts)
    if why:
        return None, why
    # ibqueryerrors names a CA's port by its port GUID (the real tool on ibsim, where a CA's port GUID is its node's
    # + 1; ConnectX-4 and later give both one GUID), and ibdiagnet's PM_INFO rows are read by theirs: without it read,
    # that end is not found (never another GUID)
    ca_guid = ((((facts["ibstat"]["devices"].get(rail) or {}).get("ports") or {}).get("1") or {}).get("port_guid") or "").lower()
    if not ca_guid:
        return None, "%s: no port GUID in %s's ibstat" % (rail, host)
    return [("%s %s port 1" % (host, rail), "%s:1" % ca_guid, ca_guid, 1),
            ("%s port %d (%s %s)" % (leaf["name"], leaf["port"], host, rail), leaf["key"], leaf["guid"], leaf["port"])], None


def leaf_end(host, rail, facts):
    """({name, guid, port, key}: the leaf port the rail lands on, found through iblinkinfo by the port GUID of the
    node's own ibstat; key as ibqueryerrors' reads are keyed), or (None, why)."""
    device = (facts.get("ibstat") or {}).get("devices", {}).get(rail) or {}
    port = (device.get("ports") or {}).get("1")
    if port is None:
        return None, "%s: not in %s's ibstat" % (rail, host)
    links = facts["ib_link_info"]
    link = links["ca_ports"].get((port.get("port_guid") or "").lower())
    if link is None or not link.get("remote"):
        return None, "%s (port GUID %s): no link in iblinkinfo" % (rail, port.get("port_guid"))
    leaf, leaf_port, leaf_guid = link_leaf(link), link["remote"]["port"], link["remote"].get("guid")
    if leaf_guid not in links["switches"]:
        return None, "%s: its leaf %s is not among iblinkinfo's switches" % (rail, leaf)
    return {"name": leaf, "guid": leaf_guid, "port": leaf_port, "key": "%s:%d" % (leaf_guid, leaf_port)}, None


@judge("ib_subnet_manager", scope="pod")
def ib_subnet_manager(facts_by_host, expect_by_host):
    """One master SM for the subnet, the one planned: sminfo on the fabric host asks the SM at its port's SM LID; each
    node's own ibstat says which SM LID configured each of its rails (a port under another SM: a second master)."""
    return {host: _subnet_manager(host, facts, expect_by_host[host]) for host, facts in facts_by_host.items()}


def _subnet_manager(host, facts, expect):
    planned = [_guid(guid) for guid in expect["pyramid_ib_sm_guids"]]
    priority = expect["pyramid_ib_sm_priority"]
    reader = (facts.get("read_on_host") or {}).get("ib_sm_info", "the fabric host")
    expected = "one master SM%s%s answering sminfo on %s, every rail's port configured by it (ibstat SM lid)" % (
        " among %s" % ", ".join(planned) if planned else "", " at priority %d" % priority if priority is not None else "", reader)
    lids, unseen = {}, []
    for rail in expect["pyramid_rails"]:
        port = ((facts["ibstat"]["devices"].get(rail) or {}).get("ports") or {}).get("1") or {}
        if port.get("sm_lid") is None:
            unseen.append(rail)
        else:
            lids[rail] = port["sm_lid"]
    if unseen:
        return verdict(ERROR, expected, "no SM lid for %s in %s's ibstat" % (", ".join(unseen), host),
                       cause="The node's ibstat lists no port or no SM lid for these rails: Layer 0 reads them first")
    sm = facts["ib_sm_info"]
    if not sm["answered"]:
        return verdict(FAIL, expected, "no SM answers sminfo on %s; %s's ports name SM LID %s" % (
            reader, host, ", ".join(str(lid) for lid in sorted(set(lids.values())))),
            cause="No master subnet manager: the SM that configured the ports stopped (or its port went down) and no "
                  "standby took over; the links stay up until something changes, then nothing configures them")
    who = "SM LID %d GUID %s (%s) priority %d" % (sm["lid"], sm["guid"], _sm_node(facts, sm["guid"]), sm["priority"])
    if sm["state"] != "SMINFO_MASTER":
        return verdict(FAIL, expected, "%s answers as %s, not master" % (who, sm["state"]),
                       cause="No master subnet manager: the SM the ports name is not master (a handover under way or "
                             "stuck, an SM in discovery); run sminfo and saquery SMIR on %s again" % reader)
    problems, causes = [], []
    if planned and sm["guid"] not in planned:
        problems.append("master %s is not one of pyramid_ib_sm_guids" % who)
        causes.append("A subnet manager that is not planned is master: an opensm left enabled on a reimaged node, at a "
                      "priority that won; stop it (systemctl disable --now opensm) and hand back to the planned SM")
    if priority is not None and sm["priority"] != priority:
        problems.append("master %s, not at pyramid_ib_sm_priority %d" % (who, priority))
        causes.append("The master SM runs at another priority than planned: a standby or a stray SM took over, or its "
                      "sm_priority is wrong; the planned master at its priority must win the next handover")
    other = ["%s: SM lid %d" % (rail, lid) for rail, lid in sorted(lids.items()) if lid != sm["lid"]]
    if other:
        problems.append("%s, not the master's %d" % (summary(other), sm["lid"]))
        causes.append("A port configured by another SM than the master: a second master (an SM with another SM_Key, or a "
                      "split subnet) or a port no SM has configured (SM lid 0); the named rails answer to it")
    if problems:
        return verdict(FAIL, expected, "; ".join(problems), cause=causes[0])
    return verdict(PASS, expected, "master %s, SMINFO_MASTER; %d rails configured by it" % (who, len(lids)))


@judge("ib_sm_handover", scope="pod")
def ib_sm_handover(facts_by_host, expect_by_host):
    """The same master SM at the soak's start and now: sminfo on the fabric host, read twice a soak apart. A master
    that changed, or the same one restarted (the activity count an SM keeps rising while it runs fell: opensm starts it
    over), handed over during the run; a loop of handovers shows as one of these between any two reads."""
    return {host: _sm_handover(facts) for host, facts in facts_by_host.items()}


def _sm_handover(facts):
    window = facts["ib_sm_watch"]
    before, now, seconds = window["before"], window["after"], window["seconds"]
    reader = (facts.get("read_on_host") or {}).get("ib_sm_watch", "the fabric host")
    expected = ("sminfo on %s at the soak's start and %ds later: the same master both times, its activity count not "
                "fallen (no handover, no restart)" % (reader, seconds))
    if not now["answered"] or now["state"] != "SMINFO_MASTER":
        return verdict(ERROR, expected, "no master answers sminfo now: nothing to compare (ib_subnet_manager's finding)",
                       cause="No master subnet manager now: see ib_subnet_manager")
    who = _sm_who(facts, now)
    if not before["answered"]:
        return verdict(FAIL, expected, "no SM answered sminfo at the soak's start, %ds ago; %s now: the subnet was "
                       "without a master for part of the run" % (seconds, who))
    was = _sm_who(facts, before)
    if before["state"] != "SMINFO_MASTER":
        return verdict(FAIL, expected, "at the soak's start, %ds ago, %s answered as %s (a handover under way); %s now" % (
            seconds, was, before["state"], who))
    if before["guid"] != now["guid"]:
        return verdict(FAIL, expected, "the master changed during the soak (%ds): %s at its start, %s now" % (seconds, was, who))
    if now["activity"] < before["activity"]:
        return verdict(FAIL, expected, "the master restarted during the soak (%ds): %s, its activity count fell from %d "
                       "to %d (the same GUID, a new run of the SM)" % (seconds, who, before["activity"], now["activity"]))
    return verdict(PASS, expected, "%s, master throughout the soak (%ds): activity count %d -> %d" % (
        who, seconds, before["activity"], now["activity"]))


def _sm_who(facts, sm):
    return "SM LID %d GUID %s (%s) priority %d" % (sm["lid"], sm["guid"], _sm_node(facts, sm["guid"]), sm["priority"])


def _guid(text):
    return "0x%016x" % int(text, 16)


def _sm_node(facts, guid):
    """Where the SM's port is, from the subnet read (it only names it): a CA's node description or a switch's name."""
    link = (facts.get("ib_link_info") or {}).get("ca_ports", {}).get(guid)
    if link:
        return link["name"]
    switch = ((facts.get("ib_link_info") or {}).get("switches") or {}).get(guid)
    return switch["name"] if switch else "not in iblinkinfo"


@judge("ib_routing", scope="pod")
def ib_routing(facts_by_host, expect_by_host):
    """The SM's routes spread every leaf's traffic to the other leaves over all its uplinks: each node's rails' leaves,
    their forwarding tables (dump_fts on the fabric host) against the subnet's links (iblinkinfo, the same host). Seed
    004's opening: two spines misconfigured, half the all-reduce traffic funnelled through one path."""
    # the nodes share the pod's one read: each leaf's spread and the read's own proof are worked out once, not per node
    # (a 512-node pod: 130 tables of 4,226 routes, each leaf judged for the 32 nodes on it; bench/ib_routing_scale.py)
    known = {}
    return {host: _routing(host, facts, expect_by_host[host], known) for host, facts in with_rail_guids(facts_by_host).items()}


def _once(known, name, objects, work):
    """``work()`` for these very ``objects`` (the read every node was handed), once per pod call. They are kept with
    the result, so that an id is never that of another object made after one was dropped (a node's own copy)."""
    key = (name,) + tuple(id(item) for item in objects)
    kept = known.get(key)
    if kept is None or any(mine is not theirs for mine, theirs in zip(kept[0], objects)):
        kept = known[key] = (objects, work())
    return kept[1]


def _routing(host, facts, expect, known):
    links, tables = facts["ib_link_info"], facts["ib_routes"]["switches"]
    tolerance = expect["pyramid_ib_route_spread_tolerance"]
    reader = (facts.get("read_on_host") or {}).get("ib_routes", "the fabric host")
    expected = ("each leaf of the node's rails routes the other leaves' CAs over every uplink, none below %d%% of an "
                "equal share (dump_fts on %s)" % (round(100 * (1 - tolerance)), reader))
    leaves, unseen = [], []
    for rail in expect["pyramid_rails"]:
        port = ((facts["ibstat"]["devices"].get(rail) or {}).get("ports") or {}).get("1") or {}
        link = links["ca_ports"].get((port.get("port_guid") or "").lower())
        if not link or not link.get("remote"):
            unseen.append(rail)
        elif link["remote"].get("guid") not in leaves:
            leaves.append(link["remote"].get("guid"))
    if unseen:
        return verdict(ERROR, expected, "%s: not in iblinkinfo on %s" % (", ".join(unseen), reader),
                       cause="A rail missing from the subnet read: Layer 1's InfiniBand links name it")
    unblocked = [problem for problem in (_unproven_leaf(leaf, links) for leaf in leaves) if problem]
    missing = [_switch_name(links, leaf) for leaf in leaves if leaf not in tables and not _unproven_leaf(leaf, links)]
    if missing:
        return verdict(ERROR, expected, "no forwarding table for %s in dump_fts on %s (%d tables read)" % (
            ", ".join(missing), reader, len(tables)),
            cause="A leaf's table missing from the read: the switch did not answer the SM query (run dump_fts on %s "
                  "again), or the read is not the subnet's" % reader)
    whole = _once(known, "unproven", (links,), lambda: _unproven(links))
    unproven = [problem for problem in [whole] + unblocked if problem]
    if unproven:
        return verdict(ERROR, expected, "the subnet read on %s does not agree with itself: %s" % (reader, summary(unproven, 3)),
                       cause="iblinkinfo has no count or trailer: a line or a switch's block lost from the read shows as a "
                             "link seen from one end only; run iblinkinfo on %s again" % reader)
    spreads = [_once(known, "spread %s" % leaf, (tables, links), lambda leaf=leaf: _spread(leaf, tables[leaf], links))
               for leaf in leaves]
    judged = [spread for spread in spreads if spread["remote"]]
    if not judged:
        return verdict(SKIP, expected, "no other leaf: nothing of %s's rails crosses the spines" % host, not_applicable=True)
    bad = [spread for spread in judged if spread["unrouted"] or spread["stray"] or _low(spread, tolerance)]
    if bad:
        return verdict(FAIL, expected, summary([_spread_said(spread, tolerance) for spread in bad], 4), detail={
            "leaves": {spread["leaf"]: {str(port): up for port, up in spread["uplinks"].items()} for spread in bad}})
    return verdict(PASS, expected, "%d leaves of its rails, each spreading its routes to the other leaves' CAs over "
                   "every uplink (%s)" % (len(judged), _spread_said(judged[0], tolerance)))


def _unproven(links):
    """Why the subnet read cannot be trusted whole, or None. iblinkinfo has no count or trailer, but every link is
    printed from both ends: a CA a switch's block shows must show that switch as its far end, and each link between
    two switches must be in both switches' blocks (a lost CA block, switch block or port line leaves one side only)."""
    switches = links["switches"]
    # switches by GUID, each link's far end found by its LID (linux_iblinkinfo): a far end with no block has none
    by_switches = {(port["remote"]["lid"], guid) for guid, switch in switches.items() for port in switch["ports"].values()
                   if port.get("remote") and port["remote"].get("guid") not in switches}
    by_cas = {(ca["lid"], ca["remote"].get("guid") or "?") for ca in links["ca_ports"].values() if ca.get("remote")}
    one_sided = sorted(by_switches ^ by_cas)
    if one_sided:
        lid, guid = one_sided[0]
        return "CA LID %d on %s seen from one end only" % (lid, _switch_name(links, guid) if guid != "?" else "a switch not in the read") + (
            " (and %d more)" % (len(one_sided) - 1) if len(one_sided) > 1 else "")
    ends = {(guid, int(number), port["remote"]["guid"], port["remote"]["port"]) for guid, switch in switches.items()
            for number, port in switch["ports"].items() if port.get("remote") and port["remote"].get("guid") in switches}
    one_sided = sorted(end for end in ends if (end[2], end[3], end[0], end[1]) not in ends)
    if one_sided:
        near, port, far, far_port = one_sided[0]
        return "%s port %d to %s port %d seen from one end only" % (
            _switch_name(links, near), port, _switch_name(links, far), far_port) + (
            " (and %d more)" % (len(one_sided) - 1) if len(one_sided) > 1 else "")
    return None


def _switch_name(links, guid):
    return ((links["switches"].get(guid) or {}).get("name")) or str(guid)


def _unproven_leaf(leaf, links):
    """Why a leaf (its GUID) of the node's rails cannot be judged from the read, or None: its block is missing."""
    if leaf in links["switches"]:
        return None
    ends = sorted({link_leaf(ca) for ca in links["ca_ports"].values() if ca.get("remote") and ca["remote"].get("guid") == leaf})
    return "no block for %s (a CA's far end)" % (", ".join(ends) or leaf)


def _spread(leaf, table, links):
    """How a leaf's routes to the CAs behind other switches leave it: {"leaf", "remote" (how many), "uplinks":
    {port: {"to", "routes"}}, "unrouted": [CA], "stray": [CA out of a port that is no active uplink]}."""
    switch = links["switches"].get(leaf) or {"ports": {}}
    uplinks = {int(number): {"to": port["remote"]["name"], "routes": 0} for number, port in switch["ports"].items()
               if port.get("remote") and port["remote"].get("guid") in links["switches"]
               and port.get("state") in ("Active", None)}  # None: ibnetdiscover's read, linked ports only, no state
    remote = [ca for ca in links["ca_ports"].values() if ca.get("remote") and ca["remote"].get("guid") != leaf]
    unrouted, stray = [], []
    for ca in remote:
        port = table["routes"].get(str(ca["lid"]))
        if port is None or port == 255:
            unrouted.append(ca["name"])
        elif port in uplinks:
            uplinks[port]["routes"] += 1
        else:
            stray.append("%s out of port %d" % (ca["name"], port))
    return {"leaf": _switch_name(links, leaf), "remote": len(remote), "uplinks": uplinks, "unrouted": unrouted, "stray": stray}


def _low(spread, tolerance):
    """The uplinks carrying less than (1 - tolerance) of an equal share of the leaf's routes to other leaves' CAs."""
    uplinks = spread["uplinks"]
    if not uplinks:
        return []
    floor = (1 - tolerance) * spread["remote"] / len(uplinks)
    return [port for port, up in sorted(uplinks.items()) if up["routes"] < floor]


def _spread_said(spread, tolerance):
    ports = ", ".join("port %d (%s) %d" % (port, up["to"], up["routes"]) for port, up in sorted(spread["uplinks"].items()))
    said = "%s: %d routes to other leaves' CAs: %s" % (spread["leaf"], spread["remote"], ports or "no active uplink")
    low = _low(spread, tolerance)
    if low:
        carried = sorted({up["to"] for up in spread["uplinks"].values() if up["routes"]})
        starved = sorted({spread["uplinks"][port]["to"] for port in low})
        said += " - funnelled onto %s, %s starved" % (", ".join(carried) or "nothing", ", ".join(starved))
    if spread["unrouted"]:
        said += "; no route to %s" % summary(spread["unrouted"], 3)
    if spread["stray"]:
        said += "; %s" % summary(spread["stray"], 3)
    return said


@judge("ib_cabling", scope="pod")
def ib_cabling(facts_by_host, expect_by_host):
    """Each planned rail's cable where the plan puts it (pyramid_ib_ports: switch and port), from the subnet read: the
    rail found by its own port GUID, the far end iblinkinfo shows, and what lands on the planned port instead."""
    return {host: _cabling(host, facts, expect_by_host[host]) for host, facts in with_rail_guids(facts_by_host).items()}


def _cabling(host, facts, expect):
    plan = expect["pyramid_ib_ports"]
    reader = (facts.get("read_on_host") or {}).get("ib_link_info", "the fabric host")
    expected = "each planned rail's cable on the switch and port pyramid_ib_ports names, seen by iblinkinfo on %s" % reader
    if not plan:
        return verdict(SKIP, expected, "no cabling plan for %s (pyramid_ib_ports is empty): ib_rail_leaves checks "
                       "rail-optimized cabling without one" % host, not_applicable=True)
    links = facts["ib_link_info"]
    wrong, unseen, right = [], [], []
    for entry in plan:
        rail, planned = entry["rail"], (entry["switch"], int(entry["port"]))
        guid = (((facts["ibstat"]["devices"].get(rail) or {}).get("ports") or {}).get("1") or {}).get("port_guid")
        link = links["ca_ports"].get((guid or "").lower())
        if not link or not link.get("remote"):
            unseen.append("%s: %s" % (rail, "not in %s's ibstat" % host if not guid else "not in iblinkinfo on %s" % reader))
            continue
        if link["remote"].get("guid") not in links["switches"]:  # its leaf's block is not in the read: cut short
            unseen.append("%s: lands on %s, which the read has no block for" % (rail, link_leaf(link)))
            continue
        found = (link_leaf(link), link["remote"]["port"])
        planned_guid = _planned_switch(links, planned[0])
        if (link["remote"].get("guid"), found[1]) == (planned_guid, planned[1]) and planned_guid:
            right.append(rail)
            continue
        there = ((links["switches"].get(planned_guid) or {}).get("ports") or {}).get(str(planned[1]))
        sharing = [guid for guid, switch in links["switches"].items() if switch["description"] == planned[0]]
        if planned_guid is None and len(sharing) > 1:
            occupant = "%r is the description of %d switches (%s): name them by GUID, or by a node-name map's names " \
                       "(pyramid_ib_node_name_map)" % (planned[0], len(sharing), ", ".join(sorted(sharing)))
        elif planned_guid is None:
            occupant = "no switch %s in the subnet" % planned[0]
        elif there is None:
            occupant = "%s has no port %d" % planned
        else:
            occupant = "there: %s" % (there["remote"]["name"] if there.get("remote") else "nothing (%s/%s)" % (
                there["state"], there["phys_state"]))
        wrong.append("%s: on %s port %d, planned %s port %d (%s)" % (rail, found[0], found[1], planned[0], planned[1], occupant))
    if wrong:
        return verdict(FAIL, expected, summary(wrong + ["not judged: " + item for item in unseen]))
    if unseen:
        return verdict(ERROR, expected, "not seen: %s" % summary(unseen),
                       cause="A planned rail missing from the subnet read or from the node's own ibstat: Layer 0 and "
                             "ib_links name it (run iblinkinfo on %s again)" % reader)
    return verdict(PASS, expected, "%d rails each on its planned switch and port" % len(right))


def _planned_switch(links, planned):
    """The GUID of the switch a cabling plan names: by its name in the read (a description that names it alone, or a
    node-name map's), or by its GUID (``0x...``, with or without leading zeros); None where no switch is it."""
    for guid, switch in links["switches"].items():
        if switch["name"] == planned:
            return guid
    try:
        guid = _guid(str(planned)) if str(planned).lower().startswith("0x") else None
    except ValueError:
        guid = None
    return guid if guid in links["switches"] else None
