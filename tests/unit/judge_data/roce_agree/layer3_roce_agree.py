"""Host and switch agree at Layer 3 (catalog/roce_agree.yml, issue 14) as a data table.

The node's side: real mlnx_qos captures (tests/unit/parsers/linux_mlnx_qos, as layer3_roce_host.py uses them). The
switch's side: its results file as the switch's Layer 3 leaves it, its sw_pfc_state facts parsed from real captures
(sonic-utilities' `show pfc priority` test output, the NVUE reference's `nv show interface <port> qos roce status`)
or the NX-OS layout's fixtures, turned into the node's cabled_switch_ports input by judging/roce_agree.cabled_ports,
the very function judge_pod calls. Two rails, mlx5_0 and mlx5_1 (ens1np0, ens2np0), on two ports of one leaf.
"""

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import engine as _engine
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.judging.roce_agree import cabled_ports
from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.host.layer0 import CAUSE, failed, fixture
from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.roce.layer3_roce_host import NETDEVS, RAILS2, both, edited

QOS_FW = fixture("linux_mlnx_qos", "firmware_controlled_grouped_tcs_real")  # PFC on 3
QOS_PFC5 = fixture("linux_mlnx_qos", "ets_strict_pfc5_buffers_real")  # PFC on 5
SONIC_34 = fixture("sonic_show_pfc_priority", "lossless_3_4_real")  # Ethernet0, Ethernet4: 3,4
SONIC_OFF = fixture("sonic_show_pfc_priority", "pfc_off")  # Ethernet0: 3, Ethernet8: N/A
NVUE_3 = fixture("cumulus_nv_show_interface_qos_roce_status_pfc", "roce_lossless_docs_real")
NVUE_4 = fixture("cumulus_nv_show_interface_qos_roce_status_pfc", "pfc_on_priority_4")
NXOS_FAULTY = fixture("cisco_nxos_show_interface_priority-flow-control_detail_state", "faulty_leaf")  # 1/2 Oper Off
# SONiC's real intfutil table (Ethernet0 9100) with its Ethernet16 row renamed Ethernet4 by hand, to sit beside
# the real `show pfc priority` capture's Ethernet0 and Ethernet4
SONIC_MTU = edited(fixture("sonic_show_interfaces_status_mtu", "intfutil_mixed_real"), "     Ethernet16", "      Ethernet4")
NVUE_MTU = fixture("cumulus_nv_show_interface_mtu_json", "twin_docs_5_11_mtus")  # swp1, swp2 9000; swp4 1500
NVUE_MAP = fixture("cumulus_nv_show_interface_qos_roce_status_map", "roce_lossless_docs_real")  # DSCP 26 -> 3 -> tc 3, ECN 0,3
NVUE_ECN_OFF = fixture("cumulus_nv_show_interface_qos_roce_status_map", "ecn_off_on_tc3")
QOS_PCP = fixture("linux_mlnx_qos", "trust_pcp_real")
CATALOG = _catalog.load_catalog()


def _parsed(source, os_name, value):
    if not isinstance(value, tuple):
        return value  # a read that failed, as the engine keeps it
    parser, text = value
    assert parser in [each["parser"] for each in CATALOG["sources"][source]["ways"] if each["platform"] == os_name]
    return _engine.parse_one({"status": "ok", "stdout": text, "command": parser, "parser": parser})


def _state(source, os_name, value):
    if isinstance(value, dict):  # NVUE's per-port reads
        return {port: _parsed(source, os_name, each) for port, each in value.items()}
    return _parsed(source, os_name, value)


def leaf(os_name, ports, pfc, mtu=None, name="leaf1-r0", qos_map=None):
    """A switch's results file after its Layer 3: ``ports`` {port: node netdev} of node-001; ``pfc`` and ``mtu``
    one read each (a capture), {port: capture} (NVUE's per-port PFC reads), a SourceFailure, or None (not read on
    this platform)."""
    plan = [{"port": port, "peer": "node-001", "peer_port": netdev, "role": "host"} for port, netdev in ports.items()]
    layer3 = {source: _state(source, os_name, value)
              for source, value in (("sw_pfc_state", pfc), ("sw_port_mtu", mtu), ("sw_roce_map", qos_map)) if value is not None}
    return {"host": name, "expect": {"pyramid_switch_os": os_name, "pyramid_switch_ports": plan}, "facts": {"layer3": layer3}}


def failing(switch, check, *ports):
    """The switch's results file with its own Layer 3 check FAILed on ``ports`` (as port_mtu leaves it)."""
    return dict(switch, results=[{"layer": 3, "check": check, "status": "FAIL", "detail": {"ports": list(ports), "device": False}}])


