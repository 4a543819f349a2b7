"""A fabric plan from the fabric itself (run/discover.py, playbooks/discover.yml, issue 71): the switches' LLDP, BGP and
route facts -> each switch's host_vars, as DATA rows. Facts come from the parsers' own real fixtures where one shows the
case (tests/unit/parsers/<parser>/<fixture>.raw, parsed here), else are written in the parsers' shape (said per row)."""

import os

import pytest
import yaml

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils import parsing
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog, expectations as _expectations
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core.model import SourceFailure
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import discover, discover_files, engine

from pyramid_twin import model, switch_model  # twin/ on sys.path: tests/unit/conftest.py

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "parsers")


def real(parser, fixture):
    """The facts of a parser's real fixture, parsed now (not copied from its .yml)."""
    with open(os.path.join(FIXTURES, parser, fixture + ".raw"), encoding="utf-8") as handle:
        return parsing.parse(parser, handle.read())


def lldp(**ports):
    """sw_lldp facts in the parsers' shape: {"neighbors": {port: [{"system", "port"}, ...]}}."""
    return {"neighbors": {port: [{"system": system, "port": far} for system, far in seen] for port, seen in ports.items()}}


def bgp(**by_address):
    return {"neighbors": {address.replace("_", "."): {"remote_as": asn, "state": "Established", "prefixes_received": 1}
                          for address, asn in by_address.items()}}


