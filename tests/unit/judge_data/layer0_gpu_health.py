"""GPU health judges at Layer 0 (catalog/gpu_health.yml, issue 19) as a data table.

Every row is fed real outputs (tests/unit/parsers fixtures): nvidia-smi -q of a real 1 x H100 (driver
580.159.04) and of a public 8 x A100-SXM4 capture (driver 535.129.03), real kernel log lines, or those
outputs with one value changed by hand (an ECC count raised, a link width lowered), as layer1_fec does.
"""

from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.layer0 import CAUSE, failed, fixture

H100 = fixture("linux_nvidia_smi_q", "h100_580_real")
A100 = fixture("linux_nvidia_smi_q", "a100_sxm4_8gpu_535_real")
NO_XID = fixture("linux_dmesg_xid", "h100_580_no_xid_real")
XID79_H100 = fixture("linux_dmesg_xid", "h100_xid79_real")
XID79_JOURNAL = fixture("linux_dmesg_xid", "journalctl_xid79")
NOT_SMI = fixture("linux_nvidia_smi_q", "driver_not_loaded")
NO_NVLINK = fixture("linux_nvidia_smi_nvlink_s", "h100_pcie_no_nvlink_real")


def edited(source, old, new, gpu=0):
    """A real output with one line changed by hand: the first `old` inside GPU block `gpu` (0-based)."""
    parser, text = source
    head, *blocks = text.split("\nGPU 0000")
    block = blocks[gpu]
    assert old in block, (old, gpu)
    blocks[gpu] = block.replace(old, new, 1)
    return parser, "\nGPU 0000".join([head] + blocks)


def on_a100_gpu2(source):
    """A real Xid line moved onto the A100 capture's GPU 2 (bus 0000:62:00)."""
    parser, text = source
    return parser, text.replace("PCI:0000:01:00", "PCI:0000:62:00")


def nvlink_status(gpus=8, links=18, rate="26.562 GB/s", odd=None):
    """nvidia-smi nvlink -s in its real layout (the real H100/H200 captures: GPU line, then a tab-indented line per link)."""
    lines = []
    for gpu in range(gpus):
        lines.append("GPU %d: NVIDIA A100-SXM4-40GB (UUID: GPU-faae5314-b87e-87c0-400b-b7cfb9e7b31%d)" % (gpu, gpu))
        for link in range(links):
            lines.append("\t Link %d: %s" % (link, (odd or {}).get((gpu, link), rate)))
    return "".join(line + "\n" for line in lines)


GOOD = {"gpu_query": A100}

