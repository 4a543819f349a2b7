"""validate.yml on a twin pod with its switches, every layer: wall time, controller CPU and memory, rounds of the
pairwise layers, and the overhead beyond the critical path of the tests' own durations, per play and in total.

    .venv/bin/python bench/pod_twin.py [--nodes 8 32] [--timing FACTOR] [--extra pyramid_rdma_duration=1] [--json PATH]

Needs the twin (twin/up, as root). The pod: N nodes of 8 GPUs and 8 rails, a leaf per rail per 32 nodes, 4 spines
(--spines), leaves and spines of the four vendors in turn, no fault; every layer, the incast on (pyramid_incast=true).
`--timing F` runs the twin's timing mode (twin/README.md): the tools' own durations (all_reduce_perf's sweep, the
training steps) take F times the time they print, and the durations the inventory asks for (ib_write_bw -D, the
pings) are taken in real time; without it those tools answer at once. One run per pod size.

What is measured, and how:
- wall time: of the whole run, and of each play, from the moment its `PLAY [` line reaches stdout (the default
  callback, streamed) to the next play's (the last one to `PLAY RECAP`);
- controller CPU seconds: /proc/<ansible-playbook>/stat utime + stime + cutime + cstime, plus utime + stime of its
  live descendants, sampled at each play boundary. Counted: ansible-playbook, its forked workers, the ssh clients
  and whatever they start and wait for. Not counted: the ssh ControlPersist masters once they have detached (they
  are re-parented away and never reaped by ansible-playbook; they carry the bytes of every multiplexed session),
  the twin's sshd side and its simulated tools (on a real pod those run on the devices), and this script. Per
  device: the play's CPU seconds over the devices it runs on (GPU nodes, switches or both, from validate.yml);
- peak controller memory: VmHWM (peak resident set) of ansible-playbook itself and the largest VmHWM of any of its
  descendants seen (sampled every --sample seconds, so a short-lived worker may be missed), and ru_maxrss of the
  run from wait4 (the largest peak of ansible-playbook and the descendants it reaped);
- rounds of the pairwise layers, read from the run directory: Layer 2 ping mesh and Layer 4 ib_write_bw from
  mesh/layer<N>/plan.json (planned/GPUDirect/retest, as bench/rail_mesh_twin.py), the incast's rounds from
  incast/plan.json, and the launcher's runs from hunt/*.log (NCCL pairs, scale-up sizes, training across nodes);
- critical path: what the tests themselves take on this run, with everything else perfect: the soak
  (pyramid_soak_seconds, the switches' Layer 1 waits it out), incast rounds x pyramid_incast_duration (its senders
  run their -D in real time in either mode), and in the timing mode Layer 2 rounds x the pings' (count - 1) x 0.2 s,
  Layer 4 rounds x pyramid_rdma_duration, and the twin's recorded waits of the tools that time themselves
  (twin/pyramid_twin/timing.py, .twin/changes/<digest>/timing/): per kind (all-reduce, training), the longest
  single-node run (every node runs side by side), the longest two-node run (the NCCL pairs run side by side)
  and the sum of the larger runs (the scale-up sizes and the training across nodes run one after another).
  Overhead = wall time - critical path.
Prints figures only; nothing passes or fails.
"""

import argparse
import configparser
import contextlib
import datetime
import glob
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import threading
import time

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [os.path.dirname(os.path.abspath(__file__)), os.path.join(ROOT, "twin")]

from rail_mesh_twin import _rounds  # noqa: E402  (bench/ on the path above)
from pyramid_twin import timing as twin_timing  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")
VENDORS = "[eos, nxos, sonic, cumulus]"
PLAY_LINE = re.compile(r"^PLAY \[(.*)\] \*+")
RECAP = re.compile(r"^PLAY RECAP \*+")
PING_INTERVAL = 0.2  # the rail mesh's ping -i 0.2 / fping -p 200 (catalog/rail_mesh.yml)
# which play of validate.yml each part of the critical path falls in, by a word of its name
PLAY_OF = {"soak": "Layer 1 - links", "incast": "induced incast", "ping": "per-rail ping mesh",
           "rdma": "ib_write_bw on every rail", "nccl": "Layer 5", "train": "Layer 6"}


