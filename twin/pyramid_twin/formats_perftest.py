# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A twin node's ib_write_bw (perftest): servers really listen on the node's twin address, clients
really connect, and both print perftest's real layout (DOCA-OFED perftest: a tab between the two
columns of the parameter block, the table with --report_gbits, the server's banner before it binds).

Rail addresses of the seed's plan (10.5<rail>.<n // 256>.<n % 256>) are mapped onto the twin's own
address of node n (127.1.x.y): no packet goes to the plan's 10.x addresses. The bandwidth both ends
print is the lower of the two nodes' rail figures (state["rdma"]), as a real link would measure.
Error texts are perftest's own (src/write_bw.c, src/perftest_communication.c, src/perftest_parameters.c).

A GPUDirect run (--use_cuda=<gpu> [--use_cuda_dmabuf]) prints perftest's CUDA preamble
(src/cuda_memory.c) before the header, the server after its banner, and measures the node's rail
figure times its GPUDirect factor (healthy: GDR_HEALTHY; the `gdr_bw` fault's `factor`).
"""

from __future__ import annotations

import sys
import time

from pyramid_twin import wire

DASHES = "-" * 87 + "\n"
ACCEPT_SECONDS = 120
# perftest_communication.c, then write_bw.c: a port another process holds
HELD = "Couldn't listen to port %d\nUnable to open file descriptor for socket connection Unable to init the socket connection\n"
# an empty GID table entry (no address on the netdev): both ends print the header, then fail at RTR
RTR_FAILED = "Failed to modify QP %d to RTR\n Unable to Connect the HCA's through the link\n"
RATE_OPTIONS = ("--rate_limit", "--rate_limit_type", "--rate_units")  # perftest's rate limiter (src/perftest_parameters.c)
GDR_HEALTHY = 0.985  # a healthy GPUDirect run: within a few percent of host memory (seed 004)


def _options(args):
    """perftest's options we use, and the server name (the one positional argument), or an error text."""
    values, positional, flags = {}, [], {"-F", "--report_gbits"}
    index = 0
    while index < len(args):
        arg = args[index]
        if arg in flags or arg == "--use_cuda_dmabuf":
            values[arg] = True
        elif arg.startswith("--use_cuda="):
            if not arg.split("=", 1)[1].isdigit():
                return None, None, " Invalid CUDA device\n"
            values["--use_cuda"] = int(arg.split("=", 1)[1])
        elif arg.split("=", 1)[0] in RATE_OPTIONS:
            name, _eq, value = arg.partition("=")
            if not _eq:
                if index + 1 >= len(args):
                    return None, None, "ib_write_bw: option '%s' requires an argument\n" % arg
                value, index = args[index + 1], index + 1
            values[name] = value
        elif arg in ("-d", "-s", "-D", "-x", "-p", "-q", "-n"):
            if index + 1 >= len(args):
                return None, None, "option requires an argument -- '%s'\n" % arg[1:]
            values[arg] = args[index + 1]
            index += 1
        elif arg.startswith("-"):
            return None, None, "ib_write_bw: invalid option -- '%s'\n" % arg.lstrip("-")
        else:
            positional.append(arg)
        index += 1
    return values, (positional[0] if positional else None), None


def _header(state, rail, opts):
    ethernet = rail["link_layer"] == "Ethernet"
    lines = [DASHES, "                    RDMA_Write BW Test\n",
             " Dual-port       : OFF\t\tDevice         : %s\n" % rail["device"],
             " Number of qps   : 1\t\tTransport type : IB\n",
             " Connection type : RC\t\tUsing SRQ      : OFF\n",
             " PCIe relax order: ON\t\tLock-free      : OFF\n",
             " ibv_wr* API     : ON\t\tUsing Enhanced Reorder      : OFF\n",
             " TX depth        : 128\n", " CQ Moderation   : 1\n", " CQE Poll Batch  : Dynamic\n",
             " Mtu             : 4096[B]\n", " Link type       : %s\n" % ("Ethernet" if ethernet else "IB")]
    if ethernet:
        lines.append(" GID index       : %s\n" % opts.get("-x", "0"))
    lines += [" Max inline data : 0[B]\n", " rdma_cm QPs\t : OFF\n", " Data ex. method : Ethernet\n", DASHES]
    return "".join(lines)


def _addresses(state, rail, peer_index, ethernet):
    own = " local address: LID %s QPN 0x%04x PSN 0x%06x RKey 0x1fff00 VAddr 0x007e6f4ed11000\n" % (
        "0000" if ethernet else "0x%02x" % (state["index"] % 250 + 1), 0x40 + rail["port"], state["index"] * 7919 % 0xFFFFFF)
    far = " remote address: LID %s QPN 0x%04x PSN 0x%06x RKey 0x1fff00 VAddr 0x007778e64eb000\n" % (
        "0000" if ethernet else "0x%02x" % (peer_index % 250 + 1), 0x40 + rail["port"], peer_index * 7919 % 0xFFFFFF)
    return own + far + DASHES


def _table(gbps, size, duration):
    peak = gbps * 1.0004
    iterations = max(1, int(gbps * 1e9 / 8 / size * duration)) if duration else 5000
    rate = gbps * 1e9 / 8 / size / 1e6
    return (" #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n"
            " %-10d %-10d       %.2f             %.2f \t\t     %.6f\n" % (size, iterations, peak, gbps, rate) + DASHES)


def _cuda_preamble(state, opts, size):
    """perftest's CUDA preamble (src/cuda_memory.c init_gpu and the buffer's allocation), or an error
    text for a GPU index the node does not have; "" for a host-memory run."""
    if "--use_cuda" not in opts:
        return "", ""
    gpus, index = state.get("gpus", []), opts["--use_cuda"]
    out = "initializing CUDA\n"
    if index >= len(gpus):
        return out, "No such device ID (%d) exists in system\nCouldn't init GPU context: 1\n" % index
    out += "Listing all CUDA devices in system:\n" + "".join(
        "CUDA device %d: PCIe address is %s\n" % (gpu["index"], gpu["pci"][5:10].upper()) for gpu in gpus)
    out += "\nPicking device No. %d\n[pid = %d, dev = %d] device name = [%s]\n" % (index, 4100 + index, index, gpus[index]["name"])
    out += "creating CUDA Ctx\nmaking it the current CUDA Ctx\nCUDA device integrated: 0\n"
    if opts.get("--use_cuda_dmabuf"):
        out += "using DMA-BUF for GPU buffer address at 0x78e9f8800000 aligned at 0x78e9f8800000 with aligned size %d\n" % size
    out += "allocated GPU buffer of a %d address at 0x5d07a20e9300 for type CUDA_MEM_DEVICE\n" % size
    return out, ""


def gdr_factor(state, opts):
    """What a run's buffer costs: 1 in host memory, the node's GPUDirect factor in GPU memory."""
    if "--use_cuda" not in opts:
        return 1.0
    return float(state.get("rdma", {}).get("gdr_factor", GDR_HEALTHY))


def _rail(state, device):
    return next((rail for rail in state["rails"] if rail["device"] == device), None)


def rail_gbps(state, device):
    """What this node's rail carries: its fault figure, else about 98% of its rated speed."""
    figures = state.get("rdma", {}).get("gbps", {})
    if device in figures:
        return float(figures[device])
    rail = _rail(state, device)
    return round(rail["rate"] * 0.9789, 2) if rail else 0.0


def _common_errors(state, opts):
    """perftest's own words for a device it cannot open or a GID index the port lacks."""
    device = opts.get("-d", "mlx5_0")
    rail = _rail(state, device)
    if rail is None:
        return rail, 1, "IB device %s not found\n Unable to find the Infiniband/RoCE device\n" % device
    return rail, 0, ""


def _gid_missing(state, rail):
    return rail["link_layer"] == "Ethernet" and rail["device"] in state.get("rdma", {}).get("gid_missing", [])


def ib_write_bw(state, args, env, load_node=None):
    opts, server_name, usage = _options(args)
    if usage:
        return 1, "", usage
    rail, rc, err = _common_errors(state, opts)
    if rc:
        return rc, "", err
    port = int(opts.get("-p", 18515))
    size, duration = int(opts.get("-s", 65536)), int(opts.get("-D", 0))
    preamble, failed = _cuda_preamble(state, opts, size)
    if failed:
        return 1, preamble, failed
    rate, refused = _rate_limit(opts)
    if refused:
        return 1, "", refused
    if server_name is None:
        return _serve(state, rail, opts, port, size, duration, load_node, preamble)
    rc, out, err = _connect(state, rail, opts, server_name, port, size, duration, rate, load_node)
    return rc, preamble + out, err


def _rate_limit(opts):
    """The client's rate limit in Gb/s (None: none), or perftest's own words refusing the options
    (src/perftest_parameters.c: parse_ib_params and check_parameters)."""
    if "--rate_limit" not in opts:
        return None, ""
    try:
        rate = float(opts["--rate_limit"])
    except ValueError:
        rate = 0.0
    if rate <= 0:
        return None, " Rate limit must be non-negative floating point number\n"
    kind = opts.get("--rate_limit_type", "HW")
    if kind not in ("HW", "SW", "PP"):
        return None, " Invalid rate limit type flag. Please use HW, SW or PP.\n"
    units = opts.get("--rate_units", "g")
    if units not in ("M", "g", "p"):
        return None, " Invalid rate limit units. Please use M,g or p\n"
    if kind == "PP":  # ib_write_bw runs RC: packet pacing is for raw Ethernet only
        return None, "Packet Pacing is only supported for Raw Ethernet.\n"
    if units == "p":
        return None, " Failed: pps rate limit units is not supported when setting HW rate limit\n" if kind == "HW" else ""
    return (rate * 8 * 1024 * 1024 / 1e9 if units == "M" else rate), ""


def _serve(state, rail, opts, port, size, duration, load_node, preamble=""):
    rdma = state.get("rdma", {})
    if rdma.get("server_stuck"):  # prints nothing and never listens (a hung driver call)
        time.sleep(3600)
        return 1, "", ""
    out = sys.stdout
    out.write("\n************************************\n* Waiting for client to connect... *\n************************************\n")
    out.flush()
    if port in rdma.get("stale_ports", []):  # a leftover server holds the port on this node
        return 1, "", HELD % port
    try:
        listener = wire.listen(state["address"], port, ACCEPT_SECONDS)
    except OSError:
        return 1, "", HELD % port
    try:
        connection = wire.accept(listener)
    except OSError:
        return 1, "", "server accept: Connection timed out\naccept() failed\n Unable to init the socket connection\n"
    with connection:
        hello = wire.receive(connection)
        client = (load_node(hello.get("node", "")) if load_node else None) or {}
        if _gid_missing(state, rail) or hello.get("gid_missing") == "1":
            wire.send(connection, {"rtr_failed": True})
            listener.close()
            return 1, preamble + _header(state, rail, opts) + _addresses(state, rail, client.get("index", 0), True), RTR_FAILED % (0x40 + rail["port"])
        gbps = round(min(rail_gbps(state, rail["device"]) * gdr_factor(state, opts), float(hello.get("gbps", 0.0))), 2)
        wire.send(connection, {"gbps": gbps})
    listener.close()
    text = preamble + _header(state, rail, opts) + _addresses(state, rail, client.get("index", 0), rail["link_layer"] == "Ethernet")
    return 0, text + _table(gbps, size, duration), ""


def _connect(state, rail, opts, server_name, port, size, duration, rate=None, load_node=None):
    planned = wire.rail_address(server_name)
    if not planned:  # an address outside the twin's plan: nothing to connect to
        return 1, "", "Couldn't connect to %s:%d\nUnable to open file descriptor for socket connection Unable to init the socket connection\n" % (
            server_name, port)
    index = planned[1]
    address = "127.1.%d.%d" % (index // 256, index % 256)
    try:
        connection = wire.connect(address, port, 5)
    except OSError:
        return 1, "", "Couldn't connect to %s:%d\nUnable to open file descriptor for socket connection Unable to init the socket connection\n" % (
            server_name, port)
    with connection:
        wire.send(connection, {"node": state["hostname"], "gbps": rail_gbps(state, rail["device"]) * gdr_factor(state, opts),
                               "gid_missing": _gid_missing(state, rail)})
        answer = wire.receive(connection)
    if answer.get("rtr_failed") == "1":
        return 1, _header(state, rail, opts) + _addresses(state, rail, index, True), RTR_FAILED % (0x40 + rail["port"])
    if "gbps" not in answer:
        return 1, "", " Failed to exchange data between server and clients\n"
    gbps = float(answer["gbps"])
    if rate is not None:  # a paced sender: part of an incast, whose counters the twin keeps (incast.py)
        gbps = round(min(gbps, rate), 2)
        _incast(state, rail, opts, index, duration, rate, load_node)
    text = _header(state, rail, opts) + _addresses(state, rail, index, rail["link_layer"] == "Ethernet")
    return 0, text + _table(gbps, size, duration), ""


def _incast(state, rail, opts, target_index, duration, rate, load_node):
    """Record this run's event, run for its duration in real time (so a read during the run sees the
    counters part way), then commit this node's and the target's NIC counters (twin/README.md, Incast)."""
    node_dir = getattr(sys.modules.get("pyramid_twin.fake_tool"), "NODE", [None])[0]
    if not node_dir or load_node is None:
        return
    from pyramid_twin import changes, formats_roce, incast
    target = load_node("node-%03d" % target_index) or load_node("node-%04d" % target_index)
    if target is None:
        return
    target_rail = _rail(target, rail["device"]) or rail
    switch, port = incast.target_port(incast.digest_of(node_dir), target["hostname"], target_rail["netdev"])
    prio = formats_roce.ROCE_PRIORITY
    incast.record(incast.events_dir(incast.digest_of(node_dir)), {
        "role": "client", "node": state["hostname"], "target": target["hostname"], "device": rail["device"],
        "start": time.time(), "duration": duration, "rate_gbps": rate, "port_gbps": float(target_rail.get("rate", 400)),
        "rp_on": formats_roce.config(state, rail)["dcqcn_off"] != prio,
        "np_on": formats_roce.config(target, target_rail)["dcqcn_off"] != prio,
        "switch_faults": sorted(incast.port_faults(port)) if port else [], "switch": switch["hostname"] if switch else None})
    time.sleep(duration)
    incast.settle(node_dir, [state["hostname"], target["hostname"]], load_node, changes.commit)
