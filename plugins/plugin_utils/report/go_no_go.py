# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The go/no-go report: report.json, report.md, junit.xml and the terminal checklist."""

from __future__ import annotations

import datetime
import re
import xml.etree.ElementTree as ET

from ..core import catalog as _catalog, results as _results
from ..run import fabric_runs as _fabric_runs
from ..judging import unjudged as _unjudged
from . import tiers_loaded as _tiers_loaded
from ..core.model import BLOCKED, ERROR, FAIL, PASS, SKIP, count_statuses

SCHEMA_VERSION = 1
NO_GPU_NODE = ("no GPU node in this run: the pod's GPU rows were not checked (a misspelled gpu_nodes group, or a --limit "
               "to the switches); set pyramid_switch_only: true for a run of the switches alone")
CHECK_MODE_LINE = ("Check mode (--check): %d checks that load the fabric or the GPUs were not run (SKIP "
                   "\"not run: check mode\"); every read was judged, and such a run is never GO.")
# not_run: no FAIL or ERROR among the row's checks, but a device's were not run or not measured (each said, with why)
MARK = {"pass": "[✓]", "fail": "[✗]", "not_run": "[ ]", "not_covered": "[ ]", "-": "[-]"}
FOUND = (FAIL, ERROR, BLOCKED)  # a finding of the device's, or of a switch in its path


def build(catalog, run_dir, devices, pod_order=None):
    """devices: device type -> inventory hosts. Every catalog check of a host's type must PASS for GO. ``pod_order``:
    the pod's GPU nodes in inventory order (groups['gpu_nodes'], whatever --limit ran), which places each node in its
    scalable unit as the straggler hunt does."""
    hosts, switch_only, waivers, expects = {}, [], {}, {}
    # the switches found in a read, not the inventory (an InfiniBand subnet's, named by the link kind): judged on the
    # records they hold, the catalog's other switch checks never being theirs to run
    found = [name for name in _results.found_devices(run_dir) if not any(name in names for names in devices.values())]
    for device, names in sorted(dict(devices, switch=list(devices.get("switch") or []) + found).items()):
        for host in names:
            doc = _results.load(run_dir, host)
            held = {(r["layer"], r["check"]) for r in doc["results"]}
            expected_checks = [c for c in _catalog.checks_for(catalog, device) if host not in found or (c["layer"], c["id"]) in held]
            expects.setdefault(device, []).append(doc.get("expect", {}))
            switch_only.append(bool(doc.get("expect", {}).get("pyramid_switch_only")))
            for waiver in doc.get("expect", {}).get("pyramid_waive") or []:
                waivers.setdefault(waiver["row"], waiver["reason"])
            by_key = {(r["layer"], r["check"]): r for r in doc["results"]}
            records = []
            for check in expected_checks:
                record = by_key.pop((check["layer"], check["id"]), None)
                if record is None:
                    record = _missing(host, check, has_results=bool(doc["results"]))
                records.append(record)
            # a switch in the host's path failed: the host carries that switch check, BLOCKED
            records.extend(r for r in by_key.values() if r["status"] == "BLOCKED")
            records.sort(key=lambda r: r["layer"])
            hosts[host] = {
                "device": device,
                "verdict": "GO" if all(r["status"] == PASS or r.get("not_applicable") for r in records) else "NO-GO",
                "stopped_at": _results.stopped_at(records),
                # pyramid_enforce_gate false (a bring-up with the gate lifted): every layer ran anyway
                "gate_lifted": doc.get("expect", {}).get("pyramid_enforce_gate") is False,
                "checks": records,
                "cause": device_cause(records),  # why it is not GO: one text for every output
            }
            if device == "gpu_node":  # report.html's matrices: the node's rails (its scalable unit below)
                hosts[host]["rails"] = list(doc.get("expect", {}).get("pyramid_rails") or [])
    gpu_expects = dict(zip(devices.get("gpu_node") or [], expects.get("gpu_node") or []))
    for node, unit in _units(gpu_expects, pod_order or list(gpu_expects)).items():
        hosts[node]["unit"] = unit
    covered_layers = sorted({c["layer"] for c in catalog["checks"]})
    checklist = _checklist(catalog, hosts, sorted(devices), expects.get("gpu_node") or [e for found in expects.values() for e in found])
    go = sum(1 for h in hosts.values() if h["verdict"] == "GO")
    counts = {}
    for host in hosts.values():
        for record in host["checks"]:
            counts[record["status"]] = counts.get(record["status"], 0) + 1
    # a pod is its GPU nodes: a run without any (a misspelled group, a --limit to the switches) is no go-live
    declared_switch_only = bool(switch_only) and all(switch_only)
    no_gpu_node = None if devices.get("gpu_node") or declared_switch_only else NO_GPU_NODE
    # one unchecked go-live row is a no-go (seed 000), unless the inventory waives it with its reason; a switch-only
    # run declared so has no GPU rows to check
    unchecked = [{"row": row["row"], "title": row["title"], "why_not": row["why_not"]} for row in checklist
                 if row.get("unchecked") and row["row"] not in waivers
                 and not (declared_switch_only and row["unchecked"] == ["gpu_node"])]
    waived = [{"row": row["row"], "title": row["title"], "reason": waivers[row["row"]]} for row in checklist if row["row"] in waivers]
    return {
        "schema_version": SCHEMA_VERSION,
        "verdict": "GO" if hosts and go == len(hosts) and not no_gpu_node and not unchecked else "NO-GO",
        "no_gpu_node": no_gpu_node,
        "unchecked_rows": unchecked,
        "waived_rows": waived,
        "generated_at": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "run_dir": run_dir,
        "layers_in_catalog": covered_layers,
        "summary": {"hosts": len(hosts), "go": go, "no_go": len(hosts) - go, "checks": counts},
        # checks not run under --check (run/check_mode.py): the run read and judged, it loaded nothing
        "check_mode_not_run": sum(1 for host in hosts.values() for record in host["checks"] if record.get("check_mode")),
        "checklist": checklist,
        "hosts": hosts,
        # which switch tiers the traffic between nodes crossed (report/tiers_loaded.py): a one-unit pod's spines carried none
        "tiers_loaded": [{"what": what, "tiers": said} for what, said in _tiers_loaded.loaded(
            run_dir, {node: host["unit"] for node, host in hosts.items() if host.get("unit")}, catalog)],
    }


