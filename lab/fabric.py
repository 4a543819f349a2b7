"""The lab: a real leaf-spine fabric of FRR routers (zebra and bgpd) in network namespaces (issue 35).

    sudo lab/up [--spines N] [--leaves N] [--nodes N]   build it (a lab already up is taken down first)
    sudo lab/fault KIND DEVICE [OTHER]      change it: see FAULTS (`lab/up` again for a healthy fabric)
    sudo lab/down                           remove every namespace and FRR process it made, and nothing else
    lab/vtysh ROUTER -c COMMAND             ask one router (vtysh -N pyrlab-ROUTER)

Every router is a namespace `pyrlab-<name>` with its own FRR instance (`-N pyrlab-<name>`: its sockets and pid
files and its configuration under /var/run/frr/pyrlab-<name>/, where FRR's own user reaches them
wherever the checkout is). Leaf i (AS 65100 + i) holds its rail
prefix 10.5<i-1>.0.0/24 on its loopback and announces it to every spine (AS 65000) over a veth pair, leaf port
swp5<j> to spine j's swp<i>, with route-maps in and out (FRR's eBGP-requires-policy holds). All packets stay inside
these namespaces: no interface of the host is touched.

GPU nodes (`--nodes N`, 0 for none) are namespaces `pyrlab-node<n>` with one rail per leaf: node n's port `eth<r>`
holds the rail plan's address 10.5<r>.0.<n>/24 (pyramid_rail_address_plan's default) and is cabled to leaf r+1's port
`swp<n>`, a port of that leaf's bridge `rail`, which then holds the leaf's rail subnet (.254) instead of its loopback:
the leaf switches its rail at layer 2, as a rail-optimized fabric does, so the ping mesh between two nodes' rail r
crosses leaf r+1 and nothing else. The nodes run the host's real `ping` and
`fping`; a rail can be taken down or given loss and latency with `tc netem` (FAULTS).

What FRR prints here is real: `lab/capture.py` keeps it as the parsers' fixtures (tests/unit/parsers/frr_*/lab_*).
Each router is also a switch to log in to over real SSH: the lab's own sshd listens at 127.3.1.i:2223 for leaf i and
127.3.2.j:2223 for spine j (lab/session.py puts the session in the router's namespace); `lab/inventory.py` writes
the inventory validate.yml reads them with.
"""

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import time

PREFIX = "pyrlab-"
HERE = os.path.dirname(os.path.abspath(__file__))
STATE = os.path.join(os.path.dirname(HERE), ".lab")
RUN = "/var/run/frr"
FRR = "/usr/lib/frr"
SPINE_ASN = 65000
DAEMONS = ("zebra", "bgpd")
SSH_PORT = 2223  # not the twin's 2222: its sshd listens on every address of that port


class LabError(Exception):
    pass


def leaf_asn(leaf):
    return 65100 + leaf


def rail_prefix(leaf):
    return "10.5%d.0.0/24" % (leaf - 1)


def rail_address(rail, node):
    """Node n's address on rail r (0-based): the rail plan's default 10.5{rail}.{node_hi}.{node_lo}, n < 256."""
    return "10.5%d.0.%d" % (rail, node)


def link_addresses(leaf, spine):
    """(spine side, leaf side) of the /31 between leaf i and spine j."""
    return "10.254.%d.%d" % (leaf, 2 * (spine - 1)), "10.254.%d.%d" % (leaf, 2 * (spine - 1) + 1)


def ssh_address(role, number):
    """Where the lab's sshd hands a session to this device (lab/session.py): 127.3.1.i leaf i, 127.3.2.j spine j,
    127.3.3.n node n."""
    return "127.3.%d.%d" % ({"leaf": 1, "spine": 2, "node": 3}[role], number)


MAX_NODES = 49  # a node's leaf port is swp<n>: swp5<j> faces spine j, so n stays below 50


