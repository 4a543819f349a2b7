# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""SONiC (community 202305+) switch parsers: sonic-utilities `show` output -> vendor-neutral facts.

The tables are sonic-utilities'
tabulate output (intfutil, portstat, pfcstat, queuestat, lldpshow, bgp_util); ntc-templates has no
SONiC templates, so every template is ours (parsers/textfsm/sonic_*.textfsm). portstat's FEC table
gained columns release by release, so it is read by its header names instead (kind text).

Port names are SONiC's default names (Ethernet0, Ethernet8, ...); rows of other objects
(PortChannel, backplane Ethernet-BP ports) are left out. A normalizer raises ValueError for output
that is empty, cut short, an error message or another command's report.
"""

import math
import re

from ._common import bgp_neighbor, fail as _fail, reject_other as _reject_other, trailerless
from ._registry import parser


# SONiC's front-panel port names in the default naming mode ("alias" mode prints etp1, fortyGigE0/0 ...).
_PORT = re.compile(r"Ethernet\d+$")
_NA = "N/A"
_NO_LIGHT_DBM = -40.0  # "-inf" dBm (no light at all) as a number JSON can carry


def _with_header(rows, what):
    """The rows of a report that has its table header somewhere and no line the template does not know."""
    if not any(row.get("header") for row in rows):
        _fail("no %s header: not this command's report (an error, or cut short)", what)
    return _reject_other(rows)


def _front_panel(rows, column):
    """(port, row) of the rows naming a front-panel port in ``column`` (not PortChannels, backplane ports)."""
    for row in rows:
        if row[column] and _PORT.match(row[column]):
            yield row[column], row


def _count(text, what):
    """A counter cell: "1,200" -> 1200; N/A -> None."""
    text = text.strip()
    if text == _NA:
        return None
    if not re.match(r"\d{1,3}(?:,\d{3})*$|\d+$", text):
        _fail("%s: %r is not a counter", what, text)
    return int(text.replace(",", ""))


# --- tabulate tables with blank cells or cells holding spaces -------------------------------------

_DASHES = re.compile(r"^-+(?:[ ]+-+)+[ ]*$")


def _cells(text):
    """Rows of a tabulate "simple" table, cut at the columns of the dash line under its header.

    A cell may be blank (lldpshow prints "" for a neighbor without a name or capability) or hold
    spaces ("Interface   8 as enp5s0f0", "Idle (Admin)"), so splitting on whitespace would
    shift columns. Each row becomes "|"-separated stripped cells; everything else is unchanged.
    """
    out, spans = [], None
    for line in text.split("\n"):
        if _DASHES.match(line):
            spans = [match.span() for match in re.finditer(r"-+", line)]
            out.append(line)
            continue
        if spans is None or not line.strip() or re.match(r"^-+\s*$", line):
            spans = None
            out.append(line)
            continue
        cells = [line[start:end] for start, end in spans[:-1]] + [line[spans[-1][0]:]]
        gaps = [line[end:spans[i + 1][0]] for i, (start, end) in enumerate(spans[:-1])]
        if any(gap.strip() for gap in gaps):  # text where tabulate puts the two-space gap: not a row
            out.append(line)
            spans = None
            continue
        out.append("|".join(cell.strip() for cell in cells))
    return "\n".join(out)


# --- interfaces ------------------------------------------------------------------------------------

def _speed_gbps(text):
    match = re.match(r"(\d+(?:\.\d+)?)([GM])$", text)
    if not match:
        if text == _NA:
            return None
        _fail("speed %r is not a speed", text)
    value = float(match.group(1)) / (1 if match.group(2) == "G" else 1000)
    return int(value) if value.is_integer() else value


_STATUS_NEEDS = ("Interface", "Speed", "Oper", "Admin")


@parser("sonic_show_interfaces_status",
        "show interfaces status: per port oper/admin state and speed (read by column name)",
        kind="text")
def _interfaces_status(text):
    """intfutil's tabulate table, read by its column names: the columns changed across releases
    (201811: Interface Lanes Speed MTU Alias Oper Admin [Type Asym PFC]; 2019+ added Vlan, then FEC;
    later releases "Oper Speed" after Asym PFC, and builds of 2024 print "Oper FEC" for FEC and
    "ProtoDown" and "Eff Admin" before Type), and a cell may hold spaces ("QSFP28 or later", an empty
    Type), so the dash line under the header gives the columns. Where the table has "Oper Speed" (what
    the port runs at, auto-negotiated or not), it is the port's speed; else the configured Speed.
    A table without an Interface, Speed, Oper or Admin column is not this report."""
    names, rows = _named_table(text, "'Interface Lanes Speed MTU [FEC] Alias [Vlan] Oper Admin ...'")
    missing = [name for name in _STATUS_NEEDS if name not in names]
    if missing:
        _fail("the table has no %s column (header %r)", ", ".join(missing), " ".join(names))
    ports = {}
    for row in rows:
        name = row["Interface"]
        if not _PORT.match(name):
            continue
        oper, admin = row["Oper"].lower(), row["Admin"].lower()
        if oper not in ("up", "down") or admin not in ("up", "down"):
            _fail("%s: oper %r / admin %r", name, row["Oper"], row["Admin"])
        running = row.get("Oper Speed", _NA)  # N/A where the port has none to show (or no such column)
        ports[name] = {"oper": oper, "admin": admin, "status": row["Oper"],
                       "speed_gbps": _speed_gbps(running if running != _NA else row["Speed"])}
    if not ports:
        _fail("no EthernetN port rows (interface naming mode 'alias'?)")
    return trailerless({"ports": ports})


def _named_table(text, what):
    """(column names, [{name: cell}]) of a tabulate "simple" table: a header line, a dash line, rows cut at
    the dash line's columns. Any line outside it, or text in a column gap, is a failure."""
    lines = text.split("\n")
    at = next((i for i in range(1, len(lines)) if _DASHES.match(lines[i]) and lines[i - 1].strip()), None)
    if at is None:
        _fail("no %s header: not this command's report (an error, or cut short)", what)
    for line in lines[:at - 1]:
        if line.strip():
            _fail("unexpected line %r before the table", line)
    spans = [match.span() for match in re.finditer(r"-+", lines[at])]
    names = [" ".join(cell.split()) for cell in _cut_spans(lines[at - 1], spans)]
    rows = []
    for line in lines[at + 1:]:
        if not line.strip():
            continue
        gaps = [line[end:spans[i + 1][0]] for i, (start, end) in enumerate(spans[:-1])]
        if not any(gap.strip() for gap in gaps) and len(line.rstrip()) >= spans[-1][0]:
            rows.append(dict(zip(names, (cell.strip() for cell in _cut_spans(line, spans)))))
        elif len(line.split()) == len(names):  # one word a column: unambiguous even when not aligned to the dashes
            rows.append(dict(zip(names, line.split())))
        else:
            _fail("unexpected line %r (a row cut short, or not a row of the table)", line)
    return names, rows


