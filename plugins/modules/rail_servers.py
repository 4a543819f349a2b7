#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
module: rail_servers
short_description: Start benchmark servers (ib_write_bw) on a host, seen listening, and stop them with their output
version_added: 0.2.0
description:
  - Layer 4's server side. V(started) starts each server in its own process group, under coreutils
    C(timeout) (a server outlives no run - it ends after O(lifetime) seconds even if nobody stops it,
    after a failure or Ctrl-C on the controller), and returns once every server said it is waiting
    for its client (perftest's C(Waiting for client to connect) banner) or ended.
  - A server that ends before listening is reported with its own words (a port already held by a
    stale server, an unknown device); one that neither listens nor ends within O(listen_timeout)
    is killed and reported as not listening.
  - V(stopped) waits up to O(grace) seconds for each server to end (a perftest server ends when
    its client is done), kills the process group of any still running, and returns each server's
    raw output and exit code; the work directory is removed. Parsing happens on the controller.
  - Used by M(gpufabric.pyramid.rail_mesh); it needs only Python 3 and the server tool on the host.
options:
  state:
    description: Start the servers, or stop them and return their output.
    type: str
    choices: [started, stopped]
    required: true
  workdir:
    description: Directory for the servers' output and process ids (created, then removed by V(stopped)).
    type: path
    required: true
  servers:
    description: The servers to start (V(started) only).
    type: list
    elements: dict
    default: []
    suboptions:
      id:
        description: Name of the server in the result (letters, digits, C(_ . - [ ] @ >)).
        type: str
        required: true
      argv:
        description: The command, as an argv list (no shell).
        type: list
        elements: str
        required: true
      after:
        description:
          - The id of another entry of the same start that must end first; this one then runs (with
            O(wait_for=running) only). Its process starts at once and waits for that exit code under its own
            C(timeout), so O(lifetime) covers the wait and the run. Layer 4's GPUDirect client of a rail runs
            right after the host-memory client of that rail, never beside it (two runs on one rail would share
            its bandwidth), in the same module run.
        type: str
  listen_timeout:
    description: Seconds to wait for every server to listen.
    type: float
    default: 15
  wait_for:
    description:
      - What V(started) waits for. V(banner) - perftest's C(Waiting for client to connect) banner (a server).
        V(running) - each process still running a moment after its start (a client started in the background,
        as the induced incast's senders are, so that they all fire at once; V(stopped) collects them).
    type: str
    choices: [banner, running]
    default: banner
  lifetime:
    description: Seconds after which C(timeout) ends a server that is still running.
    type: int
    default: 120
  grace:
    description: Seconds V(stopped) waits for servers to end by themselves before killing them.
    type: float
    default: 5
  and_then:
    description:
      - With V(stopped), more work directories to stop after O(workdir), in order, each as O(workdir) is, with its own
        grace. A round's background clients come first, then the servers they ran against (a perftest server ends when
        its client is done). One module run for both, one round trip fewer per host and round.
    type: list
    elements: dict
    default: []
    suboptions:
      workdir:
        description: A work directory given to V(started).
        type: path
        required: true
      grace:
        description: Seconds to wait for its processes to end by themselves before killing them.
        type: float
        default: 5
  then_start:
    description:
      - With V(stopped), servers to start once every work directory is stopped, as V(started) starts them, in the same
        module run. The next round's servers on a host start where its last round ends (Layer 4's rail mesh) - one
        module run fewer per host and round. Their answer is RV(then_started).
    type: dict
    suboptions:
      workdir:
        description: Directory for these servers' output and process ids, as O(workdir) with V(started).
        type: path
        required: true
      servers:
        description: The servers to start, as O(servers).
        type: list
        elements: dict
        required: true
        suboptions:
          id:
            description: Name of the server in the result.
            type: str
            required: true
          argv:
            description: The command, as an argv list (no shell).
            type: list
            elements: str
            required: true
          after:
            description: As O(servers[].after).
            type: str
      listen_timeout:
        description: As O(listen_timeout).
        type: float
        default: 15
      lifetime:
        description: As O(lifetime).
        type: int
        default: 120
      wait_for:
        description: As O(wait_for).
        type: str
        choices: [banner, running]
        default: banner
extends_documentation_fragment:
  - gpufabric.pyramid.attributes
"""

EXAMPLES = r"""
- name: Start ib_write_bw servers on rails 0 and 1
  gpufabric.pyramid.rail_servers:
    state: started
    workdir: /tmp/pyramid-l4-round1
    lifetime: 60
    servers:
      - id: "mlx5_0"
        argv: [ib_write_bw, -d, mlx5_0, -F, --report_gbits, -p, "18515"]
      - id: "mlx5_1"
        argv: [ib_write_bw, -d, mlx5_1, -F, --report_gbits, -p, "18516"]

