# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The link kind (issue 69, "name the link"): after the pod's all-to-all misses while every node and every scalable
unit holds, the same all-to-all runs again while the leaf uplinks and spine ports on its paths are read before and
after it. This judge names the fabric link whose counters show the loss, or says that none does.

Inputs: facts = {switch: {source: {"before", "after", "seconds"} | SourceFailure}} for sw_port_traffic, sw_errors,
sw_ecn and sw_discards (counter windows as run/counters.py makes them, read through judging/switch.py's _window and
_deltas: a counter read once, or lower after than before, is no figure); expect = {"links": [{leaf, leaf_port, spine,
spine_port}] on the load's paths, "nodes", "missed" (the all-to-all's miss, in its words), the thresholds}.

The rules, and why each is sound:
- share (slow_link): ECMP hashes the many flows of an all-to-all evenly over a leaf's equal-cost uplinks, so over one
  window each uplink of a leaf carries about the bytes of the others. Each direction of a link (out of the leaf's
  port, out of the spine's port toward the leaf) is compared with the median of the same direction of its leaf's other
  uplinks on the paths: the median of the others, so a slow link does not pull its own bar down, and one slow peer
  does not either. Under pyramid_link_share_min of it, the link did not carry what was hashed to it while the load
  ran (a reduced rate, or flows steered off it). A leaf with one uplink on the paths has nothing to compare with:
  said so, that link is judged by its errors and marks alone. Peers that carried nothing are not a bar. A slow link
  whose bytes all passed before the window closed is not short of bytes: its queue is (the concentration rule).
- errors (errors_under_load): the idle soak (link_errors) passed before the load; CRC or input errors rising above
  pyramid_link_error_max on the receive side of either end during the window are the cable or an optic failing under
  traffic (a marginal cable errs in proportion to what it carries, zero at idle).
- concentration (marks_concentrated, discards_concentrated): with the load spread evenly, every egress port on the
  paths marks and drops about alike; one port holding more than half of all the ECN marks (or discards) read on the
  paths' ports, and at least pyramid_link_marks_min of them, is the queue that does not drain: its link is slower
  than its share. It needs two links at least (with one, every mark is on it) and every path port read (an unread
  port may hold more). Marks and discards are the RoCE priority's (the first of pyramid_pfc_priorities, where the
  check lists it; EOS's discards and NVUE's marks are per port), else every queue's.
