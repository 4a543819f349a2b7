"""Layer 5 and 6 judges across a group of nodes as a data table (fabric checks, judged as the straggler hunt does),
run by test_judge_data.py.

Across a group of nodes (judging/fabric.py): nccl_pairs / nccl_scale (nccl_group), the pod's collectives and
training_pod (training_group); their rows name the "group" and the nodes the verdict "blamed" (its by_host). One
host's runs are workload/layer5_6.py's rows.

Rows built on tests/unit/parsers/nccl_tests and training_log fixtures use real outputs; rows with
facts put each threshold just inside and just outside: the straggler ratio (0.9 of the pod median),
the expected figure's tolerance (0.15), the CV limit (5%), the warm-up, and the baseline (+10%).
Their facts are built with nccl_training's helpers.
"""

from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.host.layer0 import fixture, failed
from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.nccl_training import (
    CUT_AT_HALF, CV_51, DGX_RAILS, EIGHT_TABLE, GIB, HOSTS, LAST, PAIR, RAILS, STEADY, TRAIN_CMD, as_asked, fabric_train, hang, nccl,
    nccl_row, train)

SHARP_EXPECT = {"pyramid_rails": DGX_RAILS, "pyramid_nccl_sharp": True, "pyramid_rdma_link_layer": "infiniband"}


def with_sharp(**lines_by_host):
    """The real 2-node run (h100_2node_ib_8nics_gdrdma, NCCL 2.21.5) with CollNet lines after each node's version line,
    in the formats of tests/unit/parsers/nccl_debug/sharp_*: "asked" (NCCL_COLLNET_ENABLE=1), "channel" (CollNet
    channels, printed before the setup check), "connected" (NCCL 2.21's lines after it), "refused" (the plugin's error
    and NCCL's fallback, NVIDIA/nccl-tests#311)."""
    texts = {"asked": "NCCL INFO NCCL_COLLNET_ENABLE set by environment to 1.",
             "channel": "NCCL INFO CollNet 00/0 : {rank} [receive] via COLLNET/SHARP/0/GDRDMA",
             "connected": "NCCL INFO Connected collnet + chain\n{prefix} NCCL INFO rank {rank} Connected CollNet comm "
                          "0x5581c0e4a3b0 nRanks 16",
             "refused": "sharp_plugin.c:365 NCCL WARN NET/IB : SHARP coll init error: Cannot create SHARP job(-11)\n"
                        "{prefix} transport.cc:384 NCCL WARN Cannot initialize CollNet, using point-to-point network instead"}
    parser, text = fixture("nccl_tests", "h100_2node_ib_8nics_gdrdma")
    for host, kinds in lines_by_host.items():
        host, pid, rank = host.replace("_", "-"), {"node_001": 23100, "node_002": 23108}[host], {"node_001": 0, "node_002": 8}[host]
        prefix = "%s:%d:%d [0]" % (host, pid, pid + 40)
        version = "%s:%d:%d [0] NCCL INFO NCCL version 2.21.5+cuda12.4\n" % (host, pid, pid)
        added = "".join("%s %s\n" % (prefix, texts[kind].format(prefix=prefix, rank=rank)) for kind in kinds)
        text = text.replace(version, version + added, 1)
    return parser, text


