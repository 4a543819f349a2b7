# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Switch judges (Layers 1-3): vendor-neutral, they read only the normalized switch facts.

Facts per source (docs/switches.md): {"ports": {PORT: ...}} (or, for a per-port command, {port:
facts | SourceFailure}); counters sources come as {"before": ..., "after": ..., "seconds": s}, read
a soak apart. Only the planned ports (pyramid_switch_ports) are judged. A verdict's detail names
the failing ports ({"ports": [...]}) or the whole switch ({"device": true}), so the hosts behind
them can be blocked at that layer (_blocking.py).
"""

from __future__ import annotations

import ipaddress
import re

from .registry import summary as _summary, judge
from ..core.model import ERROR, FAIL, PASS, SKIP, SourceFailure, verdict


def _table(value, key="ports"):
    """(merged table, failures) from one command's facts or a per-port command's {port: facts}."""
    if key in value and not isinstance(value[key], SourceFailure) and all(
            not isinstance(v, SourceFailure) for v in value.values()):
        return value[key], []
    table, failures = {}, []
    # a port's own answer is never overwritten by another port's answer that names it (EOS: a stanza of another port)
    own = {item for item, facts in value.items() if not isinstance(facts, SourceFailure) and key in facts and item in facts[key]}
    for item, facts in value.items():
        if isinstance(facts, SourceFailure):
            failures.append("%s: %s" % (item, facts.reason))
        elif item in own:  # a per-port command's answer: its own port is what it was asked
            table[item] = facts[key][item]
        else:  # a per-port command's facts are that port's values alone
            table.update({port: state for port, state in (facts[key] if key in facts else {item: facts}).items() if port not in own})
    return table, failures


def _stray_reads(value, key="ports"):
    """{port: why} of per-port reads that list other ports but not the one they were asked about: cut or garbled
    before that port's own stanza, so no data about it, never "no optic" (an empty read is the port's own answer:
    NX-OS lists nothing for a copper cable without diagnostics)."""
    if not isinstance(value, dict) or key in value:  # one command's facts for every port
        return {}
    return {item: "%s: its read lists %s, not %s" % (item, ", ".join(sorted(facts[key])[:3]), item)
            for item, facts in value.items()
            if isinstance(facts, dict) and isinstance(facts.get(key), dict) and item not in facts[key] and facts[key]}


def _planned(expect):
    return [entry["port"] for entry in expect["pyramid_switch_ports"]]


def _no_data(expected, failures, what):
    return verdict(ERROR, expected, "no %s: %s" % (what, _summary(failures, 3)),
                   cause="No data for some planned ports: the command failed for them")


def _failed(expected, problems, ports, cause_key=None, device=False, cause=None):
    """A FAIL naming its ports (or the whole switch); cause_key picks one of the check's `causes`, cause
    (a text) overrides them."""
    extra = {"cause_key": cause_key} if cause_key else {}
    return verdict(FAIL, expected, _summary(problems), cause=cause, detail={"ports": sorted(set(ports)), "device": device}, **extra)


def _unproven(value, absent):
    """Why the read cannot prove the planned items ``absent`` from it absent, or None: the parser of a
    table without a trailer says so ({"unverified": why}), since such a table cut at a row boundary reads
    as a complete, shorter one. Asked only when an item is absent: what the read lists stands either way."""
    if not absent or not isinstance(value, dict):
        return None
    why = value.get("unverified")
    return why if isinstance(why, str) else None


def _not_listed(expected, unlisted, why, what):
    """ERROR: the only findings are items a read that cannot prove itself complete does not list."""
    return verdict(ERROR, expected, "%s not listed: %s; the read has %s, so what it does not list may have been cut off" % (
        what, _summary(unlisted, 8), why),
        cause="The read does not list every planned item and cannot prove itself complete: cut short on the way "
              "back, or an item the switch does not have (check the plan); read it on the switch")


# --- Layer 1 ------------------------------------------------------------------------------

@judge("link_status")
def link_status(facts, expect):
    table, failures = _table(facts["sw_interfaces"])
    default_speed = expect["pyramid_port_speed_gbps"]
    expected = "%d planned ports up at their rated speed (%dG unless set per port)" % (
        len(expect["pyramid_switch_ports"]), default_speed)
    problems, ports, kinds = [], [], set()
    for entry in expect["pyramid_switch_ports"]:
        port, want = entry["port"], entry.get("speed_gbps") or default_speed
        state = table.get(port)
        if state is None:
            problems.append("%s not on the switch" % port)
            kinds.add("absent")
        elif state["oper"] != "up":
            problems.append("%s %s (admin %s)" % (port, state["status"], state.get("admin") or "?"))
            kinds.add("down")
        elif state["speed_gbps"] != want:
            problems.append("%s up at %sG, want %dG" % (port, state["speed_gbps"], want))
            kinds.add("speed")
        else:
            continue
        ports.append(port)
    if failures and not problems:
        return _no_data(expected, failures, "interface status")
    unverified = _unproven(facts["sw_interfaces"], ports if kinds == {"absent"} else [])
    if unverified:  # every finding is a port the read does not list, and the read cannot prove it complete
        return _not_listed(expected, ports, unverified, "planned ports")
    if problems:
        return _failed(expected, problems, ports, None if kinds == {"speed"} else sorted(kinds - {"speed"})[0])
    return verdict(PASS, expected, "%d ports up at rated speed" % len(expect["pyramid_switch_ports"]))


def _window(value):
    """(before table, after table, seconds, failures) of a counters source."""
    before, failed_before = _table(value["before"])
    after, failed_after = _table(value["after"])
    return before, after, value["seconds"], failed_before + failed_after


_UNREAD = object()  # a field one of the two reads did not list at all (not the platform's None: a counter it does not keep)


def _deltas(before, after, port, fields):
    """{field: increase} of one port, or a reason the increase is unknown."""
    if port not in before or port not in after:
        return "%s: no counters %s" % (port, "at the snapshot" if port not in before else "now")
    out, old_fields, new_fields = {}, fields(before[port]), fields(after[port])
    for field in list(old_fields) + [field for field in new_fields if field not in old_fields]:
        old, new = old_fields.get(field, _UNREAD), new_fields.get(field, _UNREAD)
        if old is _UNREAD or new is _UNREAD:  # a queue or priority one read lacks: that one is not compared
            return "%s: %s not read %s" % (port, field, "at the snapshot" if old is _UNREAD else "now")
        if old is None and new is None:
            continue  # a counter this platform does not keep (SONiC's TX_ERR N/A)
        if old is None or new is None:
            return "%s: %s not read twice" % (port, field)
        if new < old:
            return "%s: %s went from %d to %d (cleared or rebooted during the window)" % (port, field, old, new)
        out[field] = new - old
    return out


def _per_port(before, after, expect, fields, problems_of):
    """(problems, failing ports, ports not read twice) of the planned ports' counter increases;
    problems_of(port, deltas) lists what is wrong with one port's increases."""
    problems, ports, unknown = [], [], []
    for port in _planned(expect):
        deltas = _deltas(before, after, port, fields)
        if isinstance(deltas, str):
            unknown.append(deltas)
            continue
        found = problems_of(port, deltas)
        if found:
            problems.append("%s: %s" % (port, ", ".join(found)))
            ports.append(port)
    return problems, ports, unknown


