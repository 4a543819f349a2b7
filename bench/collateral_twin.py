"""The collateral of a fault (issue 66): on twin pods with faults, how many healthy devices are not GO although they are
neither faulty nor behind a faulty component. The target is 0: a device is NO-GO for its own findings only.

    .venv/bin/python bench/collateral_twin.py [--pod default] [--pod leaf-per-unit] [--extra pyramid_soak_seconds=1]

Needs the twin (twin/up, as root). Each pod is run once through validate.yml with the incast on (pyramid_incast=true)
and the twin's Prometheus serving its devices, and its report.json read:

- faulty: a device the scenario names in a fault (a node's `node:`, a switch's `switch:`, a BGP fault's `peer:` too),
  except the faults that model a healthy state (`crc_old`: an old count that stays flat must pass);
- behind a faulty component: a GPU node with a BLOCKED record (a switch in its path failed that layer: the switch's
  own FAIL names the cause, README "What it checks");
- at a faulty link: a switch whose every FAIL and ERROR is confined to ports cabled to faulty nodes (a node's rail at
  200G shows as its leaf port at 200G: the link between them is the faulty component, and both ends say so);
- collateral: every other device whose verdict is not GO. Each is printed with its first record that is not a PASS,
  which is where the fault that reached it shows.

Pods: `default` is twin/scenarios/default.yml (32 nodes, one scalable unit, six node faults, four switch faults);
`leaf-per-unit` is 16 nodes in two scalable units of 8 (nodes_per_leaf 8) with a leaf in each that fails under the
incast (unit 1's rail-2 leaf with ECN off on its RoCE queue, unit 2's rail-5 leaf with PFC headroom too short), every
node behind one of them; `leaf-down-per-unit` the same pod with those two leaves unreachable: every node is blocked at
Layer 1, so no node can load the other leaves, which stay not proven, each naming the leaves that stopped the nodes (a
limit of a pod whose every node is behind a faulty leaf, counted here as collateral). Any other value is read as a
scenario file. Prints figures; nothing passes or fails.
"""

import argparse
import contextlib
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [os.path.dirname(os.path.abspath(__file__))]

from pod_twin import telemetry_of  # noqa: E402  (bench/ on the path above)

HEALTHY_KINDS = {"crc_old"}  # a fault entry that models a state which must pass
WINDOWS = ["pyramid_soak_seconds=1", "pyramid_rdma_duration=1"]  # as tests/e2e: the twin's clock proves what ten did
LEAF_PER_UNIT = """# bench/collateral_twin.py: two scalable units of 8 nodes, a leaf in each failing under the incast
pod: {nodes: 16, gpus_per_node: 8, rails: 8}
switches:
  spines: 4
  nodes_per_leaf: 8
  leaf_os: [eos, nxos, sonic, cumulus]
  spine_os: [eos, nxos, sonic, cumulus]
  faults:
    - {switch: leaf1-r2, kind: ecn_off}
    - {switch: leaf2-r5, kind: headroom_short}
faults: []
"""
LEAF_DOWN_PER_UNIT = LEAF_PER_UNIT.replace("failing under the incast", "unreachable").replace(
    "{switch: leaf1-r2, kind: ecn_off}", "{switch: leaf1-r2, kind: unreachable}").replace(
    "{switch: leaf2-r5, kind: headroom_short}", "{switch: leaf2-r5, kind: unreachable}")


def faulty_devices(scenario):
    """The devices a scenario's faults name (nodes and switches), without those that model a healthy state."""
    named = set()
    for entry in list(scenario.get("faults") or []) + list((scenario.get("switches") or {}).get("faults") or []):
        if entry.get("kind") in HEALTHY_KINDS:
            continue
        named.update(entry[key] for key in ("node", "switch", "peer") if entry.get(key))
    return named


def _at_faulty_link(host, peers, faulty):
    """Every FAIL and ERROR of a switch names ports only (no whole-switch finding), each cabled to a faulty node."""
    failing = [record for record in host["checks"] if record["status"] in ("FAIL", "ERROR")]
    ports = [port for record in failing for port in ((record.get("detail") or {}).get("ports") or [])]
    return bool(failing) and all((record.get("detail") or {}).get("ports") and not (record.get("detail") or {}).get("device")
                                 for record in failing) and all(peers.get(port) in faulty for port in ports)


def _peers(run_dir, name):
    """{port: the device the switch's cabling plan puts at its other end}, from the switch's results file."""
    try:
        with open(os.path.join(run_dir, "devices", name + ".json"), encoding="utf-8") as handle:
            plan = (json.load(handle).get("expect") or {}).get("pyramid_switch_ports") or []
    except OSError:
        return {}
    return {entry["port"]: entry.get("peer") for entry in plan}


