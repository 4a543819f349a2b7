"""playbooks/discover.yml on the twin's mixed-vendor fabric (issue 71): the plan it reads from the switches themselves
(LLDP, BGP, routes through the catalog's sources, EOS and NX-OS over network_cli, SONiC and Cumulus over SSH) is the
twin's own plan, pre-flight finds it coherent, and validate.yml judges the healthy fabric PASS with it as the only plan.
"""

import json
import os
import subprocess
import sys
import time

import pytest
import yaml

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog, expectations as _expectations
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import fabric_plan
from ansible_collections.gpufabric.pyramid.tests.e2e.conftest import ROOT, WINDOWS, _record_run
from ansible_collections.gpufabric.pyramid.tests.unit import discover_exports
from pyramid_twin import model, switch_model

pytestmark = [pytest.mark.twin, pytest.mark.slow]

FABRIC = {"spines": 2, "nodes_per_leaf": 4, "leaf_os": ["eos", "nxos", "sonic", "cumulus"], "spine_os": ["eos"], "faults": []}
POD = {"pod": {"nodes": 4}, "switches": FABRIC, "faults": []}
PLAN = ("pyramid_switch_ports", "pyramid_bgp_neighbors", "pyramid_ecmp_prefixes", "pyramid_ecmp_paths")


@pytest.fixture(scope="module")
def scenario(tmp_path_factory):
    path = tmp_path_factory.mktemp("discover") / "scenario.yml"
    path.write_text(yaml.safe_dump(POD))
    return str(path)


@pytest.fixture(scope="module")
def topology(scenario):
    return switch_model.topology(model.load_scenario(scenario))


@pytest.fixture(scope="module")
def discovered(validate, scenario, tmp_path_factory):
    """(run, {switch: its discovered host_vars}) of discover.yml on the healthy pod, into a directory of the test's."""
    out = tmp_path_factory.mktemp("discovered") / "plan"
    run = validate(scenario, playbook="playbooks/discover.yml", pyramid_discover_dir=str(out))
    files = {name[:-len(".yml")]: yaml.safe_load((out / name).read_text()) for name in sorted(os.listdir(out))} if out.is_dir() else {}
    return run, files, out


def test_discover_writes_the_twins_own_plan(discovered, topology):
    run, files, _out = discovered
    assert run.rc == 0, run.stdout[-3000:]
    assert sorted(files) == sorted(topology["switches"])
    for switch in topology["switches"]:
        wanted, found = switch_model.inventory_vars(topology, switch), files[switch]
        ports = sorted((e["port"], e["peer"], e["peer_port"], e["role"], e.get("ip")) for e in found["pyramid_switch_ports"])
        assert ports == sorted((e["port"], e["peer"], e["peer_port"], e["role"], e.get("ip")) for e in wanted["pyramid_switch_ports"]), switch
        assert [(n["address"], n["remote_as"], n.get("name")) for n in found["pyramid_bgp_neighbors"]] == [
            (n["address"], n["remote_as"], n["name"]) for n in wanted["pyramid_bgp_neighbors"]], switch
        if switch in topology["leaves"]:
            assert sorted(found["pyramid_ecmp_prefixes"]) == sorted(wanted["pyramid_ecmp_prefixes"]), switch
            assert found["pyramid_ecmp_paths"] == wanted["pyramid_ecmp_paths"] == 2, switch
        else:
            assert "pyramid_ecmp_prefixes" not in found, switch  # a spine's routes are one leaf each, no ECMP to expect
    # every platform read: EOS and NX-OS through network_cli, SONiC and Cumulus over SSH (the leaves r0..r3)
    assert {topology["switches"][switch]["os"] for switch in files} == {"eos", "nxos", "sonic", "cumulus"}


def _preflight_problems(files, topology, scenario):
    """Pre-flight's fabric-plan problems (core/fabric_plan.py) of a written plan, with the twin's GPU nodes."""
    catalog = _catalog.load_catalog()
    nodes = model.node_names(model.load_scenario(scenario))
    typed = {host: _expectations.resolve(catalog, dict(files[host], pyramid_switch_os=topology["switches"][host]["os"]))[0]
             for host in files}
    typed.update({node: _expectations.resolve(catalog, {})[0] for node in nodes})
    return fabric_plan.problems(sorted(files), nodes, typed.__getitem__, sorted(typed), True)


def test_the_discovered_plan_holds_together_at_preflight(discovered, topology, scenario):
    _run, files, _out = discovered
    assert _preflight_problems(files, topology, scenario) == []


