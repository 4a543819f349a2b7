# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A twin node's ping (iputils) on the rails: the twin answers rail pings itself, no packet is sent.

A rail address is the seed's plan, 10.5<rail>.<n // 256>.<n % 256> for node n; a node whose rail
address is off the plan (fault rail_ip_wrong) cannot bind it as a source and does not answer on it.
Output is iputils' (`-q`: the header and the statistics; exit 1 when nothing came back, 2 when the
source address is not on the host). fping's (-c N [-p ms] [-t ms] -S <source> <target>, src/fping.c):
a line per reply or timeout on stdout, then a blank line and the target's summary on stderr; exit 1
when nothing came back, 4 (its errno_crash_and_burn) when the source address cannot be bound.
"""

from __future__ import annotations

from pyramid_twin import wire


def _options(args):
    values, positional, index = {}, [], 0
    while index < len(args):
        arg = args[index]
        if arg in ("-c", "-i", "-W", "-I", "-w", "-s"):
            values[arg] = args[index + 1] if index + 1 < len(args) else ""
            index += 1
        elif arg in ("-n", "-q"):
            values[arg] = True
        elif arg.startswith("-"):
            return None, None, "ping: invalid option -- '%s'\n" % arg.lstrip("-")
        else:
            positional.append(arg)
        index += 1
    return values, (positional[-1] if positional else None), None


def _rail_of(address):
    return wire.rail_address(address) or (None, None)


def _ping_state(state, rail):
    device = "mlx5_%d" % rail
    return state.get("ping", {}).get(device, {})


def _bound(state, source):
    """Whether this node holds ``source`` (its own plan address on a rail, not moved by rail_ip_wrong)."""
    src_rail, src_node = _rail_of(source)
    return not source or (src_node == state["index"] and not _ping_state(state, src_rail).get("ip_wrong"))


def _answers(state, source, target, count, load_node):
    """(replies, round trip in ms) of ``count`` pings from ``source`` to ``target`` on the rails."""
    src_rail, _src_node = _rail_of(source)
    rail, node = _rail_of(target)
    peer = load_node("node-%03d" % node) if load_node and node else None
    mine, theirs = _ping_state(state, rail) if rail is not None else {}, _ping_state(peer, rail) if peer else {}
    if peer is None or theirs.get("ip_wrong") or rail != src_rail:
        return 0, None
    loss = max(mine.get("loss_percent", 0), theirs.get("loss_percent", 0))
    return count - int(round(count * loss / 100.0)), max(mine.get("rtt_ms", 0.011), theirs.get("rtt_ms", 0.011))


def ping(state, args, env, load_node=None):
    opts, target, usage = _options(args)
    if usage:
        return 2, "", usage
    if target is None:
        return 2, "", "ping: usage error: Destination address required\n"
    count = int(opts.get("-c", 3))
    source = opts.get("-I")
    head = "PING %s (%s) %s56(84) bytes of data.\n" % (target, target, "from %s : " % source if source else "")
    if not _bound(state, source):
        return 2, "", "ping: bind: Cannot assign requested address\n"
    received, rtt = _answers(state, source, target, count, load_node)
    loss_text = "%g%%" % (100.0 * (count - received) / count if count else 100.0)
    stats = "\n--- %s ping statistics ---\n%d packets transmitted, %d received, %s packet loss, time %dms\n" % (
        target, count, received, loss_text, max(0, (count - 1) * 200))
    if not received:
        return 1, head + stats, ""
    stats += "rtt min/avg/max/mdev = %.3f/%.3f/%.3f/%.3f ms\n" % (rtt * 0.9, rtt, rtt * 1.2, rtt * 0.1)
    return 0, head + stats, ""


def _fping_options(args):
    values, targets, index = {}, [], 0
    while index < len(args):
        arg = args[index]
        if arg in ("-c", "-C", "-p", "-t", "-S", "-i", "-r", "-b"):
            if index + 1 >= len(args):
                return None, None, "fping: option requires an argument -- '%s'\n" % arg[1:]
            values[arg] = args[index + 1]
            index += 1
        elif arg in ("-q", "-n", "-a", "-u", "-4"):
            values[arg] = True
        elif arg.startswith("-"):
            return None, None, "fping: invalid option -- '%s'\n" % arg.lstrip("-")
        else:
            targets.append(arg)
        index += 1
    return values, targets, None


def _sprint_tm(ms):
    """fping's sprint_tm: three decimals below 1 ms, two below 10, one below 100, none above."""
    return "%.3f" % ms if ms < 1 else "%.2f" % ms if ms < 10 else "%.1f" % ms if ms < 100 else "%.0f" % ms


def fping(state, args, env, load_node=None):
    """fping -c N [-q] -S <source> <target>: one target, as the rail mesh runs it."""
    opts, targets, usage = _fping_options(args)
    if usage:
        return 3, "", usage
    if len(targets) != 1 or "-c" not in opts:
        return 3, "", "fping: the twin's fping counts pings to one target (-c N <target>)\n"
    if not _bound(state, opts.get("-S")):
        return 4, "", "fping: cannot bind source address : Cannot assign requested address\n"
    target, count = targets[0], int(opts["-c"])
    received, rtt = _answers(state, opts.get("-S"), target, count, load_node)
    lines = []
    for index in range(count):
        if index < received:
            lines.append("%s : [%d], 64 bytes, %s ms (%s avg, %d%% loss)\n" % (
                target, index, _sprint_tm(rtt), _sprint_tm(rtt), 0))
        else:
            lines.append("%s : [%d], timed out (%s avg, %d%% loss)\n" % (
                target, index, _sprint_tm(rtt) if received else "NaN", (index + 1 - min(received, index + 1)) * 100 // (index + 1)))
    summary = "%s : xmt/rcv/%%loss = %d/%d/%d%%" % (target, count, received, (count - received) * 100 // count)
    if received:
        summary += ", min/avg/max = %s/%s/%s" % (_sprint_tm(rtt * 0.9), _sprint_tm(rtt), _sprint_tm(rtt * 1.2))
    out = "" if opts.get("-q") else "".join(lines)
    return (0 if received else 1), out, ("" if opts.get("-q") else "\n") + summary + "\n"
