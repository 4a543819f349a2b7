"""The pinned software stack (issue 38): software_stack at Layer 0 (driver, CUDA runtime, NCCL, kernel, OFED, rdma-core
the same on every node, as pinned, none below a floor) and nccl_loaded at Layer 5 (the NCCL a run loaded against the one
installed, or pinned, and the pod's).

Outputs: the real dpkg-query answer of a lent 2 x H200 host (an NGC CUDA 13.0 image: libnccl2 2.28.3 held, PyTorch's
own NCCL 2.28.9 loaded by the built-in benchmark) and its real all-reduce run, the MLNX_OFED 24.04 host's packages in
that format (tests/unit/parsers/linux_dpkg_query_status/), the twin's all_reduce_perf of 8 GPUs.
"""

from pyramid_twin import formats_nccl

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils import parsing
from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.host.layer0 import HOSTS, everyone, failed, fixture, missing, node

MLNX_PACKAGES = fixture("linux_dpkg_query_status", "mlnx_ofed_2404")
H200_PACKAGES = fixture("linux_dpkg_query_status", "h200_ngc_real")
NO_NCCL_PACKAGES = fixture("linux_dpkg_query_status", "no_nccl")
OFED = {"name": "MLNX_OFED_LINUX", "version": "24.04-0.7.0.0", "release": "MLNX_OFED_LINUX-24.04-0.7.0.0"}
H200_DRIVER = fixture("linux_proc_driver_nvidia_version", "h200_open_kernel_module_real")
H200_RUN = fixture("nccl_tests", "h200_x2_torch_bench_socket_real")
NO_VERSION_RUN = fixture("nccl_tests", "h100_1gpu_builtin_bench_real")  # NCCL_DEBUG unset: no "NCCL version" line
NO_OFED = missing("ofed_info")
SECURITY = "the vendor's security bulletin for this branch"


def packages(text):
    return parsing.parse("linux_dpkg_query_status", text)


def stack_node(**sources):
    """A healthy node of the MLNX_OFED 24.04 pod (driver 550.90.07, CUDA 12.4, NCCL 2.21.5, kernel 5.15.0-119)."""
    facts = node(stack_packages=packages(MLNX_PACKAGES[1]), ofed_release=dict(OFED))
    facts.update(sources)
    return facts


def stack_pod(**hosts):
    return {host: hosts.get(host.replace("-", "_"), stack_node()) for host in HOSTS}


def nvidia(version):
    return {"name": "nvidia", "version": version, "license": None, "open_kernel_module": False}


def twin_run(host="node-001", version=None):
    """(parser, output) of the twin's all_reduce_perf -b 8 -e 4G -f 2 -g 8 on one node under NCCL_DEBUG=INFO, loading
    NCCL ``version`` where given (a node whose run loads another NCCL)."""
    state = {"hostname": host, "nccl": {"peak_busbw": 360.0, "wrong": 0, "hang": False}, "stack": {"nccl_loaded": version or "2.21.5+cuda12.4"},
             "gpus": [{"index": gpu, "pci": "0000:%02x:00.0" % (0x18 + gpu), "name": "NVIDIA H100 80GB HBM3"} for gpu in range(8)]}
    _rc, out, _err, _hung = formats_nccl.all_reduce_perf(state, ["-b", "8", "-e", "4G", "-f", "2", "-g", "8"], {"NCCL_DEBUG": "INFO"})
    return "nccl_tests", out


