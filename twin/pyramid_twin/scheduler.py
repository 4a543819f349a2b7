"""The pod's scheduler as its clients print it: Slurm's `scontrol` and Kubernetes' `kubectl`, on the twin's launcher.

Slurm is real where the twin runs one (twin/slurm: Debian's slurmctld and a slurmd per GPU node, .twin/slurm.conf.path
naming its slurm.conf): `scontrol` on a twin node is then the real client, run with that SLURM_CONF, its output and
exit code Slurm's own. Without it (no Debian packages), and for Kubernetes, which cannot run here, only the calls the
pyramid makes (plugins/plugin_utils/run/handover.py) are answered: `scontrol update nodename=A,B state=drain reason=...`
/ `state=resume` and `scontrol show node` (Slurm's multi-line format, as 20.11-25.11 print it: a block per node, the
reason alone on its Reason= line); `kubectl cordon|uncordon NODES`, `kubectl taint nodes NODES KEY=VALUE:EFFECT
--overwrite` / `KEY:EFFECT-`, `kubectl annotate nodes NODES KEY=VALUE --overwrite` / `KEY-` and `kubectl get nodes -o
json` (a List of Nodes). The simulated state of the pod is kept in .twin/changes/<digest>/scheduler.json, so a later
run sees what an earlier one did; every call is in the twin's ran/<host>.log as any tool's. Anything else is refused as
the real client would, with its exit code.
"""

import json
import os
import shutil
import subprocess  # nosec B404: the real scontrol, argv only

from pyramid_twin import changes as _changes

STAMP = "2026-11-28T12:00:00"


def _load(path, nodes):
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except (OSError, ValueError):
        return {node: {"drain": None, "cordoned": False, "taints": {}, "annotations": {}} for node in nodes}


def _save(path, kept):
    with open(path + ".tmp", "w", encoding="utf-8") as handle:
        json.dump(kept, handle, sort_keys=True)
    os.replace(path + ".tmp", path)


def _show_node(name, entry):
    state = "IDLE+DRAIN" if entry["drain"] is not None else "IDLE"
    lines = ["NodeName=%s Arch=x86_64 CoresPerSocket=56" % name,
             "   CPUAlloc=0 CPUEfctv=224 CPUTot=224 CPULoad=0.31",
             "   AvailableFeatures=(null)", "   ActiveFeatures=(null)", "   Gres=gpu:h100:8(S:0-1)",
             "   NodeAddr=%s NodeHostName=%s Version=23.11.4" % (name, name),
             "   OS=Linux 5.15.0-119-generic #129-Ubuntu SMP Fri Aug 2 19:25:20 UTC 2024",
             "   RealMemory=2000000 AllocMem=0 FreeMem=1950000 Sockets=2 Boards=1",
             "   State=%s ThreadsPerCore=2 TmpDisk=0 Weight=1 Owner=N/A MCS_label=N/A" % state,
             "   Partitions=gpu", "   BootTime=2026-11-20T08:00:00 SlurmdStartTime=2026-11-20T08:01:00",
             "   LastBusyTime=2026-11-28T11:00:00 ResumeAfterTime=None",
             "   CfgTRES=cpu=224,mem=2000000M,billing=224,gres/gpu=8", "   AllocTRES=",
             "   CurrentWatts=0 AveWatts=0"]
    if entry["drain"] is not None:
        lines.append("   Reason=%s [root@%s]" % (entry["drain"], STAMP))
    return "\n".join(lines) + "\n\n"


def real_slurm_conf():
    """The slurm.conf of the twin's real Slurm (twin/slurm up), or None where none runs."""
    try:
        with open(os.path.join(_changes.STATE_DIR, "slurm.conf.path"), encoding="utf-8") as handle:
            return handle.read().strip() or None
    except OSError:
        return None


def _real_scontrol(conf, argv):
    # the host's own client, not this stub (the node's PATH finds the stub first)
    binary = shutil.which("scontrol", path="/usr/bin:/bin:/usr/local/bin")
    if binary is None:
        return 127, "", "scontrol: command not found\n"
    ran = subprocess.run([binary] + list(argv), env=dict(os.environ, SLURM_CONF=conf), capture_output=True, text=True,
                         timeout=120, check=False)  # nosec B603
    return ran.returncode, ran.stdout, ran.stderr


