"""run/rail_rounds.py: Layer 4's rounds (constant in number, no pair twice); judging/rail_rounds.py: who is to blame for a miss."""

import pytest

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import rail_rounds as _rounds
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.judging import rail_rounds as _blame


@pytest.mark.parametrize("count", [2, 3, 4, 5, 8, 9, 32, 33, 128, 512])
def test_two_rounds_of_matchings_cover_every_node_whatever_the_pod_size(count):
    nodes = ["node-%03d" % i for i in range(1, count + 1)]
    rounds = _rounds.plan_rounds(nodes)
    assert len(rounds) == (1 if count == 2 else 2)
    seen = set()
    for pairs in rounds:
        members = [node for pair in pairs for node in pair]
        assert len(members) == len(set(members)), "a node has one partner per round"
        for pair in pairs:
            assert frozenset(pair) not in seen, "no pair runs twice"
            seen.add(frozenset(pair))
    assert {node for pairs in rounds for pair in pairs for node in pair} == set(nodes)
    partners = [sum(node in pair for pairs in rounds for pair in pairs) for node in nodes]
    if count >= 4:  # two partners each; in an odd pod the two nodes left out of one round have one
        assert partners.count(2) >= count - 2 * (count % 2) and min(partners) == 1 + (count % 2 == 0)


def test_partners_are_far_apart_in_the_inventory():
    nodes = ["node-%03d" % i for i in range(1, 33)]
    first = _rounds.plan_rounds(nodes)[0]
    assert ("node-001", "node-017") in first


def test_a_pair_runs_both_ways_on_every_rail():
    runs = _rounds.runs_of([("a", "b")], [0, 1])
    assert {(r["server"], r["client"], r["rail"]) for r in runs} == {
        ("a", "b", 0), ("b", "a", 0), ("a", "b", 1), ("b", "a", 1)}


def _measure(rounds, bad=(), paths=(), rails=(0,), errors=()):
    """Runs of the rounds: a (node, rail) in ``bad`` or a pair in ``paths`` misses, ``errors`` ERROR."""
    runs = []
    for pairs in rounds:
        for run in _rounds.runs_of(pairs, list(rails)):
            ends = {(run["server"], run["rail"]), (run["client"], run["rail"])}
            if ends & set(errors):
                status, gbps = "ERROR", None
            elif ends & set(bad) or frozenset((run["server"], run["client"])) in {frozenset(p) for p in paths}:
                status, gbps = "FAIL", 180.0
            else:
                status, gbps = "PASS", 391.5
            runs.append(dict(run, status=status, gbps=gbps, actual="Couldn't connect" if gbps is None else None))
    return runs


NODES = ["n%d" % i for i in range(1, 9)]
ROUNDS = _rounds.plan_rounds(NODES)

# name, bad (node, rail), bad paths, errors, {(node, rail): (status, cause_key)} for the nodes that do not pass
BLAME = [
    ("healthy", [], [], [], {}),
    ("one node's rail", [("n3", 0)], [], [], {("n3", 0): ("FAIL", "rail")}),
    ("two nodes' rails", [("n3", 0), ("n6", 0)], [], [], {("n3", 0): ("FAIL", "rail"), ("n6", 0): ("FAIL", "rail")}),
    ("the path between two nodes", [], [ROUNDS[0][0]], [], {(ROUNDS[0][0][0], 0): ("FAIL", "path"), (ROUNDS[0][0][1], 0): ("FAIL", "path")}),
    ("a rail that cannot run at all", [], [], [("n5", 0)], {("n5", 0): ("ERROR", "rail")}),
    ("the whole rail", [(node, 0) for node in NODES], [], [], {(node, 0): ("FAIL", "whole_rail") for node in NODES}),
]


@pytest.mark.parametrize("name, bad, paths, errors, wanted", BLAME, ids=[row[0] for row in BLAME])
def test_blame(name, bad, paths, errors, wanted):  # pylint: disable=unused-argument
    verdicts = _blame.blame(_measure(ROUNDS, bad, paths, errors=errors))
    found = {key: (v["status"], v["cause_key"]) for key, v in verdicts.items() if v["status"] != "PASS"}
    assert found == wanted
    assert _blame.plan_retests(_measure(ROUNDS, bad, paths, errors=errors)) == []  # two partners each: placed


def test_a_partner_of_a_bad_rail_passes_and_says_whose_the_miss_is():
    verdicts = _blame.blame(_measure(ROUNDS, [("n3", 0)]))
    partners = [r["client"] for r in _rounds.runs_of(ROUNDS[0], [0]) if r["server"] == "n3"]
    assert verdicts[(partners[0], 0)]["status"] == "PASS" and "that miss is n3's" in verdicts[(partners[0], 0)]["actual"]


def test_a_pod_of_two_cannot_place_a_miss_without_a_known_good_partner():
    rounds = _rounds.plan_rounds(["a", "b"])
    runs = _measure(rounds, [("a", 0)])
    assert _blame.plan_retests(runs) == []  # nobody is good on that rail
    verdicts = _blame.blame(runs)
    assert verdicts[("a", 0)]["cause_key"] == "unplaced" and verdicts[("a", 0)]["status"] == "FAIL"
    assert "no known-good partner" in verdicts[("a", 0)]["actual"]