DATA = [
    {"id": "real EOS captures: a switch of the inventory, a neighbour outside it, ANTA's sessions and ECMP routes",
     # sonic-mgmt's vlab-04 `show lldp neighbors | json`; ANTA's DC1-LEAF `show ip bgp summary | json` and its ECMP
     # `show ip route` (two next hops for 10.10.0.1/32, one for 10.1.0.1/32)
     "reads": {"vlab-04": {"sw_lldp": real("arista_eos_show_lldp_neighbors_json", "sonic_mgmt_real"),
                           "sw_bgp": real("arista_eos_show_ip_bgp_summary_json", "anta_real"),
                           "sw_routes": real("arista_eos_show_ip_route_json", "anta_ecmp_real")}},
     "inventory": {"vlab-04": "10.250.0.4", "vlab-03": "10.250.0.3"}, "switches": ["vlab-04", "vlab-03"], "leaves": ["vlab-04"],
     "vars": {"vlab-04": {
         "pyramid_switch_ports": [{"port": "Ethernet4", "peer": "vlab-03", "peer_port": "fortyGigE0/12", "role": "fabric"},
                                  {"port": "Ethernet7", "peer": "ARISTA02T1", "peer_port": "fortyGigE0/0", "role": "host"}],
         "pyramid_bgp_neighbors": [{"address": "10.1.255.0", "remote_as": 65100}, {"address": "10.1.255.2", "remote_as": 65100}],
         "pyramid_ecmp_prefixes": ["10.1.0.1/32", "10.10.0.1/32"], "pyramid_ecmp_paths": 1}},
     "notes": {("vlab-04", "port", "Ethernet7"): "NOT IN THE INVENTORY (no inventory host by that name, ansible_host or short name)",
               ("vlab-04", "prefix", "10.10.0.1/32"): "2 next hops now for 1 uplinks"}},

    {"id": "real FRR lab captures: a leaf's and a spine's sessions are the two ends of one /31: named, and the uplink's address",
     # lab/fabric.py's FRR 8.4.4 leaf1 and spine1 (`show bgp ipv4 unicast summary json`, `show ip route bgp json`); the
     # lab's routers run no LLDP, so their LLDP facts are written here in the parsers' shape, cabled as lab/fabric.py is
     "reads": {"leaf1": {"sw_lldp": lldp(swp1=[("node-1", "ens1np0")], swp51=[("spine1", "swp1")], swp52=[("spine2", "swp1")]),
                         "sw_bgp": real("frr_show_bgp_summary_json", "lab_healthy_leaf1_real"),
                         "sw_routes": real("frr_show_ip_route_json", "lab_healthy_leaf1_real")},
               "spine1": {"sw_lldp": lldp(swp1=[("leaf1", "swp51")]),
                          "sw_bgp": real("frr_show_bgp_summary_json", "lab_healthy_spine1_real"),
                          "sw_routes": real("frr_show_ip_route_json", "lab_healthy_spine1_real")}},
     "inventory": {"leaf1": None, "spine1": None, "spine2": None, "node-1": None},
     "switches": ["leaf1", "spine1", "spine2"], "leaves": ["leaf1"],
     "vars": {"leaf1": {"pyramid_switch_ports": [
         {"port": "swp1", "peer": "node-1", "peer_port": "ens1np0", "role": "host"},
         {"port": "swp51", "peer": "spine1", "peer_port": "swp1", "role": "fabric", "ip": "10.254.1.1/31"},
         {"port": "swp52", "peer": "spine2", "peer_port": "swp1", "role": "fabric"}],  # spine2 not read: no address known
         "pyramid_bgp_neighbors": [{"address": "10.254.1.0", "remote_as": 65000, "name": "spine1"},
                                   {"address": "10.254.1.2", "remote_as": 65000}, {"address": "10.254.1.4", "remote_as": 65000},
                                   {"address": "10.254.1.6", "remote_as": 65000}],
         "pyramid_ecmp_prefixes": ["10.51.0.0/24", "10.52.0.0/24", "10.53.0.0/24"], "pyramid_ecmp_paths": 2},
         "spine1": {"pyramid_switch_ports": [{"port": "swp1", "peer": "leaf1", "peer_port": "swp51", "role": "fabric", "ip": "10.254.1.0/31"}],
                    "pyramid_bgp_neighbors": [{"address": "10.254.1.1", "remote_as": 65101, "name": "leaf1"},
                                              {"address": "10.254.2.1", "remote_as": 65102}, {"address": "10.254.3.1", "remote_as": 65103},
                                              {"address": "10.254.4.1", "remote_as": 65104}]}},
     "notes": {("leaf1", "prefix", prefix): "4 next hops now for 2 uplinks" for prefix in ("10.51.0.0/24", "10.52.0.0/24", "10.53.0.0/24")}},

    {"id": "real Cumulus capture: NVUE lists silent ports with no neighbour; they are left out and said",
     "reads": {"sw1": {"sw_lldp": real("cumulus_nv_show_interface_lldp_json", "nvidia_cl56_real")}},
     "inventory": {"sw1": None}, "switches": ["sw1"], "leaves": [],
     "vars": {"sw1": {"pyramid_switch_ports": []}},
     "said": {"sw1": ["no LLDP neighbour on swp1, swp10, swp11, swp12"]}},

    {"id": "real SONiC capture: two neighbours on one port, neither in the inventory: the first, the other said beside it",
     "reads": {"sw1": {"sw_lldp": real("sonic_show_lldp_table", "two_macs_one_port_real")}},
     "inventory": {"sw1": None}, "switches": ["sw1"], "leaves": [],
     "vars": {"sw1": {"pyramid_switch_ports": [{"port": "Ethernet0", "peer": "dummy", "peer_port": "00:00:00:00:00:01", "role": "host"}]}},
     "notes": {("sw1", "port", "Ethernet0"): "LLDP shows dummy 00:00:00:00:00:02 here too"}},

    {"id": "LLDP names by FQDN and by ansible_host map to the inventory's names (parsers' shape)",
     "reads": {"leaf-a": {"sw_lldp": lldp(Ethernet1=[("node-001.pod1.example", "ens1np0")],
                                          Ethernet2=[("gpu17.dc.example", "ens1np0")],
                                          Ethernet3=[("bmc-7", "eth0"), ("node-003", "ens1np0")])}},
     "inventory": {"leaf-a": None, "node-001": "10.0.0.101", "node-017": "gpu17.dc.example", "node-003": None},
     "switches": ["leaf-a"], "leaves": ["leaf-a"],
     "vars": {"leaf-a": {"pyramid_switch_ports": [
         {"port": "Ethernet1", "peer": "node-001", "peer_port": "ens1np0", "role": "host"},
         {"port": "Ethernet2", "peer": "node-017", "peer_port": "ens1np0", "role": "host"},
         {"port": "Ethernet3", "peer": "node-003", "peer_port": "ens1np0", "role": "host"}]}},
     "notes": {("leaf-a", "port", "Ethernet1"): "LLDP names it node-001.pod1.example (its short name)",
               ("leaf-a", "port", "Ethernet2"): "LLDP names it gpu17.dc.example (its ansible_host)",
               ("leaf-a", "port", "Ethernet3"): "LLDP shows bmc-7 eth0 here too"}},

    {"id": "a neighbour without a system name is written without a peer, said beside it (parsers' shape)",
     "reads": {"leaf-a": {"sw_lldp": lldp(Ethernet1=[("", "ens1np0")])}},
     "inventory": {"leaf-a": None}, "switches": ["leaf-a"], "leaves": [],
     "vars": {"leaf-a": {"pyramid_switch_ports": [{"port": "Ethernet1", "peer_port": "ens1np0", "role": "host"}]}},
     "notes": {("leaf-a", "port", "Ethernet1"): "LLDP gives no system name: name the peer"}},

    {"id": "a short name two hosts share names neither (parsers' shape)",
     "reads": {"leaf-a": {"sw_lldp": lldp(Ethernet1=[("node-1", "ens1np0")])}},
     "inventory": {"leaf-a": None, "node-1.dc1": None, "node-1.dc2": None}, "switches": ["leaf-a"], "leaves": [],
     "vars": {"leaf-a": {"pyramid_switch_ports": [{"port": "Ethernet1", "peer": "node-1", "peer_port": "ens1np0", "role": "host"}]}},
     "notes": {("leaf-a", "port", "Ethernet1"): "node-1 could be node-1.dc1 or node-1.dc2"}},

    {"id": "a /30 link pairs its two hosts; an unnumbered session and two links to one spine give no address (parsers' shape)",
     "reads": {"leaf-a": {"sw_lldp": lldp(Ethernet9=[("spine-a", "Ethernet1")], Ethernet10=[("spine-b", "Ethernet1")],
                                          Ethernet11=[("spine-b", "Ethernet2")]),
                          "sw_bgp": bgp(**{"10_9_0_1": 65000, "10_9_0_5": 65000, "10_9_0_9": 65000, "swp51": 65000}),
                          "sw_routes": {"routes": {}}},
               "spine-a": {"sw_lldp": lldp(Ethernet1=[("leaf-a", "Ethernet9")]), "sw_bgp": bgp(**{"10_9_0_2": 65101})},
               "spine-b": {"sw_lldp": lldp(Ethernet1=[("leaf-a", "Ethernet10")], Ethernet2=[("leaf-a", "Ethernet11")]),
                           "sw_bgp": bgp(**{"10_9_0_6": 65101, "10_9_0_10": 65101})}},
     "inventory": {"leaf-a": None, "spine-a": None, "spine-b": None}, "switches": ["leaf-a", "spine-a", "spine-b"], "leaves": ["leaf-a"],
     "vars": {"leaf-a": {"pyramid_switch_ports": [
         {"port": "Ethernet9", "peer": "spine-a", "peer_port": "Ethernet1", "role": "fabric", "ip": "10.9.0.2/30"},
         {"port": "Ethernet10", "peer": "spine-b", "peer_port": "Ethernet1", "role": "fabric"},
         {"port": "Ethernet11", "peer": "spine-b", "peer_port": "Ethernet2", "role": "fabric"}],
         "pyramid_bgp_neighbors": [{"address": "10.9.0.1", "remote_as": 65000, "name": "spine-a"},
                                   {"address": "10.9.0.5", "remote_as": 65000, "name": "spine-b"},
                                   {"address": "10.9.0.9", "remote_as": 65000, "name": "spine-b"},
                                   {"address": "swp51", "remote_as": 65000}],
         "pyramid_ecmp_prefixes": [], "pyramid_ecmp_paths": 3}}},

    {"id": "a source that gave no facts is said at the file's head and its variables are left out",
     "reads": {"leaf-a": {"sw_lldp": lldp(Ethernet1=[("node-1", "ens1np0")]),
                          "sw_bgp": SourceFailure("show ip bgp summary | json", "timed out after 60 s"),
                          "sw_routes": SourceFailure("show ip route bgp | json", "timed out after 60 s")}},
     "inventory": {"leaf-a": None, "node-1": None}, "switches": ["leaf-a"], "leaves": ["leaf-a"],
     "vars": {"leaf-a": {"pyramid_switch_ports": [{"port": "Ethernet1", "peer": "node-1", "peer_port": "ens1np0", "role": "host"}]}},
     "said": {"leaf-a": ["NOT READ (sw_bgp): show ip bgp summary | json: timed out after 60 s",
                         "NOT READ (sw_routes): show ip route bgp | json: timed out after 60 s"]}},
]


