"""Render a twin node state (see model.py) as the real tools print it.

Layouts follow the tools' own printf formats: infiniband-diags ibstat.c,
kmod lsmod/modinfo, the kernel's /proc/modules and /proc/meminfo, mstflint
mlxconfig (mlxcfg_ui.cpp) and nvidia-smi topo -m from DGX H100 hosts.
"""

import os

# json is imported by the two renders that print it: every tool run imports this module (the suite's budget).

# Per module: size in bytes, the modules it depends on, vendor ("nvidia",
# "ofed" or "" for in-tree). Sizes are from a 5.15 host with driver 550 and
# MLNX_OFED; holders are derived from the dependencies.
MODULES = {
    "nvidia_peermem": (16384, ["nvidia", "ib_core"], "nvidia"),
    "nvidia_uvm": (4911104, ["nvidia"], "nvidia"),
    "nvidia_drm": (98304, ["nvidia_modeset"], "nvidia"),
    "nvidia_modeset": (1306624, ["nvidia"], "nvidia"),
    "nvidia": (56729600, [], "nvidia"),
    "mlx5_ib": (475136, ["ib_uverbs", "ib_core", "mlx5_core"], "ofed"),
    "mlx5_core": (2215936, ["mlxfw", "psample", "tls"], "ofed"),
    "ib_uverbs": (167936, ["ib_core"], "ofed"),
    "ib_core": (434176, [], "ofed"),
    "mlxfw": (36864, [], "ofed"),
    "psample": (20480, [], ""),
    "tls": (110592, [], ""),
    "rdma_ucm": (32768, ["rdma_cm", "ib_uverbs", "ib_core"], "ofed"),
    "rdma_cm": (131072, ["iw_cm", "ib_cm", "ib_core"], "ofed"),
    "iw_cm": (53248, ["ib_core"], "ofed"),
    "ib_cm": (131072, ["ib_core"], "ofed"),
    "ib_umad": (32768, ["ib_core"], "ofed"),
    "ib_ipoib": (155648, ["ib_cm", "ib_core"], "ofed"),
    "nvme": (49152, ["nvme_core"], ""),
    "nvme_core": (135168, [], ""),
}
# References held by open device files rather than by other modules.
EXTRA_REFS = {"nvidia": 64, "nvidia_uvm": 2, "nvme": 4}

CPU_AFFINITY = {0: "0-55,112-167", 1: "56-111,168-223"}  # 2 x 56-core Xeon 8480C

TOPO_LEGEND = """
Legend:

  X    = Self
  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes (e.g., QPI/UPI)
  NODE = Connection traversing PCIe as well as the interconnect between PCIe Host Bridges within a NUMA node
  PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)
  PXB  = Connection traversing multiple PCIe bridges (without traversing the PCIe Host Bridge)
  PIX  = Connection traversing at most a single PCIe bridge
  NV#  = Connection traversing a bonded set of # NVLinks
"""

CX7_NAME = "MCX75310AAS-NEAT_Ax"
CX7_DESCRIPTION = ("NVIDIA ConnectX-7 HHHL Adapter card; 400GbE / NDR IB (default mode); Single-port OSFP; "
                   "PCIe 5.0 x16; Crypto Disabled; Secure Boot Enabled")


def ibstat(state):
    lines = []
    for number, rail in enumerate(state["rails"]):
        ethernet = rail["link_layer"] == "Ethernet"
        active = rail["state"] == "Active"
        if ethernet:
            base_lid, sm_lid, capmask = 0, 0, 0x00010000
        else:
            base_lid = state.get("index", 1) * 16 + number + 1 if active else 65535
            # the master that configured the port (twin model: pod.ib_sm), or another SM's (fault ib_sm_lid)
            sm_lid, capmask = (rail.get("sm_lid", (state.get("ib_sm") or {}).get("lid", 1)) if active else 0), 0xA751E848
        lines += [
            "CA '%s'" % rail["device"],
            "\tCA type: %s" % rail["ca_type"],
            "\tNumber of ports: 1",
            "\tFirmware version: %s" % rail["firmware"],
            "\tHardware version: 0",
            "\tNode GUID: %s" % rail["node_guid"],
            "\tSystem image GUID: %s" % rail["node_guid"],
            "\tPort %d:" % rail["port"],
            "\t\tState: %s" % rail["state"],
            "\t\tPhysical state: %s" % rail["phys_state"],
            "\t\tRate: %s" % rail["rate"],
            "\t\tBase lid: %d" % base_lid,
            "\t\tLMC: 0",
            "\t\tSM lid: %d" % sm_lid,
            "\t\tCapability mask: 0x%08x" % capmask,
            "\t\tPort GUID: %s" % rail["port_guid"],
            "\t\tLink layer: %s" % rail["link_layer"],
        ]
    return "".join(line + "\n" for line in lines)


