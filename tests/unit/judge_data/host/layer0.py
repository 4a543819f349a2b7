"""Layer 0 judges as a data table: one row per case, run through the engine by test_judge_data.py.

A row: "check" (catalog id), "name", "facts" (source -> facts | SourceFailure; a foreach source
item -> facts | SourceFailure; pod checks host -> sources), "raw" (source -> real tool output that
the production parser turns into facts: a text for the source's first way, or fixture(parser, case)
for the way of that parser; a foreach source item -> text), "expect" (inventory overrides of the
catalog defaults), "status" (pod checks: host -> status) and "contains" (what actual + cause must
name, CAUSE for the check's catalog cause; pod checks: host -> list).

Each judge is fed every field and direction it reads, thresholds just inside and just outside, and
a failed source (never a PASS). Rows built on tests/unit/parsers fixtures use real outputs.

Every node has healthy RDMA facts, rows that accept NODE or PHB list it in pyramid_gpu_nic_paths
(the default is NCCL's own GPUDirect RDMA limit, PIX/PXB), and rows judging _P2 use dual-port NICs.
"""

import os

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils import parsing
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core.model import SourceFailure

FIXTURES = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "parsers")
RAILS = ["mlx5_%d" % index for index in range(8)]
DGX_RAILS = ["mlx5_0", "mlx5_3", "mlx5_4", "mlx5_5", "mlx5_6", "mlx5_9", "mlx5_10", "mlx5_11"]  # dgx_h100_12_nics
FW, OLD_FW = "28.39.1002", "28.37.1014"
RDMA = ("mlx5_core", "mlx5_ib", "ib_core", "ib_uverbs")
GPU_DRIVER = ("nvidia", "nvidia_uvm", "nvidia_modeset")
HEALTHY_MODULES = RDMA + GPU_DRIVER + ("nvidia_peermem",)
DGX_CMDLINE = "BOOT_IMAGE=/vmlinuz-5.15.0-119-generic root=UUID=3f1c2a9e ro intel_iommu=on iommu=pt hugepagesz=1G hugepages=64"
P1_ONLY = {"ROCE_CC_PRIO_MASK_P1": "255"}
NO_NODE = ["PIX", "PXB", "PHB"]
HOSTS = ("node-001", "node-002", "node-003")
CAUSE = "{cause}"  # in "contains": the check's own cause from the catalog (not a cause the judge gave instead)


def fixture(parser, case):
    """(parser, text) of tests/unit/parsers/<parser>/<case>.raw: parsed by the source's way of that parser."""
    with open(os.path.join(FIXTURES, parser, case + ".raw"), encoding="utf-8", newline="") as handle:
        return parser, handle.read()


def missing(command):
    return SourceFailure(command, "%s: command not found" % command, "missing")


def failed(command, reason, status="failed"):
    return SourceFailure(command, reason, status)


def _no_sys_module(name):
    return failed("ls /sys/module/%s" % name, "cat /sys/module/%s/initstate: does not exist; ls /sys/module/%s: does not exist" % (
        name, name), "missing")


NO_SYS_MODULE = _no_sys_module
SYSFS_LIVE = {name: fixture("linux_sysfs_module_initstate", "live") for name in RDMA}  # what each loaded module's initstate reads


def _lsmod_cut_to_nvidia():
    """lsmod without nvidia_peermem, cut after its first lines (the GPU driver's): the RDMA modules are cut away."""
    parser, text = fixture("linux_lsmod", "without_nvidia_peermem")
    lines = text.splitlines(True)
    kept = [lines[0]] + [line for line in lines[1:] if line.split()[0].startswith("nvidia")]
    return parser, "".join(kept)


LSMOD_CUT_TO_NVIDIA = _lsmod_cut_to_nvidia()


def iommu(*units):
    return {"units": sorted(units)}


def meminfo(total=64, size=1048576):
    return {"mem_total_kb": 2113612808, "hugepages_total": total, "hugepages_free": total, "hugepagesize_kb": size}


def cmdline(text=DGX_CMDLINE):
    pairs = [list(word.partition("=")[::2]) for word in text.split()]
    return {"raw": text, "args": dict(pairs), "all": pairs}


def modules(*names):
    return {"modules": {name: {"size": 16384, "used_by": []} for name in names}}


def modules_but(*absent):
    return modules(*[name for name in HEALTHY_MODULES if name not in absent])


def nvidia(open_module=True, version="550.90.07"):
    return {"name": "nvidia", "version": version, "license": "Dual MIT/GPL" if open_module else "NVIDIA",
            "open_kernel_module": open_module}


def kernel(release="5.15.0-119-generic"):
    major, minor = release.split(".")[:2]
    return {"release": release, "major": int(major), "minor": int(minor)}


def listing(*entries):
    return {"entries": list(entries)}


def edited_raw(source, old, new):
    """A real output with one stretch of its text changed by hand (the row's name says "edited")."""
    parser, text = source
    assert old in text, old
    return parser, text.replace(old, new, 1)


def ibstat(rails=RAILS, fw=FW, rate=400, ports=1, drop=(), **changes):
    """ibstat facts: every rail Active/LinkUp at `rate`; changes: rail -> {firmware, port ("1"), port fields}."""
    devices = {}
    for index, rail in enumerate(rails):
        if rail not in drop:
            devices[rail] = {"ca_type": "MT4129", "firmware": fw, "node_guid": "0x946dae0300a1b2%02x" % index, "ports": {
                str(port): {"state": "Active", "phys_state": "LinkUp", "rate_gbps": rate, "link_layer": "Ethernet",
                            "port_guid": "0x966daefffea1b2%02x" % index} for port in range(1, ports + 1)}}
    for rail, change in changes.items():
        change = dict(change)
        devices[rail]["firmware"] = change.pop("firmware", devices[rail]["firmware"])
        devices[rail]["ports"][change.pop("port", "1")].update(change)
    return {"devices": devices}


def mlx(p1="255", p2="255", absent=(), **others):
    """mlxconfig -e q facts of one rail; a value is "255" (current = next boot) or (current, next_boot)."""
    values = {"SRIOV_EN": "True(1)", "ATS_ENABLED": "True(1)", "LINK_TYPE_P1": "ETH(2)", "NUM_OF_VFS": "16",
              "ROCE_CC_PRIO_MASK_P1": p1, "ROCE_CC_PRIO_MASK_P2": p2}
    values.update(others)
    params = {}
    for name, value in values.items():
        current, next_boot = value if isinstance(value, tuple) else (value, value)
        if name not in absent:
            params[name] = {"default": current, "current": current, "next_boot": next_boot, "modified": current != next_boot}
    return {"device": "mlx5_0", "device_type": "ConnectX7", "params": params}


def mlx_rails(rails=RAILS, **per_rail):
    """mlxconfig of every rail (the foreach source): rail -> facts; per_rail: rail -> facts or SourceFailure."""
    queried = {rail: mlx() for rail in rails}
    queried.update(per_rail)
    return queried