def node(*switches, qos=None, mtu=None):
    return {"facts": {"node-001": {"cabled_switch_ports": cabled_ports("node-001", list(switches))}},
            "raw": {"node-001": {"rail_netdev": NETDEVS, "roce_qos": qos or both(QOS_FW), "rail_mtu": mtu or both("9000\n")}}}


TWO = {"Ethernet0": "ens1np0", "Ethernet4": "ens2np0"}
SWP = {"swp1": "ens1np0", "swp2": "ens2np0"}
NOT_READ = "the DSCP map and the ECN profile read from NVUE only"

DATA = [
    dict(node(leaf("sonic", TWO, SONIC_34, SONIC_MTU)), check="roce_host_switch_agree",
         name="SONiC: PFC 3 on the NICs, lossless 3,4 on the ports; MTU 9000 within 9100", expect=RAILS2, status={"node-001": "PASS"},
         contains={"node-001": ["2 rails agree with their leaf ports", "mlx5_0 PFC 3 = leaf1-r0 Ethernet0 3,4",
                                "mlx5_1 MTU 9000 <= leaf1-r0 Ethernet4 9100", NOT_READ]}),
    dict(node(leaf("sonic", TWO, SONIC_34, SONIC_MTU), mtu=both("9000\n", "9216\n")), check="roce_host_switch_agree",
         name="SONiC: mlx5_1 at MTU 9216, its port at 9100", expect=RAILS2, status={"node-001": "FAIL"},
         contains={"node-001": ["node-001 mlx5_1 (ens2np0) MTU 9216; leaf1-r0 Ethernet4 MTU 9100", CAUSE]}),
    dict(node(leaf("sonic", {"Ethernet0": "ens1np0", "Ethernet12": "ens2np0"}, SONIC_34, SONIC_MTU)), check="roce_host_switch_agree",
         name="SONiC: mlx5_1's port not in the PFC read", expect=RAILS2, status={"node-001": "ERROR"},
         contains={"node-001": ["leaf1-r0 Ethernet12: PFC state not read (Ethernet12 not listed in the sw_pfc_state read)"]}),
    dict(node(leaf("sonic", TWO, SONIC_34), qos=both(QOS_FW, QOS_PFC5)), check="roce_host_switch_agree",
         name="SONiC: mlx5_1's NIC lossless on priority 5, its port on 3,4", expect=RAILS2, status={"node-001": "FAIL"},
         contains={"node-001": ["node-001 mlx5_1 (ens2np0) PFC on priority 5; leaf1-r0 Ethernet4 lossless priority 3,4", CAUSE]}),
    dict(node(leaf("sonic", {"Ethernet0": "ens1np0", "Ethernet8": "ens2np0"}, SONIC_OFF)), check="roce_host_switch_agree",
         name="SONiC: PFC off on mlx5_1's port (pfc_enable N/A)", expect=RAILS2, status={"node-001": "FAIL"},
         contains={"node-001": ["node-001 mlx5_1 (ens2np0) PFC on priority 3; leaf1-r0 Ethernet8 lossless priority none", CAUSE]}),
    dict(node(leaf("cumulus", SWP, {"swp1": NVUE_3, "swp2": NVUE_3}, NVUE_MTU)), check="roce_host_switch_agree",
         name="NVUE: PFC on 3 both ends, MTU 9000 both ends", expect=RAILS2, status={"node-001": "PASS"},
         contains={"node-001": ["2 rails agree", "mlx5_1 PFC 3 = leaf1-r0 swp2 3", "mlx5_1 MTU 9000 <= leaf1-r0 swp2 9000"]}),
    dict(node(leaf("cumulus", SWP, {"swp1": NVUE_3, "swp2": NVUE_3}, NVUE_MTU, qos_map={"swp1": NVUE_MAP, "swp2": NVUE_MAP})),
         check="roce_host_switch_agree", name="NVUE: PFC, MTU, DSCP map and ECN agree", expect=RAILS2, status={"node-001": "PASS"},
         contains={"node-001": ["2 rails agree", "mlx5_0 DSCP 26 -> 3 = leaf1-r0 swp1", "mlx5_1 ECN on tc 3 at leaf1-r0 swp2"]}),
    dict(node(leaf("cumulus", SWP, {"swp1": NVUE_3, "swp2": NVUE_3}, NVUE_MTU, qos_map={"swp1": NVUE_MAP, "swp2": NVUE_ECN_OFF})),
         check="roce_host_switch_agree", name="NVUE: ECN off on swp2's RoCE traffic class", expect=RAILS2, status={"node-001": "FAIL"},
         contains={"node-001": ["node-001 mlx5_1 (ens2np0) PFC on priority 3; leaf1-r0 swp2 ECN off on its traffic class 3 (enabled-tc 0)"]}),
    dict(node(leaf("cumulus", SWP, {"swp1": NVUE_3, "swp2": NVUE_3}, NVUE_MTU, qos_map={"swp1": NVUE_MAP, "swp2": NVUE_MAP}),
              qos=both(QOS_FW, QOS_PCP)),
         check="roce_host_switch_agree", name="NVUE: mlx5_1's NIC trusts PCP", expect=RAILS2, status={"node-001": "FAIL"},
         contains={"node-001": ["node-001 mlx5_1 (ens2np0) trust pcp (no DSCP map); leaf1-r0 swp2 maps DSCP 26 to priority 3"]}),
    dict(node(leaf("cumulus", {"swp1": "ens1np0", "swp4": "ens2np0"}, {"swp1": NVUE_3, "swp4": NVUE_3}, NVUE_MTU)),
         check="roce_host_switch_agree", name="NVUE: mlx5_1's port at MTU 1500", expect=RAILS2, status={"node-001": "FAIL"},
         contains={"node-001": ["node-001 mlx5_1 (ens2np0) MTU 9000; leaf1-r0 swp4 MTU 1500"]}),
    dict(node(failing(leaf("cumulus", {"swp1": "ens1np0", "swp4": "ens2np0"}, {"swp1": NVUE_3, "swp4": NVUE_3}, NVUE_MTU),
                      "port_mtu", "swp4")),
         check="roce_host_switch_agree", name="NVUE: swp4 at MTU 1500 already failed port_mtu: the switch's finding, not the node's",
         expect=RAILS2, status={"node-001": "PASS"},
         contains={"node-001": ["1 rail agree", "leaf1-r0 swp4 (port_mtu FAILed there: the switch's finding)"]}),
    dict(node(leaf("cumulus", SWP, {"swp1": NVUE_3, "swp2": NVUE_4})), check="roce_host_switch_agree",
         name="NVUE: mlx5_1's port lossless on priority 4", expect=RAILS2, status={"node-001": "FAIL"},
         contains={"node-001": ["node-001 mlx5_1 (ens2np0) PFC on priority 3; leaf1-r0 swp2 lossless priority 4"]}),
    dict(node(leaf("cumulus", SWP, {"swp1": NVUE_3, "swp2": failed("nv show interface swp2 qos roce status", "timed out after 5s")})),
         check="roce_host_switch_agree", name="NVUE: swp2's read timed out", expect=RAILS2, status={"node-001": "ERROR"},
         contains={"node-001": ["leaf1-r0 swp2: PFC state not read (timed out after 5s)"]}),
    dict(node(leaf("sonic", TWO, failed("show pfc priority", "exited 1: Cannot find PORT_QOS_MAP"))), check="roce_host_switch_agree",
         name="SONiC: the PFC state read failed", expect=RAILS2, status={"node-001": "ERROR"},
         contains={"node-001": ["leaf1-r0 Ethernet0: PFC state not read", "One end of a rail's link not read"]}),
    dict(node(leaf("sonic", TWO, SONIC_34), qos={"mlx5_0": QOS_FW, "mlx5_1": "mlnx_qos: Operation not supported\n"}),
         check="roce_host_switch_agree", name="mlx5_1's mlnx_qos unreadable", expect=RAILS2, status={"node-001": "ERROR"},
         contains={"node-001": ["mlx5_1 (ens2np0): mlnx_qos not read"]}),
    dict(node(leaf("nxos", {"Ethernet1/1": "ens1np0", "Ethernet1/2": "ens2np0"}, NXOS_FAULTY)), check="roce_host_switch_agree",
         name="NX-OS: PFC Oper Mode Off on mlx5_1's port", expect=RAILS2, status={"node-001": "FAIL"},
         contains={"node-001": ["node-001 mlx5_1 (ens2np0) PFC on priority 3; leaf1-r0 Ethernet1/2 PFC Oper Mode Off"]}),
    dict(node(leaf("nxos", {"Ethernet1/1": "ens1np0", "Ethernet1/3": "ens2np0"}, NXOS_FAULTY)), check="roce_host_switch_agree",
         name="NX-OS: PFC on, no priority shown: nothing compared", expect=RAILS2, status={"node-001": "SKIP"},
         contains={"node-001": ["not applicable: nothing comparable", "priority not shown by nxos"]}),
    dict(node(leaf("eos", TWO, None)), check="roce_host_switch_agree", name="EOS: PFC not read, nothing compared",
         expect=RAILS2, status={"node-001": "SKIP"},
         contains={"node-001": ["PFC priority not read on eos", "MTU not read on eos", NOT_READ]}),
    dict(node(), check="roce_host_switch_agree", name="no switch in the run cabled to the node", expect=RAILS2,
         status={"node-001": "SKIP"}, contains={"node-001": ["no switch in this run plans a port cabled to node-001"]}),
    # a lone GPU box without RDMA netdevs (the lent H100, docs/examples/h100x1-real): its host reads fail (their own
    # checks' ERRORs), and with no switch there is still nothing to agree with
    dict(node(qos=both("rail_netdev: /sys/class/infiniband/mlx5_0/device/net: no network interface listed\n"),
              mtu=both("rail_netdev: /sys/class/infiniband/mlx5_0/device/net: no network interface listed\n")),
         check="roce_host_switch_agree", name="no switch in the run, the host's RoCE reads failed", expect=RAILS2,
         status={"node-001": "SKIP"}, contains={"node-001": ["no switch in this run plans a port cabled to node-001"]}),
    dict(node(leaf("sonic", TWO, SONIC_34)), check="roce_host_switch_agree", name="InfiniBand rails: not applicable",
         expect=dict(RAILS2, pyramid_rdma_link_layer="infiniband"), status={"node-001": "SKIP"}, contains={"node-001": ["InfiniBand"]}),
]

