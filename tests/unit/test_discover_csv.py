"""The plan from a cabling CSV (run/discover_files.from_cabling_csv, playbooks/discover.yml -e pyramid_cabling_csv=...,
issue 71): the twin's own cabling written as the vendor's cable list gives back the twin's cabling plan, and a CSV with
one swapped pair is named by pre-flight's coherence check (core/fabric_plan.py) before any host is touched."""

import csv
import io

import yaml

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import fabric_plan
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import discover, discover_files

from pyramid_twin import model, switch_model  # twin/ on sys.path: tests/unit/conftest.py

RAILS = ["mlx5_%d" % i for i in range(8)]


def _twin(tmp_path):
    path = tmp_path / "scenario.yml"
    path.write_text(yaml.safe_dump({"pod": {"nodes": 4}, "switches": {
        "spines": 2, "nodes_per_leaf": 4, "leaf_os": ["eos", "nxos", "sonic", "cumulus"], "spine_os": ["eos"]}}))
    scenario = model.load_scenario(str(path))
    topo = switch_model.topology(scenario)
    return topo, model.node_names(scenario)


def _csv(rows, columns=("switch", "port", "peer", "peer_port", "role")):
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    writer.writerows(rows)
    return out.getvalue()


def _rows(topo, both_ends=True):
    """The twin's cabling as a vendor's list: one row per switch port (both ends of a switch-to-switch cable), or one
    row per cable (its leaf end)."""
    rows = []
    for switch in topo["switches"]:
        if not both_ends and switch in topo["spines"]:
            continue
        rows += [(switch, e["port"], e["peer"], e["peer_port"], "") for e in switch_model.inventory_vars(topo, switch)["pyramid_switch_ports"]]
    return rows


def _uplinks_to(topo, spine):
    """(leaf, its port) of every uplink to ``spine``, in the spine's port order."""
    ports = switch_model.inventory_vars(topo, spine)["pyramid_switch_ports"]
    return [(e["peer"], e["peer_port"]) for e in sorted(ports, key=lambda e: discover.port_order(e["port"]))]


def _problems(plans, topo, nodes):
    expect = {switch: plans[switch]["vars"] for switch in plans}
    expect.update({node: {"pyramid_rails": RAILS} for node in nodes})
    return fabric_plan.problems(sorted(topo["switches"]), nodes, expect.__getitem__, sorted(expect), True)


def test_the_twins_cabling_from_a_csv_of_every_port_and_of_every_cable(tmp_path):
    topo, nodes = _twin(tmp_path)
    inventory = dict.fromkeys(list(topo["switches"]) + nodes)
    for both_ends in (True, False):
        plans, problems = discover_files.from_cabling_csv(_csv(_rows(topo, both_ends)), inventory, list(topo["switches"]), topo["leaves"])
        assert problems == []
        for switch in topo["switches"]:
            wanted = sorted(({k: v for k, v in e.items() if k != "ip"} for e in switch_model.inventory_vars(topo, switch)["pyramid_switch_ports"]),
                            key=lambda e: discover.port_order(e["port"]))
            assert plans[switch]["vars"]["pyramid_switch_ports"] == wanted, (both_ends, switch)
        assert all(plans[leaf]["vars"]["pyramid_ecmp_paths"] == 2 for leaf in topo["leaves"])
        assert _problems(plans, topo, nodes) == []
        noted = [note for switch in topo["spines"] for note in plans[switch]["notes"].values()]
        # a cable listed once: each spine's row comes from its leaf's, and says so
        assert noted == ([] if both_ends else ["from the row of %s %s (the cable listed once)" % (leaf, port)
                                               for spine in topo["spines"] for leaf, port in _uplinks_to(topo, spine)])


