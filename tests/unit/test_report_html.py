"""report.html (report/pictures.py, report/html.py) as data tables: what each cell, bar and row of the pictures says,
from records as the judges leave them (their figures in ``detail``); a page that needs nothing outside itself and
escapes what tools print; the scalable units of a 512-node pod. The page in a real browser: tests/e2e/test_report_html_browser.py."""

import re
from html.parser import HTMLParser

import pytest

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog, results as _results
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.report import go_no_go as _report, html as _html, pictures as _pictures

RAILS = ["mlx5_0", "mlx5_1"]


def rec(check, status, layer, actual="", **extra):
    return dict({"host": "node", "layer": layer, "check": check, "title": check, "row": check, "status": status, "expected": "",
                 "actual": actual or "%s %s" % (check, status), "command": "", "cause": "%s cause" % check if status in ("FAIL", "ERROR") else None,
                 "go_back_to": None}, **extra)


def rails(check, layer, figures):
    """A rail_mesh record: {rail: (status, figures)}."""
    statuses = {status for status, _figures in figures.values()}
    status = "FAIL" if "FAIL" in statuses else "ERROR" if "ERROR" in statuses else "PASS"
    return rec(check, status, layer, detail={"rails": {rail: dict(values, status=s, cause="rail" if s == "FAIL" else None)
                                                       for rail, (s, values) in figures.items()}})


def report_of(*nodes, switches=()):
    """nodes: (name, [records]); every GPU node in unit su1 with RAILS."""
    hosts = {name: {"device": "gpu_node", "verdict": "GO", "stopped_at": None, "checks": checks, "rails": RAILS, "unit": "su1"}
             for name, checks in nodes}
    hosts.update({name: {"device": "switch", "verdict": "GO", "stopped_at": None, "checks": checks} for name, checks in switches})
    return {"hosts": hosts}


HEALTHY_RDMA = rails("rdma_write_bw", 4, {"mlx5_0": ("PASS", {"gbps": 391.6}), "mlx5_1": ("PASS", {"gbps": 390.2})})
SLOW_RAIL = rails("rdma_write_bw", 4, {"mlx5_0": ("PASS", {"gbps": 391.6}), "mlx5_1": ("FAIL", {"gbps": 181.0})})
RATE_200G = rec("rails_rate", "FAIL", 0, detail={"rails": {"mlx5_1": {"status": "FAIL", "said": "mlx5_1/1 at 200G"}}})
NOT_RUN = rec("rdma_write_bw", "SKIP", 4, actual="not run: blocked at layer 0 (rails_rate)")
BLOCKED = rec("link_status", "BLOCKED", 1, blocked_by=[{"switch": "leaf1-r1", "check": "link_status", "status": "FAIL", "ports": ["swp28"]}])
LOSSY = rails("rail_ping", 2, {"mlx5_0": ("PASS", {"rtt_ms": 0.011, "loss_percent": 0.0}),
                               "mlx5_1": ("FAIL", {"rtt_ms": 0.012, "loss_percent": 33.3})})