def _module_table(state):
    """(name, size, refcount, holders, taint) in /proc/modules order (newest first)."""
    loaded = state["modules"]
    open_driver = state["nvidia_driver"]["open_kernel_module"]
    rows = []
    for name in loaded:
        size, vendor = MODULES.get(name, (16384, [], ""))[::2]
        holders = [other for other in loaded if name in MODULES.get(other, (0, [], ""))[1]]
        taint = {"nvidia": "OE" if open_driver else "POE", "ofed": "OE"}.get(vendor, "")
        rows.append((name, size, len(holders) + EXTRA_REFS.get(name, 0), holders, taint))
    return rows


def proc_modules(state):
    lines, address = [], 0xFFFFFFFFC0000000
    rows = _module_table(state)
    addresses = {}
    for row in reversed(rows):  # oldest module sits lowest
        name, size = row[0], row[1]
        addresses[name] = address
        address += (size + 0xFFF) & ~0xFFF
    for name, size, refs, holders, taint in rows:
        deps = "".join(holder + "," for holder in holders) or "-"
        line = "%s %d %d %s Live 0x%016x" % (name, size, refs, deps, addresses[name])
        lines.append(line + (" (%s)" % taint if taint else ""))
    return "".join(line + "\n" for line in lines)


def lsmod(state):
    """lsmod output for the same modules (kmod: "%-19s %8ld  %d" + holders)."""
    lines = ["Module                  Size  Used by"]
    for name, size, refs, holders, _vendor in _module_table(state):
        line = "%-19s %8d  %d" % (name, size, refs)
        lines.append(line + (" " + ",".join(holders) if holders else ""))
    return "".join(line + "\n" for line in lines)


def _kb(key, value):
    return "%s%8d kB" % ((key + ":").ljust(16), value)