def test_a_swapped_pair_in_the_csv_is_named_by_preflight(tmp_path):
    topo, nodes = _twin(tmp_path)
    rows = _rows(topo)
    # leaf1-r2's two uplinks, their peers swapped in the list (the spines' rows as cabled)
    ups = [i for i, row in enumerate(rows) if row[0] == "leaf1-r2" and row[2].startswith("spine")]
    first, second = rows[ups[0]], rows[ups[1]]
    rows[ups[0]], rows[ups[1]] = first[:2] + second[2:], second[:2] + first[2:]
    inventory = dict.fromkeys(list(topo["switches"]) + nodes)
    plans, problems = discover_files.from_cabling_csv(_csv(rows), inventory, list(topo["switches"]), topo["leaves"])
    assert problems == []
    found = _problems(plans, topo, nodes)
    assert found and all("the two ends of a link disagree" in message for message in found), found
    assert any(message.startswith("leaf1-r2 %s -> %s %s, but %s %s -> leaf1-r2 %s" % (
        first[1], second[2], second[3], second[2], second[3], second[1])) for message in found), found


def test_a_faulty_csv_writes_nothing_and_names_each_line():
    inventory = {"leaf-a": None, "spine-a": None, "node-1.example": None}
    text = _csv([("leaf-a", "Ethernet1", "node-1", "ens1np0", ""),                 # node-1: node-1.example's short name
                 ("leaf-x", "Ethernet2", "node-1", "ens2np0", ""),                 # no such switch
                 ("leaf-a", "Ethernet1", "node-1", "ens1np0", ""),                 # the same port again
                 ("leaf-a", "Ethernet3", "spine-a", "Ethernet1", "uplink"),        # no such role
                 ("leaf-a", "", "spine-a", "Ethernet1", "")])                      # no port
    plans, problems = discover_files.from_cabling_csv(text, inventory, ["leaf-a", "spine-a"])
    assert plans == {}
    assert problems == ["line 3: 'leaf-x' is not a switch of the inventory", "line 4: leaf-a Ethernet1 listed twice",
                        "line 5: role 'uplink' is neither host nor fabric", "line 6: a row needs its switch, port and peer"]
    assert discover_files.from_cabling_csv("switch,port,peer\nleaf-a,Ethernet1,node-1\n", inventory, ["leaf-a"]) == (
        {}, ["the header has no column peer_port (it names switch, port, peer, peer_port[, role][, ip])"])


def test_a_csv_with_addresses_and_a_peer_outside_the_inventory():
    inventory = {"leaf-a": None, "spine-a": None, "node-1.example": None}
    text = _csv([("leaf-a", "Ethernet1", "node-1", "ens1np0", "", ""),
                 ("leaf-a", "Ethernet9", "spine-a", "Ethernet1", "", "10.9.0.1/31"),
                 ("leaf-a", "Ethernet2", "storage-7", "eth0", "", "")], columns=("switch", "port", "peer", "peer_port", "role", "ip"))
    plans, problems = discover_files.from_cabling_csv(text, inventory, ["leaf-a", "spine-a"])
    assert problems == []
    assert plans["leaf-a"]["vars"] == {"pyramid_switch_ports": [
        {"port": "Ethernet1", "peer": "node-1.example", "peer_port": "ens1np0", "role": "host"},
        {"port": "Ethernet2", "peer": "storage-7", "peer_port": "eth0", "role": "host"},
        {"port": "Ethernet9", "peer": "spine-a", "peer_port": "Ethernet1", "role": "fabric", "ip": "10.9.0.1/31"}],
        "pyramid_ecmp_paths": 1}
    assert plans["spine-a"]["vars"]["pyramid_switch_ports"] == [{"port": "Ethernet1", "peer": "leaf-a", "peer_port": "Ethernet9", "role": "fabric"}]
    assert plans["leaf-a"]["notes"][("port", "Ethernet2")].startswith("NOT IN THE INVENTORY")
    text = discover_files.render("leaf-a", plans["leaf-a"], "from the cabling CSV cabling.csv")
    assert "  - {port: Ethernet2, peer: storage-7, peer_port: eth0, role: host}  # NOT IN THE INVENTORY" in text
    assert yaml.safe_load(text) == plans["leaf-a"]["vars"]
    # pre-flight names the peer outside the inventory (core/fabric_plan.py)
    assert any("its peer storage-7 is not a host of the inventory" in message
               for message in discover_files.coherence(plans, inventory)), discover_files.coherence(plans, inventory)
