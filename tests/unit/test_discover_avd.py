"""The plan from an AVD fabric's structured configs (run/discover_avd.from_structured_configs, playbooks/discover.yml -e
pyramid_avd_structured_config=DIR, issue 71): the twin's own cabling, addresses and BGP neighbours written as AVD's
<hostname>.yml files give back the twin's plan (pre-flight accepts it); a swapped pair, links to devices the inventory
does not hold and files that are not AVD's are each named, never a traceback."""

import os

import pytest
import yaml

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import fabric_plan
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import discover, discover_avd, discover_files
from ansible_collections.gpufabric.pyramid.tests.unit import discover_exports

from pyramid_twin import model, switch_model  # twin/ on sys.path: tests/unit/conftest.py

RAILS = ["mlx5_%d" % i for i in range(8)]
FIXTURES = os.path.join(os.path.dirname(__file__), "discover_fixtures", "avd")


def _twin(tmp_path):
    path = tmp_path / "scenario.yml"
    path.write_text(yaml.safe_dump({"pod": {"nodes": 4}, "switches": {
        "spines": 2, "nodes_per_leaf": 4, "leaf_os": ["eos", "nxos", "sonic", "cumulus"], "spine_os": ["eos"]}}))
    scenario = model.load_scenario(str(path))
    return switch_model.topology(scenario), model.node_names(scenario)


def _write(where, configs):
    where.mkdir()
    for switch, config in configs.items():
        (where / ("%s.yml" % switch)).write_text(yaml.safe_dump(config, sort_keys=False))
    return str(where)


def _problems(plans, topo, nodes):
    expect = {switch: plans[switch]["vars"] for switch in plans}
    expect.update({node: {"pyramid_rails": RAILS} for node in nodes})
    return fabric_plan.problems(sorted(topo["switches"]), nodes, expect.__getitem__, sorted(expect), True)


def test_the_twins_plan_from_its_structured_configs(tmp_path):
    topo, nodes = _twin(tmp_path)
    configs = {switch: discover_exports.avd_structured_config(topo, switch) for switch in topo["switches"]}
    configs["border-1"] = dict(configs["spine-01"], hostname="border-1")  # a device of the AVD fabric, not of the pod
    path = _write(tmp_path / "structured_configs", configs)
    inventory = dict.fromkeys(list(topo["switches"]) + nodes)
    plans, problems, said = discover_avd.from_structured_configs(path, inventory, list(topo["switches"]), topo["leaves"])
    assert problems == []
    for switch in topo["switches"]:
        wanted = switch_model.inventory_vars(topo, switch)
        assert plans[switch]["vars"]["pyramid_switch_ports"] == sorted(
            wanted["pyramid_switch_ports"], key=lambda e: discover.port_order(e["port"])), switch
        assert plans[switch]["vars"]["pyramid_bgp_neighbors"] == wanted["pyramid_bgp_neighbors"], switch
    assert all(plans[leaf]["vars"]["pyramid_ecmp_paths"] == 2 for leaf in topo["leaves"])
    assert _problems(plans, topo, nodes) == []
    # the EVPN overlay's loopback session is on no cabled link: said, left out of the plan
    assert said[0] == "1 file of devices that are not switches of the inventory left out: border-1.yml"
    assert "leaf1-r0: BGP neighbours on none of its planned uplinks left out: 192.168.255.208 (EVPN-OVERLAY-PEERS)" in said


def test_a_swapped_pair_in_one_switchs_file_is_named_by_preflight(tmp_path):
    """leaf1-r2's file names its two uplinks' far ends swapped; the spines' files say what they are cabled to."""
    topo, nodes = _twin(tmp_path)
    configs = {switch: discover_exports.avd_structured_config(topo, switch) for switch in topo["switches"]}
    ups = [item for item in configs["leaf1-r2"]["ethernet_interfaces"] if item["peer_type"] == "spine"]
    (ups[0]["peer"], ups[0]["peer_interface"]), (ups[1]["peer"], ups[1]["peer_interface"]) = (
        (ups[1]["peer"], ups[1]["peer_interface"]), (ups[0]["peer"], ups[0]["peer_interface"]))
    path = _write(tmp_path / "structured_configs", configs)
    plans, problems, _said = discover_avd.from_structured_configs(
        path, dict.fromkeys(list(topo["switches"]) + nodes), list(topo["switches"]), topo["leaves"])
    assert problems == []
    found = _problems(plans, topo, nodes)
    assert found and all("the two ends of a link disagree" in message for message in found), found
    assert "leaf1-r2 %s -> spine-02 %s, but spine-02 %s -> leaf1-r2 %s: the two ends of a link disagree (a swapped pair in " \
           "the cabling plan)" % (ups[0]["name"], ups[0]["peer_interface"], ups[0]["peer_interface"], ups[1]["name"]) in found


