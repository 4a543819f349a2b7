"""The InfiniBand checks of a node with the distribution's inbox RDMA stack (issue 67: rdma-core and iproute2, no
ibstat) as a data table. Its rails were read by `rdma link` (the ibstat source's later ways), which shows no port GUID;
the InfiniBand judges find a rail in the subnet read by its port GUID, so each rail's GUID 0 (rail_port_guid_sysfs:
/sys/class/infiniband/<rail>/ports/1/gids/0, where libibumad reads ibstat's "Port GUID") stands in
(judging/rail_guids.py). The checks PASS or FAIL on them as on ibstat's, an unread GID is an ERROR naming the rail.

Outputs: the ibsim subnet reads of layer1_infiniband (iblinkinfo) and layer2_infiniband (sminfo); node-003's rails read
by real `rdma link` captures (tests/unit/parsers/linux_rdma_link: four InfiniBand ports ACTIVE, SM LID 66), or their
JSON form (linux_rdma_link_json); each rail's gids/0 the real FDR capture (linux_sysfs_ib_gid/infiniband_fdr_real)
with its interface id changed by hand to that rail's port GUID in the ibsim subnet. The other nodes read by ibstat.
"""

from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.host.layer0 import fixture
from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.infiniband.layer1_infiniband import (
    GUIDS, HDR, HEALTHY, NDR, NODES, ibstat, swapped)
from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.infiniband.layer2_infiniband import MASTER, SM
from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.roce.layer3_roce_host import edited

INBOX = "node-003"
RDMA_LINK = fixture("linux_rdma_link", "infiniband_no_physical_state_real")  # mlx5_0..3 ACTIVE, SM LID 66
# its first two lines alone (edited): the node's two rails, so that every line of the read is one the judge stands on
RDMA_LINK_RAILS = (RDMA_LINK[0], "".join(RDMA_LINK[1].splitlines(True)[:2]))
RDMA_LINK_JSON = fixture("linux_rdma_link_json", "infiniband_no_physical_state_derived")
GID = fixture("linux_sysfs_ib_gid", "infiniband_fdr_real")  # fe80:0000:0000:0000:46d2:c920:0000:3891


def gid(guid):
    """The real gids/0 line with its interface id the port GUID ``guid`` (0xb83fd20300a0f009: b83f:d203:00a0:f009)."""
    digits = "%016x" % int(guid, 16)
    return edited(GID, "46d2:c920:0000:3891", ":".join(digits[at:at + 4] for at in range(0, 16, 4)))


def gids(node, **unread):
    """rail_port_guid_sysfs of the node's two rails; ``unread`` {rail: failure} in place of a rail's read."""
    read = {rail: gid(guid) for rail, guid in zip(("mlx5_0", "mlx5_1"), GUIDS[node])}
    read.update(unread)
    return read


def pod(subnet, rdma_link=RDMA_LINK, guids=None, nodes=NODES, **reads):
    """Each node's reads, node-003's rails by `rdma link` and their GIDs (``guids``, else both read)."""
    raw = {node: dict(reads, ib_link_info=subnet, ibstat=ibstat(node)) for node in nodes}
    raw[INBOX].update(ibstat=rdma_link, rail_port_guid_sysfs=guids if guids is not None else gids(INBOX))
    return raw


UNREAD = fixture("linux_sysfs_ib_gid", "read_error")  # cat's "No such file or directory" in place of the GID

DATA = [
    {"check": "ib_links", "name": "a node read by rdma link: its rails found by the GUIDs of their gids/0 (edited), PASS",
     "raw": pod(HEALTHY, RDMA_LINK_RAILS), "expect": HDR, "status": dict.fromkeys(NODES, "PASS"),
     "contains": {INBOX: ["2 rails at 4X 53.125 Gbps a lane, each Active/LinkUp",
                          "mlx5_0: 4X 53.125 Gbps Active/LinkUp to leaf-r0 port 3"]}},
    {"check": "ib_links", "name": "the same from rdma link's JSON form (edited GIDs): PASS",
     "raw": pod(HEALTHY, RDMA_LINK_JSON, nodes=[INBOX]), "expect": HDR, "status": {INBOX: "PASS"},
     "contains": {INBOX: ["2 rails at 4X 53.125 Gbps a lane"]}},
    {"check": "ib_links", "name": "a rail whose gids/0 was not read is not found in the subnet: ERROR naming it, never a pass",
     "raw": pod(HEALTHY, guids=gids(INBOX, mlx5_1=UNREAD), nodes=[INBOX]), "expect": HDR,
     "status": {INBOX: "ERROR"}, "contains": {INBOX: ["mlx5_1 (port GUID None): not in iblinkinfo"]}},
    {"check": "ib_links", "name": "rdma link and no GID read at all (the source not collected): ERROR on both rails",
     "raw": {INBOX: {"ib_link_info": HEALTHY, "ibstat": RDMA_LINK}}, "expect": HDR, "status": {INBOX: "ERROR"},
     "contains": {INBOX: ["mlx5_0 (port GUID None)", "mlx5_1 (port GUID None)"]}},
    {"check": "ib_rail_leaves", "name": "a node read by rdma link with its two cables crossed at the leaves: FAIL naming both (edited GIDs)",
     "raw": dict(pod(swapped(NDR)), **{"node-001": {"ib_link_info": swapped(NDR), "ibstat": RDMA_LINK,
                                                    "rail_port_guid_sysfs": gids("node-001")}}),
     "expect": HDR, "status": {"node-001": "FAIL", "node-002": "PASS", "node-003": "PASS", "node-004": "PASS"},
     "contains": {"node-001": ["mlx5_0 on leaf-r1 port 1, the leaf of mlx5_1", "mlx5_1 on leaf-r0 port 1, the leaf of mlx5_0"]}},
    {"check": "ib_subnet_manager", "name": "rdma link's SM LID is what the judge reads: 66 under a master at LID 1, FAIL naming the rails",
     "raw": pod(HEALTHY, nodes=["node-001", INBOX], ib_sm_info=MASTER), "expect": SM,
     "status": {"node-001": "PASS", INBOX: "FAIL"}, "contains": {INBOX: ["mlx5_0: SM lid 66; mlx5_1: SM lid 66, not the master's 1"]}},
    {"check": "ib_subnet_manager", "name": "rdma link's ports at the master's SM LID (edited to 1): PASS",
     "raw": pod(HEALTHY, (RDMA_LINK[0], RDMA_LINK[1].replace("sm_lid 66", "sm_lid 1")), nodes=[INBOX], ib_sm_info=MASTER),
     "expect": SM, "status": {INBOX: "PASS"}, "contains": {INBOX: ["2 rails configured by it"]}},
]
