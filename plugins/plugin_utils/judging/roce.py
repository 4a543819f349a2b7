# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Layer 3 host RoCE configuration judges (catalog/roce_host.yml): DCQCN, trust, PFC, the marked DSCP, MTU,
the RoCE v2 GID and the NIC's counters, per rail. Every finding names the rail by its RDMA device and netdev
("mlx5_0 (ens1np0)"), the value found and the value expected; the record names the node."""

from __future__ import annotations

from ..core.model import ERROR, FAIL, PASS, SKIP, SourceFailure, counted, verdict
from .registry import judge, summary as _summary

# The counters the load checks read, by the names mlx5 gives them (the kernel's mlx5 counters.rst for ethtool -S;
# mlx5_ib's hw_counters for DCQCN). {prio} is pyramid_roce_priority.
MLX5_ETHTOOL_COUNTERS = ("rx_prio{prio}_pause", "tx_prio{prio}_pause", "rx_discards_phy", "rx_out_of_buffer")


def prio_of_dscp(dscp2prio, dscp):
    """The priority mlnx_qos maps a DSCP to, or None. Facts read back from a results file (a pod check's
    view of a host) have JSON's string keys; facts fresh from the parser have ints."""
    return dscp2prio.get(dscp, dscp2prio.get(str(dscp)))


def _not_applicable(expected, why):
    return verdict(SKIP, expected, "not applicable: " + why, not_applicable=True)


def rail_name(facts, rail):
    """'mlx5_0 (ens1np0)': the RDMA device the inventory names and its netdev, where the listing says it."""
    listing = (facts.get("rail_netdev") or {}).get(rail)
    if isinstance(listing, dict) and listing.get("entries"):
        return "%s (%s)" % (rail, ", ".join(listing["entries"]))
    return rail


class _Unread(Exception):
    """A rail's facts that do not say what the check needs: an ERROR about the read, not a finding."""


def _per_rail(facts, expect, expected, source, read, what, failures_read=False):
    """One verdict over every declared rail: ``read(facts_of_rail, rail)`` returns (problem or None, what it saw)
    or raises _Unread. A rail whose source failed is not read (an ERROR when nothing failed); never a PASS
    without every rail. ``failures_read``: read() also gets a rail's SourceFailure (it may be the finding)."""
    if expect["pyramid_rdma_link_layer"] != "roce":
        return _not_applicable(expected, "the rails are InfiniBand (pyramid_rdma_link_layer), not RoCE")
    bad, unknown, seen = [], [], []
    for rail in expect["pyramid_rails"]:
        value = facts[source].get(rail)
        name = rail_name(facts, rail)
        try:
            if value is None or isinstance(value, SourceFailure) and not failures_read:
                raise _Unread(value.reason if value is not None else "not read")
            problem, saw = read(value, rail)
        except _Unread as exc:
            unknown.append("%s: %s" % (name, exc))
            continue
        if problem:
            bad.append("%s: %s" % (name, problem))
        else:
            seen.append(saw)
    if bad:
        return verdict(FAIL, expected, _summary(bad + ["not read: " + item for item in unknown]))
    if unknown:
        return verdict(ERROR, expected, "%s not read on %s" % (what, _summary(unknown)),
                       cause="%s%s not read from %s" % (what[0].upper(), what[1:], ", ".join(item.split(": ")[0] for item in unknown)))
    return verdict(PASS, expected, "%s: %s" % (counted(len(seen), "rail"), ", ".join(sorted(set(seen)))))


@judge("roce_dcqcn")
def roce_dcqcn(facts, expect):
    prio = expect["pyramid_roce_priority"]
    expected = "roce_rp/enable/%d = 1 and roce_np/enable/%d = 1 on every rail" % (prio, prio)

    def read(switches, _rail):
        off = [point for point in ("rp", "np") if not switches[point]]
        if off:
            return ", ".join("roce_%s/enable/%d = 0" % (point, prio) for point in off), None
        return None, "DCQCN on for priority %d" % prio
    return _per_rail(facts, expect, expected, "roce_dcqcn", read, "DCQCN switches")


