# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A twin node's ping (iputils) on the rails: the twin answers rail pings itself, no packet is sent.

A rail address is the seed's plan, 10.5<rail>.<n // 256>.<n % 256> for node n; a node whose rail
address is off the plan (fault rail_ip_wrong) cannot bind it as a source and does not answer on it.
Output is iputils' (`-q`: the header and the statistics; exit 1 when nothing came back, 2 when the
source address is not on the host).
"""

from __future__ import annotations

import re

PLAN = re.compile(r"^10\.5(\d)\.(\d+)\.(\d+)$")


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
    match = PLAN.match(address or "")
    return (int(match.group(1)), int(match.group(2)) * 256 + int(match.group(3))) if match else (None, None)


def _ping_state(state, rail):
    device = "mlx5_%d" % rail
    return state.get("ping", {}).get(device, {})


def ping(state, args, env, load_node=None):
    opts, target, usage = _options(args)
    if usage:
        return 2, "", usage
    if target is None:
        return 2, "", "ping: usage error: Destination address required\n"
    count = int(opts.get("-c", 3))
    source = opts.get("-I")
    head = "PING %s (%s) %s56(84) bytes of data.\n" % (target, target, "from %s : " % source if source else "")
    src_rail, src_node = _rail_of(source)
    if source and (src_node != state["index"] or _ping_state(state, src_rail).get("ip_wrong")):
        return 2, "", "ping: bind: Cannot assign requested address\n"
    rail, node = _rail_of(target)
    peer = load_node("node-%03d" % node) if load_node and node else None
    mine, theirs = _ping_state(state, rail) if rail is not None else {}, _ping_state(peer, rail) if peer else {}
    if peer is None or theirs.get("ip_wrong") or rail != src_rail:
        received = 0
    else:
        loss = max(mine.get("loss_percent", 0), theirs.get("loss_percent", 0))
        received = count - int(round(count * loss / 100.0))
    loss_text = "%g%%" % (100.0 * (count - received) / count if count else 100.0)
    stats = "\n--- %s ping statistics ---\n%d packets transmitted, %d received, %s packet loss, time %dms\n" % (
        target, count, received, loss_text, max(0, (count - 1) * 200))
    if not received:
        return 1, head + stats, ""
    rtt = max(mine.get("rtt_ms", 0.011), theirs.get("rtt_ms", 0.011))
    stats += "rtt min/avg/max/mdev = %.3f/%.3f/%.3f/%.3f ms\n" % (rtt * 0.9, rtt, rtt * 1.2, rtt * 0.1)
    return 0, head + stats, ""
