# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Layer 3 under load: the induced incast's verdict, one per target (docs/incast.md).

Seed 000, Layer 3, "What good looks like": ECN marking activates on the target's port, DCQCN on the
senders dials back (CNPs handled), PFC fires only briefly if at all, no drops. Each miss has the
seed's "Common failure" cause. Counters are compared before and after the incast (and, for PFC, over
the last part of the window, where a storm keeps going and a healthy blip has stopped).

Inputs are facts as the existing parsers give them: the leaf's sw_ecn / sw_pfc / sw_discards
({"ports": {port: {queue or priority: ...}}}; EOS's PFC counters are per port, under "all") and each
rail's linux_sysfs_rdma_cc_counters ({"counters": {np_cnp_sent, rp_cnp_handled, np_ecn_marked_roce_packets}}).
A snapshot that could not be read is a string saying why: the verdict is ERROR about the read, never a PASS.
"""

from __future__ import annotations

from ..core.model import verdict as _verdict
from .registry import judge

CAUSES = {
    "drops": ("Drops despite PFC: headroom underprovisioned (cable length mismatch) or the wrong PFC priority; "
              "recheck the switch's buffer and PFC config"),
    "ecn_min_th": ("PFC fires and ECN never marks: the ECN/WRED min_th of the RoCE queue is too high (or ECN is off on it); "
                   "tune it down"),
    "dcqcn_np": ("ECN marks but the target sends no CNP: DCQCN (notification point) not enabled on the target's NIC: "
                 "/sys/class/net/<if>/ecn/roce_np/enable/<prio>"),
    "dcqcn_rp": ("ECN marks but DCQCN does not react on the senders: DCQCN (reaction point) not enabled on their NICs: "
                 "/sys/class/net/<if>/ecn/roce_rp/enable/<prio>"),
    "pfc_storm": ("PFC keeps firing to the end of the incast although ECN marks and CNPs flow: a PFC storm "
                  "(ECN min_th above the PFC Xoff threshold, or DCQCN too slow)"),
    "no_load": "Neither ECN nor PFC moved: the incast did not congest the port (senders not running, or their traffic not on the RoCE priority)",
}
CNP = ("np_cnp_sent", "rp_cnp_handled", "np_ecn_marked_roce_packets")
# The causes that are the leaf's own (its buffer, ECN and PFC configuration); dcqcn_np and dcqcn_rp are the NICs', and
# no_load proves nothing about the leaf (its port never congested).
LEAF_CAUSES = ("drops", "ecn_min_th", "pfc_storm")


class Unreadable(Exception):
    """A counter the verdict needs is missing or not a count: the read is at fault, not the device."""


def _count(value, where):
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise Unreadable("%s: %r is not a counter" % (where, value))
    return value


def _ports(facts, what):
    if isinstance(facts, str):
        raise Unreadable("%s: %s" % (what, facts))
    if not isinstance(facts, dict) or not isinstance(facts.get("ports"), dict):
        raise Unreadable("%s: no per-port counters read" % what)
    return facts["ports"]


def _queue(entry, priority, where):
    """A port's count for the RoCE priority: its own key, or EOS's per-port "all"."""
    if not isinstance(entry, dict):
        raise Unreadable("%s: no counters" % where)
    for key in (str(priority), priority, "all"):
        if key in entry:
            return entry[key]
    raise Unreadable("%s: no counter for priority %s" % (where, priority))


def _delta(before, after, where):
    first, last = _count(before, where + " before"), _count(after, where + " after")
    if last < first:
        raise Unreadable("%s went back from %d to %d (cleared or wrapped during the incast)" % (where, first, last))
    return last - first


def _both_read(before, after, leaf, names):
    for snap in (before, after):
        if not isinstance(snap, dict):  # the read failed as a whole: what it said
            raise Unreadable("%s counters: %s" % (leaf, snap))
        missing = [name for name in names if name not in snap]
        if missing:
            raise Unreadable("%s: %s counters not read" % (leaf, ", ".join(missing)))


def _leaf_total(before, after, leaf, source, kind, priority):
    """The rise of one counter (source "pfc" with kind "tx" or "rx", or "discards") summed over the leaf's ports."""
    first, last = (_ports(snap[source], "%s %s counters" % (leaf, source)) for snap in (before, after))
    total = 0
    for each in sorted(last):
        if each not in first:
            raise Unreadable("%s %s: port %s read after the incast only" % (leaf, source, each))
        old, new = (_queue(side[each], priority, "%s %s %s" % (leaf, each, source)) for side in (first, last))
        if kind:
            old, new = (value.get(kind) if isinstance(value, dict) else None for value in (old, new))
        total += _delta(old, new, "%s %s %s%s" % (leaf, each, source, " " + kind if kind else ""))
    return total


def switch_delta(before, after, leaf, port, priority):
    """(ECN marks on the target port, PFC TX over the leaf, PFC RX over the leaf, discards over the leaf) at priority."""
    _both_read(before, after, leaf, ("ecn", "pfc", "discards"))
    marks = _delta(*(_queue(_ports(snap["ecn"], "%s ECN counters" % leaf).get(port), priority, "%s %s ECN-marked" % (leaf, port))
                     for snap in (before, after)), where="%s %s ECN-marked q%s" % (leaf, port, priority))
    totals = {name: _leaf_total(before, after, leaf, source, kind, priority)
              for name, source, kind in (("pfc_tx", "pfc", "tx"), ("pfc_rx", "pfc", "rx"), ("discards", "discards", None))}
    return dict(totals, ecn_marked=marks)


def pfc_tx_delta(before, after, leaf, priority):
    """PFC TX over the leaf at priority between two reads that hold its PFC counters (the tail read holds only them)."""
    _both_read(before, after, leaf, ("pfc",))
    return _leaf_total(before, after, leaf, "pfc", "tx", priority)


def nic_delta(before, after, node, rail):
    """{counter: rise} of a rail's DCQCN counters (hw_counters) on one node."""
    where = "%s %s hw_counters" % (node, rail)
    out = {}
    for snap in (before, after):
        if isinstance(snap, str):
            raise Unreadable("%s: %s" % (where, snap))
        if not isinstance(snap, dict) or not isinstance(snap.get("counters"), dict):
            raise Unreadable("%s: not read" % where)
    for name in CNP:
        out[name] = _delta(before["counters"].get(name), after["counters"].get(name), "%s %s" % (where, name))
    return out


def tail_entry(leaf, snapshot, read_at, after_at, fired, duration):
    """The leaf's tail read for verdict(): {"at": snapshot, "seconds": s}, or a string saying why it cannot bound
    PFC over the last part of the window (verdict() is then ERROR about the read, never a PASS).

    read_at, after_at: when the tail and after reads ended (time.time()); fired: the senders' fire records,
    {"started": before their clients were started, "running": once they ran}. No sender's -D window ended before
    min(started) + duration: a tail read that ended later may have read a leaf the load had already left, and a
    storm that stops with the load would not show. Every window had ended by max(running) + duration: the PFC
    counted from the tail read is over the load up to then, not over the idle time before the after read."""
    if not fired:
        return "%s: when the senders fired was not recorded: the tail read cannot be placed in the window" % leaf
    first_end = min(record["started"] for record in fired) + duration
    last_end = max(record["running"] for record in fired) + duration
    if read_at > first_end:
        return ("%s: its tail read ended %.1f s after the first sender's %g s window could have ended: PFC over the last "
                "part of the window was not measured (read sooner: more forks, or a larger pyramid_incast_tail_percent "
                "or pyramid_incast_duration)" % (leaf, read_at - first_end, duration))
    return {"at": snapshot, "seconds": max(min(after_at, last_end) - read_at, 0.001)}


def _names(items):
    return ", ".join(items) if items else "-"


@judge("incast", scope="incast")
def verdict(facts, expect):
    """One target's incast: facts = {"group": {target, senders, ports: [{leaf, port, rail}]}, "switch": {leaf:
    {"before": snap, "after": snap}}, snap = {"ecn", "pfc", "discards"} facts; "nic": {node: {rail: {"before",
    "after"}}}; "seconds": the window; "tail": {leaf: {"at": snap, "seconds": s}}, the leaf read that many seconds
    before the end (PFC over the last part of the window), or {leaf: why} where that read cannot be judged
    (tail_entry), without a tail at all PFC bounded over the whole window; "failed": {node: its runs of this incast
    that did not end well} (run/incast_reads.py run_failures: the target's servers, each sender's client)}. An incast whose
    load did not run as planned is not judged (ERROR); an ERROR names in ``own_errors`` the nodes whose own run or NIC
    read failed (sender_state: the others are proven again)."""
    group = facts["group"]
    failed = facts.get("failed") or {}
    said = [run for node in [group["target"]] + list(group["senders"]) for run in failed.get(node, [])]
    if said:
        outcome = not_as_planned(group, said)
    else:
        outcome = _judged(group, expect, facts["switch"], facts["nic"], facts["seconds"], facts.get("tail"))
    if outcome["status"] == "ERROR":  # whose own run or read failed: a sender with none is proven again (again)
        outcome["own_errors"] = own_errors(group, failed, facts["nic"])
    return outcome


def not_as_planned(group, failed):
    """The outcome of an incast whose load did not run as planned (``failed``: the runs that did not end well, said):
    not judged, whatever its counters show."""
    return {"status": "ERROR", "cause": None, "msg": "incast at target %s, senders %s: cannot judge: the load did not run as planned: %s" % (
        group["target"], ", ".join(group["senders"]), "; ".join(failed))}


def own_errors(group, failed, nic):
    """The nodes of an incast that could not be judged whose own run (a sender's client, the target's servers) or own
    NIC read failed: the others proved nothing of theirs either way."""
    runs = [node for node in list(group["senders"]) + [group["target"]] if failed.get(node)]
    unread = [node for node, rails in sorted(nic.items())
              if any(isinstance(side, str) for sides in rails.values() for side in sides.values())]
    return sorted(set(runs) | set(unread))


def _judged(group, expect, switch, nic, seconds, tail=None):
    """The outcome of one incast's counters (verdict's facts, taken apart)."""
    priority = expect["pyramid_pfc_priorities"][0]
    target, senders = group["target"], list(group["senders"])
    who = "target %s, senders %s" % (target, _names(senders))
    try:
        findings = [_port_verdict(entry, priority, expect, switch, nic, seconds, tail, target, senders)
                    for entry in group["ports"]]
    except Unreadable as exc:
        return {"status": "ERROR", "target": target, "senders": senders, "cause": None,
                "msg": "incast at %s: cannot judge: %s" % (who, exc)}
    failed = [f for f in findings if f["cause"]]
    # each leaf port's own finding: the leaf's record is judged from it (run/incast_phases.py, check incast_leaf)
    ports = [dict(entry, cause=f["cause"], msg=f["msg"]) for entry, f in zip(group["ports"], findings)]
    if not failed:
        return {"status": "PASS", "target": target, "senders": senders, "cause": None, "ports": ports,
                "msg": "incast at %s: %s" % (who, "; ".join(f["msg"] for f in findings))}
    return {"status": "FAIL", "target": target, "senders": senders, "cause": failed[0]["cause"], "ports": ports,
            "causes": sorted({f["cause"] for f in failed}), "deaf": sorted({s for f in failed for s in f.get("deaf", [])}),
            "msg": "incast at %s: %s" % (who, "; ".join("%s: %s" % (f["msg"], CAUSES[f["cause"]]) for f in failed))}


def _port_verdict(entry, priority, expect, switch, nic, seconds, tail, target, senders):
    leaf, port, rail = entry["leaf"], entry["port"], entry["rail"]
    sides = switch.get(leaf) or {}
    if "before" not in sides or "after" not in sides:
        raise Unreadable("%s: its counters were not read before and after" % leaf)
    moved = switch_delta(sides["before"], sides["after"], leaf, port, priority)
    rail_name = "rail %s" % rail
    target_cc = nic_delta(*_sides(nic, target, rail), node=target, rail=rail)
    sender_cc = {s: nic_delta(*_sides(nic, s, rail), node=s, rail=rail) for s in senders}
    here = "%s port %s (%s, %s)" % (leaf, port, target, rail_name)
    cnps = "CNPs sent by %s %d, handled by the senders %d" % (
        target, target_cc["np_cnp_sent"], sum(c["rp_cnp_handled"] for c in sender_cc.values()))
    cause, deaf = None, []
    if moved["discards"] > expect["pyramid_incast_discards_max"]:
        cause = "drops"
    elif moved["ecn_marked"] <= expect["pyramid_incast_ecn_marks_min"]:
        cause = "ecn_min_th" if moved["pfc_tx"] or moved["pfc_rx"] else "no_load"
    elif target_cc["np_cnp_sent"] == 0:
        cause = "dcqcn_np"
    elif any(c["rp_cnp_handled"] == 0 for c in sender_cc.values()):
        cause = "dcqcn_rp"
        deaf = [s for s, c in sorted(sender_cc.items()) if c["rp_cnp_handled"] == 0]
    pfc = "PFC TX %d" % moved["pfc_tx"]
    storm_window, storm_pfc = seconds, moved["pfc_tx"]
    usable = tail is None or isinstance(tail.get(leaf), dict)
    if tail is not None and usable:
        storm_window, storm_pfc = tail[leaf]["seconds"], pfc_tx_delta(tail[leaf]["at"], sides["after"], leaf, priority)
    if usable:
        pfc_rate = storm_pfc / storm_window if storm_window else float(storm_pfc)
        pfc += " (%.1f/s over the last %gs)" % (pfc_rate, storm_window)
        if cause is None and pfc_rate > expect["pyramid_incast_pfc_tail_max_per_s"]:
            cause = "pfc_storm"
    elif cause is None:  # the storm bound is the last test: a FAIL above stands without the tail read
        raise Unreadable(tail.get(leaf) or "%s: not read near the end of the window" % leaf)
    figures = "ECN-marked %d, %s, PFC RX %d, discards %d, %s" % (moved["ecn_marked"], pfc, moved["pfc_rx"], moved["discards"], cnps)
    if deaf:
        figures += "; no CNP handled on %s" % _names(deaf)
    return {"cause": cause, "msg": "%s: %s" % (here, figures), "deaf": deaf}


def _sides(nic, node, rail):
    rails = nic.get(node) or {}
    sides = rails.get(rail, rails.get(str(rail)))  # keys are strings once the reads went through JSON
    if not sides or "before" not in sides or "after" not in sides:
        raise Unreadable("%s rail %s: its hw_counters were not read before and after" % (node, rail))
    return sides["before"], sides["after"]


def expected(expect):
    """What a passing incast shows, in the inventory's numbers."""
    return ("ECN-marked on the target's port > %d, CNPs sent by the target and handled by every sender, PFC TX <= %g/s over "
            "the last %g%% of the window, discards <= %d" % (
                expect["pyramid_incast_ecn_marks_min"], expect["pyramid_incast_pfc_tail_max_per_s"],
                expect["pyramid_incast_tail_percent"], expect["pyramid_incast_discards_max"]))


def target_verdict(outcome, expect, causes=None, wanted=None):
    """The target's verdict from verdict()'s outcome (the runner records it, run/engine.py record_of); ``causes`` and
    ``wanted`` (the expected text) are another fabric's (judging/incast_infiniband.py), else RoCE's."""
    cause = None
    if outcome["status"] == "FAIL":
        cause = "; ".join((causes or CAUSES)[c] for c in outcome["causes"])
    elif outcome["status"] == "ERROR":
        cause = "No data: %s" % outcome["msg"]
    return _verdict(outcome["status"], wanted or expected(expect), outcome["msg"], cause=cause)


# --- a sender's part, and who stood in its way (issue 66: a device is NO-GO for its own findings only) -------------

SENDER_REACTED = frozenset(("pfc_storm", "dcqcn_rp"))  # a miss that still shows the senders' CNPs handled


SPOILED = ("not_measured", "error_not_own")  # a sender's states that another device's failure left it in


def sender_state(sender, outcome):
    """What one incast's verdict proves of one of its senders: "deaf" (its DCQCN did not react: its own FAIL), "error"
    (the incast could not be judged, and its own run or read failed, or nothing says whose did), "error_not_own" (could
    not be judged, its own run and reads sound: ``own_errors`` names the nodes whose failed), "reacted" (it handled
    CNPs: PASS), or "not_measured" (the incast failed before any CNP reached the senders). The SPOILED states are
    another device's fault: the sender is proven again against a healthy target (run/incast_plan.py plan_again)."""
    if sender in outcome.get("deaf", []):
        return "deaf"
    if outcome["status"] == "ERROR":
        return "error" if sender in outcome.get("own_errors", [sender]) else "error_not_own"
    if outcome["status"] == "PASS" or set(outcome.get("causes", [])) <= SENDER_REACTED:
        return "reacted"
    return "not_measured"


def standing_in_the_way(group, outcome):
    """The devices whose failure left an incast's senders not measured, [{device, check, status, cause}]: each leaf whose
    port failed for the leaf's own cause (its incast_leaf), and the target where its NIC sent no CNP, or where no leaf is
    to blame (its incast_ecn)."""
    if outcome["status"] == "ERROR":  # the nodes whose own run or read failed, else the incast that could not be judged
        return [{"device": node, "check": "incast_ecn", "status": "ERROR", "cause": "its run or read failed"}
                for node in outcome.get("own_errors") or []] or [
                    {"device": group["target"], "check": "incast_ecn", "status": "ERROR", "cause": "its incast could not be judged"}]
    found = []
    for entry in outcome.get("ports") or []:
        if entry.get("cause") in LEAF_CAUSES and all(item["device"] != entry["leaf"] for item in found):
            found.append({"device": entry["leaf"], "check": "incast_leaf", "status": "FAIL", "cause": entry["cause"]})
    causes = list(outcome.get("causes") or [])
    if "dcqcn_np" in causes or not found:
        found.append({"device": group["target"], "check": "incast_ecn", "status": outcome["status"],
                      "cause": ", ".join(c for c in causes if c not in LEAF_CAUSES) or outcome["status"]})
    return found


def said_in_the_way(held_by):
    """held_by (standing_in_the_way) in words: "leaf2-r0 (ecn_min_th), leaf2-r1 (drops)"."""
    return ", ".join("%s (%s)" % (item["device"], item["cause"]) for item in held_by)


def stopped_below(node_results, layer=3):
    """The devices that stood in the way of every node behind a leaf reaching the incast at ``layer``:
    [{device, check, status, cause}], one entry per device: the switch a node's BLOCKED record names, else the node
    itself with its own lowest FAIL or ERROR. ``node_results``: {node: its records}."""
    found = []
    for node, results in sorted(node_results.items()):
        below = sorted((r for r in results if r["layer"] < layer and r["status"] in ("FAIL", "ERROR", "BLOCKED")),
                       key=lambda r: (r["layer"], r["check"]))
        if not below:
            continue
        first = below[0]
        blockers = [item["switch"] for item in first.get("blocked_by") or []] if first["status"] == "BLOCKED" else []
        for device in blockers or [node]:
            if all(item["device"] != device for item in found):
                found.append({"device": device, "check": first["check"], "status": "FAIL" if blockers else first["status"],
                              "cause": "blocks %s at layer %d" % (node, first["layer"]) if blockers else
                                       "stopped at layer %d" % first["layer"]})
    return found
