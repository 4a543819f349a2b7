"""GPU health judges at Layer 0 (catalog/gpu_health.yml, issue 19) as a data table.

Every row is fed real outputs (tests/unit/parsers fixtures): nvidia-smi -q of a real 1 x H100 (driver
580.159.04) and of a public 8 x A100-SXM4 capture (driver 535.129.03), real kernel log lines, or those
outputs with one value changed by hand (an ECC count raised, a link width lowered), as layer1_fec does.
"""

from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.host.layer0 import CAUSE, failed, fixture

H100 = fixture("linux_nvidia_smi_q", "h100_580_real")
A100 = fixture("linux_nvidia_smi_q", "a100_sxm4_8gpu_535_real")
NVL2 = fixture("linux_nvidia_smi_q", "h100_nvl_2gpu_550_real")
NO_XID = fixture("linux_dmesg_json", "h100_580_no_xid_real")  # dmesg --json: whole when it decodes
NO_XID_PLAIN = fixture("linux_dmesg_xid", "h100_580_no_xid_real")  # plain dmesg: no end marker
XID79_H100 = fixture("linux_dmesg_xid", "h100_xid79_real")
XID79_H100_JSON = fixture("linux_dmesg_json", "h100_xid79")
XID79_JOURNAL = fixture("linux_dmesg_xid", "journalctl_xid79")  # journalctl without --show-cursor: no end either
XID79_CURSOR = fixture("linux_journalctl_kernel_xid", "xid79_cursor")
NOT_SMI = fixture("linux_nvidia_smi_q", "driver_not_loaded")
NO_NVLINK = fixture("linux_nvidia_smi_nvlink_s", "h100_pcie_no_nvlink_real")
TOPO_A100 = fixture("linux_nvidia_smi_topo_m", "a100_p4d_8gpu_real")  # 8 x A100-SXM4: NV12 between every pair
TOPO_H100 = fixture("linux_nvidia_smi_topo_m", "h100_1gpu_pcie_real")  # the real PCIe H100 alone: no NV#
NVLINK_E_A100 = fixture("linux_nvidia_smi_nvlink_e", "a100_535_gpu0_real")
NVLINK_E_LINK5 = fixture("linux_nvidia_smi_nvlink_e", "a100_535_link5_errors")
NVLINK_E_NONE = fixture("linux_nvidia_smi_nvlink_e", "h100_pcie_no_nvlink_real")
SYSFS_GEN5 = fixture("linux_sysfs_pcie_link", "h100_gen5_x16_real")
SYSFS_X8 = fixture("linux_sysfs_pcie_link", "cx7_gen4_x8")
DCGM3 = fixture("linux_dcgmi_diag_json", "dcgm_3_1_8gpu_real")
DCGM3_GPU5 = fixture("linux_dcgmi_diag_json", "dcgm_3_1_gpu5_fail")
DCGM4_PERSISTENCE = fixture("linux_dcgmi_diag_json", "dcgm_4_persistence_fail_real")
RAILS2 = {"pyramid_rails": ["mlx5_0", "mlx5_1"]}
A100_LINKS = {"pyramid_gpu_nvlinks": 12}  # the one-GPU nvlink -e capture is an A100's: 12 links
LISTED2 = "mlx5_0\nmlx5_1\n"