def _cut_spans(line, spans):
    return [line[start:end] for start, end in spans[:-1]] + [line[spans[-1][0]:]]


# --- errors ----------------------------------------------------------------------------------------

@parser("sonic_show_interfaces_counters",
        "show interfaces counters (portstat): per port RX_ERR (incl. FCS/CRC) and TX_ERR")
def _interfaces_counters(rows):
    """RX_ERR is SAI_PORT_STAT_IF_IN_ERRORS, which counts FCS (CRC) errors; SONiC's CLI shows no
    separate FCS counter, so crc and in_errors are both RX_ERR."""
    rows = _with_header(rows, "'IFACE STATE RX_OK ... TX_OVR'")
    ports = {}
    for name, row in _front_panel(rows, "iface"):
        rx_err = _count(row["rx_err"], name + " RX_ERR")
        if rx_err is None:  # the platform reports no input errors for this port: no data, not zero
            continue
        ports[name] = {"crc": rx_err, "in_errors": rx_err, "out_errors": _count(row["tx_err"], name + " TX_ERR")}
    if not ports:
        _fail("no EthernetN port with an RX_ERR counter")
    return {"ports": ports}


# --- traffic (the link kind's reads under load) ----------------------------------------------------

@parser("sonic_show_interfaces_counters_traffic",
        "show interfaces counters (portstat): per port RX_OK and TX_OK packets (counters that only rise; no octets)",
        template="sonic_show_interfaces_counters")
