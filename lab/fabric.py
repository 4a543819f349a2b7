"""The lab: a real leaf-spine fabric of FRR routers (zebra and bgpd) in network namespaces (issue 35).

    sudo lab/up [--spines N] [--leaves N]   build it (a lab already up is taken down first)
    sudo lab/fault KIND LEAF [SPINE]        change it: see FAULTS (`lab/up` again for a healthy fabric)
    sudo lab/down                           remove every namespace and FRR process it made, and nothing else
    lab/vtysh ROUTER -c COMMAND             ask one router (vtysh -N pyrlab-ROUTER)

Every router is a namespace `pyrlab-<name>` with its own FRR instance (`-N pyrlab-<name>`: its sockets and pid
files under /var/run/frr/pyrlab-<name>/, its configuration under .lab/<name>/). Leaf i (AS 65100 + i) holds its rail
prefix 10.5<i-1>.0.0/24 on its loopback and announces it to every spine (AS 65000) over a veth pair, leaf port
swp5<j> to spine j's swp<i>, with route-maps in and out (FRR's eBGP-requires-policy holds). All packets stay inside
these namespaces: no interface of the host is touched.

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


def link_addresses(leaf, spine):
    """(spine side, leaf side) of the /31 between leaf i and spine j."""
    return "10.254.%d.%d" % (leaf, 2 * (spine - 1)), "10.254.%d.%d" % (leaf, 2 * (spine - 1) + 1)


def ssh_address(role, number):
    """Where the twin's sshd hands a session to this router (lab/session.py): 127.3.1.i leaf i, 127.3.2.j spine j."""
    return "127.3.%d.%d" % (1 if role == "leaf" else 2, number)


def topology(spines, leaves):
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
    return {"spines": spines, "leaves": leaves, "routers": routers}


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


def sh(*argv, check=True):
    result = subprocess.run(argv, capture_output=True, text=True, check=False)
    if check and result.returncode:
        raise LabError("%s: %s" % (" ".join(argv), (result.stderr or result.stdout).strip()))
    return result


def namespaces():
    listed = sh("ip", "netns", "list").stdout.split("\n")
    return sorted(line.split()[0] for line in listed if line.startswith(PREFIX))


def down():
    """Stop the lab's sshd and every process inside the lab's namespaces, delete those namespaces (their veths go with
    them), the FRR run directories and .lab/; nothing else. Reads nothing the lab wrote: works after an interrupted or half-made up."""
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


def up(spines, leaves):
    if not os.path.exists(os.path.join(FRR, "bgpd")):
        raise LabError("FRR is not installed (%s/bgpd): apt-get install frr" % FRR)
    down()
    try:
        return _build(spines, leaves)
    except BaseException:  # half a lab is no lab: remove what was made, then say why
        down()
        raise


def _build(spines, leaves):
    topo = topology(spines, leaves)
    os.makedirs(STATE)
    for name, router in topo["routers"].items():
        namespace = PREFIX + name
        sh("ip", "netns", "add", namespace)
        sh("ip", "-n", namespace, "link", "set", "lo", "up")
        if router["role"] == "leaf":  # the rail's subnet, on lo: this kernel may have no dummy interfaces
            sh("ip", "-n", namespace, "addr", "add", router["prefix"].replace(".0/24", ".1/24"), "dev", "lo")
    for leaf in range(1, leaves + 1):
        for spine in range(1, spines + 1):
            spine_side, leaf_side = link_addresses(leaf, spine)
            leaf_ns, spine_ns = PREFIX + "leaf%d" % leaf, PREFIX + "spine%d" % spine
            sh("ip", "link", "add", "swp5%d" % spine, "netns", leaf_ns, "type", "veth", "peer", "name", "swp%d" % leaf, "netns", spine_ns)
            sh("ip", "-n", leaf_ns, "addr", "add", leaf_side + "/31", "dev", "swp5%d" % spine)
            sh("ip", "-n", spine_ns, "addr", "add", spine_side + "/31", "dev", "swp%d" % leaf)
            sh("ip", "-n", leaf_ns, "link", "set", "swp5%d" % spine, "up")
            sh("ip", "-n", spine_ns, "link", "set", "swp%d" % leaf, "up")
    for name, router in topo["routers"].items():
        _start(name, router)
        _tools(name)
    with open(os.path.join(STATE, "lab.json"), "w", encoding="utf-8") as handle:
        json.dump(topo, handle, indent=1)
    _sshd(topo)
    converged(topo)
    return topo


def _start(name, router):
    pathspace = PREFIX + name
    conf_dir = os.path.join(STATE, name)
    os.makedirs(conf_dir, exist_ok=True)
    conf = os.path.join(conf_dir, "frr.conf")
    with open(conf, "w", encoding="utf-8") as handle:
        handle.write(frr_conf(name, router))
    run_dir = os.path.join(RUN, pathspace)
    os.makedirs(run_dir, exist_ok=True)
    for path in (conf_dir, conf, run_dir):
        shutil.chown(path, "frr", "frr")
    for daemon in DAEMONS:
        sh("ip", "netns", "exec", pathspace, os.path.join(FRR, daemon), "-d", "-N", pathspace, "-f", conf,
           "-i", os.path.join(run_dir, "%s.pid" % daemon))


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
    lines = ["ListenAddress %s:%d" % (router["ssh"], SSH_PORT) for router in topo["routers"].values()]
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
}


def fault(kind, leaf, spine=None):
    topo = load()
    if kind not in FAULTS:
        raise LabError("unknown fault %r (known: %s)" % (kind, ", ".join(sorted(FAULTS))))
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


def main(argv=None):
    parser = argparse.ArgumentParser(prog="lab", description=__doc__.split("\n\n", maxsplit=1)[0])
    commands = parser.add_subparsers(dest="command", required=True)
    build = commands.add_parser("up")
    build.add_argument("--spines", type=int, default=4)
    build.add_argument("--leaves", type=int, default=4)
    commands.add_parser("down")
    change = commands.add_parser("fault")
    change.add_argument("kind", choices=sorted(FAULTS))
    change.add_argument("leaf")
    change.add_argument("spine", nargs="?")
    ask = commands.add_parser("vtysh")
    ask.add_argument("router")
    ask.add_argument("-c", dest="commands", action="append", required=True)
    args = parser.parse_args(argv)
    try:
        if args.command == "up":
            topo = up(args.spines, args.leaves)
            print("lab up: %d spines, %d leaves, every session Established" % (topo["spines"], topo["leaves"]))
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
