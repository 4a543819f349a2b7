"""Layer 0's rail checks on a host with the distribution's inbox RDMA stack (issue 67): rdma-core and iproute2, no
infiniband-diags, so no ibstat. `rdma link` (ibstat's second way) shows each rail's presence, state, physical state and
link layer; the kernel's ports/1/rate and fw_ver (what ibstat reads) each rail's rate and firmware. The checks PASS or
FAIL on them, never ERROR for the missing ibstat; a rail the reads leave unshown is an ERROR naming it.

Outputs: real `rdma link` captures (tests/unit/parsers/linux_rdma_link: a DGX Spark's four RoCE ports, a ConnectX-5 in
InfiniBand mode down and polling, four InfiniBand ports on a kernel without physical state, a RoCE port beside an
InfiniBand one disabled), real sysfs rate and firmware lines (linux_sysfs_ib_rate, linux_sysfs_fw_ver).
"""

from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.host.layer0 import HOSTS, fixture, listing, node

SPARK = fixture("linux_rdma_link", "roce_four_ports_real")
SPARK_RAILS = ["rocep1s0f0", "rocep1s0f1", "roceP2p1s0f0", "roceP2p1s0f1"]
IB_NO_PHYS = fixture("linux_rdma_link", "infiniband_no_physical_state_real")
IB_POLLING = fixture("linux_rdma_link", "infiniband_polling_real")
ROCE_BESIDE_IB = fixture("linux_rdma_link", "roce_active_ib_disabled_real")
IB_RAILS = ["mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3"]
NDR = fixture("linux_sysfs_ib_rate", "ndr_infiniband_real")
AT_100 = fixture("linux_sysfs_ib_rate", "roce_100g_on_cx7_real")
FW = fixture("linux_sysfs_fw_ver", "cx7_ndr_real")
FW_1002 = (FW[0], FW[1].replace("2048", "1002"))  # the same line, another version


def inbox(rails, rdma_link, **raw):
    """(facts, raw) of a host without ibstat whose rails `rdma link` read: /sys/class/infiniband lists ``rails``."""
    return node(rdma_sysfs=listing(*rails)), dict(raw, ibstat=rdma_link)


def row(check, name, host, status, contains, expect):
    facts, raw = host
    return {"check": check, "name": name, "facts": facts, "raw": raw, "expect": expect, "status": status, "contains": contains}


ROCE4 = {"pyramid_rails": SPARK_RAILS}
IB4 = {"pyramid_rails": IB_RAILS, "pyramid_rdma_link_layer": "infiniband", "pyramid_rail_rate_gbps": 400}