def _units(expects, pod_order):
    """{node: scalable unit} as the straggler hunt places them (run/fabric_runs.scalable_units): a node's
    pyramid_scalable_unit, else su<k> by its place in the pod, pyramid_scalable_unit_nodes to a unit."""
    per_unit = next((e["pyramid_scalable_unit_nodes"] for e in expects.values() if e.get("pyramid_scalable_unit_nodes")), 32)
    return _fabric_runs.scalable_units(list(expects), list(pod_order), int(per_unit),
                                       lambda node: {"pyramid_scalable_unit": expects[node].get("pyramid_scalable_unit")})


def first_record(records, statuses, keep=None):
    """The lowest-layer record of ``records`` whose status is one of ``statuses`` (and that ``keep`` keeps), the
    catalog's order within a layer; else None."""
    found = [(r["layer"], index, r) for index, r in enumerate(records) if r["status"] in statuses and (keep is None or keep(r))]
    return min(found, key=lambda item: item[:2])[2] if found else None


def unproven(record):
    """A check that applies to the device and was neither passed nor failed: not run, not measured, check mode."""
    return record["status"] == SKIP and not record.get("not_applicable")


def device_cause(records):
    """Why a device is not GO, the one choice every output shows (report.md, report.html, report.json, junit.xml,
    set_stats, the scheduler's drain reason): its first FAIL, ERROR or BLOCKED, lowest layer first, else the first
    check that applies to it and was left unproven, with why (a SKIP "not measured: ...", "not run: check mode").
    {"layer", "check", "status", "text"}; None for a device whose every check passed or does not apply (GO)."""
    record = first_record(records, FOUND) or first_record(records, (SKIP,), unproven)
    return None if record is None else cause_of(record)


def cause_of(record):
    """The cause a record gives its device: "L0 gpudirect FAIL: <likely cause>", "L3 incast_ecn not proven (SKIP): <why>"."""
    if record["status"] == SKIP:  # the SKIP's own text says why; the catalog's cause is a failure's
        text = "L%d %s not proven (SKIP): %s" % (record["layer"], record["check"], _one_line(record["actual"]))
    else:
        text = "L%d %s %s: %s" % (record["layer"], record["check"], record["status"], _one_line(record.get("cause") or record["actual"]))
    return {"layer": record["layer"], "check": record["check"], "status": record["status"], "text": text}