def _failed_or_unread(expected, problems, ports, unknown, what, cause):
    """A FAIL naming the ports (and what was not read), an ERROR when nothing failed but some port was
    not read twice, or None: a window never passes on missing data."""
    if problems:
        return _failed(expected, problems + (["not read: " + _summary(unknown, 3)] if unknown else []), ports)
    if unknown:
        return verdict(ERROR, expected, "%s not read twice: %s" % (what, _summary(unknown, 3)), cause=cause)
    return None


def _counter_judge(source, expect, fields, limit, label, unit):
    before, after, seconds, failures = _window(source)
    expected = "%s <= %d per port%s over the %ds window" % (label, limit, unit, seconds)
    problems, ports, unknown = _per_port(before, after, expect, fields, lambda port, deltas: [
        "%s +%d" % (name, value) for name, value in sorted(deltas.items()) if value > limit])
    outcome = _failed_or_unread(expected, problems, ports, failures + unknown, "counters",
                                "Counters could not be compared across the window (a failed read, or counters cleared)")
    return outcome or verdict(PASS, expected, "%d ports, none above %d over %ds" % (len(_planned(expect)), limit, seconds))


@judge("link_errors")
def link_errors(facts, expect):
    return _counter_judge(facts["sw_errors"], expect,
                          lambda port: {"crc": port["crc"], "in_errors": port["in_errors"], "out_errors": port["out_errors"]},
                          expect["pyramid_link_error_max"], "CRC/FCS, input and output errors", "")


def _fec_fields(port):
    return {"corrected": port["fec_corrected"], "uncorrected": port["fec_uncorrected"]}


