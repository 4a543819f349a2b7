"""An SSH session at a twin switch's address (127.2.x.y): render the switches once, then become one.

EOS and NX-OS switches run their CLI (switch_cli.py): what network_cli expects at the other end.
SONiC and Cumulus switches are Linux: the session's command runs in a shell whose PATH starts with
the switch's tools (`show`, `nv`, `vtysh` -> switch_tool.py). Hot path: stdlib only, no YAML.

Layout: DIGEST_DIR/switches/<name>.json (switch_model.switch_state + rendered_at; <name>.marshal the same) and, for Linux
switches, DIGEST_DIR/switches/<name>/bin/<tool>; DIGEST_DIR/sw@<index> -> <name>.json marks a
rendered switch.
"""

import marshal
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
CLI_OSES = ("eos", "nxos")  # = switch_model.CLI_OSES
LINUX_TOOLS = ("show", "nv", "vtysh")


def index_of(address):
    parts = address.split(".")
    return int(parts[2]) * 256 + int(parts[3])


def switch_json(digest_dir, scenario, index):
    marker = os.path.join(digest_dir, "sw@%d" % index)
    if not os.path.exists(marker):
        from pyramid_twin.render_once import render_once  # only on a cache miss
        if not render_once(digest_dir, marker, [os.path.join(HERE, "switch_render.py"), scenario, digest_dir]):
            return None
        if not os.path.exists(marker):
            sys.stderr.write("pyramid twin: no switch at 127.2.%d.%d in scenario %s\n" % (index // 256, index % 256, scenario))
            return None
    return os.path.realpath(marker)


def load(path):
    """A rendered switch: its .marshal beside the .json (switch_render.py writes both, the same dict), json's import
    spared at each tool run."""
    try:
        with open(path[:-len(".json")] + ".marshal", "rb") as handle:
            return marshal.load(handle)
    except OSError:  # a render older than the .marshal files
        import json  # pylint: disable=import-outside-toplevel
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)


def formats_of(switch):
    """formats_<os>.py of the switch's platform (``__import__``: importing importlib cost a tool run about 1 ms)."""
    return __import__("pyramid_twin.formats_" + switch["os"], fromlist=["COMMANDS"])


def snapshot_now(switch):
    """The switch with its counters as they stand now: what formats_<os>.py render."""
    seconds = max(time.time() - switch["rendered_at"], 0.0)

    def concrete(value):  # called for containers only: a tool run walks the whole state, most of it plain values
        if isinstance(value, dict):
            if len(value) == 2 and "base" in value and "per_s" in value:  # a counter
                return int(value["base"] + value["per_s"] * seconds)
            return {key: concrete(item) if isinstance(item, (dict, list)) else item for key, item in value.items()}
        if isinstance(value, list):
            return [concrete(item) if isinstance(item, (dict, list)) else item for item in value]
        return value
    snapshot = concrete(switch)
    # counts of incasts at this leaf's hosts (incast.py; only the twin's own files), once the pod has had one
    if switch.get("incast_events") and os.path.isdir(switch["incast_events"]):
        from pyramid_twin import incast
        incast.apply_switch(snapshot)
    # the traffic of all-to-alls across units through this switch (fabric_load.py), once the pod has run one
    if switch.get("fabric_load_events") and os.path.isdir(switch["fabric_load_events"]):
        from pyramid_twin import fabric_load
        fabric_load.apply_switch(snapshot)
    return snapshot


def become(path):
    """Become the switch's side of the session: its CLI (EOS, NX-OS) in this process, its shell (SONiC, Cumulus) by exec."""
    switch = load(path)
    if switch["unreachable"]:
        sys.stderr.write("pyramid twin: %s is unreachable\n" % switch["hostname"])
        sys.exit(255)
    command = os.environ.pop("SSH_ORIGINAL_COMMAND", None)
    os.environ.pop("PYRAMID_TWIN_SCENARIO", None)
    if switch["os"] in CLI_OSES:  # its CLI in this process: a second interpreter cost 17 ms of a session's 57 ms of CPU
        from pyramid_twin import switch_cli  # pylint: disable=import-outside-toplevel
        sys.exit(switch_cli.serve(switch, command))
    os.environ["PATH"] = os.path.join(path[:-len(".json")], "bin") + os.pathsep + os.environ.get("PATH", "/usr/bin:/bin")
    shell = os.environ.get("SHELL") or "/bin/sh"
    if command is None:
        os.execv(shell, ["-" + os.path.basename(shell)])
    os.execv(shell, [os.path.basename(shell), "-c", command])
