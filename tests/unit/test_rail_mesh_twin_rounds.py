"""The rail mesh's Layer 4 from plan to records through the twin's own ib_write_bw (no SSH, no Ansible):
every round's servers really listen on the nodes' loopback addresses and every client really connects,
each GPUDirect run after the host-memory run of its rail, then measured, blame and records as the action's
judge and verdict phases call them. The end-to-end run on the twin (tests/e2e/test_validate_rail_mesh.py)
adds Ansible's phases around the same calls."""

import contextlib
import io
import os
import sys
import threading
import time

from pyramid_twin import model, formats_perftest

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog, expectations as _expectations
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import engine as _engine, rail_addresses as _addresses, rail_mesh as _mesh
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.judging import rail_rounds as _blame
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.judging import JUDGES

CATALOG = _catalog.load_catalog()
CHECKS = {check["id"]: check for check in CATALOG["checks"]}
HOST, GDR = CHECKS["rdma_write_bw"], CHECKS["rdma_gpudirect_bw"]
# loopback only (127.1.0.x), away from a twin's 18515; each pytest worker its own ports (test_rail_mesh_action.py runs
# rounds too, maybe at the same time on the other worker: one port held by both fails a run)
PORT_BASE = 28700 + 200 * int(os.environ.get("PYTEST_XDIST_WORKER", "gw0")[2:] or 0)


def _states(tmp_path, nodes, faults):
    path = tmp_path / "pod.yml"
    path.write_text("pod: {nodes: %d}\nfaults: %s\n" % (nodes, faults))
    scenario = model.load_scenario(str(path))
    return {name: model.node_state(scenario, name) for name in model.node_names(scenario)}


def _raw(argv, answer):
    rc, out, err = answer
    return {"status": "ok" if rc == 0 else "failed", "rc": rc, "stdout": out, "stderr": err, "command": " ".join(argv),
            "way": 0, "msg": "%s: exit code %d: %s" % (" ".join(argv), rc, err.strip())}


BANNER = "* Waiting for client to connect... *"


def _listening(count, timeout=10):
    """Wait for ``count`` more banners in the redirected stdout; each server binds right after its own."""
    out = sys.stdout
    start = getattr(out, "banners_seen", 0)
    deadline = time.time() + timeout
    while out.getvalue().count(BANNER) < start + count and time.time() < deadline:
        time.sleep(0.01)
    out.banners_seen = start + count
    time.sleep(0.05)


def _run_round(run_dir, plan, index, states, expect):
    answers, threads = {}, []
    servers = {host: _mesh.planned(plan, index, host, "server", CATALOG, expect, HOST, GDR) for host in plan["nodes"]}
    for host, items in servers.items():
        for item in items:
            argv = item["ways"][0]["run"]

            def serve(host=host, item=item, argv=argv):
                answers[(host, item["id"])] = formats_perftest.ib_write_bw(states[host], argv[1:], {}, states.get)
            threads.append(threading.Thread(target=serve))
            threads[-1].start()
    _listening(sum(len(items) for items in servers.values()))
    clients = {host: _mesh.planned(plan, index, host, "client", CATALOG, expect, HOST, GDR) for host in plan["nodes"]}
    raws = {host: {} for host in clients}
    chains = []
    for host, items in clients.items():
        # every client of the round at once, as rail_servers starts them; one with `after` when that one ended
        for first in (item for item in items if not item.get("after")):
            chain = [first] + [item for item in items if item.get("after") == first["id"]]

            def run_chain(host=host, chain=chain):
                for item in chain:
                    argv = item["ways"][0]["run"]
                    raws[host][item["id"]] = _engine.answered(item, _raw(argv, formats_perftest.ib_write_bw(states[host], argv[1:], {})))
            chains.append(threading.Thread(target=run_chain))
            chains[-1].start()
    for thread in chains + threads:
        thread.join(20)
    for host, raw in raws.items():
        _mesh.save_raw(run_dir, 4, index, host, "client", raw)
    for host, items in servers.items():
        _mesh.save_raw(run_dir, 4, index, host, "server", {
            item["id"]: _raw(item["ways"][0]["run"], answers[(host, item["id"])]) for item in items})


def _layer4(tmp_path, nodes, faults="[]"):
    states = _states(tmp_path, nodes, faults)
    names = sorted(states)
    expect, errors = _expectations.resolve(CATALOG, {"pyramid_rdma_port_base": PORT_BASE, "pyramid_rdma_duration": 1})
    assert not errors
    addresses = {name: _addresses.rail_addresses(name, expect)[0] for name in names}
    gpus = {name: _mesh.gpus_of(expect, expect["pyramid_rails"]) for name in names}
    plan = _mesh.make_plan(4, HOST, names, expect["pyramid_rails"], addresses, expect, gpus=gpus, companion=GDR)
    run_dir = str(tmp_path / "run")
    with contextlib.redirect_stdout(io.StringIO()):  # the servers' banners
        for index in range(len(plan["rounds"])):
            _run_round(run_dir, plan, index, states, expect)
    runs = _mesh.measured(run_dir, plan, HOST, JUDGES["rail_mesh"][HOST["judge"]], lambda host: expect)
    gdr = _mesh.measured_gpudirect(run_dir, plan, GDR, JUDGES["rail_mesh"][GDR["judge"]], lambda host: expect, runs)
    return (_mesh.records(HOST, CATALOG, plan, _blame.blame(runs), lambda host: expect, runs),
            _mesh.records(GDR, CATALOG, plan, _blame.blame(gdr), lambda host: expect, gdr), gdr)


def test_a_slow_gpudirect_node_fails_gpudirect_alone_and_its_host_memory_runs_pass(tmp_path):
    host, gdr, runs = _layer4(tmp_path, 6, '[{node: node-004, kind: gdr_bw, factor: 0.5}]')
    assert len(runs) == 2 * 3 * 2 * 8 and all(r["status"] in ("PASS", "FAIL") for r in runs)
    assert {node: r["status"] for node, r in host.items()} == {"node-%03d" % i: "PASS" for i in range(1, 7)}
    record = gdr["node-004"]
    assert record["status"] == "FAIL" and record["cause"] == GDR["causes"]["rail"], record
    assert "Gb/s (50% of host memory's 391.6)" in record["actual"]
    assert all(gdr[node]["status"] == "PASS" for node in gdr if node != "node-004"), gdr
    assert "(98% of host memory's 391.6)" in gdr["node-001"]["actual"] or "(99% of host memory's 391.6)" in gdr["node-001"]["actual"]


def test_a_slow_rail_is_host_memorys_finding_and_gpudirect_keeps_up_with_it(tmp_path):
    host, gdr, _runs = _layer4(tmp_path, 4, '[{node: node-002, kind: rail_bw, rail: mlx5_5, gbps: 181}]')
    assert host["node-002"]["status"] == "FAIL" and host["node-002"]["actual"].startswith("mlx5_5: ")
    assert all(record["status"] == "PASS" for record in gdr.values()), gdr