# name, node's records, matrix key, rail, (text, class), words in the cell's title, the row's note
CELLS = [
    ("a healthy rail shows its lowest Gb/s", [HEALTHY_RDMA], "rdma", "mlx5_1", ("390", "pass"), ["390.2 Gb/s", "PASS"], ""),
    ("a slow rail: its figure in red, with the cause key", [SLOW_RAIL], "rdma", "mlx5_1", ("181", "fail"), ["181.0 Gb/s", "(rail)"], ""),
    ("a rail at 200G at Layer 0 shows on the Layer 4 matrix", [RATE_200G, NOT_RUN], "rdma", "mlx5_1", ("L0", "fail"),
     ["rails_rate", "mlx5_1/1 at 200G"], "L0 rails_rate FAIL"),
    ("the node's other rail: not measured, saying why", [RATE_200G, NOT_RUN], "rdma", "mlx5_0", ("", "none"),
     ["not run: blocked at layer 0 (rails_rate)"], "L0 rails_rate FAIL"),
    ("a node blocked by a switch port names it beside the row", [BLOCKED, NOT_RUN], "rdma", "mlx5_0", ("", "none"), ["not run"],
     "L1 blocked by leaf1-r1 swp28"),
    ("loss shows as a percentage", [LOSSY], "ping", "mlx5_1", ("33.3%", "fail"), ["loss 33.3%", "rtt avg 0.012 ms"], ""),
    ("a clean rail shows its round trip in microseconds", [LOSSY], "ping", "mlx5_0", ("11", "pass"), ["rtt avg 0.011 ms"], ""),
    ("a rail the passing record does not name was not measured: grey, never green",
     [rails("rdma_gpudirect_bw", 4, {"mlx5_0": ("PASS", {"gbps": 385.0})}), HEALTHY_RDMA], "gpudirect", "mlx5_1", ("", "none"),
     ["not measured on this rail"], ""),
    ("GPUDirect on a rail whose host-memory run missed shows that miss, not a pass",
     [rails("rdma_gpudirect_bw", 4, {"mlx5_0": ("PASS", {"gbps": 385.0})}), SLOW_RAIL], "gpudirect", "mlx5_1", ("H181", "fail"),
     ["not compared: rdma_write_bw FAIL 181.0 Gb/s"], ""),
    ("an unreadable run is an ERROR cell, never green", [rails("rdma_write_bw", 4, {"mlx5_0": ("ERROR", {}), "mlx5_1": ("PASS", {"gbps": 390.0})})],
     "rdma", "mlx5_0", ("ERROR", "error"), ["ERROR", "no figure"], ""),
]


@pytest.mark.parametrize("name, records, key, rail, shown, words, note", CELLS, ids=[row[0] for row in CELLS])
def test_rail_cell(name, records, key, rail, shown, words, note):  # pylint: disable=unused-argument,too-many-arguments
    # beside a healthy node measured on both matrices: a picture with no figure at all is not drawn (the next test)
    report = report_of(("node-001", records), ("node-002", [HEALTHY_RDMA, LOSSY, dict(HEALTHY_RDMA, check="rdma_gpudirect_bw")]))
    matrices = {matrix["key"]: matrix for matrix in _pictures.rail_matrices(report)}
    matrix = matrices[key]
    assert matrix["columns"] == RAILS
    [(unit, [(node, cells, stopped), _healthy])] = matrix["groups"]
    cell = cells[RAILS.index(rail)]
    assert (unit, node, (cell["text"], cell["cls"]), stopped) == ("su1", "node-001", shown, note)
    assert all(word in cell["title"] for word in words), cell["title"]


def test_no_matrix_without_its_check_or_without_a_figure():
    assert not _pictures.rail_matrices(report_of(("node-001", [RATE_200G])))
    # check mode, a lone node: every rail's record a SKIP, nothing measured: no grey picture
    assert not _pictures.rail_matrices(report_of(("node-001", [rec("rdma_write_bw", "SKIP", 4, actual="not run: check mode")])))
    assert _pictures.rank_matrix(report_of(("node-001", [RATE_200G]))) is None
    assert _pictures.busbw_bars(report_of(("node-001", [RATE_200G]))) is None


def training(status, rank_ms, slow=()):
    return rec("training_stable", status, 6, detail={"timed": "forward", "rank_ms": rank_ms, "median_ms": 255.0, "slow_ranks": list(slow), "ratio": 0.9})


def test_the_slow_rank_is_red_and_a_node_that_stopped_says_where():
    report = report_of(("node-001", [training("PASS", {"0": 255.0, "1": 255.4})]),
                       ("node-002", [training("FAIL", {"0": 255.0, "1": 331.4}, slow=[1])]),
                       ("node-003", [RATE_200G, rec("training_stable", "SKIP", 6, actual="not run: blocked at layer 0 (rails_rate)")]))
    matrix = _pictures.rank_matrix(report)
    assert matrix["columns"] == ["r0", "r1", "CV"] and "forward" in matrix["title"]
    rows = {node: (cells, stopped) for node, cells, stopped in matrix["groups"][0][1]}
    assert [(c["text"], c["cls"]) for c in rows["node-001"][0]][:2] == [("255", "pass"), ("255", "pass")]
    assert [(c["text"], c["cls"]) for c in rows["node-002"][0]][:2] == [("255", "pass"), ("331", "fail")]
    assert "130% of the node's median of ranks 255.0 ms (slow rank)" in rows["node-002"][0][1]["title"]
    assert [c["cls"] for c in rows["node-003"][0]] == ["none", "none", "none"] and rows["node-003"][1] == "L0 rails_rate FAIL"