DATA = [
    # --- nccl_alltoall_pod (fabric): busbw at the largest size >= 64 MiB at least 70% of the NIC-bound ceiling
    # (8 x 400G over 8 GPUs: 50 GB/s a GPU; 16 ranks on a pair: 50 x 15/8 = 93.75, floor 65.625), x the bisection
    # across scalable units; in-place #wrong N/A is nccl-tests' own for alltoall
    {"check": "nccl_alltoall_pod", "name": "a pair at 70% of its ceiling, in-place not validated (alltoall_perf's N/A)",
     "facts": {"nccl_fabric_alltoall": nccl(nccl_row(1 << 20, 5.0, ip_wrong=None), nccl_row(4 * GIB, 65.7, ip_wrong=None), hosts=PAIR)},
     "group": PAIR, "status": "PASS", "contains": ["4 GiB busbw 65.7 GB/s; 8 rails, GDRDMA on 2 nodes", "at least 65.6 GB/s"]},
    {"check": "nccl_alltoall_pod", "name": "a pair just under 70%",
     "facts": {"nccl_fabric_alltoall": nccl(nccl_row(4 * GIB, 65.5, ip_wrong=None), hosts=PAIR)},
     "group": PAIR, "status": "FAIL", "contains": ["4 GiB busbw 65.5 GB/s < 65.6", "below the fabric's floor"]},
    {"check": "nccl_alltoall_pod", "name": "across two units of a 2:1 spine layer, half the floor holds",
     "facts": {"nccl_fabric_alltoall": nccl(nccl_row(4 * GIB, 33.0, ip_wrong=None), hosts=PAIR)},
     "group": PAIR, "units": {"node-001": "su1", "node-002": "su2"}, "expect": {"pyramid_fabric_bisection": 0.5},
     "status": "PASS",
     "contains": ["2 scalable units", "at least 32.8 GB/s", "x 0.50: 100% of a node's traffic crosses the spine layer, whose bisection is 0.5"]},
    {"check": "nccl_alltoall_pod", "name": "in-place not validated and far better than out-of-place: out-of-place judged",
     "facts": {"nccl_fabric_alltoall": nccl(nccl_row(4 * GIB, 20.0, 99.0, ip_wrong=None), hosts=PAIR)},
     "group": PAIR, "status": "FAIL", "contains": ["4 GiB busbw 20.0 GB/s < 65.6"]},
    {"check": "nccl_alltoall_pod", "name": "a 1% short size from nccl-tests' per-rank rounding is judged",
     "facts": {"nccl_fabric_alltoall": nccl(nccl_row((64 << 20) - 96, 70.0, ip_wrong=None), hosts=PAIR)},
     "group": PAIR, "status": "PASS", "contains": ["busbw 70.0 GB/s"]},
    {"check": "nccl_alltoall_pod", "name": "out-of-bounds values are wrong results",
     "facts": {"nccl_fabric_alltoall": nccl(nccl_row(4 * GIB, 80.0, ip_wrong=None), hosts=PAIR, oob=12)},
     "group": PAIR, "status": "FAIL", "contains": ["12 out-of-bounds values", "Wrong all-to-all results"]},
    {"check": "nccl_alltoall_pod", "name": "the largest size is 32 MiB: not judged",
     "facts": {"nccl_fabric_alltoall": nccl(nccl_row(32 << 20, 80.0, ip_wrong=None), hosts=PAIR)},
     "group": PAIR, "status": "ERROR", "contains": ["no size of 64 MiB or more was measured: widen -e"]},
    {"check": "nccl_alltoall_pod", "name": "out-of-place not validated either",
     "facts": {"nccl_fabric_alltoall": nccl(nccl_row(4 * GIB, 80.0, oop_wrong=None, ip_wrong=None), hosts=PAIR)},
     "group": PAIR, "status": "ERROR", "contains": ["results not validated (#wrong N/A)"]},
    {"check": "nccl_alltoall_pod", "name": "node-002 without GDRDMA", "blamed": ["node-002"],
     "facts": {"nccl_fabric_alltoall": nccl(nccl_row(4 * GIB, 40.0, ip_wrong=None), hosts=PAIR, gdr={"node-002": False})},
     "group": PAIR, "status": "FAIL", "contains": ["node-002: network channels without GDRDMA", "GPUDirect RDMA off on this node"]},
    {"check": "nccl_alltoall_pod", "name": "wrong results out-of-place",
     "facts": {"nccl_fabric_alltoall": nccl(nccl_row(4 * GIB, 80.0, oop_wrong=3, ip_wrong=None), hosts=PAIR)},
     "group": PAIR, "status": "FAIL", "contains": ["wrong results at 4 GiB", "Wrong all-to-all results across nodes"]},
    {"check": "nccl_alltoall_pod", "name": "hung, node-002 silent",
     "facts": {"nccl_fabric_alltoall": hang([(0, "node-001")], command="alltoall_perf -b 8 -e 4G -f 2 -g 1")}, "group": PAIR,
     "status": "FAIL", "contains": ["nodes whose ranks never reported: node-002", "NCCL hang in the all-to-all across the pod"]},
    {"check": "nccl_alltoall_pod", "name": "mpirun not installed",
     "facts": {"nccl_fabric_alltoall": failed("mpirun", "mpirun: command not found", "missing")},
     "group": PAIR, "status": "ERROR", "contains": ["mpirun: command not found"]},

    # --- nccl_all_gather_pod / nccl_reduce_scatter_pod (fabric): hang, #wrong, rails and GDRDMA as for all-reduce; busbw
    # judged only against pyramid_nccl_pod_collective_busbw (never all-reduce's figure: NVIDIA/nccl#1218), with the
    # gather collectives' algbw = busbw x n/(n-1)
    {"check": "nccl_all_gather_pod", "name": "no declared figure: correct, every rail, GDRDMA; busbw said, not judged",
     "facts": {"nccl_fabric_all_gather": nccl(nccl_row(1 << 20, 20.0), nccl_row(4 * GIB, 180.0, algbw=192.0), hosts=PAIR)},
     "group": PAIR, "status": "PASS",
     "contains": ["4 GiB busbw 180.0 algbw 192.0 GB/s (busbw not judged: no pyramid_nccl_pod_collective_busbw[all_gather])",
                  "8 rails, GDRDMA on 2 nodes", "judged only against pyramid_nccl_pod_collective_busbw[all_gather]"]},
    {"check": "nccl_all_gather_pod", "name": "a declared figure met, algbw held to busbw x 16/15",
     "facts": {"nccl_fabric_all_gather": nccl(nccl_row(4 * GIB, 300.0, algbw=320.0), hosts=PAIR)},
     "group": PAIR, "expect": {"pyramid_nccl_pod_collective_busbw": {"all_gather": {str(4 * GIB): 340}}}, "status": "PASS",
     "contains": ["within 15% of pyramid_nccl_pod_collective_busbw[all_gather] (4 GiB 340 GB/s)"]},
    {"check": "nccl_all_gather_pod", "name": "busbw met but algbw short of busbw x 16/15: slow",
     "facts": {"nccl_fabric_all_gather": nccl(nccl_row(4 * GIB, 300.0, algbw=300.0), hosts=PAIR)},
     "group": PAIR, "expect": {"pyramid_nccl_pod_collective_busbw": {"all_gather": {str(4 * GIB): 340}}}, "status": "FAIL",
     "contains": ["algbw 300.0 < 308.3 GB/s", "All-gather across the pod below its declared figure"]},
    {"check": "nccl_reduce_scatter_pod", "name": "below the declared figure",
     "facts": {"nccl_fabric_reduce_scatter": nccl(nccl_row(4 * GIB, 150.0, algbw=160.0), hosts=PAIR)},
     "group": PAIR, "expect": {"pyramid_nccl_pod_collective_busbw": {"reduce_scatter": {str(4 * GIB): 200}}}, "status": "FAIL",
     "contains": ["4 GiB busbw 150.0 < 170.0", "Reduce-scatter across the pod below its declared figure"]},
    {"check": "nccl_reduce_scatter_pod", "name": "another collective's figure is not this one's: said, not judged",
     "facts": {"nccl_fabric_reduce_scatter": nccl(nccl_row(4 * GIB, 150.0, algbw=160.0), hosts=PAIR)},
     "group": PAIR, "expect": {"pyramid_nccl_pod_collective_busbw": {"all_gather": {str(4 * GIB): 200}}}, "status": "PASS",
     "contains": ["busbw not judged: no pyramid_nccl_pod_collective_busbw[reduce_scatter]"]},
    {"check": "nccl_reduce_scatter_pod", "name": "wrong results in-place",
     "facts": {"nccl_fabric_reduce_scatter": nccl(nccl_row(4 * GIB, 180.0, ip_wrong=12), hosts=PAIR)},
     "group": PAIR, "status": "FAIL", "contains": ["wrong results at 4 GiB", "Wrong reduce-scatter results across nodes"]},
    {"check": "nccl_reduce_scatter_pod", "name": "#wrong N/A: not validated, never a pass",
     "facts": {"nccl_fabric_reduce_scatter": nccl(nccl_row(4 * GIB, 180.0, ip_wrong=None), hosts=PAIR)},
     "group": PAIR, "status": "ERROR", "contains": ["results not validated (#wrong N/A)"]},
    {"check": "nccl_all_gather_pod", "name": "node-002 without GDRDMA", "blamed": ["node-002"],
     "facts": {"nccl_fabric_all_gather": nccl(nccl_row(4 * GIB, 90.0), hosts=PAIR, gdr={"node-002": False})},
     "group": PAIR, "status": "FAIL", "contains": ["node-002: network channels without GDRDMA", "GPUDirect RDMA off on this node"]},
    {"check": "nccl_all_gather_pod", "name": "wrong results and node-002 without GDRDMA: no node is cleared on its strength",
     "blamed": [], "facts": {"nccl_fabric_all_gather": nccl(nccl_row(4 * GIB, 90.0, oop_wrong=5), hosts=PAIR, gdr={"node-002": False})},
     "group": PAIR, "status": "FAIL", "contains": ["wrong results at 4 GiB", "Wrong all-gather results across nodes"]},
    {"check": "nccl_all_gather_pod", "name": "24 ranks print 4 GiB as 4294967040 (16 bytes a rank): the declared 4 GiB is judged",
     "facts": {"nccl_fabric_all_gather": nccl(nccl_row(4 * GIB - 16 * 24, 150.0, algbw=156.5), hosts=HOSTS)},
     "group": list(HOSTS), "expect": {"pyramid_nccl_pod_collective_busbw": {"all_gather": {str(4 * GIB): 200}}}, "status": "FAIL",
     "contains": ["at 1 of 1 sizes, 4 GiB busbw 150.0 < 170.0, algbw 156.5 < 177.4 GB/s"]},
    {"check": "nccl_all_gather_pod", "name": "node-001 on two rails of eight", "blamed": ["node-001"],
     "facts": {"nccl_fabric_all_gather": nccl(nccl_row(4 * GIB, 90.0), hosts=PAIR, nics={"node-001": ["mlx5_0", "mlx5_1"]})},
     "group": PAIR, "status": "FAIL", "contains": ["NCCL used fewer NICs than the rails on this node"]},
    {"check": "nccl_all_gather_pod", "name": "hung, node-002 silent",
     "facts": {"nccl_fabric_all_gather": hang([(0, "node-001")], command="all_gather_perf -b 8 -e 4G -f 2 -g 1")}, "group": PAIR,
     "status": "FAIL", "contains": ["nodes whose ranks never reported: node-002", "NCCL hang in the all-gather across the pod"]},
    {"check": "nccl_all_gather_pod", "name": "a 16-rank table with 8 ranks: a hang, not a pass",
     "facts": {"nccl_fabric_all_gather": nccl(nccl_row(4 * GIB, 180.0), hosts=["node-001"])},
     "group": PAIR, "status": "FAIL", "contains": ["8 of 16 ranks joined"]},
    {"check": "nccl_all_gather_pod", "name": "no row at all",
     "facts": {"nccl_fabric_all_gather": dict(nccl(nccl_row(4 * GIB, 180.0), hosts=PAIR), rows=[])},
     "group": PAIR, "status": "ERROR", "contains": ["no size was measured"]},
    {"check": "nccl_reduce_scatter_pod", "name": "srun not installed",
     "facts": {"nccl_fabric_reduce_scatter": failed("srun", "srun: command not found", "missing")},
     "group": PAIR, "status": "ERROR", "contains": ["srun: command not found"]},

    # --- nccl_pairs / nccl_scale (fabric): busbw and algbw within 15% of the table, every rail, GDRDMA, #wrong 0, no hang
    {"check": "nccl_pairs", "name": "8 rails with GDRDMA", "raw": {"nccl_fabric": fixture("nccl_tests", "h100_2node_ib_8nics_gdrdma")},
     "group": PAIR, "expect": {"pyramid_rails": DGX_RAILS}, "status": "PASS", "contains": ["4 GiB busbw", "8 rails, GDRDMA on 2 nodes"]},
    {"check": "nccl_pairs", "name": "SHARP declared, CollNet connected on both nodes (edited: NCCL 2.21's lines added): PASS saying so",
     "raw": {"nccl_fabric": with_sharp(node_001=["asked", "channel", "connected"], node_002=["asked", "channel", "connected"])},
     "group": PAIR, "expect": SHARP_EXPECT, "status": "PASS",
     "contains": ["8 rails, GDRDMA on 2 nodes, SHARP (CollNet connected) on every node", "SHARP in use (CollNet connected) on every node"]},
    {"check": "nccl_pairs", "name": "SHARP declared, the run never asked for it (no NCCL_COLLNET_ENABLE): FAIL on both, saying how to ask",
     "raw": {"nccl_fabric": fixture("nccl_tests", "h100_2node_ib_8nics_gdrdma")},
     "group": PAIR, "expect": SHARP_EXPECT, "status": "FAIL", "blamed": PAIR,
     "contains": ["SHARP declared but not used on node-001, node-002: NCCL was not asked to use it", "NCCL_COLLNET_ENABLE=1 in "
                  "pyramid_nccl_env", "the aggregation manager"]},
    {"check": "nccl_pairs", "name": "SHARP asked for, the aggregation manager refused the job on node-002 (edited: #311's lines): FAIL on both, naming it",
     "raw": {"nccl_fabric": with_sharp(node_001=["asked", "channel"], node_002=["asked", "channel", "refused"])},
     "group": PAIR, "expect": SHARP_EXPECT, "status": "FAIL", "blamed": PAIR,
     "contains": ["SHARP declared but not used on node-001, node-002: node-002: NET/IB : SHARP coll init error: Cannot create SHARP job(-11)"]},
    {"check": "nccl_pairs", "name": "SHARP asked for, CollNet channels printed but only node-001 connected (edited): FAIL blaming node-002",
     "raw": {"nccl_fabric": with_sharp(node_001=["asked", "channel", "connected"], node_002=["asked", "channel"])},
     "group": PAIR, "expect": SHARP_EXPECT, "status": "FAIL", "blamed": ["node-002"],
     "contains": ["SHARP declared but not used on node-002: asked for (NCCL_COLLNET_ENABLE=1) but no 'Connected CollNet' line"]},
    {"check": "nccl_pairs", "name": "GPUDirect off on both", "raw": {"nccl_fabric": fixture("nccl_tests", "h100_2node_gdr_disabled")},
     "group": PAIR, "expect": {"pyramid_rails": DGX_RAILS}, "status": "FAIL", "blamed": PAIR,
     "contains": ["node-001: network channels without GDRDMA", "GPUDirect RDMA off on this node"]},
    {"check": "nccl_pairs", "name": "NCCL_IB_HCA=mlx5_0", "raw": {"nccl_fabric": fixture("nccl_tests", "h100_2node_ib_hca_only_mlx5_0")},
     "group": PAIR, "expect": {"pyramid_rails": DGX_RAILS}, "status": "FAIL", "blamed": PAIR,
     "contains": ["node-001 used 1 of 8 rails (mlx5_0)", "NCCL used fewer NICs than the rails"]},
    {"check": "nccl_pairs", "name": "TCP socket fallback", "raw": {"nccl_fabric": fixture("nccl_tests", "h100_2node_socket_fallback")},
     "group": PAIR, "expect": {"pyramid_rails": DGX_RAILS}, "status": "FAIL", "blamed": PAIR,
     "contains": ["NCCL fell back to TCP sockets (NET/Socket)"]},
    {"check": "nccl_pairs", "name": "wrong results", "raw": {"nccl_fabric": fixture("nccl_tests", "dgx_h100_wrong_elements")},
     "group": ["dgx-a01", "dgx-h01"], "expect": {"pyramid_gpus_per_node": 1}, "status": "FAIL",
     "contains": ["wrong results at 512 KiB, 1 MiB", "Wrong all-reduce results across nodes"]},
    {"check": "nccl_pairs", "name": "no NCCL_DEBUG lines, bandwidth fine",
     "raw": {"nccl_fabric": fixture("nccl_tests", "nccl_tests_2_18_mpirun_two_nodes_real")},
     "group": PAIR, "expect": {"pyramid_nccl_expected": {"8589934592": 35}}, "status": "ERROR",
     "contains": ["no NCCL_DEBUG=INFO network lines: set NCCL_DEBUG=INFO in pyramid_nccl_env"]},
    {"check": "nccl_pairs", "name": "no NCCL_DEBUG lines, slow and a warning", "raw": {"nccl_fabric": fixture("nccl_tests", "warn_inside_row")},
     "group": ["ztan-mig-235z", "ztan-mig-gq73"], "status": "FAIL",
     "contains": ["NCCL WARN: socketStartConnect", "no NCCL_DEBUG=INFO network lines", "Below the expected figure and NCCL warned"]},
    {"check": "nccl_pairs", "name": "hung, node-002 silent", "facts": {"nccl_fabric": hang([(0, "node-001")])}, "group": PAIR, "status": "FAIL",
     "contains": ["did not finish within the timeout (hung); nodes whose ranks never reported: node-002", "NCCL hang across nodes"]},
    {"check": "nccl_pairs", "name": "hung, short names printed", "facts": {"nccl_fabric": hang([(0, "node-001"), (8, "node-002")])},
     "group": ["node-001.pod1.example", "node-002.pod1.example"], "status": "FAIL", "contains": ["every node's ranks started, none finished"]},
    {"check": "nccl_pairs", "name": "mpirun not installed", "facts": {"nccl_fabric": failed("mpirun", "mpirun: command not found", "missing")},
     "group": PAIR, "status": "ERROR", "contains": ["mpirun: command not found"]},
    {"check": "nccl_pairs", "name": "at 85% of the figure", "facts": {"nccl_fabric": nccl(nccl_row(LAST, 340.0, algbw=181.34), hosts=PAIR)},
     "group": PAIR, "expect": EIGHT_TABLE, "status": "PASS", "contains": ["8 GiB busbw 340.0 algbw 181.3 GB/s"]},
    {"check": "nccl_pairs", "name": "busbw just under 85%", "facts": {"nccl_fabric": nccl(nccl_row(LAST, 339.9, algbw=181.34), hosts=PAIR)},
     "group": PAIR, "expect": EIGHT_TABLE, "status": "FAIL",
     "contains": ["below 85% of the expected figure at 1 of 1 sizes, 8 GiB busbw 339.9 < 340.0, algbw 181.3 < 181.3 GB/s",
                  "Below the expected figure with every rail and GPUDirect on"]},
    {"check": "nccl_pairs", "name": "algbw under its share", "facts": {"nccl_fabric": nccl(nccl_row(LAST, 340.0, algbw=181.0), hosts=PAIR)},
     "group": PAIR, "expect": EIGHT_TABLE, "status": "FAIL", "contains": ["algbw 181.0 < 181.3 GB/s"]},
    {"check": "nccl_pairs", "name": "in-place is the better side",
     "facts": {"nccl_fabric": nccl(nccl_row(LAST, 300.0, 340.0, algbw=100.0, ip_algbw=181.34), hosts=PAIR)},
     "group": PAIR, "expect": EIGHT_TABLE, "status": "PASS"},
    {"check": "nccl_pairs", "name": "platform table, slow at 2 of 3 sizes",
     "facts": {"nccl_fabric": nccl(nccl_row(1 << 20, 50.0, algbw=50.0), nccl_row(GIB, 100.0, algbw=100.0), nccl_row(4 * GIB, 100.0, algbw=100.0), hosts=PAIR)},
     "group": PAIR, "status": "FAIL", "contains": ["at 2 of 3 sizes, 4 GiB busbw 100.0 < 280.5"]},
    {"check": "nccl_pairs", "name": "no size of the table measured", "facts": {"nccl_fabric": nccl(nccl_row(12345, 1.0), hosts=PAIR)}, "group": PAIR,
     "status": "ERROR", "contains": ["no size of the expected table was measured (1 MiB, 64 MiB, 1 GiB, 4 GiB): widen -b/-e"]},
    {"check": "nccl_pairs", "name": "a node printed no NET/IB line", "facts": {"nccl_fabric": dict(nccl(hosts=["node-001"]), ranks=nccl(hosts=PAIR)["ranks"])},
     "group": PAIR, "expect": EIGHT_TABLE, "status": "ERROR", "contains": ["node-002 printed no 'NET/IB : Using' line"]},
    {"check": "nccl_pairs", "name": "GDRDMA unknown on a node",
     "facts": {"nccl_fabric": nccl(hosts=PAIR, gdr={"node-002": None})}, "group": PAIR, "expect": EIGHT_TABLE, "status": "ERROR",
     "contains": ["node-002 printed no network channel (GDRDMA unknown)"]},
    {"check": "nccl_pairs", "name": "GDRDMA off on one node", "facts": {"nccl_fabric": nccl(hosts=PAIR, gdr={"node-002": False})}, "group": PAIR,
     "expect": EIGHT_TABLE, "status": "FAIL", "blamed": ["node-002"], "contains": ["node-002: network channels without GDRDMA"]},
    {"check": "nccl_pairs", "name": "one rail unused on one node", "facts": {"nccl_fabric": nccl(hosts=PAIR, nics={"node-001": RAILS[:7]})},
     "group": PAIR, "expect": EIGHT_TABLE, "status": "FAIL", "blamed": ["node-001"], "contains": ["node-001 used 7 of 8 rails"]},
    {"check": "nccl_pairs", "name": "a node used no rail", "facts": {"nccl_fabric": nccl(hosts=PAIR, nics={"node-001": []})},
     "group": PAIR, "expect": EIGHT_TABLE, "status": "FAIL", "blamed": ["node-001"], "contains": ["node-001 used 0 of 8 rails (none)"]},
    {"check": "nccl_pairs", "name": "FQDN inventory names, short names printed", "facts": {"nccl_fabric": nccl(hosts=PAIR, gdr={"node-002": False})},
     "group": ["node-001.pod1.example", "node-002.pod1.example"], "expect": EIGHT_TABLE, "status": "FAIL", "blamed": ["node-002.pod1.example"]},
    {"check": "nccl_pairs", "name": "a node's ranks missing", "facts": {"nccl_fabric": nccl(hosts=PAIR, gpus=4)}, "group": PAIR,
     "expect": EIGHT_TABLE, "status": "FAIL", "contains": ["8 of 16 ranks joined", "NCCL hang across nodes"]},
    {"check": "nccl_pairs", "name": "a hang is named before wrong results",
     "facts": {"nccl_fabric": nccl(nccl_row(LAST, 400.0, oop_wrong=2), hosts=PAIR, gpus=4)}, "group": PAIR, "expect": EIGHT_TABLE,
     "status": "FAIL", "contains": ["8 of 16 ranks joined; wrong results at 8 GiB", "NCCL hang across nodes"]},
    {"check": "nccl_pairs", "name": "results not validated", "facts": {"nccl_fabric": nccl(nccl_row(LAST, 400.0, ip_wrong=None), hosts=PAIR)},
     "group": PAIR, "expect": EIGHT_TABLE, "status": "ERROR", "contains": ["results not validated (#wrong N/A)"]},
    {"check": "nccl_pairs", "name": "a slow run with a warning blames the warning",
     "facts": {"nccl_fabric": nccl(nccl_row(LAST, 100.0), hosts=PAIR, warnings=["NCCL WARN skipping topology file " + "x" * 300])},
     "group": PAIR, "expect": EIGHT_TABLE, "status": "FAIL", "contains": ["NCCL WARN: NCCL WARN skipping topology file", "NCCL warned"]},
    {"check": "nccl_pairs", "name": "a warning on a fast run is no finding",
     "facts": {"nccl_fabric": nccl(hosts=PAIR, warnings=["NCCL WARN skipping topology file"])}, "group": PAIR, "expect": EIGHT_TABLE, "status": "PASS"},
    {"check": "nccl_pairs", "name": "one GPU per node", "facts": {"nccl_fabric": nccl(nccl_row(LAST, 340.0, algbw=340.0), hosts=["node-001"], gpus=1)},
     "group": ["node-001"], "expect": dict(EIGHT_TABLE, pyramid_gpus_per_node=1), "status": "PASS"},
    {"check": "nccl_scale", "name": "4 nodes at the figure",
     "facts": {"nccl_fabric": nccl(nccl_row(LAST, 400.0, algbw=206.5), hosts=list(HOSTS) + ["node-004"])},
     "group": list(HOSTS) + ["node-004"], "expect": EIGHT_TABLE, "status": "PASS", "contains": ["8 GiB busbw 400.0 algbw 206.5 GB/s"]},
    {"check": "nccl_scale", "name": "4 nodes under the figure", "facts": {"nccl_fabric": nccl(nccl_row(LAST, 300.0), hosts=list(HOSTS) + ["node-004"])},
     "group": list(HOSTS) + ["node-004"], "expect": EIGHT_TABLE, "status": "FAIL", "contains": ["spine/ECMP oversubscription"]},
    {"check": "nccl_scale", "name": "hung at scale", "facts": {"nccl_fabric": hang()}, "group": list(HOSTS), "status": "FAIL",
     "contains": ["nodes whose ranks never reported: node-001, node-002, node-003", "NCCL hang at this scale"]},
    {"check": "nccl_scale", "name": "srun failed", "facts": {"nccl_fabric": failed("srun", "srun: error: Unable to allocate resources")},
     "group": list(HOSTS), "expect": {"pyramid_nccl_launcher": "srun"}, "status": "ERROR", "contains": ["Unable to allocate"]},

    # --- training_pod (fabric): training_stable across nodes; a slow rank is traced to its node
    {"check": "training_pod", "name": "two nodes, steady", "facts": fabric_train(STEADY, PAIR), "group": PAIR, "status": "PASS",
     "contains": ["CV 0.0%"]},
    {"check": "training_pod", "name": "real run across two ranks", "raw": {"training_fabric": fixture("training_log", "pyramid_h200_x2_mpirun_torchrun_real")},
     "group": ["vm"], "status": "PASS"},
    {"check": "training_pod", "name": "slow rank on node-003", "facts": fabric_train({0: STEADY, 1: STEADY, 2: [120.0] * 10}, HOSTS), "group": list(HOSTS),
     "status": "FAIL", "blamed": ["node-003"], "contains": ["slow rank: rank 2 (node-003) step median 120.0 ms", "One rank slower than the others"]},
    {"check": "training_pod", "name": "slow rank, node unknown",
     "facts": {"training_fabric": train({0: STEADY, 1: STEADY, 2: [120.0] * 10}, ranks=(0, 1, 2))["training_node"]},
     "group": list(HOSTS), "status": "FAIL", "contains": ["rank 2 (node unknown) step median"]},
    {"check": "training_pod", "name": "NCCL timeout across nodes",
     "facts": fabric_train(STEADY, PAIR, timeouts=["Watchdog caught collective operation timeout"]),
     "group": PAIR, "status": "FAIL", "contains": ["NCCL timeout across nodes"]},
    {"check": "training_pod", "name": "hung across nodes", "facts": {"training_fabric": hang(command=TRAIN_CMD)}, "group": PAIR, "status": "FAIL",
     "contains": ["hung: no finish", "NCCL timeout across nodes"]},
    {"check": "training_pod", "name": "unsteady across nodes", "facts": fabric_train(CV_51, PAIR), "group": PAIR, "status": "FAIL",
     "contains": ["2 nodes:", "Step time varies across nodes"]},
    {"check": "training_pod", "name": "crashed across nodes", "facts": fabric_train(STEADY, PAIR, exit_code=1), "group": PAIR, "status": "FAIL",
     "contains": ["training exited 1", "Step time varies across nodes"]},
    {"check": "training_pod", "name": "too few steps", "facts": fabric_train([100.0] * 6, PAIR), "group": PAIR, "status": "ERROR",
     "contains": ["fewer than 3 steps"]},
    {"check": "training_pod", "name": "a real log cut at half with exit 0", "raw": {"training_fabric": CUT_AT_HALF}, "group": ["vm"],
     "expect": {"pyramid_gpus_per_node": 2, "pyramid_train_steps": 12, "pyramid_train_warmup_steps": 2}, "status": "ERROR",
     "contains": ["training log incomplete with exit code 0", "rank 0 reported 6 of 12 steps (last 6)", "cut short"]},
    {"check": "training_pod", "name": "two nodes, a rank's last steps missing with exit 0",
     "facts": fabric_train({0: STEADY, 1: [100.0] * 8}, PAIR), "group": PAIR, "expect": {"pyramid_train_steps": 10},
     "status": "ERROR", "contains": ["rank 1 reported 8 of 10 steps (last 8)", "The training log is not complete"]},
    {"check": "training_pod", "name": "two nodes, a node's second GPU missing from the log",
     "facts": fabric_train(STEADY, PAIR), "group": PAIR, "expect": {"pyramid_gpus_per_node": 2},
     "status": "ERROR", "contains": ["2 ranks in the log where 4 ranks ran (pyramid_gpus_per_node on each of 2 nodes)"]},
    {"check": "training_pod", "name": "launcher failed", "facts": {"training_fabric": failed("mpirun", "mpirun: command not found", "missing")},
     "group": PAIR, "status": "ERROR", "contains": ["mpirun: command not found"]},
]