def _interfaces_counters_traffic(rows):
    """portstat prints packets only: RX_OK/TX_OK are every good packet the port took and sent (unicast and not;
    SAI's IF_IN/OUT_UCAST plus NON_UCAST), and no octet counter (neither -a nor -j nor `detailed` prints one). So the
    facts hold in_packets/out_packets alone; the link judge compares an uplink with its peers, for which packets are
    as good a measure as bytes under one load. A port whose RX_OK or TX_OK reads N/A is left out (no data, not zero)."""
    rows = _with_header(rows, "'IFACE STATE RX_OK ... TX_OVR'")
    ports = {}
    for name, row in _front_panel(rows, "iface"):
        counts = {"in_packets": _count(row["rx_ok"], name + " RX_OK"), "out_packets": _count(row["tx_ok"], name + " TX_OK")}
        if None not in counts.values():
            ports[name] = counts
    if not ports:
        _fail("no EthernetN port with RX_OK and TX_OK counters")
    return {"ports": ports}


# --- optics ----------------------------------------------------------------------------------------

def _dbm(text, where):
    value = text[:-3] if text.endswith("dBm") else text
    if value == _NA:
        return None
    try:
        number = float(value)
    except ValueError:
        return _fail("%s: %r is not a power in dBm", where, text)
    if number == float("-inf"):
        return _NO_LIGHT_DBM
    if math.isnan(number) or number == float("inf"):
        _fail("%s: %r is not a power in dBm", where, text)
    return number


def _lanes(found, port, kind):
    numbers = sorted(found)
    if numbers != list(range(1, len(numbers) + 1)):
        _fail("%s: %s lanes %s are not 1..N (cut short?)", port, kind, numbers)
    return [found[number] for number in numbers]


@parser("sonic_show_interfaces_transceiver_eeprom_dom",
        "show interfaces transceiver eeprom --dom: per port, per lane RX/TX optical power in dBm")
def _transceiver_dom(rows):
    _reject_other(rows)
    blocks = {}
    order = []
    for row in rows:
        port = row["port"]
        if not port:
            continue
        if row["status"]:
            if port in blocks:
                _fail("%s is listed twice", port)
            blocks[port] = {"status": row["status"], "rx": {}, "tx": {}, "monitor": False, "end": False}
            order.append(port)
            continue
        block = blocks.get(port)
        if block is None:
            _fail("DOM values before the %s: header line", port)
        if row["section"] == "ChannelMonitorValues":
            block["monitor"] = True
        elif row["section"] == "ModuleThresholdValues":
            block["end"] = True
        elif row["direction"]:
            kind = row["direction"].lower()
            lane = int(row["lane"] or 1)
            if lane in block[kind]:
                _fail("%s: %s%dPower listed twice", port, row["direction"], lane)
            block[kind][lane] = _dbm(row["power"], "%s %s%dPower" % (port, row["direction"], lane))
    if not blocks:
        _fail("no '<port>: SFP EEPROM ...' lines")
    ports = {}
    for port in order:
        block = blocks[port]
        if block["status"] == "SFP EEPROM Not detected" and _PORT.match(port):
            ports[port] = {"rx_dbm": [], "tx_dbm": []}  # sfpshow says no module is plugged in: listed, with no optic
            continue
        if not block["monitor"]:
            continue  # no EEPROM, RJ45, or a module without DOM
        if not block["end"]:
            _fail("%s: the DOM block is cut short (no ModuleThresholdValues)", port)
        rx = _lanes(block["rx"], port, "RX")
        tx = _lanes(block["tx"], port, "TX")
        if not rx or None in rx:  # copper or a module that reports no RX power: no optical reading
            continue
        if not _PORT.match(port):
            continue
        ports[port] = {"rx_dbm": rx, "tx_dbm": [value for value in tx if value is not None]}
    return trailerless({"ports": ports})


# --- lldp ------------------------------------------------------------------------------------------

@parser("sonic_show_lldp_table",
        "show lldp table: LLDP neighbors (system name, port id) per local port",
        prepare=_cells)
def _lldp_table(rows):
    rows = _with_header(rows, "'LocalPort RemoteDevice RemotePortID Capability RemotePortDescr'")
    totals = [row["total"] for row in rows if row["total"]]
    if not totals:
        _fail("no 'Total entries displayed' line: cut short")
    neighbors = {}
    entries = [row for row in rows if row["local_port"]]
    if len(entries) != int(totals[-1]):
        _fail("%d rows but 'Total entries displayed: %s'", len(entries), totals[-1])
    for row in entries:
        neighbor = {"system": row["remote_device"], "port": row["remote_port_id"]}
        neighbors.setdefault(row["local_port"], []).append(neighbor)
    return {"neighbors": neighbors}