def test_an_odd_node_out_missing_is_retested_with_a_known_good_partner_then_placed():
    nodes = ["a", "b", "c"]
    rounds = _rounds.plan_rounds(nodes)  # two rounds of one pair: one node has a single partner
    runs = _measure(rounds, [("c", 0)])
    retests = _blame.plan_retests(runs)
    lonely = [node for node in nodes if sum(node in pair for pairs in rounds for pair in pairs) == 1]
    if ("c", 0) in [(n, 0) for n in lonely]:
        assert retests and retests[0][0][0] == "c"
        extra = _measure([[(node, partner)] for node, partner, _rail in retests[0]], [("c", 0)])
        assert _blame.blame(runs + extra)[("c", 0)]["cause_key"] == "rail"
    else:
        assert _blame.blame(runs)[("c", 0)]["cause_key"] == "rail"


def test_what_a_verdict_says_names_partner_direction_and_rate():
    verdicts = _blame.blame(_measure(ROUNDS, [("n3", 0)]))
    said = verdicts[("n3", 0)]["actual"]
    assert "n3 -> " in said and "n3 <- " in said and "180.0 Gb/s" in said


def test_misses_with_partners_that_miss_everywhere_are_retested_not_blamed():
    # node n2's rail 0 is fine, but both its partners are bad on rail 0: a known-good partner clears it
    nodes = ["n%d" % i for i in range(1, 9)]
    rounds = _rounds.plan_rounds(nodes)
    partners = [b if a == "n2" else a for pairs in rounds for a, b in pairs if "n2" in (a, b)]
    runs = _measure(rounds, [(partner, 0) for partner in partners])
    assert _blame.blame(runs)[("n2", 0)]["cause_key"] == "unplaced"
    retests = _blame.plan_retests(runs)
    (node, good, rail), = [item for batch in retests for item in batch if item[0] == "n2"]
    assert rail == 0 and good not in partners
    extra = _measure([[(node, good)]], [(partner, 0) for partner in partners])
    verdicts = _blame.blame(runs + extra)
    assert verdicts[("n2", 0)]["status"] == "PASS"
    assert all(verdicts[(partner, 0)]["status"] == "FAIL" for partner in partners)


def _one_way(rounds, sends=(), receives=(), paths=(), rails=(0,)):
    """Runs of the rounds that miss in one direction only: a (node, rail) in ``sends`` when it is the client (ib_write_bw's
    client writes to its server: it sends), one in ``receives`` when it is the server, a (client, server) pair in ``paths``
    from that client to that server alone. The other direction of each pair passes."""
    runs = []
    for pairs in rounds:
        for run in _rounds.runs_of(pairs, list(rails)):
            bad = ((run["client"], run["rail"]) in set(sends) or (run["server"], run["rail"]) in set(receives)
                   or (run["client"], run["server"]) in set(paths))
            runs.append(dict(run, status="FAIL" if bad else "PASS", gbps=180.0 if bad else 391.5, actual=None))
    return runs


@pytest.mark.parametrize("fault", ["sends", "receives"])
def test_a_rail_slow_in_one_direction_only_is_that_nodes_rail(fault):
    # issue 33, class 1: a rail slow when it sends and fine when it receives (or the reverse) misses with both its
    # partners in that direction alone; a blame that read one direction of each pair would pass it, or blame the partners
    runs = _one_way(ROUNDS, **{fault: [("n3", 0)]})
    verdicts = _blame.blame(runs)
    found = {key: (v["status"], v["cause_key"]) for key, v in verdicts.items() if v["status"] != "PASS"}
    assert found == {("n3", 0): ("FAIL", "rail")}
    assert _blame.plan_retests(runs) == []
    slow, fine = ("n3 -> ", "n3 <- ") if fault == "sends" else ("n3 <- ", "n3 -> ")
    said = verdicts[("n3", 0)]["actual"].split("; ")
    assert len(said) == 4  # two partners, both directions each
    assert all(part.endswith(": 180.0 Gb/s") for part in said if part.startswith(slow))
    assert all(part.endswith(": 391.5 Gb/s") for part in said if part.startswith(fine))
    partners = {partner for pairs in ROUNDS for pair in pairs if "n3" in pair for partner in pair if partner != "n3"}
    assert len(partners) == 2
    for partner in partners:
        assert verdicts[(partner, 0)]["status"] == "PASS" and "that miss is n3's" in verdicts[(partner, 0)]["actual"]


def test_a_path_slow_in_one_direction_only_is_the_path():
    # issue 33, class 1: the path between two nodes slow one way only: each of the two misses with that partner alone
    pair = ROUNDS[0][0]
    verdicts = _blame.blame(_one_way(ROUNDS, paths=[pair]))
    found = {key: (v["status"], v["cause_key"]) for key, v in verdicts.items() if v["status"] != "PASS"}
    assert found == {(pair[0], 0): ("FAIL", "path"), (pair[1], 0): ("FAIL", "path")}
