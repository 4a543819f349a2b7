# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What report.html draws, read from the report's records alone (each judge leaves the figures it judged in the
record's ``detail``): node x rail matrices of Layer 4 and the ping mesh, node x rank step times, busbw per node against
the pod median, each switch's failing ports. GPU nodes are grouped by scalable unit, so a 512-node pod stays readable."""

from __future__ import annotations

from ..core import catalog as _catalog
from ..core.model import BLOCKED, ERROR, FAIL, PASS, SKIP

# a cell's class: its status, or "none" where nothing was measured
CLASS = {PASS: "pass", FAIL: "fail", ERROR: "error", BLOCKED: "blocked", SKIP: "skip"}
FIGURES = ("gbps", "ping")  # how a node x rail matrix's figure reads


def drawn(catalog=None):
    """{picture name: (check, its picture)} of the checks the catalog draws (a check's `picture:`), in catalog order."""
    catalog = catalog or _catalog.load_catalog()
    return {check["picture"]["name"]: (check, check["picture"]) for check in catalog["checks"] if check.get("picture")}


def rail_pictures(catalog=None):
    """(key, layer, check, title, how a figure reads, the check it is compared with) of the node x rail matrices: the
    bandwidth of the highest layer first (Layer 4's host memory, then GPUDirect), then the ping mesh."""
    found = [(name, check["layer"], check["id"], picture["title"], picture["figure"], picture.get("compared_with"))
             for name, (check, picture) in drawn(catalog).items() if picture.get("figure") in FIGURES]
    return sorted(found, key=lambda entry: -entry[1])


def picture_check(name, catalog=None):
    """The id of the check the picture ``name`` is drawn from ("" where the catalog draws none)."""
    return drawn(catalog).get(name, ({"id": ""},))[0]["id"]


def gpu_nodes(report):
    """(unit, [node, ...]) in the pod's order: each GPU node's scalable unit as build() placed it."""
    units = {}
    for host, info in report["hosts"].items():
        if info["device"] == "gpu_node":
            units.setdefault(info.get("unit") or "su1", []).append(host)
    return list(units.items())


def _record(info, check):
    return next((r for r in info["checks"] if r["check"] == check), None)


def _below(info, layer, rail):
    """The lowest-layer finding on this rail below ``layer`` (a rail down at Layer 0, say): (record, said) or None."""
    for record in sorted(info["checks"], key=lambda r: r["layer"]):
        said = ((record.get("detail") or {}).get("rails") or {}).get(rail)
        if record["layer"] < layer and said and said.get("status") not in (None, PASS):
            return record, said
    return None


def stopped_below(info, layer):
    """Why a node has nothing at ``layer``: its lowest finding below it ("L0 gpudirect FAIL", "L1 blocked by leaf1-r3
    swp28"), or "" when nothing below stopped it."""
    below = [r for r in info["checks"] if r["layer"] < layer and r["status"] in (FAIL, ERROR, BLOCKED)]
    if not below:
        return ""
    lowest = min(r["layer"] for r in below)
    said = []
    for record in (r for r in below if r["layer"] == lowest):
        if record["status"] == BLOCKED:
            said += ["blocked by %s%s" % (b["switch"], " " + "/".join(b["ports"]) if b.get("ports") else "") for b in record.get("blocked_by") or []]
        else:
            said.append("%s %s" % (record["check"], record["status"]))
    return "L%d %s" % (lowest, ", ".join(sorted(set(said))))


def _figure_text(kind, said):
    if kind == "gbps":
        return "%.0f" % said["gbps"] if said.get("gbps") is not None else ""
    if said.get("loss_percent"):
        return "%g%%" % said["loss_percent"]
    return "%.0f" % (said["rtt_ms"] * 1000) if said.get("rtt_ms") is not None else ""


def _figure_title(kind, said):
    if kind == "gbps":
        return "%.1f Gb/s" % said["gbps"] if said.get("gbps") is not None else "no figure"
    parts = []
    if said.get("rtt_ms") is not None:
        parts.append("rtt avg %.3f ms" % said["rtt_ms"])
    if said.get("loss_percent") is not None:
        parts.append("loss %g%%" % said["loss_percent"])
    return ", ".join(parts) or "no figure"


