"""The rows of the five classes of wrong judge (issue 33; judge_data/bug_classes.py says what each class is) that
test judging/gpu_health.py. Each row's comment says its class and what a wrong judge of that class would do with it.
"""

from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.bug_classes import NOT_COLLECTED, one_only
from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.gpu_health import layer0_gpu_health as gpu
from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.host import layer0
from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.host.layer0 import CAUSE
from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.roce.layer3_roce_host import RAILS2


DATA = []

# === class 2: a set check done as a membership or overlap check =========================================
DATA += [
    # class 2: every reason of the list fails: the second alone active. A judge reading the list's first passes it.
    {"check": "gpu_clocks", "name": "[2] the second reason of the fail list active alone",
     "raw": {"gpu_query": gpu.edited(gpu.A100, "SW Power Cap                      : Not Active", "SW Power Cap                      : Active", gpu=4)},
     "expect": {"pyramid_gpu_clock_events_fail": ["hw_slowdown", "sw_power_cap"]}, "status": "FAIL",
     "contains": ["GPU 4 (0000:9f:00.0): sw_power_cap active"]},
]

# === class 3: a list element whose data is missing, skipped instead of reported ==========================
DATA += [
    # class 3: a rail /sys/class/infiniband lists whose PCIe link files were not collected
    {"check": "nic_pcie_link", "name": "[3] mlx5_1 listed, its PCIe link not collected: ERROR naming it",
     "raw": {"rdma_sysfs": gpu.LISTED2, "rail_pcie_link": one_only(gpu.SYSFS_GEN5)}, "facts": {"rail_pcie_link": {"mlx5_1": NOT_COLLECTED}},
     "expect": RAILS2, "status": "ERROR", "contains": ["PCIe link not read for mlx5_1: no output was collected"]},
    # class 3: GPU 6's uncorrectable ECC counts N/A (both volatile lines): the others' zeros prove nothing about it
    {"check": "gpu_ecc", "name": "[3] GPU 6's volatile uncorrectable counts N/A: ERROR naming it",
     "raw": {"gpu_query": gpu.edited(gpu.edited(gpu.A100, "SRAM Uncorrectable            : 0", "SRAM Uncorrectable            : N/A", gpu=6),
                                     "DRAM Uncorrectable            : 0", "DRAM Uncorrectable            : N/A", gpu=6)},
     "status": "ERROR", "contains": ["no uncorrectable error counts reported for GPU 6 (0000:c8:00.0)"]},
    # class 3: GPU 2's clock event reasons cut out of its block
    {"check": "gpu_clocks", "name": "[3] GPU 2 reports no clock event reason: ERROR naming it",
     "raw": {"gpu_query": gpu.edited(gpu.A100, "    Clocks Event Reasons\n", "    Clocks Event Reasons Removed\n", gpu=2)},
     "status": "ERROR", "contains": ["clock event reasons unread: GPU 2 (0000:62:00.0): hw_slowdown, hw_thermal_slowdown, "
                                     "hw_power_brake_slowdown, sw_thermal_slowdown not reported"]},
    # class 3: nvidia-smi nvlink -s lists GPUs 0-6 of 8: GPU 7's links are not "fine"
    {"check": "gpu_nvlink", "name": "[3] nvlink -s lists 7 of the 8 GPUs: ERROR naming GPU 7",
     "raw": {"gpu_nvlink": gpu.nvlink_status(gpus=7, links=12), "gpu_query": gpu.A100, "gpu_topology": gpu.TOPO_A100},
     "expect": gpu.A100_LINKS, "status": "ERROR", "contains": ["lists 7 of the 8 GPUs (no GPU 7 (0000:cd:00.0)): cut short"]},
    # class 3: nvlink -e holds GPU 0's counters, the query eight GPUs: the seven others are not error-free
    {"check": "gpu_nvlink_errors", "name": "[3] nvlink -e counters of GPU 0 alone on an 8-GPU node: ERROR naming the others",
     "raw": {"gpu_nvlink_errors": gpu.NVLINK_E_A100, "gpu_query": gpu.A100}, "expect": gpu.A100_LINKS, "status": "ERROR",
     "contains": ["GPU 1 (0000:35:00.0): counters of 0 of 12 links"]},
]

# === class 4: thresholds at their boundary and one step beyond ===========================================
DATA += [
    # class 4: gpu_ecc at most N uncorrectable (inclusive): 2 within 2 passes (the table's), 3 fails
    {"check": "gpu_ecc", "name": "[4] three uncorrectable errors against an allowance of 2",
     "raw": {"gpu_query": gpu.edited(gpu.A100, "DRAM Uncorrectable            : 0", "DRAM Uncorrectable            : 3", gpu=3)},
     "expect": {"pyramid_gpu_ecc_uncorrectable_max": 2}, "status": "FAIL", "contains": ["GPU 3 (0000:67:00.0): 3 uncorrectable volatile"]},
    # class 4: gpu_nvlink_errors: 117 CRC and 2 recoveries on link 5 (the real capture); the table has them passing at
    # 117 / 2 allowed: one under each allowance fails
    {"check": "gpu_nvlink_errors", "name": "[4] 117 CRC errors against an allowance of 116",
     "raw": {"gpu_nvlink_errors": gpu.NVLINK_E_LINK5, "gpu_query": gpu.H100},
     "expect": dict(gpu.A100_LINKS, pyramid_gpu_nvlink_crc_max=116, pyramid_gpu_nvlink_recovery_max=2), "status": "FAIL",
     "contains": ["GPU 0 (0000:00:06.0): link 5 117 CRC"]},
    {"check": "gpu_nvlink_errors", "name": "[4] 2 recoveries against an allowance of 1",
     "raw": {"gpu_nvlink_errors": gpu.NVLINK_E_LINK5, "gpu_query": gpu.H100},
     "expect": dict(gpu.A100_LINKS, pyramid_gpu_nvlink_crc_max=117, pyramid_gpu_nvlink_recovery_max=1), "status": "FAIL",
     "contains": ["GPU 0 (0000:00:06.0): link 5 2 recovery"]},
]

# === class 5: two faults, both named; a FAIL that must name the value, the port or the rail ===============
DATA += [
    # class 5: ECC off on one GPU, uncorrectable errors on another: both named
    {"check": "gpu_ecc", "name": "[5] ECC disabled on GPU 5, an uncorrectable error on GPU 3: both named",
     "raw": {"gpu_query": gpu.edited(gpu.edited(gpu.A100, "DRAM Uncorrectable            : 0", "DRAM Uncorrectable            : 1", gpu=3),
                                     "Current                           : Enabled", "Current                           : Disabled", gpu=5)},
     "status": "FAIL", "contains": ["GPU 3 (0000:67:00.0): 1 uncorrectable volatile, 0 aggregate; GPU 5 (0000:a5:00.0): ECC Disabled"]},
    # class 5: Gen3 in P0 on GPU 0 and x8 on GPU 4: both named
    {"check": "gpu_pcie_link", "name": "[5] GPU 0 at Gen3 in P0, GPU 4 at x8: both named",
     "raw": {"gpu_query": gpu.edited(gpu.edited(gpu.A100, "Device Current            : 4", "Device Current            : 3", gpu=0),
                                     "Current                   : 16x", "Current                   : 8x", gpu=4)},
     "status": "FAIL", "contains": ["GPU 0 (0000:2f:00.0): Gen3 of Gen4 in P0; GPU 4 (0000:9f:00.0): x8 of x16", CAUSE]},
]

layer0.with_sysfs(DATA)
