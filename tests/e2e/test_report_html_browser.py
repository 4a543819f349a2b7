"""report.html of the demo's run (issue 39), opened in a real headless browser (Debian's Chromium, tests/e2e/headless.py):
what a person sees. The default scenario's faulty rail (node-028's mlx5_3 at 200G), slow node (node-012, the all-reduce
straggler) and slow rank (node-023's rank 5) show in red in their matrices, laid out on the page; healthy cells green."""

import os

import pytest

from headless import Browser

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.report.go_no_go import problems

pytestmark = [pytest.mark.twin, pytest.mark.slow]
RED, GREEN = "rgb(229, 83, 75)", "rgb(169, 223, 179)"  # report/html.py's .fail and .pass


def _seen(browser, selector):
    """The element's laid-out box and colour: shown means a box of its own, inside the page's width."""
    return browser.evaluate("""(() => {
        const found = document.querySelector(%r);
        if (!found) return null;
        const box = found.getBoundingClientRect(), style = getComputedStyle(found);
        return {width: box.width, height: box.height, left: box.left, right: box.right, text: found.textContent.trim(),
                colour: style.backgroundColor, shown: style.visibility === "visible" && style.display !== "none",
                title: found.getAttribute("title"), pageWidth: document.documentElement.scrollWidth};
    })()""" % selector)


def _visible(seen):
    return seen and seen["shown"] and seen["width"] > 5 and seen["height"] > 5 and 0 <= seen["left"] and seen["right"] <= seen["pageWidth"]


@pytest.fixture(scope="module")
def page(demo_pod):
    path = os.path.join(demo_pod.run_dirs[-1], "report.html")
    assert os.path.exists(path), "the demo's run wrote no report.html"
    with Browser() as browser:
        browser.open(path)
        yield browser


def test_the_verdict_shows_as_the_report_says(page, demo_pod):
    seen = _seen(page, "#verdict")
    assert _visible(seen) and seen["text"] == demo_pod.report["verdict"] == "NO-GO"
    assert seen["colour"] == "rgb(207, 34, 46)"
    # one row a failure, as report.md's (a header row besides)
    assert page.evaluate("document.querySelectorAll('#failures-table tr').length") == 1 + len(list(problems(demo_pod.report)))


@pytest.mark.parametrize("matrix", ["rdma", "gpudirect", "ping"])
def test_the_faulty_rail_is_red_on_every_rail_matrix_and_a_healthy_one_green(page, matrix):
    faulty = _seen(page, '[data-matrix="%s"] td[data-node="node-028"][data-col="mlx5_3"]' % matrix)
    assert _visible(faulty) and faulty["colour"] == RED and faulty["text"] == "L0"
    assert "mlx5_3/1 at 200G" in faulty["title"]
    healthy = _seen(page, '[data-matrix="%s"] td[data-node="node-001"][data-col="mlx5_3"]' % matrix)
    assert _visible(healthy) and healthy["colour"] == GREEN
    if matrix != "ping":
        assert 350 <= float(healthy["text"]) <= 400  # Gb/s: the twin's 400G rail
    # node-028's other rails were not measured (it stopped at Layer 0): grey, never green
    other = _seen(page, '[data-matrix="%s"] td[data-node="node-028"][data-col="mlx5_0"]' % matrix)
    assert other["colour"] not in (GREEN, RED) and "not run" in other["title"]


def test_the_straggler_is_the_red_bar_under_the_pod_median(page):
    slow, healthy = _seen(page, '.bar[data-node="node-012"]'), _seen(page, '.bar[data-node="node-001"]')
    assert _visible(slow) and _visible(healthy)
    assert slow["colour"] == RED and healthy["colour"] == GREEN
    assert slow["height"] < 0.7 * healthy["height"]  # 60% of the median
    assert "straggler" in page.evaluate("document.querySelector('.bar[data-node=\"node-012\"]').className")
    assert "node-012" in _seen(page, "#stragglers")["text"]


def test_the_slow_rank_is_red_in_its_node_row(page):
    slow = _seen(page, '[data-matrix="steps"] td[data-node="node-023"][data-col="r5"]')
    assert _visible(slow) and slow["colour"] == RED and "slow rank" in slow["title"]
    assert _seen(page, '[data-matrix="steps"] td[data-node="node-023"][data-col="r4"]')["colour"] == GREEN


def test_each_failing_switch_port_is_listed(page):
    rows = page.evaluate("[...document.querySelectorAll('tr[data-switch]')].map(r => r.textContent)")
    assert any("leaf1-r3" in row and "swp28" in row and "link_status" in row for row in rows)
    assert any("leaf1-r7" in row and "swp26" in row and "pfc_idle" in row for row in rows)