def rail_cell(info, node, rail, layer, check, kind, compared_with=None):
    """One node x rail cell: the check's figure and status on that rail; where the check did not measure the rail,
    the finding below that stopped it (Layer 0's rail at 200G), else why it did not run."""
    record = _record(info, check)
    said = ((record or {}).get("detail") or {}).get("rails", {}).get(rail) if record else None
    if said:
        title = "%s %s, %s: %s %s" % (node, rail, check, said["status"], _figure_title(kind, said))
        if said["status"] != PASS and said.get("cause"):
            title += " (%s)" % said["cause"]
        return {"text": _figure_text(kind, said) or said["status"], "cls": CLASS.get(said["status"], "none"), "title": title}
    found = _below(info, layer, rail)
    if found:
        below, rail_said = found
        return {"text": "L%d" % below["layer"], "cls": CLASS.get(rail_said["status"], "fail"),
                "title": "%s %s, L%d %s %s: %s" % (node, rail, below["layer"], below["check"], rail_said["status"], rail_said.get("said", ""))}
    companion = _record(info, compared_with or "")
    said = ((companion or {}).get("detail") or {}).get("rails", {}).get(rail)
    if said and said["status"] != PASS:  # GPUDirect on a rail whose host-memory run missed: not compared, that miss shown
        return {"text": "H" + (_figure_text(kind, said) or said["status"]), "cls": CLASS.get(said["status"], "none"),
                "title": "%s %s, %s not compared: %s %s %s" % (node, rail, check, compared_with, said["status"], _figure_title(kind, said))}
    why = record["actual"] if record else "no %s result" % check
    status = record["status"] if record else None
    # a record that passed without naming this rail (no GPU near it, say) did not measure it: never green
    cls = CLASS[status] if status in (FAIL, ERROR, BLOCKED) else "none"
    return {"text": "", "cls": cls, "title": "%s %s, %s: %s%s" % (
        node, rail, check, why, " (not measured on this rail)" if status == PASS else "")}


def rail_matrices(report, catalog=None):
    """[{key, title, columns, groups: [(unit, [(node, [cell, ...], why nothing was measured), ...])]}] for Layer 4 and the
    ping mesh."""
    units = gpu_nodes(report)
    matrices = []
    for key, layer, check, title, kind, compared_with in rail_pictures(catalog):
        hosts = report["hosts"]
        if not any(_record(hosts[node], check) for _unit, nodes in units for node in nodes):
            continue  # a catalog without the check (or no GPU node): no picture to draw
        columns = _rails(report, units)
        groups = [(unit, [(node, [rail_cell(hosts[node], node, rail, layer, check, kind, compared_with) for rail in columns],
                           stopped_below(hosts[node], layer)) for node in nodes])
                  for unit, nodes in units]
        if all(cell["cls"] == "none" for _unit, rows in groups for _node, cells, _stopped in rows for cell in cells):
            continue  # nothing measured on any rail (check mode, a lone node): a grey picture says nothing the checklist does not
        matrices.append({"key": key, "title": title, "columns": columns, "groups": groups, "compared_with": compared_with})
    return matrices


def _rails(report, units):
    """The rails in the inventory's order (every GPU node's pyramid_rails; a rail only some nodes declare comes last)."""
    rails = []
    for _unit, nodes in units:
        for node in nodes:
            for rail in report["hosts"][node].get("rails") or []:
                if rail not in rails:
                    rails.append(rail)
    return rails


