"""Every judge, fed damaged copies of the real outputs of its healthy judge data rows, through the
production path (hostile_engine: parse_one -> counter window -> judge_host / judge_pod / run_judge).

For every raw output of every all-PASS row of tests/unit/judge_data (one output damaged at a time):

1. no exception escapes, and an ERROR names the command it could not read (its `command`);
2. a PASS on damaged output judged the same facts as the intact output (hostile_engine.differences:
   what the judge read); a PASS on other facts is a false PASS. The reads of a source the check
   declares in `names_from` (catalog: read only to name what it found, as gpu_xid reads nvidia-smi -q
   to name the GPU of an Xid) are left out where the damaged status equals the intact one: damage
   there may change a name in the verdict, never its status;
3. damage to the read (cut, error text, garbage, random text, another command's output:
   hostile_damage.READ_KINDS) is an ERROR about the read, never a FAIL about the device. Value damage
   (a swapped field, a number as NaN or huge) can be a real FAIL-worthy fact, so it is held to 1 and 2.

Cuts at every line, bad numbers at every number and each line lost on its own (issue 40: a header, a
rank line, a lane or a row that vanished from the middle of a read) run as sweeps; the other damage is
drawn by hypothesis. What the tool does with each: docs/robustness.md.
"""

import pytest
from hypothesis import given, strategies as st

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core.model import ERROR, FAIL, PASS, STATUSES

from ansible_collections.gpufabric.pyramid.tests.property import hostile_damage
from ansible_collections.gpufabric.pyramid.tests.property import hostile_engine

SLOTS = hostile_engine.slots()
# every check with a healthy judge data row built on real output when this suite was written (nccl_scale
# has none: its runs are nccl_pairs' format)
REACHED = {"iommu", "kernel_params", "rdma_modules", "rails_present", "rails_active", "rails_rate", "gpudirect", "mlxconfig",
           "nic_firmware", "gpus_present", "gpu_nic_affinity", "nccl_completes", "nccl_correct", "nccl_node_busbw", "nccl_pairs",
           "training_stable", "training_pod", "link_status", "link_errors", "fec_counters", "optics_rx", "cabling",
           "bgp_sessions", "ecmp", "pfc_idle", "ecn_idle", "discards_idle"}
SWEEP_CUTS = 150  # cuts of one output in the sweep: after every line of a shorter one, spread evenly over a longer one
SWEEP_NUMBERS = 40  # numbers of one output replaced one at a time in the sweep (spread over the output)


def _others(slot):
    parsers = {leaf[1] for leaf in slot.leaves}
    return tuple(("%s/%s" % (parser, case), text) for parser, cases in sorted(hostile_engine.fixtures().items())
                 if parser not in parsers for case, text in cases[:1])


OTHERS = {}


def _problems(slot, path, damage, text):
    """What is wrong with the verdicts on the slot's row with the output at ``path`` replaced by ``text``."""
    where = "%s %s %r" % (slot.id, "/".join(path) or "", damage)
    try:
        results, facts, expect = hostile_engine.judge(slot, {path: text})
    except hostile_engine.TooSlow as exc:
        return ["%s: %s" % (where, exc)]
    except Exception as exc:  # pylint: disable=broad-exception-caught
        return ["%s: %s escaped the engine (the layer's results for the host are lost): %s" % (where, type(exc).__name__, exc)]
    intact_results, intact_reads = hostile_engine.intact(slot)
    assert all(result["status"] == PASS for result in intact_results.values()), (slot.id, intact_results)
    problems = []
    for host, result in sorted(results.items()):
        status = result["status"]
        said = "%s -> %s on %s: %s | %s" % (where, status, host, result.get("actual"), result.get("cause"))
        if status not in STATUSES:
            problems.append("%s: unknown status" % said)
        if status == ERROR and not result.get("command") and slot.check["scope"] != "fabric":
            problems.append("%s: an ERROR that names no command" % said)
        if damage.read and slot.streamed and status == FAIL:
            problems.append("%s: damage to the read judged as a FAIL of the device (want ERROR)" % said)
    if not slot.streamed:  # read by the collect module itself (a file, a directory): only property 1 applies
        return problems
    # a pod check's other hosts are judged on their own facts: with the damaged host ERROR, their PASS stands
    judged = [results[slot.host]] if slot.host else list(results.values())
    if any(result["status"] == PASS for result in judged):
        statuses, reads = hostile_engine.trace(slot, facts, expect)
        # names_from reads may differ only where the status stands (property 2)
        same = all(result["status"] == intact_results[host]["status"] for host, result in results.items()
                   if host in intact_results and (not slot.host or host == slot.host))
        naming = slot.check.get("names_from", ()) if same else ()
        only_intact, only_damaged = hostile_engine.differences(intact_reads, reads, naming, pod=slot.check["scope"] == "pod")
        if only_intact or only_damaged:
            problems.append("%s -> PASS on other judged facts (false PASS): intact read %s; damaged read %s" % (
                where, only_intact[:3], only_damaged[:3]))
        traced = {host: "ERROR" if status.startswith("raised") else status for host, status in statuses.items()}
        produced = {host: result["status"] for host, result in results.items() if host in traced}
        assert traced == produced, "%s: the traced judge disagrees with the engine: %s vs %s" % (where, traced, produced)
    return problems