def _static_inventory(scenario, files, where):
    """The twin's inventory as a site's static one: its hosts, groups and logins as the twin's plugin gives them, every
    switch's plan variables taken out, and host_vars/ the discovered files alone."""
    env = dict(os.environ, PYRAMID_TWIN_SCENARIO=scenario, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"))
    listed = json.loads(subprocess.run([os.path.join(os.path.dirname(sys.executable), "ansible-inventory"), "-i",
                                        os.path.join(ROOT, "inventories", "twin"), "--list"],
                                       check=True, capture_output=True, text=True, env=env).stdout)
    hostvars = _plain(listed["_meta"]["hostvars"])
    children = {group: {"hosts": {host: {key: value for key, value in hostvars[host].items() if key not in PLAN}
                                  for host in listed[group].get("hosts", [])}}
                for group in ("gpu_nodes", "launcher", "rail_leaves", "spines")}
    inventory = {"all": {"children": dict(children, switches={"children": {"rail_leaves": {}, "spines": {}}})}}
    (where / "host_vars").mkdir(parents=True)
    (where / "hosts.yml").write_text(yaml.safe_dump(inventory))
    for switch in files:
        (where / "host_vars" / ("%s.yml" % switch)).write_text(yaml.safe_dump(files[switch]))
    return str(where / "hosts.yml")


def _plain(value):
    """ansible-inventory's JSON without its markers of untrusted strings ({"__ansible_unsafe": "eos"} is "eos")."""
    if isinstance(value, dict):
        return value["__ansible_unsafe"] if set(value) == {"__ansible_unsafe"} else {k: _plain(v) for k, v in value.items()}
    return [_plain(item) for item in value] if isinstance(value, list) else value


def test_validate_passes_the_healthy_fabric_on_the_discovered_plan(twin, discovered, scenario, tmp_path):
    """Layers 1 and 2 of validate.yml with the discovered files as the switches' only plan: every switch check PASSes
    (or is not applicable on its platform), none is judged against a plan the twin's plugin gave."""
    import ansible_runner  # pylint: disable=import-outside-toplevel

    _run, files, _out = discovered
    inventory = _static_inventory(scenario, files, tmp_path / "inventory")
    with open(inventory, encoding="utf-8") as handle:
        assert "pyramid_switch_ports" not in handle.read()  # the plan is the discovered files' alone
    os.environ["PATH"] = os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")
    started, reports = time.monotonic(), str(tmp_path / "reports")
    (tmp_path / "runner").mkdir()
    runner = ansible_runner.run(
        private_data_dir=str(tmp_path / "runner"), project_dir=ROOT, playbook=os.path.join(ROOT, "playbooks", "validate.yml"),
        inventory=inventory, cmdline="--tags layer1,layer2", quiet=True,
        extravars=dict(WINDOWS, pyramid_report_dir=reports, pyramid_command_timeout=5),
        envvars={"ANSIBLE_CONFIG": os.path.join(ROOT, "ansible.cfg"), "ANSIBLE_PERSISTENT_CONTROL_PATH_DIR": str(tmp_path / "pc")})
    _record_run(time.monotonic() - started, "discovered plan validate.yml --tags layer1,layer2")
    found = [os.path.join(reports, run, "report.json") for run in sorted(os.listdir(reports))] if os.path.isdir(reports) else []
    assert found, runner.stdout.read()[-3000:]
    with open(found[-1], encoding="utf-8") as handle:
        report = json.load(handle)
    switch_checks = [record for switch in files for record in report["hosts"][switch]["checks"] if record["layer"] in (1, 2)]
    assert {record["check"] for record in switch_checks} >= {"cabling", "link_status", "bgp_sessions", "ecmp"}
    wrong = [(r["host"], r["check"], r["status"], r["actual"]) for r in switch_checks
             if r["status"] != "PASS" and not r.get("not_applicable")]
    assert wrong == []


def test_a_cabling_csv_with_a_swapped_pair_is_written_and_named(validate, scenario, topology, tmp_path):
    """discover.yml -e pyramid_cabling_csv: the twin's cabling as a vendor's list of every switch port, leaf1-r1's two
    uplinks' peers swapped in it; the files are written (no switch is read) and the swap is named as pre-flight names it."""
    rows = ["switch,port,peer,peer_port"]
    for switch in topology["switches"]:
        entries = switch_model.inventory_vars(topology, switch)["pyramid_switch_ports"]
        if switch == "leaf1-r1":
            ups = [e for e in entries if e["role"] == "fabric"]
            ups[0]["peer"], ups[1]["peer"] = ups[1]["peer"], ups[0]["peer"]
            ups[0]["peer_port"], ups[1]["peer_port"] = ups[1]["peer_port"], ups[0]["peer_port"]
        rows += ["%s,%s,%s,%s" % (switch, e["port"], e["peer"], e["peer_port"]) for e in entries]
    (tmp_path / "cabling.csv").write_text("\n".join(rows) + "\n")
    out = tmp_path / "plan"
    run = validate(scenario, playbook="playbooks/discover.yml", pyramid_discover_dir=str(out),
                   pyramid_cabling_csv=str(tmp_path / "cabling.csv"))
    assert run.rc == 0, run.stdout[-3000:]
    assert sorted(os.listdir(out)) == sorted("%s.yml" % switch for switch in topology["switches"])
    leaf = yaml.safe_load((out / "leaf1-r1.yml").read_text())
    assert [e["peer"] for e in leaf["pyramid_switch_ports"] if e["role"] == "fabric"] == ["spine-02", "spine-01"]
    assert "skipping: [leaf1-r0]" in run.stdout  # no switch read: the CSV is the plan
    said = " ".join(run.stdout.split())
    assert "pre-flight would say: leaf1-r1 Ethernet1/5 -> spine-02 Ethernet2/1, but spine-02 Ethernet2/1 -> leaf1-r1 Ethernet1/6" in said, said[-3000:]


def test_a_netbox_export_of_the_twins_cabling_is_written_and_holds_together(validate, scenario, topology, tmp_path):
    """discover.yml -e pyramid_netbox_export: the twin's cables and uplink addresses as NetBox 4's API answers
    (tests/unit/discover_exports.py); no switch is read, the files are the twin's cabling with its addresses and BGP
    neighbours (NetBox holds no AS), and pre-flight's coherence check finds nothing to say of them."""
    cables, addresses = discover_exports.netbox_export(topology)
    (tmp_path / "netbox").mkdir()
    (tmp_path / "netbox" / "cables.json").write_text(json.dumps(cables))
    (tmp_path / "netbox" / "ip-addresses.json").write_text(json.dumps(addresses))
    out = tmp_path / "plan"
    run = validate(scenario, playbook="playbooks/discover.yml", pyramid_discover_dir=str(out),
                   pyramid_netbox_export=str(tmp_path / "netbox"))
    assert run.rc == 0, run.stdout[-3000:]
    assert "skipping: [leaf1-r0]" in run.stdout  # no switch read: the export is the plan
    files = {name[:-len(".yml")]: yaml.safe_load((out / name).read_text()) for name in sorted(os.listdir(out))}
    assert sorted(files) == sorted(topology["switches"])
    for switch in topology["switches"]:
        wanted = switch_model.inventory_vars(topology, switch)
        assert sorted((e["port"], e["peer"], e["peer_port"], e["role"], e.get("ip")) for e in files[switch]["pyramid_switch_ports"]) == sorted(
            (e["port"], e["peer"], e["peer_port"], e["role"], e.get("ip")) for e in wanted["pyramid_switch_ports"]), switch
        assert files[switch]["pyramid_bgp_neighbors"] == [{"address": n["address"], "name": n["name"]}
                                                          for n in wanted["pyramid_bgp_neighbors"]], switch
    assert _preflight_problems(files, topology, scenario) == []
    assert "pre-flight would say" not in run.stdout


def test_a_switch_that_cannot_be_read_is_named_and_the_run_fails(validate, tmp_path):
    """leaf1-r1 (NX-OS, network_cli) unreachable: its file is not written, the run fails naming it, and the switches
    that were read still get theirs (never a plan that reads as whole when a switch is missing from it)."""
    out = tmp_path / "plan"
    pod = dict(POD, switches=dict(FABRIC, faults=[{"switch": "leaf1-r1", "kind": "unreachable"}]))
    run = validate(pod, playbook="playbooks/discover.yml", pyramid_discover_dir=str(out))
    assert run.rc != 0
    written = sorted(name[:-len(".yml")] for name in os.listdir(out))
    assert "leaf1-r1" not in written and len(written) == 9 and "spine-01" in written, written
    said = " ".join(run.stdout.split())
    assert "leaf1-r1: " in said and "switch plans written into %s" % out in said, said[-3000:]