def test_the_fixtures_of_both_avd_forms_and_links_outside_the_inventory():
    """tests/unit/discover_fixtures/avd: leaf-a.yml as AVD 4+ writes it, spine-a.yml (hostname SPINE-A) as AVD 3 did."""
    inventory = {"leaf-a": None, "spine-a": None, "gpu-01": None}
    plans, problems, said = discover_avd.from_structured_configs(FIXTURES, inventory, ["leaf-a", "spine-a"])
    assert problems == []
    assert plans["leaf-a"]["vars"] == {
        "pyramid_switch_ports": [
            {"port": "Ethernet1/1", "peer": "gpu-01", "peer_port": "ens1np0", "role": "host"},
            {"port": "Ethernet49/1", "peer": "spine-a", "peer_port": "Ethernet1/1", "role": "fabric", "ip": "10.200.0.1/31"}],
        # the underlay neighbour's AS from its peer group; the overlay's, the shut one's and the unnumbered one's left out
        "pyramid_bgp_neighbors": [{"address": "10.200.0.0", "remote_as": 65001, "name": "spine-a"}],
        "pyramid_ecmp_paths": 1}
    assert plans["spine-a"]["vars"] == {
        "pyramid_switch_ports": [{"port": "Ethernet1/1", "peer": "leaf-a", "peer_port": "Ethernet49/1", "role": "fabric",
                                  "ip": "10.200.0.0/31"}],
        "pyramid_bgp_neighbors": [{"address": "10.200.0.1", "remote_as": 65101, "name": "leaf-a"}]}
    assert plans["leaf-a"]["notes"][("port", "Ethernet49/1")] == "AVD names it SPINE-A (its short name)"
    assert said == ["leaf-a: 1 link to devices not in the inventory left out: Ethernet2/1 (storage-07)",
                    "leaf-a: BGP neighbours on none of its planned uplinks left out: 192.168.255.1 (EVPN-OVERLAY-PEERS), "
                    "interface Ethernet52/1 (IPv4-UNDERLAY-PEERS)"]
    assert discover_files.coherence(plans, inventory) == []


# (id, {file name: its text}, the problems named: each with its file and its entry)
FAULTY = [
    ("not-yaml", {"leaf-a.yml": "hostname: leaf-a\nethernet_interfaces: [\n"}, ["leaf-a.yml: not YAML: "]),
    ("not-a-mapping", {"leaf-a.yml": "- leaf-a\n"}, [
        "leaf-a.yml: not an AVD structured config (a mapping with hostname, ethernet_interfaces, router_bgp)"]),
    ("interfaces-a-string", {"leaf-a.yml": "hostname: leaf-a\nethernet_interfaces: Ethernet1\n"}, [
        "leaf-a.yml: ethernet_interfaces is neither a list of entries with their name nor a mapping by it"]),
    ("interface-without-name", {"leaf-a.yml": "hostname: leaf-a\nethernet_interfaces:\n- peer: gpu-01\n  peer_interface: ens1np0\n"}, [
        "leaf-a.yml: ethernet_interfaces entry 1 has no name ({'peer': 'gpu-01', 'peer_interface': 'ens1np0'})"]),
    ("bad-address", {"leaf-a.yml": "hostname: leaf-a\nethernet_interfaces:\n- {name: Ethernet9, peer: spine-a, "
                                   "peer_interface: Ethernet1, ip_address: 10.0.0.300/31}\n"}, [
        "leaf-a.yml: ethernet_interfaces Ethernet9: ip_address '10.0.0.300/31' is not an address with its prefix length"]),
    ("neighbour-without-address", {"leaf-a.yml": "hostname: leaf-a\nrouter_bgp:\n  neighbors:\n  - {remote_as: '65001'}\n"}, [
        "leaf-a.yml: router_bgp.neighbors entry 1 has no ip_address ({'remote_as': '65001'})"]),
    ("bad-as", {"leaf-a.yml": "hostname: leaf-a\nrouter_bgp:\n  neighbors:\n  - {ip_address: 10.0.0.0, remote_as: internal}\n"}, [
        "leaf-a.yml: router_bgp.neighbors 10.0.0.0: remote_as 'internal' is no AS number"]),
    ("no-file", {"README.md": "not a config\n"}, [": no <hostname>.yml file of AVD's structured configs in it"]),
]


@pytest.mark.parametrize("files,wanted", [row[1:] for row in FAULTY], ids=[row[0] for row in FAULTY])
def test_faulty_structured_configs_write_nothing_and_name_file_and_entry(tmp_path, files, wanted):
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    plans, problems, said = discover_avd.from_structured_configs(str(tmp_path), {"leaf-a": None, "spine-a": None, "gpu-01": None},
                                                                 ["leaf-a", "spine-a"])
    assert (plans, said) == ({}, [])
    found = [problem.replace(str(tmp_path) + os.sep, "").replace(str(tmp_path), "") for problem in problems]
    assert len(found) == len(wanted) and all(got == want or (want.endswith(": ") and got.startswith(want))
                                             for got, want in zip(found, wanted)), found


def test_a_missing_directory_is_named(tmp_path):
    plans, problems, _said = discover_avd.from_structured_configs(str(tmp_path / "nowhere"), {}, [])
    assert plans == {} and problems[0].startswith("%s: not read: " % (tmp_path / "nowhere"))