- name: Stop them and return their output
  gpufabric.pyramid.rail_servers:
    state: stopped
    workdir: /tmp/pyramid-l4-round1
  register: servers

- name: Wait for background clients (up to 20 s), then stop the servers they ran against, in one run
  gpufabric.pyramid.rail_servers:
    state: stopped
    workdir: /tmp/pyramid-l4-round1-clients
    grace: 20
    and_then:
      - workdir: /tmp/pyramid-l4-round1
  register: ended

- name: End round 1 on this host and start its round 2 servers, in one run
  gpufabric.pyramid.rail_servers:
    state: stopped
    workdir: /tmp/pyramid-l4-round1-clients
    grace: 20
    and_then:
      - workdir: /tmp/pyramid-l4-round1
    then_start:
      workdir: /tmp/pyramid-l4-round2
      lifetime: 60
      servers:
        - id: "mlx5_0"
          argv: [ib_write_bw, -d, mlx5_0, -F, --report_gbits, -p, "18515"]
  register: ended
"""

RETURN = r"""
servers:
  description:
    - One entry per server id. V(status) is V(listening) (started), V(ok) (ended with exit code 0),
      V(failed) (ended otherwise, or never listened), or V(killed) (still running at V(stopped)).
  returned: always
  type: dict
  sample:
    mlx5_0: {status: ok, rc: 0, command: "ib_write_bw -d mlx5_0 -F --report_gbits -p 18515",
             stdout: " #bytes #iterations BW peak[Gb/sec] ...", stderr: ""}
and_then:
  description: With O(and_then), one dict like RV(servers) per work directory of O(and_then), in its order.
  returned: when O(state=stopped)
  type: list
  elements: dict
  sample: [{mlx5_0: {status: ok, rc: 0, command: "ib_write_bw -d mlx5_0 -F --report_gbits -p 18515", stdout: "", stderr: ""}}]
then_started:
  description: With O(then_start), one entry per server id started after the stop, as RV(servers) after V(started).
  returned: when O(state=stopped) and O(then_start) is given
  type: dict
  sample: {mlx5_0: {status: listening, command: "ib_write_bw -d mlx5_0 -F --report_gbits -p 18515"}}
"""

import json
import os
import re
import shutil
import signal
import subprocess
import time

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.gpufabric.pyramid.plugins.module_utils.failure_line import why_failed

LISTENING = re.compile(r"Waiting for client to connect")
PORT_HELD = re.compile(r"Couldn't listen to port (\d+)|Failed to bind socket")
SETTLE_SECONDS = 0.3
SAFE_ID = re.compile(r"^[\w.\[\]@>-]+$")  # also a file name in the work directory
# sh runs the server and writes its exit code where the stopping module (another process) can read it
WRAPPER = 'rc=0; "$@" || rc=$?; echo "$rc" > "$0"'
# an entry with `after`: under its own timeout, wait for the exit code of the entry it follows, then become the command
AFTER = 'while [ ! -e "$0" ]; do sleep 0.1; done; exec "$@"'


def _paths(workdir, server_id):
    base = os.path.join(workdir, server_id)
    return {"out": base + ".out", "err": base + ".err", "rc": base + ".rc", "pid": base + ".pid", "argv": base + ".argv"}


def _read(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read()
    except OSError:
        return ""


def _alive(pid):
    """Whether the process still runs. A zombie has ended: a server outlives the module run that started it, so its
    parent is whatever adopts orphans, and where that does not reap them (a container whose PID 1 is no init) the
    ended server stays a zombie that answers signal 0; waiting for it to die would wait out every deadline."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open("/proc/%d/stat" % pid, "rb") as handle:
            stat = handle.read()
    except OSError:
        return True  # no /proc to ask: it answered signal 0
    return stat[stat.rfind(b")") + 2:][:1] != b"Z"  # the state follows the command's closing parenthesis


def _kill_group(pid, alive=None):
    """SIGTERM, then SIGKILL, to the server's process group; ``alive`` tells whether it still runs
    (for a child of this process, Popen.poll: a dead child stays a zombie until it is reaped)."""
    alive = alive or (lambda: _alive(pid))
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(pid, sig)
        except (ProcessLookupError, PermissionError):
            return
        deadline = time.time() + 2
        while time.time() < deadline and alive():
            time.sleep(0.05)


