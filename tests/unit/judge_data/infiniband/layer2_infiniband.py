"""The InfiniBand subnet manager at Layer 2 (catalog/infiniband.yml ib_subnet_manager, issue 36) as a data table: a pod
check whose sminfo read (made once for the pod on the reader of ib_fabric_hosts) judge_pod hands to every node, each
node judged with its own ibstat (the SM LID that configured each of its rails).

sminfo: real captures (tests/unit/parsers/linux_sminfo: infiniband-diags 44.0 on ibsim 0.10 with opensm 3.3.23): the
master on node-001 mlx5_0 (LID 1, priority 5), a standby answering at the ports' SM LID during a handover, no answer
after the master stopped. The subnet read that names where the SM runs: the same ibsim subnet's iblinkinfo. Each
node's ibstat: the real ConnectX-7 capture (SM lid 1 on both ports) with the node's own port GUIDs
(layer1_infiniband.ibstat); a port under another SM has its SM lid changed by hand.
"""

from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.host.layer0 import failed, fixture
from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.infiniband.layer1_infiniband import HDR, HEALTHY, NODES, ibstat

MASTER = fixture("linux_sminfo", "ibsim_master")  # node-001 mlx5_0, LID 1, priority 5
# Reads a soak apart on the 2-spine subnet (its iblinkinfo names where each SM runs): node-001 mlx5_0's opensm at
# priority 5 master throughout (its activity count rising); killed and started again (its count started over); killed
# and node-004 mlx5_0's standby at priority 3 (LID 19) master 60 s later
SDR = fixture("linux_iblinkinfo", "ibsim_sdr_2_spines_4_rails")
STEADY = (fixture("linux_sminfo", "ibsim_master_at_the_soak_start"), fixture("linux_sminfo", "ibsim_master_12s_later"))
RESTARTED = (fixture("linux_sminfo", "ibsim_master_before_restart"), fixture("linux_sminfo", "ibsim_master_after_restart"))
HANDED_OVER = (fixture("linux_sminfo", "ibsim_master_before_handover"), fixture("linux_sminfo", "ibsim_master_after_handover"))
SM = dict(HDR, pyramid_ib_sm_guids=[], pyramid_ib_sm_priority=None)


def pod(sminfo, nodes=NODES, changed=None):
    """Each node's reads; ``changed`` {node: ibstat} replaces a node's own ibstat."""
    return {node: {"ib_sm_info": sminfo, "ib_link_info": HEALTHY, "ibstat": (changed or {}).get(node) or ibstat(node)}
            for node in nodes}


def watch(before, after, nodes=NODES[:2], seconds=300, subnet=SDR):
    """sminfo read at the soak's start and at Layer 2 (ib_sm_watch), handed to each node with the subnet read."""
    return {node: {"ib_sm_watch": {"before": before, "after": after, "seconds": seconds}, "ib_link_info": subnet}
            for node in nodes}


def second_sm_lid(node, lid):
    """The node's ibstat with its second rail (mlx5_1) configured by the SM at ``lid``."""
    parser, text = ibstat(node)
    first, second = text.split("CA 'mlx5_1'")
    return parser, first + "CA 'mlx5_1'" + second.replace("SM lid: 1\n", "SM lid: %d\n" % lid, 1)


