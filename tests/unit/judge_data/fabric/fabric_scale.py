"""nccl_pairs and nccl_scale (nccl_group) across node counts (issue 72): the figures a run across N nodes is held to
depend on N and the message size (judging/scale.py). h100_8x400g was measured at 2 nodes (`nodes: 2`): a pair is held to
every figure; above 2 nodes a latency-bound size (the ring's 2(N-1) steps of latency over 5% of its expected time) is
reported, not judged, where the pod has no latency model (these rows have none: the straggler hunt fits it from the
pair runs, tested in test_fabric_scale.py), and a bandwidth-bound size is held to the flat figure (NCCL's busbw).
The 32-node figures: 4 GiB at 335 GB/s busbw (a healthy pod's, NVIDIA/nccl#1218's 32-node H100 all-reduce: 340), 1 MiB
at 1.9 GB/s (the alpha-beta model's about 2: a ring of 62 steps, 16.7 us each, the latency h100_8x400g's 1 MiB
figure implies).
Built on nccl_training's helpers (nccl_tests facts, 8 ranks a node).
"""

from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.nccl_training import PAIR, nccl, nccl_row

MIB, GIB = 1 << 20, 1 << 30
POD = ["node-%03d" % index for index in range(1, 33)]
# algbw of busbw on R ranks: busbw x R / (2(R-1))


def _row(size, busbw, ranks):
    return nccl_row(size, busbw, algbw=busbw * ranks / (2.0 * (ranks - 1)))


def _pod(*rows):
    return {"nccl_fabric": nccl(*[_row(size, busbw, 256) for size, busbw in rows], hosts=POD)}


def _pair(*rows):
    return {"nccl_fabric": nccl(*[_row(size, busbw, 16) for size, busbw in rows], hosts=PAIR)}


HEALTHY_32 = _pod((MIB, 1.9), (64 << 20, 74.0), (GIB, 262.0), (4 * GIB, 335.0))
BASELINE_32 = {"pyramid_nccl_scale_busbw": {"32": {str(MIB): 2.0, str(4 * GIB): 340}}}

DATA = [
    {"check": "nccl_scale", "name": "32 nodes, healthy: 1 MiB latency-bound, reported, not judged; 4 GiB judged flat",
     "facts": HEALTHY_32, "group": POD, "status": "PASS",
     "contains": ["4 GiB busbw 335.0", "GDRDMA on 32 nodes",
                  "reported, not judged: 1 MiB busbw 1.9 GB/s (latency-bound at 32 nodes, no model), 64 MiB busbw 74.0 GB/s",
                  "h100_8x400g as it holds at 32 nodes (measured at 2)", "4 GiB 330.0: bandwidth-bound: flat in N"]},
    {"check": "nccl_scale", "name": "32 nodes, 20% under the platform at 4 GiB: still slow",
     "facts": _pod((MIB, 1.9), (4 * GIB, 264.0)), "group": POD, "status": "FAIL",
     "contains": ["below 85% of the expected figure at 1 of 1 sizes, 4 GiB busbw 264.0 < 280.5"]},
    {"check": "nccl_pairs", "name": "2 nodes, 20% under the platform at 4 GiB: slow",
     "facts": _pair((MIB, 52.0), (4 * GIB, 264.0)), "group": PAIR, "status": "FAIL",
     "contains": ["below 85% of the expected figure at 1 of 2 sizes, 4 GiB busbw 264.0 < 280.5"]},
    {"check": "nccl_pairs", "name": "2 nodes, the table's own count: 1 MiB judged, under it slow",
     "facts": _pair((MIB, 20.0), (4 * GIB, 340.0)), "group": PAIR, "status": "FAIL",
     "contains": ["below 85% of the expected figure at 1 of 2 sizes, 1 MiB busbw 20.0 < 42.5"]},
    {"check": "nccl_scale", "name": "a table declared at 32 nodes judges 1 MiB there",
     "facts": HEALTHY_32, "group": POD, "status": "FAIL",
     "expect": {"pyramid_nccl_expected": {str(MIB): 10, str(4 * GIB): 330}, "pyramid_nccl_expected_nodes": 32},
     "contains": ["1 MiB busbw 1.9 < 8.5", "busbw within 15% of pyramid_nccl_expected (1 MiB 10, 4 GiB 330 GB/s)"]},
    {"check": "nccl_scale", "name": "a table declared at 32 nodes holds at 16 as a floor",
     "facts": {"nccl_fabric": nccl(_row(MIB, 3.6, 128), _row(4 * GIB, 335.0, 128), hosts=POD[:16])}, "group": POD[:16],
     "status": "FAIL", "expect": {"pyramid_nccl_expected": {str(MIB): 10, str(4 * GIB): 330}, "pyramid_nccl_expected_nodes": 32},
     "contains": ["1 MiB busbw 3.6 < 8.5"]},
    {"check": "nccl_scale", "name": "the baseline's figures at 32 nodes: 1 MiB judged against them, within",
     "facts": HEALTHY_32, "group": POD, "status": "PASS", "expect": BASELINE_32,
     "contains": ["pyramid_nccl_scale_busbw[32] (baseline.yml) (1 MiB 2, 4 GiB 340 GB/s)", "4 GiB busbw 335.0"]},
    {"check": "nccl_scale", "name": "the baseline's figures at 32 nodes: 1 MiB under them, slow",
     "facts": _pod((MIB, 1.2), (4 * GIB, 335.0)), "group": POD, "status": "FAIL", "expect": BASELINE_32,
     "contains": ["below 85% of the expected figure at 1 of 2 sizes, 1 MiB busbw 1.2 < 1.7"]},
    {"check": "nccl_scale", "name": "the baseline's figures at 32 nodes do not judge 16",
     "facts": {"nccl_fabric": nccl(_row(MIB, 0.5, 128), _row(4 * GIB, 335.0, 128), hosts=POD[:16])}, "group": POD[:16],
     "status": "PASS", "expect": BASELINE_32, "contains": ["reported, not judged: 1 MiB busbw 0.5 GB/s (latency-bound at 16 nodes, no model)"]},
    {"check": "nccl_scale", "name": "the baseline's pair figures are the table above 2 nodes: 4 GiB held to the pod's own",
     "facts": HEALTHY_32, "group": POD, "status": "FAIL",
     "expect": {"pyramid_nccl_scale_busbw": {"2": {str(MIB): 52.0, str(4 * GIB): 400.0}}},
     "contains": ["pyramid_nccl_scale_busbw[2] (baseline.yml) as it holds at 32 nodes (measured at 2)",
                  "4 GiB busbw 335.0 < 340.0", "1 MiB not judged: latency-bound at 32 nodes, no model"]},
    {"check": "nccl_scale", "name": "32 nodes measuring only latency-bound sizes and no model: nothing judged, an error",
     "facts": _pod((MIB, 1.9), (64 << 20, 74.0)), "group": POD, "status": "ERROR",
     "contains": ["no size judged at 32 nodes: reported, not judged: 1 MiB busbw 1.9 GB/s (latency-bound at 32 nodes, no model)"]},
]