def _start(workdir, server, lifetime, timeout_bin):
    paths = _paths(workdir, server["id"])
    command = server["argv"]
    if server.get("after"):
        command = ["/bin/sh", "-c", AFTER, _paths(workdir, server["after"])["rc"]] + command
    with open(paths["out"], "wb") as out, open(paths["err"], "wb") as err:
        process = subprocess.Popen(  # pylint: disable=consider-using-with  # it outlives this module on purpose
            # --foreground: timeout stays in the server's process group, so stopping the group stops it all
            ["/bin/sh", "-c", WRAPPER, paths["rc"], timeout_bin, "--foreground", "-k", "5", str(lifetime)] + command,
            stdin=subprocess.DEVNULL, stdout=out, stderr=err, start_new_session=True, close_fds=True,
            env=dict(os.environ, LC_ALL="C"))
    with open(paths["pid"], "w", encoding="utf-8") as handle:
        handle.write(str(process.pid))
    with open(paths["argv"], "w", encoding="utf-8") as handle:
        json.dump(server["argv"], handle)
    return process


def _bad_ids(servers):
    return [server["id"] for server in servers if not SAFE_ID.match(server["id"]) or not server["argv"]]


def _bad_after(servers, wait_for):
    """Why an entry's `after` cannot be kept: it must name an entry listed before it, of a start that waits only for
    its runs to be running (an entry that waits cannot show a banner), or None."""
    seen = set()
    for server in servers:
        after = server.get("after")
        if after and wait_for != "running":
            return "server %r: after needs wait_for=running" % server["id"]
        if after and after not in seen:
            return "server %r: after %r is not an entry listed before it" % (server["id"], after)
        seen.add(server["id"])
    return None


def start(module, workdir, servers, listen_timeout, lifetime, wait_for):
    """Start ``servers`` under ``workdir`` and wait for each to listen (or run) or end: {id: state}."""
    timeout_bin = module.get_bin_path("timeout", required=True)
    tool = servers[0]["argv"][0] if servers else None
    if tool and not module.get_bin_path(tool):
        return {s["id"]: {"status": "failed", "rc": 127, "command": " ".join(s["argv"]), "stdout": "", "stderr": "",
                          "msg": "%s: command not found" % tool} for s in servers}
    os.makedirs(workdir, mode=0o700, exist_ok=True)
    processes = {server["id"]: (server, _start(workdir, server, lifetime, timeout_bin)) for server in servers}
    deadline = time.time() + listen_timeout
    states, banner_at = {}, {}
    while len(states) < len(processes):
        for server_id, (server, process) in processes.items():
            if server_id in states:
                continue
            paths = _paths(workdir, server_id)
            if process.poll() is not None:
                states[server_id] = _ended(server, paths, process.returncode, "ended before listening")
            elif server_id in banner_at:
                # perftest prints its banner just before it binds: still running a moment later, it listens
                if time.time() - banner_at[server_id] >= SETTLE_SECONDS:
                    states[server_id] = {"status": "listening", "command": " ".join(server["argv"])}
            elif wait_for == "running" or LISTENING.search(_read(paths["out"]) + _read(paths["err"])):
                banner_at[server_id] = time.time()
        if len(states) < len(processes):
            if time.time() > deadline:
                for server_id, (server, process) in processes.items():
                    if server_id not in states:
                        _kill_group(process.pid, lambda process=process: process.poll() is None)
                        states[server_id] = _ended(server, _paths(workdir, server_id), None,
                                                   "not listening after %ss (killed)" % listen_timeout)
                break
            time.sleep(0.05)
    return states


def started(module):
    params = module.params
    bad = _bad_ids(params["servers"])
    if bad:
        module.fail_json(msg="server id %r: letters, digits and _ . - [ ] @ > only, and an argv" % bad[0])
    after = _bad_after(params["servers"], params["wait_for"])
    if after:
        module.fail_json(msg=after)
    module.exit_json(changed=False, servers=start(module, params["workdir"], params["servers"], params["listen_timeout"],
                                                  params["lifetime"], params["wait_for"]))


