"""An SSH session at a lab router's address (127.3.x.y:2223), the ForceCommand of the lab's own sshd (lab/fabric.py).

The session's command runs inside the router's network namespace with the router's tools first on PATH (its
`vtysh`: FRR's real vtysh at this router's instance, lab/fabric.py), as on a Linux switch that runs FRR (SONiC,
Cumulus); a GPU node's session runs in the node's namespace with the host's own tools (ping, fping). Nothing is
simulated here: a command the device has no tool for fails as it would on the switch.
Run as root by sshd; stdlib only. Errors go to stderr with exit 255, as ssh itself fails.
"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
STATE = os.path.join(os.path.dirname(HERE), ".lab")
PREFIX = "pyrlab-"  # = fabric.PREFIX


def router_at(address, state=STATE):
    """The lab router or GPU node answering at ``address``, or None (no lab up, or nothing there)."""
    try:
        with open(os.path.join(state, "lab.json"), encoding="utf-8") as handle:
            topo = json.load(handle)
        devices = dict(topo["routers"], **topo.get("nodes", {}))
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return next((name for name, device in devices.items() if device.get("ssh") == address), None)


def main(address):
    name = router_at(address)
    if name is None:
        sys.stderr.write("pyramid lab: no lab router at %s (sudo lab/up)\n" % address)
        return 255
    command = os.environ.pop("SSH_ORIGINAL_COMMAND", None)
    os.environ.pop("PYRAMID_TWIN_SCENARIO", None)
    os.environ["PATH"] = os.path.join(STATE, name, "bin") + os.pathsep + os.environ.get("PATH", "/usr/sbin:/usr/bin:/sbin:/bin")
    shell = os.environ.get("SHELL") or "/bin/sh"
    argv = [shell, "-c", command] if command is not None else [shell, "-l"]  # `ip netns exec` runs argv[0] as a path
    os.execv("/usr/bin/ip" if os.path.exists("/usr/bin/ip") else "/sbin/ip",
             ["ip", "netns", "exec", PREFIX + name] + argv)
    return 255


if __name__ == "__main__":
    CONNECTION = os.environ.get("SSH_CONNECTION", "").split()  # client, its port, this server's address, its port
    sys.exit(main(CONNECTION[2]) if len(CONNECTION) == 4 else 255)