SONIC_PLAN = {"pyramid_switch_os": "sonic", "pyramid_switch_ports": [
    {"port": "Ethernet0", "peer": "node-001", "peer_port": "ens1np0"},
    {"port": "Ethernet112", "peer": "spine-01", "peer_port": "Ethernet1/1", "role": "fabric"}]}
NVUE_PLAN = {"pyramid_switch_os": "cumulus", "pyramid_switch_ports": [
    {"port": "swp1", "peer": "node-001", "peer_port": "ens1np0"}, {"port": "swp4", "peer": "node-002", "peer_port": "ens1np0"},
    {"port": "swp6", "peer": "spine-01", "peer_port": "swp1", "role": "fabric"}]}

DATA += [
    {"check": "port_mtu", "name": "SONiC: host port at 9100 (real intfutil table)", "expect": SONIC_PLAN, "status": "PASS",
     "raw": {"sw_port_mtu": fixture("sonic_show_interfaces_status_mtu", "intfutil_mixed_real")}, "contains": ["1 host port at MTU 9100"]},
    {"check": "port_mtu", "name": "SONiC: rails at 9216 over a 9100 port", "expect": dict(SONIC_PLAN, pyramid_rail_mtu=9216), "status": "FAIL",
     "raw": {"sw_port_mtu": fixture("sonic_show_interfaces_status_mtu", "intfutil_mixed_real")},
     "contains": ["Ethernet0 MTU 9100 < 9216 (node-001 ens1np0)", CAUSE]},
    {"check": "port_mtu", "name": "NVUE: swp4 at 1500 (real docs table)", "expect": NVUE_PLAN, "status": "FAIL",
     "raw": {"sw_port_mtu": NVUE_MTU}, "contains": ["swp4 MTU 1500 < 9000 (node-002 ens1np0)"]},
    {"check": "port_mtu", "name": "NVUE: a host port not in the table", "status": "ERROR",
     "expect": dict(NVUE_PLAN, pyramid_switch_ports=[{"port": "swp9", "peer": "node-001", "peer_port": "ens1np0"}]),
     "raw": {"sw_port_mtu": NVUE_MTU}, "contains": ["swp9: MTU not listed"]},
    {"check": "port_mtu", "name": "SONiC: the table cut mid-row", "expect": SONIC_PLAN, "status": "ERROR",
     "raw": {"sw_port_mtu": fixture("sonic_show_interfaces_status_mtu", "truncated_mid_row")}, "contains": ["unexpected line"]},
]