def topology(spines, leaves, nodes=0):
    routers = {}
    for spine in range(1, spines + 1):
        neighbors = [{"address": link_addresses(leaf, spine)[1], "asn": leaf_asn(leaf), "name": "leaf%d" % leaf,
                      "port": "swp%d" % leaf} for leaf in range(1, leaves + 1)]
        routers["spine%d" % spine] = {"role": "spine", "asn": SPINE_ASN, "router_id": "10.253.0.%d" % spine,
                                      "ssh": ssh_address("spine", spine), "neighbors": neighbors}
    for leaf in range(1, leaves + 1):
        routers["leaf%d" % leaf] = {"role": "leaf", "asn": leaf_asn(leaf), "router_id": "10.253.1.%d" % leaf,
                                    "ssh": ssh_address("leaf", leaf), "prefix": rail_prefix(leaf), "neighbors": [
            {"address": link_addresses(leaf, spine)[0], "asn": SPINE_ASN, "name": "spine%d" % spine, "port": "swp5%d" % spine}
            for spine in range(1, spines + 1)]}
    hosts = {}
    for node in range(1, nodes + 1):
        hosts["node%d" % node] = {"role": "node", "ssh": ssh_address("node", node), "rails": [
            {"rail": rail, "port": "eth%d" % rail, "address": rail_address(rail, node), "leaf": "leaf%d" % (rail + 1),
             "leaf_port": "swp%d" % node} for rail in range(leaves)]}
    return {"spines": spines, "leaves": leaves, "routers": routers, "nodes": hosts}


def frr_conf(name, router):
    lines = ["frr defaults datacenter", "hostname %s" % name, "log syslog warnings", "!",
             "route-map ALLOW permit 10", "!", "route-map DENY deny 10", "!"]
    if router["role"] == "leaf":
        lines += ["ip prefix-list RAIL seq 5 permit %s" % router["prefix"], "!",
                  "route-map RAIL permit 10", " match ip address prefix-list RAIL", "!"]
    lines += ["router bgp %d" % router["asn"], " bgp router-id %s" % router["router_id"], " bgp bestpath as-path multipath-relax",
              # FRR's datacenter profile leaves RFC 8212 off; a fabric built to it keeps it on
              " bgp ebgp-requires-policy"]
    for neighbor in router["neighbors"]:
        lines += [" neighbor %s remote-as %d" % (neighbor["address"], neighbor["asn"]),
                  " neighbor %s description %s" % (neighbor["address"], neighbor["name"])]
    lines += [" !", " address-family ipv4 unicast"]
    if router["role"] == "leaf":
        lines.append("  redistribute connected route-map RAIL")
    for neighbor in router["neighbors"]:
        lines += ["  neighbor %s route-map ALLOW in" % neighbor["address"], "  neighbor %s route-map ALLOW out" % neighbor["address"]]
    lines += [" exit-address-family", "!"]
    return "\n".join(lines) + "\n"


def sh(*argv, check=True, cwd=None):
    result = subprocess.run(argv, capture_output=True, text=True, check=False, cwd=cwd)
    if check and result.returncode:
        raise LabError("%s: %s" % (" ".join(argv), (result.stderr or result.stdout).strip()))
    return result


def namespaces():
    listed = sh("ip", "netns", "list").stdout.split("\n")
    return sorted(line.split()[0] for line in listed if line.startswith(PREFIX))


def down():
    """Stop the lab's sshd and every process inside the lab's namespaces, delete those namespaces (their veths go with
    them), the FRR run directories (each router's configuration with them) and .lab/; nothing else. Reads nothing the
    lab wrote: works after an interrupted or half-made up."""
    inside = {namespace: _pids(namespace) for namespace in namespaces()}
    inside[None] = _sshd_pids()  # the lab's sshd (found by its config's path: the pid file may be gone)
    for pids in inside.values():
        _signal(pids, signal.SIGTERM)
    deadline = time.time() + 5
    while time.time() < deadline and any(_alive(pid) for pids in inside.values() for pid in pids):
        time.sleep(0.1)
    for pids in inside.values():
        _signal([pid for pid in pids if _alive(pid)], signal.SIGKILL)
    failed = []
    for namespace in [namespace for namespace in inside if namespace]:
        deleted = sh("ip", "netns", "del", namespace, check=False)
        if deleted.returncode:
            failed.append("%s: %s" % (namespace, deleted.stderr.strip()))
    for pathspace in sorted(os.listdir(RUN)) if os.path.isdir(RUN) else []:
        if pathspace.startswith(PREFIX):
            shutil.rmtree(os.path.join(RUN, pathspace), ignore_errors=True)
    shutil.rmtree(STATE, ignore_errors=True)
    if failed:
        raise LabError("could not delete %s" % "; ".join(failed))


def _sshd_pids():
    config = os.path.join(STATE, "sshd_config")
    found = []
    for entry in os.listdir("/proc"):
        try:
            with open(os.path.join("/proc", entry, "cmdline"), "rb") as handle:
                line = handle.read().replace(b"\0", b" ")
        except OSError:
            continue
        # "sshd: /usr/sbin/sshd -f <config> ... [listener]": sshd rewrites its own command line
        if entry.isdigit() and b"sshd" in line and b" -f " + config.encode() + b" " in line + b" ":
            found.append(int(entry))
    return found


