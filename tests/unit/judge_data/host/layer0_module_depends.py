"""rdma_modules: a module list that shows a module without one it depends on is damaged (an ERROR about the read),
for every dependency the judge knows, one row each.

The dependencies below are written out here from `modinfo -F depends` (Linux 5.15 to 6.8, MLNX_OFED/DOCA-host), not
read from the judge's own table: a dependency the judge lost (the mutation run of 2026-11-26 found every entry of
`judging/host.py`'s MODULE_DEPENDS changeable with no test failing) turns such a list into "not loaded", a FAIL about
the host, and its row here says so.
"""

from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.host.layer0 import NO_SYS_MODULE, failed, fixture, modules, modules_but, node

# module -> the modules it cannot be loaded without (modinfo -F depends)
DEPENDS = {
    "mlx5_ib": ("mlx5_core", "ib_uverbs", "ib_core"),
    "ib_uverbs": ("ib_core",),
    "ib_umad": ("ib_core",),
    "ib_cm": ("ib_core",),
    "iw_cm": ("ib_core",),
    "rdma_cm": ("iw_cm", "ib_core", "ib_cm"),
    "rdma_ucm": ("ib_core", "ib_uverbs", "rdma_cm"),
    "ib_ipoib": ("ib_cm", "ib_core"),
    "nvidia_peermem": ("nvidia", "ib_core"),
    "bnxt_re": ("bnxt_en", "ib_uverbs", "ib_core"),
}

