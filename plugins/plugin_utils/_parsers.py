# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Controller-side parsers: raw command/file text -> typed facts.

Each parser runs a TextFSM template from parsers/textfsm/<name>.textfsm
(except linux_proc_cmdline, parsed in Python) and normalizes the rows; a few
first tidy interleaved output (_PREPARE).
Output that is empty, unparseable or cut short raises ParseError: a check
must never read a truncated listing as "device absent".

Needs only textfsm and the standard library (no ansible imports), so the
action plugins, the unit tests and the twin can all load it by path.
"""

from __future__ import annotations

import importlib.util
import math
import os
import re

try:
    import textfsm
except ImportError as exc:  # a controller dependency: say so when a parser is used, not at import
    textfsm = None
    TEXTFSM_IMPORT_ERROR = exc
else:
    TEXTFSM_IMPORT_ERROR = None

TEMPLATE_DIR = os.path.join(os.path.dirname(__file__), "..", "..", "parsers", "textfsm")
# Switch parsers live one file per platform (_parsers_<os>.py): PARSERS, NORMALIZERS and optionally
# PREPARE there; a normalizer raises ValueError for output it cannot read completely.
SWITCH_PARSER_MODULES = ("_parsers_eos", "_parsers_nxos", "_parsers_sonic", "_parsers_cumulus")

PARSERS = {
    "linux_ibstat": "ibstat: RDMA CAs, their firmware and per-port state, rate and link layer",
    "linux_lsmod": "lsmod: loaded kernel modules with size and holders",
    "linux_proc_modules": "/proc/modules: loaded kernel modules with size and holders",
    "linux_mlxconfig_query": "mlxconfig -d <dev> -e q: firmware parameters (default, current, next boot)",
    "linux_proc_meminfo": "/proc/meminfo: total memory and hugepage pool",
    "linux_proc_cmdline": "/proc/cmdline: kernel boot arguments (Python parser)",
    "linux_sys_class_iommu": "entries of /sys/class/iommu, one per line (empty = no IOMMU units)",
    "linux_proc_osrelease": "/proc/sys/kernel/osrelease: running kernel release",
    "linux_nvidia_smi_topo_m": "nvidia-smi topo -m: GPU<->GPU/NIC link matrix, CPU/NUMA affinity, NIC legend",
    "linux_modinfo": "modinfo nvidia: driver version and license (open vs proprietary kernel module)",
    "linux_proc_driver_nvidia_version": "/proc/driver/nvidia/version: loaded driver version, open vs proprietary kernel module",
    "linux_dir_listing": "entries of a directory, one per line (empty = none), e.g. /sys/class/infiniband",
    "nccl_tests": "nccl-tests all_reduce_perf (or the built-in torch benchmark): ranks, result table, average busbw, NCCL_DEBUG lines",
    "nccl_debug": "NCCL_DEBUG=INFO/WARN lines of any program: version, network, NICs, GPUDirect RDMA, transports, warnings",
    "training_log": "Megatron-LM or pyramid-train log: per-step times and losses, NCCL and watchdog timeouts",
}

_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_EMPTY_OK = {"linux_sys_class_iommu", "linux_dir_listing", "nccl_debug"}


class ParseError(Exception):
    """The text is not a complete, recognizable output of the command."""


def _ntc_template_dir():
    try:
        import ntc_templates  # pylint: disable=import-outside-toplevel
    except ImportError:
        return None
    return os.path.join(os.path.dirname(ntc_templates.__file__), "templates")


def template_path(parser):
    """The collection's template, else ntc-templates' of the same name (reused where it parses right)."""
    name = TEMPLATE_OF.get(parser, parser)  # two parsers over one command share its template
    own = os.path.join(TEMPLATE_DIR, name + ".textfsm")
    if os.path.exists(own) or name not in NTC_TEMPLATES:
        return own
    ntc_dir = _ntc_template_dir()
    return os.path.join(ntc_dir, name + ".textfsm") if ntc_dir else own


def textfsm_rows(parser, text):
    """Raw TextFSM rows as dicts with lowercase keys (what fixtures hold)."""
    if parser in _PREPARE:
        text = _PREPARE[parser](text)
    with open(template_path(parser), encoding="utf-8") as handle:
        fsm = textfsm.TextFSM(handle)
    return [{key.lower(): value for key, value in row.items()} for row in fsm.ParseTextToDicts(text)]


def parse(parser, text):
    if parser not in PARSERS:
        raise ParseError("unknown parser %r" % parser)
    if text is None:
        text = ""
    text = _ANSI.sub("", text.replace("\r\n", "\n"))
    if not text.strip() and parser not in _EMPTY_OK:
        raise ParseError("%s: empty output" % parser)
    if parser == "linux_proc_cmdline":
        return _cmdline(text)
    if textfsm is None:
        raise ParseError("%s: the textfsm Python package is not installed on the controller (%s)" % (parser, TEXTFSM_IMPORT_ERROR))
    try:
        rows = textfsm_rows(parser, text)
    except textfsm.TextFSMError as exc:
        raise ParseError("%s: %s" % (parser, exc))
    try:
        facts = _NORMALIZERS[parser](rows)
    except ValueError as exc:  # a switch normalizer (_parsers_<os>.py) rejecting what it read
        raise ParseError("%s: %s" % (parser, exc))
    if parser == "nccl_tests":  # the NCCL_DEBUG lines interleaved with the table
        facts["nccl"] = _nccl_debug(textfsm_rows("nccl_debug", text))
    return facts


def _fail(parser, msg, *args):
    raise ParseError("%s: %s" % (parser, msg % args if args else msg))


def _reject_other(parser, rows):
    for row in rows:
        if row.get("other"):
            _fail(parser, "unexpected line %r", row["other"])


def _number(text):
    value = float(text)
    return int(value) if value.is_integer() else value


def _ibstat(rows):
    devices = {}
    for row in rows:
        name = row["ca"]
        device = devices.setdefault(name, {
            "ca_type": row["ca_type"], "firmware": row["firmware_version"],
            "node_guid": row["node_guid"], "ports": {}, "_expected": row["number_of_ports"],
        })
        needed = ("port", "state", "physical_state", "rate", "link_layer")
        missing = [key for key in needed if not row[key]]
        if missing:
            where = "port %s" % row["port"] if row["port"] else "its first port"
            _fail("linux_ibstat", "CA %s is cut short at %s (no %s)", name, where, ", ".join(missing))
        device["ports"][row["port"]] = {
            "state": row["state"], "phys_state": row["physical_state"],
            "rate_gbps": _number(row["rate"]), "link_layer": row["link_layer"],
            "port_guid": row["port_guid"],
        }
    if not devices:
        _fail("linux_ibstat", "no CA found")
    for name, device in devices.items():
        expected = device.pop("_expected")
        if expected and len(device["ports"]) < int(expected):
            _fail("linux_ibstat", "CA %s lists %d of its %s ports", name, len(device["ports"]), expected)
    return {"devices": devices}


def _holders(text):
    # /proc/modules ends the list with "," and prints "-" for none.
    return [name for name in text.split(",") if name and name not in ("-", "[permanent]")]


def _modules(parser, rows):
    modules = {}
    for row in rows:
        modules[row["module"]] = {"size": int(row["size"]), "used_by": _holders(row["used_by"])}
    if not modules:
        _fail(parser, "no modules listed")
    return {"modules": modules}


def _lsmod(rows):
    if not rows or not rows[0].get("header"):
        _fail("linux_lsmod", "missing 'Module Size Used by' header")
    _reject_other("linux_lsmod", rows)
    return _modules("linux_lsmod", rows[1:])


def _proc_modules(rows):
    _reject_other("linux_proc_modules", rows)
    return _modules("linux_proc_modules", rows)


def _mlxconfig(rows):
    errors = [row["error"] for row in rows if row["error"]]
    if errors:
        _fail("linux_mlxconfig_query", "mlxconfig error: %s", "; ".join(errors))
    if not rows or not rows[0]["device_type"]:
        _fail("linux_mlxconfig_query", "no device block with a Default/Current/Next Boot header")
    params = {}
    for row in rows[1:]:
        params[row["param"]] = {
            "default": row["default"], "current": row["current"],
            "next_boot": row["next_boot"], "modified": row["modified"] == "*",
        }
    if not params:
        _fail("linux_mlxconfig_query", "no parameters listed")
    return {"device": rows[0]["device"], "device_type": rows[0]["device_type"], "params": params}


def _meminfo(rows):
    _reject_other("linux_proc_meminfo", rows)
    values = {row["key"]: int(row["value"]) for row in rows}
    wanted = {"mem_total_kb": "MemTotal", "hugepages_total": "HugePages_Total",
              "hugepages_free": "HugePages_Free", "hugepagesize_kb": "Hugepagesize"}
    missing = [key for key in wanted.values() if key not in values]
    if missing:
        _fail("linux_proc_meminfo", "missing %s (truncated?)", ", ".join(missing))
    return {fact: values[key] for fact, key in wanted.items()}


# One kernel argument: bare words and "double quoted" runs, as the kernel splits them.
_ARG = re.compile(r'(?:[^\s"]+|"[^"]*")+')


def _cmdline(text):
    lines = [line for line in text.splitlines() if line.strip()]
    if len(lines) != 1:
        _fail("linux_proc_cmdline", "expected one line, got %d", len(lines))
    pairs = []
    for word in _ARG.findall(lines[0]):
        key, value = word.partition("=")[::2]
        pairs.append([key, value.replace('"', "")])
    return {"raw": lines[0].strip(), "args": dict(pairs), "all": pairs}


def _iommu(rows):
    _reject_other("linux_sys_class_iommu", rows)
    return {"units": sorted(row["unit"] for row in rows)}


def _osrelease(rows):
    _reject_other("linux_proc_osrelease", rows)
    if len(rows) != 1:
        _fail("linux_proc_osrelease", "expected one release, got %d", len(rows))
    release = rows[0]["release"]
    major, minor = re.match(r"(\d+)\.(\d+)", release).groups()
    return {"release": release, "major": int(major), "minor": int(minor)}


_AFFINITY_COLUMNS = ("CPU Affinity", "NUMA Affinity", "GPU NUMA ID")


def _topo(rows):
    parser = "linux_nvidia_smi_topo_m"
    if not rows or not rows[0]["columns"]:
        _fail(parser, "no GPU0 header row")
    header = rows[0]["columns"]
    columns = []
    for token in header.split():
        if token in ("CPU", "NUMA", "GPU"):  # first word of the affinity columns
            break
        columns.append(token)
    present = [name for name in _AFFINITY_COLUMNS if name in header]
    matrix = {row["device"]: row for row in rows[1:] if row["device"]}
    legend = {row["nic"]: row["nic_name"] for row in rows[1:] if row["nic"]}
    gpus, nics = {}, {}
    for name in columns:
        row = matrix.get(name)
        if row is None:
            _fail(parser, "no row for %s (truncated?)", name)
        cells = row["links"].split()
        if len(cells) != len(columns):
            _fail(parser, "%s has %d cells for %d columns", name, len(cells), len(columns))
        if name.startswith("GPU"):
            if "CPU Affinity" in present and not row["cpu_affinity"]:
                _fail(parser, "%s row is cut before its affinity columns", name)
            links = {peer: cell for peer, cell in zip(columns, cells) if peer != name}
            gpus[name] = {"links": links, "cpu_affinity": row["cpu_affinity"] or None,
                          "numa_affinity": row["numa_affinity"] or None}
        elif re.match(r"NIC\d+$", name):
            if name not in legend:
                _fail(parser, "%s is not in the NIC legend (truncated?)", name)
            nics[name] = legend[name]
        else:
            nics[name] = name  # older drivers name NIC columns by device
    if not gpus:
        _fail(parser, "no GPU rows")
    return {"gpus": gpus, "nics": nics}


def _modinfo(rows):
    parser = "linux_modinfo"
    _reject_other(parser, rows)
    fields = {}
    for row in rows:
        fields.setdefault(row["key"], row["value"])
    if "modinfo" in fields:
        _fail(parser, fields["modinfo"])
    missing = [key for key in ("filename", "version", "license") if key not in fields]
    if missing:
        _fail(parser, "missing %s", ", ".join(missing))
    name = fields.get("name") or re.sub(r"\.ko(\.\w+)?$", "", os.path.basename(fields["filename"]))
    license_ = fields["license"]
    return {"name": name, "version": fields["version"], "license": license_,
            "open_kernel_module": "GPL" in license_ or "MIT" in license_}


def _driver_version(rows):
    _reject_other("linux_proc_driver_nvidia_version", rows)
    if len(rows) != 1:
        _fail("linux_proc_driver_nvidia_version", "expected one NVRM version line, got %d", len(rows))
    flavour = rows[0]["flavour"]
    return {"name": "nvidia", "version": rows[0]["version"], "license": None,
            "open_kernel_module": flavour.startswith("Open Kernel Module")}


def _dir_listing(rows):
    _reject_other("linux_dir_listing", rows)
    return {"entries": [row["entry"] for row in rows if row["entry"]]}


# --- Layer 5: NCCL ------------------------------------------------------------------------------

# Open MPI's --tag-output prefix, "[1,0]<stdout>:".
_MPI_TAG = re.compile(r"^\[\d+,\d+\]<std(?:out|err)>: ?", re.M)
# NCCL_DEBUG messages (src/debug.cc) go to the same stdout as the table, so one can land inside a
# row. A WARN brings its own leading newline (and from NCCL 2.26 a "[date time] " stamp); an INFO
# cut into a row starts right after the row's last digit, hence the host starting with a letter.
_NCCL_WARN_LINE = re.compile(r"\n(?:\[[^\]\n]*\] )?[^\s:]+:\d+:\d+ \[-?\d+\] \S+:\d+ (?:\(\S+\) )?NCCL WARN [^\n]*\n?")
_NCCL_LINE = re.compile(
    r"(?:^[^\S\n]*[^\s:]+|[A-Za-z][\w.-]*):\d+:\d+ \[-?\d+\] (?:\S+:\d+ (?:\(\S+\) )?)?NCCL (?:INFO|WARN|TRACE)[^\n]*(?:\n|$)",
    re.M)


def _drop_nccl_debug(text):
    text = _MPI_TAG.sub("", text)
    return _NCCL_LINE.sub("", _NCCL_WARN_LINE.sub("", text))


def _wrong(text):
    return None if text == "N/A" else int(float(text))  # "%6g": 1e+06 wrong elements


def _nccl_tests(rows):
    parser = "nccl_tests"
    failures = [row["failure"] for row in rows if row["failure"]]
    why = " (%s)" % failures[0] if failures else ""
    bad = [row["bad_row"] for row in rows if row["bad_row"]]
    if bad:
        _fail(parser, "unparseable row %r", bad[0])
    ranks = []
    for row in rows:
        if row["rank"]:
            rank = int(row["rank"])
            if any(seen["rank"] == rank for seen in ranks):
                # nccl-tests built without MPI under mpirun: every process runs (and prints) its own test
                _fail(parser, "rank %d is listed twice: several independent runs in one output", rank)
            ranks.append({"rank": rank, "host": row["host"], "pid": int(row["pid"]), "device": int(row["device"]),
                          "bus_id": row["bus_id"], "gpu": row["gpu"]})
    results = []
    for row in rows:
        if row["size"]:
            result = {"size": int(row["size"]), "count": int(row["count"]), "type": row["type"], "redop": row["redop"]}
            for side in ("oop", "ip"):
                result.update({side + "_time_us": float(row[side + "_time"]), side + "_algbw": float(row[side + "_algbw"]),
                               side + "_busbw": float(row[side + "_busbw"]), side + "_wrong": _wrong(row[side + "_wrong"])})
            results.append(result)
    if not results:
        _fail(parser, "no result rows%s", why)
    average = [row["avg_busbw"] for row in rows if row["avg_busbw"]]
    if not average:
        _fail(parser, "no '# Avg bus bandwidth' line after %d rows: the run died or hung%s", len(results), why)
    ngpus = [row["ngpus"] for row in rows if row["ngpus"]]
    bounds = [row["out_of_bounds"] for row in rows if row["out_of_bounds"]]
    return {"ranks": ranks, "n_gpus": int(ngpus[0]) if ngpus else None, "rows": results,
            "avg_busbw": float(average[0]), "out_of_bounds": int(bounds[0]) if bounds else None}


def _distinct(items):
    return list(dict.fromkeys(items))


# "Channel 00/0 : 1[1] -> 8[0] [receive] via NET/IB/0(8)/GDRDMA" (src/transport.cc)
_VIA = re.compile(r"Channel \d+(?:/\d+)? : .* via (\S.*?)\s*$")
# NET/<name>/<dev>[(<proxy dev>)][/GDRDMA][/Shared]; a plugin's name may hold spaces
_NET_VIA = re.compile(r"NET/(.+?)/\d+(?:\(\d+\))?(?:/|$)")


def _transport(via):
    if via.startswith("NET/"):
        match = _NET_VIA.match(via)
        name = match.group(1) if match else via.split("/")[1]
        return "NET/%s%s" % (name, "/GDRDMA" if "/GDRDMA" in via else "")
    return "/".join(via.split("/")[:2])  # P2P/CUMEM/read -> P2P/CUMEM


def _network(infos):
    for message in infos:
        match = re.match(r"Using network (.+)", message)
        if match:
            name = match.group(1)  # IB, IBext_v8 (the RDMA/SHARP plugin), Socket, or another plugin's name
            return "IB" if name.startswith("IB") else name
    if any(re.match(r"NET/IB : Using \[\d", message) for message in infos):
        return "IB"
    if any(message.startswith("NET/Socket : Using") for message in infos):
        return "Socket"
    return None


def _gdr(infos, channels):
    """GPUDirect RDMA: the network channels say whether it is used; else the NICs' capability lines."""
    net = [(message, via) for message, via in channels if via.startswith("NET/")]
    if net:
        plain = [message for message, via in net if "/GDRDMA" not in via]
        return (False, plain[0]) if plain else (True, net[0][0])
    # "NET/IB : GPU Direct RDMA Enabled for HCA 0 'mlx5_0'" (graph/topo.cc), "GPU Direct RDMA Disabled for
    # GPU 0 / HCA 0 (distance 8 > 5)" (graph/paths.cc), "(nvidia-peermem) enabled" (RDMA/SHARP plugin)
    lines = [message for message in infos if "GPU Direct RDMA" in message]
    off = [message for message in lines if "Disabled" in message]
    on = [message for message in lines if "Enabled" in message or "enabled" in message]
    if off:
        return False, off[0]
    if on:
        return True, on[0]
    return None, None


