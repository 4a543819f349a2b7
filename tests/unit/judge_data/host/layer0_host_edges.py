"""Layer 0 host judges at the edges the 2026-11-26 mutation run (issue 33) found untested: changes to
judging/host.py that no row told apart. Each row below is right for the operator on its own, and fails
under one of those changes:

- rails_present / rails_active: ibstat that read none of the declared rails, or stopped with no
  /sys/class/infiniband listing to compare with, is a read that failed (ERROR naming the rails), not
  rails that are missing; one that ran to the end (exit 0) without a rail, no listing either, is a FAIL.
- gpudirect: every required source that failed is named, not only the first; an nvidia_peermem built
  into the kernel (/sys/module/nvidia_peermem without initstate, never in lsmod) is a peermem path.
- mlxconfig: a NIC that answered mlxconfig is judged even where ibstat does not show it; the NIC-wide
  parameter ADVANCED_PCI_SETTINGS (its name holds "_P", no port number) applies to every card; a
  desired value written in hex (0xff) or as a word (False) matches what mlxconfig prints (255, False(0));
  every _P2 parameter no card has is named in the expected.

Rows reuse the layer0 table's healthy node and its real fixtures (tests/unit/parsers), changed only where
said.
"""

from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.host.layer0 import (
    IBSTAT, MLX_OK, NO_PEERMEM, P1_ONLY, RAILS, SYSFS_RAILS, failed, fixture, ibstat, mlx, mlx_rails, nvidia, node)

# ibstat stops at the first CA it cannot stat and prints ibpanic on stderr (permission_denied_after_four's line):
# refused at mlx5_0, nothing before it; refused at mlx5_7, the last rail, after the seven before it
IBPANIC_LINE = "ibpanic: [2290] main: stat of IB device '%s' failed: Permission denied\n"
REFUSED_FIRST = ("linux_ibstat", IBPANIC_LINE % "mlx5_0")
REFUSED_LAST = ("linux_ibstat", IBSTAT[1][:IBSTAT[1].index("CA 'mlx5_7'")] + IBPANIC_LINE % "mlx5_7")
PERMISSION_DENIED = fixture("linux_ibstat", "permission_denied_after_four")
NO_LISTING = failed("ls /sys/class/infiniband", "ls: cannot open directory '/sys/class/infiniband': Input/output error")
SINGLE_PORT = fixture("linux_mlxconfig_query", "single_port_cx7")

