"""A twin pod's InfiniBand subnet answered by the real management stack (pod.ib_stack: ibsim; issue 36).

Debian's ibsim-utils (ibsim, libumad2sim), opensm and infiniband-diags, unpacked by `make setup` into .twin/ibstack
(`dpkg -x`, nothing installed: the twin's own nodes must lack /usr/sbin/ibstat for their missing-tool faults). ibsim
simulates the switches and HCAs of the pod's subnet (formats_infiniband.subnet: the same leaves, spines, cables, widths
and speeds the twin's other tools show), opensm sweeps and routes it as the subnet manager, and the fabric host's
`iblinkinfo`, `ibqueryerrors`, `sminfo` and `dump_fts` are the real tools through libumad2sim (LD_PRELOAD), attached as
the reader's own HCA. Nothing they print is written here.

What the scenario says is given to the real stack as an operator or a broken fabric would: the topology file (a link at
1X or a lower speed, crossed cables), ibsim's console (`PerformanceSet` of a port's counters: the faults' error counts
and the incasts' PortXmitWait, set before each read; the port GUIDs the nodes' own ibstat shows), and opensm's command
line (its priority, `-R updn` with a root GUID file for the roots, killed after its sweep for `state: stopped`).
One ibsim and one opensm per pod (scenario digest), started by the first
tool that needs them, on an abstract socket of their own (IBSIM_SOCKNAME); twin/down and twin/up stop them (stop_all).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time

if __name__ == "__main__":  # twin/up and twin/down: `python3 ibsim.py stop`
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from pyramid_twin import changes  # noqa: E402  (path set above when run as a script)

STACK = os.path.join(changes.STATE_DIR, "ibstack", "root")
LIBS = os.path.join(STACK, "usr", "lib", "x86_64-linux-gnu")
UMAD2SIM = os.path.join(LIBS, "umad2sim", "libumad2sim.so")
TOOLS = ("iblinkinfo", "ibqueryerrors", "sminfo", "dump_fts")
# a lane's signalling rate (formats_infiniband) -> the speed word of ibnetdiscover's link column, which ibsim reads
SPEED_WORD = {2.5: "SDR", 5.0: "DDR", 10.0: "QDR", 14.0625: "FDR", 25.78125: "EDR", 53.125: "HDR"}
SWEEP_TIMEOUT = 60.0
# The subnet manager's host: opensm on a UFM appliance's HCA, cabled to the first leaf's last port. On ibsim a switch's
# port answers SMInfo itself with the last master's values after its SM stopped; a CA's only while its SM runs.
SM_HOST = "ufm-01 mlx5_0"


def with_lids(switches, cas, lids):
    """The subnet with each CA at the LID ``lids`` gives its description (what the node's own ibstat shows as its
    Base lid), at both ends of its link: opensm keeps them (guid2lid)."""
    moved = {lid: lids.get(description, lid) for description, _guid, lid, _port in cas}

    def port_to(port):
        if not port.get("remote") or port["remote"]["name"] not in lids:
            return port
        return dict(port, remote=dict(port["remote"], lid=moved.get(port["remote"]["lid"], port["remote"]["lid"])))

    switches = [(guid, name, lid, {number: port_to(port) for number, port in ports.items()})
                for guid, name, lid, ports in switches]
    return switches, [(description, guid, moved[lid], port) for description, guid, lid, port in cas]


def with_sm_host(switches, cas, sm):
    """The subnet with the SM host's HCA on the first leaf's last port (its LID and port GUID: the pod's ib_sm's)."""
    host = sm.get("sm_host") or sm
    guid, name, lid, ports = switches[0]
    last = max(ports)
    link = {"width": "4X", "speed": max(port["speed"] for _d, _g, _l, port in cas), "state": "Active"}
    ports = dict(ports)
    ports[last] = dict(link, remote={"lid": host["lid"], "port": 1, "name": SM_HOST})
    return [(guid, name, lid, ports)] + list(switches[1:]), list(cas) + [
        (SM_HOST, host["guid"], host["lid"], dict(link, remote={"lid": lid, "port": last, "name": name}))]


class StackMissing(RuntimeError):
    """The unpacked stack is not there (make setup could not fetch it)."""


def missing():
    """Why the real stack cannot run here, or None."""
    for path in [os.path.join(STACK, "usr", "bin", "ibsim"), os.path.join(STACK, "usr", "sbin", "opensm"), UMAD2SIM] + [
            os.path.join(STACK, "usr", "sbin", tool) for tool in TOOLS]:
        if not os.path.exists(path):
            return "%s is missing: `make setup` unpacks Debian's ibsim-utils, libumad2sim0, opensm and infiniband-diags there" % path
    return None


def node_id(kind, guid):
    return '%s-%016x' % (kind, int(guid, 16))


def ca_id(port_guid):
    """ibsim's name for the HCA whose port has ``port_guid``: ibsim gives a CA's port 1 its node GUID + 1 (as the
    twin's nodes do: model._guid), and ibsim's console cannot set a port's GUID (its Guid command reads the port
    number as the value), so the CA is made with the GUID below its port's."""
    return node_id("H", "%x" % (int(port_guid, 16) - 1))