def test_a_node_that_failed_for_its_spread_is_not_drawn_green():
    """CV over the limit, too many slow steps or the baseline: no slow rank to mark, so its ranks are orange, its CV red
    and the row says why."""
    unsteady = dict(training("FAIL", {"0": 255.0, "1": 256.0}), actual="CV 6.1% (rank 1), median step 850.0 ms over 2 ranks")
    unsteady["detail"].update(cv=0.061, max_cv=0.05)
    steady = training("PASS", {"0": 255.0, "1": 255.4})
    steady["detail"].update(cv=0.009, max_cv=0.05)
    matrix = _pictures.rank_matrix(report_of(("node-001", [steady]), ("node-002", [unsteady])))
    assert matrix["columns"] == ["r0", "r1", "CV"]
    rows = {node: (cells, note) for node, cells, note in matrix["groups"][0][1]}
    assert [(c["text"], c["cls"]) for c in rows["node-001"][0]] == [("255", "pass"), ("255", "pass"), ("0.9%", "pass")]
    assert [(c["text"], c["cls"]) for c in rows["node-002"][0]] == [("255", "error"), ("256", "error"), ("6.1%", "fail")]
    assert rows["node-002"][1] == "L6 CV 6.1% (rank 1), median step 850.0 ms over 2 ranks" and rows["node-001"][1] == ""


def busbw(status, value, median, straggler=False):
    detail = {"busbw": value, "pod_median": median, "size": 4294967296, "ratio": 0.9}
    if straggler:
        detail["straggler"] = True
    return rec("nccl_node_busbw", status, 5, actual="%.1f GB/s" % value, detail=detail)


def test_the_straggler_is_marked_against_the_pod_median():
    report = report_of(("node-001", [busbw("PASS", 360.0, 360.0)]), ("node-002", [busbw("FAIL", 216.0, 360.0, straggler=True)]),
                       ("node-003", [rec("nccl_node_busbw", "SKIP", 5, actual="not run: blocked at layer 0 (gpudirect)")]))
    bars = _pictures.busbw_bars(report)
    assert (bars["median"], bars["ratio"], bars["top"]) == (360.0, 0.9, 360.0)
    row = {node_bar["node"]: node_bar for node_bar in bars["groups"][0][1]}
    assert (row["node-002"]["cls"], row["node-002"]["straggler"]) == ("fail", True)
    assert row["node-003"]["value"] is None and "blocked at layer 0" in row["node-003"]["title"]
    page = _html.render(dict(_minimal(), **report))
    assert re.search(r'<div class="bar fail straggler" data-node="node-002"[^>]*style="height:60.0%"', page)
    assert '<p id="stragglers">Straggler: <b>node-002</b>' in page


def test_each_switch_lists_its_failing_ports():
    report = report_of(("node-001", [HEALTHY_RDMA]), switches=[
        ("leaf1-r3", [rec("link_status", "FAIL", 1, actual="swp28 up at 200G, want 400G", detail={"ports": ["swp28"], "device": False})]),
        ("leaf1-r4", [rec("link_status", "PASS", 1)])])
    found, clean = _pictures.switch_ports(report)
    assert clean == 1 and found == [("leaf1-r3", [{"check": "link_status", "layer": 1, "status": "FAIL", "ports": ["swp28"],
                                                   "actual": "swp28 up at 200G, want 400G", "cause": "link_status cause"}])]


class Tags(HTMLParser):
    """Every tag name, every attribute that loads something, and the style sheet's text, as a browser parses them."""

    def __init__(self):
        super().__init__()
        self.names, self.loading, self.style, self._in_style = set(), [], "", False

    def handle_starttag(self, tag, attrs):
        self.names.add(tag)
        self.loading += [(tag, name, value) for name, value in attrs if name in ("src", "href", "srcset", "action", "data", "poster")
                         and not (name == "href" and value.startswith("#"))]  # a link within the page loads nothing
        self._in_style = tag == "style"

    def handle_endtag(self, tag):
        self._in_style = False

    def handle_data(self, data):
        if self._in_style:
            self.style += data


def _minimal():
    return {"verdict": "NO-GO", "run_dir": "/tmp/run", "generated_at": "2026-11-28T00:00:00+00:00", "checklist": [],
            "summary": {"hosts": 1, "go": 0, "no_go": 1, "checks": {}}, "layers_in_catalog": [0]}


