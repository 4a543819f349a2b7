"""The twin over real SSH: each 127.1.x.y answers as its node of the scenario, with real tools
(lsmod, cat, python) reading the node's /proc and /sys, and fake vendor tools."""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request

import pytest
import yaml

from ansible_collections.gpufabric.pyramid.tests import daemons
from pyramid_twin import formats, model

pytestmark = pytest.mark.twin

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
STATE = os.path.join(ROOT, ".twin")
KEY = os.path.join(STATE, "id_ed25519")
BIN = os.path.dirname(sys.executable)  # ansible* of the Python running pytest


@pytest.fixture(scope="session")
def twin():
    if os.geteuid() != 0:
        pytest.skip("the twin needs root (its own sshd, mount namespaces)")
    for tool in ("sshd", "ssh", "unshare"):
        if not shutil.which(tool, path=os.environ.get("PATH", "") + ":/usr/sbin:/sbin"):
            pytest.skip("the twin needs %s (make setup installs it)" % tool)
    subprocess.run([os.path.join(ROOT, "twin", "up")], check=True)
    return ROOT


def test_no_daemon_of_another_user_reads_the_checkout(twin):
    """The twin's daemons (its sshd, the exporter and Prometheus of Layer 7) run as root, or read nothing of the
    checkout: a daemon that drops to its own user cannot enter a clone under root's home (issue 73)."""
    assert daemons.reaching_into(twin) == []


@pytest.fixture
def scenario(tmp_path):
    """scenario(dict) -> path of a scenario file holding it."""
    count = [0]

    def write(data):
        count[0] += 1
        path = tmp_path / ("scenario%d.yml" % count[0])
        path.write_text(yaml.safe_dump(data))
        return str(path)

    return write


def ssh_args(index, scenario=None, port=2222, control_path=None):
    """ssh to node ``index``; with control_path, through a ControlPersist master as Ansible does."""
    mux = ["ControlMaster=auto", "ControlPersist=30s", "ControlPath=" + control_path] if control_path else \
        ["ControlMaster=no", "ControlPath=none"]
    args = ["ssh", "-F", "/dev/null", "-i", KEY, "-p", str(port), "-o", "BatchMode=yes",
            "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR",
            "-o", "ConnectTimeout=10"]
    for option in mux:
        args += ["-o", option]
    if scenario:
        args += ["-o", "SetEnv=PYRAMID_TWIN_SCENARIO=%s" % scenario]
    return args + ["root@127.1.%d.%d" % divmod(index, 256)]


@pytest.fixture
def ssh(twin):
    """ssh(node index, command, scenario=None, input=None) -> CompletedProcess (text unless input is bytes)."""

    def run(index, command, scenario=None, input=None, port=2222, timeout=60):
        return subprocess.run(ssh_args(index, scenario, port) + [command], input=input, capture_output=True,
                              text=not isinstance(input, bytes), timeout=timeout, check=False)

    return run


@pytest.fixture(scope="session")
def ansible_env(twin, tmp_path_factory):
    """Environment for ansible* commands: the twin inventory plugin, pipelining, no repo ansible.cfg."""
    cfg = tmp_path_factory.mktemp("ansible") / "ansible.cfg"
    cfg.write_text(
        "[defaults]\n"
        "inventory_plugins = %s\n"
        "forks = 16\nhost_key_checking = False\ndeprecation_warnings = False\n"
        "[inventory]\nenable_plugins = pyramid_twin, yaml, ini\nunparsed_is_failed = True\n"
        "[ssh_connection]\npipelining = True\n" % os.path.join(ROOT, "twin", "inventory_plugins"))
    env = dict(os.environ, ANSIBLE_CONFIG=str(cfg), PATH=BIN + ":" + os.environ.get("PATH", ""))
    env.pop("PYRAMID_TWIN_SCENARIO", None)
    return env


