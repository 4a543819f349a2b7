"""software_stack on RPM hosts (issue 67): RHEL-family nodes (Rocky, RHEL, AlmaLinux, Amazon Linux) read with rpm where
dpkg-query is missing, beside Ubuntu nodes read with dpkg-query, under the same pins and floors; the distribution named
from /etc/os-release; a damaged rpm read an ERROR about the read, never a device's FAIL (issue 68).

Outputs: real rpm 4.18 answers (tests/unit/parsers/linux_rpm_query, linux_rpm_query_all: NVIDIA's and DOCA's package
names and versions), a real Rocky Linux 9.4 /etc/os-release and its kernel 5.14.0-427.13.1.el9_4.x86_64 (from the same
public capture), and the Ubuntu pod of layer0_stack.py.
"""

from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.host.layer0 import fixture, kernel
from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.stack.layer0_stack import stack_node, twin_run

RPM = fixture("linux_rpm_query", "doca_el9_real")
RPM_NO_NCCL = fixture("linux_rpm_query", "no_nccl_inbox_verbs_real")
RPM_BROKEN_DB = fixture("linux_rpm_query", "database_broken_real")
RPM_CUT = fixture("linux_rpm_query", "cut_inside_a_line")
CUDA_RPM = fixture("linux_rpm_query_all", "one_runtime_real")
CUDA_RPM_NONE = fixture("linux_rpm_query_all", "no_runtime_real")
CUDA_RPM_USAGE = fixture("linux_rpm_query_all", "usage_error_real")
ROCKY = fixture("linux_etc_os_release", "rocky_9_4_real")
ROCKY_KERNEL = kernel("5.14.0-427.13.1.el9_4.x86_64")
UBUNTU_KERNEL = "5.15.0-119-generic"
ROCKY_NAME = "Rocky Linux 9.4 (Blue Onyx)"
# the Ubuntu nodes' /etc/os-release as the twin renders it (tests/unit/parsers/linux_etc_os_release/twin_ubuntu_22_04)
OTHER_DRIVER = {"name": "nvidia", "version": "535.183.01", "license": None, "open_kernel_module": False}
UBUNTU = {"id": "ubuntu", "id_like": ["debian"], "version_id": "22.04", "pretty_name": "Ubuntu 22.04.4 LTS", "family": "debian"}


def rocky(packages=RPM, cuda=CUDA_RPM):
    """(facts, raw) of a Rocky 9.4 node with DOCA's and NVIDIA's RPMs: the stack of the Ubuntu pod's nodes."""
    return stack_node(osrelease=ROCKY_KERNEL), {"stack_packages": packages, "cuda_runtime_rpm": cuda, "os_release": ROCKY}


def mixed(node_003=None, os_release=True):
    """node-001 and node-002 Ubuntu (dpkg-query), node-003 Rocky 9.4 (rpm): facts and raw of the pod."""
    facts_3, raw_3 = node_003 or rocky()
    if not os_release:
        raw_3 = {key: value for key, value in raw_3.items() if key != "os_release"}
    ubuntu = {"os_release": dict(UBUNTU)} if os_release else {}
    return {"facts": {"node-001": stack_node(**ubuntu), "node-002": stack_node(**ubuntu), "node-003": facts_3},
            "raw": {"node-003": raw_3}}


def row(name, pod, status, contains, expect=None):
    made = {"check": "software_stack", "name": name, "status": status, "contains": contains}
    made.update(pod)
    if expect:
        made["expect"] = expect
    return made


PASS3 = {"node-001": "PASS", "node-002": "PASS", "node-003": "PASS"}

