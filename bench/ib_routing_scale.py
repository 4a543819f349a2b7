"""What the InfiniBand subnet's reads cost the controller on a large pod (issue 36: dump_fts at 512 nodes).

The twin's subnet of a pod of NODES nodes (8 rails: a leaf per rail and scalable unit of 32 nodes, two spines; its
iblinkinfo and dump_fts in the real tools' layouts, twin/pyramid_twin/formats_infiniband.py), each text parsed by the
product's parser (linux_iblinkinfo, linux_dump_fts) and then judged for every node by ib_routing and ib_links, the pod
judges the runner calls once for the pod. Prints each text's size, the CPU seconds of each parse and of each pod
judge over all nodes, and the verdicts' count by status.

Usage: .venv/bin/python bench/ib_routing_scale.py [--nodes 512 ...]

Figures, never pass/fail.
"""

import argparse
import os
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [os.path.join(ROOT, ".collections"), os.path.join(ROOT, "twin")]
# pylint: disable=wrong-import-position
from pyramid_twin import formats, formats_infiniband, model  # noqa: E402  (path set above)
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.parsing import parse  # noqa: E402
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.judging import infiniband  # noqa: E402


def _states(nodes):
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "pod.yml")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write("pod: {nodes: %d, node_defaults: {link_layer: InfiniBand}}\nfaults: []\n" % nodes)
        scenario = model.load_scenario(path)
        return [model.node_state(scenario, name) for name in model.node_names(scenario)]


def _timed(function, *args):
    started = time.process_time()
    result = function(*args)
    return result, time.process_time() - started


def measure(nodes):
    states = _states(nodes)
    switches, cas = formats_infiniband.subnet(states)
    reader = "%s %s" % (states[0]["hostname"], states[0]["rails"][0]["device"])
    links_text = formats_infiniband.render(switches, cas)
    tables_text = formats_infiniband.forwarding_tables(switches, cas, list(formats_infiniband.SPINES), reader)
    links, links_s = _timed(parse, "linux_iblinkinfo", links_text)
    tables, tables_s = _timed(parse, "linux_dump_fts", tables_text)
    expect = {"pyramid_rails": ["mlx5_%d" % rail for rail in range(8)], "pyramid_ib_route_spread_tolerance": 0.5,
              "pyramid_ib_link_width": "4X", "pyramid_rail_rate_gbps": 400}
    facts = {state["hostname"]: {"ib_link_info": links, "ib_routes": tables, "ibstat": parse("linux_ibstat", formats.ibstat(state))}
             for state in states}
    expects = dict.fromkeys(facts, expect)
    figures = {"nodes": nodes, "switches": len(switches), "cas": len(cas),
               "iblinkinfo_mb": len(links_text) / 1e6, "dump_fts_mb": len(tables_text) / 1e6,
               "dump_fts_lines": tables_text.count("\n"), "parse_iblinkinfo_s": links_s, "parse_dump_fts_s": tables_s}
    for check, judge in (("ib_routing", infiniband.ib_routing), ("ib_links", infiniband.ib_links)):
        verdicts, seconds = _timed(judge, facts, expects)
        statuses = {}
        for result in verdicts.values():
            statuses[result["status"]] = statuses.get(result["status"], 0) + 1
        figures[check + "_s"], figures[check + "_verdicts"] = seconds, statuses
    return figures


def main():
    arguments = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    arguments.add_argument("--nodes", type=int, nargs="+", default=[64, 256, 512])
    for nodes in arguments.parse_args().nodes:
        figures = measure(nodes)
        print("%(nodes)4d nodes, %(switches)d switches, %(cas)d CAs: iblinkinfo %(iblinkinfo_mb).1f MB parsed in "
              "%(parse_iblinkinfo_s).2f s; dump_fts %(dump_fts_mb).1f MB, %(dump_fts_lines)d lines, parsed in "
              "%(parse_dump_fts_s).2f s; ib_routing over every node %(ib_routing_s).2f s %(ib_routing_verdicts)s; "
              "ib_links %(ib_links_s).2f s %(ib_links_verdicts)s" % figures)


if __name__ == "__main__":
    main()
