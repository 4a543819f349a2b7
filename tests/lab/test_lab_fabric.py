"""The lab (lab/fabric.py): a real FRR leaf-spine fabric in network namespaces, read live through the collection's own
parse-and-judge path (issue 35), and through validate.yml over real SSH (the lab's sshd, lab/session.py, the inventory
of lab/inventory.py). Healthy: no false alarm through the JSON or the text way, and Layer 2 passes on all eight
routers. Four faults on four leaves: each caught on its own leaf, with its cause, by the engine and by validate.yml.
`lab/down` leaves nothing of the lab behind (its sshd included) and touches nothing else.

Needs root, `ip netns` and Debian's frr (`make setup` installs it); where the machine cannot make namespaces this file
says so and is skipped, and the rest of the suite runs.
"""

import json
import os
import re
import socket
import subprocess
import sys
import time

import pytest

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog, expectations as _expectations
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import engine as _engine
from ansible_collections.gpufabric.pyramid.tests import daemons
from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.switch.layer2_frr_lab import leaf

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "lab"))

import fabric  # noqa: E402  (path set above)
import inventory  # noqa: E402

CATALOG = _catalog.load_catalog()
WAYS = {"json": {"sw_bgp": ("show bgp ipv4 unicast summary json", "frr_show_bgp_summary_json"),
                 "sw_routes": ("show ip route bgp json", "frr_show_ip_route_json")},
        "text": {"sw_bgp": ("show ip bgp summary", "frr_show_ip_bgp_summary"),
                 "sw_routes": ("show ip route bgp", "frr_show_ip_route")}}
FOREIGN = "pyramid-test-not-the-labs"  # a namespace lab/down must leave alone
NODES = 4  # GPU nodes, a rail on each leaf: the mesh pairs each with two partners, so a rail that fails with both is named
# (with three, two of them meet only the faulty one: every node misses on that rail, read as the leaf's fault)
PING_COUNT = 10  # netem's 50% loss drops none of ten pings once in a thousand runs (three would pass one run in eight)
# Namespaces on a shared 2-core machine: a healthy veth round trip is 0.05-0.3 ms, but the suite's other worker can
# hold a ping's reply for a millisecond or two. The lab's limits leave room for that and stay under netem's 5 ms.
RTT = {"pyramid_ping_rtt_max_ms": 3, "pyramid_ping_rtt_outlier_floor_ms": 2}


def _why_not():
    if os.geteuid() != 0:
        return "the lab needs root (network namespaces, FRR daemons)"
    if not os.path.exists(os.path.join(fabric.FRR, "bgpd")):
        return "FRR is not installed (make setup installs Debian's frr)"
    subprocess.run(["ip", "netns", "del", FOREIGN], capture_output=True, check=False)  # left by a run that was killed
    made = subprocess.run(["ip", "netns", "add", FOREIGN], capture_output=True, text=True, check=False)
    if made.returncode:
        return "this machine cannot make network namespaces: %s" % made.stderr.strip()
    return None


@pytest.fixture(scope="module")
def lab():
    why = _why_not()
    if why:
        pytest.skip(why)
    try:
        yield fabric.up(4, 4, NODES)
    finally:
        fabric.down()
        subprocess.run(["ip", "netns", "del", FOREIGN], check=False)


def _judge(router, expect, way):
    """bgp_sessions and ecmp of one router, from what it answers now, through the engine's path."""
    facts = {}
    for source, (command, parser) in WAYS[way].items():
        answer = fabric.vtysh(router, command)
        facts[source] = _engine.parse_one({"status": "ok", "stdout": answer.stdout, "command": "vtysh -c %s" % command, "parser": parser})
    values, errors = _expectations.resolve(CATALOG, expect)
    assert not errors, errors
    checks = {check["id"]: check for check in CATALOG["checks"]}
    return {name: _engine.judge_host(router, checks[name], CATALOG, facts, values) for name in ("bgp_sessions", "ecmp")}