def replays(count, gpu=0):
    """The real A100 capture with GPU `gpu`'s "Replays Since Reset" set by hand."""
    return edited(A100, "Replays Since Reset               : 0", "Replays Since Reset               : %d" % count, gpu=gpu)


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
     "status": "PASS", "contains": ["no Xid in 8 kernel log lines since boot"]},
    {"check": "gpu_xid", "name": "real H100, plain dmesg: no Xid proves nothing, the log has no end",
     "raw": {"kernel_log": NO_XID_PLAIN, "gpu_query": H100},
     "status": "ERROR", "contains": ["no drain-class Xid in 3 kernel log lines", "plain dmesg has no end marker", "journalctl -k -b"]},
    {"check": "gpu_xid", "name": "Xid 79 in dmesg --json on a GPU nvidia-smi no longer lists",
     "raw": {"kernel_log": XID79_H100_JSON, "gpu_query": H100}, "status": "FAIL",
     "contains": ["GPU at 0000:91:00: Xid 79", CAUSE]},
    {"check": "gpu_xid", "name": "real Xid 79 in plain dmesg: what it lists stands, end marker or not",
     "raw": {"kernel_log": XID79_H100, "gpu_query": H100}, "status": "FAIL",
     "contains": ["GPU at 0000:91:00: Xid 79", CAUSE]},
    {"check": "gpu_xid", "name": "Xid 79 on GPU 2 of 8: named by index and bus id",
     "raw": {"kernel_log": on_a100_gpu2(XID79_CURSOR), "gpu_query": A100}, "status": "FAIL",
     "contains": ["GPU 2 (0000:62:00.0): Xid 79"]},
    # issue 40: a damaged Xid line is an ERROR about the read, never "no Xid" (and never another code)
    {"check": "gpu_xid", "name": "an Xid 79 line whose NVRM tag is displaced: ERROR about the read, not a PASS",
     "raw": {"kernel_log": on_a100_gpu2(("linux_journalctl_kernel_xid", XID79_CURSOR[1].replace(
         "kernel: NVRM: Xid (PCI:0000:01:00): 79, pid=1122,", "kernel: Xid (PCI:0000:01:00): 79, NVRM: pid=1122,"))), "gpu_query": A100},
     "status": "ERROR", "contains": ["an Xid line that is not NVRM's format (damaged?)"]},
    {"check": "gpu_xid", "name": "an Xid line whose code reads 1,234: ERROR about the read, not Xid 1 reported",
     "raw": {"kernel_log": on_a100_gpu2(("linux_journalctl_kernel_xid", XID79_CURSOR[1].replace("): 79,", "): 1,234,"))),
             "gpu_query": A100},
     "status": "ERROR", "contains": ["an Xid line whose code does not read as one number (damaged?)"]},
    {"check": "gpu_xid", "name": "Xid 13 (application) is reported, not failed",
     "raw": {"kernel_log": on_a100_gpu2(("linux_journalctl_kernel_xid", XID79_CURSOR[1].replace("): 79,", "): 13,"))),
             "gpu_query": A100},
     "status": "PASS", "contains": ["reported (not drain codes): GPU 2 (0000:62:00.0): Xid 13"]},
    {"check": "gpu_xid", "name": "Xid 79 not in an overridden drain list: reported",
     "raw": {"kernel_log": on_a100_gpu2(XID79_CURSOR), "gpu_query": A100}, "expect": {"pyramid_gpu_xid_drain_codes": [48]},
     "status": "PASS", "contains": ["no drain-class Xid", "Xid 79"]},
    {"check": "gpu_xid", "name": "Xid 13 in journalctl without its cursor line: ERROR, not a PASS on a cut log",
     "raw": {"kernel_log": on_a100_gpu2(("linux_dmesg_xid", XID79_JOURNAL[1].replace("): 79,", "): 13,"))), "gpu_query": A100},
     "status": "ERROR", "contains": ["; reported (not drain codes): GPU 2 (0000:62:00.0): Xid 13, but plain dmesg has no end marker"]},
    {"check": "gpu_xid", "name": "journalctl cut before its cursor line: ERROR about the read",
     "raw": {"kernel_log": fixture("linux_journalctl_kernel_xid", "cut_before_cursor"), "gpu_query": A100},
     "status": "ERROR", "contains": ["not journalctl's '-- cursor: ' line", "No data from `kernel_log`"]},
    {"check": "gpu_xid", "name": "dmesg --json without the boot banner (wrapped or cleared): no Xid proves nothing",
     "raw": {"kernel_log": fixture("linux_dmesg_json", "wrapped_no_banner"), "gpu_query": H100},
     "status": "ERROR", "contains": ["no drain-class Xid in 5 kernel log lines", "does not reach back to boot"]},
    {"check": "gpu_xid", "name": "two Xids in one dmesg --json record: both read",
     "raw": {"kernel_log": fixture("linux_dmesg_json", "two_lines_one_record"), "gpu_query": H100},
     "status": "FAIL", "contains": ["GPU at 0000:91:00: Xid 79", "GPU at 0000:91:00: Xid 48"]},
    {"check": "gpu_xid", "name": "journalctl without --all hides a message as blob data: ERROR about the read",
     "raw": {"kernel_log": fixture("linux_journalctl_kernel_xid", "blob_data"), "gpu_query": A100},
     "status": "ERROR", "contains": ["blob data", "No data from `kernel_log`"]},
    {"check": "gpu_xid", "name": "dmesg --json cut: ERROR about the read",
     "raw": {"kernel_log": fixture("linux_dmesg_json", "cut_after_a_record"), "gpu_query": H100},
     "status": "ERROR", "contains": ["not a JSON document", "No data from `kernel_log`"]},
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
    {"check": "gpu_row_remap", "name": "GPU 3's remapped rows N/A beside seven that report: ERROR naming it, never PASS",
     "raw": {"gpu_query": edited(A100, "Pending                           : No", "Pending                           : N/A", gpu=3)},
     "status": "ERROR", "contains": ["remapped rows unread: GPU 3 (0000:67:00.0): no remapped rows reported, where 7 of 8 do"]},
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
    {"check": "gpu_nvlink", "name": "8 GPUs x 12 links (A100)",
     "raw": {"gpu_nvlink": nvlink_status(links=12), "gpu_query": A100, "gpu_topology": TOPO_A100},
     "expect": {"pyramid_gpu_nvlinks": 12}, "status": "PASS", "contains": ["8 GPUs x 12 links at 26.562 GB/s"]},
    {"check": "gpu_nvlink", "name": "topo -m unreadable, nvlink -s whole: topo is not read, PASS",
     "raw": {"gpu_nvlink": nvlink_status(links=12), "gpu_query": A100,
             "gpu_topology": fixture("linux_nvidia_smi_topo_m", "driver_not_loaded")},
     "expect": {"pyramid_gpu_nvlinks": 12}, "status": "PASS", "contains": ["8 GPUs x 12 links at 26.562 GB/s"]},
    {"check": "gpu_nvlink", "name": "one link inactive",
     "raw": {"gpu_nvlink": nvlink_status(odd={(5, 3): "<inactive>"}), "gpu_query": A100, "gpu_topology": TOPO_A100}, "status": "FAIL",
     "contains": ["GPU 5 (0000:a5:00.0): link 3 inactive", CAUSE]},
    {"check": "gpu_nvlink", "name": "links trained slow (the public H200 capture's 1.562 GB/s)",
     "raw": {"gpu_nvlink": nvlink_status(odd={(0, 2): "1.0 GB/s", (0, 3): "1.562 GB/s"}), "gpu_query": A100, "gpu_topology": TOPO_A100},
     "status": "FAIL", "contains": ["GPU 0 (0000:2f:00.0): link 2, 3 below 26.562 GB/s"]},
    # issue 68: damage on the way back read as links down or slow (a device FAIL); nvidia-smi lists every GPU in order
    # and every link from 0 in order, so a lost, moved or repeated line and a rate no NVLink runs at are the read's
    {"check": "gpu_nvlink", "name": "GPU 3's link 5 line lost from the read: ERROR about the read, not 17 of 18 links",
     "raw": {"gpu_nvlink": nvlink_status().replace("GPU-faae5314-b87e-87c0-400b-b7cfb9e7b313)\n" + "".join(
         "\t Link %d: 26.562 GB/s\n" % link for link in range(6)), "GPU-faae5314-b87e-87c0-400b-b7cfb9e7b313)\n" + "".join(
         "\t Link %d: 26.562 GB/s\n" % link for link in range(5))), "gpu_query": A100, "gpu_topology": TOPO_A100},
     "status": "ERROR", "contains": ["GPU 3: link 6 where link 5 comes next"]},
    {"check": "gpu_nvlink", "name": "GPU 3's last link line moved under GPU 4: ERROR about the read",
     "raw": {"gpu_nvlink": nvlink_status().replace("\t Link 17: 26.562 GB/s\nGPU 4: NVIDIA A100-SXM4-40GB (UUID: "
                                                   "GPU-faae5314-b87e-87c0-400b-b7cfb9e7b314)\n",
                                                   "GPU 4: NVIDIA A100-SXM4-40GB (UUID: GPU-faae5314-b87e-87c0-400b-b7cfb9e7b314)\n"
                                                   "\t Link 17: 26.562 GB/s\n"),
             "gpu_query": A100, "gpu_topology": TOPO_A100},
     "status": "ERROR", "contains": ["GPU 4: link 17 where link 0 comes next"]},
    {"check": "gpu_nvlink", "name": "one link's rate damaged into 99999999999999999999999999 GB/s: ERROR, not every other link slow",
     "raw": {"gpu_nvlink": nvlink_status(odd={(2, 7): "99999999999999999999999999 GB/s"}), "gpu_query": A100, "gpu_topology": TOPO_A100},
     "status": "ERROR", "contains": ["GPU 2 link 7 at '99999999999999999999999999' GB/s: no NVLink runs at that rate"]},
    {"check": "gpu_nvlink", "name": "the GPU 6 line repeated after GPU 7: ERROR about the read",
     "raw": {"gpu_nvlink": nvlink_status() + "GPU 6: NVIDIA A100-SXM4-40GB (UUID: GPU-faae5314-b87e-87c0-400b-b7cfb9e7b316)\n",
             "gpu_query": A100, "gpu_topology": TOPO_A100},
     "status": "ERROR", "contains": ["GPU 6 listed after GPU 7"]},
    {"check": "gpu_nvlink", "name": "fewer links than expected",
     "raw": {"gpu_nvlink": nvlink_status(links=12), "gpu_query": A100, "gpu_topology": TOPO_A100},
     "status": "FAIL", "contains": ["12 of 18 links listed"]},
    {"check": "gpu_nvlink", "name": "real PCIe H100: no NVLink where 18 are expected",
     "raw": {"gpu_nvlink": NO_NVLINK, "gpu_query": H100, "gpu_topology": TOPO_H100},
     "status": "FAIL", "contains": ["GPU 0 (0000:00:06.0): 0 of 18 links listed", "nvidia-smi topo -m lists 1 GPU", CAUSE]},
    {"check": "gpu_nvlink", "name": "nvlink -s empty, yet topo -m shows NV12: the read was cut, ERROR",
     "raw": {"gpu_nvlink": "", "gpu_query": A100, "gpu_topology": TOPO_A100}, "expect": {"pyramid_gpu_nvlinks": 12},
     "status": "ERROR", "contains": ["nvidia-smi nvlink -s printed nothing, yet nvidia-smi topo -m shows NVLink", "the read was cut",
                                     "`nvidia-smi nvlink -s`"]},
    {"check": "gpu_nvlink", "name": "nvlink -s empty and topo -m failed: ERROR naming topo -m",
     "raw": {"gpu_nvlink": "", "gpu_query": A100},
     "facts": {"gpu_topology": failed("nvidia-smi topo -m", "did not finish within 60s (hung?)", "timeout")},
     "expect": {"pyramid_gpu_nvlinks": 12}, "status": "ERROR",
     "contains": ["nvidia-smi nvlink -s printed nothing", "hung?", "`nvidia-smi topo -m`"]},
    {"check": "gpu_nvlink", "name": "nvlink -s empty and topo -m unparseable: ERROR naming topo -m",
     "raw": {"gpu_nvlink": "", "gpu_query": A100, "gpu_topology": fixture("linux_nvidia_smi_topo_m", "driver_not_loaded")},
     "expect": {"pyramid_gpu_nvlinks": 12}, "status": "ERROR", "contains": ["nvidia-smi nvlink -s printed nothing", "gpu_topology"]},
    {"check": "gpu_nvlink", "name": "real PCIe H100 with pyramid_gpu_nvlinks 0: not applicable",
     "raw": {"gpu_nvlink": NO_NVLINK, "gpu_query": H100, "gpu_topology": TOPO_H100}, "expect": {"pyramid_gpu_nvlinks": 0},
     "status": "SKIP", "contains": ["not applicable: pyramid_gpu_nvlinks is 0"]},
    {"check": "gpu_nvlink", "name": "another command's error: ERROR",
     "raw": {"gpu_nvlink": fixture("linux_nvidia_smi_nvlink_s", "other_command_error"), "gpu_query": A100, "gpu_topology": TOPO_A100},
     "status": "ERROR", "contains": ["not nvidia-smi nvlink -s output"]},
    {"check": "gpu_nvlink", "name": "nvidia-smi -q failed: ERROR naming it",
     "raw": {"gpu_nvlink": nvlink_status(links=12), "gpu_topology": TOPO_A100},
     "facts": {"gpu_query": failed("nvidia-smi -q", "did not finish within 60s (hung?)", "timeout")},
     "status": "ERROR", "contains": ["hung?", "`nvidia-smi -q`"]},
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
    # issue 40: one node's GPUs are one model on one driver: one GPU without the fabric state its neighbour prints is unread
    {"check": "gpu_fabric", "name": "2 x H100 NVL, GPU 1's fabric state N/A beside GPU 0's Completed: ERROR naming GPU 1",
     "raw": {"gpu_query": edited(edited(NVL2, "State                             : N/A", "State                             : Completed"),
                                 "Status                            : N/A", "Status                            : Success")},
     "status": "ERROR", "contains": ["fabric state unread: GPU 1 (0000:ae:00.0): no fabric state reported, where 1 of 2 do"]},
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
    # issue 40: a garbled "HW Slowdown" line puts the thermal slowdown nested under it under another name: its absence
    # is no "Not Active" (the thermal slowdown is active here, and must not pass)
    {"check": "gpu_clocks", "name": "a garbled HW Slowdown line hides the slowdown nested under it: ERROR naming what was not read",
     "raw": {"gpu_query": edited(edited(A100, "HW Slowdown                       : Not Active", "HW Sl#wdown                       : Active", gpu=7),
                                 "HW Thermal Slowdown           : Not Active", "HW Thermal Slowdown           : Active", gpu=7)},
     "status": "ERROR", "contains": ["GPU 7 (0000:cd:00.0): hw_slowdown, hw_thermal_slowdown, hw_power_brake_slowdown not reported"]},
    {"check": "gpu_clocks", "name": "one reason N/A on one GPU: not read, so ERROR, never PASS",
     "raw": {"gpu_query": edited(A100, "SW Thermal Slowdown               : Not Active", "SW Thermal Slowdown               : N/A", gpu=3)},
     "status": "ERROR", "contains": ["GPU 3 (0000:67:00.0): sw_thermal_slowdown not reported"]},
    {"check": "gpu_clocks", "name": "one GPU slowed, another's reason unread: FAIL naming both",
     "raw": {"gpu_query": edited(edited(A100, "SW Thermal Slowdown               : Not Active", "SW Thermal Slowdown               : N/A", gpu=3),
                                 "SW Thermal Slowdown               : Not Active", "SW Thermal Slowdown               : Active", gpu=5)},
     "status": "FAIL", "contains": ["GPU 5 (0000:a5:00.0): sw_thermal_slowdown active", "unread: GPU 3 (0000:67:00.0): sw_thermal_slowdown not reported"]},
    # issue 40: a header line with no key before its colon raised AttributeError in the parser and lost the host's layer
    {"check": "gpu_clocks", "name": "a line with no key: ERROR about the read, never a traceback",
     "raw": {"gpu_query": (A100[0], A100[1].replace("Driver Version                            :", ":", 1))},
     "status": "ERROR", "contains": ["a line with no key: ': 535.129.03'"]},
    {"check": "gpu_clocks", "name": "a GPU's line with no key: ERROR about the read",
     "raw": {"gpu_query": edited(A100, "    Product Name                          : NVIDIA A100-SXM4-40GB", "    : NVIDIA A100-SXM4-40GB", gpu=1)},
     "status": "ERROR", "contains": ["a line with no key: ': NVIDIA A100-SXM4-40GB'"]},
    {"check": "gpu_clocks", "name": "nvidia-smi hung: ERROR naming it",
     "facts": {"gpu_query": failed("nvidia-smi -q", "did not finish within 60s (hung?)", "timeout")},
     "status": "ERROR", "contains": ["nvidia-smi -q", "hung"]},
    # --- gpu_pcie_link: replays since reset -----------------------------------------------------
    {"check": "gpu_pcie_link", "name": "PCIe replays exactly at the allowance", "raw": {"gpu_query": replays(100, gpu=6)},
     "status": "PASS", "contains": ["8 GPUs at Gen4 x16; 100 PCIe replays since reset"]},
    {"check": "gpu_pcie_link", "name": "PCIe replays one over the allowance: their own cause",
     "raw": {"gpu_query": replays(101, gpu=6)}, "status": "FAIL",
     "contains": ["GPU 6 (0000:c8:00.0): 101 PCIe replays since reset", "at most 100 PCIe replays", "packets resent after link CRC errors"]},
    {"check": "gpu_pcie_link", "name": "a stricter pod: no replay at all", "raw": {"gpu_query": replays(3, gpu=1)},
     "expect": {"pyramid_gpu_pcie_replays_max": 0}, "status": "FAIL", "contains": ["GPU 1 (0000:35:00.0): 3 PCIe replays since reset"]},
    {"check": "gpu_pcie_link", "name": "x8 and replays on one GPU: the width is the finding, replays listed",
     "raw": {"gpu_query": edited(replays(400, gpu=4), "Current                   : 16x", "Current                   : 8x", gpu=4)},
     "status": "FAIL", "contains": ["GPU 4 (0000:9f:00.0): x8 of x16", "400 PCIe replays", CAUSE]},
    # --- gpu_nvlink_errors ---------------------------------------------------------------------
    {"check": "gpu_nvlink_errors", "name": "real A100 (535): 12 links, no errors",
     "raw": {"gpu_nvlink_errors": NVLINK_E_A100, "gpu_query": H100}, "expect": A100_LINKS,
     "status": "PASS", "contains": ["1 GPU, 12 links: no recovery or CRC errors over the allowance; 0 replays"]},
    {"check": "gpu_nvlink_errors", "name": "link 5: 2 recoveries and 117 CRC errors",
     "raw": {"gpu_nvlink_errors": NVLINK_E_LINK5, "gpu_query": H100}, "expect": A100_LINKS, "status": "FAIL",
     "contains": ["GPU 0 (0000:00:06.0): link 5 2 recovery, 117 CRC", CAUSE]},
    {"check": "gpu_nvlink_errors", "name": "CRC errors within a looser allowance: only the recovery fails",
     "raw": {"gpu_nvlink_errors": NVLINK_E_LINK5, "gpu_query": H100}, "expect": dict(A100_LINKS, pyramid_gpu_nvlink_crc_max=200),
     "status": "FAIL", "contains": ["link 5 2 recovery"]},
    {"check": "gpu_nvlink_errors", "name": "both allowances above the counts: replays reported",
     "raw": {"gpu_nvlink_errors": NVLINK_E_LINK5, "gpu_query": H100},
     "expect": dict(A100_LINKS, pyramid_gpu_nvlink_crc_max=117, pyramid_gpu_nvlink_recovery_max=2),
     "status": "PASS", "contains": ["43 replays (reported)"]},
    {"check": "gpu_nvlink_errors", "name": "real PCIe H100 with pyramid_gpu_nvlinks 0: not applicable",
     "raw": {"gpu_nvlink_errors": NVLINK_E_NONE, "gpu_query": H100}, "expect": {"pyramid_gpu_nvlinks": 0},
     "status": "SKIP", "contains": ["not applicable: pyramid_gpu_nvlinks is 0"]},
    {"check": "gpu_nvlink_errors", "name": "no counters where NVLink is expected: ERROR, never PASS",
     "raw": {"gpu_nvlink_errors": NVLINK_E_NONE, "gpu_query": H100}, "status": "ERROR",
     "contains": ["not read completely: GPU 0 (0000:00:06.0): counters of 0 of 18 links"]},
    {"check": "gpu_nvlink_errors", "name": "the real capture cut after link 9: ERROR, never PASS",
     "raw": {"gpu_nvlink_errors": ("linux_nvidia_smi_nvlink_e", NVLINK_E_A100[1].split("\t Link 10:")[0]), "gpu_query": H100},
     "expect": A100_LINKS, "status": "ERROR", "contains": ["counters of 10 of 12 links"]},
    {"check": "gpu_nvlink_errors", "name": "the real capture cut inside link 11 (no CRC line): ERROR",
     "raw": {"gpu_nvlink_errors": ("linux_nvidia_smi_nvlink_e", NVLINK_E_A100[1].split("\t Link 11: CRC")[0]), "gpu_query": H100},
     "expect": A100_LINKS, "status": "ERROR", "contains": ["link 11 without all its counters"]},
    {"check": "gpu_nvlink_errors", "name": "another command's error: ERROR",
     "raw": {"gpu_nvlink_errors": fixture("linux_nvidia_smi_nvlink_e", "other_command_error"), "gpu_query": H100},
     "status": "ERROR", "contains": ["not nvidia-smi nvlink -e output"]},
    # --- nic_pcie_link ---------------------------------------------------------------------------
    {"check": "nic_pcie_link", "name": "two rails at Gen5 x16 (the real sysfs format)",
     "raw": {"rdma_sysfs": LISTED2, "rail_pcie_link": {"mlx5_0": SYSFS_GEN5, "mlx5_1": SYSFS_GEN5}}, "expect": RAILS2,
     "status": "PASS", "contains": ["2 rail NICs at Gen5 x16"]},
    {"check": "nic_pcie_link", "name": "mlx5_1 trained at Gen4 x8",
     "raw": {"rdma_sysfs": LISTED2, "rail_pcie_link": {"mlx5_0": SYSFS_GEN5, "mlx5_1": SYSFS_X8}}, "expect": RAILS2,
     "status": "FAIL", "contains": ["mlx5_1: x8 of x16, Gen4 of Gen5 (16.0 GT/s PCIe of 32.0 GT/s PCIe)", CAUSE]},
    {"check": "nic_pcie_link", "name": "an old kernel's \"8 GT/s\": Gen3 of Gen3 passes",
     "raw": {"rdma_sysfs": "mlx5_0\n", "rail_pcie_link": {"mlx5_0": fixture("linux_sysfs_pcie_link", "old_kernel_8gts")}},
     "expect": {"pyramid_rails": ["mlx5_0"]}, "status": "PASS", "contains": ["1 rail NIC at Gen3 x16"]},
    {"check": "nic_pcie_link", "name": "a rail the host does not list is rails_present's finding",
     "raw": {"rdma_sysfs": "mlx5_0\n", "rail_pcie_link": {"mlx5_0": SYSFS_GEN5}},
     "facts": {"rail_pcie_link": {"mlx5_1": failed("cat /sys/class/infiniband/mlx5_1/device/current_link_speed", "No such file or directory")}},
     "expect": RAILS2, "status": "PASS", "contains": ["1 rail NIC at Gen5 x16"]},
    {"check": "nic_pcie_link", "name": "a listed rail whose files are cut short: ERROR naming it",
     "raw": {"rdma_sysfs": LISTED2, "rail_pcie_link": {"mlx5_0": SYSFS_GEN5, "mlx5_1": fixture("linux_sysfs_pcie_link", "cut_short")}},
     "expect": RAILS2, "status": "ERROR", "contains": ["PCIe link not read for mlx5_1", "expected 4 lines"]},
    {"check": "nic_pcie_link", "name": "current width above the max (a damaged read): ERROR",
     "raw": {"rdma_sysfs": "mlx5_0\n", "rail_pcie_link": {"mlx5_0": "32.0 GT/s PCIe\n32.0 GT/s PCIe\n32\n16\n"}},
     "expect": {"pyramid_rails": ["mlx5_0"]}, "status": "ERROR", "contains": ["mlx5_0: current link x32 32.0 GT/s PCIe above its max x16"]},
    {"check": "nic_pcie_link", "name": "link down (speed Unknown): ERROR, never PASS",
     "raw": {"rdma_sysfs": "mlx5_0\n", "rail_pcie_link": {"mlx5_0": "Unknown\n32.0 GT/s PCIe\n0\n16\n"}},
     "expect": {"pyramid_rails": ["mlx5_0"]}, "status": "ERROR", "contains": ["mlx5_0: link speed Unknown of 32.0 GT/s PCIe"]},
    # --- gpu_dcgm_diag ---------------------------------------------------------------------------
    {"check": "gpu_dcgm_diag", "name": "real DCGM 3.1 level 1 on 8 GPUs", "raw": {"dcgm_diag": DCGM3}, "status": "PASS",
     "contains": ["DCGM 3.1.0, level 1: 17 results passed"]},
    {"check": "gpu_dcgm_diag", "name": "GPU 5 fails the software test, its warning quoted", "raw": {"dcgm_diag": DCGM3_GPU5},
     "status": "FAIL", "contains": ["software on GPU 5: Fail: Persistence mode for GPU 5 is disabled", CAUSE]},
    {"check": "gpu_dcgm_diag", "name": "real DCGM 4.x: persistence mode off on every GPU", "raw": {"dcgm_diag": DCGM4_PERSISTENCE},
     "status": "FAIL", "contains": ["software on GPU 0: Fail: Persistence Mode: Persistence mode for GPU 0 is disabled."]},
    {"check": "gpu_dcgm_diag", "name": "dcgmi not installed: not applicable",
     "facts": {"dcgm_diag": failed("dcgmi diag -r 1 -j", "command not found", "missing")}, "status": "SKIP",
     "contains": ["not applicable: DCGM is not installed"]},
    {"check": "gpu_dcgm_diag", "name": "level 3 opted in, dcgmi hung: ERROR naming the command",
     "facts": {"dcgm_diag": failed("dcgmi diag -r 3 -j", "did not finish within 300s (hung?)", "timeout")},
     "expect": {"pyramid_dcgm_diag_level": 3}, "status": "ERROR", "contains": ["dcgmi diag -r 3: every test Pass", "`dcgmi diag -r 3 -j`", "hung"]},
    {"check": "gpu_dcgm_diag", "name": "no host engine: ERROR about the read",
     "raw": {"dcgm_diag": fixture("linux_dcgmi_diag_json", "not_json_dcgmi_error")}, "status": "ERROR",
     "contains": ["Unable to connect to host engine"]},
    {"check": "gpu_dcgm_diag", "name": "a GPU DCGM does not support: no test results, ERROR",
     "raw": {"dcgm_diag": fixture("linux_dcgmi_diag_json", "no_results")}, "status": "ERROR", "contains": ["no test results"]},
]
