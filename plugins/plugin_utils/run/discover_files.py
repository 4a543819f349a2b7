# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The discovered plan written for review, one host_vars file per switch (run/discover.py makes it), and the same plan
from a cabling CSV (switch, port, peer, peer_port[, role][, ip]): the vendor's cable list, where the fabric is not up yet.

Files are written into a directory of their own and never over a file: the inventory is the operator's to change."""

from __future__ import annotations

import csv
import datetime
import io
import os
import secrets

import yaml

from . import discover as _discover, engine as _engine
from ..core import fabric_plan as _fabric_plan

VARIABLES = ("pyramid_switch_ports", "pyramid_bgp_neighbors", "pyramid_ecmp_prefixes", "pyramid_ecmp_paths")
CSV_COLUMNS = ("switch", "port", "peer", "peer_port")


def default_dir(report_dir, now=None):
    """<report_dir>/<UTC time>-<random>/discovered: a new directory, never an inventory's."""
    stamp = (now or datetime.datetime.now(datetime.timezone.utc)).strftime("%Y%m%dT%H%M%SZ")
    return os.path.join(os.path.abspath(os.path.expanduser(report_dir)), "%s-%s" % (stamp, secrets.token_hex(3)), "discovered")


def render(switch, found, origin):
    """The host_vars file of one switch: its variables, each note beside what it is about, the file's head first."""
    lines = ["---", "# %s: its plan %s," % (switch, origin),
             "# written by playbooks/discover.yml for review: check it, then copy it into the inventory as host_vars/%s.yml;" % switch,
             "# pre-flight (playbooks/plan.yml) checks that the plans of all switches hold together."]
    lines += ["# %s" % _one_line(said) for said in found["said"]]
    for name in VARIABLES:
        if name not in found["vars"]:
            continue
        value = found["vars"][name]
        if not isinstance(value, list):
            lines.append("%s: %s" % (name, _flow(value)))
            continue
        lines.append("%s:%s" % (name, "" if value else " []"))
        for item in value:
            key = ("prefix", item) if name == "pyramid_ecmp_prefixes" else ("port", item.get("port"))
            note = found["notes"].get(key) if name != "pyramid_bgp_neighbors" else None
            lines.append("  - %s%s" % (_flow(item), "  # %s" % _one_line(note) if note else ""))
    return "\n".join(lines) + "\n"


def _flow(value):
    return yaml.safe_dump(value, default_flow_style=True, sort_keys=False, width=1 << 20).strip().removesuffix("\n...").strip()


def _one_line(text):
    return " ".join(str(text).split())


def write(directory, plans, origin):
    """Write each switch's file into ``directory`` (made when missing); (paths, None), or (None, why) when a file of
    that name is there already: nothing is written over."""
    paths = {switch: os.path.join(directory, "%s.yml" % switch) for switch in sorted(plans)}
    there = [path for path in paths.values() if os.path.exists(path)]
    if there:
        return None, "not written: %s already there (discover into a new directory)" % ", ".join(there)
    os.makedirs(directory, exist_ok=True)
    for switch, path in paths.items():
        with open(path, "x", encoding="utf-8") as handle:
            handle.write(render(switch, plans[switch], origin))
    return list(paths.values()), None


def from_cabling_csv(text, inventory, switches, leaves=()):
    """(plans, problems) from a cabling CSV with a header naming switch, port, peer, peer_port (role and ip optional).

    A cable listed once gives both ends their row; one listed from both ends keeps each end's row as written, so two
    rows that disagree (a swapped pair) stay for pre-flight to name. Any problem of the file: no plan at all."""
    rows = csv.DictReader(io.StringIO(text))
    missing = [column for column in CSV_COLUMNS if column not in (rows.fieldnames or [])]
    if missing:
        return {}, ["the header has no column %s (it names %s[, role][, ip])" % (", ".join(missing), ", ".join(CSV_COLUMNS))]
    index, switches = _discover.name_index(inventory), set(switches)
    plans, problems = {}, []
    for line, row in enumerate(rows, start=2):
        cells = {key: (value or "").strip() for key, value in row.items() if key}
        switch, _how = _discover.match(cells["switch"], inventory, index)
        if switch not in switches:
            problems.append("line %d: %r is not a switch of the inventory" % (line, cells["switch"]))
            continue
        entry, note = _row_entry(cells, inventory, index, switches, line, problems)
        found = plans.setdefault(switch, {"vars": {"pyramid_switch_ports": []}, "notes": {}, "said": []})
        if entry and any(other["port"] == entry["port"] for other in found["vars"]["pyramid_switch_ports"]):
            problems.append("line %d: %s %s listed twice" % (line, switch, entry["port"]))
        elif entry:
            found["vars"]["pyramid_switch_ports"].append(entry)
            if note:
                found["notes"][("port", entry["port"])] = note
    if problems:
        return {}, problems
    far_ends(plans, switches)
    finish(plans, leaves)
    return plans, []


