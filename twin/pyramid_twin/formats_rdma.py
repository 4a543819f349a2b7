"""A twin node's inbox RDMA view (issue 67): iproute2's `rdma link` (and `rdma -j link show`), and the sysfs files ibstat
reads a rail's rate, port GUID, node GUID and firmware from (/sys/class/infiniband/<dev>/ports/1/rate, ports/1/gids/0,
node_guid, fw_ver), so that a node without infiniband-diags (the fault kind inbox_rdma: rdma-core and iproute2 only, no
ibstat) shows its rails as a real one does. Formats: the real captures of tests/unit/parsers/linux_rdma_link (iproute2's
rdma/link.c, whose JSON form tests/unit/parsers/linux_rdma_link_json follows), linux_sysfs_ib_rate, linux_sysfs_ib_gid
and linux_sysfs_fw_ver (the kernel's drivers/infiniband/core/sysfs.c). Standard library only."""

import json

# ibstat's words (the twin's state) -> the names iproute2 prints (rdma/link.c link_state_to_str, phys_state_to_str: its
# table names PortConfigurationTraining "ARMED" and LinkErrorRecovery "LINK_ERROR_RECOVER")
RDMA_STATE = {"Active": "ACTIVE", "Down": "DOWN", "Initializing": "INIT", "Armed": "ARMED"}
RDMA_PHYS = {"LinkUp": "LINK_UP", "Polling": "POLLING", "Disabled": "DISABLED", "Sleep": "SLEEP",
             "PortConfigurationTraining": "ARMED", "LinkErrorRecovery": "LINK_ERROR_RECOVER"}
# rdma(8): OPTIONS := { -V[ersion] | -d[etails] | -j[son] | -p[retty] | -r[aw] | -o[neline] | -f[orce] | -b[atch] }
RDMA_OPTIONS = {"-j": "json", "--json": "json", "-d": "details", "--details": "details", "-p": "pretty",
                "--pretty": "pretty", "-r": "raw", "--raw": "raw", "-o": "oneline", "--oneline": "oneline"}
RDMA_OBJECTS = ("help", "dev", "link", "resource", "system", "statistic", "monitor")
RDMA_USAGE = ("Usage: rdma [ OPTIONS ] OBJECT { COMMAND | help }\n"
              "       rdma [ -f[orce] ] -b[atch] filename\n"
              "where  OBJECT := { dev | link | resource | monitor | system | statistic | help }\n"
              "       OPTIONS := { -V[ersion] | -d[etails] | -j[son] | -p[retty] | -r[aw]}\n")
# a rail's rate -> the kernel's rate line (4 lanes, the lane speed's name), as ConnectX ports report them
RATE_LINE = {800: "800 Gb/sec (4X XDR)", 400: "400 Gb/sec (4X NDR)", 200: "200 Gb/sec (4X HDR)", 100: "100 Gb/sec (4X EDR)",
             50: "50 Gb/sec (2X EDR)", 25: "25 Gb/sec (1X EDR)"}


def inbox(state):
    """The fault kind inbox_rdma: the distribution's RDMA stack (rdma-core, iproute2), no infiniband-diags."""
    state["tools"]["missing"].append("ibstat")
    state["inbox_rdma"] = True


def _ports(state):
    """Each rail's port as rdma/link.c prints it: [(key, value)] in its order (ifindex, ifname, port, an InfiniBand
    port's subnet prefix and LIDs, state, physical_state, a RoCE port's netdev and netdev_index)."""
    ports = []
    for index, rail in enumerate(state["rails"]):
        port = [("ifindex", index), ("ifname", rail["device"]), ("port", 1)]
        if rail["link_layer"] == "InfiniBand":
            active = rail["state"] == "Active"
            port += [("subnet_prefix", "fe80:0000:0000:0000"),
                     ("lid", state.get("index", 1) * 16 + index + 1 if active else 65535),
                     ("sm_lid", rail.get("sm_lid", (state.get("ib_sm") or {}).get("lid", 1)) if active else 0), ("lmc", 0)]
        port += [("state", RDMA_STATE.get(rail["state"], "DOWN")),
                 ("physical_state", RDMA_PHYS.get(rail["phys_state"], "POLLING"))]
        if rail["link_layer"] != "InfiniBand":
            port += [("netdev", rail["netdev"]), ("netdev_index", 2 + index)]
        ports.append(port)
    return ports


def rdma_link(state):
    """`rdma link`: a line per rail port, each key and value but ifindex and netdev_index (JSON only, and -d) and the
    trailing space iproute2 leaves after each (roce_active_ib_disabled_real)."""
    lines = []
    for port in _ports(state):
        said = dict(port)
        words = ["link %s/%d" % (said["ifname"], said["port"])]
        words += ["%s %s" % (key, value) for key, value in port if key not in ("ifindex", "ifname", "port", "netdev_index")]
        line = " ".join(words)
        lines.append(line + (" \n" if "netdev" in said else "\n"))
    return "".join(lines)


def rdma_link_json(state):
    """`rdma -j link show`: one compact JSON array of the same ports (iproute2's json_writer: no spaces, one newline)."""
    return json.dumps([dict(port) for port in _ports(state)], separators=(",", ":")) + "\n"


def rdma(state, args, env):  # pylint: disable=unused-argument
    """iproute2's rdma: `link`, `link show`, `link list` in either form (options anywhere, as getopt_long takes them);
    an option it does not know, the usage and exit 1; an object or a link command it does not know, "Unknown ..." and
    exit 0 (rd_exec_cmd returns 0 there); what else it would do (another object, a device/port given): not simulated."""
    options = [arg for arg in args if arg.startswith("-")]
    words = [arg for arg in args if not arg.startswith("-")]
    unknown = [arg for arg in options if arg not in RDMA_OPTIONS]
    if unknown:
        return 1, "", "Unknown option.\n" + RDMA_USAGE
    if not words or words[0] not in RDMA_OBJECTS:
        return (0, "", "Unknown object '%s'.\n" % words[0]) if words else (0, RDMA_USAGE, "")
    if words[0] != "link" or len(words) > 2 or {RDMA_OPTIONS[arg] for arg in options} - {"json"}:
        return 2, "", "pyramid twin: `%s` is not simulated\n" % " ".join(["rdma"] + args)
    if len(words) == 2 and words[1] not in ("show", "list"):
        return 0, "", "Unknown link command '%s'.\n" % words[1]
    return 0, rdma_link_json(state) if options else rdma_link(state), ""


def sys_files(state):
    """{path: text} of each rail's ports/1/rate and fw_ver, inside the node's /sys/class/infiniband."""
    files = {}
    for rail in state["rails"]:
        base = "/sys/class/infiniband/%s/" % rail["device"]
        files[base + "ports/1/rate"] = RATE_LINE.get(rail["rate"], "%d Gb/sec (4X)" % rail["rate"]) + "\n"
        files[base + "fw_ver"] = rail["firmware"] + "\n"
        # show_port_gid's "%pI6" (GID 0: the subnet prefix, then the port GUID) and node_guid_show's "%04x:%04x:%04x:%04x"
        guid, node = int(rail["port_guid"], 16), int(rail["node_guid"], 16)
        files[base + "ports/1/gids/0"] = "fe80:0000:0000:0000:" + _groups(guid) + "\n"
        files[base + "node_guid"] = _groups(node) + "\n"
    return files


def _groups(guid):
    """A 64-bit GUID as four groups of four hex digits."""
    text = "%016x" % guid
    return ":".join(text[at:at + 4] for at in range(0, 16, 4))
