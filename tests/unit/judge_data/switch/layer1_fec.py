"""The fec_counters judge (Layer 1, EOS and SONiC switches) as a data table, run through the engine by test_judge_data.py.

Rows as in layer0.py. sw_fec is a counters source: its judge sees {"before", "after", "seconds"},
two reads a soak apart. Raw rows give both reads as real outputs of tests/unit/parsers (ANTA's EOS
documents, sonic-utilities' portstat tables, the twin's renders), parsed by the source's way for
the row's platform; an output the parser refuses, at either read, is an ERROR naming the source and
its parser, never a PASS. Rows at the threshold's edges build the second read from a parsed real
output with its counters raised by hand (rise).
"""

import copy
import os

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils import parsing
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core.model import SourceFailure

FIXTURES = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "parsers")
EOS_PARSER = "arista_eos_show_interfaces_phy_detail"
SONIC_PARSER = "sonic_show_interfaces_counters_fec_stats"
SOAK = 300
LIMIT = 42500  # the catalog's default pyramid_fec_corrected_per_second_max
CAUSE = "{cause}"


def text(parser, case):
    """tests/unit/parsers/<parser>/<case>.raw: fed through the way of the row's platform."""
    with open(os.path.join(FIXTURES, parser, case + ".raw"), encoding="utf-8", newline="") as handle:
        return handle.read()


def read(parser, case):
    """The facts the production parser reads from a fixture: one snapshot of the counters."""
    return parsing.parse(parser, text(parser, case))


def rise(facts, seconds=SOAK, **per_port):
    """A second read `seconds` after `facts`: per_port PORT=(corrected, uncorrected) added (negative: cleared)."""
    after = copy.deepcopy(facts)
    for port, (corrected, uncorrected) in per_port.items():
        counters = after["ports"][port.replace("_", "/")]
        counters["fec_corrected"] += corrected
        counters["fec_uncorrected"] += uncorrected
    return {"sw_fec": {"before": facts, "after": after, "seconds": seconds}}


def window(before, after, seconds=SOAK):
    return {"sw_fec": {"before": before, "after": after, "seconds": seconds}}


def switch(platform, *ports, **more):
    """Inventory of a switch of `platform` that plans `ports` (the only ones judged)."""
    expect = {"pyramid_switch_os": platform, "pyramid_switch_ports": [{"port": port} for port in ports]}
    expect.update(more)
    return expect


ANTA = read(EOS_PARSER, "anta_gearbox_real")          # Ethernet1/1 behind a gearbox (3 PHYs), Ethernet1/2
EOS_TWIN = read(EOS_PARSER, "healthy")                  # leaf1-r0: Ethernet1/1..4/1, Ethernet33/1 (uplink)
SONIC_TWIN = read(SONIC_PARSER, "healthy")              # leaf1-r2: Ethernet0..24, Ethernet256 (uplink)
EOS_LEAF = switch("eos", "Ethernet1/1", "Ethernet2/1", "Ethernet3/1", "Ethernet4/1", "Ethernet33/1")
SONIC_LEAF = switch("sonic", "Ethernet0", "Ethernet8", "Ethernet16", "Ethernet24", "Ethernet256")


def reads(parser, before, after, seconds=SOAK):
    """A raw window: fixtures `before` and `after` of `parser`, `seconds` apart."""
    return {"sw_fec": {"before": text(parser, before), "after": text(parser, after), "seconds": seconds}}


