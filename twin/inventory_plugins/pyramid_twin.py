"""Ansible inventory plugin: the twin pod's nodes, reached over real SSH (see twin/README.md).

Lives outside plugins/ on purpose: the collection's product code never contains the twin.
"""

import hashlib
import os
import sys

from ansible.errors import AnsibleParserError
from ansible.plugins.inventory import BaseInventoryPlugin
from ansible.utils.vars import load_extra_vars

DOCUMENTATION = r"""
name: pyramid_twin
short_description: The twin pod's GPU nodes as Ansible hosts
description:
  - Reads a twin scenario and adds one host per GPU node at its loopback address (127.1.x.y),
    port 2222, where the twin's sshd answers as that node (start it with C(twin/up)).
  - "The scenario is, first found: the extra var C(twin_scenario), env C(PYRAMID_TWIN_SCENARIO),
    option O(scenario), C(twin/scenarios/default.yml). Relative paths are from the current directory."
  - Nodes the scenario marks unreachable get a port where nothing listens, so SSH really fails.
  - The file name must end in C(pyramid_twin.yml) or C(pyramid_twin.yaml).
  - "The extra var C(twin_group_names) ({group: name}) names the groups as a site's inventory might (C(gpu_nodes: gpus)),
    to run the playbooks with C(pyramid_group_*) (docs/inventory.md)."
options:
  plugin:
    description: Token that marks the file as this plugin's.
    required: true
    choices: [pyramid_twin]
  scenario:
    description: Scenario file used when neither the extra var nor the env var names one.
    type: str
"""

EXAMPLES = r"""
# inventories/twin/pod.pyramid_twin.yml
plugin: pyramid_twin
"""

TWIN = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KEY = os.path.join(os.path.dirname(TWIN), ".twin", "id_ed25519")
PORT = 2222
CLOSED_PORT = 1  # tcpmux: nothing listens there, so connecting is refused
GROUPS = ["gpu_nodes", "launcher", "switches", "rail_leaves", "spines"]


def _model():
    if TWIN not in sys.path:
        sys.path.insert(0, TWIN)
    from pyramid_twin import model  # pylint: disable=import-outside-toplevel
    return model


def _switch_modules():
    from pyramid_twin import keys, switch_model  # pylint: disable=import-outside-toplevel
    return keys, switch_model


