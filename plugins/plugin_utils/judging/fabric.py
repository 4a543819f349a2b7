# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Judge one run across a group of nodes: an all-reduce (straggler hunt rounds 2 and 3) or a training step.

Every judge here is called ``(facts, expect)``, as every judge is: ``facts`` is {"run": the run's parsed output (or its
SourceFailure), "group": its nodes, "platforms": the catalog's platforms (their busbw tables: nccl_group's)}
(run/fabric_runs.judged_facts)."""

from __future__ import annotations

import collections

from .registry import JUDGES, summary as _summary, judge
from ..core.model import ERROR, FAIL, PASS, SourceFailure, percent, verdict
from . import scale as _scale

# The first kind of miss found names the cause (the catalog check's `causes`); a slow run that NCCL
# warned about is blamed on the warning (cheat sheet: "WARN: skipping ..." is usually a topology file).
CAUSE_ORDER = ("hang", "wrong", "gdr_off", "nics_missing", "sharp_unused", "warning", "slow")
# findings no node's network explains: a run with any is not traced to the nodes its NICs or GPUDirect name
UNTRACED = {"hang", "wrong"}


def expected_table(expect, platforms):
    """(busbw GB/s by message size, where the figures come from, the node count they were measured at); ``platforms``:
    the catalog's."""
    platform = platforms[expect["pyramid_nccl_platform"]]
    measured = int(platform.get("nodes") or _scale.MEASURED_NODES)
    custom = expect["pyramid_nccl_expected"]
    if custom:
        return ({int(size): float(value) for size, value in custom.items()}, "pyramid_nccl_expected",
                expect.get("pyramid_nccl_expected_nodes") or measured)
    table = platform["busbw"]
    return {int(size): float(value) for size, value in table.items()}, expect["pyramid_nccl_platform"], measured


def _per_count(expect):
    """pyramid_nccl_scale_busbw ({nodes: {size: GB/s}}, baseline.yml's figures per node count) with numbers for keys."""
    return {int(nodes): {int(size): float(value) for size, value in table.items()}
            for nodes, table in (expect.get("pyramid_nccl_scale_busbw") or {}).items()}


def _size_text(size):
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if size >= 1 << shift and size % (1 << shift) == 0:
            return "%d %s" % (size >> shift, unit)
    for unit, shift in (("GiB", 30), ("MiB", 20)):  # a per-rank size rounded down (all-to-all on R ranks): about
        if size >= 1 << shift:
            return "%d B (%.2f %s)" % (size, float(size) / (1 << shift), unit)
    return "%d B" % size


def _host_key(host, keys):
    """The name NCCL printed for an inventory host (gethostname may be the short name)."""
    short = host.split(".")[0]
    for key in keys:
        if key == host or key.split(".")[0] == short:
            return key
    return None


def _expected_text(group, expect, table, source, scaled=None):
    """What a run across ``group`` is held to; ``scaled`` ({size: (figure, how)}): each size's figure at this node count
    and why (judging/scale.py), where it is not the table's own."""
    if scaled:
        figures = "; ".join("%s %s: %s" % (_size_text(size), "%.1f" % want if want is not None else "not judged", how)
                            for size, (want, how) in sorted(scaled.items()))
    else:
        figures = ", ".join("%s %g" % (_size_text(size), value) for size, value in sorted(table.items()))
    return ("%d nodes (%d ranks): busbw within %s of %s (%s GB/s), algbw likewise for the rank count; "
            "every rail (%s) used and GPUDirect RDMA (GDRDMA) on every node%s; #wrong 0; done within %ds" % (
                len(group), len(group) * expect["pyramid_gpus_per_node"], percent(expect["pyramid_nccl_tolerance"]), source,
                figures, ",".join(expect["pyramid_rails"]),
                "; SHARP in use (CollNet connected) on every node" if expect["pyramid_nccl_sharp"] else "",
                expect["pyramid_nccl_timeout"]))


def _hung(run, group):
    printed = {rank["host"] for rank in (run.partial or {}).get("ranks", [])}
    silent = [host for host in group if _host_key(host, printed) is None]
    return "did not finish within the timeout (hung); %s" % (
        "nodes whose ranks never reported: %s" % ", ".join(silent) if silent
        else "every node's ranks started, none finished")