def finish(plans, leaves=()):
    """Each switch's ports in port order, and a leaf's ECMP paths one per uplink (every importer's last step)."""
    for switch, found in plans.items():
        ports = sorted(found["vars"]["pyramid_switch_ports"], key=lambda entry: _discover.port_order(entry["port"]))
        found["vars"]["pyramid_switch_ports"] = ports
        if switch in leaves if leaves else any(entry["role"] == "host" for entry in ports):
            found["vars"]["pyramid_ecmp_paths"] = max(1, sum(1 for entry in ports if entry["role"] == "fabric"))


def _row_entry(cells, inventory, index, switches, line, problems):
    if not cells.get("port") or not cells.get("peer"):
        problems.append("line %d: a row needs its switch, port and peer" % line)
        return None, None
    peer, how = _discover.match(cells["peer"], inventory, index)
    role = cells.get("role") or ("fabric" if peer in switches else "host")
    if role not in ("host", "fabric"):
        problems.append("line %d: role %r is neither host nor fabric" % (line, role))
        return None, None
    entry = {"port": cells["port"], "peer": peer or cells["peer"], "peer_port": cells.get("peer_port") or None, "role": role}
    entry = {key: value for key, value in entry.items() if value}
    if cells.get("ip"):
        entry["ip"] = cells["ip"]
    return entry, how if peer else "NOT IN THE INVENTORY (%s): add the host or leave the port out" % how


def far_ends(plans, switches):
    """A switch-to-switch cable listed from one end only: its far end's row, from it."""
    for switch, found in list(plans.items()):
        for entry in list(found["vars"]["pyramid_switch_ports"]):
            peer, peer_port = entry["peer"], entry.get("peer_port")
            if entry["role"] != "fabric" or peer not in switches or not peer_port:
                continue
            far = plans.setdefault(peer, {"vars": {"pyramid_switch_ports": []}, "notes": {}, "said": []})
            if not any(other["port"] == peer_port for other in far["vars"]["pyramid_switch_ports"]):
                far["vars"]["pyramid_switch_ports"].append({"port": peer_port, "peer": switch, "peer_port": entry["port"], "role": "fabric"})
                far["notes"][("port", peer_port)] = "from the row of %s %s (the cable listed once)" % (switch, entry["port"])


def from_reads(registered, inventory, switches, leaves=()):
    """(plans, failures) from each switch's read (the read task's registered result: ``pyramid_discovered`` its facts
    as run/engine.serializable_facts keeps them); a switch whose read failed altogether has no plan, one named failure."""
    reads, failures = {}, []
    for switch in switches:
        result = registered.get(switch)
        if not result:
            continue  # not read in this run (outside --limit): nothing to say of it
        if result.get("failed") or result.get("unreachable"):
            said = _one_line(result.get("msg") or "not read")
            failures.append(said if said.startswith(switch + ": ") else "%s: %s" % (switch, said))
        if result.get("pyramid_discovered"):
            reads[switch] = _engine.restore_facts(result["pyramid_discovered"])
    return _discover.plan(reads, inventory, switches, leaves), failures


def coherence(plans, inventory):
    """What pre-flight will say of the plan as a whole (core/fabric_plan.py), the GPU nodes' rails left to it."""
    return _fabric_plan.problems(sorted(plans), [], lambda host: plans[host]["vars"] if host in plans else {}, list(inventory), False)
