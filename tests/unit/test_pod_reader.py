"""run/pod.py readers: a read made once for the pod (read_on) is one reader's for the whole run (issue 66). The
reader chosen at the soak's start keeps reading the subnet at Layers 2 and 3 though its own Layer 1 failed (its own
checks SKIP, its reads for the pod kept apart and handed to every other node), and gives way only when it is lost
(unreachable, out of the run): the next host reads, and the pod checks' ERRORs name the reader that was lost.

Real captures of one ibsim subnet (the judge data's world: tests/unit/judge_data/infiniband/layer2_infiniband_routing.py,
layer3_infiniband_congestion.py, layer2_infiniband.py): iblinkinfo ibsim_sdr_2_spines_4_rails, dump_fts under
minhop, sminfo at the soak's start and 12 s later (the same master, its count risen), ibqueryerrors idle at the
start and with leaf-r0 port 2 (node-002 mlx5_0) and node-004 mlx5_1's own port waiting at Layer 3; each node's own
ibstat with its port and node GUIDs of that subnet."""

import json
import multiprocessing
import os

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog, expectations as _expectations, results as _results
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import engine as _engine, layer as _layer, pod as _pod
from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.infiniband import layer2_infiniband as _sm, layer2_infiniband_routing as _routing
from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.infiniband import layer3_infiniband_congestion as _congestion

CATALOG = _catalog.load_catalog()
NODES = tuple(_routing.NODES)
GROUPS = {"gpu_nodes": list(NODES)}  # no ib_fabric_hosts group: the first GPU node reads for the pod
GROUP = "ib_fabric_hosts"
UNREACHABLE = "Failed to connect to the host via ssh: ssh: connect to host 127.0.0.1 port 2201: Connection refused"


def _expect():
    expect, errors = _expectations.resolve(CATALOG, dict(_routing.IB, pyramid_soak_seconds=0))
    assert not errors, errors
    return expect


def _collect(host, reads, sminfo, counters, unreachable=False):
    """What ``host`` answers: the subnet's tools as the ibsim subnet did, its own ibstat; ``reads`` records the
    sources it was asked for."""
    texts = {"iblinkinfo": _routing.SUBNET[1], "dump_fts": _routing.MINHOP[1], "sminfo": sminfo[1], "ibqueryerrors": counters[1],
             "ibstat": _congestion.ibstat_node_guids(host)[1]}

    def collect(planned):
        reads.setdefault(host, []).extend(item["id"] for item in planned)
        if unreachable:
            return None, UNREACHABLE
        # a file read (rail_port_guid_sysfs, of the rails `rdma link` read) answers nothing here: these nodes run ibstat
        return _engine.answers(planned, {item["id"]: {"status": "ok", "rc": 0,
                                                      "command": " ".join(item["ways"][0].get("run") or [item["ways"][0].get("read", "")]),
                                                      "stdout": texts.get(item["ways"][0].get("run", [""])[0], "")} for item in planned}), None
    return collect


def _snapshot(run_dir, expect, reads):
    checks = _catalog.checks_for(CATALOG, "gpu_node")
    for host in NODES:
        doc = _results.load(run_dir, host)
        _layer.snapshot(host, checks, CATALOG, expect, doc, _collect(host, reads, _sm.STEADY[0], _congestion.IDLE),
                        reads_for=_pod.reads_for_checks(host, checks, CATALOG, GROUPS, run_dir, NODES))
        _results.save(run_dir, doc)


def _fail_layer1(run_dir, host):
    """``host``'s Layer 1 as the pod's judge leaves it with its two cables crossed (ib_rail_leaves FAIL)."""
    doc = _results.load(run_dir, host)
    _results.record(doc, [{"layer": 1, "check": "ib_rail_leaves", "status": "FAIL", "host": host, "actual": "mlx5_0 on leaf-r1"}])
    _results.save(run_dir, doc)


def _run_layer(run_dir, layer, expect, reads, counters=_congestion.IDLE, unreachable=()):
    checks = _catalog.checks_at(CATALOG, layer, "gpu_node")
    for host in NODES:
        doc = _results.load(run_dir, host)
        _layer.run(host, layer, checks, CATALOG, expect, doc, _collect(host, reads, _sm.STEADY[1], counters, host in unreachable),
                   wait=lambda doc, seconds: 0.0, reads_for=_pod.reads_for(host, checks, CATALOG, GROUPS, run_dir, layer, NODES))
        _results.save(run_dir, doc)
    return _pod.judge_layer(CATALOG, run_dir, layer, NODES, groups=GROUPS)


def _records(run_dir, host, layer):
    return {r["check"]: r for r in _results.load(run_dir, host)["results"] if r["layer"] == layer}