def _network_findings(run, group, rails):
    """(findings by cause, causes by host, no-data reasons) from the NCCL_DEBUG=INFO lines."""
    nccl = run.get("nccl") or {}
    findings, by_host, missing_data = {}, {}, []
    if nccl.get("network") == "Socket":
        findings["nics_missing"] = ["NCCL fell back to TCP sockets (NET/Socket): no RDMA NIC used"]
        return findings, {host: ["nics_missing"] for host in group}, missing_data
    if not nccl.get("nics_by_host") and not nccl.get("gdr_by_host"):
        missing_data.append("no NCCL_DEBUG=INFO network lines: set NCCL_DEBUG=INFO in pyramid_nccl_env")
        return findings, by_host, missing_data
    for host in group:
        key = _host_key(host, nccl.get("nics_by_host", {}))
        if key is None:
            missing_data.append("%s printed no 'NET/IB : Using' line" % host)
            continue
        used = nccl["nics_by_host"][key]
        absent = [rail for rail in rails if rail not in used]
        if absent:
            findings.setdefault("nics_missing", []).append("%s used %d of %d rails (%s)" % (
                host, len(rails) - len(absent), len(rails), ",".join(used) or "none"))
            by_host.setdefault(host, []).append("nics_missing")
        gdr = nccl.get("gdr_by_host", {}).get(_host_key(host, nccl.get("gdr_by_host", {})) or "")
        if gdr is False:
            findings.setdefault("gdr_off", []).append("%s: network channels without GDRDMA" % host)
            by_host.setdefault(host, []).append("gdr_off")
        elif gdr is None:
            missing_data.append("%s printed no network channel (GDRDMA unknown)" % host)
    return findings, by_host, missing_data


def _sharp_findings(run, group):
    """([finding], hosts) where SHARP was declared but a node's ranks never connected CollNet (NCCL's 'Connected
    CollNet' lines: the CollNet channel lines and the plugin's 'SHARP rank ... initialized' come before the setup is
    checked, and /SHARP on the NIC list only says the port could), with the first reason the log gives."""
    collnet = (run.get("nccl") or {}).get("collnet") or {}
    unused = [host for host in group if _host_key(host, collnet.get("connected_hosts") or []) is None]
    if not unused:
        return [], []
    refused = collnet.get("refused") or []
    if refused:
        why = "%s: %s" % (refused[0]["host"], refused[0]["message"])
    elif collnet.get("asked") is not True:
        why = ("NCCL was not asked to use it: no 'NCCL_COLLNET_ENABLE set by environment to 1' line (set "
               "NCCL_COLLNET_ENABLE=1 in pyramid_nccl_env)%s" % (
                   "; the %s collnet plugin loaded" % collnet["plugin"] if collnet.get("plugin") else ""))
    else:
        why = ("asked for (NCCL_COLLNET_ENABLE=1) but no 'Connected CollNet' line from their ranks: no collnet plugin "
               "loaded (HPC-X's nccl-rdma-sharp-plugins on LD_LIBRARY_PATH, NCCL_NET_PLUGIN), or fewer nodes than "
               "NCCL_COLLNET_NODE_THRESHOLD")
    return ["SHARP declared but not used on %s: %s" % (", ".join(unused), why)], unused


def _row_at(rows, size):
    """The row of a size asked: the same size, or one up to 1% below it (nccl-tests rounds all-gather's and
    reduce-scatter's count per rank down to 16 bytes: 24 ranks print 4 GiB as 4294967040; the parser has proven the
    rounding, parsing/nccl._rounding)."""
    near = [row for row in rows if size * 0.99 <= row["size"] <= size]
    return max(near, key=lambda row: row["size"]) if near else None


def _all_reduce_factor(ranks):
    """nccl-tests' busbw over algbw for all-reduce: 2(n-1)/n (its PERFORMANCE.md)."""
    return 2.0 * (ranks - 1) / ranks