NXOS_PLAN = {"pyramid_switch_os": "nxos", "pyramid_switch_ports": [
    {"port": "Ethernet1/1", "peer": "node-001", "peer_port": "ens1np0"}, {"port": "Ethernet1/2", "peer": "node-002", "peer_port": "ens1np0"}]}
NXOS_MTU = fixture("cisco_nxos_show_interface_mtu", "three_fex_uplinks_1500_real")  # Ethernet1/1-1/3 at 1500

DATA += [  # NX-OS: `show interface <port>` once per planned port (each answer here the real three-port capture)
    {"check": "port_mtu", "name": "NX-OS: host ports at 1500, rails at 1500 (real show interface)", "status": "PASS",
     "expect": dict(NXOS_PLAN, pyramid_rail_mtu=1500), "raw": {"sw_port_mtu": {"Ethernet1/1": NXOS_MTU, "Ethernet1/2": NXOS_MTU}},
     "contains": ["2 host ports at MTU 1500"]},
    {"check": "port_mtu", "name": "NX-OS: host ports left at the default 1500 under 9000 rails", "expect": NXOS_PLAN, "status": "FAIL",
     "raw": {"sw_port_mtu": {"Ethernet1/1": NXOS_MTU, "Ethernet1/2": NXOS_MTU}},
     "contains": ["Ethernet1/1 MTU 1500 < 9000 (node-001 ens1np0)", "Ethernet1/2 MTU 1500 < 9000 (node-002 ens1np0)"]},
    {"check": "port_mtu", "name": "NX-OS: Ethernet1/2's report damaged (no MTU line)", "status": "ERROR",
     "expect": dict(NXOS_PLAN, pyramid_rail_mtu=1500),
     "raw": {"sw_port_mtu": {"Ethernet1/1": NXOS_MTU, "Ethernet1/2": fixture("cisco_nxos_show_interface_mtu", "damaged_no_mtu_line_real")}},
     "contains": ["Ethernet1/2: sw_port_mtu: unparseable output", "lines, expected one (cut or damaged)"]},
]

