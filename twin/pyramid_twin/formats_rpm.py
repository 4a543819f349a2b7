"""A RHEL-family twin node (issue 67): its /etc/os-release, and `rpm` answering the queries the pyramid makes.

A node of the fault kind `distro` (rhel) runs Rocky Linux 9.4 with NVIDIA's and DOCA's RPM packages: the same stack
as the Ubuntu nodes under the RPM repositories' names (libnccl, libibverbs; cuda-cudart-12-4 and rdma-core keep
theirs), its kernel the Rocky build, no dpkg-query. rpm prints what rpm 4.18 prints for these argv
(tests/unit/parsers/linux_rpm_query, linux_rpm_query_all: real captures): a line per installed package of each name,
"package <name> is not installed" on stdout and one more to the exit code per name it lacks; with -qa, the packages a
pattern matches and nothing (exit 0) where none does. Standard library only.
"""

# The os-release(5) files a node shows: Ubuntu 22.04.4 as the twin's DGX-OS-like nodes run it (kernel 5.15.0-119-generic),
# and a real Rocky Linux 9.4 host's (tests/unit/parsers/linux_etc_os_release/rocky_9_4_real)
OS_RELEASE = {
    "ubuntu": ('PRETTY_NAME="Ubuntu 22.04.4 LTS"\nNAME="Ubuntu"\nVERSION_ID="22.04"\nVERSION="22.04.4 LTS (Jammy Jellyfish)"\n'
               'VERSION_CODENAME=jammy\nID=ubuntu\nID_LIKE=debian\nHOME_URL="https://www.ubuntu.com/"\n'
               'SUPPORT_URL="https://help.ubuntu.com/"\nBUG_REPORT_URL="https://bugs.launchpad.net/ubuntu/"\n'
               'PRIVACY_POLICY_URL="https://www.ubuntu.com/legal/terms-and-policies/privacy-policy"\nUBUNTU_CODENAME=jammy\n'),
    "rhel": ('NAME="Rocky Linux"\nVERSION="9.4 (Blue Onyx)"\nID="rocky"\nID_LIKE="rhel centos fedora"\nVERSION_ID="9.4"\n'
             'PLATFORM_ID="platform:el9"\nPRETTY_NAME="Rocky Linux 9.4 (Blue Onyx)"\nANSI_COLOR="0;32"\nLOGO="fedora-logo-icon"\n'
             'CPE_NAME="cpe:/o:rocky:rocky:9::baseos"\nHOME_URL="https://rockylinux.org/"\n'
             'BUG_REPORT_URL="https://bugs.rockylinux.org/"\nSUPPORT_END="2032-05-31"\nROCKY_SUPPORT_PRODUCT="Rocky-Linux-9"\n'
             'ROCKY_SUPPORT_PRODUCT_VERSION="9.4"\nREDHAT_SUPPORT_PRODUCT="Rocky Linux"\nREDHAT_SUPPORT_PRODUCT_VERSION="9.4"\n'),
}
# Rocky 9.4's kernel (uname -r of the same real host)
RHEL_KERNEL = "5.14.0-427.13.1.el9_4.x86_64"
# the Debian package names the twin's stack uses -> the RPM repositories' names for the same packages
RPM_NAMES = {"libnccl2": "libnccl", "libibverbs1": "libibverbs"}
# The one --queryformat the pyramid asks for (catalog/host.yml stack_packages, cuda_runtime_rpm), as the argv carries it
RPM_FORMAT = "%{NAME}\\t%{VERSION}-%{RELEASE}\\n"


def os_release(state):
    return OS_RELEASE[state.get("distro", "ubuntu")]


def rhel(state):
    """Make a node's state a Rocky 9.4 node's: its kernel, rpm and no dpkg-query."""
    state["distro"] = "rhel"
    state["kernel_release"] = RHEL_KERNEL
    state["cmdline"] = state["cmdline"].replace("5.15.0-119-generic", RHEL_KERNEL)
    state["tools"]["missing"].append("dpkg-query")  # the packages stay in state by their Debian names: rpm renames them


def rpm(state, args, env):  # pylint: disable=unused-argument
    """rpm -q --queryformat <fmt> <name>... and rpm -qa --queryformat <fmt> <pattern>..."""
    if len(args) < 4 or args[0] not in ("-q", "-qa") or args[1:3] != ["--queryformat", RPM_FORMAT]:
        return 2, "", "pyramid twin: `%s` is not simulated\n" % " ".join(["rpm"] + args)
    # here alone, so that every other tool run stays as quick
    import fnmatch  # pylint: disable=import-outside-toplevel
    # the node's packages under the RPM repositories' names (a stack fault sets them by their Debian names)
    installed = {RPM_NAMES.get(name, name): version for name, version in state["stack"]["packages"].items()}
    if args[0] == "-qa":  # the patterns OR'ed on the name (lib/rpmdb.c mireSkip), the database's order
        names = [name for name in sorted(installed) if any(fnmatch.fnmatchcase(name, p) for p in args[3:])]
        return 0, "".join("%s\t%s\n" % (name, installed[name]) for name in names), ""
    out, missing = [], 0
    for name in args[3:]:  # rpm -q looks each name up exactly, in the order given
        if name in installed:
            out.append("%s\t%s\n" % (name, installed[name]))
        else:
            out.append("package %s is not installed\n" % name)
            missing += 1
    return min(missing, 255), "".join(out), ""