def _gather_factor(ranks):
    """The same for all-gather and reduce-scatter: (n-1)/n."""
    return (ranks - 1.0) / ranks


def _bandwidth(run, group, expect, table, factor=_all_reduce_factor, unjudged=None):
    """(findings, judged sizes text, why nothing was judged): busbw and algbw at each size of the table that was
    measured; ``unjudged`` ({size: why}): sizes of the table said, not judged, at this node count."""
    ranks = len(group) * expect["pyramid_gpus_per_node"]
    floor = 1 - expect["pyramid_nccl_tolerance"]
    slow, seen = [], []
    for size, want in sorted(table.items()):
        row = _row_at(run["rows"], size)
        if row is None:
            continue
        busbw, algbw = max(row["oop_busbw"], row["ip_busbw"]), max(row["oop_algbw"], row["ip_algbw"])
        want_algbw = want / factor(ranks) if ranks > 1 else want
        text = "%s busbw %.1f algbw %.1f GB/s" % (_size_text(size), busbw, algbw)
        seen.append(text)
        if busbw < floor * want or algbw < floor * want_algbw:
            slow.append("%s busbw %.1f < %.1f, algbw %.1f < %.1f GB/s" % (
                _size_text(size), busbw, floor * want, algbw, floor * want_algbw))
    if slow:  # the largest size tells most; the count says how widespread
        slow = ["below %s of the expected figure at %d of %d sizes, %s" % (
            percent(floor), len(slow), len(seen), slow[-1])]
    unmeasured = None if seen else "no size of the expected table was measured (%s): widen -b/-e" % ", ".join(
        _size_text(size) for size in sorted(table))
    if not seen and any(_row_at(run["rows"], size) for size in unjudged or {}):  # measured, yet nothing could be judged
        unmeasured = "no size judged at %d nodes: %s" % (len(group), _reported(run, unjudged))
    return slow, seen, unmeasured


@judge("nccl_group", scope="fabric")
def nccl_group(facts, expect):
    """Verdict of one all-reduce run across ``group``: status, expected, actual, cause key, causes by host.

    The figures depend on the node count (judging/scale.py): a table holds at every size up to the node count it was
    measured at; above it, bandwidth-bound sizes are held to it (busbw is flat in N) and latency-bound ones to the pod's
    latency model (``expect``'s ``latency_model``, fitted by the straggler hunt from its pair runs) or reported and not
    judged. A passing run's ``figures`` (its busbw by size, its latency a ring step) are for baseline.yml and that model."""
    run, group = facts["run"], facts["group"]
    table, source, measured = expected_table(expect, facts["platforms"])
    below = [count for count in _per_count(expect) if measured <= count < len(group)]
    if below:  # the pod's own figures (baseline.yml) at the largest count under this run's: its table from there up
        measured = max(below)
        table, source = _per_count(expect)[measured], "pyramid_nccl_scale_busbw[%d] (baseline.yml)" % measured
    figures = _scale.by_node_count(table, measured, len(group), expect["pyramid_gpus_per_node"],
                                   expect["pyramid_nccl_latency_share"], expect.get("latency_model"), _per_count(expect))
    judged = {size: want for size, (want, _how) in figures.items() if want is not None}
    if len(group) in _per_count(expect):
        expected = _expected_text(group, expect, judged, "pyramid_nccl_scale_busbw[%d] (baseline.yml)" % len(group))
    elif len(group) <= measured or judged == table:  # every figure the table's own (bandwidth-bound at this count)
        expected = _expected_text(group, expect, judged, source)
    else:
        expected = _expected_text(group, expect, judged, "%s as it holds at %d nodes (measured at %d)" % (
            source, len(group), measured), figures)
    unjudged = {size: how for size, (want, how) in figures.items() if want is None}
    outcome = _group_verdict(run, group, expect, expected, lambda: _bandwidth(run, group, expect, judged, unjudged=unjudged))
    if outcome["status"] == PASS:
        reported = _reported(run, unjudged)
        if reported:
            outcome["actual"] += "; " + reported
        outcome["figures"] = {"collective": "all_reduce", "nodes": len(group), "busbw": _busbw_by_size(run, figures),
                              "latency_us_per_step": _scale.run_latency(run, len(group), expect["pyramid_gpus_per_node"])}
    return outcome