def _one_line(text):
    return re.sub(r"\s+", " ", str(text or "")).strip()


def causes(report):
    """{device: its cause's text} for every device not GO."""
    return {host: info["cause"]["text"] for host, info in sorted(report["hosts"].items()) if info.get("cause")}


def _missing(host, check, has_results):
    outcome = _unjudged.not_recorded(has_results)
    return {"host": host, "layer": check["layer"], "check": check["id"], "title": check["title"], "row": check["row"],
            "status": outcome["status"], "expected": outcome["expected"], "actual": outcome["actual"], "command": None,
            "not_read": not has_results, "cause": outcome.get("cause"),
            "go_back_to": None if has_results else "Read the play output for this host, then re-run"}


def _row_not_applicable(row, expects, catalog):
    """Why a row of another fabric does not apply to this pod (BGP on an InfiniBand pod, the subnet manager on a RoCE
    one: the row's only_if against the GPU nodes' expectations, any node it applies to keeps it), else None."""
    for name, wanted in sorted((row.get("only_if") or {}).items()):
        wanted = [str(value) for value in (wanted if isinstance(wanted, list) else [wanted])]
        default = catalog["expectations"][name].get("default")
        values = sorted({str(expect.get(name, default)) for expect in expects})
        if expects and not set(values) & set(wanted):
            return "not applicable: %s is %s (the row is checked where it is %s)" % (name, " or ".join(values), " or ".join(wanted))
    return None


def _checklist(catalog, hosts, devices_in_run, expects):
    """The go/no-go rows; ``expects``: the pod's GPU nodes' expectations (every host's in a run without one)."""
    rows = []
    partial = {c["id"] for c in catalog["checks"] if c.get("row_alone") is False}  # one end of the row only (mlxlink)
    for row in catalog["rows"]:
        checks = [c for c in catalog["checks"] if c["row"] == row["id"]]
        entry = {"row": row["id"], "title": row["title"], "layer": row["layer"], "checks": [c["id"] for c in checks],
                 "failing_hosts": [], "blocked_hosts": [], "not_run_hosts": [],
                 # each device under the row of the check that failed or was not run, with its checks and why
                 "failing_checks": {}, "not_run_why": {}}
        # a check that follows another's miss (``retraces``: the link run names the link a pod all-to-all missed on)
        # proves nothing of the row alone: the devices it reads are not ones the row needs in the run
        wanted = sorted({c["device"] for c in checks if "retraces" not in c} or {c["device"] for c in checks})
        other_fabric = _row_not_applicable(row, expects, catalog)
        if not checks:
            entry["status"], entry["why_not"] = "not_covered", "no catalog check yet"
        elif other_fabric:  # nothing of the row is this pod's to check: no gap, never a pass either
            entry["status"], entry["why_not"] = "not_covered", other_fabric
        elif not set(wanted) & set(devices_in_run):  # e.g. the links row of a run without switches
            entry["status"], entry["why_not"] = "not_covered", "no %s in this run" % " or ".join(wanted)
            entry["unchecked"] = sorted(wanted)  # a go-live gap: the devices it needs were not in the run
        elif not any(r["row"] == row["id"] and not r.get("not_applicable") and (r["check"] not in partial or r["status"] in (FAIL, ERROR))
                     for info in hosts.values() for r in info["checks"]):  # one end's check alone fails a row, never passes it
            # a check that could not measure and says why (telemetry without a Prometheus URL), else the platforms
            said = sorted({r["not_checked"] for info in hosts.values() for r in info["checks"] if r["row"] == row["id"] and r.get("not_checked")})
            # and a device type the row needs that this run lacks (the links row of a RoCE pod run without its switches:
            # the GPU nodes' one check of it, InfiniBand's ib_links, does not apply to them)
            absent = ["no %s in this run" % " or ".join(d for d in wanted if d not in devices_in_run)] if set(wanted) - set(devices_in_run) else []
            entry["status"], entry["why_not"] = "not_covered", "; ".join(said or [_not_applicable_why(row["id"], hosts)] + absent)
            if said or absent:  # not checked for a reason of the run's (the incast not asked for, no Prometheus URL)
                entry["unchecked"] = sorted(set(wanted) - set(devices_in_run)) if absent and not said else ["run"]
        else:
            for host, info in sorted(hosts.items()):
                own = [r for r in info["checks"] if r["row"] == row["id"] and not r.get("not_applicable")]
                failed = [r["check"] for r in own if r["status"] in (FAIL, ERROR)]
                if failed:
                    entry["failing_hosts"].append(host)
                    entry["failing_checks"][host] = failed
                elif any(r["status"] == BLOCKED for r in own):
                    entry["blocked_hosts"].append(host)
                elif any(unproven(r) for r in own):
                    entry["not_run_hosts"].append(host)
                    first = first_record(own, (SKIP,), unproven)
                    entry["not_run_why"][host] = "%s: %s" % (first["check"], _one_line(first["actual"]))
            # [✗] only for a FAIL or ERROR among the row's own checks (a BLOCKED host's is its switch's, in this row);
            # a device not run or not measured leaves the row unproven, never failed
            entry["status"] = "fail" if entry["failing_hosts"] or entry["blocked_hosts"] or not hosts else \
                "not_run" if entry["not_run_hosts"] else "pass"
        rows.append(entry)
    return rows


