"""The rows of the five classes of wrong judge (issue 33; judge_data/bug_classes.py says what each class is) that
test judging/gpu_soak.py. Each row's comment says its class and what a wrong judge of that class would do with it.
"""

from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.gpu_health import layer0_gpu_health as gpu
from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.gpu_soak import layer1_gpu_soak as soak


DATA = []

# === class 4: thresholds at their boundary and one step beyond ===========================================
DATA += [
    # class 4: PCIe replays over the soak: at most 8 a minute (inclusive): +40 in 300 s is 8.0, +41 is 8.2
    {"check": "gpu_pcie_replays_soak", "name": "[4] +40 replays in 300 s (exactly 8 a minute) passes",
     "raw": {"gpu_query_soak": soak.window(gpu.A100, gpu.replays(40, gpu=5))}, "status": "PASS", "contains": ["8 GPUs: 40 PCIe replays in 300s"]},
    {"check": "gpu_pcie_replays_soak", "name": "[4] +41 replays in 300 s (8.2 a minute) fails",
     "raw": {"gpu_query_soak": soak.window(gpu.A100, gpu.replays(41, gpu=5))}, "status": "FAIL",
     "contains": ["GPU 5 (0000:a5:00.0): +41 PCIe replays in 300s (8.2 a minute)"]},
    # class 4: NVLink CRC over the soak: at most 100 a second (inclusive): +30000 in 300 s is 100, +30001 over
    {"check": "gpu_nvlink_errors_soak", "name": "[4] CRC +30000 in 300 s (exactly 100 a second) passes",
     "raw": {"gpu_nvlink_errors_soak": soak.window(gpu.NVLINK_E_A100, soak.nvlink_e((0, 30000))), "gpu_query_soak": soak.QUERY_GPU0},
     "expect": gpu.A100_LINKS, "status": "PASS"},
    {"check": "gpu_nvlink_errors_soak", "name": "[4] CRC +30001 in 300 s fails",
     "raw": {"gpu_nvlink_errors_soak": soak.window(gpu.NVLINK_E_A100, soak.nvlink_e((0, 30001))), "gpu_query_soak": soak.QUERY_GPU0},
     "expect": gpu.A100_LINKS, "status": "FAIL", "contains": ["GPU 0 (0000:2f:00.0) link 5: +30001 CRC in 300s"]},
    {"check": "gpu_nvlink_errors_soak", "name": "[4] one recovery within an allowance of 1 passes",
     "raw": {"gpu_nvlink_errors_soak": soak.window(gpu.NVLINK_E_A100, soak.nvlink_e((1, 0))), "gpu_query_soak": soak.QUERY_GPU0},
     "expect": dict(gpu.A100_LINKS, pyramid_gpu_nvlink_recoveries_soak_max=1), "status": "PASS"},
    {"check": "gpu_nvlink_errors_soak", "name": "[4] two recoveries against an allowance of 1 fail",
     "raw": {"gpu_nvlink_errors_soak": soak.window(gpu.NVLINK_E_A100, soak.nvlink_e((2, 0))), "gpu_query_soak": soak.QUERY_GPU0},
     "expect": dict(gpu.A100_LINKS, pyramid_gpu_nvlink_recoveries_soak_max=1), "status": "FAIL",
     "contains": ["GPU 0 (0000:2f:00.0) link 5: +2 recovery in 300s"]},
]