def _pids(namespace):
    """The processes inside a namespace (the FRR daemons the lab started there), as the kernel says."""
    listed = sh("ip", "netns", "pids", namespace, check=False).stdout.split()
    return [int(pid) for pid in listed if pid.isdigit()]


def _signal(pids, number):
    for pid in pids:
        try:
            os.kill(pid, number)
        except OSError:
            pass


def _alive(pid):
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    return True


def up(spines, leaves, nodes=0):
    if not os.path.exists(os.path.join(FRR, "bgpd")):
        raise LabError("FRR is not installed (%s/bgpd): apt-get install frr" % FRR)
    if not 0 <= nodes <= MAX_NODES:
        raise LabError("--nodes %d: from 0 to %d" % (nodes, MAX_NODES))
    down()
    try:
        return _build(spines, leaves, nodes)
    except BaseException:  # half a lab is no lab: remove what was made, then say why
        down()
        raise


def _build(spines, leaves, nodes):
    topo = topology(spines, leaves, nodes)
    os.makedirs(STATE)
    for name, router in topo["routers"].items():
        namespace = PREFIX + name
        sh("ip", "netns", "add", namespace)
        sh("ip", "-n", namespace, "link", "set", "lo", "up")
        if router["role"] == "leaf":  # the rail's subnet, at .254 (the nodes hold .1 up: rail_address)
            sh("ip", "-n", namespace, "addr", "add", router["prefix"].replace(".0/24", ".254/24"), "dev", _rail_interface(topo, namespace))
    for leaf in range(1, leaves + 1):
        for spine in range(1, spines + 1):
            spine_side, leaf_side = link_addresses(leaf, spine)
            leaf_ns, spine_ns = PREFIX + "leaf%d" % leaf, PREFIX + "spine%d" % spine
            sh("ip", "link", "add", "swp5%d" % spine, "netns", leaf_ns, "type", "veth", "peer", "name", "swp%d" % leaf, "netns", spine_ns)
            sh("ip", "-n", leaf_ns, "addr", "add", leaf_side + "/31", "dev", "swp5%d" % spine)
            sh("ip", "-n", spine_ns, "addr", "add", spine_side + "/31", "dev", "swp%d" % leaf)
            sh("ip", "-n", leaf_ns, "link", "set", "swp5%d" % spine, "up")
            sh("ip", "-n", spine_ns, "link", "set", "swp%d" % leaf, "up")
    _nodes(topo)
    for name, router in topo["routers"].items():
        _start(name, router)
        _tools(name)
    with open(os.path.join(STATE, "lab.json"), "w", encoding="utf-8") as handle:
        json.dump(topo, handle, indent=1)
    _sshd(topo)
    converged(topo)
    return topo


def _rail_interface(topo, namespace):
    """Where a leaf holds its rail's subnet: its bridge `rail` where the lab has GPU nodes (their ports are the bridge's),
    else its loopback (this kernel may have no dummy interfaces). Never lo with nodes: a subnet on lo is local whole, so
    the leaf would answer every node address's ARP and swallow the nodes' pings to each other."""
    if not topo["nodes"]:
        return "lo"
    sh("ip", "-n", namespace, "link", "add", "rail", "type", "bridge")
    sh("ip", "-n", namespace, "link", "set", "rail", "up")
    return "rail"


def _nodes(topo):
    """Each GPU node's namespace and rails: eth<r> (its rail address) cabled to leaf r+1's swp<n>, a port of the
    leaf's bridge `rail` (_rail_interface)."""
    for name, node in topo["nodes"].items():
        namespace = PREFIX + name
        sh("ip", "netns", "add", namespace)
        sh("ip", "-n", namespace, "link", "set", "lo", "up")
        for rail in node["rails"]:
            leaf_ns = PREFIX + rail["leaf"]
            sh("ip", "link", "add", rail["port"], "netns", namespace, "type", "veth", "peer", "name", rail["leaf_port"], "netns", leaf_ns)
            sh("ip", "-n", leaf_ns, "link", "set", rail["leaf_port"], "master", "rail")
            sh("ip", "-n", leaf_ns, "link", "set", rail["leaf_port"], "up")
            sh("ip", "-n", namespace, "addr", "add", rail["address"] + "/24", "dev", rail["port"])
            sh("ip", "-n", namespace, "link", "set", rail["port"], "up")