def _not_applicable_why(row, hosts, limit=3):
    """Why none of a row's checks applies to the devices of this run, in the records' own words (a lone node's
    rail_ping, one GPU's collectives, another fabric's checks), the check's name taken out so that alike reasons read
    once."""
    said = []
    for info in hosts.values():
        for record in info["checks"]:
            if record["row"] == row and record.get("not_applicable"):
                text = _one_line(record["actual"]).replace(" (%s is checked where" % record["check"], " (checked where")
                text = re.sub(r"\b%s\b" % re.escape(record["check"]), "the check", text)
                text = re.sub(r"\b%s\b" % re.escape(record["host"]), "this node", text) if record.get("host") else text
                if text not in said:
                    said.append(text)
    if not said:
        return "not applicable to the platforms in this run"
    return "; ".join(said[:limit]) + ("; and %d other reasons (report.json)" % (len(said) - limit) if len(said) > limit else "")


def rows_said(report):
    """The go-live rows not checked (each a no-go) and those the inventory waived, with why: the report's first lines."""
    lines = ["NO-GO: " + report["interrupted"]["said"]] if report.get("interrupted") else []  # report/interrupted.py
    lines += ["RESUMED: " + report["resumed"]["said"]] if report.get("resumed") else []  # run/resume.py
    lines += ["NO-GO: go-live row not checked: %s (%s); waive it only on purpose (pyramid_waive, with a reason)" % (
        row["title"], row["why_not"]) for row in report.get("unchecked_rows") or []]
    lines += ["WAIVED: %s: %s" % (row["title"], row["reason"]) for row in report.get("waived_rows") or []]
    return lines


def row_mark(row):
    """(mark, note) of a checklist row, the same in report.md, report.html and the terminal: a row none of whose checks
    applies to this run reads "-" with why (a lone node's mesh, one GPU's collectives, another fabric's row), a row not
    checked (a go-live gap) or not proven on a device "[ ]"."""
    why = row.get("why_not")
    if row["status"] == "not_covered" and not row.get("unchecked") and why.startswith("not applicable"):
        return "-", why
    return row["status"], "not checked: %s" % why if row["status"] == "not_covered" else None


def _cut(text, limit=120):
    return text if len(text) <= limit else text[:limit - 3] + "..."


def not_run_said(row):
    """The terminal's word on why a row was not run: its first device's reason, "(node-002: incast_ecn: not measured: ...)"."""
    if not row["not_run_hosts"]:
        return ""
    first = row["not_run_hosts"][0]
    why = (row.get("not_run_why") or {}).get(first)
    return " (%s%s)" % ("%s: " % first if len(row["not_run_hosts"]) > 1 else "", _cut(why)) if why else ""