@judge("fec_counters")
def fec_counters(facts, expect):
    """Corrected codewords per second over the soak under the threshold (how hard the FEC works: the
    pre-FEC error rate), and not one uncorrected codeword (a frame lost). A counter read once, or going
    backwards (`clear counters`, a reboot), is no data: ERROR, never PASS."""
    before, after, seconds, failures = _window(facts["sw_fec"])
    limit = expect["pyramid_fec_corrected_per_second_max"]
    per_second = max(seconds, 1)  # a window under a second still counts its codewords
    expected = "FEC corrected codewords <= %d/s per port and none uncorrected over the %ds window" % (limit, seconds)
    rates = {}

    def problems_of(port, deltas):
        rates[port] = deltas["corrected"] / per_second
        found = ["%d corrected codewords/s" % round(rates[port])] if rates[port] > limit else []
        return found + (["uncorrected +%d (frames lost)" % deltas["uncorrected"]] if deltas["uncorrected"] else [])

    problems, ports, unknown = _per_port(before, after, expect, _fec_fields, problems_of)
    outcome = _failed_or_unread(expected, problems, ports, failures + unknown, "FEC counters",
                                "FEC counters could not be compared across the window (a failed read, a port without "
                                "FEC counters, or counters cleared during the soak)")
    if outcome:
        return outcome
    worst = max(rates, key=rates.get) if rates else None
    busiest = "; most corrected: %s %d codewords/s" % (worst, round(rates[worst])) if worst else ""
    return verdict(PASS, expected, "%d ports over %ds, none uncorrected%s" % (len(rates), seconds, busiest))


@judge("optics_rx")
def optics_rx(facts, expect):
    table, failures = _table(facts["sw_optics"])
    low, high = expect["pyramid_optics_rx_min_dbm"], expect["pyramid_optics_rx_max_dbm"]
    expected = "every lane's RX power %.1f to %.1f dBm" % (low, high)
    problems, ports, absent = [], [], []
    stray = _stray_reads(facts["sw_optics"])
    failures = failures + sorted(stray.values())
    unread = {item for item, value in facts["sw_optics"].items() if isinstance(value, SourceFailure)} | set(stray)  # per-port reads
    for port in _planned(expect):
        optic = table.get(port)
        if optic is None and port in unread:
            continue  # a failed read is no data about the optic (an ERROR below), not a missing optic
        if optic is None or not optic["rx_dbm"]:
            problems.append("%s: no optic or no RX power reading" % port)
            ports.append(port)
            absent += [port] if optic is None else []
            continue
        bad = ["lane %d %s" % (lane + 1, "no reading" if dbm is None else "%.2f dBm" % dbm)
               for lane, dbm in enumerate(optic["rx_dbm"]) if dbm is None or not low <= dbm <= high]
        if bad:
            problems.append("%s: %s" % (port, ", ".join(bad)))
            ports.append(port)
    short = _short_lanes(table, _planned(expect))
    if failures and not problems:
        if stray and len(stray) == len(failures):  # every read answered, some about another port than asked
            return verdict(ERROR, expected, "no optics readings: %s" % _summary(failures, 3),
                           cause="A per-port read answered about another port (cut or garbled before its own): "
                                 "no data about the port it was asked for")
        return _no_data(expected, failures, "optics readings")
    unverified = _unproven(facts["sw_optics"], absent if absent == ports and not failures else [])
    if unverified:  # every finding is a port the read does not list, and the read cannot prove it complete
        return _not_listed(expected, absent + short, unverified, "planned ports")
    if problems:
        return _failed(expected, problems + (["not read: " + _summary(failures + short, 3)] if failures or short else []), ports)
    if short:
        return verdict(ERROR, expected, "optics read incomplete: %s" % _summary(short, 3),
                       cause="The transceiver read lists fewer lanes for a port than for the others (cut short?): "
                             "no lane is proven in range by a lane that was never read")
    return verdict(PASS, expected, "%d ports, every lane in range" % len(_planned(expect)))


def _short_lanes(table, planned):
    """Planned ports whose optic reads fewer RX lanes than most planned ports' optics: the switches list
    lanes one row (EOS) or one line (NX-OS, NVUE) at a time with no lane count, so a read cut after a
    port's first lane looks like a 1-lane optic. A rail's optics are one type across the plan, so the
    most common lane count is the one every port has."""
    counts = [len(table[port]["rx_dbm"]) for port in planned if table.get(port) and table[port]["rx_dbm"]]
    if len(counts) < 2:
        return []
    usual = max(set(counts), key=lambda count: (counts.count(count), count))  # a tie: the larger (a cut only removes lanes)
    return ["%s: %d of %d lanes read" % (port, len(table[port]["rx_dbm"]), usual) for port in planned
            if table.get(port) and 0 < len(table[port]["rx_dbm"]) < usual]