def _start(name, router):
    """zebra and bgpd drop to the `frr` user once started, so whatever they read or write lives in the instance's own
    run directory, which FRR's user reaches wherever the checkout is: a checkout under a directory of mode 700 (root's
    home, `mktemp -d`) is out of that user's reach, and a configuration there left every session down (issue 73)."""
    pathspace = PREFIX + name
    run_dir = os.path.join(RUN, pathspace)
    os.makedirs(run_dir, mode=0o755, exist_ok=True)
    conf = os.path.join(run_dir, "frr.conf")
    with open(conf, "w", encoding="utf-8") as handle:
        handle.write(frr_conf(name, router))
    for path in (run_dir, conf):
        shutil.chown(path, "frr", "frr")
    unreachable = _unreachable_by("frr", conf)
    if unreachable:
        raise LabError("FRR's user cannot read %s (%s): zebra and bgpd would start with no configuration" % (conf, unreachable))
    for daemon in DAEMONS:
        sh("ip", "netns", "exec", pathspace, os.path.join(FRR, daemon), "-d", "-N", pathspace, "-f", conf,
           "-i", os.path.join(run_dir, "%s.pid" % daemon), cwd=run_dir)  # not the checkout's directory either


def _unreachable_by(user, path):
    """Why `user` cannot read `path` (the first directory above it they cannot enter, or the file itself), or None:
    asked of the kernel as that user, so a mode, an owner or an ACL all count as they will for the daemon."""
    if not subprocess.run(["test", "-r", path], user=user, check=False).returncode:
        return None
    above = path
    while above != os.path.dirname(above):
        above = os.path.dirname(above)
        entered = subprocess.run(["test", "-x", above], user=user, check=False)
        if entered.returncode:
            return "%s cannot enter %s" % (user, above)
    return "%s cannot read it" % user


def _tools(name):
    """The router's own `vtysh` for an SSH session (lab/session.py puts this folder first on PATH): FRR's real vtysh,
    at this router's instance."""
    folder = os.path.join(STATE, name, "bin")
    os.makedirs(folder, exist_ok=True)
    stub = os.path.join(folder, "vtysh")
    with open(stub, "w", encoding="utf-8") as handle:
        handle.write('#!/bin/sh\nexec /usr/bin/vtysh -N %s "$@"\n' % (PREFIX + name))
    os.chmod(stub, 0o755)