DATA = [
    {"check": "ib_subnet_manager", "name": "one master, every rail of every node configured by it: PASS naming where it runs",
     "raw": pod(MASTER), "expect": SM, "status": dict.fromkeys(NODES, "PASS"),
     "contains": {"node-001": ["master SM LID 1 GUID 0xb83fd20300a0f001 (node-001 mlx5_0) priority 5, SMINFO_MASTER",
                               "2 rails configured by it"]}},
    {"check": "ib_subnet_manager", "name": "the planned SMs and priority declared and met: PASS",
     "raw": pod(MASTER, NODES[:1]), "expect": dict(SM, pyramid_ib_sm_guids=["0xB83FD20300A0F001", "0xb83fd20300a0f005"],
                                                   pyramid_ib_sm_priority=5),
     "status": {"node-001": "PASS"}, "contains": {"node-001": ["among 0xb83fd20300a0f001, 0xb83fd20300a0f005 at priority 5"]}},
    {"check": "ib_subnet_manager", "name": "a master that is not one of the planned SMs: FAIL on every node naming it and where it runs",
     "raw": pod(MASTER, NODES[:2]), "expect": dict(SM, pyramid_ib_sm_guids=["0x0c42a10300000001"]),
     "status": {"node-001": "FAIL", "node-002": "FAIL"},
     "contains": {"node-002": ["master SM LID 1 GUID 0xb83fd20300a0f001 (node-001 mlx5_0) priority 5 is not one of "
                               "pyramid_ib_sm_guids", "an opensm left enabled on a reimaged node"]}},
    {"check": "ib_subnet_manager", "name": "a master at another priority than planned: FAIL",
     "raw": pod(MASTER, NODES[:1]), "expect": dict(SM, pyramid_ib_sm_priority=14), "status": {"node-001": "FAIL"},
     "contains": {"node-001": ["not at pyramid_ib_sm_priority 14", "runs at another priority than planned"]}},
    {"check": "ib_subnet_manager", "name": "no SM answers at the ports' SM LID (the master stopped, no standby took over): FAIL",
     "raw": pod(fixture("linux_sminfo", "ibsim_no_answer"), NODES[:2]), "expect": SM,
     "status": {"node-001": "FAIL", "node-002": "FAIL"},
     "contains": {"node-001": ["no SM answers sminfo on", "node-001's ports name SM LID 1", "No master subnet manager"]}},
    {"check": "ib_subnet_manager", "name": "the SM at the ports' SM LID answers as standby: no master, FAIL",
     "raw": pod(fixture("linux_sminfo", "ibsim_standby"), NODES[:1]), "expect": SM, "status": {"node-001": "FAIL"},
     "contains": {"node-001": ["SM LID 6 GUID 0xb83fd20300a0f005 (node-002 mlx5_0) priority 3 answers as SMINFO_STANDBY",
                               "a handover under way or stuck"]}},
    {"check": "ib_subnet_manager", "name": "a rail configured by another SM (a second master): FAIL on that node alone, naming the rail",
     "raw": pod(MASTER, NODES[:3], changed={"node-003": second_sm_lid("node-003", 200)}), "expect": SM,
     "status": {"node-001": "PASS", "node-002": "PASS", "node-003": "FAIL"},
     "contains": {"node-003": ["mlx5_1: SM lid 200, not the master's 1", "a second master"]}},
    {"check": "ib_subnet_manager", "name": "a rail no SM has configured (SM lid 0): FAIL naming it",
     "raw": pod(MASTER, NODES[:1], changed={"node-001": second_sm_lid("node-001", 0)}), "expect": SM,
     "status": {"node-001": "FAIL"}, "contains": {"node-001": ["mlx5_1: SM lid 0, not the master's 1", "(SM lid 0)"]}},
    {"check": "ib_subnet_manager", "name": "sminfo missing on the reader: ERROR on every node naming the command",
     "raw": {node: {"ib_link_info": HEALTHY, "ibstat": ibstat(node)} for node in NODES[:2]},
     "facts": {node: {"ib_sm_info": failed("sminfo", "sminfo: command not found", "missing")} for node in NODES[:2]},
     "expect": SM, "status": {"node-001": "ERROR", "node-002": "ERROR"},
     "contains": {"node-001": ["sminfo: command not found"]}},
    {"check": "ib_subnet_manager", "name": "a reader without a umad device cannot query: ERROR, never 'no SM answers'",
     "raw": pod(fixture("linux_sminfo", "no_umad_device"), NODES[:1]), "expect": SM, "status": {"node-001": "ERROR"},
     "contains": {"node-001": ["not one sminfo line", "Failed to open"]}},
    {"check": "ib_subnet_manager", "name": "an sminfo line cut short is no read: ERROR",
     "raw": pod(fixture("linux_sminfo", "cut_inside_the_line"), NODES[:1]), "expect": SM, "status": {"node-001": "ERROR"},
     "contains": {"node-001": ["not one sminfo line"]}},
    {"check": "ib_subnet_manager", "name": "a rail its own ibstat does not list: ERROR, never a pass",
     "raw": pod(MASTER, NODES[:1]), "expect": dict(SM, pyramid_rails=["mlx5_0", "mlx5_1", "mlx5_2"]),
     "status": {"node-001": "ERROR"}, "contains": {"node-001": ["no SM lid for mlx5_2 in node-001's ibstat"]}},

    {"check": "ib_sm_handover", "name": "the same master at the soak's start and at Layer 2, its activity count risen: PASS saying so",
     "raw": watch(*STEADY, seconds=12), "status": {"node-001": "PASS", "node-002": "PASS"},
     "contains": {"node-001": ["SM LID 1 GUID 0x0000000000100001 (node-001 mlx5_0) priority 5, master throughout the soak "
                               "(12s): activity count 692 -> 705", "sminfo on the fabric host at the soak's start and 12s later"]}},
    {"check": "ib_sm_handover", "name": "the master restarted during the soak (the same GUID, its activity count fallen): FAIL",
     "raw": watch(*RESTARTED, seconds=125), "status": {"node-001": "FAIL", "node-002": "FAIL"},
     "contains": {"node-002": ["the master restarted during the soak (125s): SM LID 1 GUID 0x0000000000100001 (node-001 "
                               "mlx5_0) priority 5, its activity count fell from 1000 to 610", "changed masters during the run"]}},
    {"check": "ib_sm_handover", "name": "a standby took over during the soak (another GUID): FAIL naming both SMs and where they run",
     "raw": watch(*HANDED_OVER, seconds=60), "status": {"node-001": "FAIL", "node-002": "FAIL"},
     "contains": {"node-001": ["the master changed during the soak (60s): SM LID 1 GUID 0x0000000000100001 (node-001 mlx5_0) "
                               "priority 5 at its start, SM LID 19 GUID 0x0000000000100019 (node-004 mlx5_0) priority 3 now",
                               "a loop of them"]}},
    {"check": "ib_sm_handover", "name": "no SM answered at the soak's start, a master now: FAIL (the subnet had none for a while)",
     "raw": watch(fixture("linux_sminfo", "ibsim_no_answer"), HANDED_OVER[1], NODES[:1], seconds=60),
     "status": {"node-001": "FAIL"},
     "contains": {"node-001": ["no SM answered sminfo at the soak's start, 60s ago; SM LID 19 GUID 0x0000000000100019 "
                               "(node-004 mlx5_0) priority 3 now"]}},
    {"check": "ib_sm_handover", "name": "a standby answering at the soak's start, a master now: FAIL (a handover under way then)",
     "raw": watch(fixture("linux_sminfo", "ibsim_standby"), MASTER, NODES[:1], subnet=HEALTHY), "status": {"node-001": "FAIL"},
     "contains": {"node-001": ["at the soak's start, 300s ago, SM LID 6 GUID 0xb83fd20300a0f005 (node-002 mlx5_0) priority 3 "
                               "answered as SMINFO_STANDBY (a handover under way)"]}},
    {"check": "ib_sm_handover", "name": "no master now: nothing to compare, an ERROR of its own (folded under ib_subnet_manager's FAIL in a run)",
     "raw": watch(STEADY[0], fixture("linux_sminfo", "ibsim_no_answer"), NODES[:1]), "status": {"node-001": "ERROR"},
     "contains": {"node-001": ["no master answers sminfo now: nothing to compare"]}},
    {"check": "ib_sm_handover", "name": "sminfo cut short at the soak's start: ERROR about that read, never a pass on the later one",
     "raw": watch(fixture("linux_sminfo", "cut_inside_the_line"), STEADY[1], NODES[:1]), "status": {"node-001": "ERROR"},
     "contains": {"node-001": ["at the snapshot: ", "not one sminfo line"]}},
]