def rank_matrix(report, catalog=None):
    """Layer 6: each node's ranks' median step (forward) time in ms against the node's median of ranks; slow ranks
    marked. {columns, groups} as the rail matrices, or None without a result of the check drawn as "steps"."""
    units, hosts, check = gpu_nodes(report), report["hosts"], picture_check("steps", catalog)
    details = {node: (_record(hosts[node], check) or {}) for _unit, nodes in units for node in nodes}
    ranks_seen = sorted({int(rank) for r in details.values() for rank in ((r.get("detail") or {}).get("rank_ms") or {})})
    if not ranks_seen:
        return None  # no node measured a step (check mode, every node stopped below): nothing to draw
    columns = ["r%d" % rank for rank in ranks_seen] + ["CV"]
    groups = []
    for unit, nodes in units:
        rows = []
        for node in nodes:
            record = details[node]
            detail = record.get("detail") or {}
            ranks = detail.get("rank_ms") or {}
            if not ranks:
                why = record.get("actual") or "no %s result" % check
                cls = "none" if record.get("status") in (None, SKIP) else CLASS[record["status"]]
                rows.append((node, [{"text": "", "cls": cls, "title": "%s: %s" % (node, why)} for _column in columns],
                             stopped_below(hosts[node], 6)))
                continue
            slow = {str(rank) for rank in detail.get("slow_ranks") or []}
            # a node that failed for its spread (CV, slow steps, the baseline) has no slow rank to mark: its ranks are
            # not green, its CV cell says so and the row says why
            unsteady = record["status"] != PASS and not slow
            cells = []
            for index in ranks_seen:
                value = ranks.get(str(index))
                if value is None:
                    cells.append({"text": "", "cls": "none", "title": "%s rank %d: not in the log" % (node, index)})
                    continue
                share = value / detail["median_ms"] if detail.get("median_ms") else 1.0
                cells.append({"text": "%.0f" % value, "cls": "fail" if str(index) in slow else "error" if unsteady else "pass",
                              "title": "%s rank %d: %s median %.1f ms, %.0f%% of the node's median of ranks %.1f ms%s" % (
                                  node, index, detail.get("timed", "step"), value, 100 * share, detail.get("median_ms") or 0,
                                  " (slow rank)" if str(index) in slow else "")})
            spread = detail.get("cv")
            over = spread is not None and detail.get("max_cv") is not None and spread >= detail["max_cv"]
            cells.append({"text": "" if spread is None else "%.1f%%" % (100 * spread), "cls": "none" if spread is None else
                          "fail" if over else "pass", "title": "%s: %s %s" % (node, record["status"], record["actual"])})
            rows.append((node, cells, ("L6 " + record["actual"]) if record["status"] != PASS else ""))
        groups.append((unit, rows))
    return {"key": "steps", "title": "Layer 6: median %s time per rank, ms (a slow rank in red), and the node's step-time "
                                     "spread (robust CV)" % _timed(details),
            "columns": columns, "groups": groups}


def _timed(details):
    timed = {(r.get("detail") or {}).get("timed") for r in details.values() if (r.get("detail") or {}).get("timed")}
    return "forward" if timed == {"forward"} else "step"


def busbw_bars(report, catalog=None):
    """Layer 5: each node's all-reduce busbw against the pod median (the check drawn as "busbw"), per unit; None
    without a figure."""
    units, hosts, check = gpu_nodes(report), report["hosts"], picture_check("busbw", catalog)
    bars, medians, ratio = [], [], None
    for unit, nodes in units:
        row = []
        for node in nodes:
            record = _record(hosts[node], check) or {}
            detail = record.get("detail") or {}
            if detail.get("busbw") is None:
                row.append({"node": node, "value": None, "cls": "none", "title": "%s: %s" % (node, record.get("actual") or "no result")})
                continue
            medians.append(detail.get("pod_median"))
            ratio = detail.get("ratio", ratio)
            row.append({"node": node, "value": detail["busbw"], "cls": "fail" if record["status"] == FAIL else CLASS.get(record["status"], "none"),
                        "straggler": bool(detail.get("straggler")),
                        "title": "%s: %s %s" % (node, record["status"], record["actual"])})
        bars.append((unit, row))
    values = [node_bar["value"] for _unit, row in bars for node_bar in row if node_bar["value"] is not None]
    if not values:
        return None
    median = next((m for m in medians if m is not None), None)
    return {"groups": bars, "median": median, "ratio": ratio, "top": max(values + [median or 0])}


def switch_ports(report):
    """[(switch, [{check, layer, status, ports, actual, cause}])] for each switch with a finding; and how many are clean."""
    found, clean = [], 0
    for host, info in report["hosts"].items():
        if info["device"] == "gpu_node":
            continue
        bad = [r for r in info["checks"] if r["status"] in (FAIL, ERROR)]
        if not bad:
            clean += 1
            continue
        found.append((host, [{"check": r["check"], "layer": r["layer"], "status": r["status"],
                              "ports": list((r.get("detail") or {}).get("ports") or []), "actual": r["actual"], "cause": r.get("cause")}
                             for r in bad]))
    return found, clean