# --- bgp -------------------------------------------------------------------------------------------

_PLAIN_HEADER = re.compile(r"^\s*Neighbor\s+V\s+AS\s+MsgRcvd\s+MsgSent\s+TblVer\s+InQ\s+OutQ\s+Up/Down\s+State/PfxRcd"
                           r"(?P<name>\s+NeighborName)?\s*$")


def _bgp_cells(text):
    """_cells, and the tables without a dash line (FRR's own, and the older "Neighbor ... NeighborName"
    one) cut at their whitespace: nine one-word columns, the state, which may hold a space ("Idle
    (Admin)"), and the one-word NeighborName where the header has it."""
    out, named = [], None
    for line in _cells(text).split("\n"):
        header = _PLAIN_HEADER.match(line)
        if header:
            named = bool(header.group("name"))
        elif named is not None and line.strip() and not line.startswith("Total number of neighbors"):
            fields = line.split()
            if len(fields) >= (11 if named else 10):
                line = "|".join(fields[:9] + ([" ".join(fields[9:-1]), fields[-1]] if named else [" ".join(fields[9:])]))
        out.append(line)
    return "\n".join(out)


@parser("sonic_show_ip_bgp_summary",
        "show ip bgp summary (SONiC's bgp_util table, or FRR's own): IPv4 neighbors, AS, state, prefixes",
        prepare=_bgp_cells)
def _bgp_summary(rows):
    """Three layouts: sonic-utilities' bgp_util table ("Neighbhor ... State/PfxRcd NeighborName"), the
    same spelled "Neighbor", and FRR's own table as SONiC 201904+ printed it (no NeighborName). Each
    ends with "Total number of neighbors N", which proves the table complete; a summary without it
    (older releases, or a read cut at a line boundary) is read for the neighbors it lists, and says it
    is unverified, so that a neighbor it does not list is no proof the neighbor is missing."""
    rows = _with_header(rows, "'Neighbhor V AS MsgRcvd ... State/PfxRcd [NeighborName]'")
    if not any(row["family"] for row in rows):
        _fail("no 'IPv4 Unicast Summary:' line")
    totals = [row["total"] for row in rows if row["total"]]
    entries = [row for row in rows if row["neighbor"]]
    if totals and len(entries) != int(totals[-1]):
        _fail("%d rows but 'Total number of neighbors %s'", len(entries), totals[-1])
    neighbors = {}
    for row in entries:
        address = row["neighbor"]
        if not re.match(r"[0-9A-Fa-f:.]+$", address) or not row["remote_as"].isdigit():
            _fail("not a neighbor row: %r", "|".join(row[key] for key in ("neighbor", "version", "remote_as")))
        state_pfx = row["state_pfxrcd"]  # a number while Established, else the state and its reason: "Idle (Admin)"
        try:
            neighbors[address] = bgp_neighbor(int(row["remote_as"]), "Established" if state_pfx.isdigit() else state_pfx,
                                              int(state_pfx) if state_pfx.isdigit() else None)
        except ValueError:
            _fail("%s: state %r", address, state_pfx)
    if not totals:
        return {"neighbors": neighbors, "unverified": "no 'Total number of neighbors' line"}
    return {"neighbors": neighbors}


# --- pfc -------------------------------------------------------------------------------------------

@parser("sonic_show_pfc_counters",
        "show pfc counters (pfcstat): PFC0..PFC7 pause frames received and sent per port")
def _pfc_counters(rows):
    _reject_other(rows)
    tables = {"rx": {}, "tx": {}}
    for row in rows:
        if not row["port"]:
            continue
        direction = row["direction"].lower()
        if direction not in tables:  # a row before any table header: Filldown has no direction yet
            _fail("counter row %r before any 'Port Rx'/'Port Tx' header (expected pfcstat's Port Rx table first)", row["port"])
        where = "%s %s PFC" % (row["port"], row["direction"])
        values = [_count(row["pfc%d" % prio], where + str(prio)) for prio in range(8)]
        tables[direction][row["port"]] = values
    seen = {row["direction"].lower() for row in rows if row["header"]}
    for direction in ("rx", "tx"):
        if direction not in seen:
            _fail("no 'Port %s PFC0 ... PFC7' table (cut short?)", direction.capitalize())
    if set(tables["rx"]) != set(tables["tx"]):
        _fail("the Rx and Tx tables list different ports (cut short?)")
    ports = {}
    for port, rx in tables["rx"].items():
        tx = tables["tx"][port]
        if not _PORT.match(port) or None in rx or None in tx:
            continue  # a port without PFC counters (N/A): no data, not zero
        ports[port] = {str(prio): {"rx": rx[prio], "tx": tx[prio]} for prio in range(8)}
    if not ports:
        _fail("no EthernetN port with PFC counters")
    return {"ports": ports}


