"""The twin pod's state: scenario file -> per-device state dicts.

Only the twin uses this. The state is what the simulated vendor tools and
/proc, /sys files are rendered from (see formats.py); product code never sees it.

GPU node state (``node_state``)::

    hostname: node-007
    kernel_release: 5.15.0-119-generic
    cmdline: "BOOT_IMAGE=... intel_iommu=on iommu=pt default_hugepagesz=1G hugepagesz=1G hugepages=64"
    iommu_units: [dmar0, dmar1, dmar2, dmar3]    # entries of /sys/class/iommu ([] = IOMMU off)
    mem_total_kb: 2113612808
    hugepages: {total: 64, free: 64, size_kb: 1048576}
    modules: [nvidia_peermem, nvidia_uvm, nvidia, mlx5_ib, mlx5_core, ib_uverbs, ib_core, ...]
    nvidia_driver: {version: 550.90.07, open_kernel_module: false}
    gpus:  [{index: 0, name: NVIDIA H100 80GB HBM3, numa: 0, pci: "0000:18:00.0",
             health: {ecc_volatile: 0, ecc_aggregate: 0, remap_pending: false, remapped_uncorrectable: 0,
                      pcie_gen: 5, pcie_width: 16, nvlinks: 18, nvlink_gbps: 26.562, nvlinks_down: [],
                      clock_events: [], xids: []}}, ...]   # nvidia-smi -q / nvlink -s, dmesg (GPU health)
    gpu_fabric: {state: Completed, status: Success}   # nvidia-smi -q Fabric section (NVSwitch, fabric manager)
    dcgm: {version: 3.1.0, failures: []}             # dcgmi diag -r 1 -j; failures: [{gpu, warning}]
    rails: [{device: mlx5_0, netdev: ens1np0, port: 1, state: Active, phys_state: LinkUp,
             rate: 400, link_layer: Ethernet, firmware: 28.39.1002, ca_type: MT4129,
             node_guid: 0x..., port_guid: 0x..., numa: 0, pci: "0000:19:00.0",
             gpu: 0, pcie_gen: 5, pcie_width: 16}, ...]  # gpu: the GPU on the same PCIe switch; the NIC's link
    mlxconfig: {mlx5_0: {ROCE_CC_PRIO_MASK_P1: {default: "255", current: "255", next_boot: "255"}, ...}}
    tools: {missing: [], hang: [], garbage: []}   # tool names: ibstat, lsmod, mlxconfig, nvidia-smi, modinfo
    unreachable: false
    nccl: {peak_busbw: 360.0, wrong: 0, hang: false}             # single-node all-reduce
    training: {step_ms: 850.0, jitter: 0.01, slow_rank: null, slow_factor: 1.0, timeout: false}
"""

import copy
import ipaddress
import os
import re

import yaml

# nccl-tests' other collectives a node runs at Layer 5 (all_reduce is nccl's own state)
COLLECTIVE_OPS = ("all_gather", "reduce_scatter", "alltoall", "sendrecv")
DEFAULT_SCENARIO = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scenarios", "default.yml")

# Defaults of a healthy DGX-H100-class node with 8 x ConnectX-7 400G rails.
HEALTHY_NODE = {
    "kernel_release": "5.15.0-119-generic",
    "cmdline": (
        "BOOT_IMAGE=/vmlinuz-5.15.0-119-generic root=UUID=3f1c2a9e-6d1b-4c7a-9a0e-2b7d5e8f4c11 ro "
        "intel_iommu=on iommu=pt default_hugepagesz=1G hugepagesz=1G hugepages=64 "
        "pci=realloc=off console=tty0 console=ttyS0,115200n8"
    ),
    "iommu_units": ["dmar0", "dmar1", "dmar2", "dmar3", "dmar4", "dmar5", "dmar6", "dmar7"],
    "mem_total_kb": 2113612808,
    "hugepages": {"total": 64, "free": 64, "size_kb": 1048576},
    "modules": [
        "nvidia_peermem", "nvidia_uvm", "nvidia_drm", "nvidia_modeset", "nvidia",
        "mlx5_ib", "mlx5_core", "ib_uverbs", "ib_core", "mlxfw", "psample", "tls",
        "rdma_ucm", "rdma_cm", "iw_cm", "ib_cm", "ib_umad", "ib_ipoib", "nvme", "nvme_core",
    ],
    "nvidia_driver": {"version": "550.90.07", "open_kernel_module": False},
    # The packages dpkg-query shows (MLNX_OFED 24.04-0.7.0.0's rdma-core, CUDA 12.4 update 1, NCCL 2.21.5), the
    # OFED release ofed_info -s prints, and the NCCL a run loads (NCCL_DEBUG=INFO's "NCCL version" line)
    "stack": {
        "packages": {"cuda-cudart-12-4": "12.4.127-1", "libibverbs1": "2404mlnx51-1.2404066", "libnccl2": "2.21.5-1+cuda12.4",
                     "rdma-core": "2404mlnx51-1.2404066"},
        "ofed": "MLNX_OFED_LINUX-24.04-0.7.0.0",
        "nccl_loaded": "2.21.5+cuda12.4",
    },
    "gpu_name": "NVIDIA H100 80GB HBM3",
    "firmware": "28.39.1002",
    "link_layer": "Ethernet",
    "rate": 400,
    "mlxconfig": {
        "ROCE_CC_PRIO_MASK_P1": "255",  # no _P2 parameters: the twin's card is single-port (formats.CX7_DESCRIPTION)
        "SRIOV_EN": "True(1)",
        "NUM_OF_VFS": "16",
        "LINK_TYPE_P1": "ETH(2)",
        "ADVANCED_PCI_SETTINGS": "True(1)",
        "PCI_WR_ORDERING": "force_relax(1)",
        "ATS_ENABLED": "True(1)",
    },
    "mlxconfig_factory": {"ROCE_CC_PRIO_MASK_P1": "255"},
}

# A healthy HGX H100 GPU as nvidia-smi and the kernel log show it: Gen5 x16 without PCIe replays, 18 NVLink 4
# links at 26.562 GB/s (nvidia-smi nvlink -s on H100/H200 SXM) with no error counted (nvlink_errors: link ->
# {replay, recovery, crc} where a fault set them, the link as a string key), no ECC error, no clock slowdown, no Xid.
HEALTHY_GPU = {
    "ecc_volatile": 0, "ecc_aggregate": 0, "remap_pending": False, "remapped_uncorrectable": 0,
    "pcie_gen": 5, "pcie_width": 16, "pcie_replays": 0, "nvlinks": 18, "nvlink_gbps": 26.562, "nvlinks_down": [],
    "nvlink_errors": {}, "clock_events": [], "xids": [],
}