def topology(switches, cas, switch_description=None):
    """The subnet (formats_infiniband.subnet) in ibnetdiscover's format, as ibsim reads it: each port line's link
    column ("lid N 4xHDR") sets what the port can train at, so both ends of a link carry the same width and speed.
    ``switch_description``: the node description every switch answers with (ibsim reads it from the quoted name after
    "#"), as unmanaged switches keep their factory one ("Quantum-2 Mellanox Technologies"); the twin's own names stay
    its node ids' (S-<GUID>), so the switches differ by GUID alone."""
    ids = {name: node_id("S", guid) for guid, name, _lid, _ports in switches}
    ids.update({description: ca_id(guid) for description, guid, _lid, _port in cas})
    port_guids = {description: "%016x" % int(guid, 16) for description, guid, _lid, _port in cas}
    lids = {name: lid for _guid, name, lid, _ports in switches}
    lids.update({description: lid for description, _guid, lid, _port in cas})
    shown = {name: switch_description or name for _guid, name, _lid, _ports in switches}

    def link(port):
        word = SPEED_WORD.get(port["speed"])
        if word is None:
            raise ValueError("ibsim shows no %s Gbps lane (known: %s)" % (port["speed"], ", ".join(map(str, SPEED_WORD))))
        return "%sx%s" % (port["width"].rstrip("X"), word)

    lines = []
    for guid, name, lid, ports in switches:
        lines += ["switchguid=0x%016x" % int(guid, 16),
                  'Switch\t%d "%s"\t\t# "%s" enhanced port 0 lid %d lmc 0' % (len(ports), ids[name], shown[name], lid)]
        for number in sorted(ports):
            remote = ports[number].get("remote")
            if remote is None:
                continue
            far = remote["name"]
            guid_part = "(%s)" % port_guids[far] if far in port_guids else ""
            lines.append('[%d]\t"%s"[%d]%s\t\t# "%s" lid %d %s' % (
                number, ids[far], remote["port"], guid_part, shown.get(far, far), lids[far], link(ports[number])))
        lines.append("")
    for description, guid, lid, port in cas:
        remote = port["remote"]
        lines += ["caguid=0x%s" % ids[description][2:],
                  'Ca\t1 "%s"\t\t# "%s"' % (ids[description], description),
                  '[1](%s) \t"%s"[%d]\t\t# lid %d lmc 0 "%s" lid %d %s' % (
                      port_guids[description], ids[remote["name"]], remote["port"], lid, shown[remote["name"]],
                      lids[remote["name"]], link(port)), ""]
    return "\n".join(lines) + "\n"


def guid2lid(switches, cas):
    """opensm's guid2lid cache: the LIDs the twin's subnet gives (switches first), which opensm keeps on its sweep."""
    rows = ["0x%016x %d %d" % (int(guid, 16), lid, lid) for guid, _name, lid, _ports in switches]
    rows += ["0x%016x %d %d" % (int(guid, 16), lid, lid) for _description, guid, lid, _port in cas]
    return "\n".join(rows) + "\n"