DATA += [
    # --- exact boundaries and the rarer inputs
    {"check": "nccl_pairs", "name": "a size that is no whole KiB", "facts": {"nccl_fabric": nccl(nccl_row(1536, 10.0, algbw=5.34), hosts=PAIR)},
     "group": PAIR, "expect": {"pyramid_nccl_expected": {"1536": 10}}, "status": "PASS", "contains": ["1536 B busbw 10.0 algbw 5.3 GB/s", "(1536 B 10 GB/s)"]},
    {"check": "nccl_pairs", "name": "rails printed, no network channel at all",
     "facts": {"nccl_fabric": dict(nccl(hosts=PAIR), nccl=dict(nccl(hosts=PAIR)["nccl"], gdr_by_host={}))}, "group": PAIR, "expect": EIGHT_TABLE,
     "status": "ERROR", "contains": ["node-001 printed no network channel (GDRDMA unknown); node-002 printed no network channel"]},
    {"check": "nccl_pairs", "name": "channels printed, no NET/IB line",
     "facts": {"nccl_fabric": dict(nccl(hosts=PAIR), nccl=dict(nccl(hosts=PAIR)["nccl"], nics_by_host={}))},
     "group": PAIR, "expect": EIGHT_TABLE, "status": "ERROR", "contains": ["node-001 printed no 'NET/IB : Using' line"]},
    {"check": "nccl_pairs", "name": "no NCCL facts at all", "facts": {"nccl_fabric": dict(nccl(hosts=PAIR), nccl=None)}, "group": PAIR,
     "expect": EIGHT_TABLE, "status": "ERROR", "contains": ["no NCCL_DEBUG=INFO network lines"]},
]

DATA += [
    {"check": "nccl_pairs", "name": "FQDN printed, short inventory names",
     "facts": {"nccl_fabric": nccl(hosts=["node-001.pod1.example", "node-002.pod1.example"], gdr={"node-002.pod1.example": False})},
     "group": PAIR, "expect": EIGHT_TABLE, "status": "FAIL", "blamed": ["node-002"], "contains": ["node-002: network channels without GDRDMA"]},
]


as_asked(DATA)