DATA = [
    {"check": "rdma_modules", "name": "%s listed without %s, which it needs: the list is damaged" % (needer, needed),
     # the list shows only the needer; the module it needs is not in /sys/module either (the list cannot be trusted)
     "facts": node(kernel_modules=modules(needer), module_sysfs={needed: NO_SYS_MODULE(needed)}),
     "expect": {"pyramid_rdma_modules": [needer, needed]},
     "status": "ERROR", "contains": ["the module list lacks %s (which %s needs): cut short or damaged" % (needed, needer)]}
    for needer, needs in DEPENDS.items() for needed in needs
] + [
    # the other way round: a module that needs nothing the list lacks is judged on its own
    {"check": "rdma_modules", "name": "%s missing, nothing listed needs it: not loaded" % needed,
     "facts": node(kernel_modules=modules("nvidia"), module_sysfs={needed: NO_SYS_MODULE(needed)}),
     "expect": {"pyramid_rdma_modules": ["nvidia", needed]},
     "status": "FAIL", "contains": ["not loaded: %s" % needed]}
    for needed in ("ib_core", "mlx5_core")
] + [
    {"check": "rdma_modules", "name": "mlx5_ib listed without two modules it needs: both named",
     "facts": node(kernel_modules=modules("mlx5_ib"), module_sysfs={name: NO_SYS_MODULE(name) for name in ("mlx5_core", "ib_core")}),
     "expect": {"pyramid_rdma_modules": ["mlx5_ib", "mlx5_core", "ib_core"]},
     "status": "ERROR", "contains": ["the module list lacks mlx5_core (which mlx5_ib needs); ib_core (which mlx5_ib needs): cut short"]},
    # a built-in module's dependencies, absent from the list and /sys/module, may be built in (Kconfig decides which it
    # uses): each is named as not proven with its needer (issue 66: read, don't infer), an ERROR, never a PASS
    {"check": "rdma_modules", "name": "mlx5_ib built in: ib_uverbs and ib_core, absent from /sys/module, not proven",
     "facts": node(kernel_modules=modules("nvidia"),
                   module_sysfs={"ib_uverbs": NO_SYS_MODULE("ib_uverbs"), "ib_core": NO_SYS_MODULE("ib_core")}),
     "raw": {"module_sysfs": {"mlx5_ib": fixture("linux_dir_listing", "sys_module_builtin")}},
     "expect": {"pyramid_rdma_modules": ["mlx5_ib", "ib_uverbs", "ib_core"]},
     "status": "ERROR", "contains": ["ib_uverbs not proven: not in the module list, no /sys/module/ib_uverbs, and modinfo ib_uverbs "
                                     "not read (the built-in mlx5_ib may need it", "ib_core not proven: ",
                                     "built into the kernel (in /sys/module without initstate, never in lsmod): mlx5_ib"]},
    # the same, the kernel's list of its built-in modules read through modinfo: proven
    {"check": "rdma_modules", "name": "mlx5_ib built in: ib_uverbs and mlx5_ib proven built in by modinfo",
     "facts": node(kernel_modules=modules("nvidia"), module_sysfs={"ib_uverbs": NO_SYS_MODULE("ib_uverbs")}),
     "raw": {"module_sysfs": {"mlx5_ib": fixture("linux_dir_listing", "sys_module_builtin")},
             "module_builtin": {"ib_uverbs": fixture("linux_modinfo_where", "twin_builtin_ib_uverbs"),
                                "mlx5_ib": fixture("linux_modinfo_where", "twin_builtin_mlx5_ib")}},
     "expect": {"pyramid_rdma_modules": ["mlx5_ib", "ib_uverbs"]},
     "status": "PASS", "contains": ["built into the kernel (in /sys/module without initstate, never in lsmod): mlx5_ib; built into the "
                                    "kernel (modinfo: filename (builtin), from the kernel's modules.builtin.modinfo): ib_uverbs"]},
    # ... and theirs in turn: rdma_ucm needs rdma_cm, which needs iw_cm (rdma_ucm does not need iw_cm itself)
    {"check": "rdma_modules", "name": "rdma_ucm built in: rdma_cm not proven, and iw_cm, which rdma_cm needs",
     "facts": node(kernel_modules=modules("nvidia"),
                   module_sysfs={"iw_cm": NO_SYS_MODULE("iw_cm"), "rdma_cm": NO_SYS_MODULE("rdma_cm")}),
     "raw": {"module_sysfs": {"rdma_ucm": fixture("linux_dir_listing", "sys_module_builtin")}},
     "expect": {"pyramid_rdma_modules": ["rdma_ucm", "iw_cm", "rdma_cm"]},
     "status": "ERROR", "contains": ["rdma_cm not proven: ", "(the built-in rdma_ucm may need it", "iw_cm not proven: ",
                                     "(the built-in rdma_cm may need it"]},
    # /sys/module/<name>/initstate: "live", "coming" or "going" are all a module the kernel holds (show_initstate)
    {"check": "rdma_modules", "name": "lsmod lacks two modules whose initstate reads coming and going: the list is incomplete",
     "facts": node(kernel_modules=modules_but("mlx5_ib", "ib_uverbs"),
                   module_sysfs={"mlx5_ib": {"initstate": "coming"}, "ib_uverbs": {"initstate": "going"}}),
     "status": "ERROR", "contains": ["the module list does not show mlx5_ib (coming), ib_uverbs (going)"]},
    # the initstate read failed, the directory listing shows initstate: loaded or not, nothing tells
    {"check": "rdma_modules", "name": "lsmod lacks ib_uverbs, /sys/module/ib_uverbs lists initstate but it could not be read",
     "facts": node(kernel_modules=modules_but("ib_uverbs"),
                   module_sysfs={"ib_uverbs": {"entries": ["coresize", "holders", "initsize", "initstate", "refcnt", "taint"]}}),
     "status": "ERROR", "contains": ["/sys/module could not tell: ib_uverbs (/sys/module/ib_uverbs lists initstate but it could not "
                                     "be read)"]},
    {"check": "rdma_modules", "name": "two modules lsmod lacks, neither /sys/module readable: both named with why",
     "facts": node(kernel_modules=modules_but("mlx5_ib", "ib_uverbs"),
                   module_sysfs={name: failed("ls /sys/module/%s" % name, "ls /sys/module/%s: Permission denied" % name, "unreadable")
                                 for name in ("mlx5_ib", "ib_uverbs")}),
     "status": "ERROR", "contains": ["the module list does not show mlx5_ib, ib_uverbs, and /sys/module could not tell: mlx5_ib ("]},
]