_PRIORITY_LIST = re.compile(r"[0-7](?:,[0-7])*$")


@parser("sonic_show_pfc_priority",
        "show pfc priority (pfc show priority): the lossless (PFC-enabled) priorities of every port", kind="text")
def _pfc_priority(text):
    """{"pfc": {port: {"enabled", "priorities"}}} from the PORT_QOS_MAP table's pfc_enable column.

    sonic-utilities prints one tabulate row per PORT_QOS_MAP entry: "3,4", or N/A when the entry has
    no pfc_enable (no lossless priority: PFC off on that port), or nothing when pfc_enable is empty.
    A port without a PORT_QOS_MAP entry is not listed at all (the judge says so: not read). The table ends with a
    blank line (click.echo()); a read without it was cut short."""
    lines = [line.rstrip() for line in text.split("\n")]
    for index, line in enumerate(lines):
        if re.match(r"^Interface\s+Lossless priorities$", line):
            break
    else:
        _fail("no 'Interface  Lossless priorities' header: not this command's report (an error, or cut short)")
    if index + 1 >= len(lines) or not _DASHES.match(lines[index + 1]):
        _fail("no dash line under the 'Interface  Lossless priorities' header")
    if any(line.strip() for line in lines[:index]):
        _fail("text before the table: %r", next(line for line in lines[:index] if line.strip()))
    ports = {}
    for line in lines[index + 2:]:
        if not line.strip():
            continue
        port, _space, cell = line.strip().partition(" ")
        cell = cell.strip()
        if not re.match(r"Ethernet[-\w]*\d+$", port):
            _fail("row %r: not an interface and its lossless priorities", line)
        if cell in ("", _NA):
            priorities = []
        elif _PRIORITY_LIST.match(cell):
            priorities = sorted({int(prio) for prio in cell.split(",")})
        else:
            _fail("%s: lossless priorities %r are not a list of priorities 0-7", port, cell)
        if _PORT.match(port):  # front-panel ports; backplane (Ethernet-BP) ports are not planned
            ports[port] = {"enabled": bool(priorities), "priorities": priorities}
    if not ports:
        _fail("no EthernetN row under the header (no PORT_QOS_MAP entry, or cut short)")
    # showPfcPrio ends with click.echo(): a blank line after the table. Without it the read was cut, inside the last
    # row (its priorities, or the whole cell, lost: "PFC off") or at a row boundary (ports lost): never a verdict.
    if len(lines) < 2 or lines[-1] or lines[-2]:
        _fail("no blank line after the table (%r is last): cut short, rows or priorities may be lost",
              next(line for line in reversed(lines) if line)[:60])
    return {"pfc": ports}


# --- queue tables (discards, ecn) ------------------------------------------------------------------

def _queue_table(rows, column, what):
    rows = _with_header(rows, "'%s' table" % what)
    ports = {}
    for row in rows:
        port, queue = row["port"], row["queue"]
        if not port:
            continue
        match = re.match(r"UC(\d+)$", queue)
        if not match or not _PORT.match(port):
            continue  # multicast / ALL queues, backplane ports
        value = _count(row[column], "%s %s" % (port, queue))
        if value is None:
            _fail("%s %s: %s is N/A (counter not supported or not polled)", port, queue, what)
        ports.setdefault(port, {})[match.group(1)] = value
    if not ports:
        _fail("no unicast queue rows")
    queue_sets = {frozenset(queues) for queues in ports.values()}
    if len(queue_sets) != 1:
        _fail("ports list different unicast queues (cut short?)")
    return {"ports": ports}


@parser("sonic_show_queue_counters",
        "show queue counters (queuestat): dropped packets per unicast queue per port")
def _queue_counters(rows):
    return _queue_table(rows, "drop_pkts", "Drop/pkts")


@parser("sonic_show_queue_wredcounters",
        "show queue wredcounters (202411+): ECN-marked packets per unicast queue per port")
def _queue_wredcounters(rows):
    return _queue_table(rows, "ecn_pkts", "EcnMarked/pkts")


