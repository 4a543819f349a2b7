# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""report.html: the go/no-go report as one self-contained page (no network, no script, no external font): the
verdict, the checklist, the failures with their causes, and the pictures of report/pictures.py."""

from __future__ import annotations

import html

from . import go_no_go as _report, pictures as _pictures
from ..core.model import BLOCKED, ERROR, FAIL, PASS, SKIP, count_statuses

STYLE = """
body{font:13px/1.4 "DejaVu Sans",Arial,sans-serif;margin:16px 24px;color:#1d2329;background:#fff}
h1{font-size:22px;margin:0 0 4px}h2{font-size:16px;margin:28px 0 6px;border-bottom:1px solid #d0d7de;padding-bottom:3px}
.verdict{display:inline-block;padding:4px 14px;border-radius:4px;color:#fff;font-weight:bold}
.verdict.go{background:#1a7f37}.verdict.nogo{background:#cf222e}
table{border-collapse:collapse}th,td{text-align:left;vertical-align:top}
table.list td,table.list th{border:1px solid #d0d7de;padding:3px 6px}table.list th{background:#f6f8fa}
.said{margin:6px 0;padding-left:18px}
.units{display:flex;flex-wrap:wrap;gap:14px 22px;align-items:flex-start}
figure.unit{margin:0}figure.unit figcaption{font-weight:bold;margin-bottom:2px}
table.matrix th{font-weight:normal;font-size:10px;padding:0 4px 0 0;white-space:nowrap}
table.matrix thead th{text-align:center;padding:0}
table.matrix td.c{width:30px;height:15px;font-size:9px;text-align:center;vertical-align:middle;border:1px solid #fff;padding:0}
.pass{background:#a9dfb3}.fail{background:#e5534b;color:#fff}.error{background:#f0a83a}.blocked{background:#b9a4e6}
.skip,.none{background:#e7eaee;color:#57606a}
.legend span{display:inline-block;padding:0 6px;margin-right:6px;border-radius:3px;font-size:11px}
.bars{position:relative;display:flex;align-items:flex-end;gap:2px;height:120px;border-bottom:1px solid #57606a;padding-top:4px}
.bar{width:9px;position:relative}.bar.none{height:4px}.bar.fail{min-height:3px}
.bar.straggler::after{content:"\\25BC";position:absolute;top:-14px;left:-1px;font-size:10px;color:#cf222e}
.line{position:absolute;left:0;right:0;border-top:1px dashed #24292f;height:0}.line.floor{border-top-color:#cf222e}
.chips span{display:inline-block;background:#e5534b;color:#fff;border-radius:3px;padding:0 5px;margin:1px 3px 1px 0;font-size:11px}
.muted{color:#57606a}.contents a{color:#0969da}td.stopped{font-size:10px;color:#cf222e;padding-left:4px;white-space:nowrap;max-width:150px;overflow:hidden;
text-overflow:ellipsis}
"""
SHORT = {"rdma": "L4 ib_write_bw", "gpudirect": "L4 GPUDirect", "ping": "L2 ping mesh", "busbw": "L5 busbw", "steps": "L6 step times"}
MARK = {"pass": "&#10003;", "fail": "&#10007;", "not_run": "&#9744;", "not_covered": "&#9744;", "-": "&ndash;"}


def _e(value):
    return html.escape("" if value is None else "%s" % value, quote=True)


def render(report):
    """The whole page for ``report`` (go_no_go.build's)."""
    summary = report["summary"]
    verdict = report["verdict"]
    parts = [
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        # no request leaves the page: a report opened from a share or an AWX artifact shows the same everywhere
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">",
        "<title>gpufabric.pyramid %s: %s</title>" % (_e(verdict), _e(report["run_dir"])),
        "<style>%s</style></head><body>" % STYLE,
        '<h1>Go/no-go: <span class="verdict %s" id="verdict">%s</span></h1>' % ("go" if verdict == "GO" else "nogo", _e(verdict)),
        '<p>%d of %d hosts GO. Generated %s. Run %s.</p>' % (summary["go"], summary["hosts"], _e(report["generated_at"]), _e(report["run_dir"])),
    ]
    said = _report.rows_said(report)
    if report.get("check_mode_not_run"):
        said.insert(0, _report.CHECK_MODE_LINE % report["check_mode_not_run"])
    if report.get("no_gpu_node"):
        said.insert(0, "NO-GO: " + report["no_gpu_node"])
    if said:
        parts.append('<ul class="said">%s</ul>' % "".join("<li>%s</li>" % _e(line) for line in said))
    pictures, sections = [], [("checklist", "Checklist"), ("failures", "Failures")]
    for matrix in _pictures.rail_matrices(report):
        pictures += _matrix(matrix)
        sections.append(("m-" + matrix["key"], SHORT[matrix["key"]]))
    bars = _bars(_pictures.busbw_bars(report))
    if bars:
        pictures += bars
        sections.append(("m-busbw", SHORT["busbw"]))
    ranks = _pictures.rank_matrix(report)
    if ranks:
        pictures += _matrix(ranks)
        sections.append(("m-steps", SHORT["steps"]))
    sections += [("switches", "Switches"), ("devices", "Devices")]
    parts += [_contents(sections)] + _checklist(report) + _failures(report) + pictures
    parts += _switches(*_pictures.switch_ports(report)) + _devices(report)
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def _contents(sections):
    """A line of links to each section (in-page anchors only): on a 512-node pod the pictures sit below long tables."""
    return '<p class="contents">%s</p>' % " &middot; ".join('<a href="#%s">%s</a>' % (_e(anchor), _e(name)) for anchor, name in sections)


def _checklist(report):
    out = ['<h2 id="checklist">Checklist</h2>', '<table class="list"><tr><th></th><th>Layer</th><th>Check</th>'
           '<th>Failing devices</th><th>Blocked by a switch</th><th>Not run</th></tr>']
    for row in report["checklist"]:
        mark, note = _report.row_mark(row)
        title = _e(row["title"]) + (' <span class="muted">(%s)</span>' % _e(note) if note else "")
        cls = {"pass": "pass", "fail": "fail"}.get(row["status"], "none")
        out.append('<tr data-row="%s"><td class="%s">%s</td><td>L%d</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>' % (
            _e(row["row"]), cls, MARK[mark], row["layer"], title, _e(", ".join(_report.failing_said(row))),
            _e(", ".join(row["blocked_hosts"])), _e(_report.not_run_cell(row))))
    return out + ["</table>"]


def _failures(report):
    found = list(_report.problems(report))
    out = ['<h2 id="failures">Failures and their likely causes</h2>']
    if not found:
        return out + ["<p>None.</p>"]
    out.append('<table class="list" id="failures-table"><tr><th>Host</th><th>Layer</th><th>Check</th><th>Status</th><th>Actual</th>'
               '<th>Likely cause</th><th>Go back to</th></tr>')
    folded = _report.dependents(report)
    for record in found:
        out.append('<tr><td>%s</td><td>L%d</td><td>%s</td><td class="%s">%s</td><td>%s</td><td>%s</td><td>%s</td></tr>' % (
            _e(record["host"]), record["layer"], _e(record["check"]), _pictures.CLASS.get(record["status"], "none"), _e(record["status"]),
            _e(record["actual"] + _report.and_dependents(record, folded)), _e(record["cause"]), _e(record["go_back_to"])))
    return out + ["</table>"]


def _legend(rails, gpudirect=False):
    return ('<p class="legend"><span class="pass">PASS</span><span class="fail">FAIL</span><span class="error">ERROR</span>'
            '<span class="blocked">BLOCKED</span><span class="none">not measured (hover: why)</span>%s</p>' % (
                '<span class="fail">L0</span>a finding on that rail below this layer' + (
                    ' <span class="fail">H181</span>the host-memory run missed on that rail: GPUDirect not compared' if gpudirect else '')
                if rails else
                '<span class="fail">331</span>a slow rank <span class="error">255</span>a rank of a node that failed for its spread'))


def _matrix(matrix):
    out = ['<h2 id="m-%s">%s</h2>' % (_e(matrix["key"]), _e(matrix["title"])), _legend(matrix["key"] != "steps", bool(matrix.get("compared_with"))),
           '<p class="muted">Beside a row: the node&#39;s lowest finding below this layer, what stopped it unless the gate was '
           'lifted%s (hover a cell for each column, the row&#39;s end for the whole of it).</p>' % (
               "; or the node's own Layer 6 result where it failed" if matrix["key"] == "steps" else ""),
           '<div class="units">']
    head = "".join('<th title="%s">%s</th>' % (_e(column), _e(_short(column))) for column in matrix["columns"])
    for unit, rows in matrix["groups"]:
        out.append('<figure class="unit" data-unit="%s"><figcaption>%s <span class="muted">(%d nodes)</span></figcaption>'
                   '<table class="matrix" data-matrix="%s"><thead><tr><th></th>%s</tr></thead><tbody>' % (
                       _e(unit), _e(unit), len(rows), _e(matrix["key"]), head))
        for node, cells, stopped in rows:
            out.append('<tr><th>%s</th>%s<td class="stopped" title="%s">%s</td></tr>' % (_e(node), "".join(
                '<td class="c %s" data-node="%s" data-col="%s" title="%s">%s</td>' % (
                    cell["cls"], _e(node), _e(column), _e(cell["title"]), _e(cell["text"]))
                for column, cell in zip(matrix["columns"], cells)), _e(stopped), _e(stopped)))
        out.append("</tbody></table></figure>")
    return out + ["</div>"]


def _short(column):
    """A rail's column head: its number (mlx5_3 -> 3); the full name in the title."""
    tail = column.rsplit("_", 1)[-1]
    return tail if tail.isdigit() else column


def _bars(bars):
    if not bars:
        return []
    top, median, ratio = bars["top"] or 1.0, bars["median"], bars["ratio"]
    out = ['<h2 id="m-busbw">Layer 5: all-reduce busbw per node, GB/s, against the pod median</h2>',
           '<p class="legend">Dashed: the pod median%s. <span class="fail">&#9660; straggler</span></p>' % (
               " %.1f GB/s; red dashed: %.0f%% of it (pyramid_straggler_ratio)" % (median, 100 * ratio) if median and ratio else ""),
           '<div class="units">']
    stragglers = []
    for unit, row in bars["groups"]:
        out.append('<figure class="unit" data-unit="%s"><figcaption>%s <span class="muted">(%d nodes)</span></figcaption><div class="bars">' % (
            _e(unit), _e(unit), len(row)))
        if median:
            out.append('<div class="line" style="bottom:%.1f%%"></div>' % (100.0 * median / top))
            if ratio:
                out.append('<div class="line floor" style="bottom:%.1f%%"></div>' % (100.0 * ratio * median / top))
        for node_bar in row:
            height = "" if node_bar["value"] is None else ' style="height:%.1f%%"' % (100.0 * node_bar["value"] / top)
            out.append('<div class="bar %s%s" data-node="%s" title="%s"%s></div>' % (
                node_bar["cls"], " straggler" if node_bar.get("straggler") else "", _e(node_bar["node"]), _e(node_bar["title"]), height))
            if node_bar.get("straggler"):
                stragglers.append(node_bar)
        out.append("</div></figure>")
    out.append("</div>")
    if stragglers:
        out.append('<p id="stragglers">Straggler%s: %s</p>' % ("s" if len(stragglers) > 1 else "", "; ".join(
            "<b>%s</b> %s" % (_e(node_bar["node"]), _e(node_bar["title"].split(": ", 1)[-1])) for node_bar in stragglers)))
    return out


def _switches(found, clean):
    out = ['<h2 id="switches">Switches: failing ports</h2>']
    if not found:
        return out + ["<p>%s</p>" % ("%d switches, none failing." % clean if clean else "No switch in this run.")]
    out.append('<table class="list"><tr><th>Switch</th><th>Layer</th><th>Check</th><th>Status</th><th>Ports</th><th>Actual</th>'
               '<th>Likely cause</th></tr>')
    for switch, bad in found:
        for item in bad:
            out.append('<tr data-switch="%s"><td>%s</td><td>L%d</td><td>%s</td><td class="%s">%s</td><td class="chips">%s</td>'
                       '<td>%s</td><td>%s</td></tr>' % (
                           _e(switch), _e(switch), item["layer"], _e(item["check"]), _pictures.CLASS.get(item["status"], "none"),
                           _e(item["status"]), "".join("<span>%s</span>" % _e(port) for port in item["ports"]),
                           _e(item["actual"]), _e(item["cause"])))
    out.append("</table>")
    if clean:
        out.append('<p class="muted">%d other switches: no finding.</p>' % clean)
    return out


def _devices(report):
    out = ['<h2 id="devices">Devices</h2>', '<table class="list"><tr><th>Device</th><th>Type</th><th>Verdict</th><th>Stopped at</th>'
           '<th>PASS</th><th>FAIL</th><th>ERROR</th><th>BLOCKED</th><th>SKIP</th><th>Cause</th></tr>']
    for host, info in sorted(report["hosts"].items()):
        counts = count_statuses(info["checks"])
        cause = info.get("cause") or _report.device_cause(info["checks"]) or {}  # a report.json of before the cause
        out.append('<tr data-device="%s"><td>%s</td><td>%s</td><td class="%s">%s</td><td>%s</td><td>%d</td><td>%d</td><td>%d</td><td>%d</td>'
                   '<td>%d</td><td class="cause">%s</td></tr>' % (
                       _e(host), _e(host), _e(info["device"]), "pass" if info["verdict"] == "GO" else "fail", _e(info["verdict"]),
                       "" if info["stopped_at"] is None else "L%d" % info["stopped_at"],
                       counts[PASS], counts[FAIL], counts[ERROR], counts[BLOCKED], counts[SKIP], _e(cause.get("text"))))
    return out + ["</table>"]