DATA = [
    row("Ubuntu and Rocky nodes on one stack: every node passes, each named with its distribution", mixed(), PASS3,
        {"node-003": ["NCCL 2.21.5-1+cuda12.4", "CUDA runtime 12.4.127-1", "rdma-core 2404mlnx51-1.2404066",
                      "kernel 5.14.0-427.13.1.el9_4.x86_64", "on " + ROCKY_NAME],
         "node-001": ["kernel " + UBUNTU_KERNEL, "on Ubuntu 22.04.4 LTS"]}),
    row("Ubuntu and Rocky nodes held to one pin: the rpm and the deb of NCCL 2.21.5 both hold it", mixed(), PASS3,
        {"node-003": ["pinned: CUDA runtime 12.4, NCCL 2.21.5"]},
        expect={"pyramid_stack": {"nccl": "2.21.5", "cuda": "12.4"}}),
    row("the Rocky node off the NCCL pin is named", mixed(node_003=rocky(packages=(
        RPM[0], RPM[1].replace("libnccl\t2.21.5-1+cuda12.4", "libnccl\t2.19.3-1+cuda12.2")))),
        {"node-001": "PASS", "node-002": "PASS", "node-003": "FAIL"},
        {"node-003": ["NCCL 2.19.3-1+cuda12.2, pinned 2.21.5", "Not the pinned stack", ROCKY_NAME]},
        expect={"pyramid_stack": {"nccl": "2.21.5"}}),
    row("an Ubuntu node off the pin is named beside a Rocky node on it", {
        "facts": {"node-001": stack_node(nvidia_module=OTHER_DRIVER, os_release=dict(UBUNTU)),
                  "node-002": stack_node(os_release=dict(UBUNTU)), "node-003": rocky()[0]},
        "raw": {"node-003": rocky()[1]}},
        {"node-001": "FAIL", "node-002": "PASS", "node-003": "PASS"},
        {"node-001": ["GPU driver 535.183.01, pinned 550.90.07", "Ubuntu 22.04.4 LTS"]},
        expect={"pyramid_stack": {"driver": "550.90.07"}}),
    row("the Rocky node without libnccl (rpm says so) where the pod has it; rdma-core read, libibverbs not asked for",
        mixed(node_003=rocky(packages=RPM_NO_NCCL)), {"node-001": "PASS", "node-002": "PASS", "node-003": "FAIL"},
        {"node-003": ["NCCL not installed, the pod's 2.21.5-1+cuda12.4"]}),
    # rpm -qa prints nothing where no name matches, and an answer lost on the way is nothing too: no count proves none
    row("rpm -qa lists no CUDA runtime: not proven absent (its list has no count), an ERROR, never a FAIL",
        mixed(node_003=rocky(cuda=CUDA_RPM_NONE)), {"node-001": "PASS", "node-002": "PASS", "node-003": "ERROR"},
        {"node-003": ["not read: CUDA runtime (rpm -qa lists no cuda-cudart-[0-9]*"]}),
    # issue 68: a damaged read is an ERROR about the read. A broken rpm database prints its errors and then denies every
    # name: read as "not installed" it would FAIL the node on three packages it may well have
    row("a broken rpm database (its errors, then every name denied) is not read, never a FAIL",
        mixed(node_003=rocky(packages=RPM_BROKEN_DB)), {"node-001": "PASS", "node-002": "PASS", "node-003": "ERROR"},
        {"node-003": ["not read: CUDA runtime, NCCL, rdma-core", "unparseable", ROCKY_NAME]}),
    row("an rpm answer cut inside a line is not read, never a FAIL",
        mixed(node_003=rocky(packages=RPM_CUT)), {"node-001": "PASS", "node-002": "PASS", "node-003": "ERROR"},
        {"node-003": ["not read: CUDA runtime, NCCL, rdma-core"]}),
    row("rpm -qa's CUDA read refused (a usage error): the CUDA runtime not read, never absent",
        mixed(node_003=rocky(cuda=CUDA_RPM_USAGE)), {"node-001": "PASS", "node-002": "PASS", "node-003": "ERROR"},
        {"node-003": ["not read: CUDA runtime"]}),
    # the kernels of two distributions are two builds: held together only where the distribution is not known
    row("without /etc/os-release the kernels are compared across the pod: the Rocky kernel is the odd one",
        mixed(os_release=False), {"node-001": "PASS", "node-002": "PASS", "node-003": "FAIL"},
        {"node-003": ["kernel 5.14.0-427.13.1.el9_4.x86_64, the pod's 5.15.0-119-generic (2 nodes)"]}),
    row("a kernel pinned for the whole pod holds the Rocky node to it too (pin it per group instead)",
        mixed(), {"node-001": "PASS", "node-002": "PASS", "node-003": "FAIL"},
        {"node-003": ["kernel 5.14.0-427.13.1.el9_4.x86_64, pinned 5.15.0-119-generic"]},
        expect={"pyramid_stack": {"kernel": "5.15.0-119-generic"}}),
    # nccl_loaded (Layer 5): the NCCL a run loads held to the libnccl rpm installed, as to the libnccl2 deb
    {"check": "nccl_loaded", "name": "the Rocky node loads the NCCL its libnccl rpm installed",
     "facts": mixed()["facts"], "raw": dict({host: {"nccl_node": twin_run(host)} for host in ("node-001", "node-002")},
                                            **{"node-003": dict(mixed()["raw"]["node-003"], nccl_node=twin_run("node-003"))}),
     "status": PASS3, "contains": {"node-003": ["NCCL 2.21.5 loaded", "libnccl package installed (2.21.5-1+cuda12.4)"],
                                   "node-001": ["libnccl2 package installed (2.21.5-1+cuda12.4)"]}},
    {"check": "nccl_loaded", "name": "the Rocky node loads another NCCL than its libnccl rpm",
     "facts": mixed()["facts"], "raw": dict({host: {"nccl_node": twin_run(host)} for host in ("node-001", "node-002")},
                                            **{"node-003": dict(mixed()["raw"]["node-003"], nccl_node=twin_run("node-003", "2.23.4+cuda12.4"))}),
     "status": {"node-001": "PASS", "node-002": "PASS", "node-003": "FAIL"},
     "contains": {"node-003": ["NCCL 2.23.4 loaded, libnccl 2.21.5-1+cuda12.4 installed", "libnccl on an RPM host"]}},
]