DATA = [
    row("rails_present", "the DGX Spark's four RoCE ports, read by rdma link", inbox(SPARK_RAILS, SPARK), "PASS",
        ["4 rails present"], ROCE4),
    row("rails_active", "the DGX Spark's four ports ACTIVE/LINK_UP by rdma link", inbox(SPARK_RAILS, SPARK), "PASS",
        ["4 ports Active/LinkUp"], ROCE4),
    row("rails_link_layer", "the DGX Spark's four ports on Ethernet by rdma link (no LIDs: not InfiniBand)",
        inbox(SPARK_RAILS, SPARK), "PASS", ["4 ports on Ethernet"], ROCE4),
    row("rails_present", "a rail /sys/class/infiniband lists but rdma link does not: a cut read, never absent",
        inbox(SPARK_RAILS + ["mlx5_9"], SPARK), "ERROR", ["mlx5_9"], {"pyramid_rails": SPARK_RAILS + ["mlx5_9"]}),
    row("rails_present", "a rail neither rdma link nor /sys/class/infiniband shows is missing",
        inbox(SPARK_RAILS, SPARK), "FAIL", ["missing: mlx5_9"], {"pyramid_rails": SPARK_RAILS + ["mlx5_9"]}),
    row("rails_active", "an InfiniBand rail DOWN/POLLING by rdma link fails", inbox(["mlx5_0"], IB_POLLING), "FAIL",
        ["mlx5_0/1 Down/Polling", "{cause}"], {"pyramid_rails": ["mlx5_0"], "pyramid_rdma_link_layer": "infiniband"}),
    row("rails_active", "a kernel whose rdma link shows no physical state: four ACTIVE ports pass on their state",
        inbox(IB_RAILS, IB_NO_PHYS), "PASS", ["4 ports Active/LinkUp"], IB4),
    row("rails_link_layer", "a RoCE pod with a VPI port in InfiniBand mode beside a RoCE one, by rdma link",
        inbox(["mlx5_0", "mlx5_1"], ROCE_BESIDE_IB), "FAIL", ["mlx5_1/1 InfiniBand"], {"pyramid_rails": ["mlx5_0", "mlx5_1"]}),
    row("rails_rate", "four NDR ports at 400G by the kernel's ports/1/rate (rdma link shows no rate)",
        inbox(IB_RAILS, IB_NO_PHYS, rail_rate_sysfs={rail: NDR for rail in IB_RAILS}), "PASS", ["4 ports at 400G"], IB4),
    row("rails_rate", "one port at 100G by the kernel's ports/1/rate",
        inbox(IB_RAILS, IB_NO_PHYS, rail_rate_sysfs=dict({rail: NDR for rail in IB_RAILS}, mlx5_2=AT_100)), "FAIL",
        ["mlx5_2/1 at 100G", "{cause}"], IB4),
    row("rails_rate", "a rail's rate file not read: that rail not judged, never passed",
        inbox(IB_RAILS, IB_NO_PHYS, rail_rate_sysfs=dict({rail: NDR for rail in IB_RAILS[:3]}, mlx5_3=fixture(
            "linux_sysfs_ib_rate", "read_error"))), "ERROR", ["mlx5_3/1", "rail_rate_sysfs", "3 ports at 400G"], IB4),
    {"check": "nic_firmware", "name": "rails read by rdma link: their firmware from the kernel's fw_ver, one version",
     "facts": {host: inbox(IB_RAILS, IB_NO_PHYS)[0] for host in HOSTS},
     "raw": {host: dict(inbox(IB_RAILS, IB_NO_PHYS)[1], rail_fw_sysfs={rail: FW for rail in IB_RAILS}) for host in HOSTS},
     "expect": IB4, "status": {host: "PASS" for host in HOSTS}, "contains": {host: ["4 rails on 28.39.2048"] for host in HOSTS}},
    {"check": "nic_firmware", "name": "rails read by rdma link, one node's fw_ver another version",
     "facts": {host: inbox(IB_RAILS, IB_NO_PHYS)[0] for host in HOSTS},
     "raw": {host: dict(inbox(IB_RAILS, IB_NO_PHYS)[1], rail_fw_sysfs={rail: FW_1002 if host == "node-002" else FW for rail in IB_RAILS})
             for host in HOSTS},
     "expect": IB4, "status": {"node-001": "PASS", "node-002": "FAIL", "node-003": "PASS"},
     "contains": {"node-002": ["mlx5_0 28.39.1002", "{cause}"]}},
    {"check": "nic_firmware", "name": "rails read by rdma link, fw_ver not read on a node: an ERROR naming its rails",
     "facts": {host: inbox(IB_RAILS, IB_NO_PHYS)[0] for host in HOSTS},
     "raw": {host: dict(inbox(IB_RAILS, IB_NO_PHYS)[1], **({"rail_fw_sysfs": {rail: FW for rail in IB_RAILS}} if host != "node-003" else {}))
             for host in HOSTS},
     "expect": IB4, "status": {"node-001": "PASS", "node-002": "PASS", "node-003": "ERROR"},
     "contains": {"node-003": ["mlx5_0 (firmware not read by `rdma link`"]}},
]