def _reported(run, unjudged):
    """The measured sizes said and not judged, with why: "reported, not judged: 1 MiB busbw 1.9 GB/s (latency-bound at
    32 nodes, no model)"."""
    said = []
    for size, how in sorted(unjudged.items()):
        row = _row_at(run["rows"], size)
        if row is not None:
            said.append("%s busbw %.1f GB/s (%s)" % (_size_text(size), max(row["oop_busbw"], row["ip_busbw"]), how))
    return "reported, not judged: %s" % ", ".join(said) if said else ""


def _busbw_by_size(run, figures):
    """{size: busbw} a run measured at the sizes of its table (baseline.yml's pyramid_nccl_scale_busbw)."""
    rows = {size: _row_at(run["rows"], size) for size in figures}
    return {str(size): max(row["oop_busbw"], row["ip_busbw"]) for size, row in sorted(rows.items()) if row is not None}


def _unjudged_bandwidth(run, op):
    """The largest size's figures, said and not judged: no busbw of the pod's own to judge them against."""
    if not run["rows"]:
        return [], [], "no size was measured"
    row = max(run["rows"], key=lambda item: item["size"])
    return [], ["%s busbw %.1f algbw %.1f GB/s (busbw not judged: no pyramid_nccl_pod_collective_busbw[%s])" % (
        _size_text(row["size"]), max(row["oop_busbw"], row["ip_busbw"]), max(row["oop_algbw"], row["ip_algbw"]), op)], None


def _largest_busbw(run):
    """{size: busbw} of the largest size the run printed (the figure baseline.yml keeps, as for a node's own runs)."""
    row = max(run["rows"], key=lambda item: item["size"])
    return {str(row["size"]): max(row["oop_busbw"], row["ip_busbw"])}


def _pod_collective_judge(op):
    def judge_run(facts, expect):
        """One all-gather or reduce-scatter run across ``group``: no hang, #wrong 0, every rail and GPUDirect on every
        node, as an all-reduce run; busbw within pyramid_nccl_tolerance of pyramid_nccl_pod_collective_busbw[op] where the
        inventory gives it. Never against all-reduce's figure: across many nodes NCCL's all-reduce takes the tree
        algorithm, which these do not (a public 32-node H100 run: all-reduce 340, all-gather 200 GB/s busbw;
        NVIDIA/nccl#1218). pyramid_nccl_sharp's CollNet check stays all-reduce's: SHARP for these needs newer NCCL and
        SHARP plugins than the pod may run, so it is not asked of them."""
        run, group = facts["run"], facts["group"]
        table = {int(size): float(value) for size, value in ((expect.get("pyramid_nccl_pod_collective_busbw") or {}).get(op) or {}).items()}
        expect = dict(expect, pyramid_nccl_sharp=False)
        if table:
            expected = _expected_text(group, expect, table, "pyramid_nccl_pod_collective_busbw[%s]" % op)
            outcome = _group_verdict(run, group, expect, expected, lambda: _bandwidth(run, group, expect, table, _gather_factor))
        else:
            expected = ("%d nodes (%d ranks): every rail (%s) used and GPUDirect RDMA (GDRDMA) on every node; #wrong 0; done "
                        "within %ds; busbw said, judged only against pyramid_nccl_pod_collective_busbw[%s]" % (
                            len(group), len(group) * expect["pyramid_gpus_per_node"], ",".join(expect["pyramid_rails"]),
                            expect["pyramid_nccl_timeout"], op))
            outcome = _group_verdict(run, group, expect, expected, lambda: _unjudged_bandwidth(run, op))
        if outcome["status"] == PASS:  # the figures a passing run measured: baseline.yml offers them for later runs
            outcome["detail"] = {"collective": op, "nodes": len(group), "busbw": _largest_busbw(run)}
        return outcome
    judge_run.__name__ = "nccl_%s_group" % op
    return judge("nccl_%s_group" % op, scope="fabric")(judge_run)


