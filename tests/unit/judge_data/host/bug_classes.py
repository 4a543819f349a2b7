"""The rows of the five classes of wrong judge (issue 33; judge_data/bug_classes.py says what each class is) that
test judging/host.py. Each row's comment says its class and what a wrong judge of that class would do with it.
"""

from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.host import layer0
from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.host.layer0 import CAUSE, fixture
from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.roce.layer3_roce_host import edited

MEMINFO_DGX = fixture("linux_proc_meminfo", "dgx_1g_pages")  # HugePages_Total 64 x 1 GiB


DATA = []

# === class 2: a set check done as a membership or overlap check =========================================
DATA += [
    # class 2: eight CAs in ibstat, eight rails declared, not the same eight. A judge counting them passes it.
    {"check": "rails_present", "name": "[2] eight CAs, eight rails declared, mlx5_8 not among the CAs",
     "raw": {"ibstat": layer0.IBSTAT}, "expect": {"pyramid_rails": layer0.RAILS[:7] + ["mlx5_8"]}, "status": "FAIL",
     "contains": ["missing: mlx5_8", CAUSE]},
]

# === class 3: a list element whose data is missing, skipped instead of reported ==========================
DATA += [
    # class 3: the last rail's mlxconfig never queried while ibstat shows it: skipped, it would pass on seven
    {"check": "mlxconfig", "name": "[3] mlx5_7 present in ibstat, its mlxconfig not in the read: ERROR naming it",
     "raw": {"ibstat": layer0.IBSTAT, "mlxconfig": {rail: layer0.MLX_OK for rail in layer0.RAILS[:7]}}, "status": "ERROR",
     "contains": ["mlx5_7: not queried"]},
]

# === class 4: thresholds at their boundary and one step beyond ===========================================
DATA += [
    # class 4: kernel_params: HugePages_Total exactly pyramid_hugepages_total, one either side fails (a real
    # meminfo edited): a judge with >= passes 65, one with <= passes 63
    {"check": "kernel_params", "name": "[4] real DGX meminfo with 63 of 64 hugepages",
     "raw": {"cmdline": fixture("linux_proc_cmdline", "dgx"), "meminfo": edited(MEMINFO_DGX, "HugePages_Total:      64", "HugePages_Total:      63")},
     "status": "FAIL", "contains": ["HugePages_Total 63, want 64"]},
    {"check": "kernel_params", "name": "[4] real DGX meminfo with 65 of 64 hugepages",
     "raw": {"cmdline": fixture("linux_proc_cmdline", "dgx"), "meminfo": edited(MEMINFO_DGX, "HugePages_Total:      64", "HugePages_Total:      65")},
     "status": "FAIL", "contains": ["HugePages_Total 65, want 64"]},
]

# === class 5: two faults, both named; a FAIL that must name the value, the port or the rail ===============
DATA += [
    # class 5: hugepages short and iommu=pt missing on one host: a judge that stops at the first problem names one
    {"check": "kernel_params", "name": "[5] 63 hugepages and no iommu=pt: both named",
     "raw": {"cmdline": fixture("linux_proc_cmdline", "no_iommu"), "meminfo": edited(MEMINFO_DGX, "HugePages_Total:      64", "HugePages_Total:      63")},
     "status": "FAIL", "contains": ["HugePages_Total 63, want 64; iommu=pt missing from /proc/cmdline", CAUSE]},
]

layer0.with_sysfs(DATA)
