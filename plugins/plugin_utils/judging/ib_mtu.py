# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Layer 0 on InfiniBand: every rail's negotiated (active) MTU, from ibv_devinfo on the node (issue 36; seed 004:
"InfiniBand should run at 4096 bytes MTU for best throughput")."""

from __future__ import annotations

from ..core.model import ERROR, FAIL, PASS, SourceFailure, counted, verdict
from .registry import judge, summary

CAUSES = {
    "port": ("The rail's port cannot do the MTU (its max_mtu is lower): an HCA or firmware of another generation, or a "
             "firmware setting; the other rails of the pod show what they can do"),
    "link": ("The rail negotiated a smaller MTU than its port can do: the subnet manager sets each link's MTU from what both "
             "ends can do, so the leaf port facing it is capped lower (smpquery portinfo on the leaf port: MtuCap, "
             "NeighborMTU), or the SM was told a smaller MTU; every packet then carries half the payload or less"),
}


@judge("rails_ib_mtu")
def rails_ib_mtu(facts, expect):
    """Each rail's port 1 from `ibv_devinfo -d <rail>`: its active MTU at least pyramid_ib_mtu. A port the read does not
    show, a device it does not list, or a read that failed is an ERROR naming the rail, never a pass; a port that is not
    Active has no negotiated MTU to judge (rails_active's finding: this check folds under it)."""
    want = expect["pyramid_ib_mtu"]
    expected = "every rail's active MTU %d bytes or more (pyramid_ib_mtu), read by ibv_devinfo" % want
    low, unread, inactive, good = [], [], [], []
    for rail in expect["pyramid_rails"]:
        read = (facts.get("ibv_devinfo") or {}).get(rail)
        if isinstance(read, SourceFailure) or read is None:
            unread.append("%s: %s" % (rail, read.reason if read is not None else "not read"))
            continue
        port = ((read["devices"].get(rail) or {}).get("ports") or {}).get("1")
        if port is None:
            unread.append("%s: ibv_devinfo -d %s shows no port 1 of %s (devices: %s)" % (
                rail, rail, rail, ", ".join(sorted(read["devices"])) or "none"))
        elif port["state"] != "Active":
            inactive.append("%s port 1 %s" % (rail, port["state"]))
        elif port["active_mtu"] < want:
            low.append((rail, port))
        else:
            good.append(rail)
    if low:
        kind = "port" if all(port["max_mtu"] < want for _rail, port in low) else "link"
        return verdict(FAIL, expected, summary(["%s: active_mtu %d, max_mtu %d" % (rail, port["active_mtu"], port["max_mtu"])
                                                for rail, port in low] + ["not read: " + item for item in unread]),
                       cause=CAUSES[kind])
    if unread or inactive:
        return verdict(ERROR, expected, summary(["not read: " + item for item in unread] +
                                                ["no negotiated MTU: " + item for item in inactive]),
                       cause=("A rail port not Active has no negotiated MTU (rails_active names why)" if inactive and not unread
                              else "ibv_devinfo did not show the rail's port: rdma-core's ibverbs-utils missing, or the "
                                   "device named otherwise than pyramid_rails"))
    return verdict(PASS, expected, "%s at %d bytes" % (counted(len(good), "rail"), want))