def _nccl_debug(rows):
    infos = [row["info"] for row in rows if row["info"]]
    channels = []
    for message in infos:
        match = _VIA.match(message)
        if match:
            channels.append((message, match.group(1)))
    nics, nics_by_host = [], {}
    for row in rows:
        message = row["info"]
        if message.startswith("NET/IB : Using"):
            if "; OOB " not in message:  # net_ib.cc ends the NIC list with "; OOB <if>:<ip>"
                _fail("nccl_debug", "NIC list cut short: %r", message)
            found = re.findall(r"\[\d+\]([^\s:\[\]]+):\d+/\w", message)
            nics.extend(found)
            nics_by_host.setdefault(row["host"], []).extend(found)
    gdr, evidence = _gdr(infos, channels)
    gdr_by_host = {}
    for host in _distinct(row["host"] for row in rows if row["info"]):
        mine = [row["info"] for row in rows if row["host"] == host and row["info"]]
        host_gdr = _gdr(mine, [(m, _VIA.match(m).group(1)) for m in mine if _VIA.match(m)])[0]
        if host_gdr is not None:
            gdr_by_host[host] = host_gdr
    versions = [row["version"] for row in rows if row["version"]]
    return {"version": versions[0] if versions else None, "network": _network(infos), "nics": _distinct(nics),
            "nics_by_host": {host: _distinct(found) for host, found in nics_by_host.items()},
            "gdr": gdr, "gdr_evidence": evidence, "gdr_by_host": gdr_by_host,
            "transports": _distinct(_transport(channel[1]) for channel in channels),
            "warnings": _distinct(row["warn"] for row in rows if row["warn"])}


