"""The go/no-go report at pod scale: how long the report task takes for 32 to 512 GPU nodes with their switches.

    .venv/bin/python bench/report_scale.py RUN_DIR [--nodes 32 128 512] [--runs 3]

RUN_DIR is a real run directory of validate.yml on the twin (`make demo` writes one under reports/): its devices'
results files are copied round-robin under new names (node-0001 ..., one leaf per rail per 32 nodes, 8 spines), so
every record is a real one, and the report task's work is timed as gpufabric.pyramid.go_no_go does it: build the
report, write report.md, report.html, report.json and junit.xml, the textfile metrics and the baseline. Median of the runs, and
the size of what was written. Prints figures only; nothing passes or fails. Needs no twin.
"""

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [os.path.join(ROOT, ".collections")]

# pylint: disable=wrong-import-position
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog  # noqa: E402
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.report import baseline as _baseline  # noqa: E402
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.report import files as _files, go_no_go as _report, html as _html  # noqa: E402
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.telemetry import export as _export  # noqa: E402

RAILS = 8
NODES_PER_LEAF = 32
SPINES = 8


def _docs(source):
    """The source run's results files by device kind: GPU nodes, leaves and spines."""
    found = {"gpu_node": [], "leaf": [], "spine": []}
    for name in sorted(os.listdir(os.path.join(source, "devices"))):
        with open(os.path.join(source, "devices", name), encoding="utf-8") as handle:
            doc = json.load(handle)
        kind = "gpu_node" if name.startswith("node-") else "spine" if name.startswith("spine") else "leaf"
        found[kind].append(doc)
    return found


def pod(source_docs, nodes, target):
    """Write a pod of ``nodes`` GPU nodes and their switches into ``target``; return its devices by type."""
    names = {"gpu_node": ["node-%04d" % (index + 1) for index in range(nodes)],
             "leaf": ["leaf%d-r%d" % (group + 1, rail) for group in range(-(-nodes // NODES_PER_LEAF)) for rail in range(RAILS)],
             "spine": ["spine%d" % (index + 1) for index in range(SPINES)]}
    os.makedirs(os.path.join(target, "devices"))
    for kind, hosts in names.items():
        docs = source_docs[kind] or source_docs["leaf"]
        for index, host in enumerate(hosts):
            doc = dict(docs[index % len(docs)], host=host)
            with open(os.path.join(target, "devices", host + ".json"), "w", encoding="utf-8") as handle:
                json.dump(doc, handle)
    return {"gpu_node": names["gpu_node"], "switch": names["leaf"] + names["spine"]}


def report_once(catalog, run_dir, devices):
    """What the go_no_go action does with a run's results, end to end."""
    report = _report.build(catalog, run_dir, devices)
    _files.write(report)
    hosts = [host for group in devices.values() for host in group]
    _export.write(report, hosts)
    values, counted = _baseline.figures(report["run_dir"], hosts)
    if values:
        with open(os.path.join(run_dir, "baseline.yml"), "w", encoding="utf-8") as handle:
            handle.write(_baseline.text(values, counted, os.path.basename(run_dir), report["verdict"]))
    return report


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("run_dir", help="a real run directory of validate.yml on the twin")
    parser.add_argument("--nodes", type=int, nargs="+", default=[32, 128, 512])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    catalog = _catalog.load_catalog()
    source = _docs(args.run_dir)
    print("%6s %9s %8s %10s %12s %14s %14s %10s" % (
        "nodes", "switches", "records", "median s", "ms per device", "report.json kB", "report.html kB", "html s"))
    for nodes in args.nodes:
        times, html_times = [], []
        for _run in range(args.runs):
            work = tempfile.mkdtemp()
            try:
                devices = pod(source, nodes, work)
                start = time.perf_counter()
                report = report_once(catalog, work, devices)
                times.append(time.perf_counter() - start)
                size = os.path.getsize(os.path.join(work, "report.json")) / 1024.0
                html_size = os.path.getsize(os.path.join(work, "report.html")) / 1024.0
                start = time.perf_counter()
                _html.render(report)  # its share of the report task, alone
                html_times.append(time.perf_counter() - start)
            finally:
                shutil.rmtree(work)
        count = len(devices["gpu_node"]) + len(devices["switch"])
        median = statistics.median(times)
        records = sum(report["summary"]["checks"].values())
        print("%6d %9d %8d %10.2f %12.1f %14.0f %14.0f %10.2f" % (
            nodes, len(devices["switch"]), records, median, 1000.0 * median / count, size, html_size, statistics.median(html_times)))


if __name__ == "__main__":
    main()