# --- fec -------------------------------------------------------------------------------------------

# What portstat may print around its table: the window of `-p`, the time of a `sonic-clear counters`
# snapshot the counts start from, and the multi-ASIC reminder after it.
_FEC_AROUND = re.compile(r"The rates are calculated within \d+ seconds period$|Last cached time was \S+$|"
                         r"Reminder: Please execute 'show interface counters -d all' to include internal links$")
_FEC_COLUMNS = {"FEC_CORR": "fec_corrected", "FEC_UNCORR": "fec_uncorrected"}


@parser("sonic_show_interfaces_counters_fec_stats",
        "show interfaces counters fec-stats (portstat -f): per port FEC corrected and uncorrected codewords",
        kind="text")
def _fec_stats(text):
    """IFACE STATE FEC_CORR FEC_UNCORR FEC_SYMBOL_ERR since 202211; FEC_PRE_BER, FEC_POST_BER (2024),
    FEC_PRE_BER_MAX, FLR(O), FLR(P) (Accuracy), FEC_MAX_T (2025) came after, and a cell may hold spaces
    ("7.81e-10 (89%)"): cells are cut at the columns of the dash line under the header. A count of
    N/A (the platform keeps no such counter for the port) leaves the port out: no data, not zero.
    `-j` would print JSON, but fec-stats has it only since sonic-utilities #3894 (2025)."""
    lines = text.rstrip("\n").split("\n")
    start = next((i for i, line in enumerate(lines) if line.split()[:1] == ["IFACE"] and "FEC_CORR" in line.split()), None)
    if start is None or start + 1 >= len(lines) or not _DASHES.match(lines[start + 1]):
        _fail("no 'IFACE STATE FEC_CORR FEC_UNCORR ...' table header: not this command's report (an error, or cut short)")
    body = lines[start + 2:]
    end = next((i for i, line in enumerate(body) if not line.strip()), len(body))  # the table ends at a blank line
    for line in lines[:start] + body[end:]:
        if line.strip() and not _FEC_AROUND.match(line.strip()):
            _fail("unexpected line %r", line)
    spans = [match.span() for match in re.finditer(r"-+", lines[start + 1])]
    header = _cut(lines[start], spans)
    missing = [name for name in ("IFACE",) + tuple(_FEC_COLUMNS) if name not in header]
    if missing:
        _fail("no %s column", ", ".join(missing))
    ports = {}
    for line in body[:end]:
        row = dict(zip(header, _cut(line, spans, whole=True)))
        name = row["IFACE"]
        counts = {fact: _count(row[column], "%s %s" % (name, column)) for column, fact in _FEC_COLUMNS.items()}
        if _PORT.match(name) and None not in counts.values():
            ports[name] = counts
    if not ports:
        _fail("no EthernetN port with FEC counters")
    return {"ports": ports}


def _cut(line, spans, whole=False):
    """The cells of one table line at the dash line's columns; ``whole``: a data row, whose two-space
    gaps between columns must be blank (text there means a row of another layout, or a cut one)."""
    if whole and (len(line) < spans[-1][0] or any(line[end:spans[i + 1][0]].strip() for i, (start, end) in enumerate(spans[:-1]))):
        _fail("row %r does not fit the table's columns (cut short?)", line)
    return [line[start:end].strip() for start, end in spans[:-1]] + [line[spans[-1][0]:].strip()]


@parser("sonic_show_interfaces_status_mtu",
        "show interfaces status: per port MTU (its MTU column, read by column name; host and switch agree)",
        kind="text")
def _interfaces_status_mtu(text):
    """The MTU column of intfutil's table (in every release's layout, 201811's seven columns included). A port
    row whose MTU is not a number is a damaged read, never a port without an MTU."""
    names, rows = _named_table(text, "'Interface Lanes Speed MTU [FEC] Alias [Vlan] Oper Admin ...'")
    if "Interface" not in names or "MTU" not in names:
        _fail("the table has no Interface or MTU column (header %r)", " ".join(names))
    mtu = {}
    for row in rows:
        if not _PORT.match(row["Interface"]):
            continue
        if not row["MTU"].isdigit():
            _fail("%s: MTU %r is not a number", row["Interface"], row["MTU"])
        mtu[row["Interface"]] = int(row["MTU"])
    if not mtu:
        _fail("no EthernetN port rows (interface naming mode 'alias'?)")
    return {"mtu": mtu}
