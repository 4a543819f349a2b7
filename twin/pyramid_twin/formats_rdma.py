"""A twin node's inbox RDMA view (issue 67): iproute2's `rdma link`, and the sysfs files ibstat reads a rail's rate and
firmware from (/sys/class/infiniband/<dev>/ports/1/rate, fw_ver), so that a node without infiniband-diags (the fault kind
inbox_rdma: rdma-core and iproute2 only, no ibstat) shows its rails as a real one does. Formats: the real captures of
tests/unit/parsers/linux_rdma_link (iproute2's rdma/link.c), linux_sysfs_ib_rate and linux_sysfs_fw_ver (the kernel's
drivers/infiniband/core/sysfs.c). Standard library only."""

# ibstat's words (the twin's state) -> the kernel's enum names iproute2 prints (include/rdma/ib_verbs.h, rdma/link.c)
RDMA_STATE = {"Active": "ACTIVE", "Down": "DOWN", "Initializing": "INIT", "Armed": "ARMED"}
RDMA_PHYS = {"LinkUp": "LINK_UP", "Polling": "POLLING", "Disabled": "DISABLED", "Sleep": "SLEEP",
             "PortConfigurationTraining": "PORT_CONFIGURATION_TRAINING", "LinkErrorRecovery": "LINK_ERROR_RECOVERY"}
# a rail's rate -> the kernel's rate line (4 lanes, the lane speed's name), as ConnectX ports report them
RATE_LINE = {800: "800 Gb/sec (4X XDR)", 400: "400 Gb/sec (4X NDR)", 200: "200 Gb/sec (4X HDR)", 100: "100 Gb/sec (4X EDR)",
             50: "50 Gb/sec (2X EDR)", 25: "25 Gb/sec (1X EDR)"}


def inbox(state):
    """The fault kind inbox_rdma: the distribution's RDMA stack (rdma-core, iproute2), no infiniband-diags."""
    state["tools"]["missing"].append("ibstat")
    state["inbox_rdma"] = True


def rdma_link(state):
    """`rdma link`: a line per rail port; an InfiniBand port with its subnet prefix and LIDs, a RoCE one with its netdev
    (and the trailing space iproute2 leaves after it: roce_active_ib_disabled_real)."""
    lines = []
    for index, rail in enumerate(state["rails"]):
        where = "link %s/1 " % rail["device"]
        said = "state %s physical_state %s" % (RDMA_STATE.get(rail["state"], "DOWN"), RDMA_PHYS.get(rail["phys_state"], "POLLING"))
        if rail["link_layer"] == "InfiniBand":
            active = rail["state"] == "Active"
            lid = state.get("index", 1) * 16 + index + 1 if active else 65535
            sm_lid = rail.get("sm_lid", (state.get("ib_sm") or {}).get("lid", 1)) if active else 0
            lines.append(where + "subnet_prefix fe80:0000:0000:0000 lid %d sm_lid %d lmc 0 %s\n" % (lid, sm_lid, said))
        else:
            lines.append(where + "%s netdev %s \n" % (said, rail["netdev"]))
    return "".join(lines)


def rdma(state, args, env):  # pylint: disable=unused-argument
    if args not in (["link"], ["link", "show"]):
        return 2, "", "pyramid twin: `%s` is not simulated\n" % " ".join(["rdma"] + args)
    return 0, rdma_link(state), ""


def sys_files(state):
    """{path: text} of each rail's ports/1/rate and fw_ver, inside the node's /sys/class/infiniband."""
    files = {}
    for rail in state["rails"]:
        base = "/sys/class/infiniband/%s/" % rail["device"]
        files[base + "ports/1/rate"] = RATE_LINE.get(rail["rate"], "%d Gb/sec (4X)" % rail["rate"]) + "\n"
        files[base + "fw_ver"] = rail["firmware"] + "\n"
    return files