@judge("cabling")
def cabling(facts, expect):
    """A planned port's LLDP neighbors against its planned peer. An LLDP neighbor table lists only ports that
    have a neighbor, so a port it does not list is silent; a table of every port (Cumulus NVUE) lists a silent
    one with no neighbor ([]), and when such a table cannot prove itself complete (`unverified`), a port it
    does not list may have been cut off: never a silent port, nor a proven one."""
    table, failures = _table(facts["sw_lldp"], "neighbors")
    expected = "every planned port's LLDP neighbor is its planned peer"
    problems, ports, silent, unlisted = [], [], [], []
    for entry in expect["pyramid_switch_ports"]:
        if not entry.get("peer"):
            continue
        port, seen = entry["port"], table.get(entry["port"])
        if not seen:
            (unlisted if seen is None else silent).append(port)
            continue
        match = [n for n in seen if _same_name(n["system"], entry["peer"]) and
                 (not entry.get("peer_port") or n["port"] == entry["peer_port"])]
        if not match:
            found = ", ".join("%s %s" % (n["system"], n["port"]) for n in seen)
            problems.append("%s: plan %s %s, LLDP sees %s" % (port, entry["peer"], entry.get("peer_port") or "", found))
            ports.append(port)
    unverified = _unproven(facts["sw_lldp"], unlisted)
    if not unverified:  # a neighbor table, or one that proves itself whole: a port it does not list is silent
        quiet = set(silent + unlisted)
        silent, unlisted = [entry["port"] for entry in expect["pyramid_switch_ports"] if entry.get("peer") and entry["port"] in quiet], []
    if failures and not problems:
        return _no_data(expected, failures, "LLDP neighbors")
    if expect["pyramid_lldp_required"] and silent:
        problems.append("no LLDP neighbor on %s" % ", ".join(silent[:8]))
        ports.extend(silent)
        silent = []
    elsewhere = _seen_elsewhere(table, expect, silent)
    if elsewhere:  # the planned peer answers on another local port: miscabled (or the row's port damaged), never silent
        problems.extend(elsewhere.values())
        ports.extend(elsewhere)
        silent = [port for port in silent if port not in elsewhere]
    # a row whose local port is garbled (a NUL in its padding, the number replaced by a dash) belongs to a port the
    # table then seems not to list: that port reads silent, and a silent port passes where LLDP is not required
    garbled = sorted(repr(port) for port in table if not _INTERFACE_NAME.match(str(port)))
    # beside a garbled row a silent port may be that row's: the read's damage (ERROR below), not the port's silence
    unproven, unproven_problem = [] if garbled else _unproven_silent(expect, table, silent), None
    if unproven:  # LLDP answers on the port's like (host or fabric ports) but not on it: not proven is not a pass
        roles = sorted({_role(entry) for entry in expect["pyramid_switch_ports"] if entry["port"] in unproven})
        unproven_problem = "no LLDP neighbor on %s while LLDP answers on other %s ports (not proven)" % (
            ", ".join(unproven[:8]), " and ".join(roles))
        problems.append(unproven_problem)
        ports.extend(unproven)
        silent = [port for port in silent if port not in unproven]
    if problems:
        return _failed(expected, problems + (["not listed: " + ", ".join(unlisted[:8])] if unlisted else [])
                       + (["rows with a garbled local port: " + ", ".join(garbled[:8])] if garbled else []), ports,
                       "silent" if problems == [unproven_problem] else None)
    if garbled:
        return verdict(ERROR, expected, "LLDP rows with a local port that is no interface name: %s" % ", ".join(garbled[:8]),
                       cause="The LLDP read is damaged (a row's local port garbled): the port that row belongs to is "
                             "proven neither cabled nor silent; read the neighbor table on the switch")
    if unlisted:
        return _not_listed(expected, unlisted, unverified, "planned ports")
    planned = sum(1 for entry in expect["pyramid_switch_ports"] if entry.get("peer"))
    proven = planned - len(silent)
    if planned and not proven:  # nothing measured is never a PASS (hosts without lldpd: pyramid_lldp_required false)
        return verdict(SKIP, expected, "not checked: no planned port has an LLDP neighbor (%s silent; pyramid_lldp_required "
                                       "is false)" % ", ".join(silent[:8]), not_applicable=True)
    return verdict(PASS, expected, "%d ports proven by LLDP%s" % (
        proven, "; not checked: no %s port sends LLDP (%s; pyramid_lldp_required is false)" % (
            " or ".join(sorted({_role(entry) for entry in expect["pyramid_switch_ports"] if entry["port"] in silent})),
            ", ".join(silent[:8])) if silent else ""))


def _role(entry):
    return entry.get("role") or "host"


def _unproven_silent(expect, table, silent):
    """The silent planned ports (LLDP not required) whose role LLDP answers on another planned port: where no host
    runs lldpd every host port is silent (not checked, as the setting allows), but a host port silent beside host
    ports LLDP proves is a port the read does not prove, never a pass (issue 68: a row damaged into another port's
    name left its planned port silent, and a miscabled port passed)."""
    proven = {_role(entry) for entry in expect["pyramid_switch_ports"]
              if entry.get("peer") and entry["port"] not in silent and table.get(entry["port"])}
    return [port for port in silent
            if any(entry["port"] == port and _role(entry) in proven for entry in expect["pyramid_switch_ports"])]