def scenario_text(nodes, spines, factor):
    text = ("pod: {nodes: %d, gpus_per_node: 8, rails: 8}\nswitches: {spines: %d, nodes_per_leaf: 32, leaf_os: %s, "
            "spine_os: %s}\nfaults: []\n" % (nodes, spines, VENDORS, VENDORS))
    return text + ("timing: {factor: %g}\n" % factor if factor is not None else "")


def forks():
    """The forks this run's ansible-playbook gets: ANSIBLE_FORKS, else ansible.cfg's, else Ansible's default 5."""
    if os.environ.get("ANSIBLE_FORKS"):
        return int(os.environ["ANSIBLE_FORKS"])
    config = configparser.ConfigParser()
    config.read(os.path.join(ROOT, "ansible.cfg"))
    return config.getint("defaults", "forks", fallback=5)


def switch_count(nodes, spines):
    return 8 * -(-nodes // 32) + spines


# --- the controller's processes --------------------------------------------------------------------------------

def _stat(pid):
    """(ppid, utime + stime, cutime + cstime) in seconds, or None for a process gone."""
    try:
        with open("/proc/%d/stat" % pid, encoding="utf-8") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return int(fields[1]), (int(fields[11]) + int(fields[12])) / TICK, (int(fields[13]) + int(fields[14])) / TICK


def descendants(root):
    """The pids below root, from every process's parent."""
    children = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            stat = _stat(int(name))
            if stat:
                children.setdefault(stat[0], []).append(int(name))
    found, todo = [], [root]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def cpu_seconds(pid):
    """The controller's CPU seconds so far: its own, its reaped descendants', its live descendants'."""
    own = _stat(pid)
    if own is None:
        return None
    live = sum(stat[1] for stat in map(_stat, descendants(pid)) if stat)
    return own[1] + own[2] + live


def machine_busy_seconds():
    """CPU seconds every core of this machine has spent busy since boot (/proc/stat's cpu line less idle and iowait):
    the controller, the twin's sshd and tools, and anything else running beside them."""
    try:
        with open("/proc/stat", encoding="utf-8") as handle:
            fields = [int(value) for value in handle.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    return (sum(fields[:8]) - fields[3] - fields[4]) / TICK  # user..steal; guest time is already in user


def vm_hwm_kb(pid):
    try:
        with open("/proc/%d/status" % pid, encoding="utf-8") as handle:
            return next((int(line.split()[1]) for line in handle if line.startswith("VmHWM:")), 0)
    except OSError:
        return 0


class MemorySampler(threading.Thread):
    """Peak VmHWM of the main process and of its largest descendant, every `period` seconds."""

    def __init__(self, pid, period):
        super().__init__(daemon=True)
        self.pid, self.period, self.main_kb, self.worker_kb = pid, period, 0, 0
        self.done = threading.Event()

    def run(self):
        while not self.done.wait(self.period):
            self.sample()

    def sample(self):
        self.main_kb = max(self.main_kb, vm_hwm_kb(self.pid))
        for child in descendants(self.pid):
            self.worker_kb = max(self.worker_kb, vm_hwm_kb(child))


# --- one run ---------------------------------------------------------------------------------------------------

@contextlib.contextmanager
def telemetry_of(scenario):
    """The twin's demo Prometheus scrapes this pod's devices during the run (its exporter serves the twin's own
    scenarios and pods up to 64 nodes: Layer 7 of a larger pod would FAIL "no series" on the rest), and the
    twin's own set again after it."""
    with open(os.path.join(ROOT, ".twin", "python.path"), encoding="utf-8") as handle:  # written by twin/up
        python = handle.read().strip()
    script = os.path.join(ROOT, "twin", "prometheus")
    subprocess.run([script, "up", python, scenario], cwd=ROOT, check=True)
    try:
        yield
    finally:
        subprocess.run([script, "up", python], cwd=ROOT, check=False)


def run_once(nodes, args, work):
    scenario = os.path.join(work, "pod-%d.yml" % nodes)
    with open(scenario, "w", encoding="utf-8") as handle:
        handle.write(scenario_text(nodes, args.spines, args.timing))
    with telemetry_of(scenario):
        return _run(scenario, args, work)


def _run(scenario, args, work):
    reports = tempfile.mkdtemp(dir=work)
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"), ANSIBLE_FORCE_COLOR="0")
    playbook = os.path.join(os.path.dirname(sys.executable), "ansible-playbook")  # the venv's, beside this Python
    command = [playbook, "playbooks/validate.yml", "-i", "inventories/twin", "-e", "twin_scenario=" + scenario,
               "-e", "pyramid_report_dir=" + reports, "-e", "pyramid_incast=true"]
    for item in args.extra:
        command += ["-e", item]
    start, busy_at_start = time.time(), machine_busy_seconds()
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    sampler = MemorySampler(process.pid, args.sample)
    sampler.start()
    marks, tail = [], []  # (play name or None for the recap, seconds since start, controller CPU s, machine busy s)
    for line in process.stdout:
        tail = (tail + [line])[-40:]
        match = PLAY_LINE.match(line) or RECAP.match(line)
        if match:
            sampler.sample()
            marks.append((match.group(1) if match.groups() else None, time.time() - start, cpu_seconds(process.pid),
                          machine_busy_seconds()))
    sampler.sample()
    cpu_before_exit = cpu_seconds(process.pid)
    _pid, status, usage = os.wait4(process.pid, 0)
    wall, busy_at_end = time.time() - start, machine_busy_seconds()
    sampler.done.set()
    rc = os.waitstatus_to_exitcode(status)
    process.returncode = rc
    if rc not in (0, 2):  # 2: a host failed or was unreachable, still a run with a report
        raise SystemExit("validate.yml exited %d:\n%s" % (rc, "".join(tail)))
    run_dir = sorted(path for path in glob.glob(os.path.join(reports, "*")) if not path.endswith("latest"))[-1]
    cpu_total = usage.ru_utime + usage.ru_stime
    with open(os.path.join(run_dir, "report.json"), encoding="utf-8") as handle:
        report = json.load(handle)
    verdict = report["verdict"]
    if unreachable_everywhere(report):
        raise SystemExit("no device answered (host unreachable): is the twin up, from this checkout (twin/up)? "
                         "Figures of such a run measure nothing")
    busy = busy_at_end - busy_at_start if None not in (busy_at_start, busy_at_end) else None
    return {"verdict": verdict, "not_passing": not_passing(report), "wall_s": wall, "cpu_s": cpu_total,
            "cpu_sampled_before_exit_s": cpu_before_exit,
            "machine_busy_s": busy, "marks": marks,
            "memory": {"main_vmhwm_mb": sampler.main_kb / 1024.0, "largest_descendant_vmhwm_mb": sampler.worker_kb / 1024.0,
                       "ru_maxrss_mb": usage.ru_maxrss / 1024.0},
            "rounds": rounds(run_dir), "waits": twin_timing.load(glob.glob(os.path.join(ROOT, ".twin", "changes", "*", "timing")),
                                                                 since=start, until=start + wall)}


def _shortened(text, keep=400):
    return text if len(text) <= keep else text[:keep // 2] + " ... " + text[-keep // 2:]


def not_passing(report):
    """["host L<n> check STATUS: actual"] of every FAIL and ERROR of the run: a NO-GO pod's figures say why (the
    actual's last part too, where the cause sits in a long one: an incast names its 8 senders before it)."""
    return ["%s L%d %s %s: %s" % (name, check["layer"], check["check"], check["status"], _shortened(check.get("actual") or ""))
            for name, host in sorted(report["hosts"].items()) for check in host["checks"] if check["status"] in ("FAIL", "ERROR")]


def unreachable_everywhere(report):
    """Whether every GPU node's first check says its host was unreachable (another checkout's twin on the port)."""
    firsts = [host["checks"][0] for name, host in report["hosts"].items() if name.startswith("node-") and host["checks"]]
    return bool(firsts) and all("host unreachable" in (check.get("actual") or "") for check in firsts)


def rounds(run_dir):
    """Rounds of the pairwise layers, from the run directory."""
    incast = os.path.join(run_dir, "incast", "plan.json")
    incast_rounds = None
    if os.path.exists(incast):
        with open(incast, encoding="utf-8") as handle:
            incast_rounds = len(json.load(handle).get("rounds", []))
    logs = [os.path.basename(path) for path in glob.glob(os.path.join(run_dir, "hunt", "*.log"))]
    return {"l2": _rounds(run_dir, 2), "l4": _rounds(run_dir, 4), "incast": incast_rounds,
            "launcher_runs": {check: sum(1 for name in logs if name.startswith(check + "-"))
                              for check in ("nccl_pairs", "nccl_scale", "training_pod")}}


# --- the critical path -----------------------------------------------------------------------------------------

def expectation(name, extra):
    """An inventory variable as this run sets it: --extra, else the twin's group_vars, else the catalog's default."""
    for item in extra:
        key, _equals, value = item.partition("=")
        if key == name:
            return yaml.safe_load(value)
    with open(os.path.join(ROOT, "inventories", "twin", "group_vars", "all.yml"), encoding="utf-8") as handle:
        group_vars = yaml.safe_load(handle) or {}
    if name in group_vars:
        return group_vars[name]
    for path in sorted(glob.glob(os.path.join(ROOT, "catalog", "*.yml"))):
        with open(path, encoding="utf-8") as handle:
            declared = (yaml.safe_load(handle) or {}).get("expectations") or {}
        if name in declared:
            return declared[name].get("default")
    raise KeyError(name)


def self_timed(waits, kind):
    """Seconds of one kind of the twin's self-timed waits on the critical path: the longest single-node run, the
    longest two-node run, the sum of the larger runs."""
    mine = [w for w in waits if w["kind"] == kind]
    single = max((w["seconds"] for w in mine if w["nodes"] == 1), default=0.0)
    pairs = max((w["seconds"] for w in mine if w["nodes"] == 2), default=0.0)
    return single + pairs + sum(w["seconds"] for w in mine if w["nodes"] > 2)


def critical_path(run, extra, timed):
    """{part: seconds} of the tests' own durations on this run."""
    got = run["rounds"]
    parts = {"soak": float(expectation("pyramid_soak_seconds", extra)),
             "incast": (got["incast"] or 0) * float(expectation("pyramid_incast_duration", extra))}
    if timed:
        l2, l4 = got["l2"] or (0, 0, 0), got["l4"] or (0, 0, 0)
        parts["ping"] = sum(l2) * (int(expectation("pyramid_ping_count", extra)) - 1) * PING_INTERVAL
        parts["rdma"] = sum(l4) * float(expectation("pyramid_rdma_duration", extra))
        parts["nccl"] = self_timed(run["waits"], "nccl")
        parts["train"] = self_timed(run["waits"], "train")
    return parts


# --- the plays -------------------------------------------------------------------------------------------------

def play_hosts():
    """{play name: its hosts pattern}, from playbooks/validate.yml."""
    with open(os.path.join(ROOT, "playbooks", "validate.yml"), encoding="utf-8") as handle:
        return {play["name"]: play.get("hosts", "") for play in yaml.safe_load(handle) if "name" in play}


def devices_of(pattern, nodes, switches):
    groups = pattern.split(":")
    return (nodes if "gpu_nodes" in groups else 0) + (switches if "switches" in groups else 0)


def per_play(run, parts, nodes, switches):
    hosts = play_hosts()
    rows = []
    for (name, at, cpu, busy), (_next, next_at, next_cpu, next_busy) in zip(run["marks"], run["marks"][1:]):
        critical = sum(seconds for part, seconds in parts.items() if PLAY_OF[part] in name)
        devices = devices_of(hosts.get(name, ""), nodes, switches)
        spent = next_cpu - cpu if None not in (cpu, next_cpu) else None
        rows.append({"play": name, "devices": devices, "wall_s": next_at - at, "cpu_s": spent,
                     "cpu_per_device_s": spent / devices if spent is not None and devices else None,
                     "machine_busy_s": next_busy - busy if None not in (busy, next_busy) else None,
                     "critical_s": critical, "overhead_s": next_at - at - critical})
    return rows


def summarize(nodes, args, run):
    switches = switch_count(nodes, args.spines)
    parts = critical_path(run, args.extra, args.timing is not None)
    critical = sum(parts.values())
    return {"nodes": nodes, "switches": switches, "timing_factor": args.timing, "extra": args.extra,
            "verdict": run["verdict"], "not_passing": run["not_passing"], "wall_s": run["wall_s"], "cpu_s": run["cpu_s"],
            "cpu_per_device_s": run["cpu_s"] / (nodes + switches),
            "machine_busy_s": run["machine_busy_s"], "cores": os.cpu_count(), "forks": forks(),
            "critical_s": critical, "critical_parts_s": parts, "overhead_s": run["wall_s"] - critical,
            "memory": run["memory"], "rounds": run["rounds"], "plays": per_play(run, parts, nodes, switches),
            "twin_waits": len(run["waits"])}


# --- output ----------------------------------------------------------------------------------------------------

def _num(value, fmt="%.1f"):
    return fmt % value if value is not None else "-"


def busy_share(busy, wall, cores):
    """The share of the machine's cores busy over a span: 1.0 when the run was CPU-bound, whoever used them."""
    return busy / (wall * cores) if busy is not None and wall > 0 and cores else None


def _percent(share):
    return "%.0f%%" % (100.0 * share) if share is not None else "-"


def _triple(value):
    return "/".join(str(v) for v in value) if value else "-"


def print_table(result):
    print("%d nodes, %d switches, forks %d%s: %s, validate.yml %.1f s, controller CPU %.1f s (%.2f s per device), critical path "
          "%.1f s (%s), overhead %.1f s" % (
              result["nodes"], result["switches"], result["forks"], ", timing factor %g" % result["timing_factor"]
              if result["timing_factor"] is not None else "", result["verdict"], result["wall_s"], result["cpu_s"], result["cpu_per_device_s"],
              result["critical_s"], ", ".join("%s %.1f" % item for item in result["critical_parts_s"].items()),
              result["overhead_s"]))
    for line in result["not_passing"][:12]:
        print("not passing: " + line)
    share = busy_share(result["machine_busy_s"], result["wall_s"], result["cores"])
    if share is not None:
        print("machine: %d cores busy %.1f s of %.1f core-seconds (%s): the controller %.1f s, the rest (the twin's sshd "
              "and tools, anything running beside) %.1f s" % (
                  result["cores"], result["machine_busy_s"], result["wall_s"] * result["cores"], _percent(share),
                  result["cpu_s"], result["machine_busy_s"] - result["cpu_s"]))
    memory, got = result["memory"], result["rounds"]
    print("peak memory: ansible-playbook %.0f MB, largest worker %.0f MB (VmHWM, sampled); ru_maxrss %.0f MB" % (
        memory["main_vmhwm_mb"], memory["largest_descendant_vmhwm_mb"], memory["ru_maxrss_mb"]))
    print("rounds: L2 ping %s (planned/GPUDirect/retest), L4 ib_write_bw %s, incast %s; launcher runs: %s" % (
        _triple(got["l2"]), _triple(got["l4"]), _num(got["incast"], "%d"),
        ", ".join("%s %d" % item for item in got["launcher_runs"].items())))
    print("| play | devices | wall s | CPU s | CPU s/device | machine busy | critical s | overhead s |")
    print("|---|---|---|---|---|---|---|---|")
    for row in result["plays"]:
        print("| %s | %d | %.1f | %s | %s | %s | %.1f | %.1f |" % (
            row["play"], row["devices"], row["wall_s"], _num(row["cpu_s"]), _num(row["cpu_per_device_s"], "%.3f"),
            _percent(busy_share(row["machine_busy_s"], row["wall_s"], result["cores"])), row["critical_s"], row["overhead_s"]))
    print("| validate.yml | %d | %.1f | %.1f | %.3f | %s | %.1f | %.1f |" % (
        result["nodes"] + result["switches"], result["wall_s"], result["cpu_s"], result["cpu_per_device_s"],
        _percent(share), result["critical_s"], result["overhead_s"]))


def machine():
    model = ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            model = next((line.split(":", 1)[1].strip() for line in handle if line.startswith("model name")), "")
    except OSError:
        pass
    return {"cores": os.cpu_count(), "cpu": model, "host": platform.node(), "python": platform.python_version()}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--nodes", type=int, nargs="+", default=[8, 32])
    parser.add_argument("--spines", type=int, default=4)
    parser.add_argument("--timing", type=float, metavar="FACTOR", help="the twin's timing mode at this factor")
    parser.add_argument("--extra", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--sample", type=float, default=1.0, help="seconds between memory samples")
    parser.add_argument("--json", metavar="PATH")
    args = parser.parse_args()
    results = []
    with tempfile.TemporaryDirectory() as work:
        for nodes in args.nodes:
            results.append(summarize(nodes, args, run_once(nodes, args, work)))
            print_table(results[-1])
            print()
            sys.stdout.flush()
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump({"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                       "machine": machine(), "runs": results}, handle, indent=1)
            handle.write("\n")


if __name__ == "__main__":
    main()
