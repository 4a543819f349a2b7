"""The link kind's judge (judging/link.py) beyond what test_judge_data.py reads of every judge: the cause each FAIL
names, the links it names (none where the row names none), and that a named link blocks no host. The rows are
judge_data/link/links_under_load.py's and links_of_a_pair_under_load.py's (SPECS, and DATA as the generic test runs
them)."""

import pytest

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils import judging as _judging
from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.link import links_of_a_pair_under_load as _pair
from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.link.links_under_load import DATA, NODES, SPECS

ROWS = [("links_under_load", spec, row) for spec, row in zip(SPECS, DATA)] + [
    ("links_of_a_pair_under_load", spec, row) for spec, row in zip(_pair.SPECS, _pair.DATA)]


@pytest.mark.parametrize("judge, spec, row", ROWS, ids=[spec["name"] for _judge, spec, _row in ROWS])
def test_link_judge(judge, spec, row):
    verdicts = _judging.JUDGES["link"][judge](row["facts"], dict(row["expect"], **row["group"]))
    assert sorted(verdicts) == sorted(row["status"])
    for device, said in verdicts.items():
        assert said["status"] == row["status"][device], (device, said)
        if device in spec.get("cause_key", {}):
            assert said["cause_key"] == spec["cause_key"][device], (device, said)
        if said["status"] == "ERROR" and device in spec.get("command", {}):
            assert said["command"] == spec["command"][device], (device, said)
        if said["status"] == "FAIL" and device not in NODES:  # the link named, its nodes not blocked for it
            names = ["%s %s - %s %s" % (l["leaf"], l["leaf_port"], l["spine"], l["spine_port"]) for l in said["detail"]["links"]]
            assert names and set(names) <= set(spec["named"]) and said["detail"]["blocks_hosts"] is False, said
            assert all(link["why"] for link in said["detail"]["links"]), said
            assert said["detail"]["ports"] and set(said["detail"]["ports"]) <= {
                l["leaf_port"] if l["leaf"] == device else l["spine_port"] for l in said["detail"]["links"]}, said
    named = sorted({"%s %s - %s %s" % (l["leaf"], l["leaf_port"], l["spine"], l["spine_port"])
                    for said in verdicts.values() if said["status"] == "FAIL" and said.get("detail")
                    for l in said["detail"]["links"]})
    assert named == sorted(spec.get("named", [])), named