@pytest.fixture
def ansible(ansible_env):
    """ansible(tool, *args, env=None) -> CompletedProcess; run from the repo root."""

    def run(tool, *args, env=None, timeout=300):
        return subprocess.run([os.path.join(BIN, tool)] + list(args), cwd=ROOT, capture_output=True, text=True,
                              env=dict(ansible_env, **(env or {})), timeout=timeout, check=False)

    return run


DEFAULT = os.path.join(ROOT, "twin", "scenarios", "default.yml")
LSMOD_HEADER = "Module                  Size  Used by"
# Ansible's get_bin_path: PATH, then the sbin directories.
WHICH = ("/usr/bin/python3 -c \"import os, shutil; "
         "print(shutil.which('%s', path=os.environ['PATH'] + ':/sbin:/usr/sbin:/usr/local/sbin'))\"")


def plain(value):
    """ansible-inventory marks plugin-set strings as unsafe: {"__ansible_unsafe": "..."}."""
    return value.get("__ansible_unsafe", value) if isinstance(value, dict) else value


def state(scenario_path, name):
    return model.node_state(model.load_scenario(scenario_path), name)


# --- what a node shows ---------------------------------------------------------------------

def test_node_proc_files(ssh):
    done = ssh(1, "cat /proc/meminfo; echo ==; cat /proc/cmdline; echo ==; cat /proc/sys/kernel/osrelease; "
                  "echo ==; ls /sys/class/iommu; echo ==; hostname")
    assert done.returncode == 0, done.stderr
    meminfo, cmdline, osrelease, iommu, hostname = done.stdout.split("==\n")
    assert re.search(r"^HugePages_Total:\s+64$", meminfo, re.M)
    node = state(DEFAULT, "node-001")
    assert meminfo == formats.proc_meminfo(node)
    assert cmdline == formats.proc_cmdline(node)
    assert osrelease == formats.proc_osrelease(node)
    assert iommu.split() == sorted(node["iommu_units"])
    assert hostname.strip() == "node-001"


def test_proc_modules_per_node(ssh):
    healthy, faulty = ssh(1, "cat /proc/modules"), ssh(7, "cat /proc/modules")
    assert healthy.stdout == formats.proc_modules(state(DEFAULT, "node-001"))
    assert re.search(r"^nvidia_peermem ", healthy.stdout, re.M)
    assert faulty.returncode == 0 and "nvidia_uvm" in faulty.stdout
    assert not re.search(r"^nvidia_peermem ", faulty.stdout, re.M)  # default.yml: module_missing


def _lsmod_row(row):
    fields = row.split()
    return fields[:3], set(fields[3].split(",")) if len(fields) > 3 else set()


def test_lsmod_is_the_real_one_reading_the_node(ssh):
    if not any(os.path.exists(p) for p in ("/usr/sbin/lsmod", "/sbin/lsmod", "/usr/bin/lsmod")):
        pytest.skip("lsmod is not installed on this host (apt-get install kmod)")
    done = ssh(7, "command -v lsmod; readlink -f $(command -v lsmod); lsmod")
    assert done.returncode == 0, done.stderr
    where, target, header, *rows = done.stdout.splitlines()
    assert ".twin" not in where and target.endswith("/kmod")
    assert header == LSMOD_HEADER
    # kmod lists holders in sysfs directory order: compare them as sets.
    expected = formats.lsmod(state(DEFAULT, "node-007")).splitlines()[1:]
    assert [_lsmod_row(row) for row in rows] == [_lsmod_row(row) for row in expected]
    assert "nvidia_peermem" not in done.stdout


def test_ibstat(ssh):
    done = ssh(1, "ibstat; echo rc=$?; ibstat -l; ibstat --bogus; echo rc=$?")
    assert done.stdout.startswith("CA 'mlx5_0'\n")
    assert "rc=0\nmlx5_0\nmlx5_1\n" in done.stdout
    assert done.stdout.endswith("rc=2\n") and "Usage: ibstat" in done.stderr


