"""Rounds of the rail mesh (Layer 2 ping, Layer 4 ib_write_bw) by pod size: the plan only, no runs.

Usage: .venv/bin/python bench/rail_mesh_rounds.py [--json]. Writes the table behind bench/rail_mesh.md.
"""

import json
import os
import sys

sys.path[:0] = [os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), ".collections")]

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import rail_rounds  # noqa: E402

RAILS = 8


def figures(count):
    nodes = ["node-%03d" % i for i in range(1, count + 1)]
    rounds = rail_rounds.plan_rounds(nodes)
    runs = [rail_rounds.runs_of(pairs, list(range(RAILS))) for pairs in rounds]
    per_node = max(sum(1 for run in round_runs if run["client"] == node) for round_runs in runs for node in nodes)
    partners = [sum(node in pair for pairs in rounds for pair in pairs) for node in nodes]
    return {"nodes": count, "rounds": len(rounds), "runs": sum(len(r) for r in runs),
            "clients_per_node_per_round": per_node, "servers_per_node_per_round": per_node,
            "partners_min": min(partners), "partners_max": max(partners)}


def main():
    rows = [figures(count) for count in (8, 32, 128, 512)]
    if "--json" in sys.argv:
        print(json.dumps(rows, indent=1))
        return
    print("| nodes | rounds | runs (both ways, 8 rails) | clients per node per round | partners per node |")
    print("|---|---|---|---|---|")
    for row in rows:
        print("| %(nodes)d | %(rounds)d | %(runs)d | %(clients_per_node_per_round)d | %(partners_min)d-%(partners_max)d |" % row)


if __name__ == "__main__":
    main()
