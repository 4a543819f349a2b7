"""The plan from a NetBox export (run/discover_netbox.from_export, playbooks/discover.yml -e pyramid_netbox_export=...,
issue 71): the twin's own cabling and addresses as NetBox's API answers (both cable forms) give back the twin's plan,
which pre-flight's coherence check (core/fabric_plan.py) accepts; a swapped pair, cables to devices the inventory does
not hold and exports that are not NetBox's are each named, never a traceback."""

import json
import os

import pytest
import yaml

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import fabric_plan
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import discover, discover_files, discover_netbox
from ansible_collections.gpufabric.pyramid.tests.unit import discover_exports

from pyramid_twin import model, switch_model  # twin/ on sys.path: tests/unit/conftest.py

RAILS = ["mlx5_%d" % i for i in range(8)]
FIXTURES = os.path.join(os.path.dirname(__file__), "discover_fixtures")


def _twin(tmp_path):
    path = tmp_path / "scenario.yml"
    path.write_text(yaml.safe_dump({"pod": {"nodes": 4}, "switches": {
        "spines": 2, "nodes_per_leaf": 4, "leaf_os": ["eos", "nxos", "sonic", "cumulus"], "spine_os": ["eos"]}}))
    scenario = model.load_scenario(str(path))
    return switch_model.topology(scenario), model.node_names(scenario)


def _export(where, cables, addresses=None):
    where.mkdir(exist_ok=True)
    (where / "cables.json").write_text(json.dumps(cables))
    if addresses is not None:
        (where / "ip-addresses.json").write_text(json.dumps(addresses))
    return str(where)


def _problems(plans, topo, nodes):
    expect = {switch: plans[switch]["vars"] for switch in plans}
    expect.update({node: {"pyramid_rails": RAILS} for node in nodes})
    return fabric_plan.problems(sorted(topo["switches"]), nodes, expect.__getitem__, sorted(expect), True)


@pytest.mark.parametrize("v2", [False, True], ids=["netbox-3.3-and-later", "netbox-2.x-to-3.2"])
def test_the_twins_cabling_and_addresses_from_netbox(tmp_path, v2):
    topo, nodes = _twin(tmp_path)
    inventory = dict.fromkeys(list(topo["switches"]) + nodes)
    path = _export(tmp_path / "netbox", *discover_exports.netbox_export(topo, v2=v2))
    plans, problems, said = discover_netbox.from_export(path, inventory, list(topo["switches"]), topo["leaves"])
    assert problems == [] and said == []
    for switch in topo["switches"]:
        wanted = switch_model.inventory_vars(topo, switch)
        assert plans[switch]["vars"]["pyramid_switch_ports"] == sorted(
            wanted["pyramid_switch_ports"], key=lambda e: discover.port_order(e["port"])), switch
        # NetBox's cables and addresses hold no AS: the neighbours' addresses and names, remote_as left to the operator
        assert plans[switch]["vars"]["pyramid_bgp_neighbors"] == [
            {"address": n["address"], "name": n["name"]} for n in wanted["pyramid_bgp_neighbors"]], switch
    assert all(plans[leaf]["vars"]["pyramid_ecmp_paths"] == 2 for leaf in topo["leaves"])
    assert _problems(plans, topo, nodes) == []
    # the written file reads back as the plan
    text = discover_files.render("leaf1-r0", plans["leaf1-r0"], "from the NetBox export %s" % path)
    assert yaml.safe_load(text) == plans["leaf1-r0"]["vars"]
    assert "# remote_as of each BGP neighbour: not in NetBox's" in text


def test_the_cables_file_alone_gives_the_cabling_without_addresses(tmp_path):
    topo, nodes = _twin(tmp_path)
    cables, _addresses = discover_exports.netbox_export(topo)
    (tmp_path / "cables.json").write_text(json.dumps(cables["results"]))  # the results list, not the page
    plans, problems, _said = discover_netbox.from_export(
        str(tmp_path / "cables.json"), dict.fromkeys(list(topo["switches"]) + nodes), list(topo["switches"]), topo["leaves"])
    assert problems == []
    assert all("ip" not in e for found in plans.values() for e in found["vars"]["pyramid_switch_ports"])
    assert all("pyramid_bgp_neighbors" not in found["vars"] for found in plans.values())
    assert _problems(plans, topo, nodes) == []