def not_run_cell(row):
    """report.md's and report.html's cell: the devices a row was not run on, grouped by why, "node-002, node-003
    (incast_ecn: not measured: ...); node-004 (...)"."""
    groups = {}
    for host in row["not_run_hosts"]:
        groups.setdefault((row.get("not_run_why") or {}).get(host), []).append(host)
    return "; ".join("%s%s" % (", ".join(hosts), " (%s)" % _cut(why) if why else "") for why, hosts in groups.items())


def failing_said(row):
    """Each failing device with the checks of the row it failed: "gpu-host (nccl_loaded)"."""
    checks = row.get("failing_checks") or {}
    return ["%s (%s)" % (host, ", ".join(checks[host])) if checks.get(host) else host for host in row["failing_hosts"]]


def _names(hosts, limit=6):
    return ", ".join(hosts[:limit]) + (" +%d more" % (len(hosts) - limit) if len(hosts) > limit else "")


def dependents(report):
    """{(host, check): [checks not judged because it did not pass]} (run/depends.py): shown with their root finding."""
    found = {}
    for host, info in report["hosts"].items():
        for record in info["checks"]:
            if record.get("depends_on"):
                found.setdefault((host, record["depends_on"]), []).append(record["check"])
    return found


def and_dependents(record, folded):
    names = folded.get((record["host"], record["check"]))
    return " [%d checks depend on it, not judged: %s]" % (len(names), ", ".join(names)) if names else ""


def problems(report):
    """The FAIL and ERROR records, what to fix first first (issue 71): by layer, then by the devices each holds back (a
    leaf that blocks 32 nodes before a node's own finding), then by check and device."""
    holds = _holds_back(report)
    found = [record for _host, info in sorted(report["hosts"].items()) for record in info["checks"]
             if record["status"] in ("FAIL", "ERROR")]
    return sorted(found, key=lambda r: (r["layer"], -len(holds.get((r["host"], r["check"]), ())), r["check"], r["host"]))


def _holds_back(report):
    """{(switch, check): the devices BLOCKED behind that finding}."""
    found = {}
    for host, info in report["hosts"].items():
        for record in info["checks"]:
            for blocker in record.get("blocked_by") or []:
                found.setdefault((blocker["switch"], blocker["check"]), set()).add(host)
    return found


SAME_FINDING_AT_LEAST = 3  # two alike read as two rows; from three, one row naming them all


def grouped(found):
    """[(record, hosts)]: identical findings as one entry, in ``found``'s order. Identical: the same layer, check,
    status and cause, and the same actual text once the device's own name is taken out ("mlx5_3 at 200G" on 12 nodes)."""
    groups, order = {}, []
    for record in found:
        key = (record["layer"], record["check"], record["status"], record["cause"],
               str(record["actual"]).replace(record["host"], "<device>"))
        if key not in groups:
            groups[key] = []
            order.append(key)
        groups[key].append(record)
    entries = []
    for key in order:
        records = groups[key]
        if len(records) >= SAME_FINDING_AT_LEAST:
            entries.append((records[0], [r["host"] for r in records]))
        else:
            entries += [(record, [record["host"]]) for record in records]
    return entries


def _who(hosts):
    return hosts[0] if len(hosts) == 1 else "%d devices: %s" % (len(hosts), _names(hosts, 12))