def topo(gpus=8, nics=RAILS, path="PIX", other="SYS", **paths):
    """nvidia-smi topo -m facts: GPU i to NIC i at `path` (paths: GPUi=PATH), to every other NIC at `other`."""
    matrix = {}
    for index in range(gpus):
        links = {"GPU%d" % peer: "NV18" for peer in range(gpus) if peer != index}
        links.update({"NIC%d" % nic: paths.get("GPU%d" % index, path) if nic == index else other for nic in range(len(nics))})
        matrix["GPU%d" % index] = {"links": links, "cpu_affinity": "0-55", "numa_affinity": str(index // 4)}
    return {"gpus": matrix, "nics": {"NIC%d" % index: name for index, name in enumerate(nics)}}


def node(**sources):
    """A healthy GPU node's facts for every Layer 0 source; keyword arguments replace sources. Its
    /sys/class/infiniband lists the CAs its ibstat shows (what ibstat reads), unless given."""
    facts = {"iommu_sysfs": iommu("dmar0", "dmar1"), "cmdline": cmdline(), "meminfo": meminfo(),
             "kernel_modules": modules(*HEALTHY_MODULES), "nvidia_module": nvidia(), "osrelease": kernel(),
             "ibstat": ibstat(), "rdma_sysfs": listing(*RAILS), "mlxconfig": mlx_rails(), "gpu_topology": topo()}
    facts.update(sources)
    if "rdma_sysfs" not in sources and isinstance(facts["ibstat"], dict):
        facts["rdma_sysfs"] = listing(*facts["ibstat"]["devices"])
    facts.setdefault("rdma_listing", facts["rdma_sysfs"])  # the same listing, read for the rail checks
    return facts


def with_sysfs(rows):
    """Rows that give ibstat's raw output alone: /sys/class/infiniband lists the CAs that output shows (a
    healthy read), so a CA the output lacks is absent, not cut away. Rows that give rdma_sysfs keep theirs."""
    for row in rows:
        hosts = row.get("raw", {}).items() if isinstance(row.get("status"), dict) else [(None, row.get("raw", {}))]
        for host, raw in hosts:
            if "rdma_sysfs" in raw:
                raw.setdefault("rdma_listing", raw["rdma_sysfs"])  # one listing, read by both sources
            if "ibstat" not in raw or "rdma_sysfs" in raw:
                continue
            facts = row.setdefault("facts", {}) if host is None else row.setdefault("facts", {}).setdefault(host, node())
            try:
                devices = parsing.parse("linux_ibstat", raw["ibstat"][1])["devices"]
            except parsing.ParseError:
                continue
            facts["rdma_sysfs"] = facts["rdma_listing"] = listing(*devices)
    return rows


def pod(**hosts):
    """node-001..003 healthy; hosts: node_002=node(...) replaces one."""
    return {host: hosts.get(host.replace("-", "_"), node()) for host in HOSTS}


def everyone(status):
    return {host: status for host in HOSTS}


IBSTAT = fixture("linux_ibstat", "cx7_roce_8_rails")
SYSFS_RAILS = fixture("linux_dir_listing", "eight_rails")
MLX_OK = fixture("linux_mlxconfig_query", "cx7_roce")
# the single-port capture with its Description changed to name two ports ("Dual-port QSFP112", as dual-port
# ConnectX-7 cards' Descriptions do), and to name none: the _P2 rows' absence alone proves nothing
_SINGLE = fixture("linux_mlxconfig_query", "single_port_cx7")
DUAL_PORT_NO_P2 = (_SINGLE[0], _SINGLE[1].replace("Single-port OSFP", "Dual-port QSFP112"))
NO_PORT_COUNT_NO_P2 = (_SINGLE[0], _SINGLE[1].replace("; Single-port OSFP", ""))
IBPANIC_MLX5_8 = fixture("linux_ibstat", "ibpanic_after_eight_rails")
PERMISSION_DENIED = fixture("linux_ibstat", "permission_denied_after_four")
CUT_AT_CA = ("linux_ibstat", IBSTAT[1][:IBSTAT[1].index("CA 'mlx5_5'")])  # exit 0, no trailer: only sysfs tells
IBSTAT_12 = ibstat(rails=["mlx5_%d" % index for index in range(12)])
NO_PEERMEM = modules(*RDMA + GPU_DRIVER)
NVIDIA_SMI = "nvidia-smi topo -m"


def h100_builtin_sysfs():
    """/sys/module of the lent H100's kernel for the RDMA core it has built in (mlx5_ib as ib_core: no initstate)."""
    return {"mlx5_core": fixture("linux_dir_listing", "sys_module_mlx5_core_builtin_h100"),
            "mlx5_ib": fixture("linux_dir_listing", "sys_module_ib_core_builtin_h100"),
            "ib_core": fixture("linux_dir_listing", "sys_module_ib_core_builtin_h100")}


DATA = [
    # --- iommu: any unit in /sys/class/iommu
    {"check": "iommu", "name": "Intel DMAR units", "raw": {"iommu_sysfs": fixture("linux_sys_class_iommu", "intel_dmar")},
     "status": "PASS", "contains": ["8 units", "dmar0"]},
    {"check": "iommu", "name": "AMD IVHD units", "raw": {"iommu_sysfs": fixture("linux_sys_class_iommu", "amd_ivhd")},
     "status": "PASS", "contains": ["4 units", "ivhd0"]},
    {"check": "iommu", "name": "a single unit is enough", "facts": node(iommu_sysfs=iommu("dmar0")), "status": "PASS",
     "contains": ["1 unit (dmar0)"]},
    {"check": "iommu", "name": "no units: IOMMU off", "raw": {"iommu_sysfs": fixture("linux_sys_class_iommu", "no_units")},
     "status": "FAIL", "contains": ["none: IOMMU off", CAUSE]},
    {"check": "iommu", "name": "ls printed an error", "raw": {"iommu_sysfs": fixture("linux_sys_class_iommu", "ls_error")},
     "status": "ERROR", "contains": ["cannot access"]},
    {"check": "iommu", "name": "sysfs unreadable", "facts": node(iommu_sysfs=failed("ls /sys/class/iommu", "Permission denied", "unreadable")),
     "status": "ERROR", "contains": ["Permission denied"]},

    # --- kernel_params: HugePages_Total, Hugepagesize, iommu=pt
    {"check": "kernel_params", "name": "DGX: 64 x 1 GiB and iommu=pt",
     "raw": {"cmdline": fixture("linux_proc_cmdline", "dgx"), "meminfo": fixture("linux_proc_meminfo", "dgx_1g_pages")},
     "status": "PASS", "contains": ["HugePages_Total 64 x 1048576 kB, iommu=pt"]},
    {"check": "kernel_params", "name": "RHEL: 32768 x 2 MiB wanted and reserved",
     "raw": {"cmdline": fixture("linux_proc_cmdline", "quoted_and_repeated"), "meminfo": fixture("linux_proc_meminfo", "2m_pages")},
     "expect": {"pyramid_hugepages_total": 32768, "pyramid_hugepage_size_kb": 2048}, "status": "PASS",
     "contains": ["HugePages_Total 32768 x 2048 kB, iommu=pt"]},
    {"check": "kernel_params", "name": "one hugepage fewer", "facts": node(meminfo=meminfo(total=63)), "status": "FAIL",
     "contains": ["HugePages_Total 63, want 64"]},
    {"check": "kernel_params", "name": "one hugepage more", "facts": node(meminfo=meminfo(total=65)), "status": "FAIL",
     "contains": ["HugePages_Total 65, want 64"]},
    {"check": "kernel_params", "name": "no hugepages reserved", "facts": node(),
     "raw": {"meminfo": fixture("linux_proc_meminfo", "no_hugepages")}, "status": "FAIL",
     "contains": ["HugePages_Total 0, want 64", "Hugepagesize 2048 kB, want 1048576 kB"]},
    {"check": "kernel_params", "name": "2 MiB pages where 1 GiB wanted", "facts": node(meminfo=meminfo(size=2048)), "status": "FAIL",
     "contains": ["Hugepagesize 2048 kB, want 1048576 kB", CAUSE]},
    {"check": "kernel_params", "name": "1 GiB pages where 2 MiB wanted", "facts": node(meminfo=meminfo(total=32768)),
     "expect": {"pyramid_hugepages_total": 32768, "pyramid_hugepage_size_kb": 2048}, "status": "FAIL",
     "contains": ["Hugepagesize 1048576 kB, want 2048 kB"]},
    {"check": "kernel_params", "name": "no hugepages wanted, none reserved", "facts": node(meminfo=meminfo(total=0)),
     "expect": {"pyramid_hugepages_total": 0}, "status": "PASS"},
    {"check": "kernel_params", "name": "iommu=pt missing", "facts": node(), "raw": {"cmdline": fixture("linux_proc_cmdline", "no_iommu")},
     "status": "FAIL", "contains": ["kB, iommu=(unset) (iommu=pt missing from /proc/cmdline)"]},
    {"check": "kernel_params", "name": "iommu=on is not iommu=pt", "facts": node(cmdline=cmdline("ro intel_iommu=on iommu=on")),
     "status": "FAIL", "contains": ["iommu=pt missing", "iommu=on"]},
    {"check": "kernel_params", "name": "iommu=pt not required", "facts": node(), "raw": {"cmdline": fixture("linux_proc_cmdline", "no_iommu")},
     "expect": {"pyramid_iommu_passthrough": False}, "status": "PASS", "contains": ["iommu=(unset)"]},
    {"check": "kernel_params", "name": "iommu=pt not required but set", "facts": node(), "expect": {"pyramid_iommu_passthrough": False},
     "status": "PASS"},
    {"check": "kernel_params", "name": "iommu=pt not required, hugepages still judged", "facts": node(meminfo=meminfo(total=63)),
     "expect": {"pyramid_iommu_passthrough": False}, "status": "FAIL", "contains": ["HugePages_Total 63, want 64"]},
    {"check": "kernel_params", "name": "meminfo cut short", "facts": node(), "raw": {"meminfo": fixture("linux_proc_meminfo", "truncated")},
     "status": "ERROR", "contains": ["truncated"]},
    {"check": "kernel_params", "name": "cmdline unreadable, meminfo fine", "facts": node(cmdline=failed("cat /proc/cmdline", "does not exist", "missing")),
     "status": "ERROR", "contains": ["does not exist"]},

    # --- rdma_modules: every pyramid_rdma_modules loaded
    {"check": "rdma_modules", "name": "DGX lsmod", "raw": {"kernel_modules": fixture("linux_lsmod", "dgx_h100"), "module_sysfs": SYSFS_LIVE},
     "status": "PASS", "contains": ["all loaded"]},
    {"check": "rdma_modules", "name": "lsmod cut at a line boundary: no data, not 'not loaded'",
     "raw": {"kernel_modules": fixture("linux_lsmod", "dgx_h100_cut_at_a_line")}, "status": "ERROR",
     "contains": ["the module list lacks ib_core (which ib_uverbs, mlx5_ib, nvidia_peermem needs): cut short or damaged"]},
    {"check": "rdma_modules", "name": "DGX /proc/modules", "raw": {"kernel_modules": fixture("linux_proc_modules", "dgx_h100"), "module_sysfs": SYSFS_LIVE},
     "status": "PASS"},
    {"check": "rdma_modules", "name": "RDMA loaded without nvidia_peermem",
     "raw": {"kernel_modules": fixture("linux_lsmod", "without_nvidia_peermem"), "module_sysfs": SYSFS_LIVE}, "status": "PASS"},
    {"check": "rdma_modules", "name": "lsmod cut, /sys/module/<name>/initstate live: the list is incomplete",
     "raw": {"kernel_modules": LSMOD_CUT_TO_NVIDIA, "module_sysfs": SYSFS_LIVE}, "status": "ERROR",
     "contains": ["the module list does not show mlx5_core (live), mlx5_ib (live), ib_core (live), ib_uverbs (live)",
                  "the list is incomplete", "`lsmod` or /proc/modules"]},
    {"check": "rdma_modules", "name": "absent from lsmod and from /sys/module: not loaded",
     "raw": {"kernel_modules": fixture("linux_proc_modules", "h200_host_kernel_without_module_unload")},
     "facts": {"module_sysfs": {name: NO_SYS_MODULE(name) for name in RDMA}},
     "status": "FAIL", "contains": ["not loaded: mlx5_core, mlx5_ib, ib_core, ib_uverbs", CAUSE]},
    {"check": "rdma_modules", "name": "the lent H100's kernel: RDMA built in, ib_uverbs with no /sys/module entry of its own",
     # real: /proc/modules lists only nvidia and nvidia_uvm; mlx5_core, mlx5_ib and ib_core are /sys/module directories
     # without initstate (mlx5_ib's listing stood in by ib_core's: the judge reads only that the directory is there)
     "raw": {"kernel_modules": fixture("linux_proc_modules", "h100_vm_rdma_built_in_real"),
             "module_sysfs": {"mlx5_core": fixture("linux_dir_listing", "sys_module_mlx5_core_builtin_h100"),
                              "mlx5_ib": fixture("linux_dir_listing", "sys_module_ib_core_builtin_h100"),
                              "ib_core": fixture("linux_dir_listing", "sys_module_ib_core_builtin_h100")}},
     "facts": {"module_sysfs": {"mlx5_core": None, "mlx5_ib": None, "ib_core": None, "ib_uverbs": NO_SYS_MODULE("ib_uverbs")}},
     # issue 66: that mlx5_ib needs ib_uverbs is an inference (CONFIG_INFINIBAND_USER_ACCESS decides), never a PASS
     "status": "ERROR", "contains": ["ib_uverbs not proven: not in the module list, no /sys/module/ib_uverbs, and modinfo ib_uverbs "
                                     "not read (the built-in mlx5_ib may need it, as the kernel was configured)",
                                     "built into the kernel (in /sys/module without initstate, never in lsmod): mlx5_core, mlx5_ib, ib_core",
                                     "No proof that ib_uverbs is in the kernel"]},
    {"check": "rdma_modules", "name": "the lent H100's kernel, ib_uverbs proven built in by modinfo (filename: (builtin))",
     "raw": {"kernel_modules": fixture("linux_proc_modules", "h100_vm_rdma_built_in_real"),
             "module_sysfs": h100_builtin_sysfs(),
             "module_builtin": {"ib_uverbs": fixture("linux_modinfo_where", "twin_builtin_ib_uverbs")}},
     "facts": {"module_sysfs": {"mlx5_core": None, "mlx5_ib": None, "ib_core": None, "ib_uverbs": NO_SYS_MODULE("ib_uverbs")}},
     "status": "PASS", "contains": ["built into the kernel (in /sys/module without initstate, never in lsmod): mlx5_core, mlx5_ib, ib_core",
                                    "built into the kernel (modinfo: filename (builtin), from the kernel's modules.builtin.modinfo): "
                                    "ib_uverbs"]},
    {"check": "rdma_modules", "name": "the lent H100's kernel, modinfo does not know ib_uverbs: still not proven",
     # kmod's answer (not_found_real's words) on a kernel without /lib/modules is the same as on one without the module
     "raw": {"kernel_modules": fixture("linux_proc_modules", "h100_vm_rdma_built_in_real"),
             "module_sysfs": h100_builtin_sysfs(),
             "module_builtin": {"ib_uverbs": "modinfo: ERROR: Module ib_uverbs not found.\n"}},
     "facts": {"module_sysfs": {"mlx5_core": None, "mlx5_ib": None, "ib_core": None, "ib_uverbs": NO_SYS_MODULE("ib_uverbs")}},
     "status": "ERROR", "contains": ["ib_uverbs not proven: not in the module list, no /sys/module/ib_uverbs, and modinfo does not know "
                                     "ib_uverbs (not in this kernel, or its /lib/modules not installed)"]},
    {"check": "rdma_modules", "name": "mlx5_ib built in, ib_uverbs a .ko file not loaded: not loaded",
     # mlx5_ib built without user verbs, ib_uverbs installed as a module and not loaded: modprobe is the fix
     "raw": {"kernel_modules": fixture("linux_proc_modules", "h100_vm_rdma_built_in_real"),
             "module_sysfs": h100_builtin_sysfs(),
             "module_builtin": {"ib_uverbs": fixture("linux_modinfo_where", "twin_loadable_ib_uverbs")}},
     "facts": {"module_sysfs": {"mlx5_core": None, "mlx5_ib": None, "ib_core": None, "ib_uverbs": NO_SYS_MODULE("ib_uverbs")}},
     "status": "FAIL", "contains": ["not loaded: ib_uverbs; built into the kernel (in /sys/module without initstate, never in lsmod): "
                                    "mlx5_core, mlx5_ib, ib_core", CAUSE]},
    {"check": "rdma_modules", "name": "modinfo answering for another module (an alias) proves nothing of this one",
     "raw": {"kernel_modules": fixture("linux_proc_modules", "h100_vm_rdma_built_in_real"),
             "module_sysfs": h100_builtin_sysfs(),
             "module_builtin": {"ib_uverbs": fixture("linux_modinfo_where", "builtin_md_mod_kmod_real")}},
     "facts": {"module_sysfs": {"mlx5_core": None, "mlx5_ib": None, "ib_core": None, "ib_uverbs": NO_SYS_MODULE("ib_uverbs")}},
     "status": "ERROR", "contains": ["modinfo ib_uverbs answered for md_mod"]},
    {"check": "rdma_modules", "name": "ib_core built into the kernel: in /sys/module without initstate, never in lsmod",
     "facts": node(kernel_modules=modules_but("ib_core")),
     "raw": {"module_sysfs": {"ib_core": fixture("linux_dir_listing", "sys_module_builtin")}}, "status": "PASS",
     "contains": ["built into the kernel (in /sys/module without initstate, never in lsmod): ib_core"]},
    {"check": "rdma_modules", "name": "a module lsmod lacks whose /sys/module could not be read",
     "facts": node(kernel_modules=modules_but("ib_uverbs", "mlx5_ib"),
                   module_sysfs={"mlx5_ib": NO_SYS_MODULE("mlx5_ib"),
                                 "ib_uverbs": failed("ls /sys/module/ib_uverbs", "cat /sys/module/ib_uverbs/initstate: "
                                                     "Permission denied; ls /sys/module/ib_uverbs: Permission denied", "unreadable")}),
     "status": "ERROR", "contains": ["/sys/module could not tell: ib_uverbs (", "Permission denied"]},
    {"check": "rdma_modules", "name": "ib_uverbs missing", "facts": node(kernel_modules=modules_but("ib_uverbs", "mlx5_ib")), "status": "FAIL",
     "contains": ["not loaded: mlx5_ib, ib_uverbs", CAUSE]},  # mlx5_ib cannot load without ib_uverbs
    {"check": "rdma_modules", "name": "mlx5_core missing", "facts": node(kernel_modules=modules_but("mlx5_core", "mlx5_ib")), "status": "FAIL",
     "contains": ["not loaded: mlx5_core, mlx5_ib"]},
    {"check": "rdma_modules", "name": "a list with mlx5_ib but no ib_uverbs is damaged", "facts": node(kernel_modules=modules_but("ib_uverbs")),
     "status": "ERROR", "contains": ["the module list lacks ib_uverbs (which mlx5_ib needs)"]},
    {"check": "rdma_modules", "name": "host kernel without RDMA",
     "raw": {"kernel_modules": fixture("linux_proc_modules", "h200_host_kernel_without_module_unload")},
     "status": "FAIL", "contains": ["not loaded: mlx5_core, mlx5_ib, ib_core, ib_uverbs"]},
    {"check": "rdma_modules", "name": "a holder is not a loaded module", "raw": {"kernel_modules": fixture("linux_lsmod", "dgx_h100")},
     "expect": {"pyramid_rdma_modules": list(RDMA) + ["rdma_ucm"]}, "status": "FAIL", "contains": ["not loaded: rdma_ucm"]},
    {"check": "rdma_modules", "name": "a shorter module list", "facts": node(kernel_modules=modules("mlx5_core")),
     "expect": {"pyramid_rdma_modules": ["mlx5_core"]}, "status": "PASS"},
    {"check": "rdma_modules", "name": "lsmod segfaulted", "raw": {"kernel_modules": fixture("linux_lsmod", "segfault")}, "status": "ERROR"},
    {"check": "rdma_modules", "name": "no module list", "facts": {"kernel_modules": failed("cat /proc/modules", "does not exist", "missing")},
     "status": "ERROR", "contains": ["does not exist"]},

    # --- rails_present: every declared rail in ibstat; without ibstat, /sys/class/infiniband decides
    {"check": "rails_present", "name": "8 rails", "raw": {"ibstat": IBSTAT, "rdma_sysfs": SYSFS_RAILS}, "status": "PASS",
     "contains": ["8 rails present"]},
    {"check": "rails_present", "name": "8 declared rails of 12 NICs", "facts": node(ibstat=IBSTAT_12),
     "expect": {"pyramid_rails": DGX_RAILS}, "status": "PASS", "contains": ["8 rails present"]},
    {"check": "rails_present", "name": "ibstat fine, sysfs listing failed", "facts": node(rdma_sysfs=failed("ls /sys/class/infiniband", "EIO")),
     "status": "PASS"},
    {"check": "rails_present", "name": "mlx5_3 missing", "facts": node(), "raw": {"ibstat": fixture("linux_ibstat", "missing_device")},
     "status": "FAIL", "contains": ["missing: mlx5_3", CAUSE]},
    {"check": "rails_present", "name": "last rail missing", "facts": node(ibstat=ibstat(drop=("mlx5_7",))), "status": "FAIL",
     "contains": ["missing: mlx5_7"]},
    {"check": "rails_present", "name": "no ibstat, /sys/class/infiniband absent",
     "facts": node(ibstat=missing("ibstat"), rdma_sysfs=failed("ls /sys/class/infiniband", "does not exist", "missing")),
     "status": "FAIL", "contains": ["/sys/class/infiniband absent", "ibstat: command not found", "No RDMA rails"]},
    {"check": "rails_present", "name": "no ibstat, /sys/class/infiniband empty", "facts": node(ibstat=missing("ibstat")),
     "raw": {"rdma_sysfs": fixture("linux_dir_listing", "no_rdma_devices")}, "status": "FAIL",
     "contains": ["/sys/class/infiniband empty", "No RDMA rails"]},
    # issue 66: the cause of "no RDMA device" follows this run's module reads, never contradicts rdma_modules beside it
    {"check": "rails_present", "name": "no RDMA device, the lent H100's kernel with its RDMA core built in: the NIC is missing",
     "facts": node(ibstat=missing("ibstat"), module_sysfs={"ib_uverbs": NO_SYS_MODULE("ib_uverbs")}),
     "raw": {"rdma_sysfs": fixture("linux_dir_listing", "no_rdma_devices"),
             "kernel_modules": fixture("linux_proc_modules", "h100_vm_rdma_built_in_real"),
             "module_sysfs": {"mlx5_core": fixture("linux_dir_listing", "sys_module_mlx5_core_builtin_h100"),
                              "mlx5_ib": fixture("linux_dir_listing", "sys_module_ib_core_builtin_h100"),
                              "ib_core": fixture("linux_dir_listing", "sys_module_ib_core_builtin_h100")}},
     "status": "FAIL", "contains": ["No RDMA rails, though the RDMA core is in the kernel (mlx5_core, mlx5_ib, ib_core loaded or "
                                    "built in): no ConnectX NIC on the host's PCIe bus, or its driver not bound to it"]},
    {"check": "rails_present", "name": "no RDMA device, no RDMA module in the list or in /sys/module: the driver is missing",
     "facts": node(ibstat=missing("ibstat"), module_sysfs={name: NO_SYS_MODULE(name) for name in RDMA}),
     "raw": {"rdma_sysfs": fixture("linux_dir_listing", "no_rdma_devices"),
             "kernel_modules": fixture("linux_proc_modules", "h200_host_kernel_without_module_unload")},
     "status": "FAIL", "contains": ["No RDMA rails: the RDMA core is not in the kernel (mlx5_core, mlx5_ib, ib_core neither loaded "
                                    "nor built in): the NIC driver (MLNX_OFED / DOCA-host or the distribution's mlx5) not installed"]},
    {"check": "rails_present", "name": "no RDMA device, the module list not read: the cause says it cannot tell which",
     "facts": node(ibstat=missing("ibstat"), kernel_modules=missing("lsmod")),
     "raw": {"rdma_sysfs": fixture("linux_dir_listing", "no_rdma_devices")},
     "status": "FAIL", "contains": ["RDMA core (ib_core/mlx5_ib) not loaded or no ConnectX NICs in the host (the module reads could "
                                    "not tell which)"]},
    {"check": "rails_present", "name": "no ibstat but devices in sysfs", "facts": node(ibstat=missing("ibstat")), "raw": {"rdma_sysfs": SYSFS_RAILS},
     "status": "ERROR", "contains": ["ibstat: command not found"]},
    {"check": "rails_present", "name": "ibstat segfaulted, devices in sysfs", "raw": {"ibstat": fixture("linux_ibstat", "segfault"), "rdma_sysfs": SYSFS_RAILS},
     "status": "ERROR", "contains": ["unparseable"]},
    {"check": "rails_present", "name": "no ibstat, sysfs unreadable",
     "facts": node(ibstat=missing("ibstat"), rdma_sysfs=failed("ls /sys/class/infiniband", "Permission denied", "unreadable")),
     "status": "ERROR", "contains": ["ibstat: command not found"]},
    {"check": "rails_present", "name": "ibstat timed out, sysfs listing failed",
     "facts": node(ibstat=failed("ibstat", "did not finish within 60s (hung?)", "timeout"), rdma_sysfs=failed("ls /sys/class/infiniband", "EIO")),
     "status": "ERROR", "contains": ["hung?"]},

    # --- rails_active: State Active and Physical state LinkUp on every port of every declared rail
    # ibstat stops at the first CA it cannot read (IBPANIC on stderr, exit 255): the CAs before stand
    {"check": "rails_present", "name": "ibpanic on a CA that is no rail", "raw": {"ibstat": IBPANIC_MLX5_8}, "status": "PASS",
     "contains": ["8 rails present"]},
    {"check": "rails_active", "name": "ibpanic on a CA that is no rail: the rails stand", "raw": {"ibstat": IBPANIC_MLX5_8},
     "status": "PASS", "contains": ["8 ports Active/LinkUp"]},
    {"check": "rails_present", "name": "ibstat refused at mlx5_4: the rest named, not missing",
     "raw": {"ibstat": PERMISSION_DENIED, "rdma_sysfs": SYSFS_RAILS}, "status": "ERROR",
     "contains": ["not read: mlx5_4 (ibstat: stat of IB device 'mlx5_4' failed: Permission denied); mlx5_5 (not listed: ibstat stopped at mlx5_4)",
                  "4 rails present", "No data from `ibstat` for mlx5_4, mlx5_5, mlx5_6, mlx5_7"]},
    {"check": "rails_active", "name": "ibstat refused at mlx5_4: the 4 read are not a PASS",
     "raw": {"ibstat": PERMISSION_DENIED, "rdma_sysfs": SYSFS_RAILS}, "status": "ERROR", "contains": ["not read: mlx5_4", "4 ports Active/LinkUp"]},
    {"check": "rails_rate", "name": "ibstat refused at mlx5_4, a read rail slow: the finding stands",
     "facts": node(ibstat=dict(ibstat(drop=RAILS[4:], mlx5_1={"rate_gbps": 200}), unreadable={"mlx5_4": "stat of IB device 'mlx5_4' failed"}),
                   rdma_sysfs=listing(*RAILS)), "status": "FAIL", "contains": ["mlx5_1/1 at 200G"]},
    {"check": "rails_present", "name": "ibstat exited 255 without saying where",
     "facts": node(ibstat=dict(ibstat(drop=("mlx5_6", "mlx5_7")), exit_code=255), rdma_sysfs=listing(*RAILS)), "status": "ERROR",
     "contains": ["mlx5_6 (not listed: ibstat stopped at an unnamed CA (exit code 255))"]},
    {"check": "rails_rate", "name": "ibstat cut at a CA boundary, exit 0", "raw": {"ibstat": CUT_AT_CA, "rdma_sysfs": SYSFS_RAILS},
     "status": "ERROR", "contains": ["mlx5_5 (in /sys/class/infiniband but not in ibstat's answer (cut short?))", "5 ports at 400G"]},
    {"check": "rails_present", "name": "ibstat cut at a CA boundary, exit 0", "raw": {"ibstat": CUT_AT_CA, "rdma_sysfs": SYSFS_RAILS},
     "status": "ERROR", "contains": ["not read: mlx5_5"]},
    {"check": "rails_rate", "name": "Broadcom bnxt_re CAs: CA type read, 2.5 named",
     "raw": {"ibstat": fixture("linux_ibstat", "broadcom_bnxt_re_real")}, "expect": {"pyramid_rails": ["roceo1"], "pyramid_rail_rate_gbps": 200},
     "status": "FAIL", "contains": ["roceo1/1 at 2.5G"]},
    {"check": "rails_active", "name": "Broadcom bnxt_re: a Disabled port", "raw": {"ibstat": fixture("linux_ibstat", "broadcom_bnxt_re_real")},
     "expect": {"pyramid_rails": ["ibp23s0", "roceo1", "roceo2"]}, "status": "FAIL", "contains": ["roceo2/1 Down/Disabled"]},
    {"check": "rails_active", "name": "8 rails Active/LinkUp", "raw": {"ibstat": IBSTAT}, "status": "PASS", "contains": ["8 ports Active/LinkUp"]},
    {"check": "rails_active", "name": "InfiniBand NDR", "raw": {"ibstat": fixture("linux_ibstat", "cx7_ib_ndr")},
     "expect": {"pyramid_rails": ["mlx5_0", "mlx5_1"]}, "status": "PASS", "contains": ["2 ports Active/LinkUp"]},
    {"check": "rails_active", "name": "one port Down/Polling", "raw": {"ibstat": fixture("linux_ibstat", "port_down_polling")},
     "status": "FAIL", "contains": ["mlx5_5/1 Down/Polling", CAUSE]},
    {"check": "rails_active", "name": "Active but not LinkUp", "facts": node(ibstat=ibstat(mlx5_2={"phys_state": "Polling"})),
     "status": "FAIL", "contains": ["mlx5_2/1 Active/Polling"]},
    {"check": "rails_active", "name": "LinkUp but not Active", "facts": node(ibstat=ibstat(mlx5_6={"state": "Init"})),
     "status": "FAIL", "contains": ["mlx5_6/1 Init/LinkUp"]},
    {"check": "rails_active", "name": "last rail down", "facts": node(ibstat=ibstat(mlx5_7={"state": "Down", "phys_state": "Disabled"})),
     "status": "FAIL", "contains": ["mlx5_7/1 Down/Disabled"]},
    {"check": "rails_active", "name": "Disabled and No state change", "raw": {"ibstat": fixture("linux_ibstat", "port_disabled_no_state_change")},
     "expect": {"pyramid_rails": ["mlx5_0", "mlx5_1"]}, "status": "FAIL",
     "contains": ["mlx5_0/1 Down/Disabled", "mlx5_1/1 Initializing/No state change"]},
    {"check": "rails_active", "name": "second port of a dual-port NIC down", "raw": {"ibstat": fixture("linux_ibstat", "mlx4_dual_port")},
     "expect": {"pyramid_rails": ["mlx4_0"]}, "status": "FAIL", "contains": ["mlx4_0/2 Down/Polling"]},
    {"check": "rails_active", "name": "an undeclared NIC down is not judged",
     "facts": node(ibstat=ibstat(rails=RAILS + ["mlx5_8"], mlx5_8={"state": "Down", "phys_state": "Polling"})),
     "status": "PASS", "contains": ["8 ports Active/LinkUp"]},
    {"check": "rails_active", "name": "an absent rail is rails_present's finding", "raw": {"ibstat": fixture("linux_ibstat", "missing_device")},
     "status": "PASS", "contains": ["7 ports Active/LinkUp"]},
    {"check": "rails_active", "name": "ibstat not installed", "facts": node(ibstat=missing("ibstat")), "status": "ERROR",
     "contains": ["ibstat: command not found"]},
    # InfiniBand: a port that trained but that no subnet manager configured reads Initializing (or Armed) / LinkUp
    {"check": "rails_active", "name": "InfiniBand NDR (real, edited): a port Initializing/LinkUp waits for a subnet manager",
     "raw": {"ibstat": edited_raw(fixture("linux_ibstat", "cx7_ib_ndr"), "State: Active", "State: Initializing")},
     "expect": {"pyramid_rails": ["mlx5_0", "mlx5_1"]}, "status": "FAIL",
     "contains": ["mlx5_0/1 Initializing/LinkUp", "no subnet manager has configured it"]},
    {"check": "rails_active", "name": "InfiniBand: a port Armed/LinkUp waits for the SM too",
     "facts": node(ibstat=ibstat(mlx5_1={"state": "Armed", "link_layer": "InfiniBand"})), "status": "FAIL",
     "contains": ["mlx5_1/1 Armed/LinkUp", "no subnet manager"]},
    {"check": "rails_active", "name": "InfiniBand: one port Initializing, another Down/Polling: the cable cause stays",
     "facts": node(ibstat=ibstat(mlx5_1={"state": "Initializing"}, mlx5_2={"state": "Down", "phys_state": "Polling"})),
     "status": "FAIL", "contains": ["mlx5_1/1 Initializing/LinkUp", "mlx5_2/1 Down/Polling", CAUSE]},

    # --- rails_link_layer: every declared rail's ports on pyramid_rdma_link_layer's link layer
    {"check": "rails_link_layer", "name": "8 RoCE rails on Ethernet", "raw": {"ibstat": IBSTAT}, "status": "PASS",
     "contains": ["8 ports on Ethernet"]},
    {"check": "rails_link_layer", "name": "InfiniBand NDR on an InfiniBand pod", "raw": {"ibstat": fixture("linux_ibstat", "cx7_ib_ndr")},
     "expect": {"pyramid_rails": ["mlx5_0", "mlx5_1"], "pyramid_rdma_link_layer": "infiniband"}, "status": "PASS",
     "contains": ["2 ports on InfiniBand"]},
    {"check": "rails_link_layer", "name": "older libibumad's IB is InfiniBand",
     "facts": node(ibstat=ibstat(**{rail: {"link_layer": "IB"} for rail in RAILS})), "expect": {"pyramid_rdma_link_layer": "infiniband"},
     "status": "PASS", "contains": ["8 ports on InfiniBand"]},
    {"check": "rails_link_layer", "name": "a VPI port left in InfiniBand mode on a RoCE pod",
     "facts": node(ibstat=ibstat(mlx5_3={"link_layer": "InfiniBand"})), "status": "FAIL", "contains": ["mlx5_3/1 InfiniBand", CAUSE]},
    {"check": "rails_link_layer", "name": "InfiniBand NDR (real) on a pod declared RoCE",
     "raw": {"ibstat": fixture("linux_ibstat", "cx7_ib_ndr")}, "expect": {"pyramid_rails": ["mlx5_0", "mlx5_1"]}, "status": "FAIL",
     "contains": ["mlx5_0/1 InfiniBand", "mlx5_1/1 InfiniBand"]},
    {"check": "rails_link_layer", "name": "RoCE rails (real) on a pod declared InfiniBand", "raw": {"ibstat": IBSTAT},
     "expect": {"pyramid_rdma_link_layer": "infiniband"}, "status": "FAIL", "contains": ["mlx5_0/1 Ethernet"]},
    {"check": "rails_link_layer", "name": "ibstat refused at mlx5_4: the 4 read are not a PASS",
     "raw": {"ibstat": PERMISSION_DENIED, "rdma_sysfs": SYSFS_RAILS}, "status": "ERROR", "contains": ["not read: mlx5_4", "4 ports on Ethernet"]},
    {"check": "rails_link_layer", "name": "ibstat not installed", "facts": node(ibstat=missing("ibstat")), "status": "ERROR",
     "contains": ["ibstat: command not found"]},

    # --- rails_rate: every port of every declared rail at pyramid_rail_rate_gbps
    {"check": "rails_rate", "name": "8 rails at 400G", "raw": {"ibstat": IBSTAT}, "status": "PASS", "contains": ["8 ports at 400G"]},
    {"check": "rails_rate", "name": "100G and 200G rails", "raw": {"ibstat": fixture("linux_ibstat", "rate_100_and_200")},
     "status": "FAIL", "contains": ["mlx5_2/1 at 100G", "mlx5_6/1 at 200G", CAUSE]},
    {"check": "rails_rate", "name": "one rail at 200G", "facts": node(ibstat=ibstat(mlx5_4={"rate_gbps": 200})), "status": "FAIL",
     "contains": ["mlx5_4/1 at 200G"]},
    {"check": "rails_rate", "name": "200G rated, all at 200G", "facts": node(ibstat=ibstat(rate=200)),
     "expect": {"pyramid_rail_rate_gbps": 200}, "status": "PASS", "contains": ["8 ports at 200G"]},
    {"check": "rails_rate", "name": "200G rated, one at 400G", "facts": node(ibstat=ibstat(rate=200, mlx5_0={"rate_gbps": 400})),
     "expect": {"pyramid_rail_rate_gbps": 200}, "status": "FAIL", "contains": ["mlx5_0/1 at 400G"]},
    {"check": "rails_rate", "name": "second port of a dual-port NIC slow", "raw": {"ibstat": fixture("linux_ibstat", "mlx4_dual_port")},
     "expect": {"pyramid_rails": ["mlx4_0"], "pyramid_rail_rate_gbps": 40}, "status": "FAIL", "contains": ["mlx4_0/2 at 10G"]},
    {"check": "rails_rate", "name": "an undeclared NIC slow is not judged", "facts": node(ibstat=ibstat(rails=RAILS + ["mlx5_8"], mlx5_8={"rate_gbps": 100})),
     "status": "PASS", "contains": ["8 ports at 400G"]},
    {"check": "rails_rate", "name": "an absent rail is rails_present's finding", "raw": {"ibstat": fixture("linux_ibstat", "missing_device")},
     "status": "PASS", "contains": ["7 ports at 400G"]},
    {"check": "rails_rate", "name": "ibstat segfaulted", "raw": {"ibstat": fixture("linux_ibstat", "segfault")}, "status": "ERROR"},

    # --- gpudirect: a peer-memory module loaded, or DMA-BUF (open kernel module on Linux >= 5.12)
    {"check": "gpudirect", "name": "nvidia_peermem loaded, proprietary module", "facts": node(),
     "raw": {"kernel_modules": fixture("linux_lsmod", "dgx_h100"), "nvidia_module": fixture("linux_proc_driver_nvidia_version", "proprietary_550"),
             "osrelease": fixture("linux_proc_osrelease", "ubuntu_5_15")},
     "status": "PASS", "contains": ["path peermem: nvidia_peermem loaded"]},
    {"check": "gpudirect", "name": "nvidia_peermem in /proc/modules", "facts": node(nvidia_module=nvidia(open_module=False)),
     "raw": {"kernel_modules": fixture("linux_proc_modules", "dgx_h100")}, "status": "PASS", "contains": ["nvidia_peermem loaded"]},
    {"check": "gpudirect", "name": "amd_peer_mem loaded",
     "facts": node(kernel_modules=modules(*RDMA + ("amd_peer_mem",)), nvidia_module=missing("modinfo"), osrelease=kernel("5.4.0-42-generic")),
     "status": "PASS", "contains": ["path peermem: amd_peer_mem loaded"]},
    {"check": "gpudirect", "name": "peermem loaded, nvidia module unknown", "facts": node(nvidia_module=missing("modinfo")),
     "status": "PASS", "contains": ["nvidia_peermem loaded"]},
    {"check": "gpudirect", "name": "only peermem accepted and loaded", "facts": node(nvidia_module=nvidia(open_module=False)),
     "expect": {"pyramid_gpudirect_paths": ["peermem"]}, "status": "PASS", "contains": ["path peermem"]},
    {"check": "gpudirect", "name": "DMA-BUF on Linux 5.12 exactly", "facts": node(kernel_modules=NO_PEERMEM, osrelease=kernel("5.12.0-1-generic")),
     "raw": {"nvidia_module": fixture("linux_modinfo", "open_550")}, "status": "PASS",
     "contains": ["path dmabuf: open kernel module 550.90.07 on Linux 5.12.0-1-generic"]},
    {"check": "gpudirect", "name": "DMA-BUF not on Linux 5.11", "facts": node(kernel_modules=NO_PEERMEM, osrelease=kernel("5.11.0-49-generic")),
     "status": "FAIL", "contains": ["no DMA-BUF: open kernel module 550.90.07 on Linux 5.11.0-49-generic", "nvidia_peermem not loaded"]},
    {"check": "gpudirect", "name": "DMA-BUF on Linux 6.0", "facts": node(kernel_modules=NO_PEERMEM, osrelease=kernel("6.0.9-300")),
     "status": "PASS", "contains": ["path dmabuf"]},
    {"check": "gpudirect", "name": "DMA-BUF not on Linux 4.19", "facts": node(kernel_modules=NO_PEERMEM, osrelease=kernel("4.19.0-26-amd64")),
     "status": "FAIL", "contains": ["no DMA-BUF: open kernel module"]},
    {"check": "gpudirect", "name": "H200: open module on 6.8 without peermem", "facts": node(),
     "raw": {"kernel_modules": fixture("linux_proc_modules", "h200_host_kernel_without_module_unload"),
             "nvidia_module": fixture("linux_proc_driver_nvidia_version", "h200_open_kernel_module_real"),
             "osrelease": fixture("linux_proc_osrelease", "ubuntu_6_8")},
     "status": "PASS", "contains": ["path dmabuf: open kernel module 580.159.04 on Linux 6.8.0-1015-nvidia"]},
    {"check": "gpudirect", "name": "proprietary module without peermem", "facts": node(),
     "raw": {"kernel_modules": fixture("linux_lsmod", "without_nvidia_peermem"), "nvidia_module": fixture("linux_modinfo", "proprietary_550"),
             "osrelease": fixture("linux_proc_osrelease", "ubuntu_6_8")},
     "status": "FAIL", "contains": ["nvidia_peermem not loaded; no DMA-BUF: proprietary kernel module 550.90.07 on Linux 6.8", CAUSE]},
    {"check": "gpudirect", "name": "no peermem and nvidia module unknown", "facts": node(kernel_modules=NO_PEERMEM, nvidia_module=missing("modinfo")),
     "status": "FAIL", "contains": ["DMA-BUF unknown"]},
    {"check": "gpudirect", "name": "only dmabuf accepted, peermem loaded, proprietary module",
     "facts": node(nvidia_module=nvidia(open_module=False), osrelease=kernel("6.8.0-1015-nvidia")),
     "expect": {"pyramid_gpudirect_paths": ["dmabuf"]}, "status": "FAIL", "contains": ["no DMA-BUF: proprietary kernel module"]},
    {"check": "gpudirect", "name": "only dmabuf accepted, peermem loaded, open module on 6.8", "facts": node(osrelease=kernel("6.8.0-1015-nvidia")),
     "expect": {"pyramid_gpudirect_paths": ["dmabuf"]}, "status": "PASS", "contains": ["path dmabuf"]},
    {"check": "gpudirect", "name": "only peermem accepted, open module on 6.8 without peermem",
     "facts": node(kernel_modules=NO_PEERMEM, osrelease=kernel("6.8.0-1015-nvidia")),
     "expect": {"pyramid_gpudirect_paths": ["peermem"]}, "status": "FAIL", "contains": ["nvidia_peermem not loaded"]},
    # a failed nvidia_module read is not an absent driver: ERROR where DMA-BUF would rest on it, else the verdict stands
    {"check": "gpudirect", "name": "no peermem, modinfo nvidia cut short", "facts": node(kernel_modules=NO_PEERMEM, osrelease=kernel("6.8.0-1015-nvidia")),
     "raw": {"nvidia_module": fixture("linux_modinfo", "truncated")}, "status": "ERROR",
     "contains": ["nvidia_peermem not loaded; DMA-BUF not known: ", "unparseable output (linux_modinfo)", "can be neither proven nor ruled out"]},
    {"check": "gpudirect", "name": "no peermem, modinfo nvidia hung",
     "facts": node(kernel_modules=NO_PEERMEM, nvidia_module=failed("modinfo nvidia", "did not finish within 60s", "timeout")),
     "status": "ERROR", "contains": ["DMA-BUF not known: did not finish within 60s", "No data from `modinfo nvidia`"]},
    {"check": "gpudirect", "name": "peermem loaded, modinfo nvidia cut short", "facts": node(),
     "raw": {"nvidia_module": fixture("linux_modinfo", "truncated")}, "status": "PASS", "contains": ["path peermem"]},
    {"check": "gpudirect", "name": "only peermem accepted, none loaded, modinfo nvidia cut short", "facts": node(kernel_modules=NO_PEERMEM),
     "raw": {"nvidia_module": fixture("linux_modinfo", "truncated")}, "expect": {"pyramid_gpudirect_paths": ["peermem"]},
     "status": "FAIL", "contains": ["nvidia_peermem not loaded; no DMA-BUF: not accepted (pyramid_gpudirect_paths)"]},
    {"check": "gpudirect", "name": "no peermem on Linux 5.11, modinfo nvidia cut short",
     "facts": node(kernel_modules=NO_PEERMEM, osrelease=kernel("5.11.0-49-generic")),
     "raw": {"nvidia_module": fixture("linux_modinfo", "truncated")}, "status": "FAIL",
     "contains": ["nvidia_peermem not loaded; no DMA-BUF: Linux 5.11.0-49-generic is before 5.12"]},
    {"check": "gpudirect", "name": "no peermem, no nvidia module (modinfo: not found)",
     "facts": node(kernel_modules=NO_PEERMEM, nvidia_module=failed(
         "modinfo nvidia", "cat /proc/driver/nvidia/version: does not exist; modinfo nvidia: exited 1: modinfo: ERROR: Module nvidia not found.")),
     "status": "FAIL", "contains": ["nvidia_peermem not loaded; DMA-BUF unknown"]},
    # /sys/module/nvidia_peermem (peermem_sysfs) checks a list that lacks it: a list cut short is not "not loaded"
    {"check": "gpudirect", "name": "lsmod cut before nvidia_peermem, /sys/module says live",
     "facts": node(osrelease=kernel("6.8.0-1015-nvidia"), nvidia_module=nvidia(open_module=False)),
     "raw": {"kernel_modules": LSMOD_CUT_TO_NVIDIA, "peermem_sysfs": fixture("linux_sysfs_module_initstate", "live")}, "status": "ERROR",
     "contains": ["the module list does not show nvidia_peermem, yet /sys/module/nvidia_peermem/initstate says live",
                  "The module list (`lsmod` or /proc/modules) is incomplete"]},
    {"check": "gpudirect", "name": "no peermem in the list nor in /sys/module, proprietary module",
     "facts": node(kernel_modules=NO_PEERMEM, nvidia_module=nvidia(open_module=False), peermem_sysfs=NO_SYS_MODULE("nvidia_peermem")),
     "status": "FAIL", "contains": ["nvidia_peermem not loaded; no DMA-BUF: proprietary kernel module"]},
    {"check": "gpudirect", "name": "no peermem in the list, /sys/module unreadable, proprietary module",
     "facts": node(kernel_modules=NO_PEERMEM, nvidia_module=nvidia(open_module=False), peermem_sysfs=failed(
         "cat /sys/module/nvidia_peermem/initstate", "cat /sys/module/nvidia_peermem/initstate: Permission denied")),
     "status": "ERROR", "contains": ["the module list does not show nvidia_peermem, and /sys/module could not tell: "
                                     "cat /sys/module/nvidia_peermem/initstate: Permission denied", "No data from /sys/module/nvidia_peermem"]},
    {"check": "gpudirect", "name": "no peermem in the list, /sys/module unreadable, DMA-BUF proven",
     "facts": node(kernel_modules=NO_PEERMEM, osrelease=kernel("6.8.0-1015-nvidia"), peermem_sysfs=failed(
         "cat /sys/module/nvidia_peermem/initstate", "cat /sys/module/nvidia_peermem/initstate: Permission denied")),
     "status": "PASS", "contains": ["path dmabuf"]},
    {"check": "gpudirect", "name": "no module list", "facts": node(kernel_modules=missing("lsmod")), "status": "ERROR",
     "contains": ["lsmod: command not found"]},
    {"check": "gpudirect", "name": "kernel release unreadable", "facts": node(), "raw": {"osrelease": fixture("linux_proc_osrelease", "garbage")},
     "status": "ERROR", "contains": ["Permission denied"]},

    # --- mlxconfig: pyramid_mlxconfig on every present rail, current and next boot
    {"check": "mlxconfig", "name": "CX7 as desired on 8 rails", "raw": {"ibstat": IBSTAT, "mlxconfig": {rail: MLX_OK for rail in RAILS}},
     "status": "PASS", "contains": ["8 rails as desired"]},
    {"check": "mlxconfig", "name": "enums and booleans compared by number", "facts": node(),
     "expect": {"pyramid_mlxconfig": {"SRIOV_EN": "1", "LINK_TYPE_P1": "2", "NUM_OF_VFS": 16, "ROCE_CC_PRIO_MASK_P1": 255}},
     "status": "PASS", "contains": ["8 rails as desired"]},
    {"check": "mlxconfig", "name": "next boot differs",
     "facts": node(), "raw": {"mlxconfig": {"mlx5_0": fixture("linux_mlxconfig_query", "next_boot_differs")}},
     "status": "FAIL", "contains": ["ROCE_CC_PRIO_MASK_P1=255 (next boot 0) on mlx5_0", CAUSE]},
    {"check": "mlxconfig", "name": "DCQCN off now and at next boot",
     "facts": node(), "raw": {"mlxconfig": {"mlx5_3": fixture("linux_mlxconfig_query", "roce_cc_prio_mask_zero")}},
     "status": "FAIL", "contains": ["ROCE_CC_PRIO_MASK_P1=0 (next boot 0) on mlx5_3", CAUSE]},
    {"check": "mlxconfig", "name": "set, pending a reset", "facts": node(mlxconfig=mlx_rails(mlx5_5=mlx(p1=("0", "255")))), "status": "FAIL",
     "contains": ["ROCE_CC_PRIO_MASK_P1=0 (next boot 255) on mlx5_5", "not yet active"]},
    {"check": "mlxconfig", "name": "one finding on two rails", "facts": node(mlxconfig=mlx_rails(mlx5_1=mlx(p1="0"), mlx5_7=mlx(p1="0"))),
     "status": "FAIL", "contains": ["ROCE_CC_PRIO_MASK_P1=0 (next boot 0) on mlx5_1, mlx5_7"]},
    {"check": "mlxconfig", "name": "wrong on one rail, pending on another",
     "facts": node(mlxconfig=mlx_rails(mlx5_0=mlx(p1=("0", "255")), mlx5_1=mlx(p1=("255", "0")))),
     "status": "FAIL", "contains": ["ROCE_CC_PRIO_MASK_P1=255 (next boot 0) on mlx5_1", CAUSE]},
    {"check": "mlxconfig", "name": "P2 off on a dual-port NIC",
     "facts": node(ibstat=ibstat(ports=2), mlxconfig=mlx_rails(mlx5_2=mlx(p2="0", LINK_TYPE_P2="ETH(2)"))),
     "status": "FAIL", "contains": ["ROCE_CC_PRIO_MASK_P2=0 (next boot 0) on mlx5_2"]},
    {"check": "mlxconfig", "name": "boolean off", "facts": node(mlxconfig=mlx_rails(mlx5_4=mlx(SRIOV_EN="False(0)"))),
     "expect": {"pyramid_mlxconfig": dict(P1_ONLY, SRIOV_EN="1")}, "status": "FAIL", "contains": ["SRIOV_EN=False(0) (next boot False(0)) on mlx5_4"]},
    {"check": "mlxconfig", "name": "a parameter not reported", "facts": node(mlxconfig=mlx_rails(mlx5_4=mlx(absent=("ATS_ENABLED",)))),
     "expect": {"pyramid_mlxconfig": dict(P1_ONLY, ATS_ENABLED="1")}, "status": "ERROR", "contains": ["mlx5_4: ATS_ENABLED not reported by mlxconfig"]},
    {"check": "mlxconfig", "name": "port 1 parameter not reported", "facts": node(mlxconfig=mlx_rails(mlx5_0=mlx(absent=("ROCE_CC_PRIO_MASK_P1",)))),
     "status": "ERROR", "contains": ["mlx5_0: ROCE_CC_PRIO_MASK_P1 not reported"]},
    {"check": "mlxconfig", "name": "one rail's query failed", "facts": node(),
     "raw": {"mlxconfig": {"mlx5_6": fixture("linux_mlxconfig_query", "unknown_device")}}, "status": "ERROR",
     "contains": ["mlx5_6: ", "Failed to open the device"]},
    {"check": "mlxconfig", "name": "one rail's query hung", "facts": node(mlxconfig=mlx_rails(mlx5_7=failed("mlxconfig -d mlx5_7 -e q", "hung", "timeout"))),
     "status": "ERROR", "contains": ["mlx5_7: hung"]},
    {"check": "mlxconfig", "name": "an absent rail is rails_present's finding", "facts": node(ibstat=ibstat(drop=("mlx5_3",))),
     "raw": {"mlxconfig": {"mlx5_3": fixture("linux_mlxconfig_query", "unknown_device")}}, "status": "PASS", "contains": ["7 rails as desired"]},
    {"check": "mlxconfig", "name": "single-port NICs: no _P2 expected",
     "raw": {"ibstat": IBSTAT, "mlxconfig": {rail: fixture("linux_mlxconfig_query", "single_port_cx7") for rail in RAILS}},
     "status": "PASS", "contains": ["8 rails as desired (single-port by mlxconfig's Description, no port 2 to set: mlx5_0"]},
    {"check": "mlxconfig", "name": "single-port NICs, DCQCN off on one: the expected names no _P2",
     "raw": {"ibstat": IBSTAT, "mlxconfig": dict({rail: fixture("linux_mlxconfig_query", "single_port_cx7") for rail in RAILS},
                                                 mlx5_3=fixture("linux_mlxconfig_query", "roce_cc_prio_mask_zero"))},
     "status": "FAIL", "contains": ["ROCE_CC_PRIO_MASK_P1=0 (next boot 0) on mlx5_3",
                                    "current and next boot: ROCE_CC_PRIO_MASK_P1=255; not ROCE_CC_PRIO_MASK_P2: no such port on these cards"]},
    {"check": "mlxconfig", "name": "a dual-port card by its Description without its _P2 rows: not taken for single-port",
     "raw": {"ibstat": IBSTAT, "mlxconfig": {rail: DUAL_PORT_NO_P2 for rail in RAILS}},
     "status": "ERROR", "contains": ["mlx5_0: ROCE_CC_PRIO_MASK_P2 not reported by mlxconfig;"]},
    {"check": "mlxconfig", "name": "a card naming no port count and no _P2 row: a cut cannot be ruled out",
     "raw": {"ibstat": IBSTAT, "mlxconfig": {rail: NO_PORT_COUNT_NO_P2 for rail in RAILS}},
     "status": "ERROR", "contains": ["ROCE_CC_PRIO_MASK_P2 not reported by mlxconfig (its Description names no port count"]},
    {"check": "mlxconfig", "name": "a single-port card's _P2 row is not judged, whatever it holds",
     "facts": node(mlxconfig=mlx_rails(mlx5_2=dict(mlx(p2="0"), ports=1))), "status": "PASS",
     "contains": ["no port 2 to set: mlx5_2)"]},
    {"check": "mlxconfig", "name": "a dual-port NIC still owes its _P2 value",
     "facts": node(mlxconfig=mlx_rails(mlx5_2=mlx(absent=("ROCE_CC_PRIO_MASK_P2",), LINK_TYPE_P2="ETH(2)"))), "status": "ERROR",
     "contains": ["mlx5_2: ROCE_CC_PRIO_MASK_P2 not reported by mlxconfig"]},
    {"check": "mlxconfig", "name": "desired True, 1 and ETH read as True(1) and ETH(2)", "raw": {"ibstat": IBSTAT,
     "mlxconfig": {rail: MLX_OK for rail in RAILS}}, "expect": {"pyramid_mlxconfig": {"SRIOV_EN": "True", "ATS_ENABLED": "1", "LINK_TYPE_P1": "ETH"}},
     "status": "PASS", "contains": ["8 rails as desired"]},
    {"check": "mlxconfig", "name": "desired False read as True(1)", "raw": {"ibstat": IBSTAT, "mlxconfig": {rail: MLX_OK for rail in RAILS}},
     "expect": {"pyramid_mlxconfig": {"SRIOV_EN": "False"}}, "status": "FAIL", "contains": ["SRIOV_EN=True(1) (next boot True(1)) on mlx5_0"]},
    {"check": "mlxconfig", "name": "mlxconfig not installed", "facts": node(mlxconfig={rail: missing("mlxconfig") for rail in RAILS}),
     "status": "ERROR", "contains": ["mlxconfig: command not found"]},
    {"check": "mlxconfig", "name": "no ibstat", "facts": node(ibstat=missing("ibstat")), "status": "ERROR", "contains": ["ibstat: command not found"]},

    # --- nic_firmware (pod): one firmware version on every declared rail of every host
    {"check": "nic_firmware", "name": "no rail read on a node: nothing compared", "facts": pod(node_002=node(ibstat=ibstat(drop=RAILS))),
     "status": {"node-001": "PASS", "node-002": "SKIP", "node-003": "PASS"},
     "contains": {"node-002": ["no rail to compare: none of 8 declared rails in ibstat"]}},
    {"check": "nic_firmware", "name": "no rail read anywhere", "facts": pod(**{host.replace("-", "_"): node(ibstat=ibstat(drop=RAILS)) for host in HOSTS}),
     "status": everyone("SKIP")},
    {"check": "nic_firmware", "name": "ibstat stopped at a rail: the read ones compared, the rest named",
     "facts": pod(), "raw": {"node-003": {"ibstat": PERMISSION_DENIED, "rdma_sysfs": SYSFS_RAILS}},
     "status": {"node-001": "PASS", "node-002": "PASS", "node-003": "ERROR"},
     "contains": {"node-003": ["not read: mlx5_4 (ibstat: stat of IB device 'mlx5_4' failed: Permission denied)", "4 rails on 28.39.1002"]}},
    {"check": "nic_firmware", "name": "one version across the pod", "facts": pod(), "raw": {host: {"ibstat": IBSTAT} for host in HOSTS},
     "status": everyone("PASS"), "contains": everyone(["8 rails on 28.39.1002"])},
    {"check": "nic_firmware", "name": "one rail on another version", "facts": pod(), "raw": {"node-002": {"ibstat": fixture("linux_ibstat", "mixed_firmware")}},
     "status": {"node-001": "PASS", "node-002": "FAIL", "node-003": "PASS"}, "contains": {"node-002": ["mlx5_7 28.37.1014", CAUSE]}},
    {"check": "nic_firmware", "name": "one node on an older version", "facts": pod(node_003=node(ibstat=ibstat(fw=OLD_FW))),
     "status": {"node-001": "PASS", "node-002": "PASS", "node-003": "FAIL"}, "contains": {"node-003": ["mlx5_0 28.37.1014", "mlx5_7 28.37.1014"]}},
    {"check": "nic_firmware", "name": "pinned version beats the majority",
     "facts": pod(node_001=node(ibstat=ibstat(fw=OLD_FW)), node_002=node(ibstat=ibstat(fw=OLD_FW))), "expect": {"pyramid_nic_firmware": FW},
     "status": {"node-001": "FAIL", "node-002": "FAIL", "node-003": "PASS"},
     "contains": {"node-001": ["mlx5_0 28.37.1014"], "node-003": ["8 rails on 28.39.1002"]}},
    {"check": "nic_firmware", "name": "pinned version nobody runs", "facts": pod(), "expect": {"pyramid_nic_firmware": "28.40.1000"},
     "status": everyone("FAIL"), "contains": everyone(["mlx5_0 28.39.1002"])},
    {"check": "nic_firmware", "name": "a lone node", "facts": {"node-001": node()}, "status": {"node-001": "PASS"}},
    {"check": "nic_firmware", "name": "an undeclared NIC is not judged",
     "facts": pod(node_001=node(ibstat=ibstat(rails=RAILS + ["mlx5_8"], mlx5_8={"firmware": OLD_FW}))),
     "status": everyone("PASS"), "contains": everyone(["8 rails on 28.39.1002"])},
    {"check": "nic_firmware", "name": "a node without ibstat", "facts": pod(node_003=node(ibstat=missing("ibstat"))),
     "status": {"node-001": "PASS", "node-002": "PASS", "node-003": "ERROR"}, "contains": {"node-003": ["ibstat: command not found"]}},

    # --- gpus_present: pyramid_gpus_per_node GPUs in nvidia-smi topo -m
    {"check": "gpus_present", "name": "8 GPUs", "raw": {"gpu_topology": fixture("linux_nvidia_smi_topo_m", "eight_rails_pix")}, "status": "PASS",
     "contains": ["8 GPUs linked by NV18"]},
    {"check": "gpus_present", "name": "2 GPUs wanted and seen", "raw": {"gpu_topology": fixture("linux_nvidia_smi_topo_m", "h200_x2_nvlink_no_nics_real")},
     "expect": {"pyramid_gpus_per_node": 2}, "status": "PASS", "contains": ["2 GPUs linked by NV18"]},
    {"check": "gpus_present", "name": "1 GPU wanted and seen", "raw": {"gpu_topology": fixture("linux_nvidia_smi_topo_m", "one_gpu")},
     "expect": {"pyramid_gpus_per_node": 1}, "status": "PASS"},
    {"check": "gpus_present", "name": "one GPU fewer", "facts": node(gpu_topology=topo(gpus=7)), "status": "FAIL",
     "contains": ["7 GPUs linked by NV18: GPU0, GPU1", CAUSE]},
    {"check": "gpus_present", "name": "one GPU more", "facts": node(gpu_topology=topo(gpus=9)), "status": "FAIL", "contains": ["9 GPUs"]},
    {"check": "gpus_present", "name": "1 of 8 GPUs", "raw": {"gpu_topology": fixture("linux_nvidia_smi_topo_m", "one_gpu")}, "status": "FAIL",
     "contains": ["1 GPU: GPU0"]},
    {"check": "gpus_present", "name": "driver not loaded", "raw": {"gpu_topology": fixture("linux_nvidia_smi_topo_m", "driver_not_loaded")},
     "status": "ERROR"},
    {"check": "gpus_present", "name": "nvidia-smi not installed", "facts": node(gpu_topology=missing(NVIDIA_SMI)), "status": "ERROR",
     "contains": ["command not found"]},

    # --- gpu_nic_affinity: GPU i to rail i through an accepted path
    {"check": "gpu_nic_affinity", "name": "PIX on every pair",
     "raw": {"gpu_topology": fixture("linux_nvidia_smi_topo_m", "eight_rails_pix"), "ibstat": IBSTAT},
     "status": "PASS", "contains": ["8 GPU-rail pairs within"]},
    {"check": "gpu_nic_affinity", "name": "DGX H100: PXB to 8 of 12 NICs", "facts": node(ibstat=IBSTAT_12),
     "raw": {"gpu_topology": fixture("linux_nvidia_smi_topo_m", "dgx_h100_12_nics")},
     "expect": {"pyramid_rails": DGX_RAILS, "pyramid_gpu_nic_paths": NO_NODE}, "status": "PASS", "contains": ["8 GPU-rail pairs within PIX/PXB/PHB"]},
    {"check": "gpu_nic_affinity", "name": "DGX H100 rails declared wrong", "facts": node(ibstat=IBSTAT_12),
     "raw": {"gpu_topology": fixture("linux_nvidia_smi_topo_m", "dgx_h100_12_nics")}, "expect": {"pyramid_gpu_nic_paths": NO_NODE},
     "status": "FAIL", "contains": ["GPU1-NIC1(mlx5_1) NODE"]},
    {"check": "gpu_nic_affinity", "name": "PHB accepted", "facts": node(gpu_topology=topo(path="PHB")), "expect": {"pyramid_gpu_nic_paths": NO_NODE},
     "status": "PASS"},
    {"check": "gpu_nic_affinity", "name": "PXB accepted", "facts": node(gpu_topology=topo(path="PXB")), "expect": {"pyramid_gpu_nic_paths": NO_NODE},
     "status": "PASS"},
    {"check": "gpu_nic_affinity", "name": "NODE accepted when listed", "facts": node(gpu_topology=topo(GPU3="NODE")),
     "expect": {"pyramid_gpu_nic_paths": ["PIX", "NODE"]}, "status": "PASS"},
    {"check": "gpu_nic_affinity", "name": "NODE outside when not listed", "facts": node(gpu_topology=topo(GPU3="NODE")),
     "expect": {"pyramid_gpu_nic_paths": NO_NODE}, "status": "FAIL", "contains": ["GPU3-NIC3(mlx5_3) NODE"]},
    {"check": "gpu_nic_affinity", "name": "PXB outside when only PIX listed", "facts": node(gpu_topology=topo(GPU5="PXB")),
     "expect": {"pyramid_gpu_nic_paths": ["PIX"]}, "status": "FAIL", "contains": ["GPU5-NIC5(mlx5_5) PXB"]},
    # NCCL's own default (ncclTopoCheckGdr: netGdrLevel = PATH_PXB): farther than PXB, no GPUDirect RDMA
    {"check": "gpu_nic_affinity", "name": "PXB accepted by default", "facts": node(gpu_topology=topo(path="PXB")), "status": "PASS",
     "contains": ["within PIX/PXB"]},
    {"check": "gpu_nic_affinity", "name": "NODE refused by default (NCCL would not use GPUDirect RDMA)",
     "facts": node(gpu_topology=topo(GPU3="NODE")), "status": "FAIL", "contains": ["GPU3-NIC3(mlx5_3) NODE", "NCCL_NET_GDR_LEVEL"]},
    {"check": "gpu_nic_affinity", "name": "PHB refused by default", "facts": node(gpu_topology=topo(GPU1="PHB")), "status": "FAIL",
     "contains": ["GPU1-NIC1(mlx5_1) PHB", CAUSE]},
    {"check": "gpu_nic_affinity", "name": "SYS accepted when listed", "facts": node(gpu_topology=topo(path="SYS")),
     "expect": {"pyramid_gpu_nic_paths": ["SYS"]}, "status": "PASS"},
    {"check": "gpu_nic_affinity", "name": "GPU0's NIC on the other socket",
     "raw": {"gpu_topology": fixture("linux_nvidia_smi_topo_m", "gpu0_nic_on_other_socket"), "ibstat": IBSTAT},
     "status": "FAIL", "contains": ["GPU0-NIC0(mlx5_0) SYS", CAUSE]},
    {"check": "gpu_nic_affinity", "name": "last GPU's NIC on the other socket", "facts": node(gpu_topology=topo(GPU7="SYS")), "status": "FAIL",
     "contains": ["GPU7-NIC7(mlx5_7) SYS"]},
    {"check": "gpu_nic_affinity", "name": "two NICs for four GPUs", "facts": node(ibstat=ibstat(rails=RAILS[:2])),
     "raw": {"gpu_topology": fixture("linux_nvidia_smi_topo_m", "four_gpus_two_nics")}, "expect": {"pyramid_rails": RAILS[:2]},
     "status": "FAIL", "contains": ["GPU1-NIC1(mlx5_1) SYS"]},
    {"check": "gpu_nic_affinity", "name": "GPUs without a rail are not judged", "facts": node(gpu_topology=topo(GPU4="SYS", GPU7="SYS")),
     "expect": {"pyramid_rails": RAILS[:4]}, "status": "PASS", "contains": ["4 GPU-rail pairs"]},
    {"check": "gpu_nic_affinity", "name": "rail NIC not in the topology", "facts": node(gpu_topology=topo(nics=RAILS[:7])), "status": "FAIL",
     "contains": ["rail NICs not in the topology: mlx5_7", "not visible to the GPU driver"]},
    {"check": "gpu_nic_affinity", "name": "no NIC in the topology", "facts": node(),
     "raw": {"gpu_topology": fixture("linux_nvidia_smi_topo_m", "h100_no_nics")}, "status": "FAIL",
     "contains": ["rail NICs not in the topology: mlx5_0, mlx5_1"]},
    {"check": "gpu_nic_affinity", "name": "wrong path wins over a missing NIC", "facts": node(gpu_topology=topo(nics=RAILS[:7], GPU2="SYS")),
     "status": "FAIL", "contains": ["GPU2-NIC2(mlx5_2) SYS", CAUSE]},
    {"check": "gpu_nic_affinity", "name": "an absent rail is rails_present's finding",
     "facts": node(gpu_topology=topo(nics=RAILS[:7]), ibstat=ibstat(drop=("mlx5_7",))), "status": "PASS", "contains": ["7 GPU-rail pairs"]},
    {"check": "gpu_nic_affinity", "name": "topology unparseable", "facts": node(),
     "raw": {"gpu_topology": fixture("linux_nvidia_smi_topo_m", "truncated_in_matrix")}, "status": "ERROR"},
    {"check": "gpu_nic_affinity", "name": "no ibstat", "facts": node(ibstat=missing("ibstat")), "status": "ERROR"},
]

NINE_RAILS = ["mlx5_%d" % index for index in range(9)]
DATA += [
    # --- a long list is cut after 8 findings ("; and N more"), 8 are all named
    {"check": "rails_active", "name": "9 rails down: 8 named and 1 more",
     "facts": node(ibstat=ibstat(rails=NINE_RAILS, **{rail: {"state": "Down", "phys_state": "Polling"} for rail in NINE_RAILS})),
     "expect": {"pyramid_rails": NINE_RAILS}, "status": "FAIL", "contains": ["mlx5_7/1 Down/Polling; and 1 more"]},
    {"check": "rails_rate", "name": "8 rails at 200G: all 8 named", "facts": node(ibstat=ibstat(rate=200)), "status": "FAIL",
     "contains": ["mlx5_0/1 at 200G", "mlx5_7/1 at 200G"]},
]
DATA += [
    {"check": "rails_present", "name": "two rails missing", "facts": node(ibstat=ibstat(drop=("mlx5_2", "mlx5_6"))), "status": "FAIL",
     "contains": ["missing: mlx5_2, mlx5_6"]},
]
DATA += [
    {"check": "mlxconfig", "name": "two rails' queries failed, both named",
     "facts": node(mlxconfig=mlx_rails(mlx5_1=failed("mlxconfig -d mlx5_1 -e q", "hung", "timeout"), mlx5_5=missing("mlxconfig"))),
     "status": "ERROR", "contains": ["mlx5_1: hung; mlx5_5: mlxconfig: command not found"]},
    {"check": "mlxconfig", "name": "two parameters not reported, both named",
     "facts": node(mlxconfig=mlx_rails(mlx5_4=mlx(absent=("ATS_ENABLED", "SRIOV_EN")))),
     "expect": {"pyramid_mlxconfig": dict(P1_ONLY, ATS_ENABLED="1", SRIOV_EN="1")}, "status": "ERROR",
     "contains": ["mlx5_4: ATS_ENABLED not reported by mlxconfig; mlx5_4: SRIOV_EN not reported by mlxconfig"]},
    {"check": "mlxconfig", "name": "two findings on two rails", "facts": node(mlxconfig=mlx_rails(mlx5_1=mlx(p1="0"), mlx5_2=mlx(SRIOV_EN="False(0)"))),
     "expect": {"pyramid_mlxconfig": dict(P1_ONLY, SRIOV_EN="1")}, "status": "FAIL",
     "contains": ["ROCE_CC_PRIO_MASK_P1=0 (next boot 0) on mlx5_1; SRIOV_EN=False(0) (next boot False(0)) on mlx5_2"]},
    {"check": "gpus_present", "name": "2 GPUs of 3, no NIC", "facts": node(gpu_topology=topo(gpus=2, nics=[])),
     "expect": {"pyramid_gpus_per_node": 3}, "status": "FAIL", "contains": ["2 GPUs linked by NV18: GPU0, GPU1"]},
    {"check": "gpus_present", "name": "no GPU at all", "facts": node(gpu_topology=topo(gpus=0, nics=[])), "status": "FAIL", "contains": ["0 GPUs: none"]},
]
MIXED = topo(gpus=3, nics=[])
MIXED["gpus"]["GPU2"]["links"] = {"GPU0": "NV12", "GPU1": "NV12"}
DATA += [
    {"check": "gpus_present", "name": "NV12 and NV18 links", "facts": node(gpu_topology=MIXED), "expect": {"pyramid_gpus_per_node": 3}, "status": "PASS",
     "contains": ["3 GPUs linked by NV12/NV18"]},
]

with_sysfs(DATA)