def test_a_swapped_pair_in_netbox_is_named_by_its_addresses(tmp_path):
    """In NetBox a cable has both its ends, so they always agree; a swap shows as an uplink whose address and its
    far end's are no one /31: each named, in the summary and beside the port, its BGP neighbour left out."""
    topo, nodes = _twin(tmp_path)
    path = _export(tmp_path / "netbox", *discover_exports.netbox_export(topo, swap="leaf1-r2"))
    plans, problems, said = discover_netbox.from_export(path, dict.fromkeys(list(topo["switches"]) + nodes),
                                                        list(topo["switches"]), topo["leaves"])
    assert problems == []
    ups = [e for e in plans["leaf1-r2"]["vars"]["pyramid_switch_ports"] if e["role"] == "fabric"]
    assert [e["peer"] for e in ups] == ["spine-02", "spine-01"]
    assert len(said) == 4 and all("are not one link's two addresses: a swapped cable or a wrong address in NetBox" in line
                                  for line in said), said
    assert any(line.startswith("leaf1-r2 %s %s and its cable's far end spine-02 Ethernet3/1 " % (ups[0]["port"], ups[0]["ip"]))
               for line in said), said
    assert plans["leaf1-r2"]["vars"]["pyramid_bgp_neighbors"] == []
    assert plans["leaf1-r2"]["notes"][("port", ups[0]["port"])].startswith("NOT ONE LINK: spine-02 ")


def test_cables_to_devices_outside_the_inventory_are_left_out_and_counted():
    """The real-shaped export of tests/unit/discover_fixtures/netbox_v4 (NetBox 4.x): a GPU node's rail, an uplink with
    its /31s, a PDU's power cable, a patch panel's front port, a storage server not in the inventory, a decommissioned
    cable."""
    inventory = {"leaf-a": None, "spine-a": None, "gpu-01.pod.example": None}
    plans, problems, said = discover_netbox.from_export(os.path.join(FIXTURES, "netbox_v4"), inventory, ["leaf-a", "spine-a"])
    assert problems == []
    assert plans["leaf-a"]["vars"] == {
        "pyramid_switch_ports": [
            {"port": "Ethernet1/1", "peer": "gpu-01.pod.example", "peer_port": "ens1np0", "role": "host"},
            {"port": "Ethernet49/1", "peer": "spine-a", "peer_port": "Ethernet1/1", "role": "fabric", "ip": "10.200.0.1/31"}],
        "pyramid_bgp_neighbors": [{"address": "10.200.0.0", "name": "spine-a"}], "pyramid_ecmp_paths": 1}
    assert plans["spine-a"]["vars"]["pyramid_bgp_neighbors"] == [{"address": "10.200.0.1", "name": "leaf-a"}]
    assert plans["leaf-a"]["notes"][("port", "Ethernet1/1")] == "NetBox names it gpu-01 (cable 101)"
    assert said == ["1 cable left out (a device not in the inventory): 103",
                    "1 cable left out (decommissioning): 105",
                    "2 cables left out (not one interface to one interface): 104, 106"]
    assert discover_files.coherence(plans, inventory) == []


def test_netbox_2_cables_from_their_fixture():
    """tests/unit/discover_fixtures/netbox_v2/cables.json: NetBox 2.x's termination_a/termination_b."""
    inventory = {"leaf-a": None, "spine-a": None, "gpu-01": None}
    plans, problems, said = discover_netbox.from_export(os.path.join(FIXTURES, "netbox_v2", "cables.json"), inventory, ["leaf-a", "spine-a"])
    assert problems == [] and said == ["1 cable left out (not one interface to one interface): 12"]
    assert plans["leaf-a"]["vars"]["pyramid_switch_ports"] == [
        {"port": "Ethernet1/1", "peer": "gpu-01", "peer_port": "ens1np0", "role": "host"},
        {"port": "Ethernet49/1", "peer": "spine-a", "peer_port": "Ethernet1/1", "role": "fabric"}]