def scontrol(path, nodes, argv):
    conf = real_slurm_conf()
    if conf:
        return _real_scontrol(conf, argv)
    kept = _load(path, nodes)
    if argv[:2] == ["show", "node"] and len(argv) == 2:
        return 0, "".join(_show_node(name, kept[name]) for name in nodes), ""
    if argv[:1] != ["update"]:
        return 1, "", "scontrol: error: Invalid command: %s\n" % " ".join(argv[:1])
    values = dict(word.split("=", 1) for word in argv[1:] if "=" in word)
    names = [name for name in values.get("nodename", "").split(",") if name]
    unknown = [name for name in names if name not in kept]
    if not names or unknown:
        return 1, "", "scontrol: error: Invalid node name specified\n"
    state = values.get("state", "").lower()
    if state == "drain":
        if not values.get("reason"):
            return 1, "", "You must specify a reason when DRAINING a node\nRequest aborted\n"
        for name in names:
            kept[name]["drain"] = values["reason"]
    elif state == "resume":
        for name in names:
            kept[name]["drain"] = None
    else:
        return 1, "", "scontrol: error: Invalid node state specified\n"
    _save(path, kept)
    return 0, "", ""


def _node_json(name, entry):
    spec = {"podCIDR": "10.244.0.0/24"}
    if entry["cordoned"]:
        spec["unschedulable"] = True
    taints = [{"key": key, "value": value, "effect": effect} for (key, effect), value in
              sorted((tuple(k.split("|")), v) for k, v in entry["taints"].items())]
    if entry["cordoned"]:
        taints.append({"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule", "timeAdded": STAMP + "Z"})
    if taints:
        spec["taints"] = taints
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name},
            "annotations": dict(entry["annotations"])}, "spec": spec,
            "status": {"conditions": [{"type": "Ready", "status": "True"}]}}


def kubectl(path, nodes, argv):
    kept = _load(path, nodes)
    if argv == ["get", "nodes", "-o", "json"]:
        document = {"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""},
                    "items": [_node_json(name, kept[name]) for name in nodes]}
        return 0, json.dumps(document, indent=4) + "\n", ""
    verb = argv[0] if argv else ""
    words = argv[1:]
    if verb in ("taint", "annotate"):
        if words[:1] != ["nodes"]:
            return 1, "", "error: the server doesn't have a resource type \"%s\"\n" % (words[:1] or [""])[0]
        words = words[1:]
    names = [word for word in words if not word.startswith("-") and "=" not in word and ":" not in word and not word.endswith("-")]
    changes = [word for word in words if word not in names and not word.startswith("--")]
    for name in names:
        if name not in kept:
            return 1, "", "Error from server (NotFound): nodes \"%s\" not found\n" % name
    out = []
    for name in names:
        entry = kept[name]
        if verb in ("cordon", "uncordon"):
            entry["cordoned"] = verb == "cordon"
            out.append("node/%s %s" % (name, verb + "ed"))
            continue
        for change in changes:
            if verb == "taint" and change.endswith("-"):
                key, _colon, effect = change[:-1].partition(":")
                gone = [held for held in entry["taints"] if held.split("|")[0] == key and effect in ("", held.split("|")[1])]
                if not gone:  # kubectl: KEY- removes the key's every effect; none there is an error
                    return 1, "\n".join(out), "error: taint \"%s\" not found\n" % change[:-1]
                for held in gone:
                    del entry["taints"][held]
            elif verb == "taint":
                pair, _colon, effect = change.partition(":")
                key, _equals, value = pair.partition("=")
                entry["taints"]["%s|%s" % (key, effect)] = value
            elif change.endswith("-"):
                entry["annotations"].pop(change[:-1], None)
            else:
                key, _equals, value = change.partition("=")
                entry["annotations"][key] = value
        if verb in ("taint", "annotate"):
            out.append("node/%s %s" % (name, "tainted" if verb == "taint" else "annotated"))
        else:
            return 1, "", "error: unknown command \"%s\" for \"kubectl\"\n" % verb
    _save(path, kept)
    return 0, "\n".join(out) + ("\n" if out else ""), ""