@pytest.mark.parametrize("row", DATA, ids=[row["id"] for row in DATA])
def test_facts_to_plan(row):
    plans = discover.plan(row["reads"], row["inventory"], row["switches"], row["leaves"])
    assert {switch: plans[switch]["vars"] for switch in row["vars"]} == row["vars"]
    for (switch, kind, key), said in row.get("notes", {}).items():
        assert said in plans[switch]["notes"].get((kind, key), ""), plans[switch]["notes"]
    noted = {(switch, kind, key) for switch in plans for kind, key in plans[switch]["notes"]}
    assert noted == set(row.get("notes", {})), "a note no row expects"
    for switch, lines in row.get("said", {}).items():
        assert len(plans[switch]["said"]) == len(lines), plans[switch]["said"]
        assert all(line.startswith(start) for line, start in zip(plans[switch]["said"], lines)), plans[switch]["said"]
    for switch in plans:  # the file says what the plan says
        assert yaml.safe_load(discover_files.render(switch, plans[switch], "test")) == plans[switch]["vars"]


def _twin(tmp_path):
    path = tmp_path / "scenario.yml"
    path.write_text(yaml.safe_dump({"pod": {"nodes": 4}, "switches": {
        "spines": 2, "nodes_per_leaf": 4, "leaf_os": ["eos", "nxos", "sonic", "cumulus"], "spine_os": ["eos"]}}))
    scenario = model.load_scenario(str(path))
    return scenario, switch_model.topology(scenario)