def _port_holder(port):
    """Who listens on a TCP port (from /proc/net/tcp{,6} and /proc/*/fd), as 'pid N (command)', or None."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in _read(table).splitlines()[1:]:
            fields = line.split()
            if len(fields) > 9 and fields[3] == "0A" and fields[1].rsplit(":", 1)[-1] == "%04X" % port:
                inodes.add("socket:[%s]" % fields[9])
    if not inodes:
        return None
    for pid in (name for name in os.listdir("/proc") if name.isdigit()):
        try:
            links = {os.readlink(os.path.join("/proc", pid, "fd", fd)) for fd in os.listdir(os.path.join("/proc", pid, "fd"))}
        except OSError:
            continue
        if links & inodes:
            command = _read(os.path.join("/proc", pid, "cmdline")).replace("\0", " ").strip()
            return "pid %s (%s)" % (pid, command or "?")
    return "a process this user cannot see"


def _ended(server, paths, returncode, why):
    out, err = _read(paths["out"]), _read(paths["err"])
    command = " ".join(server["argv"])
    said = why_failed(err, out)
    held = PORT_HELD.search(out + err)
    if held:
        port = int(held.group(1)) if held.group(1) else _port_of(server["argv"])
        holder = _port_holder(port) if port else None
        said += "; port %s is held by another process (a stale server?)%s" % (port, ": " + holder if holder else "")
    return {"status": "failed", "rc": returncode, "command": command, "stdout": out, "stderr": err,
            "msg": "%s: %s%s" % (command, why, ": " + said if said else "")}


def _port_of(argv):
    for flag, value in zip(argv, argv[1:]):
        if flag in ("-p", "--port") and value.isdigit():
            return int(value)
    return None


def _stop_dir(workdir, grace):
    """Wait up to ``grace`` seconds for the processes started in ``workdir`` to end, kill those still running, and
    return each one's output and exit code; the directory is removed."""
    if not os.path.isdir(workdir):
        return {}
    ids = sorted(name[:-len(".pid")] for name in os.listdir(workdir) if name.endswith(".pid"))
    deadline = time.time() + grace
    pids = {}
    for server_id in ids:
        try:
            pids[server_id] = int(_read(_paths(workdir, server_id)["pid"]).strip())
        except ValueError:
            pids[server_id] = None
    while time.time() < deadline and any(pid and _alive(pid) and not os.path.exists(_paths(workdir, sid)["rc"])
                                         for sid, pid in pids.items()):
        time.sleep(0.05)
    servers = {}
    for server_id, pid in pids.items():
        paths = _paths(workdir, server_id)
        try:
            argv = json.loads(_read(paths["argv"]) or "[]")
        except ValueError:
            argv = []
        rc_text = _read(paths["rc"]).strip()
        if not rc_text and pid:
            _kill_group(pid)
        out, err = _read(paths["out"]), _read(paths["err"])
        command = " ".join(argv)
        if rc_text == "0":
            servers[server_id] = {"status": "ok", "rc": 0, "command": command, "stdout": out, "stderr": err}
        elif rc_text:
            rc = int(rc_text) if rc_text.isdigit() else None
            why = "timed out (coreutils timeout ended it)" if rc == 124 else "exit code %s" % rc_text
            servers[server_id] = {"status": "failed", "rc": rc, "command": command, "stdout": out, "stderr": err,
                                  "msg": "%s: %s: %s" % (command, why, why_failed(err, out))}
        else:
            servers[server_id] = {"status": "killed", "rc": None, "command": command, "stdout": out, "stderr": err,
                                  "msg": "%s: still running %ss after its client was done (killed): %s" % (
                                      command, grace, why_failed(err, out) or "no output")}
    shutil.rmtree(workdir, ignore_errors=True)
    return servers


def stopped(module):
    params = module.params
    following = params["then_start"]
    bad = _bad_ids(following["servers"]) if following else []
    if bad:  # refused before anything is stopped
        module.fail_json(msg="then_start: server id %r: letters, digits and _ . - [ ] @ > only, and an argv" % bad[0])
    after = _bad_after(following["servers"], following["wait_for"]) if following else None
    if after:
        module.fail_json(msg="then_start: %s" % after)
    servers = _stop_dir(params["workdir"], params["grace"])
    answer = dict(changed=False, servers=servers,
                  and_then=[_stop_dir(step["workdir"], step["grace"]) for step in params["and_then"]])
    if following:  # after every stop: a server of the next round may take a port the last round's held
        answer["then_started"] = start(module, following["workdir"], following["servers"], following["listen_timeout"],
                                       following["lifetime"], following["wait_for"])
    module.exit_json(**answer)


SERVER = dict(id=dict(type="str", required=True), argv=dict(type="list", elements="str", required=True), after=dict(type="str"))
ARGUMENT_SPEC = dict(
    state=dict(type="str", required=True, choices=["started", "stopped"]),
    workdir=dict(type="path", required=True),
    servers=dict(type="list", elements="dict", default=[], options=SERVER),
    listen_timeout=dict(type="float", default=15),
    lifetime=dict(type="int", default=120),
    grace=dict(type="float", default=5),
    wait_for=dict(type="str", default="banner", choices=["banner", "running"]),
    and_then=dict(type="list", elements="dict", default=[], options=dict(
        workdir=dict(type="path", required=True), grace=dict(type="float", default=5))),
    then_start=dict(type="dict", options=dict(
        workdir=dict(type="path", required=True),
        servers=dict(type="list", elements="dict", required=True, options=SERVER),
        listen_timeout=dict(type="float", default=15),
        lifetime=dict(type="int", default=120),
        wait_for=dict(type="str", default="banner", choices=["banner", "running"]))),
)


def main():
    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, supports_check_mode=True)
    if module.params["state"] == "started":
        started(module)
    else:
        stopped(module)


if __name__ == "__main__":
    main()