def checklist_text(report):
    summary = report["summary"]
    lines = ["GO/NO-GO: %s  (%d of %d hosts GO)" % (report["verdict"], summary["go"], summary["hosts"])]
    if report.get("check_mode_not_run"):
        lines.append(CHECK_MODE_LINE % report["check_mode_not_run"])
    if report.get("no_gpu_node"):
        lines.append("NO-GO: " + report["no_gpu_node"])
    lines += rows_said(report)
    lines.append("")
    for row in report["checklist"]:
        mark, note = row_mark(row)
        line = "%s L%d  %s" % (MARK[mark], row["layer"], row["title"])
        if note:
            line += "  (%s)" % note
        if row["failing_hosts"]:
            line += "  FAILING: " + _names(row["failing_hosts"])
        if row["blocked_hosts"]:
            line += "  BLOCKED: " + _names(row["blocked_hosts"])
        if row["not_run_hosts"]:
            line += "  NOT RUN: " + _names(row["not_run_hosts"]) + not_run_said(row)
        lines.append(line)
    found = list(problems(report))
    if found:
        lines += ["", "Why (likely cause -> go back to):"]
        folded = dependents(report)
        entries = grouped(found)
        for record, hosts in entries[:40]:
            said = record["actual"] + and_dependents(record, folded)
            lines.append("  %s L%d %s %s: %s" % (_who(hosts), record["layer"], record["check"], record["status"], said))
            lines.append("      cause: %s" % record["cause"])
            lines.append("      go back to: %s" % record["go_back_to"])
        if len(entries) > 40:
            lines.append("  ... %d more in report.md" % (len(entries) - 40))
    blocked_by = _blocked_by(report)
    if blocked_by:
        lines += ["", "Blocked by a switch in their path (not failing on their own):"]
        for (layer, switches), hosts in sorted(blocked_by.items())[:20]:
            lines.append("  L%d by %s: %s" % (layer, switches, _names(hosts, 12)))
    unproven_hosts = [(host, info["cause"]["text"]) for host, info in sorted(report["hosts"].items())
                      if (info.get("cause") or {}).get("status") == SKIP]
    if unproven_hosts:  # NO-GO with no finding of their own: the check that was not proven names why
        lines += ["", "NO-GO without a failure of their own (a check not proven):"]
        lines += ["  %s: %s" % (host, text) for host, text in unproven_hosts[:20]]
        if len(unproven_hosts) > 20:
            lines.append("  ... %d more in report.md" % (len(unproven_hosts) - 20))
    for lifted, title in ((False, "Stopped (not climbed past the failing layer)"),
                          (True, "First failing layer (gate lifted: the layers above ran anyway)")):
        failed = sorted(h for h, i in report["hosts"].items() if i["stopped_at"] is not None and i.get("gate_lifted", False) is lifted)
        if failed:
            lines += ["", "%s: " % title + ", ".join(
                "%s@L%d" % (h, report["hosts"][h]["stopped_at"]) for h in failed[:20]) + (" ..." if len(failed) > 20 else "")]
    lines += ["", "Reports: %s/report.html  report.md  report.json  junit.xml" % report["run_dir"]]
    return "\n".join(lines)


def _blocked_by(report):
    """(layer, "switch check, ...") -> the hosts blocked there."""
    found = {}
    for host, info in sorted(report["hosts"].items()):
        for record in info["checks"]:
            if record["status"] == "BLOCKED":
                by = ", ".join("%s %s%s" % (b["switch"], b["check"], " " + "/".join(b["ports"]) if b["ports"] else "")
                               for b in record["blocked_by"])
                found.setdefault((record["layer"], by), []).append(host)
    return found


def _cell(value):
    return str(value if value is not None else "").replace("|", "\\|").replace("\n", " ")