def proc_meminfo(state):
    total = state["mem_total_kb"]
    pages = state["hugepages"]
    hugetlb = pages["total"] * pages["size_kb"]
    rest = max(total - hugetlb, 0)
    used = rest // 40  # kernel, slab, page cache of an idle node
    cached, anon = used // 2, used // 6
    lines = [
        _kb("MemTotal", total), _kb("MemFree", rest - used), _kb("MemAvailable", rest - used + cached),
        _kb("Buffers", used // 60), _kb("Cached", cached), _kb("SwapCached", 0),
        _kb("Active", used // 5), _kb("Inactive", used // 3), _kb("Active(anon)", anon // 50),
        _kb("Inactive(anon)", anon), _kb("Active(file)", used // 5 - anon // 50),
        _kb("Inactive(file)", used // 3 - anon), _kb("Unevictable", 30828), _kb("Mlocked", 27756),
        _kb("SwapTotal", 0), _kb("SwapFree", 0), _kb("Dirty", 120), _kb("Writeback", 0),
        _kb("AnonPages", anon), _kb("Mapped", used // 26), _kb("Shmem", 36848),
        _kb("KReclaimable", used // 14), _kb("Slab", used // 6), _kb("SReclaimable", used // 14),
        _kb("SUnreclaim", used // 6 - used // 14), _kb("KernelStack", 66720), _kb("PageTables", 58376),
        _kb("NFS_Unstable", 0), _kb("Bounce", 0), _kb("WritebackTmp", 0),
        _kb("CommitLimit", rest // 2), _kb("Committed_AS", used // 2),
        _kb("VmallocTotal", 34359738367), _kb("VmallocUsed", 1201964), _kb("VmallocChunk", 0),
        _kb("Percpu", 551424), "HardwareCorrupted: %5d kB" % 0, _kb("AnonHugePages", anon // 3),
        _kb("ShmemHugePages", 0), _kb("ShmemPmdMapped", 0), _kb("FileHugePages", 0),
        _kb("FilePmdMapped", 0),
        "HugePages_Total:   %5d" % pages["total"],
        "HugePages_Free:    %5d" % pages["free"],
        "HugePages_Rsvd:    %5d" % 0,
        "HugePages_Surp:    %5d" % 0,
        _kb("Hugepagesize", pages["size_kb"]), _kb("Hugetlb", hugetlb),
        _kb("DirectMap4k", 1639280), _kb("DirectMap2M", 53864448),
        _kb("DirectMap1G", max(total // 1048576 * 1048576 - 54525952, 0)),
    ]
    return "".join(line + "\n" for line in lines)


def proc_cmdline(state):
    return state["cmdline"] + "\n"


def proc_osrelease(state):
    return state["kernel_release"] + "\n"


def sys_class_iommu(state):
    """Entry names of /sys/class/iommu, one per line (`ls -1`)."""
    return "".join(unit + "\n" for unit in sorted(state["iommu_units"]))


def _find_rail(state, device):
    for rail in state["rails"]:
        if device in (rail["device"], rail["pci"], rail["pci"][5:]):
            return rail
    return None


def mlxconfig_query(state, device):
    rail = _find_rail(state, device)
    if rail is None or rail["device"] not in state["mlxconfig"]:
        # mlxcfg_commander.cpp: Commander::create() fails; the UI prints "-E- <msg>" on stdout.
        return 1, "-E- Failed to open the device\n", ""
    out = ["", "Device #1:", "----------", ""]
    out.append("%-16s%-16s" % ("Device type:", "ConnectX7"))
    out.append("%-16s%-16s" % ("Name:", CX7_NAME))
    out.append("%-16s%-16s" % ("Description:", CX7_DESCRIPTION))
    out.append("%-16s%-16s" % ("Device:", device))
    out.append("")
    out.append("%-16s%36s%16s%18s" % ("Configurations:", "Default", "Current", "Next Boot"))
    differ = False
    for name, entry in state["mlxconfig"][rail["device"]].items():
        values = (entry["default"], entry["current"], entry["next_boot"])
        modified = entry["next_boot"] != entry["default"] or entry["next_boot"] != entry["current"]
        differ |= modified
        line = ("*        " if modified else "         ") + "%-36s" % name
        for number, value in enumerate(values):
            if number and len(values[number - 1]) > 16:  # PRINT_SPACE_IF_NEEDED
                line += " "
            line += "%-16s" % value
        out.append(line)
    if differ:
        out.append("The '*' shows parameters with next value different from default/current value.")
    return 0, "".join(line + "\n" for line in out), ""


def _topo_cell(a, b):
    """Link class between two endpoints: ("gpu", gpu) or ("nic", rail)."""
    (kind_a, a), (kind_b, b) = a, b
    if a is b:
        return " X "
    if kind_a == kind_b == "gpu":
        return "NV18"
    if kind_a == "nic" and kind_b == "gpu":
        (kind_a, a), (kind_b, b) = (kind_b, b), (kind_a, a)
    if kind_a == "gpu" and b.get("gpu") == a["index"]:
        return "PIX"
    return "NODE" if a["numa"] == b["numa"] else "SYS"


def nvidia_smi_topo(state):
    if not state["gpus"]:
        return "No devices were found\n"
    ends = [("gpu", gpu) for gpu in state["gpus"]] + [("nic", rail) for rail in state["rails"]]
    names = ["GPU%d" % gpu["index"] for gpu in state["gpus"]]
    names += ["NIC%d" % number for number in range(len(state["rails"]))]
    lines = ["\t" + "\t".join(names + ["CPU Affinity", "NUMA Affinity", "GPU NUMA ID"])]
    for name, end in zip(names, ends):
        cells = "\t".join(_topo_cell(end, other) for other in ends)
        if end[0] == "gpu":
            numa = end[1]["numa"]
            lines.append("%s\t%s\t%s\t%d\t\tN/A" % (name, cells, CPU_AFFINITY.get(numa, "N/A"), numa))
        else:
            lines.append("%s\t%s\t\t\t\t" % (name, cells))
    text = "".join(line + "\n" for line in lines) + TOPO_LEGEND
    if state["rails"]:
        text += "\nNIC Legend:\n\n"
        text += "".join("  NIC%d: %s\n" % (n, rail["device"]) for n, rail in enumerate(state["rails"]))
    return text + "\n"


def modinfo_nvidia(state):
    driver = state["nvidia_driver"]
    version, release = driver["version"], state["kernel_release"]
    is_open = driver["open_kernel_module"]
    fields = [
        ("filename", "/lib/modules/%s/updates/dkms/nvidia.ko" % release),
        ("firmware", "nvidia/%s/gsp_tu10x.bin" % version),
        ("firmware", "nvidia/%s/gsp_ga10x.bin" % version),
    ]
    if is_open:
        fields.append(("import_ns", "DMA_BUF"))
    fields += [
        ("alias", "char-major-195-*"),
        ("version", version),
        ("supported", "external"),
        ("license", "Dual MIT/GPL" if is_open else "NVIDIA"),
        ("srcversion", "7A4E6F1C2B9D3E5F8A0B1C2" if is_open else "2D4C3A9B8E7F6A5B4C3D2E1"),
        ("alias", "pci:v000010DEd*sv*sd*bc06sc80i00*"),
        ("alias", "pci:v000010DEd*sv*sd*bc03sc02i00*"),
        ("alias", "pci:v000010DEd*sv*sd*bc03sc00i00*"),
        ("depends", ""),
        ("retpoline", "Y"),
        ("name", "nvidia"),
        ("vermagic", "%s SMP mod_unload modversions " % release),
        ("sig_id", "PKCS#7"),
        ("signer", "%s Secure Boot Module Signature key" % state["hostname"]),
        ("sig_key", "1F:52:9B:7C:0D:44:E1:36:5A:8B:92:C4:07:6E:3D:A1:58:F0:2B:CC"),
        ("sig_hashalgo", "sha512"),
        ("signature", "30:65:02:31:00:A7:1C:5E:93:4D:02:B8:6F:11:9A:C3:47:D0:2E:85:"),
    ]
    lines = ["%-16s%s" % (key + ":", value) for key, value in fields]
    lines.append("\t\t5B:E4:19:70:C6:3A:8F:02:D5:41:9E:B7:26:0C:F3:88:6A:1D:47:E2")
    for parm in ("NVreg_ResmanDebugLevel:int", "NVreg_EnableGpuFirmware:int",
                 "NVreg_OpenRmEnableUnsupportedGpus:int", "NVreg_EnableStreamMemOPs:int",
                 "NVreg_RegistryDwords:charp", "rm_firmware_active:charp"):
        lines.append("%-16s%s" % ("parm:", parm))
    return "".join(line + "\n" for line in lines)


# where each module's .ko lives under /lib/modules/<release>/ (the distribution's kernel tree; MLNX_OFED's under updates/dkms)
MODULE_FILES = {"mlx5_core": "drivers/net/ethernet/mellanox/mlx5/core", "mlx5_ib": "drivers/infiniband/hw/mlx5",
                "ib_ipoib": "drivers/infiniband/ulp/ipoib", "mlxfw": "drivers/net/ethernet/mellanox/mlxfw",
                "nvme": "drivers/nvme/host", "nvme_core": "drivers/nvme/host"}
MODULE_DESCRIPTIONS = {"mlx5_core": "Mellanox 5th generation network adapters (ConnectX series) core driver",
                       "mlx5_ib": "Mellanox 5th generation network adapters (ConnectX series) IB driver",
                       "ib_core": "core kernel InfiniBand API", "ib_uverbs": "InfiniBand userspace verbs access"}


def modinfo_module(state, name):
    """kmod's modinfo of a module other than nvidia (tools/modinfo.c): a built-in one's name, then "filename: (builtin)"
    and its file in the tree, as modules.builtin.modinfo gives them; a loaded one's .ko path first."""
    folder = MODULE_FILES.get(name, "drivers/infiniband/core")
    description = MODULE_DESCRIPTIONS.get(name, name)
    if name in state.get("builtin_modules", {}):
        fields = [("name", name), ("filename", "(builtin)"), ("license", "Dual BSD/GPL"), ("file", "%s/%s" % (folder, name)),
                  ("description", description)]
    else:
        vendor = MODULES.get(name, (0, [], ""))[2]
        where = "updates/dkms" if vendor in ("ofed", "nvidia") else "kernel/" + folder  # MLNX_OFED's and NVIDIA's: DKMS
        fields = [("filename", "/lib/modules/%s/%s/%s.ko" % (state["kernel_release"], where, name)),
                  ("license", "Dual BSD/GPL"), ("description", description),
                  ("depends", ",".join(MODULES.get(name, (0, [], ""))[1])), ("retpoline", "Y"), ("name", name),
                  ("vermagic", "%s SMP mod_unload modversions " % state["kernel_release"])]
    return "".join("%-16s%s\n" % (key + ":", value) for key, value in fields)


def garbage(tool):
    """Plausible output that is not the tool's report (for the tool_garbage fault)."""
    samples = {
        "ibstat": "CA 'mlx5_0'\n\tCA type: MT4129\nSegmentation fault (core dumped)\n",
        "lsmod": "Segmentation fault (core dumped)\n",
        "mlxconfig": ("mlxconfig, mft 4.28.0-92, built on Jun 05 2024, 11:38:29. Git SHA Hash: N/A\n"
                      "Segmentation fault (core dumped)\n"),
        "nvidia-smi": ("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. "
                       "Make sure that the latest NVIDIA driver is installed and running.\n\n"),
        "modinfo": "modinfo: ERROR: could not get modinfo from 'nvidia': Exec format error\n",
    }
    return samples.get(tool, "Segmentation fault (core dumped)\n")


def proc_driver_nvidia_version(state):
    """/proc/driver/nvidia/version of the loaded driver (open or proprietary kernel module)."""
    driver = state["nvidia_driver"]
    if driver["open_kernel_module"]:
        first = ("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  %s  Release Build  "
                 "(dvs-builder@U16-I3-B03-4-3)  Fri May 31 09:30:47 UTC 2024" % driver["version"])
    else:
        first = "NVRM version: NVIDIA UNIX x86_64 Kernel Module  %s  Fri May 31 09:35:42 UTC 2024" % driver["version"]
    return first + "\nGCC version:  gcc version 12.3.0 (Ubuntu 12.3.0-1ubuntu1~22.04) \n"


# --- GPU health: nvidia-smi -q, nvidia-smi nvlink -s, the kernel log -------------------------

# One GPU of nvidia-smi -q: the block of a real capture (1 x H100 80GB HBM3, driver 580.159.04, 2026-11-24;
# tests/unit/parsers/linux_nvidia_smi_q/h100_580_real.raw) with the node's values put in.
NVIDIA_SMI_Q_GPU = os.path.join(os.path.dirname(os.path.abspath(__file__)), "nvidia_smi_q_h100.txt")
CUDA_VERSION = {"535": "12.2", "550": "12.4", "570": "12.8", "580": "13.0"}
BOOT_EPOCH = "Mon Nov 23 08:00:00 2026"


def gpu_uuid(state, gpu):
    """The GPU's UUID, as nvidia-smi -L prints it."""
    index = state.get("index", 1)
    return "GPU-%08x-%04x-%04x-%04x-%012x" % (index, gpu["index"], 0x4a1b, 0x9c2d, index * 8 + gpu["index"])


def _active(flag):
    return "Active" if flag else "Not Active"


def _gpu_q(state, gpu, template):
    health = gpu["health"]
    domain, bus, rest = gpu["pci"].split(":")
    events = health["clock_events"]
    values = {
        "bus_id": "%08X:%s:%s" % (int(domain, 16), bus.upper(), rest.upper()),
        "bus": "0x%s" % bus.upper(), "device": "0x%s" % rest.split(".")[0].upper(),
        "name": gpu["name"], "uuid": gpu_uuid(state, gpu), "minor": gpu["index"], "module": gpu["index"] + 1,
        "serial": "16523241%05d" % (state.get("index", 1) * 8 + gpu["index"]),
        "pdi": "0x%016x" % (0x3e8875697a850000 + state.get("index", 1) * 8 + gpu["index"]),
        "gen": health["pcie_gen"], "gen_max": 5, "width": health["pcie_width"], "width_max": 16,
        "replays": health["pcie_replays"],
        # an idle GPU in persistence mode: P0 with the Idle event active (as the real capture)
        "idle": _active(not any(e.startswith("hw_") for e in events)),
        "sw_power_cap": _active("sw_power_cap" in events), "hw_slowdown": _active("hw_slowdown" in events),
        "hw_thermal_slowdown": _active("hw_thermal_slowdown" in events),
        "hw_power_brake_slowdown": _active("hw_power_brake_slowdown" in events),
        "sw_thermal_slowdown": _active("sw_thermal_slowdown" in events),
        "ecc_volatile": health["ecc_volatile"], "ecc_aggregate": health["ecc_aggregate"],
        "remapped_uncorrectable": health["remapped_uncorrectable"], "remap_pending": "Yes" if health["remap_pending"] else "No",
        "fabric_state": state["gpu_fabric"]["state"], "fabric_status": state["gpu_fabric"]["status"],
    }
    return template % values


def nvidia_smi_q(state):
    """nvidia-smi -q: the report header, then one block per GPU (bus id order), a blank line after each."""
    with open(NVIDIA_SMI_Q_GPU, encoding="utf-8") as handle:
        template = handle.read()
    version = state["nvidia_driver"]["version"]
    field = "%-55s: %s"
    out = ["", "==============NVSMI LOG==============", "", field % ("Timestamp", BOOT_EPOCH),
           field % ("Driver Version", version), field % ("CUDA Version", CUDA_VERSION.get(version.split(".")[0], "12.4")), "",
           field % ("Attached GPUs", len(state["gpus"]))]
    text = "\n".join(out) + "\n"
    for gpu in state["gpus"]:
        text += _gpu_q(state, gpu, template) + "\n"
    return text


def _nvlink_gpus(state):
    """(health, the GPU's header line) of each GPU with NVLink, as both nvlink reports list them."""
    for gpu in state["gpus"]:
        if gpu["health"]["nvlinks"]:
            yield gpu["health"], "GPU %d: %s (UUID: %s)" % (gpu["index"], gpu["name"], gpu_uuid(state, gpu))


def nvidia_smi_nvlink_errors(state):
    """nvidia-smi nvlink -e as drivers 535 to 580 print it for NVLink 4 (the real A100 and H100 captures):
    a GPU line, then per link its Replay, Recovery and CRC Errors and a blank line."""
    lines = []
    for health, header in _nvlink_gpus(state):
        lines.append(header)
        for link in range(health["nvlinks"]):
            counts = health["nvlink_errors"].get(str(link), {"replay": 0, "recovery": 0, "crc": 0})
            lines += ["\t Link %d: Replay Errors: %d" % (link, counts["replay"]),
                      "\t Link %d: Recovery Errors: %d" % (link, counts["recovery"]),
                      "\t Link %d: CRC Errors: %d" % (link, counts["crc"]), ""]
    return "".join(line + "\n" for line in lines)


# The kernel's pci_speed_string() per PCIe generation (sysfs current_link_speed / max_link_speed)
PCIE_SPEED = {1: "2.5 GT/s PCIe", 2: "5.0 GT/s PCIe", 3: "8.0 GT/s PCIe", 4: "16.0 GT/s PCIe", 5: "32.0 GT/s PCIe",
              6: "64.0 GT/s PCIe"}


def sys_rail_pcie(state):
    """{path: text} of each rail NIC's PCIe link files under /sys/class/infiniband/<dev>/device/ (ConnectX-7:
    max Gen5 x16), one value and a newline each, as the kernel prints them."""
    files = {}
    for rail in state["rails"]:
        base = "/sys/class/infiniband/%s/device/" % rail["device"]
        files[base + "current_link_speed"] = PCIE_SPEED[rail["pcie_gen"]] + "\n"
        files[base + "max_link_speed"] = PCIE_SPEED[5] + "\n"
        files[base + "current_link_width"] = "%d\n" % rail["pcie_width"]
        files[base + "max_link_width"] = "16\n"
    return files


def nvidia_smi_nvlink_status(state):
    """nvidia-smi nvlink -s: each GPU's links, `<inactive>` for a link that is down."""
    lines = []
    for health, header in _nvlink_gpus(state):
        lines.append(header)
        for link in range(health["nvlinks"]):
            rate = "<inactive>" if link in health["nvlinks_down"] else "%.3f GB/s" % health["nvlink_gbps"]
            lines.append("\t Link %d: %s" % (link, rate))
    return "".join(line + "\n" for line in lines)


# What NVRM prints after "Xid (PCI:...): <code>, " (NVIDIA's Xid catalog, docs.nvidia.com/deploy/xid-errors)
XID_TEXT = {
    13: "pid=48213, name=python3, Graphics SM Warp Exception on (GPC 0, TPC 1, SM 0): Out Of Range Address",
    31: "pid=48213, name=python3, Ch 00000008, intr 00000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_0 faulted @ 0x7f2a_00000000. "
        "Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ",
    48: "pid='<unknown>', name=<unknown>, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer "
        "at partition 6, subpartition 0.",
    63: "pid='<unknown>', name=<unknown>, Row Remapper: New row marked for remapping, reset gpu to activate.",
    74: "pid=48213, name=python3, NVLink: fatal error detected on link 5(0x0, 0x0, 0x10000, 0x0, 0x0, 0x0, 0x0)",
    79: "pid='<unknown>', name=<unknown>, GPU has fallen off the bus.",
    94: "pid=48213, name=python3, Contained: SM (0x1). RST: No, D-RST: No",
    95: "pid=48213, name=python3, Uncontained: FBHUB. RST: Yes, D-RST: No",
    119: "pid=48213, name=python3, Timeout after 6s of waiting for RPC response from GPU0 GSP! Expected function 76 (GSP_RM_CONTROL) "
         "(0x20800a4c 0x4).",
}


def _kernel_lines(state):
    """(seconds since boot, syslog priority, message) of the node's kernel log: boot, the NVIDIA driver loading,
    each Xid. The priorities are the ones a real H100 host's dmesg --json showed for such lines (5 the banner,
    4 the taint warning, 3 NVRM's load line, 6 the rest); an Xid line is printed at the kernel's default level, 4
    (open-gpu-kernel-modules: portDbgPrintf, vprintk without a level)."""
    release = state["kernel_release"]
    lines = [(0.0, 5, "Linux version %s (buildd@lcy02-amd64-075) (gcc (Ubuntu 11.4.0-1ubuntu1~22.04) 11.4.0, GNU ld (GNU "
                      "Binutils for Ubuntu) 2.38) #129-Ubuntu SMP Fri Aug 2 19:25:20 UTC 2024" % release),
             (0.0, 6, "Command line: %s" % state["cmdline"]),
             (11.874215, 4, "nvidia: module license 'NVIDIA' taints kernel."),
             (12.301442, 3, proc_driver_nvidia_version(state).splitlines()[0].replace("NVRM version: ", "NVRM: loading "))]
    when = 8123.456789
    for gpu in state["gpus"]:
        domain, bus, rest = gpu["pci"].split(":")
        for code in gpu["health"]["xids"]:
            text = XID_TEXT.get(code, "pid='<unknown>', name=<unknown>, Xid %d" % code)
            lines.append((when, 4, "NVRM: Xid (PCI:%s:%s:%s): %d, %s" % (domain, bus, rest.split(".")[0], code, text)))
            when += 0.000011
    return lines


def dmesg(state):
    """dmesg: "[seconds.micro] message", as the kernel ring buffer prints it."""
    return "".join("[%12.6f] %s\n" % (when, text) for when, _pri, text in _kernel_lines(state))


def dmesg_json(state):
    """dmesg --json (util-linux 2.38+): the layout util-linux 2.39.3 printed on a real H100 host (3-space indent,
    records joined by "},{", the time as a number right-aligned in 12 columns; tests/unit/parsers/linux_dmesg_json)."""
    import json
    # util-linux writes a message's UTF-8 as it is, escaping only what JSON must
    records = ["         \"pri\": %d,\n         \"time\": %12.6f,\n         \"msg\": %s\n" % (
        pri, when, json.dumps(text, ensure_ascii=False)) for when, pri, text in _kernel_lines(state)]
    return "{\n   \"dmesg\": [\n      {\n" + "      },{\n".join(records) + "      }\n   ]\n}\n"


def journalctl_kernel(state, cursor=False):
    """journalctl -k -b (short format): "Mon DD HH:MM:SS host kernel: message"; with --show-cursor, systemd's
    "-- cursor: " line after the last entry (the cursor of that entry: seqnum i=, boot id b=, clocks m= and t=)."""
    lines = _kernel_lines(state)
    out = "".join("Nov 23 %02d:%02d:%02d %s kernel: %s\n" % (
        8 + int(when) // 3600, int(when) // 60 % 60, int(when) % 60, state["hostname"], text) for when, _pri, text in lines)
    if cursor:
        import hashlib  # here: every tool run imports this module, few print a boot id
        boot = hashlib.sha256(state["hostname"].encode()).hexdigest()[:32]
        last = int(lines[-1][0] * 1e6)
        out += "-- cursor: s=%s;i=%x;b=%s;m=%x;t=%x;x=%s\n" % (
            boot[::-1], len(lines), boot, last, 1763884800000000 + last, boot[:16])
    return out


# --- DCGM: dcgmi diag -r 1 -j ----------------------------------------------------------------

# Level 1's deployment tests, one result for all GPUs, then the per-GPU software test: the layout of a real
# DCGM 3.1.0 report (NVIDIA/DCGM's nvvs test "JsonResult: Deserialize real output"), printed by jsoncpp's
# StyledWriter (tabs, "key" : value, null between the deployment tests).
DCGM_DEPLOYMENT = ["Denylist", "NVML Library", "CUDA Main Library", "Permissions and OS-related Blocks", "Persistence Mode",
                   "Environmental Variables", "Page Retirement/Row Remap", "Graphics Processes", "Inforom"]


def _dcgm_result(gpu_ids, status, warning, indent):
    import json
    tab = "\t" * indent
    lines = [tab + "{", tab + "\t\"gpu_ids\" : %s," % gpu_ids, tab + "\t\"status\" : \"%s\"%s" % (status, "," if warning else "")]
    if warning:
        lines += [tab + "\t\"warnings\" :", tab + "\t[", tab + "\t\t" + json.dumps(warning), tab + "\t]"]
    return lines + [tab + "}"]


def _dcgm_test(name, results, last):
    lines = ["\t\t\t\t{", "\t\t\t\t\t\"name\" : \"%s\"," % name, "\t\t\t\t\t\"results\" :", "\t\t\t\t\t["]
    for number, result in enumerate(results):
        block = _dcgm_result(*result, indent=6)
        if number < len(results) - 1:
            block[-1] += ","
        lines += block
    return lines + ["\t\t\t\t\t]", "\t\t\t\t}" + ("" if last else ",")]


def dcgmi_diag_json(state):
    """(rc, stdout) of dcgmi diag -r 1 -j: every test PASS but the scenario's failures; dcgmi exits 226 when a
    test failed (DCGM_ST_NVVS_ERROR, as the real 2026 payload's run returned)."""
    failures = {failure["gpu"]: failure["warning"] for failure in state["dcgm"]["failures"]}
    gpus = ",".join(str(gpu["index"]) for gpu in state["gpus"])
    lines = ["{", "\"DCGM GPU Diagnostic\" :", "{", "\t\"test_categories\" :", "\t[", "\t\t{",
             "\t\t\t\"category\" : \"Deployment\",", "\t\t\t\"tests\" :", "\t\t\t["]
    for number, name in enumerate(DCGM_DEPLOYMENT):
        last = number == len(DCGM_DEPLOYMENT) - 1
        lines += _dcgm_test(name, [('"%s"' % gpus, "PASS", None)], last)
        if not last:
            lines.append("\t\t\t\tnull,")
    lines += ["\t\t\t]", "\t\t},", "\t\t{", "\t\t\t\"category\" : \"Custom\",", "\t\t\t\"tests\" :", "\t\t\t["]
    software = [(str(gpu["index"]), "FAIL" if gpu["index"] in failures else "PASS", failures.get(gpu["index"])) for gpu in state["gpus"]]
    lines += _dcgm_test("software", software, True)
    lines += ["\t\t\t]", "\t\t}", "\t],", "\t\"version\" : \"%s\"" % state["dcgm"]["version"], "}", "}"]
    return (226 if failures else 0), "".join(line + "\n" for line in lines)