def test_the_twins_switch_states_give_the_twins_own_plan(tmp_path):
    """What the twin's switches hold (their LLDP, sessions and routes, as its formats print them) gives back the plan
    its inventory declares: the e2e test's claim (tests/e2e/test_discover.py) without the commands."""
    scenario, topo = _twin(tmp_path)
    reads = {}
    for name in topo["switches"]:
        state = switch_model.switch_state(scenario, name)
        reads[name] = {"sw_lldp": {"neighbors": {port["name"]: port["lldp"] for port in state["ports"]}},
                       "sw_bgp": {"neighbors": {n["address"]: {"remote_as": n["remote_as"], "state": n["state"]} for n in state["bgp_neighbors"]}},
                       "sw_routes": {"routes": {r["prefix"]: {"next_hops": [h["address"] for h in r["next_hops"]]} for r in state["routes"]}}}
    inventory = dict.fromkeys(list(topo["switches"]) + model.node_names(scenario))
    plans = discover.plan(reads, inventory, list(topo["switches"]), topo["leaves"])
    for name in topo["switches"]:
        wanted = switch_model.inventory_vars(topo, name)
        found = plans[name]["vars"]
        assert found["pyramid_switch_ports"] == sorted(wanted["pyramid_switch_ports"], key=lambda e: discover.port_order(e["port"]))
        assert found["pyramid_bgp_neighbors"] == wanted["pyramid_bgp_neighbors"]
        assert found.get("pyramid_ecmp_prefixes", []) == wanted["pyramid_ecmp_prefixes"]
        assert plans[name]["notes"] == {}
    assert discover_files.coherence(plans, inventory) == []


