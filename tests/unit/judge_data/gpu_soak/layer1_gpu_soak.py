"""The GPUs' links over the soak (Layer 1 on the GPU nodes, catalog/gpu_health.yml) as a data table.

Each window is two real outputs a soak apart: the public 8 x A100-SXM4 `nvidia-smi -q` (driver 535.129.03) and
the public A100 `nvidia-smi nvlink -e` (driver 535.161.08), with one counter raised by hand in the second read
(layer0_gpu_health's `edited`), as layer1_3_switch builds its switch counter windows.
"""

from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.host.layer0 import CAUSE, fixture
from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.gpu_health.layer0_gpu_health import A100, A100_LINKS, NVLINK_E_A100, replays

NVLINK_E_LINK5 = fixture("linux_nvidia_smi_nvlink_e", "a100_535_link5_errors")  # 43 replays, 2 recoveries, 117 CRC on link 5


def window(before, after, seconds=300):
    return {"before": before, "after": after, "seconds": seconds}


def nvlink_e(link5=None, drop=None):
    """The real A100 nvlink -e with link 5's counters set (recovery, crc) or link `drop` left out."""
    parser, text = NVLINK_E_A100
    if link5:
        recovery, crc = link5
        text = text.replace("\t Link 5: Recovery Errors: 0", "\t Link 5: Recovery Errors: %d" % recovery)
        text = text.replace("\t Link 5: CRC Errors: 0", "\t Link 5: CRC Errors: %d" % crc)
    if drop is not None:
        text = "".join(line for line in text.splitlines(True) if not line.startswith("\t Link %d:" % drop))
    return parser, text


QUERY = window(A100, A100)


def _gpu0(source):
    """The 8 x A100 nvidia-smi -q with GPU 0 alone (Attached GPUs 1): the node the one-GPU nvlink -e capture is from."""
    parser, text = source
    head, first = text.split("\nGPU 0000")[:2]
    return parser, head.replace("Attached GPUs                             : 8", "Attached GPUs                             : 1") + "\nGPU 0000" + first