def _sshd(topo):
    """The lab's own sshd: one address per router (ssh_address), root by key only, each session handed to
    lab/session.py. Its keys live in .lab/ and go with it."""
    for key in ("id_ed25519", "ssh_host_ed25519_key"):
        sh("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "pyramid-lab", "-f", os.path.join(STATE, key))
    shutil.copyfile(os.path.join(STATE, "id_ed25519.pub"), os.path.join(STATE, "authorized_keys"))
    entry = os.path.join(STATE, "ssh_entry")
    with open(entry, "w", encoding="utf-8") as handle:
        handle.write('#!/bin/sh\nexec %s -I -S %s\n' % (sys.executable, os.path.join(HERE, "session.py")))
    os.chmod(entry, 0o755)
    devices = list(topo["routers"].values()) + list(topo["nodes"].values())
    lines = ["ListenAddress %s:%d" % (device["ssh"], SSH_PORT) for device in devices]
    lines += ["HostKey %s/ssh_host_ed25519_key" % STATE, "PidFile %s/sshd.pid" % STATE,
              "AuthorizedKeysFile %s/authorized_keys" % STATE, "AllowUsers root@127.0.0.0/8",
              "PermitRootLogin prohibit-password", "PubkeyAuthentication yes", "PasswordAuthentication no",
              "KbdInteractiveAuthentication no", "UsePAM no", "StrictModes no", "ForceCommand " + entry,
              "Subsystem sftp /usr/lib/openssh/sftp-server", "MaxStartups 64", "UseDNS no", "PrintMotd no",
              "PrintLastLog no", "DisableForwarding yes", "LogLevel ERROR"]
    config = os.path.join(STATE, "sshd_config")
    with open(config, "w", encoding="utf-8") as handle:
        handle.write("# Written by lab/fabric.py: the lab's routers over SSH.\n" + "\n".join(lines) + "\n")
    os.makedirs("/run/sshd", exist_ok=True)  # sshd's privilege separation directory
    sh(shutil.which("sshd") or "/usr/sbin/sshd", "-f", config, "-E", os.path.join(STATE, "sshd.log"))


def vtysh(name, *commands):
    argv = ["vtysh", "-N", PREFIX + name]
    for command in commands:
        argv += ["-c", command]
    return sh(*argv, check=False)


def load():
    try:
        with open(os.path.join(STATE, "lab.json"), encoding="utf-8") as handle:
            return json.load(handle)
    except OSError as exc:
        raise LabError("no lab is up (%s): sudo lab/up" % exc.strerror) from exc


def sessions(name):
    """{neighbor address: state} as the router's own JSON says."""
    answer = vtysh(name, "show bgp ipv4 unicast summary json")
    peers = json.loads(answer.stdout or "{}").get("peers", {})
    return {address: peer.get("state") for address, peer in peers.items()}


def converged(topo, timeout=60, settle=3):
    """Wait until every session of the healthy fabric is Established and every leaf has every rail prefix."""
    deadline = time.time() + timeout
    while True:
        waiting = [name for name, router in topo["routers"].items()
                   if set(sessions(name).values()) != {"Established"} or len(sessions(name)) != len(router["neighbors"])]
        if not waiting:
            for name, router in topo["routers"].items():
                if router["role"] == "leaf":
                    routes = json.loads(vtysh(name, "show ip route bgp json").stdout or "{}")
                    if len(routes) < topo["leaves"] - 1:
                        waiting.append(name)
        if not waiting:
            time.sleep(settle)
            return
        if time.time() > deadline:
            raise LabError("not converged after %d s: %s" % (timeout, ", ".join(waiting)))
        time.sleep(0.5)


def _router_bgp(topo, name, *lines):
    """Configure lines under `router bgp` of one router (vtysh, as an operator would)."""
    router = topo["routers"][name]
    commands = ["configure terminal", "router bgp %d" % router["asn"]] + list(lines)
    answer = vtysh(name, *commands)
    if answer.returncode or answer.stdout.strip():
        raise LabError("%s: %s" % (name, (answer.stdout + answer.stderr).strip()))


def _neighbor(topo, name, other):
    return next(n for n in topo["routers"][name]["neighbors"] if n["name"] == other)


FAULTS = {
    "session_shut": "the leaf shuts its session to one spine (neighbor shutdown)",
    "maximum_paths": "the leaf installs one path per prefix (maximum-paths 1)",
    "wrong_remote_as": "the leaf expects another AS of one spine (remote-as 65999): the session never comes up",
    "wrong_remote_as_both": "the leaf and that spine each expect another AS of the other",
    "no_policy": "the leaf's sessions lose their route-maps: eBGP requires a policy, so nothing is sent or accepted",
    "isolated": "every link of the leaf is down",
    "deny_in": "the leaf's sessions take a route-map that denies every route in: up, with a policy, receiving nothing",
    # a GPU node's rail (lab/fault KIND NODE RAIL, the rail 0-based)
    "rail_down": "the node's port on that rail is down (ip link set eth<r> down): its address there has no route",
    "rail_loss": "tc netem drops half of what the node sends on that rail (loss %d%%)" % 50,
    "rail_delay": "tc netem holds what the node sends on that rail %d ms (delay)" % 5,
}
NETEM = {"rail_loss": ["loss", "50%"], "rail_delay": ["delay", "5ms"]}


def fault(kind, leaf, spine=None):
    """Inject one fault: KIND LEAF [SPINE] for the routing faults, KIND NODE RAIL for a node's rail."""
    topo = load()
    if kind not in FAULTS:
        raise LabError("unknown fault %r (known: %s)" % (kind, ", ".join(sorted(FAULTS))))
    if kind.startswith("rail_"):
        _rail_fault(topo, kind, leaf, spine)
        return
    if kind in ("session_shut", "wrong_remote_as", "wrong_remote_as_both") and spine is None:
        raise LabError("%s needs a spine" % kind)
    if kind == "session_shut":
        _router_bgp(topo, leaf, "neighbor %s shutdown" % _neighbor(topo, leaf, spine)["address"])
    elif kind == "maximum_paths":
        _router_bgp(topo, leaf, "address-family ipv4 unicast", "maximum-paths 1")
    elif kind in ("wrong_remote_as", "wrong_remote_as_both"):
        _router_bgp(topo, leaf, "neighbor %s remote-as 65999" % _neighbor(topo, leaf, spine)["address"])
        if kind == "wrong_remote_as_both":
            _router_bgp(topo, spine, "neighbor %s remote-as 65998" % _neighbor(topo, spine, leaf)["address"])
    elif kind == "no_policy":
        lines = ["address-family ipv4 unicast"]
        for neighbor in topo["routers"][leaf]["neighbors"]:
            lines += ["no neighbor %s route-map ALLOW in" % neighbor["address"], "no neighbor %s route-map ALLOW out" % neighbor["address"]]
        _router_bgp(topo, leaf, *lines)
        vtysh(leaf, "clear bgp ipv4 unicast * soft")
    elif kind == "deny_in":
        lines = ["address-family ipv4 unicast"]
        lines += ["neighbor %s route-map DENY in" % neighbor["address"] for neighbor in topo["routers"][leaf]["neighbors"]]
        _router_bgp(topo, leaf, *lines)
        vtysh(leaf, "clear bgp ipv4 unicast * soft in")
    elif kind == "isolated":
        for neighbor in topo["routers"][leaf]["neighbors"]:
            sh("ip", "-n", PREFIX + leaf, "link", "set", neighbor["port"], "down")


def netem_missing():
    """Why `tc netem` cannot run here (a kernel without sch_netem), or None: tried on a veth in a scratch namespace."""
    probe = PREFIX + "netem-probe"
    sh("ip", "netns", "del", probe, check=False)
    try:
        sh("ip", "netns", "add", probe)
        sh("ip", "-n", probe, "link", "add", "probe0", "type", "veth", "peer", "name", "probe1")
        tried = sh("ip", "netns", "exec", probe, "tc", "qdisc", "add", "dev", "probe0", "root", "netem", "delay", "1ms", check=False)
    finally:
        sh("ip", "netns", "del", probe, check=False)
    if tried.returncode:
        return "this kernel has no netem qdisc (tc: %s)" % (tried.stderr or tried.stdout).strip()
    return None


def _rail_fault(topo, kind, node, rail):
    if node not in topo["nodes"]:
        raise LabError("%s: no node %r in the lab (nodes: %s)" % (kind, node, ", ".join(sorted(topo["nodes"])) or "none"))
    ports = {str(item["rail"]): item["port"] for item in topo["nodes"][node]["rails"]}
    if str(rail) not in ports:
        raise LabError("%s: %s has no rail %r (rails %s)" % (kind, node, rail, ", ".join(sorted(ports))))
    namespace, port = PREFIX + node, ports[str(rail)]
    if kind == "rail_down":
        sh("ip", "-n", namespace, "link", "set", port, "down")
    else:
        sh("ip", "netns", "exec", namespace, "tc", "qdisc", "add", "dev", port, "root", "netem", *NETEM[kind])


def main(argv=None):
    parser = argparse.ArgumentParser(prog="lab", description=__doc__.split("\n\n", maxsplit=1)[0])
    commands = parser.add_subparsers(dest="command", required=True)
    build = commands.add_parser("up")
    build.add_argument("--spines", type=int, default=4)
    build.add_argument("--leaves", type=int, default=4)
    build.add_argument("--nodes", type=int, default=4, help="GPU nodes, one rail on each leaf (0: none)")
    commands.add_parser("down")
    change = commands.add_parser("fault")
    change.add_argument("kind", choices=sorted(FAULTS))
    change.add_argument("leaf", metavar="DEVICE", help="the leaf (routing faults) or the node (rail_* faults)")
    change.add_argument("spine", nargs="?", metavar="OTHER", help="the spine, or the node's rail (0-based)")
    ask = commands.add_parser("vtysh")
    ask.add_argument("router")
    ask.add_argument("-c", dest="commands", action="append", required=True)
    args = parser.parse_args(argv)
    try:
        if args.command == "up":
            topo = up(args.spines, args.leaves, args.nodes)
            print("lab up: %d spines, %d leaves, %d nodes, every session Established" % (
                topo["spines"], topo["leaves"], len(topo["nodes"])))
        elif args.command == "down":
            down()
        elif args.command == "fault":
            fault(args.kind, args.leaf, args.spine)
        else:
            answer = vtysh(args.router, *args.commands)
            sys.stdout.write(answer.stdout)
            sys.stderr.write(answer.stderr)
            return answer.returncode
    except (LabError, OSError, ValueError, LookupError) as exc:  # a failed command, a missing frr user, a bad answer
        sys.stderr.write("lab: %s\n" % exc)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