# --- Layer 6: training ---------------------------------------------------------------------------

def _split_pyramid_records(text):
    # Ranks print to one pipe; unbuffered, a record and its newline are two writes, so two records can
    # share a line (seen on a real 2x H200 run).
    return re.sub(r"(?<=[^\n])pyramid-train ", "\npyramid-train ", text)


def _loss(text):
    value = float(text)
    return value if math.isfinite(value) else None  # NaN/inf: counted in nan_iterations


def _pyramid_step(record):
    fields = dict(re.findall(r"(\w+)=(\S+)", record))
    try:
        step = {"step": int(fields["step"]), "rank": int(fields["rank"]), "step_time_ms": float(fields["step_time_ms"]),
                "fwd_ms": float(fields["fwd_ms"]) if "fwd_ms" in fields else None, "loss": _loss(fields["loss"])}
    except (KeyError, ValueError):
        return _fail("training_log", "unparseable step line %r", "pyramid-train " + record)
    if "host" in fields:  # across nodes: which node the rank ran on
        step["host"] = fields["host"]
    return step


def _megatron_step(iteration, record):
    # " consumed samples: 15360 | elapsed time per iteration (ms): 5123.4 | ... | lm loss: 9.876543E+00 | ..."
    fields = {}
    for part in record.split("|"):
        key, sep, value = part.partition(":")
        if sep:
            fields[key.strip()] = value.strip()
    if "elapsed time per iteration (ms)" not in fields:
        return None, None
    losses = [key for key in fields if key.endswith("loss") and key != "loss scale"]
    key = "lm loss" if "lm loss" in fields else losses[0] if losses else None
    try:
        step = {"step": int(iteration), "rank": None, "step_time_ms": float(fields["elapsed time per iteration (ms)"]),
                "fwd_ms": None, "loss": _loss(fields[key]) if key else None}
        nan = int(fields["number of nan iterations"]) if "number of nan iterations" in fields else None
    except ValueError:
        return _fail("training_log", "unparseable iteration line %r", "iteration %s/ |%s" % (iteration, record))
    return step, nan