def _validate(tmp_path):
    """validate.yml's Layer 2 on the lab's routers over SSH: {host: {check: record}} of Layer 2, and the report."""
    inventory.main()
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"),
               PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", ""))
    # the nodes have no Layer 0 or 1 to pass here (the lab has their network only): the gate is lifted for them
    done = subprocess.run(["ansible-playbook", os.path.join(ROOT, "playbooks", "validate.yml"), "-i", inventory.INVENTORY,
                           "--tags", "layer2", "-e", "pyramid_report_dir=%s" % tmp_path, "-e", "pyramid_enforce_gate=false",
                           "-e", "pyramid_ping_count=%d" % PING_COUNT]
                          + [arg for name, value in RTT.items() for arg in ("-e", "%s=%s" % (name, value))],
                          cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    (path,) = [os.path.join(root, "report.json") for root, _dirs, files in os.walk(str(tmp_path)) if "report.json" in files]
    with open(path, encoding="utf-8") as handle:
        report = json.load(handle)
    records = {host: {r["check"]: r for r in info["checks"] if r["layer"] == 2} for host, info in report["hosts"].items()}
    return records, report, done


def test_validate_yml_reads_the_healthy_fabric_over_ssh(lab, tmp_path):
    records, report, done = _validate(tmp_path)
    assert sorted(records) == sorted(list(lab["routers"]) + list(lab["nodes"])), done.stdout[-3000:]
    for host in lab["routers"]:
        checks = records[host]
        assert {name: r["status"] for name, r in checks.items()} == {"bgp_sessions": "PASS", "ecmp": "PASS"}, (host, checks)
        assert checks["ecmp"]["command"].startswith("vtysh -c 'show ip route bgp json'")  # FRR's JSON, the first way
    rows = {row["row"]: row for row in report["checklist"]}
    assert rows["bgp_ecmp"]["status"] == "pass"
    assert "ECMP" in records["leaf1"]["ecmp"]["title"] and records["leaf1"]["ecmp"]["actual"] == "3 prefixes, 4-way ECMP each"
    # the GPU nodes' rails, one per leaf, pinged with the host's real fping across the leaves' bridges
    for node in lab["nodes"]:
        assert records[node]["rail_ping"]["status"] == "PASS", (node, records[node]["rail_ping"], done.stdout[-3000:])
    assert rows["rail_ping"]["status"] == "pass", rows["rail_ping"]


def test_a_nodes_rail_down_is_named_by_the_ping_mesh_and_its_partners_are_not(lab, tmp_path):
    # node1's rail 2 down: it misses with both partners on that rail, which pass with their other partners across the
    # leaf's bridge (the routing faults come after these tests and do not touch the bridges)
    fabric.fault("rail_down", "node1", "2")
    records, _report, done = _validate(tmp_path)
    ping = {node: records[node]["rail_ping"] for node in lab["nodes"]}
    assert {node: r["status"] for node, r in ping.items()} == {"node1": "FAIL", "node2": "PASS", "node3": "PASS", "node4": "PASS"}, (ping, done.stdout[-3000:])
    assert ping["node1"]["actual"].startswith("mlx5_2"), ping["node1"]
    assert "mlx5_0" not in ping["node1"]["actual"] and ping["node1"]["cause"], ping["node1"]


def test_loss_and_latency_on_a_rail_with_tc_netem(lab, tmp_path):
    # node1's rail 2 is still down (above); node2's rail 3 drops half of what it sends, node3's rail 1 holds it 5 ms
    why = fabric.netem_missing()
    if why:
        pytest.skip("tc netem cannot run here: %s" % why)
    fabric.fault("rail_loss", "node2", "3")
    fabric.fault("rail_delay", "node3", "1")
    records, _report, done = _validate(tmp_path)
    ping = {node: records[node]["rail_ping"] for node in lab["nodes"]}
    assert {node: r["status"] for node, r in ping.items()} == {"node1": "FAIL", "node2": "FAIL", "node3": "FAIL", "node4": "PASS"}, (ping, done.stdout[-3000:])
    assert "mlx5_3" in ping["node2"]["actual"] and "loss" in ping["node2"]["actual"], ping["node2"]
    assert "mlx5_1" in ping["node3"]["actual"] and "rtt avg" in ping["node3"]["actual"], ping["node3"]
    for node in ("node1", "node2", "node3"):
        assert ping[node]["cause"], (node, ping[node])


def test_a_healthy_fabric_raises_no_alarm_through_either_way(lab):
    for number in range(1, lab["leaves"] + 1):
        for way in WAYS:
            results = _judge("leaf%d" % number, leaf(number), way)
            assert {name: r["status"] for name, r in results.items()} == {"bgp_sessions": "PASS", "ecmp": "PASS"}, (way, results)


def test_each_fault_is_caught_on_its_leaf_with_its_cause(lab, tmp_path):
    fabric.fault("session_shut", "leaf1", "spine2")
    fabric.fault("maximum_paths", "leaf2")
    fabric.fault("wrong_remote_as", "leaf3", "spine3")
    fabric.fault("no_policy", "leaf4")
    time.sleep(15)  # the sessions that cannot come up have left Connect/OpenSent
    one, two, three, four = (_judge("leaf%d" % number, leaf(number), "json") for number in range(1, 5))
    assert one["bgp_sessions"]["status"] == "FAIL" and "10.254.1.2 (spine2) Idle" in one["bgp_sessions"]["actual"]
    assert "missing via spine2" in one["ecmp"]["actual"] and "session is down" in one["ecmp"]["cause"], one["ecmp"]
    assert two["bgp_sessions"]["status"] == "PASS"
    assert two["ecmp"]["status"] == "FAIL" and "maximum-paths" in two["ecmp"]["cause"], two["ecmp"]
    assert three["bgp_sessions"]["status"] == "FAIL" and "10.254.3.4 (spine3) Idle" in three["bgp_sessions"]["actual"]
    for record in four.values():
        assert record["status"] == "FAIL" and "ebgp-requires-policy" in record["cause"], record
    # FRR's own JSON says why leaf4 is silent: every session Established, in the Policy state
    document = json.loads(fabric.vtysh("leaf4", "show bgp ipv4 unicast summary json").stdout)
    assert {peer["peerState"] for peer in document["peers"].values()} == {"Policy"}
    # the same four through validate.yml over SSH, each on its router with its cause
    records, report, _done = _validate(tmp_path)
    assert "10.254.1.2 (spine2) Idle (Admin)" in records["leaf1"]["bgp_sessions"]["actual"]
    assert records["leaf1"]["ecmp"]["status"] == "FAIL" and "session is down" in records["leaf1"]["ecmp"]["cause"]
    assert records["leaf2"]["bgp_sessions"]["status"] == "PASS" and "maximum-paths" in records["leaf2"]["ecmp"]["cause"]
    assert "10.254.3.4 (spine3) Idle" in records["leaf3"]["bgp_sessions"]["actual"]
    assert "10.254.3.5 (leaf3)" in records["spine3"]["bgp_sessions"]["actual"]  # the far end sees it too
    assert all("ebgp-requires-policy" in records["leaf4"][name]["cause"] for name in ("bgp_sessions", "ecmp"))
    # leaf4 sends nothing either: every spine receives no prefix from it, and spine1 nothing else is wrong
    assert records["spine1"]["bgp_sessions"]["actual"] == "10.254.4.1 (leaf4) Established, 0 prefixes received"
    # leaf1 shut its side: spine2 keeps trying (Active or Connect, as the moment has it)
    assert re.search(r"10\.254\.1\.3 \(leaf1\) (Active|Connect|Idle)", records["spine2"]["bgp_sessions"]["actual"])
    assert report["verdict"] == "NO-GO"


def test_no_daemon_of_the_lab_reads_the_checkout(lab):
    """zebra and bgpd run as `frr`: nothing they read may sit in the checkout, which a clone under root's home (mode 700)
    puts out of their reach (issue 73). The lab's FRR daemons are found, and each reads its own run directory."""
    assert daemons.reaching_into(ROOT) == []
    bgpd = subprocess.run(["pgrep", "-a", "-f", "bgpd .*-N " + fabric.PREFIX + "leaf1"], capture_output=True, text=True, check=False).stdout
    assert os.path.join(fabric.RUN, fabric.PREFIX + "leaf1", "frr.conf") in bgpd


def test_down_removes_the_lab_and_nothing_else(lab):
    fabric.down()
    assert fabric.namespaces() == []
    assert not [name for name in os.listdir(fabric.RUN) if name.startswith(fabric.PREFIX)]
    assert not subprocess.run(["pgrep", "-f", "N " + fabric.PREFIX], capture_output=True, check=False).stdout  # no FRR daemon of ours
    assert not fabric._sshd_pids()  # pylint: disable=protected-access  # the lab's sshd is gone with it
    with pytest.raises(OSError):  # and nothing answers at a router's SSH address
        socket.create_connection((lab["routers"]["leaf1"]["ssh"], fabric.SSH_PORT), timeout=2).close()
    listed = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, check=True).stdout
    assert FOREIGN in listed  # made by this test, not by the lab: left alone
