"""Layer 5, the collectives beside all-reduce on every node (issue 38): all-gather, reduce-scatter, all-to-all and
send/recv each complete with #wrong 0, and each node's busbw is no straggler against the pod median (or the figure the
inventory expects, pyramid_nccl_collective_busbw).

Outputs: the real 2 x H200 runs of payloads/nccl_bench.py --op <op> (tests/unit/parsers/nccl_tests/
h200_x2_builtin_<op>_real.raw, 2026-11-28), and the twin's nccl-tests tables for 8 GPUs (twin/pyramid_twin/
formats_nccl.py: nccl-tests' layout, sizes and busbw factors from its src/<op>.cu; alltoall_perf's in-place #wrong
N/A as nccl-tests 2.18.2 prints it), with a fault where a row needs one.
"""

from pyramid_twin import formats_nccl

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core.model import SourceFailure
from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.host.layer0 import fixture

OPS = ("all_gather", "reduce_scatter", "alltoall", "sendrecv")
GIB4 = str(4 << 30)
TWO_GPUS = {"pyramid_gpus_per_node": 2}
TWO_GPU_TOPO = fixture("linux_nvidia_smi_topo_m", "h200_x2_nvlink_no_nics_real")


def real(op):
    return fixture("nccl_tests", "h200_x2_builtin_%s_real" % op)


def twin(op, peak=360.0, wrong=0, host="node-001"):
    """(parser, output) of <op>_perf -b 8 -e 4G -f 2 -g 8 as the twin's node prints it."""
    state = {"hostname": host, "nccl": {"peak_busbw": peak, "wrong": 0, "hang": False,
                                        "collectives": {name: {"wrong": wrong if name == op else 0, "hang": False} for name in OPS}},
             "gpus": [{"index": gpu, "pci": "0000:%02x:00.0" % (0x18 + gpu), "name": "NVIDIA H100 80GB HBM3"} for gpu in range(8)]}
    rc, out, _err, hung = getattr(formats_nccl, "%s_perf" % op)(state, ["-b", "8", "-e", "4G", "-f", "2", "-g", "8"], {})
    assert rc == 0 and not hung
    return "nccl_tests", out


def died(op):
    command = "torchrun --standalone --nproc_per_node=2 /tmp/pyramid-x/nccl_bench.py --op %s -b 8 -e 4G -f 2" % op
    return SourceFailure(command, "%s: unparseable output (nccl_tests): nccl_tests: no result rows; exit code 1; stderr: "
                                  "[rank1]: torch.distributed.DistBackendError: NCCL error (host: node-001)" % command)


DATA = []
for _op in OPS:
    _source = "nccl_node_%s" % _op
    DATA += [
        {"check": "nccl_%s_correct" % _op, "name": "the real 2 x H200 run: 30 sizes, 0 wrong", "raw": {_source: real(_op)},
         "expect": TWO_GPUS, "status": "PASS",
         "contains": ["0 wrong in 30 sizes"]},
        {"check": "nccl_%s_correct" % _op, "name": "wrong results in this collective alone", "raw": {_source: twin(_op, wrong=4096)},
         "status": "FAIL", "contains": ["4096 wrong", "{cause}"]},
        {"check": "nccl_%s_correct" % _op, "name": "a run that died is no data", "facts": {_source: died(_op)},
         "raw": {"gpus_found": TWO_GPU_TOPO}, "expect": TWO_GPUS, "status": "ERROR", "contains": ["NCCL error", "No data from"]},
        {"check": "nccl_%s_busbw" % _op, "name": "three healthy nodes", "raw": {
            "node-%03d" % n: {_source: twin(_op, host="node-%03d" % n)} for n in (1, 2, 3)},
         "status": {"node-001": "PASS", "node-002": "PASS", "node-003": "PASS"}},
        {"check": "nccl_%s_busbw" % _op, "name": "a straggler in this collective", "raw": {
            "node-001": {_source: twin(_op)}, "node-002": {_source: twin(_op, host="node-002")},
            "node-003": {_source: twin(_op, peak=200.0, host="node-003")}},
         "status": {"node-001": "PASS", "node-002": "PASS", "node-003": "FAIL"}, "contains": {"node-003": ["straggler"]}},
        {"check": "nccl_%s_busbw" % _op, "name": "a node whose run died", "facts": {"node-002": {_source: died(_op)}},
         "raw": {"node-001": {_source: twin(_op)}},
         "status": {"node-001": "SKIP", "node-002": "ERROR"}, "contains": {"node-002": ["NCCL error"]}},
    ]

DATA += [
    # a node alone in the run: only the figure the inventory expects of this collective judges it (or baseline.yml's)
    {"check": "nccl_all_gather_busbw", "name": "the real 2 x H200 run alone, no figure expected", "raw": {"node-001": {
        "nccl_node_all_gather": real("all_gather")}}, "expect": TWO_GPUS, "status": {"node-001": "SKIP"},
     "contains": {"node-001": ["nothing to compare it with", "pyramid_nccl_collective_busbw[all_gather]"]}},
    {"check": "nccl_all_gather_busbw", "name": "the real 2 x H200 run alone, within its expected figure", "raw": {"node-001": {
        "nccl_node_all_gather": real("all_gather")}}, "expect": dict(TWO_GPUS, pyramid_nccl_collective_busbw={"all_gather": {GIB4: 300}}),
     "status": {"node-001": "PASS"}, "contains": {"node-001": ["307.7 GB/s"]}},
    {"check": "nccl_alltoall_busbw", "name": "the real 2 x H200 run alone, under its expected figure", "raw": {"node-001": {
        "nccl_node_alltoall": real("alltoall")}}, "expect": dict(TWO_GPUS, pyramid_nccl_collective_busbw={"alltoall": {GIB4: 450}}),
     "status": {"node-001": "FAIL"}, "contains": {"node-001": ["below the expected figure: 337.5 GB/s"]}},
    # nccl-tests 2.18.2's alltoall_perf validates out-of-place only and prints in-place #wrong N/A: what it checked is judged
    {"check": "nccl_alltoall_correct", "name": "alltoall_perf's in-place N/A", "raw": {"nccl_node_alltoall": twin("alltoall")},
     "status": "PASS", "contains": ["in-place not validated by alltoall_perf (#wrong N/A)"]},
    # ... which is no licence for the other collectives: all-gather with N/A is a run without -c 1
    {"check": "nccl_all_gather_correct", "name": "in-place N/A on all-gather is not validated",
     "raw": {"nccl_node_all_gather": twin("alltoall")}, "status": "ERROR", "contains": ["results not validated"]},
    {"check": "nccl_reduce_scatter_correct", "name": "one GPU: a collective of one rank measures nothing",
     "raw": {"nccl_node_reduce_scatter": twin("reduce_scatter")}, "expect": {"pyramid_gpus_per_node": 1}, "status": "FAIL",
     "contains": ["8 ranks ran where the inventory promises 1 GPU"]},
    {"check": "nccl_alltoall_correct", "name": "a hang names the ranks", "facts": {"nccl_node_alltoall": SourceFailure(
        "alltoall_perf -b 8 -e 4G -f 2 -g 8", "timed out after 900 s", status="timeout",
        partial={"ranks": [{"rank": 0, "host": "node-001", "device": 0}], "sizes_done": [1024]})}, "status": "FAIL",
     "contains": ["hung: ranks 0 on node-001 never finished; last size completed: 1024 B"]},
]