def _training_log(rows):
    steps, nan_counts, timeouts, fmt = [], [], [], None
    for row in rows:
        if row["pyramid"]:
            fmt = "pyramid"
            steps.append(_pyramid_step(row["pyramid"]))
        elif row["iteration"]:
            step, nan = _megatron_step(row["iteration"], row["megatron"])
            if step:
                fmt = fmt or "megatron"
                steps.append(step)
            if nan is not None:
                nan_counts.append(nan)
        else:
            timeouts.append(row["timeout"] or row["nccl_warn"])
    if not steps and not timeouts:
        _fail("training_log", "no step lines")
    if fmt == "pyramid":  # steps whose loss is NaN/inf on some rank
        nan_counts = [len({step["step"] for step in steps if step["loss"] is None})]
    return {"format": fmt, "steps": steps, "timeouts": _distinct(timeouts),
            "nan_iterations": sum(nan_counts) if nan_counts else None}


_PREPARE = {
    "nccl_tests": _drop_nccl_debug,
    "training_log": _split_pyramid_records,
}


_NORMALIZERS = {
    "linux_ibstat": _ibstat,
    "linux_lsmod": _lsmod,
    "linux_proc_modules": _proc_modules,
    "linux_mlxconfig_query": _mlxconfig,
    "linux_proc_meminfo": _meminfo,
    "linux_sys_class_iommu": _iommu,
    "linux_proc_osrelease": _osrelease,
    "linux_nvidia_smi_topo_m": _topo,
    "linux_modinfo": _modinfo,
    "linux_proc_driver_nvidia_version": _driver_version,
    "linux_dir_listing": _dir_listing,
    "nccl_tests": _nccl_tests,
    "nccl_debug": _nccl_debug,
    "training_log": _training_log,
}


def _load_platform(name):
    """A platform's parser module, loaded by path: this file is also loaded by path (tests, twin)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), name + ".py")
    if not os.path.exists(path):
        return None
    spec = importlib.util.spec_from_file_location("pyramid%s" % name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


NTC_TEMPLATES = set()  # parsers whose template is ntc-templates' own
TEMPLATE_OF = {}  # parser -> the parser whose template it reads
for _module in filter(None, map(_load_platform, SWITCH_PARSER_MODULES)):
    PARSERS.update(_module.PARSERS)
    _NORMALIZERS.update(_module.NORMALIZERS)
    _PREPARE.update(getattr(_module, "PREPARE", {}))
    NTC_TEMPLATES.update(getattr(_module, "NTC_TEMPLATES", ()))
    TEMPLATE_OF.update(getattr(_module, "TEMPLATE_OF", {}))