def _seen_elsewhere(table, expect, silent):
    """{silent planned port: problem} where its planned peer and peer port are LLDP's neighbor on another local port:
    the cable is in the wrong port, or the row's local port was damaged into another port's name; either way the
    planned port is not proven, and it is named with where its peer answers (a plan without the peer port names no
    one end: a host may have several ports on the switch)."""
    found = {}
    for entry in expect["pyramid_switch_ports"]:
        if entry["port"] not in silent or not entry.get("peer_port"):
            continue
        where = sorted(str(local) for local, seen in table.items() if local != entry["port"] and _INTERFACE_NAME.match(str(local)) and any(
            _same_name(n["system"], entry["peer"]) and n["port"] == entry["peer_port"] for n in seen or []))
        if where:
            found[entry["port"]] = "%s: plan %s %s, LLDP sees it on %s" % (
                entry["port"], entry["peer"], entry.get("peer_port") or "", ", ".join(where[:3]))
    return found


# An interface name as the switches print one (EOS Ethernet1/1, NX-OS Eth1/1 or mgmt0, SONiC Ethernet0, NVUE swp1s0,
# eth0, peerlink, Port-Channel10): a letter first, a letter or digit last, and no negative number: a dash between a
# letter or slash and a digit (Et-7/1, Eth1/-7, swp-7, Ethernet-7/1) is a slot, module or port number damaged into a
# well-formed name that is no interface of any switch (issue 68: that row's planned port then read silent and passed)
_INTERFACE_NAME = re.compile(r"^(?!.*(?<=[A-Za-z/])-\d)[A-Za-z][A-Za-z0-9_./:-]*[A-Za-z0-9]$")


def _same_name(seen, planned):
    """LLDP system names are often FQDNs: node-001.pod1.example matches node-001."""
    return seen == planned or seen.split(".")[0] == planned.split(".")[0]


# --- Layer 2 ------------------------------------------------------------------------------

@judge("bgp_sessions")
def bgp_sessions(facts, expect):
    seen = facts["sw_bgp"]["neighbors"]
    wanted, minimum = expect["pyramid_bgp_neighbors"], expect["pyramid_bgp_min_prefixes"]
    expected = "%d neighbors Established, >= %d prefixes each" % (len(wanted), minimum)
    problems, kinds = [], set()
    for neighbor in wanted:
        name = "%s (%s)" % (neighbor["address"], neighbor.get("name") or "AS %s" % neighbor.get("remote_as"))
        state = seen.get(neighbor["address"])
        if state is None:
            problems.append("%s not configured" % name)
            kinds.update(("missing", "absent"))
        elif not _up(state):
            problems.append("%s %s" % (name, _state(state)))
            kinds.add("down")
        elif state.get("no_policy"):
            problems.append("%s Established, no routes exchanged: no policy on this switch (Policy)" % name)
            kinds.add("no_policy")
        elif _accepted(state) < minimum:
            if _denied(state):
                problems.append("%s Established, %d prefixes received, %d accepted: the inbound policy denied the rest"
                                % (name, state["prefixes_received"], state["prefixes_accepted"]))
                kinds.add("denied_in")
            else:
                problems.append("%s Established, %s prefixes received" % (name, state["prefixes_received"]))
                kinds.add("no_prefixes")
        elif neighbor.get("remote_as") and state["remote_as"] != neighbor["remote_as"]:
            problems.append("%s remote AS %s, want %s" % (name, state["remote_as"], neighbor["remote_as"]))
            kinds.add("missing")
    # a summary that cannot prove itself complete does not prove a neighbor absent: the read, not the switch
    # (asked only when a neighbor is absent: the neighbors it lists stand whether or not it is complete)
    unverified = _unproven(facts["sw_bgp"], ["absent"] if "absent" in kinds else [])
    if unverified:
        return verdict(ERROR, expected, "%s; the summary has %s, so a neighbor it does not list may have been cut off"
                       % (_summary(problems), unverified),
                       cause="The BGP summary read cannot be shown complete (no closing total): read it on the switch")
    if problems:
        if "no_policy" in kinds and "down" not in kinds:
            return _failed(expected, problems, [], device=True, cause=_NO_POLICY)
        return _failed(expected, problems, [], None if "down" in kinds else sorted(kinds - {"absent"})[0], device=True)
    return verdict(PASS, expected, "%d neighbors Established" % len(wanted))


# FRR marks an eBGP session (Policy) when `bgp ebgp-requires-policy` (RFC 8212, on by default since FRR
# 7.4) finds no inbound/outbound policy for it on THIS router: the peer is not at fault.
_NO_POLICY = ("BGP Established but no routes exchanged: this switch runs `bgp ebgp-requires-policy` (RFC 8212, FRR's "
              "default) with no route-map in/out for the neighbor; add the policies on this switch, or `no bgp "
              "ebgp-requires-policy`")