nccl_all_gather_group = _pod_collective_judge("all_gather")
nccl_reduce_scatter_group = _pod_collective_judge("reduce_scatter")


def _group_verdict(run, group, expect, expected, bandwidth, in_place_optional=False):
    """One run across ``group`` judged: a hang, wrong results, the NICs and GPUDirect each node used, SHARP, and
    ``bandwidth()``'s (slow findings, judged sizes). ``in_place_optional``: nccl-tests (2.18) validates alltoall
    out-of-place only and prints in-place #wrong N/A on every row; what it checked is judged."""
    if isinstance(run, SourceFailure):
        if run.status == "timeout":
            return verdict(FAIL, expected, _hung(run, group), cause_key="hang", by_host={})
        return verdict(ERROR, expected, run.reason, cause_key=None, by_host={})
    findings, by_host, missing_data = _network_findings(run, group, expect["pyramid_rails"])
    if expect["pyramid_nccl_sharp"]:
        sharp, unused = _sharp_findings(run, group)
        if sharp:
            findings["sharp_unused"] = sharp
            for host in unused:
                by_host.setdefault(host, []).append("sharp_unused")
    ranks = len(group) * expect["pyramid_gpus_per_node"]
    short = _ranks_lost(run, group, expect["pyramid_gpus_per_node"])
    if short:  # the read lost a '# Rank' line, the run did not lose a rank (issue 68: read as a hang, a FAIL)
        missing_data.append(short)
    elif len(run["ranks"]) != ranks:
        findings.setdefault("hang", []).append("%d of %d ranks joined" % (len(run["ranks"]), ranks))
    wrong = [row["size"] for row in run["rows"] for side in ("oop", "ip") if row[side + "_wrong"]]
    if wrong:
        findings["wrong"] = ["wrong results at %s" % ", ".join(_size_text(size) for size in sorted(set(wrong)))]
    if run.get("out_of_bounds"):
        findings.setdefault("wrong", []).append("%d out-of-bounds values" % run["out_of_bounds"])
    in_place_skipped = in_place_optional and all(row["ip_wrong"] is None for row in run["rows"])
    if any(row["oop_wrong"] is None or (row["ip_wrong"] is None and not in_place_skipped) for row in run["rows"]):
        missing_data.append("results not validated (#wrong N/A)")
    slow, seen, unmeasured = bandwidth()
    if slow:
        findings["slow"] = slow
        warnings = (run.get("nccl") or {}).get("warnings") or []
        if warnings:
            findings["warning"] = ["NCCL WARN: %s" % warnings[0][:200]]
    if unmeasured:
        missing_data.append(unmeasured)
    problems = [text for key in CAUSE_ORDER for text in findings.get(key, [])]
    if problems:
        cause_key = next(key for key in CAUSE_ORDER if key in findings)
        # a hang or wrong results are no node's NICs or GPUDirect: with them, a node's network finding explains only
        # part of the miss, and the rounds must not clear the other nodes on its strength (judging/fabric_rounds.py)
        traced = by_host if not set(findings) & UNTRACED else {}
        return verdict(FAIL, expected, _summary(problems + missing_data), cause_key=cause_key, by_host=traced)
    if missing_data:
        return verdict(ERROR, expected, _summary(missing_data), cause_key=None, by_host={})
    return verdict(PASS, expected, "; ".join(seen[-1:]) + "; %d rails, GDRDMA on %d nodes%s" % (
        len(expect["pyramid_rails"]), len(group), ", SHARP (CollNet connected) on every node" if expect["pyramid_nccl_sharp"] else ""),
        cause_key=None, by_host={})


def _ranks_lost(run, group, gpus_per_node):
    """Why a finished run's '# Rank' lines are fewer than it ran, or None. NCCL's communicator forms only once every
    rank has joined, so a run that printed its results ran every rank its launcher started, and the launcher starts
    pyramid_gpus_per_node on each node: a node listing fewer beside a node listing them all lost a line from the read
    on the way back (the parser proves the rank numbers have no gap, so it is the last line). A node with no rank at
    all, or every node short alike, stays the hang it reads as (the launcher did not start them)."""
    listed = collections.Counter(rank["host"] for rank in run["ranks"])
    if not listed or max(listed.values()) != gpus_per_node:
        return None
    partial = []
    for host in group:
        key = _host_key(host, listed)
        if key is not None and listed[key] < gpus_per_node:
            partial.append("%s lists %d of its %d ranks" % (host, listed[key], gpus_per_node))
    if not partial:
        return None
    return ("%s in a run that finished (NCCL forms its communicator only once every rank joined): a '# Rank' line "
            "lost from the read" % "; ".join(partial))