NVUE_QOS_PLAN = {"pyramid_switch_os": "cumulus", "pyramid_switch_ports": [
    {"port": "swp1", "peer": "node-001", "peer_port": "ens1np0"}, {"port": "swp2", "peer": "node-002", "peer_port": "ens1np0"}]}

DATA += [
    {"check": "roce_port_qos", "name": "NVUE: trust dscp, DSCP 26 on 3, ECN on tc 3 (the reference's example)", "expect": NVUE_QOS_PLAN,
     "status": "PASS", "raw": {"sw_roce_map": {"swp1": NVUE_MAP, "swp2": NVUE_MAP}},
     "contains": ["2 host ports: trust dscp, DSCP 26 -> priority 3, ECN on traffic class 3"]},
    {"check": "roce_port_qos", "name": "NVUE: ECN off on swp2's RoCE class", "expect": NVUE_QOS_PLAN, "status": "FAIL",
     "raw": {"sw_roce_map": {"swp1": NVUE_MAP, "swp2": NVUE_ECN_OFF}},
     "contains": ["swp2 (node-002 ens1np0): ECN off on RoCE's traffic class 3 (enabled-tc 0)", CAUSE]},
    {"check": "roce_port_qos", "name": "NVUE: the fabric plans DSCP 24", "expect": dict(NVUE_QOS_PLAN, pyramid_roce_dscp=24),
     "status": "FAIL", "raw": {"sw_roce_map": {"swp1": NVUE_MAP, "swp2": NVUE_MAP}}, "contains": ["swp1 (node-001 ens1np0): RoCE DSCP 26, want 24"]},
    {"check": "roce_port_qos", "name": "NVUE: swp2's roce row cut", "expect": NVUE_QOS_PLAN, "status": "ERROR",
     "raw": {"sw_roce_map": {"swp1": NVUE_MAP, "swp2": fixture("cumulus_nv_show_interface_qos_roce_status_map", "dscp_row_cut")}},
     "contains": ["swp2: sw_roce_map"]},
]

# EOS: `show interfaces | json` (a vEOS 4.33 capture: Ethernet1, Ethernet2 at 9214; ANTA's VerifyL3MTU data: Ethernet2
# routed at 1600, Ethernet10 at 1500). The PFC state is not read on EOS: the agreement compares the MTU alone there.
EOS_MTU = fixture("arista_eos_show_interfaces_mtu_json", "veos_433_real")
EOS_MTU_ANTA = fixture("arista_eos_show_interfaces_mtu_json", "anta_l3mtu_routed_1600_real")
EOS_PLAN = {"pyramid_switch_os": "eos", "pyramid_switch_ports": [
    {"port": "Ethernet1", "peer": "node-001", "peer_port": "ens1np0"}, {"port": "Ethernet2", "peer": "node-002", "peer_port": "ens1np0"}]}
EOS_ANTA_PLAN = {"pyramid_switch_os": "eos", "pyramid_switch_ports": [
    {"port": "Ethernet2", "peer": "node-001", "peer_port": "ens1np0"}, {"port": "Ethernet10", "peer": "node-002", "peer_port": "ens1np0"}]}
EOS_TWO = {"Ethernet1": "ens1np0", "Ethernet2": "ens2np0"}