DATA = [
    # --- rails_present / rails_active: a read that failed is not a missing rail
    {"check": "rails_present", "name": "ibstat refused at the first CA: no rail read, none missing",
     "raw": {"ibstat": REFUSED_FIRST, "rdma_sysfs": SYSFS_RAILS}, "status": "ERROR",
     "contains": ["not read: mlx5_0 (ibstat: stat of IB device 'mlx5_0' failed: Permission denied); "
                  "mlx5_1 (not listed: ibstat stopped at mlx5_0)", "0 rails present"]},
    # without the listing, the CAs after the one ibstat stopped at may be there: not read, rather than missing
    {"check": "rails_present", "name": "ibstat refused at mlx5_4, /sys/class/infiniband unreadable: the rest not read",
     "facts": node(rdma_sysfs=NO_LISTING), "raw": {"ibstat": PERMISSION_DENIED}, "status": "ERROR",
     "contains": ["mlx5_4 (ibstat: stat of IB device 'mlx5_4' failed: Permission denied); mlx5_5 (not listed: ibstat stopped at mlx5_4); "
                  "mlx5_6 (not listed: ibstat stopped at mlx5_4)", "No data from `ibstat` for mlx5_4, mlx5_5, mlx5_6, mlx5_7"]},
    {"check": "rails_present", "name": "ibstat ran to the end without mlx5_3, /sys/class/infiniband unreadable: missing",
     "facts": node(rdma_sysfs=NO_LISTING), "raw": {"ibstat": fixture("linux_ibstat", "missing_device")}, "status": "FAIL",
     "contains": ["missing: mlx5_3"]},
    {"check": "rails_active", "name": "ibstat refused at the last rail: the one not read is named alone",
     "raw": {"ibstat": REFUSED_LAST, "rdma_sysfs": SYSFS_RAILS}, "status": "ERROR",
     "contains": ["not read: mlx5_7 (ibstat: stat of IB device 'mlx5_7' failed: Permission denied); 7 ports Active/LinkUp",
                  "No data from `ibstat` for mlx5_7: the tool could not read it"]},

    # --- gpudirect
    {"check": "gpudirect", "name": "RDMA listing and kernel release both unreadable: both named",
     "facts": node(rdma_sysfs=NO_LISTING, osrelease=failed("cat /proc/sys/kernel/osrelease", "cat: /proc/sys/kernel/osrelease: Permission denied")),
     "status": "ERROR",
     "contains": ["Input/output error; cat: /proc/sys/kernel/osrelease: Permission denied",
                  "No data from `ls /sys/class/infiniband`, `cat /proc/sys/kernel/osrelease`"]},
    # /sys/module/nvidia_peermem without initstate: a module in the kernel image, which lsmod never lists
    {"check": "gpudirect", "name": "nvidia_peermem built in (no initstate, not in lsmod), proprietary module: peermem path",
     "facts": node(kernel_modules=NO_PEERMEM, nvidia_module=nvidia(open_module=False)),
     "raw": {"peermem_sysfs": fixture("linux_dir_listing", "sys_module_builtin")}, "status": "PASS",
     "contains": ["path peermem: nvidia_peermem (built in) loaded"]},

    # --- mlxconfig
    # ibstat may miss a CA (driver not bound to it): a NIC that answers mlxconfig is there, its settings are judged
    {"check": "mlxconfig", "name": "DCQCN off on a NIC ibstat does not show: still judged",
     "facts": node(ibstat=ibstat(drop=("mlx5_3",))), "raw": {"mlxconfig": {"mlx5_3": fixture("linux_mlxconfig_query", "roce_cc_prio_mask_zero")}},
     "status": "FAIL", "contains": ["ROCE_CC_PRIO_MASK_P1=0 (next boot 0) on mlx5_3"]},
    {"check": "mlxconfig", "name": "ADVANCED_PCI_SETTINGS is NIC-wide (no port number): judged on single-port cards",
     "raw": {"ibstat": IBSTAT, "mlxconfig": {rail: MLX_OK for rail in RAILS}},
     "expect": {"pyramid_mlxconfig": dict(P1_ONLY, ADVANCED_PCI_SETTINGS="True")}, "status": "PASS",
     "contains": ["8 rails as desired", "ADVANCED_PCI_SETTINGS=True, ROCE_CC_PRIO_MASK_P1=255"]},
    {"check": "mlxconfig", "name": "priority mask desired in hex (0xff), read 255",
     "raw": {"ibstat": IBSTAT, "mlxconfig": {rail: MLX_OK for rail in RAILS}},
     "expect": {"pyramid_mlxconfig": {"ROCE_CC_PRIO_MASK_P1": "0xff"}}, "status": "PASS", "contains": ["8 rails as desired"]},
    {"check": "mlxconfig", "name": "SR-IOV desired off (False), read False(0)",
     "facts": node(mlxconfig=mlx_rails(**{rail: mlx(SRIOV_EN="False(0)", NUM_OF_VFS="0") for rail in RAILS})),
     "expect": {"pyramid_mlxconfig": dict(P1_ONLY, SRIOV_EN="False")}, "status": "PASS", "contains": ["8 rails as desired"]},
    {"check": "mlxconfig", "name": "single-port cards, two _P2 parameters desired: both named as no such port",
     "raw": {"ibstat": IBSTAT, "mlxconfig": {rail: SINGLE_PORT for rail in RAILS}},
     "expect": {"pyramid_mlxconfig": dict(P1_ONLY, ROCE_CC_PRIO_MASK_P2="255", LINK_TYPE_P2="ETH")}, "status": "PASS",
     "contains": ["; not LINK_TYPE_P2, ROCE_CC_PRIO_MASK_P2: no such port on these cards"]},
]
