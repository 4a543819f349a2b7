"""Write the inventory that reads the lab's routers as switches over real SSH (`.lab/inventory.yml`).

    .venv/bin/python lab/inventory.py        (after `sudo lab/up`)

Each router is a Cumulus-style Linux switch at its lab address (127.3.x.y:2223: the lab's own sshd, lab/session.py,
with the lab's key). Its expectations are the healthy lab's: every session Established with a prefix or more,
each leaf holding every other leaf's rail prefix over every spine, each spine every leaf's prefix over its one link.
The routers run FRR alone (no NVUE): read them with `--tags layer2` (BGP and ECMP), the layers whose sources FRR answers.
The GPU nodes (`lab/up --nodes N`) are at 127.3.3.n, their rails one per leaf: Layer 2's ping mesh runs on them with
the host's real ping and fping (`-e pyramid_enforce_gate=false`: they have no Layer 0 or 1 to pass).
"""

import os
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import fabric  # noqa: E402  (path set above)

INVENTORY = os.path.join(fabric.STATE, "inventory.yml")
SSH_ARGS = "-o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR"


def inventory(topo):
    prefixes = {name: router["prefix"] for name, router in topo["routers"].items() if router["role"] == "leaf"}
    groups = {"rail_leaves": {}, "spines": {}}
    for name, router in sorted(topo["routers"].items()):
        wanted = [prefix for leaf, prefix in sorted(prefixes.items()) if leaf != name]
        groups["rail_leaves" if router["role"] == "leaf" else "spines"][name] = {
            "ansible_host": router["ssh"],
            "pyramid_bgp_neighbors": [{"address": n["address"], "name": n["name"], "remote_as": n["asn"]}
                                      for n in router["neighbors"]],
            "pyramid_ecmp_prefixes": wanted,
            "pyramid_ecmp_paths": topo["spines"] if router["role"] == "leaf" else 1,
            "pyramid_switch_ports": [{"port": n["port"], "peer": n["name"], "peer_port": _far_port(topo, name, n["name"]),
                                      "role": "fabric"} for n in router["neighbors"]]}
    # The GPU nodes, in order (their position is their rail plan address's last byte: pyramid_rail_address_plan's
    # default), one rail per leaf; they answer the ping mesh (Layer 2) with the host's real ping and fping.
    nodes = {name: {"ansible_host": node["ssh"]} for name, node in sorted(topo.get("nodes", {}).items(), key=_number)}
    rails = ["mlx5_%d" % rail for rail in range(topo["leaves"])]
    return {"all": {
        "vars": {"ansible_port": fabric.SSH_PORT, "ansible_user": "root", "ansible_python_interpreter": "/usr/bin/python3",
                 "ansible_ssh_private_key_file": os.path.join(fabric.STATE, "id_ed25519"),
                 "ansible_ssh_common_args": SSH_ARGS, "pyramid_switch_os": "cumulus",
                 "pyramid_bgp_min_prefixes": 1},
        "children": {"gpu_nodes": {"hosts": nodes, "vars": {"pyramid_rails": rails}},
                     "switches": {"children": {group: {"hosts": hosts} for group, hosts in groups.items()}}}}}


def _number(item):
    return int(item[0][len("node"):])


def _far_port(topo, name, other):
    """The port of ``other`` that faces ``name`` (its veth end)."""
    return next(n["port"] for n in topo["routers"][other]["neighbors"] if n["name"] == name)


def main():
    topo = fabric.load()
    with open(INVENTORY, "w", encoding="utf-8") as handle:
        handle.write("# Written by lab/inventory.py from .lab/lab.json: the lab's routers as switches.\n")
        yaml.safe_dump(inventory(topo), handle, sort_keys=False)
    print(INVENTORY)
    return 0


if __name__ == "__main__":
    sys.exit(main())