DATA += [
    {"check": "port_mtu", "name": "EOS: host ports at 9214 (real vEOS show interfaces)", "expect": EOS_PLAN, "status": "PASS",
     "raw": {"sw_port_mtu": EOS_MTU}, "contains": ["2 host ports at MTU 9214"]},
    {"check": "port_mtu", "name": "EOS: routed ports at 1600 and 1500 (ANTA's VerifyL3MTU data)", "expect": EOS_ANTA_PLAN,
     "status": "FAIL", "raw": {"sw_port_mtu": EOS_MTU_ANTA},
     "contains": ["Ethernet2 MTU 1600 < 9000 (node-001 ens1np0)", "Ethernet10 MTU 1500 < 9000 (node-002 ens1np0)", CAUSE]},
    {"check": "port_mtu", "name": "EOS: the JSON cut short", "expect": EOS_PLAN, "status": "ERROR",
     "raw": {"sw_port_mtu": fixture("arista_eos_show_interfaces_mtu_json", "truncated")}, "contains": ["sw_port_mtu"]},
    dict(node(leaf("eos", EOS_TWO, None, EOS_MTU)), check="roce_host_switch_agree",
         name="EOS: MTU 9000 within 9214, PFC not read", expect=RAILS2, status={"node-001": "PASS"},
         contains={"node-001": ["2 rails agree", "mlx5_1 MTU 9000 <= leaf1-r0 Ethernet2 9214", "PFC priority not read on eos"]}),
    dict(node(leaf("eos", EOS_TWO, None, EOS_MTU), mtu=both("9000\n", "9216\n")), check="roce_host_switch_agree",
         name="EOS: mlx5_1 at MTU 9216, its port at 9214", expect=RAILS2, status={"node-001": "FAIL"},
         contains={"node-001": ["node-001 mlx5_1 (ens2np0) MTU 9216; leaf1-r0 Ethernet2 MTU 9214", CAUSE]}),
]

# EOS (the configuration): the ports' stanzas and the qos section from arista.avd's eos_cli_config_gen intended configs
# (qos.cfg maps DSCP 26 to traffic-class 4, its profile `test` trusts dscp and marks ECN on tx-queues 2 and 4), so the
# plan here puts RoCE's lossless priority at 4.
EOS_QOS = "arista_eos_show_running-config_interfaces_qos"
EOS_SECTION = "arista_eos_show_running-config_section_qos"
EOS_QOS_PLAN = {"pyramid_switch_os": "eos", "pyramid_pfc_priorities": [4], "pyramid_switch_ports": [
    {"port": "Ethernet1", "peer": "node-001", "peer_port": "ens1np0"}, {"port": "Ethernet6", "peer": "node-002", "peer_port": "ens1np0"}]}
EOS_ONE_PORT = dict(EOS_QOS_PLAN, pyramid_switch_ports=EOS_QOS_PLAN["pyramid_switch_ports"][:1])
EOS_ETHERNET1 = fixture(EOS_QOS, "avd_qos_ethernet1_trust_dscp_profile_real")  # trust dscp, service-profile test
EOS_QUEUE_MAPPED = fixture(EOS_SECTION, "avd_qos_cfg_tc4_to_tx_queue4")

DATA += [
    {"check": "roce_port_qos", "name": "EOS: trust dscp, DSCP 26 -> tc 4 -> tx-queue 4, ECN there by its profile", "status": "PASS",
     "expect": EOS_ONE_PORT, "raw": {"sw_roce_map": {"Ethernet1": EOS_ETHERNET1}, "sw_qos_config": EOS_QUEUE_MAPPED},
     "contains": ["1 host port: trust dscp, DSCP 26 -> priority 4, ECN on traffic class 4 (configured: the running-config"]},
    {"check": "roce_port_qos", "name": "EOS: Ethernet6 marks ECN on tx-queue 2, not RoCE's 4", "status": "FAIL", "expect": EOS_QOS_PLAN,
     "raw": {"sw_roce_map": {"Ethernet1": EOS_ETHERNET1, "Ethernet6": fixture(EOS_QOS, "ethernet6_trust_dscp_ecn_queue2")},
             "sw_qos_config": EOS_QUEUE_MAPPED},
     "contains": ["Ethernet6 (node-002 ens1np0): no random-detect ecn on tx-queue 4, RoCE's traffic class 4's queue (ECN on tx-queue 2)", CAUSE]},
    {"check": "roce_port_qos", "name": "EOS: Ethernet6 trusts cos", "status": "FAIL", "expect": EOS_QOS_PLAN,
     "raw": {"sw_roce_map": {"Ethernet1": EOS_ETHERNET1, "Ethernet6": fixture(EOS_QOS, "avd_qos_ethernet6_trust_cos_ecn_count_real")},
             "sw_qos_config": EOS_QUEUE_MAPPED},
     "contains": ["Ethernet6 (node-002 ens1np0): trust cos, no dscp"]},
    {"check": "roce_port_qos", "name": "EOS: RoCE's class 4 is not the plan's lossless priority 3", "status": "FAIL",
     "expect": dict(EOS_ONE_PORT, pyramid_pfc_priorities=[3]),
     "raw": {"sw_roce_map": {"Ethernet1": EOS_ETHERNET1}, "sw_qos_config": EOS_QUEUE_MAPPED},
     "contains": ["Ethernet1 (node-001 ens1np0): RoCE on switch-priority 4, not lossless (3)"]},
    {"check": "roce_port_qos", "name": "EOS: no traffic-class -> tx-queue line (the default map not assumed)", "status": "ERROR",
     "expect": EOS_ONE_PORT, "raw": {"sw_roce_map": {"Ethernet1": EOS_ETHERNET1}, "sw_qos_config": fixture(EOS_SECTION, "avd_qos_cfg_real")},
     "contains": ["Ethernet1: no qos map traffic-class 4 to tx-queue line (EOS's default queue map is not assumed)"]},
    {"check": "roce_port_qos", "name": "EOS: the qos section not read", "status": "ERROR", "expect": EOS_ONE_PORT,
     "raw": {"sw_roce_map": {"Ethernet1": EOS_ETHERNET1}, "sw_qos_config": fixture(EOS_SECTION, "cut_in_map_line")},
     "contains": ["show running-config section qos not read"]},
    {"check": "roce_port_qos", "name": "EOS: no qos trust line on the port or its profile", "status": "ERROR",
     "expect": dict(EOS_ONE_PORT, pyramid_switch_ports=[{"port": "Ethernet7", "peer": "node-001", "peer_port": "ens1np0"}]),
     "raw": {"sw_roce_map": {"Ethernet7": fixture(EOS_QOS, "avd_qos_ethernet7_uc_tx_queue_real")}, "sw_qos_config": EOS_QUEUE_MAPPED},
     "contains": ["Ethernet7: no qos trust line on the port or its service-profile (EOS's default trust is not assumed)"]},
    {"check": "roce_port_qos", "name": "EOS: a planned port the reads lack", "status": "ERROR", "expect": EOS_QOS_PLAN,
     "raw": {"sw_roce_map": {"Ethernet1": EOS_ETHERNET1}, "sw_qos_config": EOS_QUEUE_MAPPED}, "contains": ["Ethernet6: RoCE QoS not listed"]},
    {"check": "roce_port_qos", "name": "EOS: Ethernet6's stanza refused", "status": "ERROR", "expect": EOS_QOS_PLAN,
     "raw": {"sw_roce_map": {"Ethernet1": EOS_ETHERNET1, "Ethernet6": fixture(EOS_QOS, "invalid_input")},
             "sw_qos_config": EOS_QUEUE_MAPPED},
     "contains": ["Ethernet6: sw_roce_map"]},
]