@judge("roce_trust")
def roce_trust(facts, expect):
    expected = "Priority trust state: dscp on every rail"

    def read(qos, _rail):
        if qos["trust"] != "dscp":
            return "trust state %s, want dscp" % qos["trust"], None
        return None, "trust dscp"
    return _per_rail(facts, expect, expected, "roce_qos", read, "mlnx_qos")


def _tc_of(qos, prio):
    return next(((tc, block) for tc, block in sorted(qos["tcs"].items()) if prio in block["priorities"]), (None, None))


@judge("roce_pfc")
def roce_pfc(facts, expect):
    prio, least = expect["pyramid_roce_priority"], expect["pyramid_roce_ets_min_percent"]
    expected = "PFC enabled on priority %d alone; its TC strict or ETS >= %d%%; its receive buffer > 0 bytes" % (prio, least)

    def read(qos, _rail):
        enabled = [p for p, on in enumerate(qos["pfc_enabled"]) if on]
        problems = []
        if enabled != [prio]:
            problems.append("PFC enabled on priority %s, want %d alone" % (",".join(str(p) for p in enabled) or "none", prio))
        tc, block = _tc_of(qos, prio)
        tsa = "tc %d %s" % (tc, block["tsa"]) + (" %d%%" % block["bw"] if block["bw"] is not None else "")
        if block["tsa"] == "ets" and block["bw"] < least:
            problems.append("priority %d in %s (under %d%%: starved by the other ETS classes)" % (prio, tsa, least))
        buffers, mapped = qos["receive_buffer_bytes"], qos["pfc_buffer"]
        size = buffers[mapped[prio]] if buffers and mapped else None
        if size == 0:
            problems.append("priority %d on receive buffer %d of 0 bytes (no headroom: drops)" % (prio, mapped[prio]))
        if problems:
            return "; ".join(problems), None
        return None, "PFC on %d, %s%s" % (prio, tsa, ", buffer %d bytes" % size if size is not None else "")
    return _per_rail(facts, expect, expected, "roce_qos", read, "mlnx_qos")


def _marking(tclass, env):
    """(DSCP, where it comes from): the global traffic class wins (MLNX_OFED overrides the QP's), else NCCL_IB_TC,
    else 0 (verbs' default traffic class)."""
    if tclass is not None:
        return tclass >> 2, "tc/1/traffic_class %d" % tclass
    value = str((env or {}).get("NCCL_IB_TC", "")).strip()
    if value.isdigit():
        return int(value) >> 2, "no global traffic class; NCCL_IB_TC %s" % value
    return 0, "no global traffic class and no NCCL_IB_TC"


@judge("roce_dscp")
def roce_dscp(facts, expect):
    prio, dscp = expect["pyramid_roce_priority"], expect["pyramid_roce_dscp"]
    expected = "RoCE traffic marked DSCP %d, and dscp2prio maps DSCP %d to priority %d" % (dscp, dscp, prio)
    classes = facts.get("roce_traffic_class") or {}

    def read(qos, rail):
        tclass = classes.get(rail)
        if isinstance(tclass, SourceFailure) and tclass.status != "missing":  # missing: an inbox driver, no tc/ at all
            raise _Unread(tclass.reason)
        marked, where = _marking(tclass["tclass"] if isinstance(tclass, dict) else None, expect["pyramid_nccl_env"])
        problems = []
        if marked != dscp:
            problems.append("marks DSCP %d (%s), want %d" % (marked, where, dscp))
        if qos["trust"] != "dscp":
            problems.append("trust state %s: the NIC maps no DSCP to a priority" % qos["trust"])
        elif prio_of_dscp(qos["dscp2prio"], marked) != prio:
            mapped = prio_of_dscp(qos["dscp2prio"], marked)
            problems.append("dscp2prio maps DSCP %d to priority %s, want %d" % (marked, "none" if mapped is None else mapped, prio))
        if problems:
            return "; ".join(problems), None
        return None, "DSCP %d -> priority %d (%s)" % (marked, prio, where.split(";")[-1].strip())
    return _per_rail(facts, expect, expected, "roce_qos", read, "the DSCP mapping")