def test_the_page_needs_nothing_outside_itself_and_escapes_what_tools_print():
    hostile = '<script>alert(1)</script><img src="http://example.com/x.png"> & "quotes"'
    report = dict(_minimal(), **report_of(("node-001", [rec("gpudirect", "FAIL", 0, actual=hostile), SLOW_RAIL]),
                                          switches=[("leaf1", [rec("link_status", "FAIL", 1, actual=hostile, detail={"ports": ['<b>swp1</b>']})])]))
    page = _html.render(report)
    assert "<script" not in page and "<img" not in page and "<b>swp1</b>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "&lt;b&gt;swp1&lt;/b&gt;" in page
    # nothing fetched: no tag that loads, no attribute that points anywhere, no import or url() in the style (the
    # Content-Security-Policy says the same to the browser)
    tags = Tags()
    tags.feed(page)
    assert not tags.loading and not {"script", "img", "link", "iframe", "object"} & tags.names
    assert "@import" not in tags.style and "url(" not in tags.style
    assert "default-src 'none'" in page
    assert '<span class="verdict nogo" id="verdict">NO-GO</span>' in page
    assert '<a href="#m-rdma">L4 ib_write_bw</a>' in page and 'href="#m-ping"' not in page  # no ping result: no picture


def test_units_follow_the_whole_pod_not_the_limited_run(tmp_path):
    """A --limit'ed run of node-3..node-6 in a pod of 2-node units: the units of the whole pod (the straggler hunt's),
    with pyramid_scalable_unit_nodes read from every node's expectations (core/catalog.expectation_names)."""
    pod = ["n%d" % index for index in range(1, 9)]
    for node in pod[2:6]:
        _results.save(str(tmp_path), {"host": node, "results": [dict(rec("rdma_write_bw", "PASS", 4), host=node)], "facts": {},
                                      "expect": {"pyramid_rails": RAILS, "pyramid_scalable_unit_nodes": 2}})
    catalog = {"checks": [{"id": "rdma_write_bw", "layer": 4, "row": "rdma_bw", "device": "gpu_node", "title": "t"}],
               "rows": [{"id": "rdma_bw", "layer": 4, "title": "ib_write_bw"}], "expectations": {}}
    report = _report.build(catalog, str(tmp_path), {"gpu_node": pod[2:6]}, pod_order=pod)
    assert {node: report["hosts"][node]["unit"] for node in pod[2:6]} == {"n3": "su2", "n4": "su2", "n5": "su3", "n6": "su3"}
    assert "pyramid_scalable_unit_nodes" in _catalog.expectation_names([], _catalog.load_catalog())


def test_a_512_node_pod_is_drawn_in_its_scalable_units(tmp_path):
    """go_no_go.build places each node in its unit (pyramid_scalable_unit, else 32 to a unit in inventory order)."""
    nodes = ["node-%04d" % index for index in range(1, 513)]
    for index, node in enumerate(nodes):
        expect = {"pyramid_rails": ["mlx5_%d" % rail for rail in range(8)], "pyramid_scalable_unit_nodes": 32}
        if index >= 480:
            expect["pyramid_scalable_unit"] = "east"  # named units win over places
        records = [dict(rec("rdma_write_bw", "PASS", 4, detail={"rails": {"mlx5_%d" % r: {"status": "PASS", "gbps": 391.0} for r in range(8)}}),
                        host=node)]
        _results.save(str(tmp_path), {"host": node, "results": records, "facts": {}, "expect": expect})
    catalog = {"checks": [{"id": "rdma_write_bw", "layer": 4, "row": "rdma_bw", "device": "gpu_node", "title": "t"}],
               "rows": [{"id": "rdma_bw", "layer": 4, "title": "ib_write_bw"}], "expectations": {}}
    report = _report.build(catalog, str(tmp_path), {"gpu_node": nodes})
    [matrix] = _pictures.rail_matrices(report)
    units = [(unit, len(rows)) for unit, rows in matrix["groups"]]
    assert units == [("su%d" % k, 32) for k in range(1, 16)] + [("east", 32)]
    page = _html.render(report)
    assert page.count('<figure class="unit"') == 16 and page.count('data-matrix="rdma"') == 16
    assert page.count('class="c pass"') == 512 * 8