def test_the_reader_whose_own_layer1_failed_reads_the_subnet_for_the_pod_at_layers_2_and_3(tmp_path):
    run_dir, expect, reads = str(tmp_path), _expect(), {}
    _snapshot(run_dir, expect, reads)
    assert [host for host, ids in reads.items() if "ib_sm_watch" in ids or "ib_port_counters" in ids] == ["node-001"]
    with open(os.path.join(run_dir, _pod.READERS_FILE), encoding="utf-8") as handle:
        assert json.load(handle) == {GROUP: [{"host": "node-001", "layer": 1}]}
    _fail_layer1(run_dir, "node-001")  # the soak's start sits in node-001's results
    reads.clear()
    judged, not_passing = _run_layer(run_dir, 2, expect, reads)
    # node-001, held back, read the subnet for the pod and nothing of its own; the others read their own ibstat
    assert {"ib_sm_info", "ib_sm_watch", "ib_routes", "ib_link_info"} <= set(reads["node-001"]) and "ibstat" not in reads["node-001"]
    assert not any(source in reads[host] for host in NODES[1:] for source in ("ib_sm_info", "ib_sm_watch", "ib_link_info")), reads
    assert judged == 3 and not not_passing, not_passing  # the three others, every check PASS
    for host in NODES[1:]:
        records = _records(run_dir, host, 2)
        assert "master throughout the soak" in records["ib_sm_handover"]["actual"], records["ib_sm_handover"]
        assert "answering sminfo on node-001" in records["ib_subnet_manager"]["expected"], records["ib_subnet_manager"]
    # node-001 is never judged as if it climbed: its own checks SKIP, its reads kept apart from its facts
    node1 = _results.load(run_dir, "node-001")
    assert {r["status"] for r in _records(run_dir, "node-001", 2).values() if not r.get("not_applicable")} == {"SKIP"}
    assert "layer2" not in node1["facts"] and "ib_sm_watch" in node1["pod_reads"]["layer2"]["facts"]
    # Layer 3: still node-001's reads, its soak's start: the other nodes' own fault is found there
    _judged, not_passing = _run_layer(run_dir, 3, expect, reads, counters=_congestion.WAITING)
    assert sorted(not_passing["ib_congestion_idle"]) == ["node-002=FAIL", "node-004=FAIL"], not_passing
    assert "leaf-r0 port 2 (node-002 mlx5_0): PortXmitWait +12345" in _records(run_dir, "node-002", 3)["ib_congestion_idle"]["actual"]
    assert _records(run_dir, "node-003", 3)["ib_congestion_idle"]["status"] == "PASS"
    assert _pod.reader(GROUP, GROUPS, run_dir, 3, NODES) == "node-001"


def test_a_reader_lost_gives_way_to_the_next_and_the_errors_name_it(tmp_path):
    run_dir, expect, reads = str(tmp_path), _expect(), {}
    _snapshot(run_dir, expect, reads)
    _fail_layer1(run_dir, "node-001")
    _judged, not_passing = _run_layer(run_dir, 2, expect, reads, unreachable=("node-001",))
    # unreachable at Layer 2: every node's pod check an ERROR naming the reader and why, never a pass
    # (ib_sm_handover, which depends on it, folded under it as SKIP)
    assert sorted(not_passing["ib_subnet_manager"]) == ["node-002=ERROR", "node-003=ERROR", "node-004=ERROR"], not_passing
    record = _records(run_dir, "node-003", 2)["ib_subnet_manager"]
    assert "read on node-001 (the reader of ib_fabric_hosts for the pod): unreachable at layer 2" in record["actual"], record
    assert "Connection refused" in record["actual"]
    # Layer 3: node-002 reads in its place (the first not held back... every node is, here: the gate lifted on it)
    for host in NODES[1:]:
        doc = _results.load(run_dir, host)
        doc.setdefault("expect", {})["pyramid_enforce_gate"] = False
        _results.save(run_dir, doc)
    reader, lost = _pod.readers(GROUP, GROUPS, run_dir, 3, NODES)
    assert reader == "node-002" and lost == [("node-001", "unreachable at layer 2 (%s)" % UNREACHABLE)], (reader, lost)
    with open(os.path.join(run_dir, _pod.READERS_FILE), encoding="utf-8") as handle:
        assert [entry["host"] for entry in json.load(handle)[GROUP]] == ["node-001", "node-002"]
    _run_layer(run_dir, 3, dict(expect, pyramid_enforce_gate=False), reads)
    # node-002 holds no soak's start: its ERROR says so and names the reader that was lost
    record = _records(run_dir, "node-003", 3)["ib_congestion_idle"]
    assert record["status"] == "ERROR" and "no snapshot of ib_port_counters before the soak" in record["actual"], record
    assert "node-001, the pod's reader of ib_fabric_hosts before, unreachable at layer 2" in record["actual"], record
    # out of the run (a --limit, a host that left the play) is lost as well
    reader, lost = _pod.readers(GROUP, GROUPS, run_dir, 3, NODES[2:])
    assert reader == "node-003" and ("node-002", "is not in the run") in lost


def _ask(run_dir):
    return _pod.reader(GROUP, GROUPS, run_dir, 1, NODES)


def test_every_fork_asking_at_once_reads_the_same_reader_written_once(tmp_path):
    """run_layer runs per host in Ansible's forks, in parallel: the first to ask chooses, every process reads it."""
    run_dir = str(tmp_path)
    _results.save(run_dir, {"host": "node-001", "results": [{"layer": 0, "check": "iommu", "status": "FAIL"}], "facts": {}})
    # closed and joined, never terminated (the with block's exit): terminating kills workers idle in the task queue's
    # get(), one of them holding its shared read lock, and a worker left waiting on that lock hangs the join for ever
    pool = multiprocessing.get_context("fork").Pool(8)
    try:
        answers = pool.map(_ask, [run_dir] * 32)
    finally:
        pool.close()
        pool.join()
    assert set(answers) == {"node-002"}, answers
    with open(os.path.join(run_dir, _pod.READERS_FILE), encoding="utf-8") as handle:
        assert json.load(handle) == {GROUP: [{"host": "node-002", "layer": 1}]}
    # the choice holds: node-002 failing a layer later does not move it
    _results.save(run_dir, {"host": "node-002", "results": [{"layer": 1, "check": "ib_cabling", "status": "FAIL"}], "facts": {}})
    assert _pod.reader(GROUP, GROUPS, run_dir, 3, NODES) == "node-002"