# PCI layout of one node: GPU i and rail i share a PCIe switch; 0-3 on NUMA 0, 4-7 on NUMA 1.
GPU_PCI = ["0000:18:00.0", "0000:2a:00.0", "0000:3a:00.0", "0000:5d:00.0",
           "0000:9a:00.0", "0000:ab:00.0", "0000:ba:00.0", "0000:db:00.0"]
NIC_PCI = ["0000:19:00.0", "0000:2b:00.0", "0000:3b:00.0", "0000:5e:00.0",
           "0000:9b:00.0", "0000:ac:00.0", "0000:bb:00.0", "0000:dc:00.0"]


class ScenarioError(ValueError):
    """The scenario file is not valid."""


def _switch_fabric(scenario):
    if scenario.get("switches") is None:
        return _ib_view(scenario)
    # imported here: switch_model imports this module
    from pyramid_twin import switch_model  # pylint: disable=import-outside-toplevel
    return switch_model.node_view(scenario)


def load_scenario(path=None):
    path = os.path.abspath(path or DEFAULT_SCENARIO)
    with open(path, encoding="utf-8") as handle:
        data = yaml.safe_load(handle) or {}
    if not isinstance(data, dict):
        raise ScenarioError("%s: a scenario is a mapping" % path)
    pod = data.setdefault("pod", {})
    nodes = pod.setdefault("nodes", 32)
    # one node: a lone GPU box as inventories/device validates it (nothing to run across nodes)
    if not isinstance(nodes, int) or not 1 <= nodes <= 4096:
        raise ScenarioError("%s: pod.nodes must be an integer from 1 to 4096" % path)
    pod.setdefault("gpus_per_node", 8)
    pod.setdefault("rails", 8)
    fabric = pod.setdefault("fabric", {})
    if not isinstance(fabric, dict) or set(fabric) - {"degraded_above_nodes", "factor", "why", "spine_funnel", "corrupt"}:
        raise ScenarioError("%s: pod.fabric takes degraded_above_nodes, factor, spine_funnel, corrupt and why" % path)
    corrupt = fabric.get("corrupt")
    if corrupt is not None and (not isinstance(corrupt, dict) or set(corrupt) != {"op", "wrong"} or corrupt["op"] not in
                                ("all_reduce", "all_gather", "reduce_scatter", "alltoall")
                                or not isinstance(corrupt["wrong"], int) or corrupt["wrong"] < 1):
        raise ScenarioError("%s: pod.fabric.corrupt takes op (all_reduce, all_gather, reduce_scatter or alltoall) and wrong "
                            "(>= 1 wrong elements at every large size of that collective across nodes)" % path)
    funnel = fabric.get("spine_funnel")
    if funnel is not None and (not isinstance(funnel, dict) or set(funnel) != {"nodes_per_unit", "factor"}
                               or not isinstance(funnel["nodes_per_unit"], int) or funnel["nodes_per_unit"] < 1
                               or not isinstance(funnel["factor"], (int, float)) or not 0 < funnel["factor"] <= 1):
        raise ScenarioError("%s: pod.fabric.spine_funnel takes nodes_per_unit (nodes to a scalable unit, >= 1) and factor "
                            "(0 < factor <= 1: the all-to-all across units runs at it)" % path)
    pod["ib_sm"] = _ib_sm(path, pod.get("ib_sm"), node_names(data))
    _ib_stack(path, data)
    _ib_fabric(path, data)
    sharp = pod.get("sharp")
    if sharp is not None and (not isinstance(sharp, dict) or set(sharp) != {"state"} or sharp["state"] not in ("up", "no_job")):
        raise ScenarioError("%s: pod.sharp takes state: up (the fabric runs SHARP, every node has the NCCL RDMA/SHARP "
                            "plugin) or no_job (the same, its aggregation manager refusing jobs)" % path)
    data["timing"] = _timing(path, data.get("timing"))
    faults = data.setdefault("faults", [])
    names = set(node_names(data))
    for fault in faults:
        if not isinstance(fault, dict) or "kind" not in fault:
            raise ScenarioError("%s: every fault needs a kind: %r" % (path, fault))
        if fault["kind"] not in FAULTS:
            raise ScenarioError("%s: unknown fault kind %r (known: %s)" % (path, fault["kind"], ", ".join(sorted(FAULTS))))
        if fault.get("node") not in names:
            raise ScenarioError("%s: fault %r names unknown node %r" % (path, fault["kind"], fault.get("node")))
    data["_path"] = path
    return data


# The InfiniBand subnet's master SM: by default an SM on the first leaf switch (formats_infiniband: leaf1-r0, LID 1,
# its GUID), at priority 15, as UFM or a managed Quantum switch runs it.
SWITCH_SM = {"lid": 1, "guid": "0x0c42a10300000001", "priority": 15}


# the lane speeds ibsim 0.10 trains at (ibsim.SPEED_WORD: SDR to HDR)
IBSIM_LANE_GBPS = (2.5, 5.0, 10.0, 14.0625, 25.78125, 53.125)
# the SM host's HCA port on an ibsim pod (ibsim.py: ufm-01, a UFM appliance's port on the first leaf)
IBSIM_SM_HOST_PORT_GUID = "0x0c42a10300f00001"
# what the real stack (pod.ib_stack: ibsim) is given: the rest is what only the twin's own formats show (a port no SM
# configured, another SM's port, a count ibdiagnet reads); inbox_rdma changes a node's own tools alone, not the subnet
IBSIM_FAULTS = ("ib_link", "ib_cable_swap", "ib_port_errors", "ib_hoq_lifetime_short", "ib_credit_stall", "ib_mtu",
                "inbox_rdma")


