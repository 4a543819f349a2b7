#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
module: collect
short_description: Run read-only commands and read files on a host, raw output back to the controller
version_added: 0.1.0
description:
  - Runs each source's ways in order (a command as an argv list, a file to read or a
    directory to list) and returns the first one that works, raw.
  - Parsing happens on the controller (see M(gpufabric.pyramid.run_layer)); the host needs only
    Python 3 and its vendor tools.
  - Commands run with C(LC_ALL=C) under coreutils C(timeout), never through a shell.
  - Nothing on the host is changed; payload scripts live in a temporary directory removed at the end.
options:
  sources:
    description: The sources to collect.
    type: list
    elements: dict
    required: true
    suboptions:
      id:
        description: Name of the source in the result.
        type: str
        required: true
      ways:
        description:
          - Ways to get the source, tried in order until one succeeds.
          - Each way has exactly one of V(run) (argv list), V(read) (file path) or V(list) (directory path).
          - A V(run) way may add V(env) (a dict of environment variables), V(timeout) (seconds,
            for long benchmarks) and V(accept_rc) (exit codes whose output is still parsed, such as
            nccl-tests' 1 when it found wrong results).
          - An argument V({payload:NAME}) is replaced by the path of a temporary file holding
            O(payloads[NAME]), removed afterwards; V({payload_source:NAME}) by the script itself (for
            C(python3 -c) on nodes a launcher starts, where no file of this host exists).
        type: list
        elements: dict
        required: true
  payloads:
    description: Script name to content, for V({payload:NAME}) arguments (the built-in benchmarks).
    type: dict
    default: {}
  timeout:
    description:
      - Seconds each command may run before it is killed and reported as C(timeout).
      - A vendor tool that timed out is not started again in the same call; its later runs (the other
        rails' C(mlxconfig), say) are reported as C(timeout) naming the run that hung, so a wedged tool
        costs one timeout on the host, not one per rail. Generic programs (C(cat), C(python3), shells)
        are always run.
    type: int
    default: 60
  parallel:
    description:
      - How many sources run at once. Sources that start runs on other nodes (the straggler hunt's
        pairs, each on its own nodes) run side by side; local reads need no more than 1.
    type: int
    default: 1
extends_documentation_fragment:
  - gpufabric.pyramid.attributes
  - gpufabric.pyramid.attributes.diff
"""

EXAMPLES = r"""
- name: Collect ibstat and the loaded modules
  gpufabric.pyramid.collect:
    sources:
      - id: ibstat
        ways:
          - run: [ibstat]
      - id: kernel_modules
        ways:
          - run: [lsmod]
          - read: /proc/modules
    timeout: 30
  register: raw
"""

RETURN = r"""
sources:
  description: One entry per source id.
  returned: always
  type: dict
  contains:
    status:
      description: C(ok), C(missing) (tool or file absent), C(timeout), C(failed) (non-zero exit) or C(unreadable).
      type: str
    way:
      description: Index of the way that produced the output (the last one tried when none worked).
      type: int
    command:
      description: The command line or path of that way.
      type: str
    rc:
      description: Exit code of the command (0 for files).
      type: int
    stdout:
      description: Raw output (file content, or one directory entry per line).
      type: str
    stderr:
      description: Standard error of the command.
      type: str
    msg:
      description: Why the source did not work, when it did not.
      type: str
    non_text:
      description:
        - Present when the output held bytes that are not UTF-8 text; they are replaced by U+FFFD (so the
          result stays valid for Ansible) and this names the command, the stream and where.
      type: str
      returned: when the output was not text
    attempts:
      description: What happened with each way tried, in order.
      type: list
      elements: str
  sample:
    ibstat:
      status: ok
      way: 0
      command: ibstat
      rc: 0
      stdout: "CA 'mlx5_0'\n\tCA type: MT4129\n..."
      stderr: ""
      msg: ""
      attempts: ["ibstat: ok"]
"""

import os
import re
import shlex
from concurrent.futures import ThreadPoolExecutor
import shutil
import tempfile
import threading

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.gpufabric.pyramid.plugins.module_utils.failure_line import why_failed
from ansible_collections.gpufabric.pyramid.plugins.module_utils.run_argv import run_argv

TIMEOUT_RC = 124  # coreutils timeout's exit code when the command ran out of time


def _run(module, argv, timeout, env=None, accept_rc=(0,), shown=None):
    binary = module.get_bin_path(argv[0])
    command = shlex.join(shown or argv)  # shown: a script passed inline stays {payload_source:NAME}
    if binary is None:
        return {"status": "missing", "command": command, "rc": 127, "stdout": "", "stderr": "",
                "msg": "command not found"}
    full = [binary] + list(argv[1:])
    timeout_bin = module.get_bin_path("timeout")
    if timeout_bin:
        full = [timeout_bin, "--kill-after=5", str(timeout)] + full
    environ = {"LC_ALL": "C", "LANG": "C"}
    environ.update({str(k): str(v) for k, v in (env or {}).items()})
    rc, out, err, _cut = run_argv(full, environ, timeout)  # reads every stream to its end (see run_argv)
    out, out_note = as_text(out, "stdout")
    err, err_note = as_text(err, "stderr")
    result = {"command": command, "rc": rc, "stdout": out, "stderr": err, "msg": ""}
    if out_note or err_note:
        result["non_text"] = "%s printed %s" % (command, " and ".join(note for note in (out_note, err_note) if note))
    if timeout_bin and rc in (TIMEOUT_RC, 128 + 9):
        result.update(status="timeout", msg="did not finish within %ss (hung?)" % timeout)
    elif rc not in accept_rc:
        why = why_failed(err, out)
        result.update(status="failed", msg="exited %d%s" % (rc, (": " + why) if why else ""))
    else:
        result["status"] = "ok"
    return result


# A byte that is not UTF-8, decoded with surrogateescape: a lone surrogate
_ESCAPED = re.compile("[\udc80-\udcff]")


def as_text(data, stream):
    """(text, note): the output as UTF-8 text; a byte that is not text becomes U+FFFD and the note says
    how many and where. Kept as a lone surrogate, such a byte would make ansible-core
    refuse the whole result (every source of the host lost, as "unreachable"); replaced, the other
    sources stand and this one names the command."""
    if isinstance(data, bytes):
        data = data.decode("utf-8", "surrogateescape")
    found = _ESCAPED.search(data)
    if not found:
        return data, None
    count = len(_ESCAPED.findall(data))
    first = len(data[:found.start()].encode("utf-8"))
    return _ESCAPED.sub("\ufffd", data), "%d byte%s that %s not UTF-8 text on %s (first at byte %d, shown as U+FFFD)" % (
        count, "" if count == 1 else "s", "is" if count == 1 else "are", stream, first)


def _read(path):
    result = {"command": "cat %s" % path, "rc": 0, "stdout": "", "stderr": "", "msg": ""}
    try:
        with open(path, "rb") as handle:
            text, note = as_text(handle.read(), "its content")
        result.update(status="ok", stdout=text)
        if note:
            result["non_text"] = "%s held %s" % (path, note)
    except FileNotFoundError:
        result.update(status="missing", rc=1, msg="does not exist")
    except OSError as exc:
        result.update(status="unreadable", rc=1, msg=exc.strerror)
    return result


def _list(path):
    result = {"command": "ls %s" % path, "rc": 0, "stdout": "", "stderr": "", "msg": ""}
    try:
        result.update(status="ok", stdout="".join(entry + "\n" for entry in sorted(os.listdir(path))))
    except FileNotFoundError:
        result.update(status="missing", rc=1, msg="does not exist")
    except OSError as exc:
        result.update(status="unreadable", rc=1, msg=exc.strerror)
    return result


def _with_payloads(argv, payload_paths):
    out = []
    for arg in argv:
        arg = str(arg)
        if arg.startswith("{payload:") and arg.endswith("}"):
            arg = payload_paths[arg[len("{payload:"):-1]]
        elif arg.startswith("{payload_source:") and arg.endswith("}"):  # python3 -c: the script in the argv
            with open(payload_paths[arg[len("{payload_source:"):-1]]) as handle:
                arg = handle.read()
        out.append(arg)
    return out


# Programs that run other things (or read any file): one of their runs hanging says nothing about the next
GENERIC_PROGRAMS = frozenset(("cat", "ls", "sh", "bash", "env", "python", "python3", "timeout", "sudo"))


class HungTools:
    """The vendor tools that already hung in this collect, so that a tool wedged on a host (mlxconfig on a
    stuck firmware, nvidia-smi on a GPU fallen off the bus) costs one timeout, not one per rail or per source:
    the later runs of the same tool are reported as timeouts naming the run that hung, without being started."""

    def __init__(self):
        self._hung = {}
        self._lock = threading.Lock()

    @staticmethod
    def _tool(argv):
        name = os.path.basename(str(argv[0]))
        return None if name in GENERIC_PROGRAMS else name

    def earlier_hang(self, argv, shown):
        """A timeout result for argv when its tool already hung here, else None."""
        tool = self._tool(argv)
        with self._lock:
            hung = self._hung.get(tool) if tool else None
        if hung is None:
            return None
        return {"status": "timeout", "command": shlex.join(shown or argv), "rc": TIMEOUT_RC, "stdout": "",
                "stderr": "", "msg": "not run: %s already hung on this host (%s: %s)" % (tool, hung[0], hung[1])}

    def note(self, argv, result):
        tool = self._tool(argv)
        if tool and result["status"] == "timeout":
            with self._lock:
                self._hung.setdefault(tool, (result["command"], result["msg"]))


def collect_source(module, ways, timeout, payload_paths=None, hung_tools=None):
    attempts = []
    result = None
    hung_tools = hung_tools or HungTools()
    for index, way in enumerate(ways):
        if "run" in way:
            shown = [str(arg) if str(arg).startswith("{payload_source:") else None for arg in way["run"]]
            argv = _with_payloads(way["run"], payload_paths or {})
            shown = [inline or arg for inline, arg in zip(shown, argv)]
            result = hung_tools.earlier_hang(argv, shown)
            if result is None:
                result = _run(module, argv, way.get("timeout", timeout), way.get("env"), way.get("accept_rc", [0]),
                              shown=shown)
                hung_tools.note(argv, result)
        elif "read" in way:
            result = _read(way["read"])
        elif "list" in way:
            result = _list(way["list"])
        else:
            module.fail_json(msg="way %r has none of run, read or list" % (way,))
        result["way"] = index
        attempts.append("%s: %s%s" % (result["command"], result["msg"] or result["status"],
                                      " (%s)" % result["non_text"] if result.get("non_text") else ""))
        if result["status"] in ("ok", "timeout"):
            break  # a hang is a finding: report it rather than retry another way
    result["attempts"] = attempts
    return result


def main():
    module = AnsibleModule(
        argument_spec={
            "sources": {"type": "list", "elements": "dict", "required": True, "options": {
                "id": {"type": "str", "required": True},
                "ways": {"type": "list", "elements": "dict", "required": True},
            }},
            "timeout": {"type": "int", "default": 60},
            "payloads": {"type": "dict", "default": {}},
            "parallel": {"type": "int", "default": 1},
        },
        supports_check_mode=True,
    )
    collected = {}
    workdir = tempfile.mkdtemp(prefix="pyramid-")
    try:
        payload_paths = {}
        for name, content in module.params["payloads"].items():
            payload_paths[name] = os.path.join(workdir, os.path.basename(name))
            with open(payload_paths[name], "w") as handle:
                handle.write(content)
        sources = module.params["sources"]
        hung_tools = HungTools()
        with ThreadPoolExecutor(max_workers=max(1, min(module.params["parallel"], len(sources) or 1))) as pool:
            futures = [pool.submit(collect_source, module, source["ways"], module.params["timeout"], payload_paths,
                                   hung_tools)
                       for source in sources]
            for source, future in zip(sources, futures):
                collected[source["id"]] = future.result()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    module.exit_json(changed=False, sources=collected)


if __name__ == "__main__":
    main()
