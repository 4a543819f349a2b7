"""Layer 5 inside the node (issue 38): every ordered GPU pair's P2P bandwidth against its link in nvidia-smi topo -m.

Outputs: the real 2 x H200 runs of CUDA samples' p2pBandwidthLatencyTest and of payloads/p2p_bench.py, with one and two
GPUs (tests/unit/parsers/p2p_bandwidth/, 2026-11-28) beside that host's nvidia-smi topo -m (NV18); the twin's
p2pBandwidthLatencyTest of an 8 x H100 node (twin/pyramid_twin/formats_p2p.py) with a slowed pair or P2P off.
"""

from pyramid_twin import formats, formats_p2p

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core.model import SourceFailure
from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.host.layer0 import fixture

TWO_GPU_TOPO = fixture("linux_nvidia_smi_topo_m", "h200_x2_nvlink_no_nics_real")
ONE_GPU_TOPO = fixture("linux_nvidia_smi_topo_m", "one_gpu")
SAMPLE = fixture("p2p_bandwidth", "h200_x2_sample_real")
BUILTIN = fixture("p2p_bandwidth", "h200_x2_builtin_real")


def state(host="node-001", slow=None, off=()):
    """A twin node of 8 H100 (NV18 between every pair), a pair slowed ("i-j": factor) or without peer access."""
    gpus = [{"index": gpu, "pci": "0000:%02x:00.0" % (0x18 + 0x10 * gpu), "name": "NVIDIA H100 80GB HBM3", "numa": gpu // 4}
            for gpu in range(8)]
    return {"hostname": host, "gpus": gpus, "rails": [], "p2p": {"slow": slow or {}, "off": list(off)}}


def twin(host="node-001", **faults):
    return "p2p_bandwidth", formats_p2p.p2p_bandwidth_latency_test(state(host, **faults), [], {})[1]


def topo8(host="node-001"):
    return "linux_nvidia_smi_topo_m", formats.nvidia_smi_topo(state(host))


def pod(**nodes):
    """node-001..003: each its twin test (keyword arguments: node_002={"slow": {...}}) and topology."""
    hosts = ("node-001", "node-002", "node-003")
    return {host: {"gpu_p2p": twin(host, **nodes.get(host.replace("-", "_"), {})), "gpus_found": topo8(host)} for host in hosts}


DATA = [
    {"check": "gpu_p2p", "name": "the real 2 x H200 host, CUDA samples' test: NV18 both ways",
     "raw": {"node-001": {"gpu_p2p": SAMPLE, "gpus_found": TWO_GPU_TOPO}}, "expect": {"pyramid_gpus_per_node": 2},
     "status": {"node-001": "PASS"}, "contains": {"node-001": ["2 ordered pairs: NV18 362.5-391.8 GB/s"]}},
    {"check": "gpu_p2p", "name": "the real 2 x H200 host, the built-in test",
     "raw": {"node-001": {"gpu_p2p": BUILTIN, "gpus_found": TWO_GPU_TOPO}}, "expect": {"pyramid_gpus_per_node": 2},
     "status": {"node-001": "PASS"}, "contains": {"node-001": ["NV18 375.5-378.6 GB/s"]}},
    {"check": "gpu_p2p", "name": "one GPU (the real host with one visible): no pair, never a pass",
     "raw": {"node-001": {"gpu_p2p": fixture("p2p_bandwidth", "h200_1gpu_sample_real"), "gpus_found": ONE_GPU_TOPO}},
     "expect": {"pyramid_gpus_per_node": 1}, "status": {"node-001": "SKIP"}, "contains": {"node-001": ["1 GPU: no GPU pair to measure"]}},
    {"check": "gpu_p2p", "name": "an NVLink pair far under its links' figure",
     "raw": {"node-001": {"gpu_p2p": fixture("p2p_bandwidth", "h200_x2_sample_real")[0:1] + (
         SAMPLE[1].replace("     0 3932.98 362.46 ", "     0 3932.98 120.40 "),), "gpus_found": TWO_GPU_TOPO}},
     "expect": {"pyramid_gpus_per_node": 2}, "status": {"node-001": "FAIL"},
     "contains": {"node-001": ["GPU 0 -> GPU 1 (NV18): 120.4 GB/s, under 315 GB/s for NV18", "{cause}"]}},
    {"check": "gpu_p2p", "name": "three healthy 8-GPU nodes", "raw": pod(),
     "status": {"node-001": "PASS", "node-002": "PASS", "node-003": "PASS"}, "contains": {"node-002": ["56 ordered pairs: NV18"]}},
    {"check": "gpu_p2p", "name": "a pair at 70% of the pod's NV18 median: above the links' floor, under the pod",
     "raw": pod(node_002={"slow": {"2-6": 0.7}}), "expect": {"pyramid_gpu_p2p_min_fraction": 0.5},
     "status": {"node-001": "PASS", "node-002": "FAIL", "node-003": "PASS"},
     "contains": {"node-002": ["GPU 2 -> GPU 6 (NV18)", "GPU 6 -> GPU 2 (NV18)", "under 80% of the pod's NV18 median"]}},
    {"check": "gpu_p2p", "name": "a pair without peer access: through host memory",
     "raw": pod(node_003={"off": ["1-4"]}),
     "status": {"node-001": "PASS", "node-002": "PASS", "node-003": "FAIL"},
     "contains": {"node-003": ["GPU 1 -> GPU 4 (NV18): no P2P access (CANNOT Access Peer)"]}},
    {"check": "gpu_p2p", "name": "a test that died is no data",
     "facts": {"node-001": {"gpu_p2p": SourceFailure("p2pBandwidthLatencyTest", "p2pBandwidthLatencyTest: exit code 1: Cuda failure "
                                                     "p2pBandwidthLatencyTest.cu:421: 'out of memory'")}},
     "raw": {"node-001": {"gpus_found": topo8()}}, "status": {"node-001": "ERROR"}, "contains": {"node-001": ["out of memory"]}},
    {"check": "gpu_p2p", "name": "the topology not read: the pairs cannot be judged",
     "facts": {"node-001": {"gpus_found": SourceFailure("nvidia-smi topo -m", "nvidia-smi topo -m: did not finish within 60s", "timeout")}},
     "raw": {"node-001": {"gpu_p2p": twin()}}, "status": {"node-001": "ERROR"}, "contains": {"node-001": ["no link to judge its pairs by"]}},
    {"check": "gpu_p2p", "name": "the test saw one GPU, the topology eight (CUDA_VISIBLE_DEVICES?): no pass, no skip",
     "raw": {"node-001": {"gpu_p2p": fixture("p2p_bandwidth", "h200_1gpu_sample_real"), "gpus_found": topo8()}},
     "status": {"node-001": "ERROR"}, "contains": {"node-001": ["the test saw 1 GPU, nvidia-smi topo -m 8 GPUs"]}},
    {"check": "gpu_p2p", "name": "the test saw fewer GPUs than the topology",
     "raw": {"node-001": {"gpu_p2p": SAMPLE, "gpus_found": topo8()}}, "status": {"node-001": "ERROR"},
     "contains": {"node-001": ["the test saw 2 GPUs, nvidia-smi topo -m 8 GPUs"]}},
]