DATA = [
    # --- EOS: show interfaces phy detail | json
    {"check": "fec_counters", "name": "EOS leaf, healthy optics correct a few hundred codewords a second",
     "facts": rise(EOS_TWIN, Ethernet1_1=(21600, 0), Ethernet2_1=(120000, 0), Ethernet33_1=(90, 0)), "expect": EOS_LEAF,
     "status": "PASS", "contains": ["5 ports over 300s, none uncorrected", "most corrected: Ethernet2/1 400 codewords/s"]},
    {"check": "fec_counters", "name": "EOS gearbox port: the PHYs' counters add up, clean",
     "facts": rise(ANTA, Ethernet1_1=(3000, 0)), "expect": switch("eos", "Ethernet1/1", "Ethernet1/2"), "status": "PASS",
     "contains": ["2 ports over 300s", "Ethernet1/1 10 codewords/s"]},
    {"check": "fec_counters", "name": "EOS exactly at the threshold passes",
     "facts": rise(EOS_TWIN, Ethernet3_1=(LIMIT * SOAK, 0)), "expect": EOS_LEAF, "status": "PASS",
     "contains": ["Ethernet3/1 42500 codewords/s"]},
    {"check": "fec_counters", "name": "EOS one codeword a second over the threshold",
     "facts": rise(EOS_TWIN, Ethernet3_1=((LIMIT + 1) * SOAK, 0)), "expect": EOS_LEAF, "status": "FAIL",
     "contains": ["Ethernet3/1: 42501 corrected codewords/s", "<= 42500/s per port", CAUSE]},
    {"check": "fec_counters", "name": "EOS a degraded port (the twin's fec_degraded: a dirty connector)",
     "raw": reads(EOS_PARSER, "healthy", "unhealthy"), "expect": EOS_LEAF, "status": "FAIL",
     "contains": ["Ethernet2/1: ", "corrected codewords/s, uncorrected +", CAUSE]},
    {"check": "fec_counters", "name": "EOS gearbox port loses codewords (ANTA's uncorrected capture as the second read)",
     "raw": reads(EOS_PARSER, "anta_gearbox_real", "anta_uncorrected_real"), "expect": switch("eos", "Ethernet1/1"), "status": "FAIL",
     "contains": ["Ethernet1/1: uncorrected +20 (frames lost)", CAUSE]},
    {"check": "fec_counters", "name": "EOS one uncorrected codeword is a frame lost",
     "facts": rise(EOS_TWIN, Ethernet1_1=(100, 1)), "expect": EOS_LEAF, "status": "FAIL",
     "contains": ["Ethernet1/1: uncorrected +1"]},
    {"check": "fec_counters", "name": "EOS a port not in the plan is not judged",
     "facts": rise(ANTA, Ethernet1_2=(10 ** 9, 50)), "expect": switch("eos", "Ethernet1/1"), "status": "PASS",
     "contains": ["1 ports over 300s"]},
    {"check": "fec_counters", "name": "EOS a stricter pod threshold",
     "facts": rise(EOS_TWIN, Ethernet1_1=(30001, 0)), "expect": dict(EOS_LEAF, pyramid_fec_corrected_per_second_max=100),
     "status": "FAIL", "contains": ["Ethernet1/1: 100 corrected codewords/s"]},
    {"check": "fec_counters", "name": "EOS counters cleared during the soak",
     "facts": rise(EOS_TWIN, Ethernet2_1=(-EOS_TWIN["ports"]["Ethernet2/1"]["fec_corrected"], 0)), "expect": EOS_LEAF,
     "status": "ERROR", "contains": ["Ethernet2/1: corrected went from", "cleared or rebooted", "counters cleared during the soak"]},
    {"check": "fec_counters", "name": "EOS a planned port without FEC counters (10G, no FEC)",
     "raw": reads(EOS_PARSER, "no_fec_10g", "no_fec_10g"), "expect": switch("eos", "Ethernet49/1"),
     "status": "ERROR", "contains": ["Ethernet49/1: no counters at the snapshot"]},
    {"check": "fec_counters", "name": "EOS a port gone from the second read",
     "facts": window(EOS_TWIN, {"ports": {port: counts for port, counts in EOS_TWIN["ports"].items() if port != "Ethernet4/1"}}),
     "expect": EOS_LEAF, "status": "ERROR", "contains": ["Ethernet4/1: no counters now"]},
    {"check": "fec_counters", "name": "EOS a lossy port and one not read twice: FAIL, saying what it could not read",
     "facts": window(EOS_TWIN, {"ports": {port: dict(counts, fec_uncorrected=counts["fec_uncorrected"] + 5)
                                          for port, counts in EOS_TWIN["ports"].items() if port != "Ethernet4/1"}}),
     "expect": switch("eos", "Ethernet1/1", "Ethernet4/1"), "status": "FAIL",
     "contains": ["Ethernet1/1: uncorrected +5", "not read: Ethernet4/1: no counters now"]},
    {"check": "fec_counters", "name": "EOS does not know the command",
     "raw": reads(EOS_PARSER, "healthy", "invalid_input"), "expect": EOS_LEAF, "status": "ERROR",
     "contains": ["unparseable output (%s)" % EOS_PARSER, "% Invalid input"]},
    {"check": "fec_counters", "name": "EOS snapshot cut short",
     "raw": reads(EOS_PARSER, "truncated_json", "healthy"), "expect": EOS_LEAF, "status": "ERROR",
     "contains": ["at the snapshot", "not a JSON document"]},
    {"check": "fec_counters", "name": "no snapshot before the soak",
     "facts": {"sw_fec": SourceFailure("(counter snapshot)", "no snapshot of sw_fec before the soak")}, "expect": EOS_LEAF,
     "status": "ERROR", "contains": ["no snapshot of sw_fec"]},

    # --- SONiC: show interfaces counters fec-stats (portstat -f)
    {"check": "fec_counters", "name": "SONiC leaf, healthy", "facts": rise(SONIC_TWIN, Ethernet8=(60000, 0)), "expect": SONIC_LEAF,
     "status": "PASS", "contains": ["5 ports over 300s, none uncorrected", "Ethernet8 200 codewords/s"]},
    {"check": "fec_counters", "name": "SONiC 202211 and 202411 layouts, counters flat",
     "raw": reads(SONIC_PARSER, "portstat_2022_real", "portstat_ber_2024_real"), "expect": switch("sonic", "Ethernet0", "Ethernet8"),
     "status": "PASS", "contains": ["2 ports over 300s, none uncorrected"]},
    {"check": "fec_counters", "name": "SONiC a degraded port (the twin's fec_degraded: a dirty connector)",
     "raw": reads(SONIC_PARSER, "healthy", "unhealthy"), "expect": SONIC_LEAF, "status": "FAIL",
     "contains": ["Ethernet8: ", "corrected codewords/s, uncorrected +", CAUSE]},
    {"check": "fec_counters", "name": "SONiC a soak under a second counts as one second",
     "facts": rise(SONIC_TWIN, seconds=0, Ethernet0=(LIMIT + 1, 0)), "expect": SONIC_LEAF, "status": "FAIL",
     "contains": ["Ethernet0: 42501 corrected codewords/s", "over the 0s window"]},
    {"check": "fec_counters", "name": "SONiC sonic-clear counters during the soak",
     "raw": reads(SONIC_PARSER, "portstat_flr_2025_real", "rates_period_real"), "expect": switch("sonic", "Ethernet0"),
     "status": "ERROR", "contains": ["Ethernet0: corrected went from 130402 to 0"]},
    {"check": "fec_counters", "name": "SONiC before fec-stats existed (202205)",
     "raw": reads(SONIC_PARSER, "no_such_command_real", "no_such_command_real"), "expect": SONIC_LEAF, "status": "ERROR",
     "contains": ["at the snapshot", "unparseable output (%s)" % SONIC_PARSER]},
    {"check": "fec_counters", "name": "SONiC second read cut inside a row",
     "raw": reads(SONIC_PARSER, "healthy", "cut_mid_row"), "expect": SONIC_LEAF, "status": "ERROR",
     "contains": ["does not fit the table's columns (cut short?)"]},
    {"check": "fec_counters", "name": "SONiC a platform without FEC counters (all N/A)",
     "raw": reads(SONIC_PARSER, "all_counters_na", "all_counters_na"), "expect": SONIC_LEAF, "status": "ERROR",
     "contains": ["no EthernetN port with FEC counters"]},
]