def test_mlxconfig_on_the_reimaged_node(ssh):
    done = ssh(19, "mlxconfig -d mlx5_0 -e q")
    assert done.returncode == 0, done.stderr
    assert re.search(r"^\*\s+ROCE_CC_PRIO_MASK_P1\s+255\s+0\s+0\s*$", done.stdout, re.M)
    assert re.search(r"^\s+ROCE_CC_PRIO_MASK_P1\s+255\s+255\s+255\s*$", ssh(18, "mlxconfig -d mlx5_0 -e q").stdout, re.M)
    bad = ssh(19, "mlxconfig -d mlx5_0 -e q; mlxconfig -d mlx5_9 -e q; echo rc=$?; mlxconfig --bogus; echo rc=$?")
    assert "-E- Failed to open the device\nrc=1\n-E- Unknown flag: --bogus\nrc=1\n" in bad.stdout


def test_nvidia_smi_and_modinfo(ssh):
    done = ssh(1, "nvidia-smi topo -m | head -1; nvidia-smi --bogus; echo rc=$?; modinfo -F version nvidia; "
                  "/sbin/modinfo nvidia | head -1")
    node = state(DEFAULT, "node-001")
    lines = done.stdout.splitlines()
    assert lines[0] == formats.nvidia_smi_topo(node).splitlines()[0]
    assert lines[1:] == ["Invalid combination of input arguments. Please run 'nvidia-smi -h' for help.", "",
                         "rc=2", "550.90.07", formats.modinfo_nvidia(node).splitlines()[0]]


# --- tool faults ----------------------------------------------------------------------------

def test_tool_missing(ssh, scenario):
    path = scenario({"pod": {"nodes": 2}, "faults": [
        {"node": "node-001", "kind": "tool_missing", "tool": tool} for tool in ("ibstat", "lsmod", "modinfo")]
        + [{"node": "node-002", "kind": "tool_missing", "tool": "modinfo"}]})
    for tool in ("ibstat", "lsmod", "modinfo"):
        assert ssh(1, WHICH % tool, scenario=path).stdout == "None\n", tool
    assert ssh(1, "ibstat", scenario=path).returncode == 127
    # modinfo missing leaves lsmod alone, though both are links to /bin/kmod on the host.
    done = ssh(2, (WHICH % "modinfo") + "; lsmod | head -1", scenario=path)
    assert done.stdout == "None\n" + LSMOD_HEADER + "\n"


def test_tool_hang_dies_on_sigterm(ssh, scenario):
    path = scenario({"pod": {"nodes": 2}, "faults": [
        {"node": "node-002", "kind": "tool_hang", "tool": "ibstat"},
        {"node": "node-002", "kind": "tool_hang", "tool": "lsmod"}]})
    started = time.monotonic()
    done = ssh(2, "timeout 1 ibstat; echo rc=$?; timeout 1 /usr/sbin/lsmod; echo rc=$?; nvidia-smi topo -m >/dev/null; "
                  "echo rc=$?", scenario=path)
    assert done.stdout == "rc=124\nrc=124\nrc=0\n"
    assert time.monotonic() - started < 20


def test_tool_garbage(ssh, scenario):
    path = scenario({"pod": {"nodes": 2}, "faults": [
        {"node": "node-001", "kind": "tool_garbage", "tool": "mlxconfig"},
        {"node": "node-001", "kind": "tool_garbage", "tool": "lsmod"}]})
    done = ssh(1, "mlxconfig -d mlx5_0 -e q; echo rc=$?; lsmod; echo rc=$?", scenario=path)
    assert done.stdout == formats.garbage("mlxconfig") + "rc=0\n" + formats.garbage("lsmod") + "rc=0\n"


# --- the session itself ---------------------------------------------------------------------

def test_unreachable_node_refuses_connections(ssh, scenario, ansible):
    path = scenario({"pod": {"nodes": 2}, "faults": [{"node": "node-002", "kind": "unreachable"}]})
    inventory = json.loads(ansible("ansible-inventory", "-i", "inventories/twin", "--list",
                                   "-e", "twin_scenario=" + path).stdout)
    port = inventory["_meta"]["hostvars"]["node-002"]["ansible_port"]
    done = ssh(2, "true", scenario=path, port=port)
    assert done.returncode == 255 and "Connection refused" in done.stderr
    direct = ssh(2, "true", scenario=path)  # straight to the twin's port: the node still does not answer
    assert direct.returncode == 255 and "unreachable" in direct.stderr


