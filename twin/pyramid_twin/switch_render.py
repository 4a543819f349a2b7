"""Render every switch of a scenario: ``python switch_render.py SCENARIO DIGEST_DIR`` (see switch_session)."""

import json
import marshal
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from pyramid_twin import model, switch_model  # noqa: E402  (path set above)

TOOL_STUB = '#!/bin/sh\nexec %s -I -S %s %s %s "$@"\n'


def render(scenario_path, digest_dir):
    scenario = model.load_scenario(scenario_path)
    topo = switch_model.topology(scenario)
    if topo is None:
        return
    out = os.path.join(digest_dir, "switches")
    os.makedirs(out, exist_ok=True)
    now = time.time()
    tool = os.path.join(os.path.dirname(os.path.abspath(__file__)), "switch_tool.py")
    for name, info in topo["switches"].items():
        state = switch_model.switch_state(scenario, name)
        state["rendered_at"] = now
        # where the pod's incast events are recorded (incast.py): counters computed from them at each read
        changed = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(digest_dir))), "changes",
                               os.path.basename(os.path.abspath(digest_dir)))
        state["incast_events"] = os.path.join(changed, "incast")
        # and where the all-to-alls across units record their load (fabric_load.py): the uplinks' and spines' traffic
        state["fabric_load_events"] = os.path.join(changed, "fabric_load")
        path = os.path.join(out, name + ".json")
        if info["os"] not in switch_model.CLI_OSES:
            bin_dir = os.path.join(out, name, "bin")
            os.makedirs(bin_dir, exist_ok=True)
            for tool_name in ("show", "nv", "vtysh"):
                with open(os.path.join(bin_dir, tool_name), "w", encoding="utf-8") as handle:
                    handle.write(TOOL_STUB % (sys.executable, tool, path, tool_name))
                os.chmod(os.path.join(bin_dir, tool_name), 0o755)
        text = json.dumps(state)
        # The same state for switch_tool.py, which reads it at every tool run (a Cumulus leaf runs `nv` once per port
        # and view): marshal is built into Python, json's import is not (as render.py's state.marshal for the nodes)
        with open(path[:-len(".json")] + ".marshal.tmp", "wb") as handle:
            marshal.dump(json.loads(text), handle)
        os.replace(path[:-len(".json")] + ".marshal.tmp", path[:-len(".json")] + ".marshal")
        with open(path + ".tmp", "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(path + ".tmp", path)
        link = os.path.join(digest_dir, "sw@%d" % info["index"])
        os.symlink(os.path.join("switches", name + ".json"), link + ".tmp")
        os.replace(link + ".tmp", link)


def main(argv):
    try:
        render(argv[1], argv[2])
    except Exception as exc:  # a scenario error: the session says why and ends as a failed ssh does
        sys.stderr.write("pyramid twin: scenario %s: %s: %s\n" % (argv[1], type(exc).__name__, exc))
        return 255
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