def _ib_stack(path, data):
    """pod.ib_stack: ibsim - the subnet's fabric reads answered by the real InfiniBand management stack (ibsim.py)."""
    pod = data["pod"]
    stack = pod.setdefault("ib_stack", None)
    # pod.ib_switch_description: every switch keeps one factory node description ("Quantum-2 Mellanox Technologies"),
    # as unmanaged leaves do: the switches differ by GUID alone (issue 67). Given to ibsim's topology, so the real stack
    # only.
    description = pod.setdefault("ib_switch_description", None)
    if description is not None and (stack != "ibsim" or not isinstance(description, str) or not description.strip()
                                    or '"' in description or len(description) > 63):
        raise ScenarioError("%s: pod.ib_switch_description takes the node description every switch answers with (text "
                            "of at most 63 characters, no double quote), with pod.ib_stack ibsim" % path)
    if stack is None:
        return
    if stack != "ibsim":
        raise ScenarioError("%s: pod.ib_stack takes ibsim (the real InfiniBand management stack) or nothing" % path)
    others = sorted({fault.get("kind") for fault in data.get("faults") or () if isinstance(fault, dict)} - set(IBSIM_FAULTS))
    # not `restarts`: an opensm started seconds before the first read has only its first sweep's activity count, which
    # the restarted one passes within seconds (1409 -> 2138 on ibsim), where a master up for days has far more: the
    # twin's own sminfo models that one
    stray = pod["ib_sm"]["guid"] != SWITCH_SM["guid"]
    if others:
        raise ScenarioError("%s: on pod.ib_stack ibsim the faults are %s, not %s" % (
            path, ", ".join(IBSIM_FAULTS), ", ".join(map(str, others))))
    if pod["ib_sm"]["restarts"]:
        raise ScenarioError("%s: pod.ib_stack ibsim takes no pod.ib_sm.restarts (a restart is seen only against an SM up "
                            "for a while: the twin's own sminfo)" % path)
    if stray and pod["ib_sm"]["state"] == "stopped":
        raise ScenarioError("%s: pod.ib_stack ibsim: a stray master (pod.ib_sm node) is not stopped" % path)
    speeds = sorted({fault["speed_gbps"] for fault in data.get("faults") or () if isinstance(fault, dict)
                     and fault.get("kind") == "ib_link" and "speed_gbps" in fault} - set(IBSIM_LANE_GBPS))
    if speeds:
        raise ScenarioError("%s: pod.ib_stack ibsim: ibsim trains a lane at %s Gbps only, not %s" % (
            path, ", ".join(map(str, IBSIM_LANE_GBPS)), ", ".join(map(str, speeds))))
    if pod["nodes"] > 32 or pod["rails"] > 14:
        raise ScenarioError("%s: pod.ib_stack ibsim: one scalable unit (32 nodes at most, 14 rails at most): the switches "
                            "take LIDs 1-16, the nodes' ports those their ibstat shows from 17" % path)
    if (pod.get("node_defaults") or {}).get("rate", 400) > 200:
        raise ScenarioError("%s: pod.ib_stack ibsim: ibsim 0.10 trains links at HDR at most; give node_defaults rate 200 "
                            "(or less)" % path)
    # opensm runs on an SM host's HCA (ibsim.SM_HOST, cabled to the first leaf): on ibsim a switch's port answers
    # SMInfo itself, the last master's, after its SM stopped; a CA's port answers only while the SM behind it runs.
    # Its LID follows every node's (formats.ibstat's Base lid: node index * 16 + rail + 1). A stray master (node, rail)
    # is a second opensm on that node's port, at the pod's priority, over the planned one's, which stands by.
    host = {"lid": (pod["nodes"] + 1) * 16 + 1, "guid": IBSIM_SM_HOST_PORT_GUID}
    pod["ib_sm"]["sm_host"] = host
    if not stray:
        pod["ib_sm"].update(host)


IB_LINK_FAULTS = ("uplink_slow", "uplink_marginal")


def _ib_fabric(path, data):
    """pod.ib_fabric: {nodes_per_leaf (32 by default: one scalable unit to a leaf of each rail), uplink_faults}: the
    InfiniBand subnet's units and the faults of its leaf-spine links (formats_infiniband.subnet), which show only under
    load, as the RoCE fabric's uplink_slow and uplink_marginal do (switch_model.py): the real stack (pod.ib_stack
    ibsim) is given the counters a load puts through them (formats_infiniband._real_read)."""
    from pyramid_twin.formats_infiniband import SPINES  # pylint: disable=import-outside-toplevel
    pod = data["pod"]
    fabric = pod.get("ib_fabric")
    if fabric is None:
        return
    if not isinstance(fabric, dict) or set(fabric) - {"nodes_per_leaf", "uplink_faults"}:
        raise ScenarioError("%s: pod.ib_fabric takes nodes_per_leaf and uplink_faults" % path)
    per_leaf = fabric.setdefault("nodes_per_leaf", 32)
    if isinstance(per_leaf, bool) or not isinstance(per_leaf, int) or not 1 <= per_leaf <= 32:
        raise ScenarioError("%s: pod.ib_fabric.nodes_per_leaf: the nodes of a scalable unit, 1 to 32 (a leaf's 32 host "
                            "ports)" % path)
    units = (pod["nodes"] + per_leaf - 1) // per_leaf
    leaves = ["leaf%d-r%d" % (unit, rail) for unit in range(1, units + 1) for rail in range(pod["rails"])]
    faults = fabric.setdefault("uplink_faults", [])
    for item in faults if isinstance(faults, list) else [None]:
        factor = (item or {}).get("factor", 0.25)
        if (not isinstance(item, dict) or item.get("kind") not in IB_LINK_FAULTS or item.get("leaf") not in leaves
                or item.get("spine") not in SPINES or set(item) - {"kind", "leaf", "spine", "factor"}
                or ("factor" in item and item["kind"] != "uplink_slow")
                or isinstance(factor, bool) or not isinstance(factor, (int, float)) or not 0 < factor < 1):
            raise ScenarioError("%s: pod.ib_fabric.uplink_faults: each {kind: %s, leaf (one of %s), spine (%s), and for "
                                "uplink_slow its factor, above 0 and below 1}: %r" % (
                                    path, " or ".join(IB_LINK_FAULTS), ", ".join(leaves[:4]) + (", ..." if len(leaves) > 4 else ""),
                                    ", ".join(SPINES), item))
    if faults and pod.get("ib_stack") != "ibsim":
        raise ScenarioError("%s: pod.ib_fabric.uplink_faults need pod.ib_stack ibsim: the real stack's counters show what "
                            "a load put through a link" % path)
    if pod.get("ib_stack") == "ibsim" and len(leaves) + len(SPINES) > 16:
        raise ScenarioError("%s: pod.ib_stack ibsim: %d leaves and %d spines; the switches take LIDs 1-16" % (
            path, len(leaves), len(SPINES)))


def _ib_view(scenario):
    """What every node's multi-node runs know of the InfiniBand subnet's units and faulty uplinks (pod.ib_fabric), in
    switch_model.node_view's shape (fabric_load.py records and paces by it); None without pod.ib_fabric."""
    from pyramid_twin.formats_infiniband import SPINES  # pylint: disable=import-outside-toplevel
    from pyramid_twin.switch_model import MARGINAL_PACE  # pylint: disable=import-outside-toplevel
    fabric = scenario["pod"].get("ib_fabric")
    if fabric is None:
        return None
    faults = []
    for item in fabric["uplink_faults"]:
        unit, _dash, rail = item["leaf"][len("leaf"):].partition("-r")
        faults.append({"kind": item["kind"], "leaf": item["leaf"], "spine": item["spine"], "su": int(unit), "rail": int(rail),
                       "factor": float(item.get("factor", 0.25)) if item["kind"] == "uplink_slow" else None,
                       "pace": float(item.get("factor", 0.25)) if item["kind"] == "uplink_slow" else MARGINAL_PACE})
    return {"nodes_per_leaf": fabric["nodes_per_leaf"], "spines": list(SPINES), "uplink_faults": faults, "infiniband": True}