# NX-OS (the configuration): Microsoft's reference Nexus QoS policy for Azure Local TORs (one `show running-config ipqos`
# read: RoCE's class by `match cos 3`, qos-group 3 paused on pfc-cos 3, ECN on c-out-8q-q3, system qos attaching the
# network-qos and queuing policies, Ethernet1/17 the qos one), and the same with the class matching DSCP 26.
NXOS_IPQOS = "cisco_nxos_show_running-config_ipqos"
NXOS_QOS_PLAN = {"pyramid_switch_os": "nxos", "pyramid_switch_ports": [{"port": "Ethernet1/17", "peer": "node-001", "peer_port": "ens1np0"}]}
NXOS_DSCP26 = fixture(NXOS_IPQOS, "azure_local_dscp26")

DATA += [
    {"check": "roce_port_qos", "name": "NX-OS: DSCP 26 -> qos-group 3, pause pfc-cos 3, ECN on c-out-8q-q3", "status": "PASS",
     "expect": NXOS_QOS_PLAN, "raw": {"sw_roce_map": NXOS_DSCP26, "sw_qos_config": NXOS_DSCP26},
     "contains": ["1 host port: trust dscp, DSCP 26 -> priority 3, ECN on traffic class 3 (configured: the running-config"]},
    {"check": "roce_port_qos", "name": "NX-OS: RoCE classified by CoS (the Azure Local policy as published)", "status": "FAIL",
     "expect": NXOS_QOS_PLAN, "raw": {"sw_roce_map": fixture(NXOS_IPQOS, "azure_local_tor_qos_real"),
                                      "sw_qos_config": fixture(NXOS_IPQOS, "azure_local_tor_qos_real")},
     "contains": ["Ethernet1/17 (node-001 ens1np0): trust cos, no dscp"]},
    {"check": "roce_port_qos", "name": "NX-OS: a port no qos policy is attached to", "status": "ERROR",
     "expect": dict(NXOS_QOS_PLAN, pyramid_switch_ports=[{"port": "Ethernet1/18", "peer": "node-002", "peer_port": "ens1np0"}]),
     "raw": {"sw_roce_map": NXOS_DSCP26, "sw_qos_config": NXOS_DSCP26},
     "contains": ["Ethernet1/18: no service-policy type qos input on the port or under system qos (NX-OS's default policy is not assumed)"]},
    {"check": "roce_port_qos", "name": "NX-OS: the plan's RoCE DSCP 24 is in no class", "status": "FAIL",
     "expect": dict(NXOS_QOS_PLAN, pyramid_roce_dscp=24), "raw": {"sw_roce_map": NXOS_DSCP26, "sw_qos_config": NXOS_DSCP26},
     "contains": ["Ethernet1/17 (node-001 ens1np0): DSCP 24 in no class of AZLocal_SERVICES: class-default, qos-group 0, has no pause "
                  "pfc-cos in QOS_NETWORK (lossy); no random-detect ... ecn in queuing class c-out-8q-q0 of QOS_EGRESS_PORT (ECN on qos-group 3)"]},
    {"check": "roce_port_qos", "name": "NX-OS: the command refused", "status": "ERROR", "expect": NXOS_QOS_PLAN,
     "raw": {"sw_roce_map": fixture(NXOS_IPQOS, "invalid_input"), "sw_qos_config": fixture(NXOS_IPQOS, "invalid_input")},
     "contains": ["NX-OS refused the command"]},
]