def test_stdin_stdout_and_exit_code_pass_through(ssh):
    payload = bytes(range(256)) * 4096  # 1 MiB, every byte value
    done = ssh(1, "cat", input=payload)
    assert done.returncode == 0 and done.stdout == payload
    assert ssh(1, "echo out; echo err >&2; exit 7").returncode == 7
    assert ssh(1, "echo out; echo err >&2").stderr == "err\n"


def test_scenario_errors_fail_like_ssh(ssh, scenario, tmp_path):
    broken = tmp_path / "broken.yml"
    broken.write_text("pod: [\n")
    cases = {str(tmp_path / "absent.yml"): "No such file", str(broken): "broken.yml",
             scenario({"pod": {"nodes": 2}}): "no node at 127.1.0.3",
             scenario({"pod": {"nodes": 3}, "faults": [{"node": "node-003", "kind": "rail_rate", "rail": "mlx5_9"}]}):
                 "no rail 'mlx5_9'"}
    for path, words in cases.items():
        done = ssh(3, "true", scenario=path)
        assert done.returncode == 255 and words in done.stderr, (path, done.stderr)


def test_concurrent_first_sessions_render_once(ssh, scenario):
    path = scenario({"pod": {"nodes": 12}, "faults": [{"node": "node-005", "kind": "hugepages", "total": 8}]})
    results = {}

    def one(index):
        results[index] = ssh(index, "grep HugePages_Total /proc/meminfo", scenario=path)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(1, 13)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for index, done in results.items():
        assert done.returncode == 0, done.stderr
        assert done.stdout.split()[-1] == ("8" if index == 5 else "64")


def test_the_host_is_untouched(ssh):
    ssh(1, "true")
    assert os.uname().nodename != "node-001"
    with open("/proc/cmdline", encoding="utf-8") as handle:
        assert handle.read() != formats.proc_cmdline(state(DEFAULT, "node-001"))
    assert os.listdir("/sys/class/iommu") != sorted(state(DEFAULT, "node-001")["iommu_units"])


def test_a_second_checkouts_twin_up_refuses_the_port_ours_holds(ssh, tmp_path):
    """Two checkouts, one port: the second twin/up used to exit 0 while its sshd could not bind, and our
    sshd answered its nodes with our keys ("Failed to authenticate public key" on every node)."""
    other = tmp_path / "other"
    shutil.copytree(os.path.join(ROOT, "twin"), str(other / "twin"), symlinks=True,
                    ignore=shutil.ignore_patterns("__pycache__"))
    run = subprocess.run([str(other / "twin" / "up")], capture_output=True, text=True, timeout=60, check=False)
    try:
        assert run.returncode != 0, run.stdout + run.stderr
        assert "127.1.0.1:2222 is taken by sshd" in run.stderr
        assert os.path.join(STATE, "sshd_config") in run.stderr  # names the twin that holds it
        assert "its twin/down" in run.stderr
        assert ssh(1, "hostname").stdout.strip() == "node-001"  # ours is untouched
    finally:
        subprocess.run([str(other / "twin" / "down")], capture_output=True, timeout=60, check=False)


# --- the inventory plugin and Ansible ---------------------------------------------------------