A pair (links_of_a_pair_under_load: a round-2 pair placed on "the path", its run made again): its few flows hash onto
one uplink per rail, so its paths are the links that carried the run (at least TAKEN_SHARE of the busiest link's
bytes; the rest carried the fabric's own trickle and are off its paths, a switch holding none of them not applicable),
and shares are not compared (the ring's rails move in lockstep: a slow link carries its bytes late, its queue shows
it); errors and concentration as above; with no link named, its nodes stay on "the path". Several pairs are several
runs, each on its own window; a switch on the paths of several keeps the verdict that says most (merged).
A switch whose links on the paths carried nothing either way was not measured under the load: ERROR, never a PASS.
A link named by any rule FAILs its leaf and its spine, naming it and its figures (its nodes are not blocked: the
link is the fabric's, detail "blocks_hosts": false); the other switches on the paths PASS with their figures. Each
node PASSes once a link is named (the miss is placed there); with none named it FAILs "spine" (the spine layer,
unplaced) as before the hunt, or is an ERROR where a read that was missed might have named one. A window without
any traffic on the paths is no measurement (the load did not run): ERROR for everyone, never a PASS.
"""

from __future__ import annotations

import statistics

from ..core.model import ERROR, FAIL, PASS, SKIP, SourceFailure, counted, percent, verdict
from .registry import judge, summary as _summary
from .switch import _UNREAD, _deltas, _window

SOURCES = ("sw_port_traffic", "sw_errors", "sw_ecn", "sw_discards")
ERROR_COUNTERS = ("crc", "in_errors")  # the receive side: what a failing cable or optic raises at the far end of it
# What each figure is called where it is read: a RoCE switch's counters (an InfiniBand subnet's: judging/link_infiniband.py)
ROCE = {"errors": ERROR_COUNTERS, "errors_said": "CRC/input errors", "marks": "ECN marks", "discards": "discards"}
# a switch FAILing for several links: the cause that most surely is the link's own first
CAUSE_ORDER = ("errors_under_load", "slow_link", "marks_concentrated", "discards_concentrated")
_FAILED = "(its read failed)"  # a figure whose source failed as a whole on the switch


def link_name(link):
    """"leaf-01 Ethernet49/1 - spine-02 Ethernet1/1"."""
    return "%s %s - %s %s" % (link["leaf"], link["leaf_port"], link["spine"], link["spine_port"])


class Packets(int):
    """A port's traffic counted in packets, where its platform prints no octets (SONiC's portstat): compared only with
    other packet counts, never with bytes."""


def _size(count):
    if isinstance(count, Packets):
        return "%d packets" % count
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if count >= scale:
            return "%.2f %s" % (count / scale, unit)
    return "%d B" % count


def _reads(facts, switch, ports):
    """(the switch's {source: (before table, after table)}, its failures [(command, why)]) over the path ports."""
    tables, failed = {}, []
    own = facts.get(switch) if isinstance(facts.get(switch), dict) else {}
    for source in SOURCES:
        value = own.get(source)
        if isinstance(value, SourceFailure):
            failed.append((value.command, _failure(value)))
        elif not isinstance(value, dict) or not all(isinstance(value.get(side), dict) for side in ("before", "after")):
            failed.append((None, "%s not read before and after the load" % source))
        else:
            for side in ("before", "after"):  # a per-port read (NVUE, NX-OS) that failed on a port of the paths
                failed.extend((item.command, "%s (%s the load): %s" % (port, side, _failure(item)))
                              for port, item in value[side].items() if port in ports and isinstance(item, SourceFailure))
            before, after, _seconds, _failures = _window(value)
            tables[source] = (before, after, value["seconds"])
    return tables, failed


def _failure(failure):
    """A failed read in its own words, naming its command once."""
    return failure.reason if failure.command in failure.reason else "%s: %s" % (failure.command, failure.reason)


def _figure(tables, source, port, fields, pick):
    """A port's rise over the window through pick(deltas), or a text saying why there is none (_FAILED: the read
    failed as a whole, which the switch's failures already say)."""
    if source not in tables:
        return _FAILED
    before, after, _seconds = tables[source]
    deltas = _deltas(before, after, port, fields)
    if isinstance(deltas, str):
        return "%s %s" % (source, deltas)
    value = pick(deltas)
    return "%s %s: not counted" % (source, port) if value is None else value


def _queue(deltas, priority):
    """Marks or discards of the RoCE priority (EOS and NVUE count per port: "all"); every queue without one."""
    if priority is None:
        return sum(deltas.values()) if deltas else None
    return next((deltas[key] for key in (str(priority), "all") if key in deltas), None)


def _end(tables, port, priority, words):
    """One end's figures: {"bytes": out octets, "errors": {counter: rise}, "marks", "discards"}; a text where unread."""
    return {
        "bytes": _carried(tables, port),
        "errors": _figure(tables, "sw_errors", port, lambda each: {name: each.get(name, _UNREAD) for name in words["errors"]},
                          lambda deltas: deltas or None),
        "marks": _figure(tables, "sw_ecn", port, dict, lambda deltas: _queue(deltas, priority)),
        "discards": _figure(tables, "sw_discards", port, dict, lambda deltas: _queue(deltas, priority)),
    }


def _carried(tables, port):
    """What left the port over the window: its out octets, else (a platform that prints none) its out packets."""
    octets = _figure(tables, "sw_port_traffic", port, lambda each: {"out_octets": each.get("out_octets", _UNREAD)},
                     lambda deltas: deltas.get("out_octets"))
    if isinstance(octets, str) and octets != _FAILED:
        packets = _figure(tables, "sw_port_traffic", port, lambda each: {"out_packets": each.get("out_packets", _UNREAD)},
                          lambda deltas: deltas.get("out_packets"))
        if isinstance(packets, int):
            return Packets(packets)
    return octets


def _shares(links, ends, share_min):
    """({link index: [(cause, why)]} of uplinks under share_min of their leaf's other uplinks, {leaf: why its uplink's
    share is not compared}, {(link index, side): its share of the median of its peers})."""
    found, notes, ratios = {}, {}, {}
    for leaf in sorted({link["leaf"] for link in links}):
        mine = [index for index, link in enumerate(links) if link["leaf"] == leaf]
        if len(mine) == 1:
            notes[leaf] = "%s has one uplink on the paths: its share is not compared (nothing to compare with)" % leaf
            continue
        for index in mine:
            for side, label in ((0, "leaf to spine"), (1, "spine to leaf")):
                carried = ends[index][side]["bytes"]
                peers = [ends[other][side]["bytes"] for other in mine if other != index]
                # one unit only: packets (SONiC) are compared with packets, bytes with bytes
                peers = [value for value in peers if isinstance(value, int) and isinstance(value, Packets) == isinstance(carried, Packets)]
                median = statistics.median(peers) if peers else 0
                if not isinstance(carried, int) or median <= 0:
                    continue
                ratios[(index, side)] = carried / median
                if carried < share_min * median:
                    found.setdefault(index, []).append(("slow_link", "%s %s: %s of the median %s of %s's %d other uplinks "
                                                        "(under %s)" % (label, _size(carried), percent(carried / median),
                                                                        _size(median), leaf, len(peers), percent(share_min))))
    return found, notes, ratios


def _errors(links, ends, limit):
    found = {}
    for index, link in enumerate(links):
        for side, (switch, port) in enumerate(((link["leaf"], link["leaf_port"]), (link["spine"], link["spine_port"]))):
            rises = ends[index][side]["errors"]
            risen = ["%s +%d" % (name, value) for name, value in sorted(rises.items()) if value > limit] if isinstance(rises, dict) else []
            if risen:
                found.setdefault(index, []).append(("errors_under_load", "%s at %s %s under load (more than %d)" % (
                    ", ".join(risen), switch, port, limit)))
    return found


def _concentrated(links, ends, what, least, words):
    """{link index: [(cause, why)]} of the link whose end holds over half of the paths' marks (or discards)."""
    counts = [ends[index][side][what] for index in range(len(links)) for side in (0, 1)]
    if len(links) < 2 or not all(isinstance(count, int) for count in counts):
        return {}
    total, found = sum(counts), {}
    for index, link in enumerate(links):
        for side, (switch, port) in enumerate(((link["leaf"], link["leaf_port"]), (link["spine"], link["spine_port"]))):
            count = ends[index][side][what]
            if count * 2 > total and count >= least:
                label = words[what]
                found.setdefault(index, []).append(("%s_concentrated" % what, "%d of the %d %s on the paths (%s) at %s %s" % (
                    count, total, label, percent(count / total), switch, port)))
    return found


def _merge(*findings):
    merged = {}
    for each in findings:
        for index, reasons in each.items():
            merged.setdefault(index, []).extend(reasons)
    return merged


def _said(value):
    """Why a figure is missing, where its read's failure does not already say it."""
    return value if isinstance(value, str) and value != _FAILED else None


# What the load was, in the node's and the switch's words, by how its flows cross the fabric: an all-to-all's many
# flows spread evenly over every uplink (its links' shares compared), a pair's few hash onto one uplink per rail (its
# links are the ones that carried it, judged by errors and marks: a ring's rails move in lockstep, alike in bytes)
SPREAD = {"what": "the all-to-all", "unplaced": "spine", "spread": True}
HASHED = {"what": "the pair", "unplaced": "path", "spread": False}


@judge("links_under_load", scope="link")
def links_under_load(facts, expect):
    """{device: verdict} for every switch holding a link on the paths and every node of the missed all-to-all."""
    return judged_on(facts, expect, SPREAD)


@judge("links_of_a_pair_under_load", scope="link")
def links_of_a_pair_under_load(facts, expect):
    """{device: verdict} for every switch on the paths and every node of the missed pairs: the links their flows took
    (those that carried the re-run) judged; a switch none of its flows crossed is not applicable."""
    return judged_on(facts, expect, HASHED)


def judged_on(facts, expect, load, words=None):
    """{device: verdict} of the switches holding the links on the paths and the nodes of the missed run (``load``:
    SPREAD or HASHED), ``facts`` {switch: {sw source: window}}; ``words``: what each figure is called where it was
    read (ROCE when left out)."""
    words = words or ROCE
    links, nodes = expect["links"], expect["nodes"]
    share_min, error_max = expect.get("pyramid_link_share_min"), expect["pyramid_link_error_max"]  # shares: spread loads
    priority = (expect.get("pyramid_pfc_priorities") or [None])[0]
    switches = sorted({link[role] for link in links for role in ("leaf", "spine")})
    ports = {switch: {link[role + "_port"] for link in links for role in ("leaf", "spine") if link[role] == switch}
             for switch in switches}
    reads = {switch: _reads(facts, switch, ports[switch]) for switch in switches}
    ends = [[_end(reads[link[role]][0], link[role + "_port"], priority, words) for role in ("leaf", "spine")] for link in links]
    unread = {switch: list(dict.fromkeys(why for _command, why in reads[switch][1])) for switch in switches}  # a read several sources share: once
    for index, link in enumerate(links):
        for side, role in enumerate(("leaf", "spine")):
            unread[link[role]].extend(why for why in sorted(map(_said, ends[index][side].values()), key=str)
                                      if why and why not in unread[link[role]])
    seconds = max([tables["sw_port_traffic"][2] for tables, _failed in reads.values() if "sw_port_traffic" in tables] or [0])
    expected = ("each link on %s's paths carries at least %s of the median bytes of its leaf's other uplinks, " % (load["what"], percent(share_min))
                if load["spread"] else "each link a flow of %s took (the links that carried it): " % load["what"]) + (
        "no %s above %d rising at either end, no port holding over half of the paths' %s or %s (and at least %d)" % (
            words["errors_said"], error_max, words["marks"], words["discards"], expect["pyramid_link_marks_min"]))
    carried = [end["bytes"] for pair in ends for end in pair if isinstance(end["bytes"], int)]
    if not sum(carried):
        return _no_traffic(expect, switches, nodes, reads, unread, expected, len(carried), seconds, load)
    off_path = {}
    if not load["spread"]:  # the links none of its flows hashed onto are not on its paths: not judged, not a bar
        links, ends, off_path = _taken(links, ends, switches, expected)
        switches = [switch for switch in switches if switch not in off_path]
    for switch in switches:  # links that carried nothing either way were not under load: not measured, never passed
        idle = [ends[index][side]["bytes"] for index, link in enumerate(links) if switch in (link["leaf"], link["spine"])
                for side in (0, 1)]
        if not any(idle) and not any(isinstance(value, str) for value in idle):
            unread[switch].append("no traffic through its links on the paths during the load: not measured under load")
    shares, notes, ratios = _shares(links, ends, share_min) if load["spread"] else ({}, {}, {})
    named = _merge(shares, _errors(links, ends, error_max),
                   _concentrated(links, ends, "marks", expect["pyramid_link_marks_min"], words),
                   _concentrated(links, ends, "discards", expect["pyramid_link_marks_min"], words))
    named_links = [dict(links[index], why="; ".join(why for _cause, why in reasons)) for index, reasons in sorted(named.items())]
    out = dict(off_path)
    for switch in switches:
        mine = [index for index in sorted(named) if switch in (links[index]["leaf"], links[index]["spine"])]
        own_notes = [note for leaf, note in sorted(notes.items())
                     if any(link["leaf"] == leaf and switch in (leaf, link["spine"]) for link in links)]
        out[switch] = _switch_verdict(switch, (links, ends, ratios, words), named, mine, (unread[switch], reads[switch][1], own_notes),
                                      expected, seconds)
    for node in nodes:
        out[node] = _node_verdict(expect, named_links, {switch: unread[switch] for switch in switches},
                                  [note for _leaf, note in sorted(notes.items())], load)
    return out


# A link a pair's flow took carries its run; one it did not carries only the fabric's own trickle (LLDP, BGP
# keepalives: a few MB over a window where the run moves hundreds of GB). Taken: at least this share of the most any
# link of the paths carried, counted alike (octets with octets, a SONiC port's packets with packets).
TAKEN_SHARE = 0.01


def merged(runs):
    """One verdict per device of a check whose misses were made again in several runs, each judged on its own window
    (each missed pair its own run, one after the other): a node is in one run and keeps its verdict; a switch on the
    paths of several keeps the one that says most: a link named (FAIL, every link it named), else a link not measured
    (ERROR), else its figures (PASS), else not applicable."""
    said = {}
    for verdicts in runs:
        for device, outcome in verdicts.items():
            said.setdefault(device, []).append(outcome)
    return {device: _most(outcomes) for device, outcomes in said.items()}


def _most(outcomes):
    for status in (FAIL, ERROR, PASS, SKIP):
        found = [outcome for outcome in outcomes if outcome["status"] == status]
        if not found:
            continue
        if status != FAIL or len(found) == 1:
            return found[0]
        links = list({link_name(link): link for outcome in found for link in outcome["detail"]["links"]}.values())
        return dict(found[0], actual="; ".join(dict.fromkeys(outcome["actual"] for outcome in found)),
                    detail=dict(found[0]["detail"], links=links,
                                ports=sorted({port for outcome in found for port in outcome["detail"]["ports"]})))
    return outcomes[0]


def _taken(links, ends, switches, expected):
    """(the links that carried the load or whose figures were not read, their ends, {switch: not-applicable verdict}
    for each switch holding none of them)."""
    most = {}
    for pair in ends:
        for end in pair:
            if isinstance(end["bytes"], int):
                kind = isinstance(end["bytes"], Packets)
                most[kind] = max(most.get(kind, 0), end["bytes"])

    def carried(value):  # not read (never off the paths), or a share of the busiest
        if isinstance(value, str):
            return True
        return isinstance(value, int) and 0 < value and value >= TAKEN_SHARE * most[isinstance(value, Packets)]

    kept = [index for index, pair in enumerate(ends) if any(carried(end["bytes"]) for end in pair)]
    holding = {links[index][role] for index in kept for role in ("leaf", "spine")}
    off_path = {switch: verdict(SKIP, expected, "not applicable: no flow of the re-run took %s's links on the paths "
                                "(each flow hashed onto one uplink per rail)" % switch, not_applicable=True)
                for switch in switches if switch not in holding}
    return [links[index] for index in kept], [ends[index] for index in kept], off_path


def _switch_verdict(switch, paths, named, mine, unread_failed_notes, expected, seconds):
    """paths: (links, ends, ratios, words); unread_failed_notes: (what was not read, [(command, why)] of failed reads,
    notes)."""
    links, ends, ratios, words = paths
    unread, failed, own_notes = unread_failed_notes
    commands = "; ".join(sorted({command for command, _why in failed if command})) or None
    if mine:
        causes = {cause for index in mine for cause, _why in named[index]}
        said = ["%s: %s; its figures: %s" % (link_name(links[index]), "; ".join(why for _cause, why in named[index]),
                                             _link_figures(ends[index], ratios, index, words)) for index in mine]
        return verdict(FAIL, expected, _summary(said + (["not read: " + _summary(unread, 3)] if unread else []) + own_notes),
                       cause_key=next(cause for cause in CAUSE_ORDER if cause in causes),
                       # its own ports of the named links: a failure confined to them (gate/blocking.py), the switch
                       # judged on its other ports at the layers above
                       detail={"links": [dict(links[index], why="; ".join(why for _c, why in named[index])) for index in mine],
                               "ports": sorted({links[index][role + "_port"] for index in mine for role in ("leaf", "spine")
                                                if links[index][role] == switch}),
                               "blocks_hosts": False})
    if unread:
        return verdict(ERROR, expected, "%s: not read: %s" % (switch, _summary(unread, 3)), command=commands,
                       cause="The switch's links on the load's paths were not measured under the load (a failed read, "
                             "counters cleared during it, or no traffic through them): they are not judged")
    return verdict(PASS, expected, _figures(switch, links, ends, seconds, words) + "".join("; " + note for note in own_notes))


def _link_figures(pair, ratios, index, words):
    """A named link's figures, both ends: its bytes each way (and their share of its peers' median), errors, marks."""
    said = []
    for side, label in ((0, "leaf to spine"), (1, "spine to leaf")):
        carried = pair[side]["bytes"]
        said.append("%s %s%s" % (label, _size(carried) if isinstance(carried, int) else "not read",
                                 " (%s of its peers' median)" % percent(ratios[(index, side)]) if (index, side) in ratios else ""))
    for what, label in (("errors", "errors"), ("marks", words["marks"]), ("discards", words["discards"])):
        said.append("%s %s at the leaf, %s at the spine" % (label, *[_count(pair[side][what]) for side in (0, 1)]))
    return ", ".join(said)


def _count(value):
    """A figure as said: a count, each error counter's rise, or "not read"."""
    if isinstance(value, dict):
        return ", ".join("%s +%d" % (name, rise) for name, rise in sorted(value.items()) if rise) or "+0"
    return "%d" % value if isinstance(value, int) else "not read"


def _figures(switch, links, ends, seconds, words):
    """A passing switch's figures: its links' bytes each way, and the errors, marks and discards at its ends."""
    said, errors, marks, discards = [], 0, 0, 0
    for index, link in enumerate(links):
        if switch not in (link["leaf"], link["spine"]):
            continue
        side = 0 if link["leaf"] == switch else 1
        said.append("%s out %s, in %s" % (link[("leaf", "spine")[side] + "_port"], _size(ends[index][side]["bytes"]),
                                          _size(ends[index][1 - side]["bytes"])
                                          if isinstance(ends[index][1 - side]["bytes"], int) else "not read"))
        errors += max(ends[index][side]["errors"].values(), default=0)  # CRC errors are input errors too: counted once
        marks, discards = marks + ends[index][side]["marks"], discards + ends[index][side]["discards"]
    return "%s on the paths over %ds: %s; errors +%d, %s %d, %s %d" % (
        counted(len(said), "link"), seconds, _summary(said, 4), errors, words["marks"], marks, words["discards"], discards)


def _node_verdict(expect, named_links, unread, notes, load):
    expected = ("the pod all-to-all's miss placed on a fabric link of its paths, or on the spine layer when none shows it"
                if load["spread"] else "%s's miss placed on a fabric link its flows took, or on the path when none shows it" % load["what"])
    if named_links:
        return verdict(PASS, expected, "%s's miss is traced to link%s %s (%s)" % (
            load["what"], "s" if len(named_links) > 1 else "", ", ".join(link_name(link) for link in named_links), expect["missed"]),
            detail={"links": named_links, "blocks_hosts": False})
    failing = sorted(switch for switch, whys in unread.items() if whys)
    if failing:
        return verdict(ERROR, expected, "%s; no link named, and the links of %s were not measured under the load (a link "
                       "there may be the one)" % (expect["missed"], ", ".join(failing)),
                       cause="Switches on the load's paths were not measured under it (a failed read, counters cleared, "
                             "or no traffic through their links): a link there may be the one; run the hunt again")
    if load["spread"]:
        said = "%s; none of the %d links on its paths shows the loss (each carried its share, no errors rose, no port " \
               "holds the marks or discards)" % (expect["missed"], len(expect["links"]))
    else:
        said = "%s; none of the links its flows took shows the loss (no errors rose, no port holds the marks or " \
               "discards)" % expect["missed"]
    return verdict(FAIL, expected, said + "".join("; " + note for note in notes), cause_key=load["unplaced"])


def _no_traffic(expect, switches, nodes, reads, unread, expected, counted, seconds, load):
    """ERROR for everyone: no byte went over the paths (or none was read), so nothing was measured."""
    if counted:
        actual = "no traffic at all on the %d path ports read over %ds: %s did not run over them" % (counted, seconds, load["what"])
    else:
        actual = "no traffic counter of the paths read"
    cause = "The load did not run while the counters were read (or its traffic did not cross these links): nothing measured"
    out = {}
    for switch in switches:
        commands = "; ".join(sorted({command for command, _why in reads[switch][1] if command})) or None
        out[switch] = verdict(ERROR, expected, actual + ("; not read: %s" % _summary(unread[switch], 3) if unread[switch] else ""),
                              cause=cause, command=commands)
    for node in nodes:
        out[node] = verdict(ERROR, "%s's miss placed on a fabric link of its paths" % (
            "the pod all-to-all" if load["spread"] else load["what"]), "%s; %s" % (expect["missed"], actual), cause=cause)
    return out