class Pod:
    """The real stack of one twin pod: its files in .twin/changes/<digest>/ibsim/."""

    def __init__(self, pod_dir):
        self.dir = os.path.join(pod_dir, "ibsim")
        self.socket = "pyrtwin-%s" % os.path.basename(pod_dir)[:16]

    def env(self, attach):
        env = {key: value for key, value in os.environ.items() if key in ("PATH", "HOME", "LANG", "LC_ALL")}
        env.update(LD_LIBRARY_PATH=LIBS, LD_PRELOAD=UMAD2SIM, IBSIM_SOCKNAME=self.socket, SIM_HOST=attach,
                   OSM_CACHE_DIR=os.path.join(self.dir, "cache"), OSM_TMP_DIR=os.path.join(self.dir, "cache"))
        return env

    def _pid(self, name):
        """The pid of this pod's ``name`` (ibsim, opensm) while it runs, else None. A twin node's session sees the
        processes started after it only under /proc/.host (namespace.py shadows /proc), so both are asked."""
        try:
            with open(os.path.join(self.dir, name + ".pid"), encoding="utf-8") as handle:
                pid = int(handle.read())
        except (OSError, ValueError):
            return None
        if not _alive(pid):
            return None
        for proc in ("/proc", "/proc/.host"):
            try:
                with open("%s/%d/cmdline" % (proc, pid), "rb") as handle:
                    return pid if self.dir.encode() in handle.read() else None  # not a reused pid
            except OSError:
                continue
        return pid

    def _spawn(self, name, argv, env):
        log = open(os.path.join(self.dir, name + ".log"), "ab")  # pylint: disable=consider-using-with
        process = subprocess.Popen(argv, env=env, cwd=self.dir, stdin=subprocess.DEVNULL, stdout=log,  # pylint: disable=consider-using-with
                                   stderr=subprocess.STDOUT, start_new_session=True)
        log.close()
        with open(os.path.join(self.dir, name + ".pid"), "w", encoding="utf-8") as handle:
            handle.write("%d\n" % process.pid)
        return process.pid

    def console(self, *commands):
        """Commands to ibsim's console (its stdin: a FIFO ibsim holds open for reading and writing). Opened without
        waiting: no reader (ibsim gone) is an error, never a writer blocked for ever."""
        try:
            handle = os.open(os.path.join(self.dir, "console"), os.O_WRONLY | os.O_NONBLOCK)
        except OSError as error:
            raise RuntimeError("ibsim's console cannot be written (ibsim gone?): %s" % error) from None
        try:  # the reader can go between the open and the write (ibsim exiting): the same error, never a traceback
            os.write(handle, "".join(command + "\n" for command in commands).encode())
        except OSError as error:
            raise RuntimeError("ibsim's console cannot be written (ibsim gone?): %s" % error) from None
        finally:
            os.close(handle)

    @contextlib.contextmanager
    def locked(self):
        """The pod's stack to this caller alone: its start, and a counters read with the counts set just before it."""
        os.makedirs(self.dir, exist_ok=True)
        with open(os.path.join(self.dir, "lock"), "w", encoding="utf-8") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            yield

    def stop(self):
        """This pod's ibsim and opensm stopped, its markers gone: the next ensure() starts them anew."""
        for name in ("opensm-stray", "opensm", "ibsim"):
            pid = self._pid(name)
            if pid:
                _kill(pid)
        for entry in os.listdir(self.dir) if os.path.isdir(self.dir) else ():
            if entry == "ready" or entry.startswith("done-"):
                os.remove(os.path.join(self.dir, entry))

    def ensure(self, switches, cas, sm, switch_description=None):
        """ibsim and opensm up for this subnet (started once, by whichever tool asks first), the SM's sweep done: the
        `ready` marker, written last. A start cut short (its caller's timeout) or an ibsim gone starts over, from
        nothing of the last one."""
        switches, cas = with_sm_host(switches, cas, sm)
        with self.locked():
            if self._pid("ibsim") and os.path.exists(os.path.join(self.dir, "ready")):
                return
            self.stop()
            reason = missing()
            if reason:
                raise StackMissing(reason)
            try:
                self._start(switches, cas, sm, switch_description)
            except BaseException:
                self.stop()
                raise
            with open(os.path.join(self.dir, "ready"), "w", encoding="utf-8"):
                pass

    def _start(self, switches, cas, sm, switch_description=None):
        os.makedirs(os.path.join(self.dir, "cache"), exist_ok=True)
        with open(os.path.join(self.dir, "net"), "w", encoding="utf-8") as handle:
            handle.write(topology(switches, cas, switch_description))
        with open(os.path.join(self.dir, "cache", "guid2lid"), "w", encoding="utf-8") as handle:
            handle.write(guid2lid(switches, cas))
        fifo = os.path.join(self.dir, "console")
        if os.path.lexists(fifo) and not stat.S_ISFIFO(os.lstat(fifo).st_mode):
            os.remove(fifo)  # a file in its place (written while no FIFO was there): ibsim would spin on it
        if not os.path.exists(fifo):
            os.mkfifo(fifo)
        env = self.env(node_id("S", switches[0][0]))
        open(os.path.join(self.dir, "ibsim.log"), "w", encoding="utf-8").close()  # pylint: disable=consider-using-with
        # ibsim reads its console from the FIFO, opened for reading and writing: it never sees an end of file
        self._spawn("ibsim", ["sh", "-c", 'exec 3<>"$1"; exec "$2" -s "$3" <&3', "ibsim",
                              fifo, os.path.join(STACK, "usr", "bin", "ibsim"), os.path.join(self.dir, "net")], env)
        _wait(lambda: b"sim>" in _read(os.path.join(self.dir, "ibsim.log")), 10.0, "ibsim did not start",
              os.path.join(self.dir, "ibsim.log"))
        self.start_sm(switches, sm)

    def start_sm(self, switches, sm):
        """opensm as the pod's master (pod.ib_sm): on the SM host's HCA, at its priority, routing through its roots
        (updn with a root GUID file where they are not every spine; opensm's default minhop otherwise). Where the
        master is a stray one (pod.ib_sm's node and rail), the stray opensm runs on that node's port at the pod's
        priority, and the planned SM on the SM host, started after it at priority 0, stands by (on ibsim a standby of a
        higher priority started beside a master stayed standby for a minute: no handover was made)."""
        host = sm.get("sm_host") or sm
        if host["guid"] == sm["guid"]:
            self._opensm("opensm", ca_id(host["guid"]), sm["priority"], switches, sm)
            return
        self._opensm("opensm-stray", ca_id(sm["guid"]), sm["priority"], switches, sm)
        self._opensm("opensm", ca_id(host["guid"]), 0, switches, sm, standby=True)

    def _opensm(self, name, attach, priority, switches, sm, standby=False):  # pylint: disable=too-many-arguments
        argv = [os.path.join(STACK, "usr", "sbin", "opensm"), "-p", str(priority), "-f", os.path.join(self.dir, name + "-osm.log")]
        spines = [(guid, switch) for guid, switch, _lid, _ports in switches if switch.startswith("spine-")]
        roots = sm.get("roots")
        if roots and len(roots) < len(spines):
            with open(os.path.join(self.dir, "roots"), "w", encoding="utf-8") as handle:
                handle.write("".join("0x%016x\n" % int(guid, 16) for guid, switch in spines if switch in roots))
            argv += ["-R", "updn", "-a", os.path.join(self.dir, "roots")]
        open(os.path.join(self.dir, name + ".log"), "w", encoding="utf-8").close()  # pylint: disable=consider-using-with
        self._spawn(name, argv, self.env(attach))
        log = os.path.join(self.dir, name + ".log")
        if standby:
            _wait(lambda: b"Entering STANDBY state" in _read(log), SWEEP_TIMEOUT, "%s did not stand by" % name, log)
            return
        _wait(lambda: b"Entering MASTER state" in _read(log), SWEEP_TIMEOUT, "%s did not become master" % name, log)
        # its first sweep done: every linked port Active (its log says SUBNET UP only when verbose)
        _wait(lambda: self._swept(attach), SWEEP_TIMEOUT, "opensm did not bring every port up", log)
        # the master now, the ports under it (a stray one takes over from the planned one, which stands by)
        guid = "sm guid 0x%x," % (int(attach[2:], 16) + 1)
        _wait(lambda: guid in self.run("sminfo", [], attach)[1], SWEEP_TIMEOUT, "%s did not become the master" % name, log)

    def _swept(self, attach):
        rc, out, _err = self.run("iblinkinfo", [], attach)
        return rc == 0 and "Active/" in out and not any(word in out for word in ("Initialize/", "Armed/"))

    def stop_sm(self):
        pid = self._pid("opensm")
        if pid:
            _kill(pid)

    def once(self, name):
        """True the first time ``name`` is asked for this pod (a step taken once: the SM stopped after its sweep)."""
        try:
            with open(os.path.join(self.dir, "done-" + name), "x", encoding="utf-8"):
                return True
        except FileExistsError:
            return False

    def set_counters(self, settings):
        """[('"<node id>"[port]', {counter: value})] set on ibsim's ports (its console's PerformanceSet), each
        acknowledged in its log before the read that follows. A counter is PortCounters' unless it names its attribute
        ("PortCountersExtended.PortXmitData": the 64-bit data counters)."""
        commands = ["PerformanceSet %s %s=%d" % (port, counter if "." in counter else "PortCounters." + counter, value)
                    for port, counts in settings for counter, value in sorted(counts.items())]
        if not commands:
            return
        log = os.path.join(self.dir, "ibsim.log")
        before = _read(log).count(b"has been set to")
        self.console(*commands)
        _wait(lambda: _read(log).count(b"has been set to") >= before + len(commands), 10.0,
              "ibsim did not set the counters", log)

    def run(self, tool, args, attach, argv0=None):
        """The real tool, attached as the reader's HCA, started as ``argv0`` (the path the caller ran: iberror and
        usage lines name it); umad2sim makes its sysfs in the working directory."""
        work = tempfile.mkdtemp(prefix="tool-", dir=self.dir)
        try:
            done = subprocess.run([argv0 or tool] + list(args), executable=os.path.join(STACK, "usr", "sbin", tool),
                                  env=self.env(attach), cwd=work, stdin=subprocess.DEVNULL, capture_output=True,
                                  timeout=120, check=False)
            return done.returncode, done.stdout.decode("utf-8", "replace"), done.stderr.decode("utf-8", "replace")
        finally:
            shutil.rmtree(work, ignore_errors=True)


