"""Put a rail's host RoCE QoS back (remediate.yml): ``python3 -c <this> [--check] PRIORITY RDMA_DEVICE...``.

For each RDMA device: DCQCN on for PRIORITY (its netdev's ecn/roce_rp/enable/PRIORITY and roce_np/enable/PRIORITY
set to 1, through /sys/class/infiniband/<dev>/device/net/<if>/, the files roce_dcqcn reads), then mlnx_qos's
trust state dscp and PFC on PRIORITY alone (``mlnx_qos -i <if> --trust dscp`` and ``--pfc 0,0,0,1,0,0,0,0``),
each only where it differs. ``--check`` changes nothing and says what it would change.

Prints one JSON document: {"changed": bool, "rails": {dev: {"netdev", "before", "after", "changed": [what]}}}; the
playbook shows before/after as its diff. A rail whose netdev, sysfs or mlnx_qos cannot be read is exit 1 with the
reason on stderr: never a guess, never a partial write reported as done.

mlnx_qos is read in the two lines this needs ("Priority trust state: X" and the PFC "enabled" row under
"PFC configuration:"), the layout of mlnx-tools 4.x-5.x (tests/unit/parsers/linux_mlnx_qos).
"""

import json
import os
import subprocess
import sys

SYS = "/sys/class/infiniband"


def _read(path):
    with open(path, encoding="utf-8") as handle:
        return handle.read().strip()


def netdev_of(device):
    """As payloads/rail_netdev.py finds it (ibdev2netdev's way): the one netdev, or port 1's among several."""
    base = "%s/%s/device/net" % (SYS, device)
    names = sorted(os.listdir(base))
    if len(names) == 1:
        return names[0]
    port1 = [name for name in names if _read_or_none(os.path.join(base, name, "dev_port")) == "0"]
    if len(port1) != 1:
        raise LookupError("%s lists %s: cannot tell which is port 1's" % (base, ", ".join(names) or "nothing"))
    return port1[0]


def _read_or_none(path):
    try:
        return _read(path)
    except OSError:
        return None


def qos_of(text):
    """(trust state, [PFC enabled per priority 0..7]) from mlnx_qos -i's report."""
    trust, enabled, in_pfc = None, None, False
    for line in text.splitlines():
        words = line.split()
        if line.startswith("Priority trust state:") or line.startswith("Priority trust mode:"):
            trust = words[-1]
        elif line.strip() == "PFC configuration:":
            in_pfc = True
        elif in_pfc and words and words[0] == "enabled":
            enabled = [word == "1" for word in words[1:9]]
            in_pfc = False
    if trust is None or enabled is None or len(enabled) != 8:
        raise ValueError("mlnx_qos: no trust state or PFC enabled row in its report")
    return trust, enabled


def _mlnx_qos(argv):
    done = subprocess.run(["mlnx_qos"] + argv, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError("mlnx_qos %s: exit %d: %s" % (" ".join(argv), done.returncode, (done.stderr or done.stdout).strip()[-300:]))
    return done.stdout


def rail(device, prio, check):
    netdev = netdev_of(device)
    ecn = "%s/%s/device/net/%s/ecn" % (SYS, device, netdev)
    switches = {point: "%s/roce_%s/enable/%d" % (ecn, point, prio) for point in ("rp", "np")}
    trust, enabled = qos_of(_mlnx_qos(["-i", netdev]))
    want_pfc = [p == prio for p in range(8)]
    before = {"dcqcn_%s" % point: _read(path) for point, path in switches.items()}
    before.update(trust=trust, pfc=",".join("1" if on else "0" for on in enabled))
    after = dict(before, dcqcn_rp="1", dcqcn_np="1", trust="dscp", pfc=",".join("1" if on else "0" for on in want_pfc))
    changed = [key for key in after if after[key] != before[key]]
    if not check:
        for point, path in switches.items():
            if before["dcqcn_" + point] != "1":
                with open(path, "w", encoding="utf-8") as handle:
                    handle.write("1\n")
        if trust != "dscp":
            _mlnx_qos(["-i", netdev, "--trust", "dscp"])
        if enabled != want_pfc:
            _mlnx_qos(["-i", netdev, "--pfc", after["pfc"]])
    return {"netdev": netdev, "before": before, "after": after, "changed": changed}


def main(argv):
    args = argv[1:]
    check = "--check" in args
    args = [arg for arg in args if arg != "--check"]
    if len(args) < 2 or not args[0].isdigit() or not 0 <= int(args[0]) <= 7:
        sys.stderr.write("usage: roce_qos_apply [--check] PRIORITY(0-7) RDMA_DEVICE...\n")
        return 2
    prio, rails = int(args[0]), {}
    for device in args[1:]:
        try:
            rails[device] = rail(device, prio, check)
        except (OSError, LookupError, ValueError, RuntimeError) as exc:
            sys.stderr.write("roce_qos_apply: %s: %s\n" % (device, exc))
            return 1
    json.dump({"changed": any(r["changed"] for r in rails.values()), "check": check, "rails": rails}, sys.stdout, sort_keys=True)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