def test_inventory_plugin(ansible, scenario):
    done = ansible("ansible-inventory", "-i", "inventories/twin", "--list")
    assert done.returncode == 0, done.stderr
    listed = json.loads(done.stdout)
    assert len(listed["gpu_nodes"]["hosts"]) == 32
    host = {key: plain(value) for key, value in listed["_meta"]["hostvars"]["node-007"].items()}
    assert (host["ansible_host"], host["ansible_port"], host["ansible_user"]) == ("127.1.0.7", 2222, "root")
    assert host["ansible_ssh_private_key_file"] == KEY
    assert "SetEnv=PYRAMID_TWIN_SCENARIO=%s" % DEFAULT in host["ansible_ssh_common_args"]

    small = scenario({"pod": {"nodes": 4}})
    by_extra_var = json.loads(ansible("ansible-inventory", "-i", "inventories/twin", "--list",
                                      "-e", "twin_scenario=" + small).stdout)
    assert sorted(by_extra_var["gpu_nodes"]["hosts"]) == ["node-001", "node-002", "node-003", "node-004"]
    by_env = json.loads(ansible("ansible-inventory", "-i", "inventories/twin", "--list",
                                env={"PYRAMID_TWIN_SCENARIO": small}).stdout)
    assert len(by_env["gpu_nodes"]["hosts"]) == 4
    graph = ansible("ansible-inventory", "-i", "inventories/twin", "--graph", "launcher").stdout
    assert "@launcher" in graph

    bad = ansible("ansible-inventory", "-i", "inventories/twin", "--list", "-e", "twin_scenario=" + small + ".absent")
    assert bad.returncode != 0 and "twin scenario" in bad.stderr


def test_adhoc_command_over_a_small_pod(ansible, scenario):
    path = scenario({"pod": {"nodes": 4}, "faults": [{"node": "node-003", "kind": "hugepages", "total": 0}]})
    done = ansible("ansible", "gpu_nodes", "-i", "inventories/twin", "-e", "twin_scenario=" + path,
                   "-m", "ansible.builtin.command", "-a", "cat /proc/cmdline", "-o")
    assert done.returncode == 0, done.stdout + done.stderr
    lines = sorted(line for line in done.stdout.splitlines() if " | CHANGED | rc=0 | " in line)
    assert [line.split()[0] for line in lines] == ["node-001", "node-002", "node-003", "node-004"]
    for line in lines:
        name = line.split()[0]
        assert line.endswith("(stdout) " + formats.proc_cmdline(state(path, name)).strip())
    assert "hugepages=64" not in lines[2] and "hugepages=64" in lines[1]


def test_setenv_needs_a_control_path_per_scenario(ansible, scenario, tmp_path):
    first = scenario({"pod": {"nodes": 2}, "faults": [{"node": "node-002", "kind": "hugepages", "total": 8}]})
    second = scenario({"pod": {"nodes": 2}, "faults": [{"node": "node-002", "kind": "hugepages", "total": 16}]})
    # OpenSSH: a session multiplexed over a ControlPersist master carries the master's SetEnv.
    control = tempfile.mkdtemp(prefix="tw", dir="/tmp") + "/%C"  # a socket path has at most 107 bytes
    seen = []
    for path in (first, second):
        done = subprocess.run(ssh_args(2, path, control_path=control) + ["grep HugePages_Total /proc/meminfo"],
                              capture_output=True, text=True, timeout=60, check=False)
        seen.append(done.stdout.split()[-1])
    subprocess.run(ssh_args(2, control_path=control)[:-1] + ["-O", "exit", ssh_args(2)[-1]], capture_output=True,
                   timeout=60, check=False)
    shutil.rmtree(os.path.dirname(control), ignore_errors=True)
    assert seen == ["8", "8"]
    # The inventory gives each scenario its own control sockets, so Ansible sees each one.
    seen = []
    for path in (first, second, first):
        done = ansible("ansible", "node-002", "-i", "inventories/twin", "-e", "twin_scenario=" + path,
                       "-m", "ansible.builtin.command", "-a", "grep HugePages_Total /proc/meminfo", "-o")
        seen.append(done.stdout.split()[-1])
    assert seen == ["8", "16", "8"]


def test_ping_the_default_pod(ansible):
    started = time.monotonic()
    done = ansible("ansible", "gpu_nodes", "-i", "inventories/twin", "-m", "ansible.builtin.ping", "-f", "16", "-o")
    elapsed = time.monotonic() - started
    assert done.returncode == 0, done.stdout[-2000:]
    assert done.stdout.count("SUCCESS") == 32
    print("ansible ping over 32 twin nodes (forks 16): %.1f s" % elapsed)