def classify(report, faulty):
    """{"go", "faulty", "behind", "link": [devices], "collateral": [(device, its first finding that is not a PASS)]}."""
    found = {"go": [], "faulty": [], "behind": [], "link": [], "collateral": []}
    for name, host in sorted(report["hosts"].items()):
        if host["verdict"] == "GO":
            found["go"].append(name)
        elif name in faulty:
            found["faulty"].append(name)
        elif any(record["status"] == "BLOCKED" for record in host["checks"]):
            found["behind"].append(name)
        elif host["device"] == "switch" and _at_faulty_link(host, _peers(report["run_dir"], name), faulty):
            found["link"].append(name)
        else:
            first = next((record for record in sorted(host["checks"], key=lambda r: r["layer"])
                          if record["status"] != "PASS" and not record.get("not_applicable")), None)
            found["collateral"].append((name, first))
    return found


def run(scenario_path, extra, work, log_path):
    reports = tempfile.mkdtemp(dir=work)
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"), ANSIBLE_FORCE_COLOR="0")
    playbook = os.path.join(os.path.dirname(sys.executable), "ansible-playbook")
    command = [playbook, "playbooks/validate.yml", "-i", "inventories/twin", "-e", "twin_scenario=" + scenario_path,
               "-e", "pyramid_report_dir=" + reports, "-e", "pyramid_incast=true"]
    for item in WINDOWS + list(extra):
        command += ["-e", item]
    start = time.time()
    with open(log_path, "w", encoding="utf-8") as log:
        rc = subprocess.run(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, check=False).returncode
    found = sorted(glob.glob(os.path.join(reports, "*", "report.json")))
    if not found:
        raise SystemExit("no report.json (ansible-playbook exit %d): see %s" % (rc, log_path))
    shutil.copyfile(found[-1], log_path[:-len(".log")] + ".report.json")  # kept beside the log: the run dir goes with work
    with open(found[-1], encoding="utf-8") as handle:
        return json.load(handle), time.time() - start, rc


def scenario_file(pod, work):
    if pod == "default":
        return os.path.join(ROOT, "twin", "scenarios", "default.yml")
    if pod in ("leaf-per-unit", "leaf-down-per-unit"):
        path = os.path.join(work, pod + ".yml")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(LEAF_PER_UNIT if pod == "leaf-per-unit" else LEAF_DOWN_PER_UNIT)
        return path
    return os.path.abspath(pod)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", maxsplit=1)[0])
    parser.add_argument("--pod", action="append", help="default, leaf-per-unit, leaf-down-per-unit or a scenario file (repeatable)")
    parser.add_argument("--extra", action="append", default=[], help="an -e for every run")
    parser.add_argument("--json", help="write the figures here too")
    parser.add_argument("--logs", default=tempfile.gettempdir(), help="where each run's ansible-playbook output is kept")
    args = parser.parse_args()
    figures = []
    with tempfile.TemporaryDirectory(prefix="pyramid-collateral-") as work:
        for pod in args.pod or ["default", "leaf-per-unit", "leaf-down-per-unit"]:
            path = scenario_file(pod, work)
            with open(path, encoding="utf-8") as handle:
                faulty = faulty_devices(yaml.safe_load(handle))
            own = contextlib.nullcontext() if pod == "default" else telemetry_of(path)  # the twin serves its own pods
            with own:
                report, seconds, rc = run(path, args.extra, work, os.path.join(args.logs, "collateral-%s.log" % os.path.basename(pod)))
            found = classify(report, faulty)
            print("%s: %d devices in %.0f s (exit %d): %d GO, %d faulty, %d behind a faulty component, %d at a faulty link, "
                  "%d collateral" % (pod, len(report["hosts"]), seconds, rc, len(found["go"]), len(found["faulty"]),
                                     len(found["behind"]), len(found["link"]), len(found["collateral"])))
            for name, record in found["collateral"]:
                said = "no record" if record is None else "L%d %s %s: %s" % (
                    record["layer"], record["check"], record["status"], record.get("cause") or record.get("actual"))
                print("  collateral %s: %s" % (name, said))
            figures.append({"pod": pod, "devices": len(report["hosts"]), "seconds": round(seconds), "go": len(found["go"]),
                            "faulty": len(found["faulty"]), "behind": len(found["behind"]), "link": found["link"],
                            "collateral": [name for name, _record in found["collateral"]]})
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(figures, handle, indent=1)


if __name__ == "__main__":
    main()