def _read(path):
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError:
        return b""


def _wait(ready, seconds, what, log):
    deadline = time.time() + seconds
    while not ready():
        if time.time() > deadline:
            raise RuntimeError("%s within %.0f s (%s): %s" % (what, seconds, log, _read(log)[-500:].decode("utf-8", "replace")))
        time.sleep(0.1)


def _alive(pid):
    """The process runs (a zombie, gone but not reaped by the process that started it, does not)."""
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    for proc in ("/proc", "/proc/.host"):
        try:
            with open("%s/%d/stat" % (proc, pid), "rb") as handle:
                return handle.read().rsplit(b")", 1)[-1].split()[0] != b"Z"
        except (OSError, IndexError):
            continue
    return True


def _kill(pid):
    """SIGTERM first (a client's umad2sim then leaves ibsim, freeing one of its 10 client slots), SIGKILL after 2 s."""
    for sig, tries in ((signal.SIGTERM, 40), (signal.SIGKILL, 50)):
        try:
            os.killpg(pid, sig)
        except OSError:
            return
        for _attempt in range(tries):
            if not _alive(pid):
                return
            time.sleep(0.05)


def stop_all(state_dir=changes.STATE_DIR):
    """Every ibsim and opensm of the twin's pods (twin/down, and twin/up before it clears .twin/changes): each process
    of the unpacked stack whose command line names a pod's directory under .twin/changes."""
    stack, pods = os.path.join(state_dir, "ibstack", "root").encode(), os.path.join(state_dir, "changes", "").encode()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % entry, "rb") as handle:
                argv = handle.read().split(b"\0")
        except OSError:
            continue
        if argv[0].startswith(stack) and any(pods in arg for arg in argv[1:]):
            _kill(int(entry))


if __name__ == "__main__" and sys.argv[1:] == ["stop"]:
    stop_all()
