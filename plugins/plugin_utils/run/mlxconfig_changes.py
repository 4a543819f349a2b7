# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The changes gpufabric.pyramid.mlxconfig makes (what to set, which NICs to reset) for the NICs to reach the desired
parameters, from the `mlxconfig -e q` facts, without Ansible: the action plugin runs the commands these changes are."""

from __future__ import annotations

import re

from ..judging.host import mlx_applicable, mlx_equal


class MlxconfigChangeError(ValueError):
    """A desired parameter the device does not report (a typo, or a firmware without it): nothing is set."""


# mlxconfig's LINK_TYPE_P<n> of a VPI ConnectX port, by the fabric's link layer (pyramid_rdma_link_layer)
LINK_TYPES = {"roce": "ETH", "infiniband": "IB"}
_LINK_TYPE = re.compile(r"^LINK_TYPE_P(\d+)$")


def with_link_type(desired, facts, link_layer):
    """``desired`` and, for a card that reports LINK_TYPE_P<n> (a VPI ConnectX: Ethernet-only and InfiniBand-only
    cards have none), each of those set to the fabric's link layer: a reimage or a firmware default can leave a port in
    the other mode (Layer 0's rails_link_layer). A LINK_TYPE the inventory names in ``desired`` wins."""
    if not link_layer:
        return desired
    found = {name: LINK_TYPES[link_layer] for name in facts["params"] if _LINK_TYPE.match(name) and name not in desired}
    return dict(desired, **found)


def changes(queried, desired, link_layer=None):
    """{"set": {device: {param: value}}, "reset": [devices whose current value differs], "before"/"after": the diff}
    for ``queried`` (the mlxconfig facts by device) and ``desired`` ({param: value}); with ``link_layer`` (roce or
    infiniband) every port's LINK_TYPE the card reports too (with_link_type). A single-port card (its
    Description says so) has no _P2 parameter to set: the judge's rule."""
    to_set, to_reset, before, after = {}, [], {}, {}
    for device, facts in queried.items():
        params = facts["params"]
        wanted = mlx_applicable(with_link_type(desired, facts, link_layer), facts)
        unknown = sorted(set(wanted) - set(params))
        if unknown:
            raise MlxconfigChangeError("%s does not report %s" % (device, ", ".join(unknown)))
        changes = {k: v for k, v in wanted.items() if not mlx_equal(params[k]["next_boot"], v)}
        if changes:
            to_set[device] = changes
            before[device] = {k: params[k]["next_boot"] for k in changes}
            after[device] = changes
        if any(not mlx_equal(params[k]["current"], v) for k, v in wanted.items()):
            to_reset.append(device)
    return {"set": to_set, "reset": sorted(to_reset), "before": before, "after": after}


def commands(changed, reset):
    """The argv lists of ``changes()``'s result, in order: every device's `mlxconfig set`, then (with ``reset``) each
    `mlxfwreset`."""
    argvs = [["mlxconfig", "-d", device, "-y", "set"] + ["%s=%s" % item for item in sorted(values.items())]
             for device, values in sorted(changed["set"].items())]
    return argvs + ([["mlxfwreset", "-d", device, "-y", "reset"] for device in changed["reset"]] if reset else [])


def task_result(changed, reset, diff):
    """The task's result keys for ``changes()``'s result: changed, set, reset, pending_reset (what a run without
    ``reset`` leaves for the next boot) and, with ``diff``, the next-boot values before and after."""
    result = {"changed": bool(changed["set"]) or (reset and bool(changed["reset"])), "set": changed["set"],
              "reset": changed["reset"] if reset else [], "pending_reset": [] if reset else changed["reset"]}
    if diff and changed["set"]:
        result["diff"] = {"before": changed["before"], "after": changed["after"],
                          "before_header": "mlxconfig next boot", "after_header": "desired"}
    return result