TERM = {"object_type": "dcim.interface", "object": {"device": {"name": "leaf-a"}, "name": "Ethernet1"}}
FAR = {"object_type": "dcim.interface", "object": {"device": {"name": "gpu-01"}, "name": "ens1np0"}}
# (id, what cables.json holds, the problems named: every one with its file and its cable)
FAULTY = [
    ("not-json", "{\"results\": [", ["cables.json: not JSON: "]),
    ("not-a-page", json.dumps({"detail": "Invalid token."}), [
        "cables.json: neither NetBox's page of cables ({\"count\", \"next\", \"results\": [...]}) nor its results list"]),
    ("one-page-of-several", json.dumps({"count": 1800, "next": "https://netbox/api/dcim/cables/?limit=1000&offset=1000",
                                        "results": [dict(id=1, a_terminations=[TERM], b_terminations=[FAR])]}), [
        "cables.json: holds 1 of the 1800 cables NetBox counted (one page of several: export with ?limit=0, or join every "
        "page's results into one list)"]),
    ("neither-form", json.dumps([{"id": 7, "display": "#7", "status": {"value": "connected"}}]), [
        "cables.json: cable 7: no a_terminations/b_terminations (NetBox 3.3 and later) nor termination_a/termination_b "
        "(NetBox 2.x to 3.2): not a NetBox cable"]),
    ("terminations-not-lists", json.dumps([{"id": 8, "a_terminations": TERM, "b_terminations": [FAR]}]), [
        "cables.json: cable 8: a_terminations and b_terminations are not lists of {object_type, object}"]),
    ("interface-without-device", json.dumps([{"id": 9, "b_terminations": [FAR], "a_terminations": [
        {"object_type": "dcim.interface", "object_id": 3, "object": {"id": 3}}]}]), [
        "cables.json: cable 9: an interface end without its device's name and its own name ({'id': 3})"]),
    ("port-on-two-cables", json.dumps([dict(id=1, a_terminations=[TERM], b_terminations=[FAR]),
                                       dict(id=2, a_terminations=[TERM], b_terminations=[FAR])]), [
        "cables.json: cable 2: leaf-a Ethernet1 is on another cable too"]),
]


@pytest.mark.parametrize("text,wanted", [row[1:] for row in FAULTY], ids=[row[0] for row in FAULTY])
def test_a_faulty_export_writes_nothing_and_names_file_and_cable(tmp_path, text, wanted):
    (tmp_path / "cables.json").write_text(text)
    plans, problems, said = discover_netbox.from_export(str(tmp_path), {"leaf-a": None, "gpu-01": None}, ["leaf-a"])
    assert (plans, said) == ({}, [])
    found = [problem.replace(str(tmp_path) + os.sep, "") for problem in problems]
    # not-json: the parser's own words follow the file's name
    assert len(found) == len(wanted) and all(got == want or (want.endswith(": ") and got.startswith(want))
                                             for got, want in zip(found, wanted)), found


def test_a_missing_export_and_a_faulty_address_are_named(tmp_path):
    assert discover_netbox.from_export(str(tmp_path / "nowhere.json"), {}, [])[1][0].startswith(
        "%s: not read: " % (tmp_path / "nowhere.json"))
    path = _export(tmp_path / "netbox", [dict(id=1, a_terminations=[TERM], b_terminations=[FAR])], discover_exports.page([
        {"id": 4, "address": "10.0.0.300/31", "assigned_object_type": "dcim.interface",
         "assigned_object": {"device": {"name": "leaf-a"}, "name": "Ethernet1"}}]))
    assert discover_netbox.from_export(path, {"leaf-a": None, "gpu-01": None}, ["leaf-a"]) == ({}, [
        "%s: ip-address 4: address '10.0.0.300/31' is not an address with its prefix length" % os.path.join(path, "ip-addresses.json")], [])