def _root_nccl_env():
    """The catalog's pyramid_nccl_env with Open MPI's permission to run as root: the twin's sshd runs every command as
    root, as on a pod reached as root, and its mpirun refuses root without them (as Open MPI does; pre-flight stops such
    a run first). Set per node, as a site's inventory would set it for root: any inventory of the twin gets it."""
    import yaml  # pylint: disable=import-outside-toplevel
    catalog_dir = os.path.join(os.path.dirname(TWIN), "catalog")

    def area(name):
        with open(os.path.join(catalog_dir, name + ".yml"), encoding="utf-8") as handle:
            return yaml.safe_load(handle) or {}
    # wherever the catalog's areas (checklist.yml) declare it: a declaration moves to its reader's area
    declared = [area(name).get("expectations", {}).get("pyramid_nccl_env") for name in area("checklist")["areas"]]
    default = next(found for found in declared if found)["default"]
    return dict(default, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")


def _switch_faults(topo, kind):
    return {item["switch"] for item in topo["conf"]["faults"] if item["kind"] == kind}


class InventoryModule(BaseInventoryPlugin):
    NAME = "pyramid_twin"

    def verify_file(self, path):
        return super().verify_file(path) and path.endswith(("pyramid_twin.yml", "pyramid_twin.yaml"))

    def _scenario_path(self, model):
        chosen = (load_extra_vars(self.loader).get("twin_scenario")
                  or os.environ.get("PYRAMID_TWIN_SCENARIO")
                  or self.get_option("scenario")
                  or model.DEFAULT_SCENARIO)
        return os.path.abspath(os.path.expanduser(str(chosen)))

    def parse(self, inventory, loader, path, cache=True):
        super().parse(inventory, loader, path, cache)
        self._read_config_data(path)
        model = _model()
        scenario_path = self._scenario_path(model)
        try:
            scenario = model.load_scenario(scenario_path)
            states = [model.node_state(scenario, name) for name in model.node_names(scenario)]
            keys, switch_model = _switch_modules()
            topo = switch_model.topology(scenario)
        except model.ScenarioError as exc:
            raise AnsibleParserError("twin scenario %s: %s" % (scenario_path, exc)) from exc
        except Exception as exc:  # unreadable file, YAML syntax, a fault naming what a node lacks
            raise AnsibleParserError("twin scenario %s: %s" % (scenario_path, exc)) from exc

        named = dict(zip(GROUPS, GROUPS), **(load_extra_vars(self.loader).get("twin_group_names") or {}))
        for group in GROUPS:
            self.inventory.add_group(named[group])
        self.inventory.add_child(named["switches"], named["rail_leaves"])
        self.inventory.add_child(named["switches"], named["spines"])
        # One set of control sockets per scenario: a multiplexed session carries the SetEnv of the
        # master connection, not its own (twin/README.md). ssh does not create the directory.
        control_dir = os.path.expanduser("~/.ansible/cp")
        os.makedirs(control_dir, mode=0o700, exist_ok=True)
        control = os.path.join(control_dir, "twin-%s-%%C" % hashlib.sha256(scenario_path.encode()).hexdigest()[:8])
        common_args = " ".join([
            "-o SetEnv=PYRAMID_TWIN_SCENARIO=%s" % scenario_path,
            "-o ControlPath=%s" % control,
            "-o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR",
        ])
        root_env = _root_nccl_env()
        for position, state in enumerate(states):
            name = state["hostname"]
            self.inventory.add_host(name, group=named["gpu_nodes"])
            if position == 0:  # as in inventories/example: the first node starts mpirun/srun runs
                self.inventory.add_host(name, group=named["launcher"])
            for key, value in (
                ("ansible_host", state["address"]),
                ("ansible_port", CLOSED_PORT if state["unreachable"] else PORT),
                ("ansible_user", "root"),
                ("ansible_ssh_private_key_file", KEY),
                ("ansible_python_interpreter", "/usr/bin/python3"),
                ("ansible_ssh_common_args", common_args),
                ("pyramid_nccl_env", root_env),
            ):
                self.inventory.set_variable(name, key, value)
            plan = _ib_plan(state)
            if plan:  # an InfiniBand node: its cabling plan, as a site's host_vars state it
                self.inventory.set_variable(name, "pyramid_ib_ports", plan)
        if topo is not None:
            self._add_switches(topo, keys, switch_model, scenario_path, common_args, named)

    def _add_switches(self, topo, keys, switch_model, scenario_path, common_args, named):
        """Leaves and spines: EOS and NX-OS through network_cli, SONiC and Cumulus over SSH."""
        key = keys.scenario_key(scenario_path)
        refuse, down = _switch_faults(topo, "auth_fail"), _switch_faults(topo, "unreachable")
        # an EOS login starts unprivileged (switch_cli.py): become enters enable mode, as inventories/example says;
        # -e twin_switches_without_enable=[names] leaves it out for those, a login whose reads lack privilege
        without_enable = set(load_extra_vars(self.loader).get("twin_switches_without_enable") or ())
        for name, info in topo["switches"].items():
            self.inventory.add_host(name, group=named["rail_leaves"] if info["role"] == "leaf" else named["spines"])
            variables = {
                "ansible_host": info["address"],
                "ansible_port": CLOSED_PORT if name in down else PORT,
                "ansible_user": "root",
                "ansible_ssh_private_key_file": keys.stranger_key() if name in refuse else key,
            }
            if info["os"] in switch_model.CLI_OSES:
                variables.update({
                    "ansible_connection": "ansible.netcommon.network_cli",
                    "ansible_network_os": switch_model.NETWORK_OS[info["os"]],
                    "ansible_network_cli_ssh_type": "libssh",
                    "ansible_command_timeout": 15,
                    "ansible_connect_timeout": 10,
                    "ansible_become": name not in without_enable,
                    "ansible_become_method": "enable",
                })
            else:
                variables.update({"ansible_python_interpreter": "/usr/bin/python3", "ansible_ssh_common_args": common_args})
            variables.update(switch_model.inventory_vars(topo, name))
            for var, value in variables.items():
                self.inventory.set_variable(name, var, value)


def _ib_plan(state):
    """An InfiniBand node's cabling plan (pyramid_ib_ports) in the twin's layout (formats_infiniband): rail r on leaf
    <u>-r<r>, port ((i - 1) % n) + 1 (n: pod.ib_fabric.nodes_per_leaf, 32 by default). The plan, not the cables: a
    fault (ib_cable_swap) moves cables, never the plan."""
    from pyramid_twin.formats_infiniband import nodes_per_leaf  # pylint: disable=import-outside-toplevel
    unit, port = divmod(state["index"] - 1, nodes_per_leaf([state]))
    return [{"rail": rail["device"], "switch": "leaf%d-r%d" % (unit + 1, number), "port": port + 1}
            for number, rail in enumerate(state["rails"]) if rail["link_layer"] == "InfiniBand"]
