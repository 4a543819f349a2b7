"""Rows for the five classes of wrong judge that an independent probe found no test could tell from the right
code (issue 33), added wherever the class applies, not only where it was seen:

1. a fault in one direction of a pair only: a rail slow when it sends and fine when it receives, DCQCN's
   reaction point off while its notification point is on, the first of two nodes (or senders) at fault where
   the tables had the last. A judge that reads one direction (one end, one side) passes them.
2. a set check done as a membership or overlap check: a priority list that holds the right priority plus
   another, a DSCP map where the RoCE priority holds DSCPs but not the marked one, eight NICs used that are not
   the eight rails, BGP neighbors Established that are not the planned ones. A judge that asks "is the right
   one in it" (or "are there as many") passes them.
3. a list element whose data is missing skipped instead of reported: one rail's (GPU's, sender's) output not
   collected, or not in the read. A judge that iterates what was read instead of what was declared passes
   them; each must be an ERROR (or a FAIL) naming the element, never a PASS over the others.
4. a threshold tested only far from its boundary: each bound at exactly its value and one step beyond, on
   the side the catalog's rule puts it (>= 350 Gb/s, within 10%, <= 8 replays a minute, CV < 5%: exclusive).
   A judge with < for <= (or a bound off by one unit) passes rows far from the boundary.
5. a rule whose only guard is the wording of a verdict that fails for another reason: two faults on one
   device, both of which must be named, or a FAIL whose finding must name the value, the port or the rail.
   A judge that fails on the first finding (or on a cause word) alone passes rows that assert the status only.

The rows sit beside the judges they test: <module>/bug_classes.py, in the folder of judge_data of each judging
module whose judges a class applies to, holds that module's rows; this module holds the outputs several of them share.

Every row is run by test_judge_data.py as the other tables are (its keys are explained there). Raw outputs are
the real captures of tests/unit/parsers (edited by hand in one value where a row needs it, as the other tables
do: edited()), or facts in the shape those parsers give, built by the other tables' helpers. Each row's comment
says its class and what a wrong judge of that class would do with it. Layer 4's direction (class 1 on the rail
mesh) is placed across runs by judging/rail_rounds.py, not by one run's judge: it is tested in test_rail_rounds.py.
"""

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core.model import SourceFailure
from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.roce import layer3_roce_host as roce
from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.roce.layer3_roce_host import edited

# what the engine makes of a foreach item nobody collected (run/engine.parse_one of nothing)
NOT_COLLECTED = SourceFailure("(not collected)", "no output was collected")


def one_only(value, rail="mlx5_0"):
    """The raw output of one rail alone: the other declared rail's output is not in the read at all."""
    return {rail: value}


# --- real outputs, each edited in one value ----------------------------------------------------------------
QOS_FW = roce.QOS_FW  # trust dscp, PFC on 3 alone, tc 3 ets 50%, buffer 1 of 130944 bytes
PFC_LINE = "enabled     0   0   0   1   0   0   0   0"
QOS_PFC_3_4 = edited(QOS_FW, PFC_LINE, "enabled     0   0   0   1   1   0   0   0")  # mlnx_qos --pfc 0,0,0,1,1,0,0,0