DATA = [
    # --- gpu_xid -------------------------------------------------------------------------------
    {"check": "gpu_xid", "name": "real H100: no Xid since boot", "raw": {"kernel_log": NO_XID, "gpu_query": H100},
     "status": "PASS", "contains": ["no Xid in 3 kernel log lines since boot"]},
    {"check": "gpu_xid", "name": "real Xid 79 on a GPU nvidia-smi no longer lists: named by bus id",
     "raw": {"kernel_log": XID79_H100, "gpu_query": H100}, "status": "FAIL",
     "contains": ["GPU at 0000:91:00: Xid 79", CAUSE]},
    {"check": "gpu_xid", "name": "Xid 79 on GPU 2 of 8: named by index and bus id",
     "raw": {"kernel_log": on_a100_gpu2(XID79_JOURNAL), "gpu_query": A100}, "status": "FAIL",
     "contains": ["GPU 2 (0000:62:00.0): Xid 79"]},
    {"check": "gpu_xid", "name": "Xid 13 (application) is reported, not failed",
     "raw": {"kernel_log": on_a100_gpu2(("linux_dmesg_xid", XID79_JOURNAL[1].replace("): 79,", "): 13,"))), "gpu_query": A100},
     "status": "PASS", "contains": ["reported (not drain codes): GPU 2 (0000:62:00.0): Xid 13"]},
    {"check": "gpu_xid", "name": "Xid 79 not in an overridden drain list: reported",
     "raw": {"kernel_log": on_a100_gpu2(XID79_JOURNAL), "gpu_query": A100}, "expect": {"pyramid_gpu_xid_drain_codes": [48]},
     "status": "PASS", "contains": ["no drain-class Xid", "Xid 79"]},
    {"check": "gpu_xid", "name": "nvidia-smi failed: the Xid still fails, by bus id",
     "raw": {"kernel_log": on_a100_gpu2(XID79_JOURNAL)}, "facts": {"gpu_query": failed("nvidia-smi -q", "did not finish within 60s (hung?)", "timeout")},
     "status": "FAIL", "contains": ["GPU at 0000:62:00: Xid 79"]},
    {"check": "gpu_xid", "name": "no kernel log: ERROR naming the command",
     "facts": {"kernel_log": failed("dmesg", "dmesg: read kernel buffer failed: Operation not permitted")}, "raw": {"gpu_query": A100},
     "status": "ERROR", "contains": ["Operation not permitted", "`dmesg`"]},
    {"check": "gpu_xid", "name": "not a kernel log: ERROR", "raw": {"kernel_log": fixture("linux_dmesg_xid", "not_a_kernel_log"), "gpu_query": A100},
     "status": "ERROR", "contains": ["no kernel log line"]},
    # --- gpu_ecc -------------------------------------------------------------------------------
    {"check": "gpu_ecc", "name": "real H100 (580: SRAM parity and SEC-DED split)", "raw": {"gpu_query": H100},
     "status": "PASS", "contains": ["1 GPU: ECC on, no uncorrectable errors"]},
    {"check": "gpu_ecc", "name": "real 8 x A100 (535)", "raw": GOOD, "status": "PASS", "contains": ["8 GPUs: ECC on"]},
    {"check": "gpu_ecc", "name": "volatile DRAM uncorrectable on GPU 3",
     "raw": {"gpu_query": edited(A100, "DRAM Uncorrectable            : 0", "DRAM Uncorrectable            : 2", gpu=3)},
     "status": "FAIL", "contains": ["GPU 3 (0000:67:00.0): 2 uncorrectable volatile, 0 aggregate", CAUSE]},
    {"check": "gpu_ecc", "name": "aggregate SRAM uncorrectable only (an old error, lifetime count)",
     "raw": {"gpu_query": edited(A100, "Aggregate\n            SRAM Correctable              : 0\n            SRAM Uncorrectable            : 0",
                                 "Aggregate\n            SRAM Correctable              : 0\n            SRAM Uncorrectable            : 1", gpu=7)},
     "status": "FAIL", "contains": ["GPU 7 (0000:cd:00.0): 0 uncorrectable volatile, 1 aggregate"]},
    {"check": "gpu_ecc", "name": "580 SRAM SEC-DED counts as uncorrectable",
     "raw": {"gpu_query": edited(H100, "SRAM Uncorrectable SEC-DED                 : 0", "SRAM Uncorrectable SEC-DED                 : 1")},
     "status": "FAIL", "contains": ["GPU 0 (0000:00:06.0): 1 uncorrectable volatile"]},
    {"check": "gpu_ecc", "name": "two errors within an inventory allowance of 2",
     "raw": {"gpu_query": edited(A100, "DRAM Uncorrectable            : 0", "DRAM Uncorrectable            : 2", gpu=3)},
     "expect": {"pyramid_gpu_ecc_uncorrectable_max": 2}, "status": "PASS", "contains": ["no uncorrectable errors"]},
    {"check": "gpu_ecc", "name": "ECC disabled",
     "raw": {"gpu_query": edited(A100, "Current                           : Enabled", "Current                           : Disabled", gpu=5)},
     "status": "FAIL", "contains": ["GPU 5 (0000:a5:00.0): ECC Disabled"]},
    {"check": "gpu_ecc", "name": "nvidia-smi cannot reach the driver: ERROR, never PASS", "raw": {"gpu_query": NOT_SMI},
     "status": "ERROR", "contains": ["no NVSMI LOG header"]},
    {"check": "gpu_ecc", "name": "a report cut short: ERROR", "raw": {"gpu_query": fixture("linux_nvidia_smi_q", "a100_535_cut_short")},
     "status": "ERROR", "contains": ["1 GPU blocks for 8 attached GPUs"]},
    # --- gpu_row_remap -------------------------------------------------------------------------
    {"check": "gpu_row_remap", "name": "real H100: nothing pending", "raw": {"gpu_query": H100}, "status": "PASS",
     "contains": ["1 GPU: no remap pending or failed"]},
    {"check": "gpu_row_remap", "name": "remap pending on GPU 6",
     "raw": {"gpu_query": edited(A100, "Pending                           : No", "Pending                           : Yes", gpu=6)},
     "status": "FAIL", "contains": ["GPU 6 (0000:c8:00.0): remapping pending", CAUSE]},
    {"check": "gpu_row_remap", "name": "remapping failure: its own cause",
     "raw": {"gpu_query": edited(A100, "Remapping Failure Occurred        : No", "Remapping Failure Occurred        : Yes", gpu=1)},
     "status": "FAIL", "contains": ["GPU 1 (0000:35:00.0): remapping failure occurred", "no spare rows left"]},
    {"check": "gpu_row_remap", "name": "no GPU with a row remapper: not applicable",
     "raw": {"gpu_query": edited(H100, "Pending                                        : No", "Pending                                        : N/A")},
     "status": "SKIP", "contains": ["not applicable: no GPU reports remapped rows"]},
    {"check": "gpu_row_remap", "name": "nvidia-smi cannot reach the driver: ERROR", "raw": {"gpu_query": NOT_SMI},
     "status": "ERROR", "contains": ["no NVSMI LOG header"]},
    # --- gpu_pcie_link -------------------------------------------------------------------------
    {"check": "gpu_pcie_link", "name": "real H100 at Gen5 x16", "raw": {"gpu_query": H100}, "status": "PASS",
     "contains": ["1 GPU at Gen5 x16; 0 PCIe replays"]},
    {"check": "gpu_pcie_link", "name": "real 8 x A100 at Gen4 x16 (host max 3 is not judged)", "raw": GOOD, "status": "PASS",
     "contains": ["8 GPUs at Gen4 x16"]},
    {"check": "gpu_pcie_link", "name": "GPU 4 trained at x8",
     "raw": {"gpu_query": edited(A100, "Current                   : 16x", "Current                   : 8x", gpu=4)},
     "status": "FAIL", "contains": ["GPU 4 (0000:9f:00.0): x8 of x16", CAUSE]},
    {"check": "gpu_pcie_link", "name": "Gen3 of Gen4 in P0",
     "raw": {"gpu_query": edited(A100, "Device Current            : 4", "Device Current            : 3", gpu=0)},
     "status": "FAIL", "contains": ["GPU 0 (0000:2f:00.0): Gen3 of Gen4 in P0"]},
    {"check": "gpu_pcie_link", "name": "Gen1 in P8: power saving, not judged",
     "raw": {"gpu_query": edited(edited(A100, "Device Current            : 4", "Device Current            : 1", gpu=0),
                                 "Performance State                     : P0", "Performance State                     : P8", gpu=0)},
     "status": "PASS", "contains": ["Gen1 of Gen4 in P8 (not judged outside P0)"]},
    {"check": "gpu_pcie_link", "name": "width not reported: ERROR",
     "raw": {"gpu_query": edited(A100, "Current                   : 16x", "Current                   : N/A", gpu=2)},
     "status": "ERROR", "contains": ["not reported for GPU 2 (0000:62:00.0)"]},
    # --- gpu_nvlink ----------------------------------------------------------------------------
    {"check": "gpu_nvlink", "name": "8 GPUs x 12 links (A100)", "raw": {"gpu_nvlink": nvlink_status(links=12), "gpu_query": A100},
     "expect": {"pyramid_gpu_nvlinks": 12}, "status": "PASS", "contains": ["8 GPUs x 12 links at 26.562 GB/s"]},
    {"check": "gpu_nvlink", "name": "one link inactive",
     "raw": {"gpu_nvlink": nvlink_status(odd={(5, 3): "<inactive>"}), "gpu_query": A100}, "status": "FAIL",
     "contains": ["GPU 5 (0000:a5:00.0): link 3 inactive", CAUSE]},
    {"check": "gpu_nvlink", "name": "links trained slow (the public H200 capture's 1.562 GB/s)",
     "raw": {"gpu_nvlink": nvlink_status(odd={(0, 2): "1.0 GB/s", (0, 3): "1.562 GB/s"}), "gpu_query": A100}, "status": "FAIL",
     "contains": ["GPU 0 (0000:2f:00.0): link 2, 3 below 26.562 GB/s"]},
    {"check": "gpu_nvlink", "name": "fewer links than expected", "raw": {"gpu_nvlink": nvlink_status(links=12), "gpu_query": A100},
     "status": "FAIL", "contains": ["12 of 18 links listed"]},
    {"check": "gpu_nvlink", "name": "real PCIe H100: no NVLink where 18 are expected", "raw": {"gpu_nvlink": NO_NVLINK, "gpu_query": H100},
     "status": "FAIL", "contains": ["GPU 0 (0000:00:06.0): 0 of 18 links listed"]},
    {"check": "gpu_nvlink", "name": "real PCIe H100 with pyramid_gpu_nvlinks 0: not applicable",
     "raw": {"gpu_nvlink": NO_NVLINK, "gpu_query": H100}, "expect": {"pyramid_gpu_nvlinks": 0},
     "status": "SKIP", "contains": ["not applicable: pyramid_gpu_nvlinks is 0"]},
    {"check": "gpu_nvlink", "name": "another command's error: ERROR",
     "raw": {"gpu_nvlink": fixture("linux_nvidia_smi_nvlink_s", "other_command_error"), "gpu_query": A100},
     "status": "ERROR", "contains": ["not nvidia-smi nvlink -s output"]},
    # --- gpu_fabric ----------------------------------------------------------------------------
    {"check": "gpu_fabric", "name": "real H100 PCIe: no fabric state, not applicable", "raw": {"gpu_query": H100},
     "status": "SKIP", "contains": ["not applicable: no GPU reports a fabric state"]},
    {"check": "gpu_fabric", "name": "fabric Completed / Success",
     "raw": {"gpu_query": edited(edited(H100, "State" + " " * 42 + ": N/A", "State" + " " * 42 + ": Completed"),
                                 "Status" + " " * 41 + ": N/A", "Status" + " " * 41 + ": Success")},
     "status": "PASS", "contains": ["1 GPU: fabric Completed/Success"]},
    {"check": "gpu_fabric", "name": "fabric manager down: In Progress",
     "raw": {"gpu_query": edited(H100, "State                                          : N/A", "State                                          : In Progress")},
     "status": "FAIL", "contains": ["GPU 0 (0000:00:06.0): State In Progress, Status N/A", CAUSE]},
    {"check": "gpu_fabric", "name": "a report cut short: ERROR", "raw": {"gpu_query": fixture("linux_nvidia_smi_q", "a100_535_cut_short")},
     "status": "ERROR", "contains": ["cut short"]},
    # --- gpu_clocks ----------------------------------------------------------------------------
    {"check": "gpu_clocks", "name": "real H100 idle", "raw": {"gpu_query": H100}, "status": "PASS", "contains": ["1 GPU: no slowdown active"]},
    {"check": "gpu_clocks", "name": "HW thermal slowdown at idle on GPU 7",
     "raw": {"gpu_query": edited(edited(A100, "HW Slowdown                       : Not Active", "HW Slowdown                       : Active", gpu=7),
                                 "HW Thermal Slowdown           : Not Active", "HW Thermal Slowdown           : Active", gpu=7)},
     "status": "FAIL", "contains": ["GPU 7 (0000:cd:00.0): hw_slowdown, hw_thermal_slowdown active", CAUSE]},
    {"check": "gpu_clocks", "name": "SW power cap is not in the default list",
     "raw": {"gpu_query": edited(A100, "SW Power Cap                      : Not Active", "SW Power Cap                      : Active", gpu=1)},
     "status": "PASS", "contains": ["8 GPUs: no slowdown active"]},
    {"check": "gpu_clocks", "name": "SW power cap listed by the inventory",
     "raw": {"gpu_query": edited(A100, "SW Power Cap                      : Not Active", "SW Power Cap                      : Active", gpu=1)},
     "expect": {"pyramid_gpu_clock_events_fail": ["sw_power_cap"]}, "status": "FAIL", "contains": ["GPU 1 (0000:35:00.0): sw_power_cap active"]},
    {"check": "gpu_clocks", "name": "nvidia-smi hung: ERROR naming it",
     "facts": {"gpu_query": failed("nvidia-smi -q", "did not finish within 60s (hung?)", "timeout")},
     "status": "ERROR", "contains": ["nvidia-smi -q", "hung"]},
]
