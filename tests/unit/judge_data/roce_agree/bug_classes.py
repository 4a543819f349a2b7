"""The rows of the five classes of wrong judge (issue 33; judge_data/bug_classes.py says what each class is) that
test judging/roce_agree.py. Each row's comment says its class and what a wrong judge of that class would do with it.
"""

from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.bug_classes import QOS_FW, QOS_PFC_3_4, one_only
from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.host.layer0 import CAUSE, fixture
from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.roce.layer3_roce_host import RAILS2, both
from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.roce_agree import layer3_roce_agree as agree


DATA = []

# === class 2: a set check done as a membership or overlap check =========================================
DATA += [
    # class 2: every priority the NIC pauses must be lossless on its leaf port: the NIC's {3, 4} against the port's
    # {3}. A judge asking whether the sets overlap (3 in both) passes it.
    dict(agree.node(agree.leaf("cumulus", agree.SWP, {"swp1": agree.NVUE_3, "swp2": agree.NVUE_3}, agree.NVUE_MTU),
                    qos=both(QOS_FW, QOS_PFC_3_4)),
         check="roce_host_switch_agree", name="[2] the NIC pauses 3 and 4, its leaf port is lossless on 3 alone", expect=RAILS2,
         status={"node-001": "FAIL"},
         contains={"node-001": ["node-001 mlx5_1 (ens2np0) PFC on priority 3,4; leaf1-r0 swp2 lossless priority 3", CAUSE]}),
]

# === class 3: a list element whose data is missing, skipped instead of reported ==========================
DATA += [
    # class 3: the host side of mlx5_1's link (its MTU) not in the read: not "agrees"
    dict(agree.node(agree.leaf("cumulus", agree.SWP, {"swp1": agree.NVUE_3, "swp2": agree.NVUE_3}, agree.NVUE_MTU), mtu=one_only("9000\n")),
         check="roce_host_switch_agree", name="[3] mlx5_1's MTU not in the read: ERROR naming it", expect=RAILS2,
         status={"node-001": "ERROR"}, contains={"node-001": ["mlx5_1 (ens2np0): MTU not read (not read)"]}),
]

# === class 4: thresholds at their boundary and one step beyond ===========================================
DATA += [
    # class 4: port_mtu: the host port's MTU >= the rails' (inclusive), on SONiC's real 9100 port
    {"check": "port_mtu", "name": "[4] SONiC: rails at 9100 on a 9100 port pass", "expect": dict(agree.SONIC_PLAN, pyramid_rail_mtu=9100),
     "raw": {"sw_port_mtu": fixture("sonic_show_interfaces_status_mtu", "intfutil_mixed_real")}, "status": "PASS",
     "contains": ["1 host port at MTU 9100"]},
    {"check": "port_mtu", "name": "[4] SONiC: rails at 9101 on a 9100 port fail", "expect": dict(agree.SONIC_PLAN, pyramid_rail_mtu=9101),
     "raw": {"sw_port_mtu": fixture("sonic_show_interfaces_status_mtu", "intfutil_mixed_real")}, "status": "FAIL",
     "contains": ["Ethernet0 MTU 9100 < 9101 (node-001 ens1np0)"]},
    # class 4: the host's MTU no larger than its leaf port's: 9001 over NVUE's 9000 (the table has 9000 = 9000)
    dict(agree.node(agree.leaf("cumulus", agree.SWP, {"swp1": agree.NVUE_3, "swp2": agree.NVUE_3}, agree.NVUE_MTU), mtu=both("9000\n", "9001\n")),
         check="roce_host_switch_agree", name="[4] mlx5_1 at MTU 9001, its port at 9000", expect=RAILS2, status={"node-001": "FAIL"},
         contains={"node-001": ["node-001 mlx5_1 (ens2np0) MTU 9001; leaf1-r0 swp2 MTU 9000"]}),
]

# === class 5: two faults, both named; a FAIL that must name the value, the port or the rail ===============
DATA += [
    # class 5: mlx5_0's MTU over its port's and mlx5_1's PFC priority not lossless on its port: both named
    dict(agree.node(agree.leaf("cumulus", agree.SWP, {"swp1": agree.NVUE_3, "swp2": agree.NVUE_3}, agree.NVUE_MTU),
                    qos=both(QOS_FW, QOS_PFC_3_4), mtu=both("9001\n", "9000\n")),
         check="roce_host_switch_agree", name="[5] mlx5_0's MTU over its port's, mlx5_1 pausing a priority its port drops", expect=RAILS2,
         status={"node-001": "FAIL"},
         contains={"node-001": ["node-001 mlx5_0 (ens1np0) MTU 9001; leaf1-r0 swp1 MTU 9000",
                                "node-001 mlx5_1 (ens2np0) PFC on priority 3,4; leaf1-r0 swp2 lossless priority 3"]}),
]