DATA = [
    # --- software_stack (pod)
    {"check": "software_stack", "name": "one stack on every node", "facts": stack_pod(), "status": everyone("PASS"),
     "contains": everyone(["GPU driver 550.90.07", "CUDA runtime 12.4.127-1", "NCCL 2.21.5-1+cuda12.4", "kernel 5.15.0-119-generic",
                           "OFED MLNX_OFED_LINUX-24.04-0.7.0.0", "rdma-core 2404mlnx51-1.2404066"])},
    # issue 66: a lone node with no pin and no floor was compared with itself and read PASS; it compared nothing. Its
    # rdma-core is libibverbs1's version (dpkg-query denies rdma-core): said as such
    {"check": "software_stack", "name": "the real H200 host alone, nothing pinned: nothing compared, never a pass",
     "facts": {"node-001": node(ofed_release=NO_OFED, osrelease={"release": "6.18.44-fc-v657-gpu", "major": 6, "minor": 18})},
     "raw": {"node-001": {"stack_packages": H200_PACKAGES, "nvidia_module": H200_DRIVER}},
     "status": {"node-001": "SKIP"},
     "contains": {"node-001": ["not applicable: nothing to compare: node-001 is the only node of this run and pyramid_stack pins nothing",
                               "GPU driver 580.159.04", "CUDA runtime 13.0.96-1", "NCCL 2.28.3-1+cuda13.0", "OFED not installed",
                               "rdma-core (as libibverbs1) 50.0-2ubuntu0.2"]}},
    {"check": "software_stack", "name": "the real H200 host alone, its NCCL pinned: held to the pin, rdma-core's stand-in labelled",
     "facts": {"node-001": node(ofed_release=NO_OFED, osrelease={"release": "6.18.44-fc-v657-gpu", "major": 6, "minor": 18})},
     "raw": {"node-001": {"stack_packages": H200_PACKAGES, "nvidia_module": H200_DRIVER}},
     "expect": {"pyramid_stack": {"nccl": "2.28.3"}},
     "status": {"node-001": "PASS"},
     "contains": {"node-001": ["pinned: NCCL 2.28.3", "rdma-core (as libibverbs1) 50.0-2ubuntu0.2"]}},
    {"check": "software_stack", "name": "libibverbs1 stands in for rdma-core only where dpkg-query denies rdma-core",
     "facts": {"node-001": node(ofed_release=NO_OFED, osrelease={"release": "6.18.44-fc-v657-gpu", "major": 6, "minor": 18})},
     # the real answer without its stderr line: rdma-core neither listed nor denied
     "raw": {"node-001": {"stack_packages": (H200_PACKAGES[0], H200_PACKAGES[1].split("\n\n")[0] + "\n"), "nvidia_module": H200_DRIVER}},
     "expect": {"pyramid_stack": {"nccl": "2.28.3"}},
     "status": {"node-001": "ERROR"},
     "contains": {"node-001": ["not read: rdma-core (dpkg-query's answer neither lists nor denies rdma-core)"]}},
    {"check": "software_stack", "name": "a node on another driver is named with its version",
     "facts": stack_pod(node_002=stack_node(nvidia_module=nvidia("535.183.01"))),
     "status": {"node-001": "PASS", "node-002": "FAIL", "node-003": "PASS"},
     "contains": {"node-002": ["GPU driver 535.183.01, the pod's 550.90.07 (2 nodes)", "{cause}"]}},
    {"check": "software_stack", "name": "a node without libnccl2 (and with the inbox rdma-core library)",
     "facts": stack_pod(node_003=stack_node()), "raw": {"node-003": {"stack_packages": NO_NCCL_PACKAGES}},
     "status": {"node-001": "PASS", "node-002": "PASS", "node-003": "FAIL"},
     "contains": {"node-003": ["NCCL not installed, the pod's 2.21.5-1+cuda12.4", "rdma-core (as libibverbs1) 50.0-2ubuntu0.2, the pod's 2404mlnx51"]}},
    {"check": "software_stack", "name": "a node without MLNX_OFED where the pod has it",
     "facts": stack_pod(node_001=stack_node(ofed_release=NO_OFED)),
     "status": {"node-001": "FAIL", "node-002": "PASS", "node-003": "PASS"},
     "contains": {"node-001": ["OFED not installed, the pod's MLNX_OFED_LINUX-24.04-0.7.0.0"]}},
    {"check": "software_stack", "name": "two nodes on two kernels: the pod disagrees, both named",
     "facts": {"node-001": stack_node(), "node-002": stack_node(osrelease={"release": "5.15.0-125-generic", "major": 5, "minor": 15})},
     "status": {"node-001": "FAIL", "node-002": "FAIL"},
     "contains": {"node-001": ["the pod disagrees: 5.15.0-119-generic on 1, 5.15.0-125-generic on 1"]}},
    {"check": "software_stack", "name": "pinned versions matched by their leading parts",
     "facts": stack_pod(),
     "expect": {"pyramid_stack": {"nccl": "2.21", "cuda": "12.4", "driver": "550.90.07", "kernel": "5.15.0-119-generic",
                                  "ofed": "MLNX_OFED_LINUX-24.04"}},
     "status": everyone("PASS"), "contains": everyone(["pinned: GPU driver 550.90.07, CUDA runtime 12.4, NCCL 2.21"])},
    {"check": "software_stack", "name": "the pin beats the majority: every node on another NCCL than pinned",
     "facts": stack_pod(), "expect": {"pyramid_stack": {"nccl": "2.23.4"}},
     "status": everyone("FAIL"), "contains": everyone(["NCCL 2.21.5-1+cuda12.4, pinned 2.23.4", "Not the pinned stack"])},
    {"check": "software_stack", "name": "a pinned kernel flavour is not another flavour of the same release",
     "facts": stack_pod(node_002=stack_node(osrelease={"release": "5.15.0-119-lowlatency", "major": 5, "minor": 15})),
     "expect": {"pyramid_stack": {"kernel": "5.15.0-119-generic"}},
     "status": {"node-001": "PASS", "node-002": "FAIL", "node-003": "PASS"},
     "contains": {"node-002": ["kernel 5.15.0-119-lowlatency, pinned 5.15.0-119-generic"]}},
    {"check": "software_stack", "name": "a driver below the declared floor fails with the floor's reason",
     "facts": stack_pod(node_001=stack_node(nvidia_module=nvidia("550.54.15"))),
     "expect": {"pyramid_stack_min": {"driver": {"version": "550.90.07", "reason": SECURITY}}},
     "status": {"node-001": "FAIL", "node-002": "PASS", "node-003": "PASS"},
     "contains": {"node-001": ["GPU driver 550.54.15 below 550.90.07 (%s)" % SECURITY, "Below the declared floor"]}},
    {"check": "software_stack", "name": "a NIC firmware floor holds for every rail",
     "facts": stack_pod(), "expect": {"pyramid_stack_min": {"nic_firmware": {"version": "28.39.2048", "reason": "link flaps at 400G"}}},
     "status": everyone("FAIL"), "contains": everyone(["NIC firmware 28.39.1002 below 28.39.2048 (link flaps at 400G)"])},
    {"check": "software_stack", "name": "floors the pod is above pass",
     "facts": stack_pod(),
     "expect": {"pyramid_stack_min": {"nccl": {"version": "2.19", "reason": "a known hang"},
                                      "kernel": {"version": "5.15.0-100", "reason": "an RDMA fix"}}},
     "status": everyone("PASS")},
    {"check": "software_stack", "name": "a host without dpkg-query: three components not read, never a pass",
     "facts": stack_pod(node_002=stack_node(stack_packages=missing("dpkg-query"))),
     "status": {"node-001": "PASS", "node-002": "ERROR", "node-003": "PASS"},
     "contains": {"node-002": ["not read: CUDA runtime, NCCL, rdma-core (dpkg-query: command not found)"]}},
    {"check": "software_stack", "name": "an answer that neither lists nor denies libnccl2 is not its absence",
     "facts": stack_pod(node_003=stack_node(stack_packages={"packages": {"cuda-cudart-12-4": {
         "state": "installed", "version": "12.4.127-1", "hold": False, "error": False}, "rdma-core": {
         "state": "installed", "version": "2404mlnx51-1.2404066", "hold": False, "error": False}},
         "installed": ["cuda-cudart-12-4", "rdma-core"], "not_found": []})),
     "status": {"node-001": "PASS", "node-002": "PASS", "node-003": "ERROR"},
     "contains": {"node-003": ["neither lists nor denies libnccl2"]}},
    {"check": "software_stack", "name": "CUDA runtimes the database knows, none installed: a cut list, not proven absent",
     "facts": stack_pod(node_002=stack_node(stack_packages={"packages": {"cuda-cudart-11-2": {
         "state": "not-installed", "version": None, "hold": False, "error": False}, "libnccl2": {
         "state": "installed", "version": "2.21.5-1+cuda12.4", "hold": False, "error": False}, "rdma-core": {
         "state": "installed", "version": "2404mlnx51-1.2404066", "hold": False, "error": False}},
         "installed": ["libnccl2", "rdma-core"], "not_found": []})),
     "status": {"node-001": "PASS", "node-002": "ERROR", "node-003": "PASS"},
     "contains": {"node-002": ["dpkg-query lists cuda-cudart-11-2 but none installed: not proven absent"]}},
    {"check": "software_stack", "name": "ofed_info that printed garbage is not read",
     "facts": stack_pod(node_001=stack_node(ofed_release=failed("ofed_info -s", "ofed_info -s: unparseable output", None))),
     "status": {"node-001": "ERROR", "node-002": "PASS", "node-003": "PASS"}, "contains": {"node-001": ["not read: OFED (ofed_info -s: unparseable output)"]}},

    # --- nccl_loaded (pod, Layer 5)
    {"check": "nccl_loaded", "name": "three nodes load the NCCL they have installed",
     "facts": stack_pod(), "raw": {host: {"nccl_node": twin_run(host)} for host in HOSTS},
     "status": everyone("PASS"), "contains": everyone(["NCCL 2.21.5 loaded", "libnccl2 package installed (2.21.5-1+cuda12.4)"])},
    {"check": "nccl_loaded", "name": "the real H200 host: PyTorch's own NCCL 2.28.9 beside the image's libnccl2 2.28.3",
     "raw": {"node-001": {"nccl_node": H200_RUN, "stack_packages": H200_PACKAGES}}, "expect": {"pyramid_gpus_per_node": 2},
     "status": {"node-001": "FAIL"}, "contains": {"node-001": ["NCCL 2.28.9 loaded, libnccl2 2.28.3-1+cuda13.0 installed", "{cause}"]}},
    {"check": "nccl_loaded", "name": "the real H200 host with NCCL pinned to the one its runs load",
     "raw": {"node-001": {"nccl_node": H200_RUN, "stack_packages": H200_PACKAGES}},
     "expect": {"pyramid_gpus_per_node": 2, "pyramid_stack": {"nccl": "2.28.9"}},
     "status": {"node-001": "PASS"},
     "contains": {"node-001": ["NCCL 2.28.9 loaded (pyramid_stack)", "libnccl2 2.28.3-1+cuda13.0 installed (software_stack holds it"]}},
    {"check": "nccl_loaded", "name": "pinned, but the installed NCCL not read: the cross-check is not made, never a pass",
     "facts": {"node-001": stack_node(stack_packages=missing("dpkg-query"))}, "raw": {"node-001": {"nccl_node": twin_run()}},
     "expect": {"pyramid_stack": {"nccl": "2.21.5"}},
     "status": {"node-001": "ERROR"}, "contains": {"node-001": ["the NCCL installed not read"]}},
    {"check": "nccl_loaded", "name": "two nodes loading two NCCLs, none installed: both named",
     "facts": {"node-001": stack_node(), "node-002": stack_node()},
     "raw": {"node-001": {"nccl_node": twin_run(), "stack_packages": NO_NCCL_PACKAGES},
             "node-002": {"nccl_node": twin_run("node-002", "2.23.4+cuda12.4"), "stack_packages": NO_NCCL_PACKAGES}},
     "status": {"node-001": "FAIL", "node-002": "FAIL"}, "contains": {"node-001": ["the pod disagrees: 2.21.5 on 1, 2.23.4 on 1"]}},
    {"check": "nccl_loaded", "name": "a run that loads another NCCL than the pin",
     "facts": stack_pod(), "raw": {"node-001": {"nccl_node": twin_run()}, "node-002": {"nccl_node": twin_run("node-002")},
                                   "node-003": {"nccl_node": twin_run("node-003", "2.23.4+cuda12.4")}},
     "expect": {"pyramid_stack": {"nccl": "2.21.5"}},
     "status": {"node-001": "PASS", "node-002": "PASS", "node-003": "FAIL"}, "contains": {"node-003": ["NCCL 2.23.4 loaded"]}},
    {"check": "nccl_loaded", "name": "no libnccl2 anywhere: the pod's loaded NCCL is the yardstick",
     "facts": {host: stack_node() for host in HOSTS},
     "raw": {"node-001": {"nccl_node": twin_run(), "stack_packages": NO_NCCL_PACKAGES},
             "node-002": {"nccl_node": twin_run("node-002"), "stack_packages": NO_NCCL_PACKAGES},
             "node-003": {"nccl_node": twin_run("node-003", "2.19.3+cuda12.2"), "stack_packages": NO_NCCL_PACKAGES}},
     "status": {"node-001": "PASS", "node-002": "PASS", "node-003": "FAIL"},
     "contains": {"node-003": ["NCCL 2.19.3 loaded, the pod's 2.21.5 (2 nodes)"]}},
    {"check": "nccl_loaded", "name": "a run without NCCL_DEBUG=INFO printed no version: not read",
     "facts": {"node-001": stack_node()}, "raw": {"node-001": {"nccl_node": NO_VERSION_RUN}}, "expect": {"pyramid_gpus_per_node": 1},
     "status": {"node-001": "ERROR"}, "contains": {"node-001": ["no 'NCCL version' line"]}},
    {"check": "nccl_loaded", "name": "the installed NCCL not read and nothing pinned: no verdict on the loaded one",
     "facts": {"node-001": stack_node(stack_packages=missing("dpkg-query"))}, "raw": {"node-001": {"nccl_node": twin_run()}},
     "status": {"node-001": "ERROR"}, "contains": {"node-001": ["NCCL 2.21.5 loaded; the NCCL installed not read (dpkg-query: command not found)"]}},
]