# issue 40: the blueprint's shape (Cisco's AI/ML blueprint for Nexus 9000: system qos attaches all three policies, each host
# port's block turns PFC on), in the lines of the Azure Local policy above, with Ethernet1/2's own queuing policy
# leaving ECN off. NX-OS prints the interface blocks last: a read cut after system qos loses the override, and system
# qos alone would say ECN on.
NXOS_BLUEPRINT = fixture(NXOS_IPQOS, "blueprint_port_queuing_override")[1]
NXOS_BLUEPRINT_CUT = NXOS_BLUEPRINT.partition("\ninterface Ethernet1/1")[0] + "\n"
NXOS_BLUEPRINT_CUT_AT_2 = NXOS_BLUEPRINT.partition("\ninterface Ethernet1/2")[0] + "\n"
NXOS_TWO_PORTS = {"pyramid_switch_os": "nxos", "pyramid_switch_ports": [
    {"port": "Ethernet1/1", "peer": "node-001", "peer_port": "ens1np0"}, {"port": "Ethernet1/2", "peer": "node-002", "peer_port": "ens1np0"}]}

DATA += [
    {"check": "roce_port_qos", "name": "NX-OS: system qos attaches all three, Ethernet1/2's own queuing policy has no ECN",
     "status": "FAIL", "expect": NXOS_TWO_PORTS, "raw": {"sw_roce_map": NXOS_BLUEPRINT, "sw_qos_config": NXOS_BLUEPRINT},
     "contains": ["Ethernet1/2 (node-002 ens1np0): no random-detect ... ecn in queuing class c-out-8q-q3 of QOS_EGRESS_NO_ECN"]},
    {"check": "roce_port_qos", "name": "NX-OS: the same read cut after system qos: unverified, not system qos's ECN",
     "status": "ERROR", "expect": NXOS_TWO_PORTS, "raw": {"sw_roce_map": NXOS_BLUEPRINT_CUT, "sw_qos_config": NXOS_BLUEPRINT_CUT},
     "contains": ["Ethernet1/2: no `interface Ethernet1/2` block in the read: NX-OS prints the interface blocks last"]},
    {"check": "roce_port_qos", "name": "NX-OS: cut after Ethernet1/1's block: Ethernet1/2 unverified",
     "status": "ERROR", "expect": NXOS_TWO_PORTS,
     "raw": {"sw_roce_map": NXOS_BLUEPRINT_CUT_AT_2, "sw_qos_config": NXOS_BLUEPRINT_CUT_AT_2},
     "contains": ["Ethernet1/2: no `interface Ethernet1/2` block"]},
    # issue 68: a read cut inside its last block; Ethernet1/2 would fall back to system qos's queuing policy (ECN on)
    # and pass: a block whose lines are cut is damage, an ERROR about the read
    {"check": "roce_port_qos", "name": "NX-OS: cut inside the last line (service-policy type queuing out): ERROR, not system qos's ECN",
     "status": "ERROR", "expect": NXOS_TWO_PORTS,
     "raw": {"sw_roce_map": fixture(NXOS_IPQOS, "blueprint_cut_inside_last_line"),
             "sw_qos_config": fixture(NXOS_IPQOS, "blueprint_cut_inside_last_line")},
     "contains": ["the read ends inside a line ('service-policy type queuing out'): cut short"]},
    {"check": "roce_port_qos", "name": "NX-OS: cut after the last interface line, its block empty: ERROR, not system qos's ECN",
     "status": "ERROR", "expect": NXOS_TWO_PORTS,
     "raw": {"sw_roce_map": fixture(NXOS_IPQOS, "blueprint_last_block_empty"),
             "sw_qos_config": fixture(NXOS_IPQOS, "blueprint_last_block_empty")},
     "contains": ["'interface Ethernet1/2' has no line"]},
]