# All-to-all below this size is NCCL's latency, not the fabric's bandwidth (nccl-tests' curves flatten from a few
# tens of MiB up on 400G rails): the floor is judged at the largest size measured, at least this one (less the 1% that
# nccl-tests' per-rank rounding takes off a size for a rank count that is not a power of two).
ALLTOALL_JUDGED_BYTES = 64 << 20


def cross_share(group, units):
    """The largest share of a node's traffic to other nodes that goes to other scalable units (over the spines)."""
    sizes = {}
    for node in group:
        sizes[units.get(node)] = sizes.get(units.get(node), 0) + 1
    others = len(group) - 1
    return max((len(group) - size) / float(others) for size in sizes.values()) if others else 0.0


def alltoall_floor(group, expect, units):
    """(busbw floor in GB/s, how it is figured) of an all-to-all across ``group``, whose nodes sit in ``units``.

    Each rank sends 1/R of its buffer to every rank; the share for other nodes, (R - G)/R, leaves through the NICs.
    At NIC rate N GB/s per GPU nccl-tests' busbw (algbw x (R - 1)/R) is at most N x (R - 1)/(R - G): the ceiling.
    Of what leaves a node, the share c for other scalable units crosses the spine layer, which carries
    pyramid_fabric_bisection (b) of the node ports' rate: the ceiling scales by min(1, b / c)."""
    gpus = expect["pyramid_gpus_per_node"]
    ranks = len(group) * gpus
    per_gpu = len(expect["pyramid_rails"]) * expect["pyramid_rail_rate_gbps"] / 8.0 / gpus
    ceiling = per_gpu * (ranks - 1) / max(ranks - gpus, 1)
    share = cross_share(group, units)
    bisection = expect["pyramid_fabric_bisection"]
    spine = min(1.0, bisection / share) if share else 1.0
    floor = ceiling * expect["pyramid_nccl_alltoall_fraction"] * spine
    return floor, "%s of the NIC-bound %.1f GB/s (%d x %d Gb/s for %d GPUs, %d ranks)%s" % (
        percent(expect["pyramid_nccl_alltoall_fraction"]), ceiling, len(expect["pyramid_rails"]),
        expect["pyramid_rail_rate_gbps"], gpus, ranks,
        " x %.2f: %.0f%% of a node's traffic crosses the spine layer, whose bisection is %g" % (spine, 100 * share, bisection)
        if share and spine < 1 else "")


def _alltoall_bandwidth(run, floor):
    """(slow findings, judged size text, unmeasured reason): busbw at the largest size measured, out-of-place alone
    where nccl-tests did not validate the in-place side (its figure then vouches for nothing)."""
    rows = [row for row in run["rows"] if row["size"] >= ALLTOALL_JUDGED_BYTES * 0.99]
    if not rows:
        return [], [], "no size of %s or more was measured: widen -e (pyramid_nccl_max_bytes)" % _size_text(ALLTOALL_JUDGED_BYTES)
    row = max(rows, key=lambda item: item["size"])
    busbw = row["oop_busbw"] if row["ip_wrong"] is None else max(row["oop_busbw"], row["ip_busbw"])
    text = "%s busbw %.1f GB/s" % (_size_text(row["size"]), busbw)
    return (["%s < %.1f" % (text, floor)] if busbw < floor else []), [text], None