@judge("ecmp")
def ecmp(facts, expect):
    routes, sessions = facts["sw_routes"]["routes"], facts["sw_bgp"]["neighbors"]
    want, prefixes = expect["pyramid_ecmp_paths"], expect["pyramid_ecmp_prefixes"]
    names = {n["address"]: n.get("name") or n["address"] for n in expect["pyramid_bgp_neighbors"]}
    expected = "%d prefixes with %d BGP next hops each" % (len(prefixes), want)
    problems, kinds, flagged = [], set(), {}
    isolated = silent = None  # read only for a missing prefix: a PASS never rests on the sessions
    for prefix in prefixes:
        key = str(ipaddress.ip_network(prefix, strict=False))
        route = routes.get(key)
        if route is None:
            if isolated is None:
                isolated, silent = _isolated(names, sessions), _silent(names, sessions, routes)
            problems.append("%s: no BGP route" % prefix)
            kinds.add("session_down" if isolated else "nothing_received" if silent else "no_route")
            flagged[prefix] = key
            continue
        hops = list(dict.fromkeys(route["next_hops"]))  # distinct next hops: a via line read twice is one path
        if len(hops) >= want:
            continue
        flagged[prefix] = key
        missing = [name for address, name in sorted(names.items(), key=lambda kv: kv[1]) if address not in hops]
        down = [name for address, name in names.items() if address not in hops
                and not _up(sessions.get(address, {}))]
        via = " (missing via %s)" % ", ".join(missing) if missing else ""
        problems.append("%s: %d of %d next hops%s" % (prefix, len(hops), want, via))
        kinds.add("session_down" if down else "short")
    if isolated and problems:
        problems.append("no BGP session Established (%s)" % ", ".join(sorted(names.values())))
    elif "nothing_received" in kinds and not any(sessions[address].get("no_policy") for address in names if address in sessions):
        denied = sorted(names[address] for address in names if _denied(sessions.get(address, {})))
        if denied:  # the spines send: this switch's inbound policy lets nothing in (EOS counts both)
            kinds.discard("nothing_received")
            kinds.add("denied_in")
            problems.append("BGP sessions Established, 0 prefixes accepted of those received (%s): denied on the way in"
                            % ", ".join(denied))
        else:
            problems.append("BGP sessions Established, 0 prefixes received (%s)" % ", ".join(silent))
    # asked only when a wanted prefix is missing: a table that lists every wanted prefix is not empty
    damaged = _routes_unread(routes, sessions) if kinds & {"no_route", "nothing_received", "denied_in"} else None
    if damaged:
        return verdict(ERROR, expected, damaged, cause="The route table read contradicts the BGP summary read: a damaged "
                       "or cut-short read of `show ip route bgp`, or received routes never installed (unresolvable next "
                       "hops, a full FIB); read both on the switch")
    unverified = _routes_unproven(facts["sw_routes"], flagged)
    if unverified:  # every finding may be the read's end cut off, and the read cannot prove itself complete
        return _not_listed(expected, problems, unverified, "routes")
    if problems:
        policy = [address for address, state in sessions.items() if state.get("no_policy")]
        if policy and "session_down" not in kinds:
            return _failed(expected, problems + ["sessions without policy (Policy): %s" % ", ".join(sorted(policy))], [],
                           device=True, cause=_NO_POLICY)
        return _failed(expected, problems, [], _ecmp_cause(kinds, len(problems), len(prefixes)), device=True)
    return verdict(PASS, expected, "%d prefixes, %d-way ECMP each" % (len(prefixes), want))


def _isolated(names, sessions):
    """No session of this switch up: every prefix it lacks is lost here, through those sessions (issue 35: a leaf
    whose every session is down was told "prefix not in the routing table")."""
    return bool(names) and not any(_up(sessions.get(address, {})) for address in names)


def _silent(names, sessions, routes):
    """The planned sessions, when every one is up, none receives a prefix and the table holds no BGP route (else None):
    a prefix this switch lacks then came in through none of them. A session down is its own cause; a route the table
    holds contradicts "nothing received" (the read, weighed by _routes_unread). FRR's Policy-marked sessions are among
    them; their own cause is named first."""
    if not names or routes or not all(_up(sessions.get(address, {})) for address in names):
        return None
    if any(_accepted(sessions[address]) for address in names):
        return None
    return sorted(names.values())


def _accepted(session):
    """The prefixes a session brought into this switch: what its inbound policy accepted where the platform counts
    that apart (EOS), else what it received (FRR's PfxRcd is counted after the inbound policy)."""
    accepted = session.get("prefixes_accepted")
    return accepted if accepted is not None else (session.get("prefixes_received") or 0)