PLACE_PROBE = """
import os, sys
sys.path.insert(0, sys.argv[2])
from pyramid_twin import namespace
lib = namespace._libc
namespace._check(lib.unshare(namespace.CLONE_NEWNS), "unshare")
namespace.mount(None, "/", None, namespace.MS_REC | namespace.MS_PRIVATE)
namespace._place(sys.argv[1], sys.argv[3:])
for path in sys.argv[3:]:
    print(path, sorted(os.listdir(path)) if os.path.isdir(path) else open(path).read().strip())
print(open("/proc/self/status").read().startswith("Name:"), "cpuinfo" in os.listdir("/proc"))
"""


def test_placing_paths_the_host_lacks(twin, tmp_path):
    """Files under directories the host kernel does not have get there through shadow mounts."""
    node = tmp_path / "node"
    for sub in ("mnt/stash", "mnt/shade", "fs/proc/driver/nvidia", "fs/sys/class/infiniband/mlx5_0",
                "fs/sys/class/infiniband/mlx5_1", "fs/proc"):
        (node / sub).mkdir(parents=True, exist_ok=True)
    (node / "fs/proc/driver/nvidia/version").write_text("NVRM version: test\n")
    (node / "fs/proc/modules").write_text("nvidia 1 0 - Live 0x0\n")
    (node / "fs/proc/cmdline").write_text("node cmdline\n")
    paths = ["/proc/driver/nvidia/version", "/sys/class/infiniband", "/proc/modules", "/proc/cmdline"]
    host_before = [os.path.exists(path) for path in paths]
    done = subprocess.run([sys.executable, "-c", PLACE_PROBE, str(node), os.path.join(ROOT, "twin")] + paths,
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "/proc/driver/nvidia/version NVRM version: test",
        "/sys/class/infiniband ['mlx5_0', 'mlx5_1']",
        "/proc/modules nvidia 1 0 - Live 0x0",
        "/proc/cmdline node cmdline",
        "True True",  # the rest of /proc still works
    ]
    assert [os.path.exists(path) for path in paths] == host_before  # the host is untouched


# --- the demo Prometheus (twin/prometheus) ---------------------------------------------------------

def _series_of(url, node):
    query = urllib.parse.urlencode({"query": 'count(DCGM_FI_PROF_GR_ENGINE_ACTIVE{Hostname="%s"})' % node})
    with urllib.request.urlopen("%s/api/v1/query?%s" % (url, query), timeout=10) as answer:
        result = json.load(answer)["data"]["result"]
    return int(result[0]["value"][1]) if result else 0


def test_demo_prometheus_serves_a_larger_pod_then_the_twins_own_again(twin, tmp_path):
    """A bench pod beyond the exporter's 64 nodes: `up PYTHON SCENARIO` restarts the exporter with it and returns
    once Prometheus scraped it; `up PYTHON` puts the twin's own set back (bench/pod_twin.py does both)."""
    if not shutil.which("prometheus"):
        pytest.skip("no prometheus binary (make setup installs it)")
    pod = tmp_path / "pod-70.yml"
    pod.write_text("pod: {nodes: 70, gpus_per_node: 8, rails: 8}\nswitches: {spines: 4, nodes_per_leaf: 32}\n"
                   "faults: []\n")
    script, python = os.path.join(ROOT, "twin", "prometheus"), sys.executable
    with open(os.path.join(STATE, "prometheus.url"), encoding="utf-8") as handle:
        url = handle.read().strip()
    assert _series_of(url, "node-070") == 0  # the twin's own set: pods up to 64 nodes
    try:
        subprocess.run([script, "up", python, str(pod)], check=True, timeout=120)
        assert _series_of(url, "node-070") == 8  # scraped before `up` returned: one series per GPU
        assert _series_of(url, "node-001") == 8
    finally:
        subprocess.run([script, "up", python], check=True, timeout=120)
    assert _series_of(url, "node-070") == 0  # gone from the next scrape on
    assert _series_of(url, "node-001") == 8