@judge("nccl_alltoall_group", scope="fabric")
def nccl_alltoall_group(facts, expect):
    """Verdict of one all-to-all across ``group`` (nccl-tests' alltoall_perf or the built-in's --op alltoall):
    every node at its rails with GPUDirect, #wrong 0 out-of-place, busbw at the fabric's floor. ``expect``'s
    ``scalable_units`` ({node: unit}, resolved by the straggler hunt) says whether the run crosses the spine layer."""
    run, group = facts["run"], facts["group"]
    floor, figured = alltoall_floor(group, expect, expect.get("scalable_units") or {})
    units = len({(expect.get("scalable_units") or {}).get(node) for node in group})
    expected = ("%d nodes (%d ranks, %d scalable unit%s): all-to-all busbw at the largest size (>= %s) at least %.1f GB/s, "
                "%s; every rail (%s) used and GDRDMA on every node; #wrong 0; done within %ds" % (
                    len(group), len(group) * expect["pyramid_gpus_per_node"], units, "" if units == 1 else "s",
                    _size_text(ALLTOALL_JUDGED_BYTES), floor, figured, ",".join(expect["pyramid_rails"]),
                    expect["pyramid_nccl_timeout"]))
    return _group_verdict(run, group, dict(expect, pyramid_nccl_sharp=False), expected,
                          lambda: _alltoall_bandwidth(run, floor), in_place_optional=True)


@judge("training_group", scope="fabric")
def training_group(facts, expect):
    """The training step across ``group``, judged as on one node; a slow rank is traced to its node."""
    run, group = facts["run"], facts["group"]
    outcome = JUDGES["host"]["training_stable"]({"training_node": run}, expect)
    # an ERROR keeps the judge's own cause (no step count declared, a log cut short): no catalog cause says it
    result = verdict(outcome["status"], "%d nodes: %s" % (len(group), outcome["expected"]), outcome["actual"],
                     cause=outcome.get("cause") if outcome["status"] == ERROR else None, cause_key=None, by_host={})
    if outcome["status"] != FAIL:
        return result
    actual = outcome["actual"]
    if outcome.get("finding") == "slow_rank":  # the judge's own list of slow ranks, each named with its node here
        hosts = {step["rank"]: step.get("host") for step in run["steps"]}
        named = [hosts.get(rank) for rank in outcome["slow_ranks"] if hosts.get(rank)]
        for rank in outcome["slow_ranks"]:
            actual = actual.replace("rank %s " % rank, "rank %s (%s) " % (rank, hosts.get(rank) or "node unknown"), 1)
        result.update(actual=actual, cause_key="slow_rank",
                      by_host={host: ["slow_rank"] for host in group if _host_key(host, named)})
    else:
        result["cause_key"] = "timeout" if outcome.get("finding") in ("hung", "timeout") else "unstable"
    return result


@judge("training_parity_group", scope="fabric")
def training_parity_group(facts, expect):
    """The parity test across ``group`` (payloads/parity.py under one torchrun per node), judged as on one node: every
    rank's DDP loss and parameters against the single-GPU run on rank 0's GPU; the node of a rank that diverged first
    is blamed, every rank off together is the gradient all-reduce across the nodes."""
    run, group = facts["run"], facts["group"]
    ranks = len(group) * expect["pyramid_gpus_per_node"]
    expected = "%d nodes (%d ranks): the same training on one GPU and under DDP across them agree rank by rank" % (len(group), ranks)
    if isinstance(run, SourceFailure):
        if run.status == "timeout":
            return verdict(FAIL, expected, "did not finish within the timeout: %s" % run.reason, cause_key="timeout", by_host={})
        return verdict(ERROR, expected, run.reason, cause_key=None, by_host={})
    if run["ranks"] != ranks:
        return verdict(FAIL, expected, "%d of %d ranks reported" % (run["ranks"], ranks), cause_key="timeout", by_host={})
    outcome = JUDGES["host"]["training_parity"]({"training_parity": run}, expect)
    result = verdict(outcome["status"], "%s; %s" % (expected, outcome["expected"]), outcome["actual"], cause_key=None, by_host={})
    if outcome["status"] == FAIL:
        blamed = [host for host in group if _host_key(host, outcome.get("culprit_hosts") or [])]
        result.update(cause_key="diverged" if blamed else "every_rank", by_host={host: ["diverged"] for host in blamed})
    return result