def markdown(report):
    summary = report["summary"]
    out = ["# Go/no-go: %s" % report["verdict"], "",
           "%d of %d hosts GO. Generated %s. Layers in the catalog: %s." % (
               summary["go"], summary["hosts"], report["generated_at"], ", ".join("L%d" % l for l in report["layers_in_catalog"]))]
    if report.get("check_mode_not_run"):
        out += ["", CHECK_MODE_LINE % report["check_mode_not_run"]]
    if report.get("no_gpu_node"):
        out += ["", "NO-GO: " + report["no_gpu_node"]]
    said = rows_said(report)
    if said:
        out += [""] + ["- " + line for line in said]
    out += ["", "## Checklist", "", "| | Layer | Check | Failing devices | Blocked by a switch | Not run |", "|---|---|---|---|---|---|"]
    for row in report["checklist"]:
        mark, note = row_mark(row)
        title = row["title"] + (" *(%s)*" % note if note else "")
        out.append("| %s | L%d | %s | %s | %s | %s |" % (
            MARK[mark], row["layer"], _cell(title), _cell(", ".join(failing_said(row))),
            _cell(", ".join(row["blocked_hosts"])), _cell(not_run_cell(row))))
    found = list(problems(report))
    out += ["", "## Failures and their likely causes", ""]
    if found:
        out += ["| Host | Layer | Check | Status | Expected | Actual | Likely cause | Go back to |", "|---|---|---|---|---|---|---|---|"]
        folded = dependents(report)
        for r, hosts in grouped(found):
            cells = (_who(hosts), "L%d" % r["layer"], r["check"], r["status"], r["expected"], r["actual"] + and_dependents(r, folded),
                     r["cause"], r["go_back_to"])
            out.append("| %s |" % " | ".join(_cell(v) for v in cells))
    else:
        out.append("None.")
    blocked_by = _blocked_by(report)
    if blocked_by:
        out += ["", "## Blocked by a switch in their path", "", "| Layer | Blocked by | Hosts |", "|---|---|---|"]
        for (layer, switches), hosts in sorted(blocked_by.items()):
            out.append("| L%d | %s | %s |" % (layer, _cell(switches), _cell(", ".join(hosts))))
    if report.get("tiers_loaded"):
        out += ["", "## Switch tiers the test traffic crossed", ""]
        out += ["- %s: %s" % (entry["what"], entry["tiers"]) for entry in report["tiers_loaded"]]
    out += ["", "## Devices", "", "| Device | Type | Verdict | Stopped at | PASS | FAIL | ERROR | BLOCKED | SKIP | Cause |",
            "|---|---|---|---|---|---|---|---|---|---|"]
    for host, info in sorted(report["hosts"].items()):
        counts = count_statuses(info["checks"])
        stopped = "" if info["stopped_at"] is None else "L%d" % info["stopped_at"]
        out.append("| %s | %s | %s | %s | %d | %d | %d | %d | %d | %s |" % (
            host, info["device"], info["verdict"], stopped, counts[PASS], counts[FAIL], counts[ERROR],
            counts[BLOCKED], counts[SKIP], _cell((info.get("cause") or {}).get("text"))))
    return "\n".join(out) + "\n"


# What XML 1.0 cannot hold (ANSI escapes and other control characters from a tool's stderr, lone
# surrogates): without this, one such byte makes the whole junit.xml unreadable to the CI that reads it.
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")


def _xml_text(value):
    return _NOT_XML.sub("?", _ANSI.sub("", "%s" % value))


def junit(report):
    suite = ET.Element("testsuite", name="gpufabric.pyramid", timestamp=report["generated_at"])
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for host, info in sorted(report["hosts"].items()):
        for r in info["checks"]:
            totals["tests"] += 1
            case = ET.SubElement(suite, "testcase", classname=host, name="L%d.%s" % (r["layer"], r["check"]))
            text = _xml_text("expected: %s\nactual: %s\ncommand: %s\ncause: %s\ngo back to: %s" % (
                r["expected"], r["actual"], r["command"], r["cause"], r["go_back_to"]))
            if r["status"] == "FAIL":
                totals["failures"] += 1
                ET.SubElement(case, "failure", message=_xml_text(r["actual"])).text = text
            elif r["status"] == "ERROR":
                totals["errors"] += 1
                ET.SubElement(case, "error", message=_xml_text(r["actual"])).text = text
            elif r["status"] in (SKIP, BLOCKED):  # a blocked host did not fail on its own
                totals["skipped"] += 1
                ET.SubElement(case, "skipped", message=_xml_text(r["actual"]))
    if report.get("interrupted"):  # the run itself did not end: one error for it (report/interrupted.py)
        totals["tests"], totals["errors"] = totals["tests"] + 1, totals["errors"] + 1
        case = ET.SubElement(suite, "testcase", classname="run", name="interrupted")
        ET.SubElement(case, "error", message=_xml_text(report["interrupted"]["said"])).text = _xml_text(report["interrupted"]["said"])
    for host, info in sorted(report["hosts"].items()):  # each device's verdict, with its cause (device_cause)
        totals["tests"] += 1
        case = ET.SubElement(suite, "testcase", classname=host, name="verdict")
        cause = info.get("cause")
        if cause and cause["status"] == BLOCKED:  # not failing on its own: a switch in its path failed
            totals["skipped"] += 1
            ET.SubElement(case, "skipped", message=_xml_text("%s BLOCKED: %s" % (info["verdict"], cause["text"])))
        elif cause:
            totals["failures"] += 1
            ET.SubElement(case, "failure", message=_xml_text("%s: %s" % (info["verdict"], cause["text"]))).text = _xml_text(cause["text"])
    for key, value in totals.items():
        suite.set(key, str(value))
    return ET.tostring(suite, encoding="unicode", xml_declaration=True)