def _distinct(slot):
    """(path, text) of each distinct output of the slot: eight rails with the same mlxconfig output, one is enough."""
    seen = set()
    for path, _parser, text in slot.leaves:
        window = path[0] if path and path[0] in ("before", "after") else None
        if (window, text) not in seen:
            seen.add((window, text))
            yield path, text


def _sweep(slot):
    """(path, damage) of the sweep: every distinct output of the slot cut after every line (SWEEP_CUTS
    spread evenly over a longer one), and its numbers replaced one at a time by a bad value (cycling
    through them), SWEEP_NUMBERS spread over it."""
    for path, text in _distinct(slot):
        lines = len(hostile_damage.lines_of(text))
        for keep in range(0, lines, max(1, -(-lines // SWEEP_CUTS))):
            yield path, hostile_damage.Damage("cut_line", keep=keep)
        numbers = len(hostile_damage.NUMBER.findall(text))
        step = max(1, numbers // SWEEP_NUMBERS)
        for index in range(0, numbers, step):
            yield path, hostile_damage.Damage("bad_number", index=index, value=hostile_damage.BAD_NUMBERS[index // step % len(hostile_damage.BAD_NUMBERS)])


@pytest.mark.parametrize("slot", SLOTS, ids=lambda slot: slot.id)
def test_sweep(slot):
    problems = []
    for path, damage in _sweep(slot):
        text = {leaf[0]: leaf[2] for leaf in slot.leaves}[path]
        problems += _problems(slot, path, damage, damage.apply(text))
    assert not problems, "%d damaged outputs misjudged:\n%s" % (len(problems), "\n".join(problems[:12]))


# A line whose loss leaves a read that the tool itself could have printed: nothing in the read can prove it was
# there (no count, no order, no trailer). Each stays listed only while it still misjudges (the sweep fails an
# entry that no longer does, so the list only shrinks); every other line of these outputs is held as any other.
_CONFIG_LINE = "a configuration line lost reads as one never configured (a running-config has no count or trailer)"
_TC_LINE = ("mlnx_qos's tc line of a strict or vendor TC lost: its priorities read as the TC's above it, still in "
            "order (ETS TCs are held to 100% together, and priorities out of order are caught)")
# iblinkinfo lists every port of a switch, but prints no count: a Down port's line at the end of a block (spine-01's
# port 36, nothing behind it) lost reads as a switch with one port fewer. Every link the judge uses is still proven
# from both of its ends (judging/infiniband.py _unproven).
_LAST_DOWN_PORT = "a Down port's line at the end of a switch's block (no link, no count): the switch reads one port fewer"
_ROUTING_PASS_ROWS = {"minhop: every leaf spreads its 12 routes to the other leaves' CAs 3 over each uplink: PASS":
                      ("node-001", "node-002", "node-003", "node-004"),
                      "ftree, no route between the spines themselves: the leaves' spread is what counts, PASS": ("node-001", "node-002"),
                      "a tolerance of 1 accepts the funnel (the inventory's choice): PASS": ("node-001",)}
# the same on the subnet whose switches share one factory description (issue 67): leaf1-r1's and spine-01's port 64
_FACTORY_ROUTING_PASS_ROWS = ("routes of switches that share one description: each leaf's table found by its GUID",
                              "the subnet read with the map, the tables without it: joined by GUID, named by the map")
_SATURATED_WAIT_ROW = ("ib_port_errors: a PortXmitWait saturated at both reads is no link error: Layer 1's error check "
                       "passes the port [node-002/ib_port_counters]")
UNPROVABLE_LOST_LINES = {
    **{("ib_routing: %s [%s/ib_link_info]" % (row, node), 208): _LAST_DOWN_PORT
       for row, nodes in _ROUTING_PASS_ROWS.items() for node in nodes},
    **{("ib_routing: %s [node-00%d/ib_link_info]" % (row, node), line): _LAST_DOWN_PORT
       for row in _FACTORY_ROUTING_PASS_ROWS for node in (1, 2, 3, 4) for line in (72, 204)},
    ("roce_pfc: [4] ETS 50% against a minimum of 50% passes [roce_qos]", 26): _TC_LINE,
    ("roce_pfc: PFC on 3 alone, tc 3 ETS 50%, buffer 1 of 130944 bytes (real) [roce_qos]", 26): _TC_LINE,
    **{("roce_pfc: PFC on 3, every TC vendor, no buffer lines (att/netarbiter, real) [roce_qos]", line): _TC_LINE
       for line in (19, 21, 23, 25, 27, 29)},
    **{("roce_pfc: the same capture with priority 5 planned: strict TC, buffer 220896 [roce_qos]", line): _TC_LINE
       for line in (26, 28, 30, 32)},
    (_SATURATED_WAIT_ROW, 4): ("the line of a port whose only count is PortXmitWait, which this check leaves to "
                               "ib_congestion_idle: lost or not, no error counter of the rail's link is read from it"),
    ("gpu_xid: Xid 13 (application) is reported, not failed [kernel_log]", 1):
        "a kernel log record lost whole: dmesg numbers no records, so one never logged reads the same",
    ("gpu_xid: Xid 79 not in an overridden drain list: reported [kernel_log]", 1):
        "a kernel log record lost whole: dmesg numbers no records, so one never logged reads the same",
    ("cabling: Cumulus: 4 ports as planned [sw_lldp]", 7):
        "the LLDP row of a port outside the plan (swp10): every planned port is still proven by its own row",
    ("ecmp: EOS 4.31+: Source Codes legend, every via on its own line [sw_routes]", 23):
        "a route's header line lost: its vias read as the route above's, more paths than planned (not a FAIL of ECMP); "
        "the route itself is then missing, which a planned prefix would show",
    ("roce_port_qos: EOS: trust dscp, DSCP 26 -> tc 4 -> tx-queue 4, ECN there by its profile [sw_qos_config]", 52): _CONFIG_LINE,
    ("roce_port_qos: EOS: trust dscp, DSCP 26 -> tc 4 -> tx-queue 4, ECN there by its profile [sw_roce_map]", 7): _CONFIG_LINE,
    **{("roce_port_qos: NX-OS: DSCP 26 -> qos-group 3, pause pfc-cos 3, ECN on c-out-8q-q3 [sw_roce_map]", line): _CONFIG_LINE
       for line in (11, 17, 18)},
}


def _lost_lines(slot):
    """(path, damage) of every distinct output of the slot with one line lost (SWEEP_CUTS spread evenly over a
    longer one): value damage, a lost row can be a real fact (a neighbour gone), so held to no false PASS."""
    for path, text in _distinct(slot):
        lines = len(hostile_damage.lines_of(text))
        for line in range(0, lines, max(1, -(-lines // SWEEP_CUTS))):
            yield path, hostile_damage.Damage("drop_line", line=line)


@pytest.mark.parametrize("slot", SLOTS, ids=lambda slot: slot.id)
def test_sweep_lost_line(slot):
    problems = []
    for path, damage in _lost_lines(slot):
        text = {leaf[0]: leaf[2] for leaf in slot.leaves}[path]
        found = _problems(slot, path, damage, damage.apply(text))
        if (slot.id, damage.args["line"]) not in UNPROVABLE_LOST_LINES:
            problems += found
        elif not found:
            problems.append("%s %r: listed in UNPROVABLE_LOST_LINES but judged right now: remove it from the list" % (slot.id, damage))
    assert not problems, "%d damaged outputs misjudged:\n%s" % (len(problems), "\n".join(problems[:12]))


@pytest.mark.parametrize("slot", SLOTS, ids=lambda slot: slot.id)
@hostile_damage.settings_for(20)
@given(data=st.data())
def test_drawn_damage(slot, data):
    path, _parser, intact = data.draw(st.sampled_from(slot.leaves), label="output")
    if slot.id not in OTHERS:
        OTHERS[slot.id] = _others(slot)
    damage = data.draw(hostile_damage.damage(intact, OTHERS[slot.id]), label="damage")
    problems = _problems(slot, path, damage, damage.apply(intact))
    assert not problems, "\n".join(problems)


def test_every_check_with_raw_output_is_damaged():
    """The corpus keeps reaching the checks it reached when the suite was written (a check added since
    joins when it gets a healthy judge data row built on real output)."""
    damaged = {slot.check["id"] for slot in SLOTS}
    assert REACHED <= damaged, sorted(REACHED - damaged)