def _denied(session):
    """Up, sent prefixes, and the inbound policy let fewer in than came (EOS's PfxAcc below PfxRcd)."""
    accepted = session.get("prefixes_accepted")
    return _up(session) and accepted is not None and accepted < (session.get("prefixes_received") or 0)


def _up(session):
    """Established with no reason beside it (EOS's Estab(NotNegotiated) is up with no address family to carry)."""
    return session.get("state") == "Established" and not session.get("reason")


def _state(session):
    """The state as the platform said it: its word, and its reason where it gave one ("Idle (Admin)")."""
    return "%s (%s)" % (session["state"], session["reason"]) if session.get("reason") else session["state"]


def _routes_unproven(value, flagged):
    """Why a route table without a trailer cannot prove the findings on the prefixes ``flagged`` ({prefix:
    route key}), or None: each is a prefix it does not list, or the last route it lists (its next hops are
    lines of their own, so a table cut after the first of them reads as a shorter route), unless each route
    counts its own next hops (NX-OS's ubest: ``next_hops_counted``). An empty table is weighed against the BGP
    sessions instead (_routes_unread)."""
    routes = value["routes"]
    if not flagged or not routes:
        return None
    last = None if value.get("next_hops_counted") else list(routes)[-1]  # the parsers list routes in the table's order
    if any(key in routes and key != last for key in flagged.values()):
        return None  # a route listed in full before the end is short: that finding stands
    return _unproven(value, list(flagged))


def _routes_unread(routes, sessions):
    """Why an empty route table cannot be the truth, or None: BGP neighbors that report prefixes received and accepted
    (past their inbound policy) install routes, so no BGP route at all beside them is a read that lost its table."""
    if routes:
        return None
    feeding = sorted(address for address, state in sessions.items() if _up(state) and _accepted(state) > 0)
    if not feeding:
        return None
    return "no BGP route read, while %s report%s %d prefixes accepted: the route table read is incomplete" % (
        ", ".join(feeding[:4]), "s" if len(feeding) == 1 else "", sum(_accepted(sessions[a]) for a in feeding))


def _ecmp_cause(kinds, short, total):
    """Local session down; every prefix short with every session up (maximum-paths, the catalog's
    cause); or only some prefixes short (their leaf's session to that spine is down)."""
    if "session_down" in kinds:
        return "session_down"
    if "denied_in" in kinds:
        return "denied_in"
    if "nothing_received" in kinds:
        return "nothing_received"
    if kinds == {"no_route"}:
        return "no_route"
    return None if short == total else "remote"


# --- Layer 3 (idle) -----------------------------------------------------------------------

def _per_priority(table_entry, kinds):
    return {"%s %s" % (kind, priority): counters[kind] for priority, counters in table_entry.items() for kind in kinds}


@judge("pfc_idle")
def pfc_idle(facts, expect):
    return _counter_judge(facts["sw_pfc"], expect, lambda port: _per_priority(port, ("rx", "tx")),
                          expect["pyramid_idle_pfc_max"], "PFC pause frames (RX/TX per priority)", " and priority")


@judge("pfc_enabled")
def pfc_enabled(facts, expect):
    """PFC on, on every lossless priority, on every planned port: a port with PFC off makes RoCE lossy,
    and its idle pause counters of 0 prove nothing. A port the read does not list is not read (ERROR
    unless something else already FAILs), never taken as on."""
    table, failures = _table(facts["sw_pfc_state"], "pfc")
    wanted = sorted(set(expect["pyramid_pfc_priorities"]))
    # EOS is read from the running-config (no published operational report to parse): its verdicts say "configured"
    config = any(isinstance(table.get(port), dict) and table[port].get("source") == "running-config"
                 for port in _planned(expect))  # the planned ports alone: the rest is not read
    expected = "PFC %s on every planned port%s%s" % (
        "configured" if config else "operational", " on priority %s" % ", ".join(map(str, wanted)) if wanted else "",
        " (running-config)" if config else "")
    problems, ports, unread = [], [], []
    failed = {item for item, value in facts["sw_pfc_state"].items() if isinstance(value, SourceFailure)}  # per-port reads
    others = _other_ports_answered(facts["sw_pfc_state"])
    for port in _planned(expect):
        state = table.get(port) if port not in others else None
        if state is None:
            if port in others:  # EOS: the stanza that came back is another port's, so this one is not read
                unread.append("%s: the answer is the stanza of %s, not this port's" % (port, ", ".join(others[port])))
            elif port not in failed:  # a failed read is already said, with its reason
                unread.append("%s: PFC state not listed" % port)
            continue
        problem = _pfc_problem(port, state, wanted)
        unproven = _pfc_config_unproven(port, state, wanted) if problem else None
        if unproven:  # EOS: the line missing may be the read's end cut off: an ERROR about the read, not a FAIL
            unread.append(unproven)
            continue
        if problem:
            problems.append(problem)
            ports.append(port)
    if problems:
        return _failed(expected, problems + (["not read: " + _summary(failures + unread, 3)] if failures or unread else []), ports)
    if failures and not unread:
        return _no_data(expected, failures, "PFC state")
    if failures or unread:
        return verdict(ERROR, expected, "PFC state not read: %s" % _summary(failures + unread, 3),
                       cause="The PFC state read does not list every planned port (cut short, or a port without a "
                             "QoS map): no port is taken as lossless on a read that does not show it")
    states = [table[port] for port in _planned(expect)]  # the planned ports alone: the rest is not judged
    if states and all(state.get("source") == "running-config" for state in states):
        return verdict(PASS, expected, "%d ports, PFC configured%s in the running-config (the configuration, not the "
                                       "operational state)" % (len(states), _priorities_said(states, wanted)))
    return verdict(PASS, expected, "%d ports, PFC operational%s" % (len(states), _priorities_said(states, wanted)))