def _ib_sm(path, ib_sm, names):
    """pod.ib_sm: {state: master (default) or stopped, node and rail (an SM on that node's rail port became master:
    a rogue opensm), priority: 0-15, roots: the spines its routing takes as roots (both by default; one alone funnels
    every leaf onto it, as updn with a root GUID file naming one spine does), restarts: true (the master restarts right
    after the pod's first sminfo read, the soak's start: the same SM answers later, its activity count started over)}.
    The master every InfiniBand port reports as its SM (ibstat SM lid) and sminfo answers from; stopped: the ports keep
    its LID (it configured them) and nothing answers there."""
    from pyramid_twin.formats_infiniband import SPINES  # pylint: disable=import-outside-toplevel
    ib_sm = dict(ib_sm or {})
    if set(ib_sm) - {"state", "node", "rail", "priority", "roots", "restarts"} or ib_sm.get("state", "master") not in (
            "master", "stopped") or not isinstance(ib_sm.get("restarts", False), bool):
        raise ScenarioError("%s: pod.ib_sm takes state (master or stopped), node, rail, priority, roots and restarts "
                            "(true or false)" % path)
    roots = ib_sm.get("roots", list(SPINES))
    if not isinstance(roots, list) or not roots or set(roots) - set(SPINES):
        raise ScenarioError("%s: pod.ib_sm.roots: a list of the spines the SM routes through (%s)" % (path, ", ".join(SPINES)))
    sm = dict(SWITCH_SM, state=ib_sm.get("state", "master"), priority=ib_sm.get("priority", SWITCH_SM["priority"]), roots=roots,
              restarts=ib_sm.get("restarts", False))
    if "node" in ib_sm or "rail" in ib_sm:
        rail = str(ib_sm.get("rail", "mlx5_0"))
        if ib_sm.get("node") not in names or not rail.startswith("mlx5_") or not rail[len("mlx5_"):].isdigit():
            raise ScenarioError("%s: pod.ib_sm's node (one of the pod's) and rail (mlx5_N): where the SM runs" % path)
        index = names.index(ib_sm["node"]) + 1
        # the LID its own ibstat shows (formats.ibstat's Base lid) and its port GUID
        sm.update(lid=index * 16 + int(rail[len("mlx5_"):]) + 1, guid=_guid(index, int(rail[len("mlx5_"):]), port=True))
    return sm


def _timing(path, timing):
    """The timing mode (timing.py): None (tools answer at once) or {"factor": F}, F >= 0."""
    if timing is None:
        return None
    factor = timing.get("factor") if isinstance(timing, dict) and set(timing) == {"factor"} else None
    if isinstance(factor, bool) or not isinstance(factor, (int, float)) or factor < 0:
        raise ScenarioError("%s: timing takes factor, a number from 0 (tools' own durations: none; asked ones real)" % path)
    return {"factor": float(factor)}


def node_names(scenario):
    count = scenario["pod"]["nodes"]
    width = max(3, len(str(count)))
    return ["node-%0*d" % (width, i) for i in range(1, count + 1)]


def node_address(index):
    """Loopback address of node number ``index`` (1-based): 127.1.x.y."""
    return str(ipaddress.IPv4Address("127.1.0.0") + index)


def node_index_from_address(address):
    return int(ipaddress.IPv4Address(address)) - int(ipaddress.IPv4Address("127.1.0.0"))


def _guid(index, rail, port=False):
    # a port's GUID its node's + 1, as ibsim gives every CA's port 1 (its GUIDs are the real stack's: ibsim.py) and
    # ConnectX-3 cards do; ConnectX-4 and later give port 1 the node's own GUID, which the judges take as well
    base = 0xA088C20300000000 + (index << 8) + 2 * rail
    return "0x%016x" % (base + 1 if port else base)


