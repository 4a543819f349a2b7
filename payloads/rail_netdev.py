"""Run one read-only command with a rail's network interface: ``python3 -c <this> RDMA_DEVICE ARGV...``.

Each ``{netdev}`` in ARGV becomes the netdev of RDMA_DEVICE's port 1, found as ibdev2netdev finds it: the
entries of /sys/class/infiniband/RDMA_DEVICE/device/net (the PCI function's network interfaces), and
among several the one whose dev_port is 0 (port 1). The command then replaces this process (exec), so
what comes back is the tool's own output, stderr and exit code. No netdev, or no single one, is exit 2
with the reason on stderr: never a guess.

The collect module runs commands as argv lists, never through a shell, and a catalog source cannot use
another's output; this is the one step between the RDMA device the inventory names and the tools
(mlnx_qos -i, ethtool -S, /sys/class/net/<if>/...) that only know the interface.
"""

import os
import sys


def _read(path):
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read().strip()
    except OSError:
        return None


def netdev_of(device):
    base = "/sys/class/infiniband/%s/device/net" % device
    try:
        names = sorted(os.listdir(base))
    except OSError as exc:
        raise LookupError("%s: no network interface listed (%s): not an Ethernet (RoCE) port?" % (base, exc.strerror)) from exc
    if len(names) == 1:
        return names[0]
    port1 = [name for name in names if _read(os.path.join(base, name, "dev_port")) == "0"]
    if len(port1) == 1:
        return port1[0]
    raise LookupError("%s lists %s: cannot tell which is port 1's" % (base, ", ".join(names) or "nothing"))


def main(argv):
    if len(argv) < 3:
        sys.stderr.write("usage: rail_netdev RDMA_DEVICE COMMAND [ARG...] ({netdev} in an ARG is the device's netdev)\n")
        return 2
    try:
        netdev = netdev_of(argv[1])
    except LookupError as exc:
        sys.stderr.write("rail_netdev: %s\n" % exc)
        return 2
    command = [arg.replace("{netdev}", netdev) for arg in argv[2:]]
    try:
        os.execvp(command[0], command)
    except OSError as exc:
        sys.stderr.write("rail_netdev: %s: %s\n" % (command[0], exc.strerror))
        return 127
    return 0  # not reached: exec replaced this process


if __name__ == "__main__":
    sys.exit(main(sys.argv))