@judge("rail_mtu")
def rail_mtu(facts, expect):
    want = expect["pyramid_rail_mtu"]
    expected = "MTU %d on every rail netdev" % want

    def read(mtu, _rail):
        if mtu["mtu"] != want:
            return "MTU %d, want %d" % (mtu["mtu"], want), None
        return None, "MTU %d" % want
    return _per_rail(facts, expect, expected, "rail_mtu", read, "the MTU")


# What the kernel answers for a GID entry that holds no address (ib_core's sysfs show of gid_attrs/types/<i>).
EMPTY_GID = "Invalid argument"


@judge("roce_gid")
def roce_gid(facts, expect):
    index = expect["pyramid_rdma_gid_index"]
    expected = "GID index %d of port 1 is RoCE v2 on every rail" % index
    gids = facts["roce_gid_type"]
    if isinstance(gids, SourceFailure):  # no read at all (every rail failed the same way)
        gids = {rail: gids for rail in expect["pyramid_rails"]}

    def read(gid, _rail):
        if isinstance(gid, SourceFailure):
            if gid.status == "unreadable" and EMPTY_GID in gid.reason:
                return "GID index %d is empty (EINVAL: no IP address on the netdev?)" % index, None
            raise _Unread(gid.reason)
        if gid["type"] != "RoCE v2":
            return "GID index %d is %s, want RoCE v2" % (index, gid["type"]), None
        return None, "GID %d RoCE v2" % index
    return _per_rail(dict(facts, roce_gid_type=gids), expect, expected, "roce_gid_type", read, "the GID type",
                     failures_read=True)


@judge("nic_counters")
def nic_counters(facts, expect):
    """Readable is the finding. A hw_counters file that does not exist FAILs: mlx5_ib does not provide it. An
    ethtool -S list without a counter is an ERROR: a list cut at a line boundary reads the same as a driver that
    lacks the counter (never a FAIL about the NIC on a damaged read); so is any answer cut, garbled or timed out."""
    prio = expect["pyramid_roce_priority"]
    names = [name.format(prio=prio) for name in MLX5_ETHTOOL_COUNTERS]
    expected = "ethtool -S lists %s; hw_counters np_cnp_sent, rp_cnp_handled, np_ecn_marked_roce_packets" % ", ".join(names)
    congestion = facts["rdma_cc_counters"]

    def read(stats, rail):
        cc = congestion.get(rail)
        if isinstance(cc, SourceFailure) and cc.status == "failed" and "No such file" in cc.reason:
            return "no DCQCN hw_counters (%s)" % cc.reason.split("; ")[-1], None
        lacking = [name for name in names if name not in stats["counters"]]
        if lacking:
            raise _Unread("ethtool -S lists no %s (not mlx5_core's counters, or the list was cut)" % ", ".join(lacking))
        if cc is None or isinstance(cc, SourceFailure):
            raise _Unread("hw_counters: %s" % (cc.reason if cc is not None else "not read"))
        return None, "counters read"
    outcome = _per_rail(facts, expect, expected, "nic_stats", read, "NIC counters")
    if outcome["status"] == PASS:
        outcome["actual"] += " (%s)" % _idle(facts, expect["pyramid_rails"], names)
    return outcome


def _idle(facts, rails, names):
    """What the counters hold now, summed over the rails: reported for the load checks, not judged here."""
    totals = dict.fromkeys(names, 0)
    cnp = dict.fromkeys(("np_cnp_sent", "rp_cnp_handled", "np_ecn_marked_roce_packets"), 0)
    for rail in rails:
        for name in names:
            totals[name] += facts["nic_stats"][rail]["counters"][name]
        for name in cnp:
            cnp[name] += facts["rdma_cc_counters"][rail]["counters"][name]
    return ", ".join("%s %s" % (name, value) for name, value in list(totals.items()) + list(cnp.items()))