def node_state(scenario, name):
    names = node_names(scenario)
    if name not in names:
        raise ScenarioError("no node %r in this scenario" % name)
    index = names.index(name) + 1
    pod = scenario["pod"]
    base = copy.deepcopy(HEALTHY_NODE)
    base.update(copy.deepcopy(pod.get("node_defaults", {})))
    gpus = [{"index": i, "name": base["gpu_name"], "numa": 0 if i < pod["gpus_per_node"] // 2 else 1,
             "pci": GPU_PCI[i % len(GPU_PCI)], "health": copy.deepcopy(HEALTHY_GPU)} for i in range(pod["gpus_per_node"])]
    rails = []
    for rail in range(pod["rails"]):
        rails.append({
            "device": "mlx5_%d" % rail,
            "netdev": "ens%dnp0" % (rail + 1) if base["link_layer"] == "Ethernet" else "ib%d" % rail,
            "port": 1,
            "state": "Active",
            "phys_state": "LinkUp",
            "rate": base["rate"],
            "link_layer": base["link_layer"],
            "firmware": base["firmware"],
            "ca_type": "MT4129",
            "node_guid": _guid(index, rail),
            "port_guid": _guid(index, rail, port=True),
            # a rail shares its GPU's PCIe switch, hence its NUMA node
            "numa": gpus[rail]["numa"] if rail < len(gpus) else (0 if rail < pod["rails"] // 2 else 1),
            "pci": NIC_PCI[rail % len(NIC_PCI)],
            "gpu": rail if rail < pod["gpus_per_node"] else None,
            # the NIC's PCIe link as sysfs shows it (ConnectX-7: PCIe 5.0 x16, trained at its max)
            "pcie_gen": 5, "pcie_width": 16,
        })
    mlxconfig = {}
    if base["link_layer"] == "InfiniBand" and "mlxconfig" not in pod.get("node_defaults", {}):
        base["mlxconfig"]["LINK_TYPE_P1"] = "IB(1)"  # a VPI card on an InfiniBand pod: its ports in IB mode
    for rail in rails:
        mlxconfig[rail["device"]] = {
            key: {"default": base["mlxconfig_factory"].get(key, value), "current": value, "next_boot": value}
            for key, value in base["mlxconfig"].items()
        }
    state = {
        "hostname": name,
        "index": index,
        "address": node_address(index),
        "kernel_release": base["kernel_release"],
        "cmdline": base["cmdline"],
        "iommu_units": list(base["iommu_units"]),
        "mem_total_kb": base["mem_total_kb"],
        "hugepages": dict(base["hugepages"]),
        "modules": list(base["modules"]),
        # modules built into the kernel: {name: the entries of its /sys/module directory ([]: none, as a built-in module
        # without parameters or a version has)}; never in /proc/modules, modinfo says "filename: (builtin)"
        "builtin_modules": {},
        "nvidia_driver": dict(base["nvidia_driver"]),
        "stack": copy.deepcopy(base["stack"]),
        "gpus": gpus,
        "gpu_fabric": {"state": "Completed", "status": "Success"},
        # DCGM's diagnostic (dcgmi diag -r 1 -j): failures are {gpu, warning}; tool_missing dcgmi: not installed
        "dcgm": {"version": "3.1.0", "failures": []},
        "rails": rails,
        "mlxconfig": mlxconfig,
        "tools": {"missing": [], "hang": [], "garbage": []},
        # util-linux's dmesg prints --json from 2.38 on (dmesg_no_json: an older one refuses the option)
        "dmesg_json": True,
        # the rail mesh: what ib_write_bw measures per rail (formats_perftest.rail_gbps: ~98% of the rate
        # unless a fault says), its servers' faults, and what rail pings see (formats_ping)
        "rdma": {"gbps": {}, "gid_missing": [], "stale_ports": [], "server_stuck": False},
        "ping": {},
        "unreachable": False,
        # Layer 5/6: what this node's NCCL and training runs measure.
        "nccl": {"peak_busbw": float(base.get("nccl_peak_busbw", 360.0)), "wrong": 0, "hang": False, "gdr_off": False,
                 # the other collectives on the node (formats_nccl.COLLECTIVES): wrong results or a hang in one alone
                 "collectives": {op: {"wrong": 0, "hang": False} for op in COLLECTIVE_OPS}},
        # the pod's fabric, as every multi-node run sees it (a fault that shows only at scale)
        "fabric": dict(pod.get("fabric") or {}),
        # the pod's switches as every multi-node run sees them (switch_model.node_view): the unit size, an all-to-all
        # across units recording its load for the switches (fabric_load.py) and paced by the faulty uplinks; None: none
        "switch_fabric": _switch_fabric(scenario),
        # SHARP on the InfiniBand fabric (pod.sharp: None, or its state), as every multi-node NCCL run sees it
        "sharp": dict(pod.get("sharp") or {}) or None,
        # the InfiniBand subnet's master SM (pod.ib_sm), as every port and sminfo see it
        "ib_sm": dict(pod.get("ib_sm") or SWITCH_SM, state=(pod.get("ib_sm") or {}).get("state", "master")),
        # who answers the fabric host's subnet reads: None (the twin's formats) or ibsim (the real stack: ibsim.py)
        "ib_stack": pod.get("ib_stack"),
        # the node description every switch of the real stack's subnet answers with (pod.ib_switch_description)
        "ib_switch_description": pod.get("ib_switch_description"),
        "training": {"step_ms": float(base.get("train_step_ms", 850.0)), "jitter": 0.01, "slow_rank": None,
                     "slow_factor": 1.0, "timeout": False},
        # the timing mode (timing.py): None, the tools answer at once
        "timing": scenario.get("timing"),
    }
    for fault in scenario["faults"]:
        if fault["node"] == name:
            FAULTS[fault["kind"]](state, fault)
    return state


# --- faults: each patches one node's state -------------------------------------------------

def _rail(state, fault):
    device = fault.get("rail", "mlx5_0")
    for rail in state["rails"]:
        if rail["device"] == device:
            return rail
    raise ScenarioError("%s: no rail %r" % (state["hostname"], device))


def _iommu_off(state, fault):
    # VT-d off in the BIOS: the kernel finds no IOMMU units whatever its command line says.
    state["iommu_units"] = []


def _hugepages(state, fault):
    pages = state["hugepages"]
    pages["total"] = fault.get("total", pages["total"])
    pages["free"] = min(pages["free"], pages["total"])
    pages["size_kb"] = fault.get("size_kb", pages["size_kb"])
    args = [a for a in state["cmdline"].split() if not a.startswith(("hugepages=", "hugepagesz=", "default_hugepagesz="))]
    if pages["total"]:
        size = "1G" if pages["size_kb"] == 1048576 else "2M"
        args += ["default_hugepagesz=%s" % size, "hugepagesz=%s" % size, "hugepages=%d" % pages["total"]]
    state["cmdline"] = " ".join(args)


def _rail_missing(state, fault):
    rail = _rail(state, fault)
    state["rails"].remove(rail)
    state["mlxconfig"].pop(rail["device"], None)


def _port_state(state, fault):
    rail = _rail(state, fault)
    rail["state"] = fault.get("state", "Down")
    rail["phys_state"] = fault.get("phys_state", "Polling")


def _link_layer(state, fault):
    """A VPI port in the other link layer: ibstat's Link layer says so, and mlxconfig's LINK_TYPE_P1 (1 IB, 2 ETH)."""
    rail = _rail(state, fault)
    rail["link_layer"] = fault.get("link_layer", "InfiniBand")
    value = "IB(1)" if rail["link_layer"] == "InfiniBand" else "ETH(2)"
    entry = state["mlxconfig"][rail["device"]].setdefault("LINK_TYPE_P1", {"default": value})
    entry["current"] = entry["next_boot"] = value


def _rail_rate(state, fault):
    _rail(state, fault)["rate"] = fault.get("rate", 100)


def _ib_link(state, fault):
    """An InfiniBand rail trained narrower or slower than both ends can (formats_infiniband): ibstat's Rate follows."""
    from pyramid_twin.formats_infiniband import LANE_GBPS  # pylint: disable=import-outside-toplevel
    rail = _rail(state, fault)
    rail["ib_top_gbps"] = LANE_GBPS.get(rail["rate"], 106.25)
    rail["ib_width"] = fault.get("width", "4X")
    rail["ib_speed_gbps"] = fault.get("speed_gbps", rail["ib_top_gbps"])
    per_lane = {25.78125: 25, 53.125: 50, 106.25: 100, 212.5: 200}.get(rail["ib_speed_gbps"], 100)
    rail["rate"] = int(rail["ib_width"].rstrip("X")) * per_lane


def _ib_port_errors(state, fault):
    """Error counters of an InfiniBand rail's link (formats_infiniband.ibqueryerrors), at the leaf's port facing it
    (`end: leaf`, the default) or the CA's own (`end: ca`): `counts` {counter: n} standing before the run, `per_s`
    {counter: rate} rising from the pod's first ibqueryerrors read; each stops at its width's maximum, as a port's do."""
    from pyramid_twin.formats_infiniband import COUNTERS  # pylint: disable=import-outside-toplevel
    known = [name for name, _bits in COUNTERS]
    for key in ("counts", "per_s"):
        unknown = sorted(set(fault.get(key) or {}) - set(known))
        if unknown:
            raise ScenarioError("%s: ib_port_errors %s: no counter %s (known: %s)" % (
                state["hostname"], key, ", ".join(unknown), ", ".join(known)))
    if fault.get("end", "leaf") not in ("leaf", "ca"):
        raise ScenarioError("%s: ib_port_errors end %r: leaf or ca" % (state["hostname"], fault.get("end")))
    _rail(state, fault)["ib_errors"] = {"end": fault.get("end", "leaf"), "counts": dict(fault.get("counts") or {}),
                                        "per_s": dict(fault.get("per_s") or {})}


def _ib_sm_lid(state, fault):
    """An InfiniBand rail's port under another SM than the pod's master (a second master: an opensm with another
    SM_Key, or a split subnet): ibstat's SM lid on that port is `lid`."""
    _rail(state, fault)["sm_lid"] = int(fault.get("lid", 200))


def _ib_mtu(state, fault):
    """An InfiniBand rail that negotiated a smaller MTU (`mtu`, 2048) than its port can do (`max_mtu`, 4096): the leaf
    port facing it capped lower. ibv_devinfo's active_mtu (and max_mtu) say so."""
    rail = _rail(state, fault)
    rail["ib_mtu"] = int(fault.get("mtu", 2048))
    rail["ib_max_mtu"] = int(fault.get("max_mtu", 4096))


def _ib_cable_swap(state, fault):
    """Two rails' cables crossed at the leaves (formats_infiniband: each lands on the other's leaf)."""
    state["ib_cable_swap"] = list(fault.get("rails", [6, 7]))


def _ib_incast_fault(kind):
    """Faults that show only under an incast on InfiniBand (formats_infiniband._incast_counts): the leaf ports facing
    this node drop what waited past the head-of-queue lifetime (ib_hoq_lifetime_short), or keep waiting after the load
    because the node stopped returning credits under the burst (ib_credit_stall)."""
    def apply(state, fault):  # pylint: disable=unused-argument
        state[kind] = True
    return apply


def _module_missing(state, fault):
    module = fault.get("module", "nvidia_peermem")
    state["modules"] = [m for m in state["modules"] if m != module]


# /sys/module of the lent H200's kernel (2026-11-24, Linux 6.18.44, docs/examples/h200x1-real): its RDMA stack built in,
# ib_uverbs with no directory of its own (no parameter, no version)
BUILT_IN_SYSFS = {"mlx5_core": ["drivers", "parameters", "uevent"], "mlx5_ib": ["drivers", "uevent"],
                  "ib_core": ["parameters", "uevent"], "ib_uverbs": []}


def _rdma_built_in(state, fault):
    for module in fault.get("modules", list(BUILT_IN_SYSFS)):
        state["modules"] = [m for m in state["modules"] if m != module]
        state["builtin_modules"][module] = list(BUILT_IN_SYSFS.get(module, ["uevent"]))


def _open_kernel_module(state, fault):
    state["nvidia_driver"]["open_kernel_module"] = fault.get("open", True)
    if "kernel_release" in fault:
        state["kernel_release"] = fault["kernel_release"]


def _mlxconfig(state, fault):
    rails = [fault["rail"]] if "rail" in fault else list(state["mlxconfig"])
    for device in rails:
        for key, value in fault.get("set", {}).items():
            if re.search(r"_P[2-9]$", key):
                continue  # a second port's parameter: the twin's card is single-port, mlxconfig has no such row
            entry = state["mlxconfig"][device].setdefault(key, {"default": str(value)})
            entry["current"] = str(value)
            entry["next_boot"] = str(fault.get("next_boot", {}).get(key, value))


def _firmware(state, fault):
    for rail in state["rails"]:
        if "rail" not in fault or rail["device"] == fault["rail"]:
            rail["firmware"] = fault.get("version", "28.37.1014")


def _stack(state, fault):
    """Another version of one part of the software stack: `driver`, `kernel`, `nccl` (the libnccl2 package and the NCCL
    runs load; null: not installed), `nccl_loaded` (the runs alone: a framework's bundled NCCL), `ofed` (null: no
    MLNX_OFED, ofed_info absent), `cuda` (the cuda-cudart package's version)."""
    stack = state["stack"]
    if "driver" in fault:
        state["nvidia_driver"]["version"] = fault["driver"]
    if "kernel" in fault:
        state["kernel_release"] = fault["kernel"]
    if "nccl" in fault:
        if fault["nccl"] is None:
            stack["packages"].pop("libnccl2", None)
        else:
            stack["packages"]["libnccl2"] = fault["nccl"]
            stack["nccl_loaded"] = re.sub(r"-\d+\+", "+", fault["nccl"])  # 2.19.3-1+cuda12.2 loads as 2.19.3+cuda12.2
    if "nccl_loaded" in fault:
        stack["nccl_loaded"] = fault["nccl_loaded"]
    if "cuda" in fault:
        stack["packages"]["cuda-cudart-12-4"] = fault["cuda"]
    if "ofed" in fault:
        stack["ofed"] = fault["ofed"]
        if fault["ofed"] is None:
            state["tools"]["missing"].append("ofed_info")


def _gpu_pair(kind):
    """A GPU pair (gpu, peer) slowed both ways by `factor` (an NVLink degraded between them), or without peer access
    (P2P off: every copy through host memory)."""
    def apply(state, fault):
        pair = "%d-%d" % tuple(sorted((int(fault.get("gpu", 0)), int(fault.get("peer", 1)))))
        p2p = state.setdefault("p2p", {"slow": {}, "off": []})
        if kind == "slow":
            p2p["slow"][pair] = float(fault.get("factor", 0.3))
        else:
            p2p["off"].append(pair)
    return apply


def _gpu_nic_affinity(state, fault):
    # The GPU's rail NIC sits on the other socket: the path crosses the SMP interconnect (SYS).
    gpu = state["gpus"][fault.get("gpu", 0)]
    for rail in state["rails"]:
        if rail["gpu"] == gpu["index"]:
            rail["gpu"] = None
            rail["numa"] = 1 - gpu["numa"]


def _tool(kind):
    def apply(state, fault):
        state["tools"][kind].append(fault["tool"])
    return apply


def _unreachable(state, fault):
    state["unreachable"] = True


def _slow_node(state, fault):
    # e.g. node-047: every collective on this node at a fraction of the pod's bandwidth
    state["nccl"]["peak_busbw"] *= fault.get("factor", 0.6)
    state["training"]["step_ms"] /= fault.get("factor", 0.6) ** 0.25


def _nccl_collective(state, fault):
    """The collective a fault hits: all-reduce's own state unless the fault names another (collective: all_gather)."""
    op = fault.get("collective", "all_reduce")
    if op == "all_reduce":
        return state["nccl"]
    if op not in COLLECTIVE_OPS:
        raise ScenarioError("fault %s: collective %r is none of all_reduce, %s" % (fault["kind"], op, ", ".join(COLLECTIVE_OPS)))
    return state["nccl"]["collectives"][op]


def _nccl_wrong(state, fault):
    _nccl_collective(state, fault)["wrong"] = fault.get("count", 1024)


def _gdr_off(state, fault):
    # nvidia_peermem is loaded, yet NCCL uses no GPUDirect RDMA on this node (NCCL_NET_GDR_LEVEL=LOC
    # left in its nccl.conf, or ACS redirecting peer traffic): multi-node runs stage through host memory.
    state["nccl"]["gdr_off"] = True


def _nccl_hang(state, fault):
    _nccl_collective(state, fault)["hang"] = True


def _unstable_step_time(state, fault):
    state["training"]["jitter"] = fault.get("jitter", 0.2)


def _slow_rank(state, fault):
    # one GPU's process on the wrong NUMA node: its compute takes longer every step
    state["training"]["slow_rank"] = fault.get("rank", 3)
    state["training"]["slow_factor"] = fault.get("factor", 1.3)


def _parity_divergence(state, fault):
    # one GPU computing wrong (silent data corruption): its rank's DDP losses drift from the single-GPU run's
    state["training"]["parity_rank"] = fault.get("rank", 3)
    state["training"]["parity_factor"] = fault.get("factor", 1.02)


def _training_timeout(state, fault):
    state["training"]["timeout"] = True


def _gpu(state, fault):
    index = fault.get("gpu", 0)
    if not isinstance(index, int) or not 0 <= index < len(state["gpus"]):
        raise ScenarioError("%s: no GPU %r" % (state["hostname"], index))
    return state["gpus"][index]["health"]


def _xid(state, fault):
    # the NVRM Xid line the driver logs (79: fell off the bus, 48: double-bit ECC, ...)
    _gpu(state, fault)["xids"].append(int(fault.get("code", 79)))


def _dmesg_no_json(state, fault):
    # util-linux before 2.38 (Ubuntu 22.04's 2.37.2, RHEL 8's 2.32): dmesg has no --json
    state["dmesg_json"] = False


def _ecc_uncorrectable(state, fault):
    health = _gpu(state, fault)
    health["ecc_volatile"] += fault.get("count", 1)
    health["ecc_aggregate"] += fault.get("count", 1)


def _row_remap_pending(state, fault):
    # an uncorrectable error marked a row for remapping: active only after a GPU reset
    health = _gpu(state, fault)
    health["remap_pending"] = True
    health["remapped_uncorrectable"] += 1


def _pcie_degraded(state, fault):
    # a GPU's link (nvidia-smi -q) or, with `rail`, the rail NIC's (its sysfs current_link_width/speed)
    link = _rail(state, fault) if "rail" in fault else _gpu(state, fault)
    link["pcie_width"] = fault.get("width", link["pcie_width"] if "gen" in fault else 8)
    link["pcie_gen"] = fault.get("gen", link["pcie_gen"])


def _pcie_replays(state, fault):
    # a marginal link: packets resent after LCRC errors, nvidia-smi -q "Replays Since Reset"
    _gpu(state, fault)["pcie_replays"] += int(fault.get("count", 500))


def _pcie_replays_rising(state, fault):
    # a link going bad now: replays rising at per_s from the node's first read since twin/up (fake_tool.rising)
    health = _gpu(state, fault)
    health["pcie_replays"] += int(fault.get("count", 0))
    health.setdefault("rising", {})["pcie_replays"] = float(fault.get("per_s", 1.0))


def _nvlink_errors_rising(state, fault):
    # one link retraining (recovery_per_s) or corrupting flits (crc_per_s, each also a replay) now
    rates = _gpu(state, fault).setdefault("rising", {}).setdefault("nvlink", {})
    rates[str(int(fault.get("link", 0)))] = {"recovery": float(fault.get("recovery_per_s", 0.5)),
                                             "crc": float(fault.get("crc_per_s", 0.0))}


def _nvlink_errors(state, fault):
    # a link that retrained (recovery) or corrupts flits (CRC, each replayed), counted since the driver loaded
    # keyed by the link as a string: the state goes through JSON (state.json) before fake_tool renders it
    counters = _gpu(state, fault)["nvlink_errors"].setdefault(str(int(fault.get("link", 0))), {"replay": 0, "recovery": 0, "crc": 0})
    for name, default in (("recovery", 1), ("crc", 0), ("replay", 0)):
        counters[name] += int(fault.get(name, default))


def _dcgm_diag_fail(state, fault):
    # DCGM's diagnostic fails a GPU (level 1's per-GPU software test), with DCGM's warning for it
    index = fault.get("gpu", 0)
    _gpu(state, fault)
    state["dcgm"]["failures"].append({"gpu": index, "warning": fault.get(
        "warning", "Persistence mode for GPU %d is disabled. Enable persistence mode by running \"nvidia-smi -i <gpuId> -pm 1 \" "
                   "as root." % index)})


def _nvlink_down(state, fault):
    health = _gpu(state, fault)
    health["nvlinks_down"].append(int(fault.get("link", 0)))


def _fabric_manager_down(state, fault):
    # nvidia-fabricmanager not running: the GPUs never finish registering with the NVSwitch fabric
    state["gpu_fabric"] = {"state": "In Progress", "status": "N/A"}


CLOCK_EVENTS = ("hw_slowdown", "hw_thermal_slowdown", "hw_power_brake_slowdown", "sw_thermal_slowdown", "sw_power_cap")


def _clock_throttle(state, fault):
    reason = fault.get("reason", "hw_thermal_slowdown")
    if reason not in CLOCK_EVENTS:
        raise ScenarioError("%s: clock_throttle reason %r is not one of %s" % (state["hostname"], reason, ", ".join(CLOCK_EVENTS)))
    events = _gpu(state, fault)["clock_events"]
    events.append(reason)
    if reason in ("hw_thermal_slowdown", "hw_power_brake_slowdown") and "hw_slowdown" not in events:
        events.append("hw_slowdown")  # nvidia-smi shows both under HW Slowdown: Active


def _rail_bw(state, fault):
    state["rdma"]["gbps"][_rail(state, fault)["device"]] = float(fault.get("gbps", 180.0))


def _gid_missing(state, fault):
    state["rdma"]["gid_missing"].append(_rail(state, fault)["device"])


def _stale_server(state, fault):
    state["rdma"]["stale_ports"].append(int(fault.get("port", 18515)))


def _gdr_bw(state, fault):
    # GPUDirect RDMA slow on this node (nvidia_peermem missing and a bounce through host memory, ACS
    # redirecting peer traffic through the root complex, an IOMMU not in passthrough): its ib_write_bw
    # runs with --use_cuda measure that fraction of its host-memory runs, on every rail
    state["rdma"]["gdr_factor"] = float(fault.get("factor", 0.5))


def _perftest_server_stuck(state, fault):
    state["rdma"]["server_stuck"] = True


def _perftest_missing(state, fault):
    state["tools"]["missing"].append("ib_write_bw")


def _ping(key, field, default):
    def apply(state, fault):
        state["ping"].setdefault(_rail(state, fault)["device"], {})[key] = fault.get(field, default)
    return apply


# --- host RoCE configuration (formats_roce.py renders it): state["roce"][rail or "*"] overrides its defaults

def _roce(every_rail_by_default, **fields):
    def apply(state, fault):
        one = fault.get("rail") or (None if every_rail_by_default else "mlx5_0")
        key = _rail(state, {"rail": one})["device"] if one else "*"
        state.setdefault("roce", {}).setdefault(key, {}).update(
            {name: fault.get(field, default) for name, (field, default) in fields.items()})
    return apply


def _distro(state, fault):
    """A RHEL-family node (distro: rhel): Rocky Linux 9.4 with NVIDIA's and DOCA's RPMs (formats_rpm.rhel)."""
    if fault.get("distro", "rhel") != "rhel":
        raise ScenarioError("fault distro: distro takes rhel (Rocky Linux 9.4), not %r" % fault.get("distro"))
    from pyramid_twin import formats_rpm  # pylint: disable=import-outside-toplevel
    formats_rpm.rhel(state)


def _inbox_rdma(state, fault):
    """The distribution's inbox RDMA stack: rdma-core and iproute2's rdma, no infiniband-diags (formats_rdma.inbox)."""
    from pyramid_twin import formats_rdma  # pylint: disable=import-outside-toplevel
    formats_rdma.inbox(state)


def _nic_phy(kind):
    """A rail's own physical layer as mlxlink reads it (formats_mlxlink.fault): nic_ber, nic_module_hot."""
    def apply(state, fault):
        from pyramid_twin import formats_mlxlink  # pylint: disable=import-outside-toplevel
        formats_mlxlink.fault(kind, _rail(state, fault), fault)
    return apply


FAULTS = {
    "distro": _distro,
    "inbox_rdma": _inbox_rdma,
    "iommu_off": _iommu_off,
    "hugepages": _hugepages,
    "rail_missing": _rail_missing,
    "port_state": _port_state,
    "nic_ber": _nic_phy("nic_ber"),
    "nic_module_hot": _nic_phy("nic_module_hot"),
    "rail_rate": _rail_rate,
    "link_layer": _link_layer,
    "ib_link": _ib_link,
    "ib_cable_swap": _ib_cable_swap,
    "ib_port_errors": _ib_port_errors,
    "ib_sm_lid": _ib_sm_lid,
    "ib_mtu": _ib_mtu,
    "ib_hoq_lifetime_short": _ib_incast_fault("ib_hoq_lifetime_short"),
    "ib_credit_stall": _ib_incast_fault("ib_credit_stall"),
    "module_missing": _module_missing,
    "rdma_built_in": _rdma_built_in,
    "open_kernel_module": _open_kernel_module,
    "mlxconfig": _mlxconfig,
    "firmware": _firmware,
    "stack": _stack,
    "gpu_pair_slow": _gpu_pair("slow"),
    "gpu_p2p_off": _gpu_pair("off"),
    "gpu_nic_affinity": _gpu_nic_affinity,
    "tool_missing": _tool("missing"),
    "tool_hang": _tool("hang"),
    "tool_garbage": _tool("garbage"),
    "unreachable": _unreachable,
    "slow_node": _slow_node,
    "nccl_wrong": _nccl_wrong,
    "nccl_hang": _nccl_hang,
    "gdr_off": _gdr_off,
    "unstable_step_time": _unstable_step_time,
    "slow_rank": _slow_rank,
    "training_timeout": _training_timeout,
    "parity_divergence": _parity_divergence,
    "xid": _xid,
    "dmesg_no_json": _dmesg_no_json,
    "ecc_uncorrectable": _ecc_uncorrectable,
    "row_remap_pending": _row_remap_pending,
    "pcie_degraded": _pcie_degraded,
    "nvlink_down": _nvlink_down,
    "nvlink_errors": _nvlink_errors,
    "nvlink_errors_rising": _nvlink_errors_rising,
    "dcgm_diag_fail": _dcgm_diag_fail,
    "pcie_replays": _pcie_replays,
    "pcie_replays_rising": _pcie_replays_rising,
    "fabric_manager_down": _fabric_manager_down,
    "clock_throttle": _clock_throttle,
    "rail_bw": _rail_bw,
    "gid_missing": _gid_missing,
    "stale_server": _stale_server,
    "perftest_server_stuck": _perftest_server_stuck,
    "gdr_bw": _gdr_bw,
    "perftest_missing": _perftest_missing,
    "ping_loss": _ping("loss_percent", "percent", 100),
    "ping_rtt": _ping("rtt_ms", "ms", 5.0),
    "rail_ip_wrong": _ping("ip_wrong", "wrong", True),
    # DCQCN's sysfs switches off (a reimage that did not re-apply them: the node-047 RCA)
    "dcqcn_off": _roce(True, dcqcn_off=("priority", 3)),
    # the NIC trusts PCP (mlnx_qos --trust pcp), not DSCP
    "trust_pcp": _roce(True, trust=("trust", "pcp")),
    # the NIC's lossless (PFC) priority differs from RoCE's
    "pfc_priority": _roce(True, pfc_priority=("priority", 4)),
    # RoCE traffic marked with another DSCP (tc/1/traffic_class)
    "dscp_mark": _roce(True, dscp=("dscp", 0)),
    # a rail netdev's MTU not as planned
    "mtu": _roce(False, mtu=("mtu", 1500)),
}