def test_a_read_goes_through_the_catalogs_ways_and_parsers():
    """discover.read plans the catalog's sources for the switch's platform (EOS: JSON first) and parses each answer
    with the parser its way names; a way that failed is a failure naming the command."""
    catalog = _catalog.load_catalog()
    expect = _expectations.resolve(catalog, {"pyramid_switch_os": "eos"}, ["pyramid_switch_os", "pyramid_command_timeout"])[0]
    texts = {"sw_lldp": ("arista_eos_show_lldp_neighbors_json", "sonic_mgmt_real"),
             "sw_bgp": ("arista_eos_show_ip_bgp_summary_json", "anta_real")}
    asked = []

    def collect(planned):
        asked.extend((read["id"], read["ways"][0].get("cli")) for read in planned)
        raw = {}
        for read in planned:
            if read["id"] in texts:
                with open(os.path.join(FIXTURES, *texts[read["id"]]) + ".raw", encoding="utf-8") as handle:
                    raw[read["id"]] = {"status": "ok", "command": read["ways"][0]["cli"], "stdout": handle.read(), "way": 0}
            else:
                raw[read["id"]] = {"status": "timeout", "command": read["ways"][0]["cli"], "attempts": ["timed out after 60 s"]}
        return engine.answers(planned, raw), None

    facts, failures = discover.read(catalog, expect, collect)
    assert asked == [("sw_lldp", "show lldp neighbors | json"), ("sw_bgp", "show ip bgp summary | json"),
                     ("sw_routes", "show ip route bgp | json")]
    assert facts["sw_lldp"]["neighbors"]["Ethernet4"] == [{"system": "vlab-03", "port": "fortyGigE0/12"}]
    assert failures == ["show ip route bgp | json: timed out after 60 s"]
    assert discover.read(catalog, expect, lambda planned: (None, "ssh: connection refused")) == ({}, ["unreachable: ssh: connection refused"])


def test_a_failed_read_is_named_and_the_others_are_written(tmp_path):
    registered = {"leaf-a": {"changed": False, "msg": "leaf-a: read sw_lldp, sw_bgp, sw_routes",
                             "pyramid_discovered": engine.serializable_facts({"sw_lldp": lldp(Ethernet1=[("node-1", "ens1np0")])})},
                  "leaf-b": {"unreachable": True, "msg": "Failed to connect to the host via ssh"},
                  "leaf-c": None}  # outside --limit: not read, nothing said
    plans, failures = discover_files.from_reads(registered, {"leaf-a": None, "leaf-b": None, "node-1": None}, ["leaf-a", "leaf-b", "leaf-c"])
    assert sorted(plans) == ["leaf-a"]
    assert failures == ["leaf-b: Failed to connect to the host via ssh"]
    files, refused = discover_files.write(str(tmp_path / "plan"), plans, "test")
    assert refused is None and [os.path.basename(path) for path in files] == ["leaf-a.yml"]
    # never over a file: a second run into the same directory writes nothing
    assert discover_files.write(str(tmp_path / "plan"), plans, "test") == (
        None, "not written: %s already there (discover into a new directory)" % files[0])


def test_the_default_directory_is_new_under_the_report_dir(tmp_path):
    first, second = discover_files.default_dir(str(tmp_path)), discover_files.default_dir(str(tmp_path))
    assert first != second and first.startswith(str(tmp_path)) and first.endswith("/discovered")