def _other_ports_answered(value):
    """{asked port: [ports its answer is about]} of a per-port read whose answer names other ports alone (EOS's
    running-config stanza of another interface): that port is not read, never judged by another's state."""
    out = {}
    for item, facts in value.items():
        if isinstance(facts, dict) and isinstance(facts.get("pfc"), dict) and facts["pfc"] and item not in facts["pfc"]:
            out[item] = sorted(facts["pfc"])
    return out


def _pfc_config_unproven(port, state, wanted):
    """Why an EOS running-config finding may be a read cut short, or None: the stanza has no trailer, so a PFC
    line it lacks is proven missing only by a line printed after the PFC lines (``complete``), or by an explicit
    `no priority-flow-control` / `priority N drop`."""
    if state.get("source") != "running-config" or state.get("complete"):
        return None
    lines = state.get("lines") or []
    if not state["enabled"]:
        if "no priority-flow-control" in lines:
            return None
        missing = "'priority-flow-control on'"
    else:
        off = [prio for prio in wanted if prio not in state["priorities"]]
        if all("priority-flow-control priority %d drop" % prio in lines for prio in off):
            return None
        missing = ", ".join("'priority-flow-control priority %d no-drop'" % prio for prio in off)
    return "%s: no %s line in the running-config stanza, which ends there with no trailer: a read cut short reads the same" % (
        port, missing)


def _pfc_problem(port, state, wanted):
    """What is wrong with one port's PFC, in NX-OS's words where the platform names no priority, or None."""
    if state["priorities"] is None:  # NX-OS: Oper Mode only
        return None if state["enabled"] else "%s: PFC Oper Mode Off" % port
    if state.get("source") == "running-config":
        return _pfc_config_problem(port, state, wanted)
    lossless = sorted(state["priorities"]) if state["enabled"] else []
    off = [prio for prio in wanted if prio not in lossless]
    if state["enabled"] and not off:
        return None
    where = "priority %s" % ", ".join(map(str, off)) if off else "every priority"
    return "%s: PFC off on %s (lossless priorities: %s)" % (port, where, ", ".join(map(str, lossless)) or "none")


def _pfc_config_problem(port, state, wanted):
    """EOS: what the port's running-config lacks, in its words (the configuration, not the operational state)."""
    lossless = sorted(state["priorities"]) if state["enabled"] else []
    off = [prio for prio in wanted if prio not in lossless]
    if state["enabled"] and not off:
        return None
    said = "; ".join("'%s'" % line for line in state.get("lines") or [])
    if not state["enabled"]:
        if said:
            return "%s: PFC off in the running-config (%s)" % (port, said)
        return "%s: PFC off in the running-config (no 'priority-flow-control on')" % port
    return "%s: priority %s not configured no-drop in the running-config (no-drop priorities: %s)" % (
        port, ", ".join(map(str, off)), ", ".join(map(str, lossless)) or "none")


def _priorities_said(states, wanted):
    """What a PASS proved: the priorities, where the platform names them; NX-OS's Oper Mode otherwise."""
    if not states:
        return ""
    if all(state["priorities"] is None for state in states):
        return " (Oper Mode On)"
    return " on priority %s" % ", ".join(map(str, wanted)) if wanted else ""


@judge("ecn_idle")
def ecn_idle(facts, expect):
    return _counter_judge(facts["sw_ecn"], expect, lambda port: {"ECN-marked q%s" % q: n for q, n in port.items()},
                          expect["pyramid_idle_ecn_max"], "ECN-marked packets", " and queue")


@judge("discards_idle")
def discards_idle(facts, expect):
    return _counter_judge(facts["sw_discards"], expect, lambda port: {"discards q%s" % q: n for q, n in port.items()},
                          expect["pyramid_idle_discards_max"], "queue discards", " and queue")