QUERY_GPU0 = window(_gpu0(A100), _gpu0(A100))  # beside NVLINK_E_A100, which lists GPU 0's links alone
DATA = [
    # --- gpu_pcie_replays_soak ----------------------------------------------------------------------
    {"check": "gpu_pcie_replays_soak", "name": "real 8 x A100, no replay in either read",
     "raw": {"gpu_query_soak": QUERY}, "status": "PASS", "contains": ["8 GPUs: 0 PCIe replays in 300s"]},
    {"check": "gpu_pcie_replays_soak", "name": "GPU 2 +12 replays in 60 s (12 a minute, over DCGM's 8)",
     "raw": {"gpu_query_soak": window(A100, replays(12, gpu=2), 60)}, "status": "FAIL",
     "contains": ["GPU 2 (0000:62:00.0): +12 PCIe replays in 60s (12.0 a minute)", CAUSE]},
    {"check": "gpu_pcie_replays_soak", "name": "40 replays since reset at both reads: not rising, PASS (Layer 0 judges the count)",
     "raw": {"gpu_query_soak": window(replays(40, gpu=3), replays(40, gpu=3))}, "status": "PASS",
     "contains": ["8 GPUs: 0 PCIe replays in 300s"]},
    {"check": "gpu_pcie_replays_soak", "name": "+30 in 300 s (6 a minute) is within DCGM's 8",
     "raw": {"gpu_query_soak": window(A100, replays(30, gpu=1))}, "status": "PASS", "contains": ["30 PCIe replays in 300s"]},
    {"check": "gpu_pcie_replays_soak", "name": "a stricter pod: none a minute",
     "raw": {"gpu_query_soak": window(A100, replays(1, gpu=1))}, "expect": {"pyramid_gpu_pcie_replays_per_minute_max": 0},
     "status": "FAIL", "contains": ["GPU 1 (0000:35:00.0): +1 PCIe replays in 300s"]},
    {"check": "gpu_pcie_replays_soak", "name": "counter went backwards (GPU reset in the soak): ERROR, never PASS",
     "raw": {"gpu_query_soak": window(replays(50, gpu=0), A100)}, "status": "ERROR",
     "contains": ["GPU 0 (0000:2f:00.0): replays went from 50 to 0 (the GPU or its counters were reset during the soak)"]},
    {"check": "gpu_pcie_replays_soak", "name": "a GPU gone from the second read: FAIL naming it",
     "raw": {"gpu_query_soak": window(A100, ("linux_nvidia_smi_q", A100[1].replace("00000000:9F:00.0", "00000000:A0:00.0")))},
     "status": "FAIL", "contains": ["GPU 4 (0000:9f:00.0): listed at the snapshot, gone from nvidia-smi now",
                                    "GPU 4 (0000:a0:00.0): not listed at the snapshot"]},
    {"check": "gpu_pcie_replays_soak", "name": "the second read failed: ERROR naming the command",
     "raw": {"gpu_query_soak": window(A100, ("linux_nvidia_smi_q", "NVIDIA-SMI has failed because it couldn't communicate with the "
                                                                   "NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running.\n"))},
     "status": "ERROR", "contains": ["NVIDIA driver"]},
    # --- gpu_nvlink_errors_soak ---------------------------------------------------------------------
    {"check": "gpu_nvlink_errors_soak", "name": "real A100: 12 links, nothing rising",
     "raw": {"gpu_nvlink_errors_soak": window(NVLINK_E_A100, NVLINK_E_A100), "gpu_query_soak": QUERY_GPU0}, "expect": A100_LINKS,
     "status": "PASS", "contains": ["12 links over 300s: no recovery, CRC under the allowance"]},
    {"check": "gpu_nvlink_errors_soak", "name": "link 5 errors since reset but none added: PASS (Layer 0 judges the count)",
     "raw": {"gpu_nvlink_errors_soak": window(NVLINK_E_LINK5, NVLINK_E_LINK5), "gpu_query_soak": QUERY_GPU0}, "expect": A100_LINKS,
     "status": "PASS"},
    {"check": "gpu_nvlink_errors_soak", "name": "link 5 retrained twice in the soak: FAIL naming GPU and link",
     "raw": {"gpu_nvlink_errors_soak": window(NVLINK_E_A100, nvlink_e((2, 0))), "gpu_query_soak": QUERY_GPU0}, "expect": A100_LINKS,
     "status": "FAIL", "contains": ["GPU 0 (0000:2f:00.0) link 5: +2 recovery in 300s", CAUSE]},
    {"check": "gpu_nvlink_errors_soak", "name": "CRC +40000 in 300 s (133 a second, over DCGM's 100)",
     "raw": {"gpu_nvlink_errors_soak": window(NVLINK_E_A100, nvlink_e((0, 40000))), "gpu_query_soak": QUERY_GPU0}, "expect": A100_LINKS,
     "status": "FAIL", "contains": ["link 5: +40000 CRC in 300s"]},
    {"check": "gpu_nvlink_errors_soak", "name": "CRC +117 in 300 s is corrected noise: PASS",
     "raw": {"gpu_nvlink_errors_soak": window(NVLINK_E_A100, nvlink_e((0, 117))), "gpu_query_soak": QUERY_GPU0}, "expect": A100_LINKS,
     "status": "PASS"},
    {"check": "gpu_nvlink_errors_soak", "name": "a link missing from the second read: ERROR, never PASS",
     "raw": {"gpu_nvlink_errors_soak": window(NVLINK_E_A100, nvlink_e(drop=7)), "gpu_query_soak": QUERY_GPU0}, "expect": A100_LINKS,
     "status": "ERROR", "contains": ["link 7: not listed now"]},
    {"check": "gpu_nvlink_errors_soak", "name": "GPU 0's links alone on an 8-GPU node: ERROR naming the seven unread, never PASS",
     "raw": {"gpu_nvlink_errors_soak": window(NVLINK_E_A100, NVLINK_E_A100), "gpu_query_soak": QUERY}, "expect": A100_LINKS,
     "status": "ERROR", "contains": ["NVLink error counters not read for every GPU", "GPU 1 (0000:35:00.0): not listed at either read"]},
    {"check": "gpu_nvlink_errors_soak", "name": "GPU 0's links alone, link 5 rising: FAIL, the unread GPUs said too",
     "raw": {"gpu_nvlink_errors_soak": window(NVLINK_E_A100, nvlink_e((2, 0))), "gpu_query_soak": QUERY}, "expect": A100_LINKS,
     "status": "FAIL", "contains": ["link 5: +2 recovery in 300s", "GPU 7 (0000:cd:00.0): not listed at either read"]},
    {"check": "gpu_nvlink_errors_soak", "name": "counters reset during the soak (nvidia-smi nvlink -r): ERROR",
     "raw": {"gpu_nvlink_errors_soak": window(nvlink_e((3, 0)), NVLINK_E_A100), "gpu_query_soak": QUERY_GPU0}, "expect": A100_LINKS,
     "status": "ERROR", "contains": ["recovery went from 3 to 0"]},
    {"check": "gpu_nvlink_errors_soak", "name": "no link at either read where NVLink is expected: ERROR",
     "raw": {"gpu_nvlink_errors_soak": window(("linux_nvidia_smi_nvlink_e", ""), ("linux_nvidia_smi_nvlink_e", "")),
             "gpu_query_soak": QUERY_GPU0}, "status": "ERROR", "contains": ["listed no link at either read, where 18 NVLinks per GPU"]},
    {"check": "gpu_nvlink_errors_soak", "name": "PCIe GPUs (pyramid_gpu_nvlinks 0): not applicable",
     "raw": {"gpu_nvlink_errors_soak": window(("linux_nvidia_smi_nvlink_e", ""), ("linux_nvidia_smi_nvlink_e", "")),
             "gpu_query_soak": QUERY_GPU0}, "expect": {"pyramid_gpu_nvlinks": 0}, "status": "SKIP", "contains": ["not applicable"]},
]
