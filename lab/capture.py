"""Keep what a real FRR fabric prints as the FRR parsers' fixtures (run as root: builds and removes the lab).

    sudo .venv/bin/python lab/capture.py

For each state of the lab (healthy; four faults on four leaves; an isolated leaf beside a remote-as wrong on both
ends; one leaf without policy alone) it asks the routers `show ip bgp summary`, `show bgp ipv4 unicast summary json`, `show ip route bgp` and
`show ip route bgp json` and writes tests/unit/parsers/<parser>/lab_<state>_<router>_real.{raw,yml}. The facts in each
yml are FRR's own JSON read directly (below: no parser of the collection), so the text parsers are held to what the
same router said in JSON at the same moment, and the JSON parsers to what the document plainly holds.
"""

import json
import os
import sys
import time

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path[:0] = [HERE, os.path.join(ROOT, ".collections")]

import fabric  # noqa: E402  (path set above)
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils import parsing  # noqa: E402
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.parsing._common import NO_TRAILER  # noqa: E402

FIXTURES = os.path.join(ROOT, "tests", "unit", "parsers")
SUMMARY_TEXT, SUMMARY_JSON = "show ip bgp summary", "show bgp ipv4 unicast summary json"
ROUTES_TEXT, ROUTES_JSON = "show ip route bgp", "show ip route bgp json"
PARSERS = {SUMMARY_TEXT: "frr_show_ip_bgp_summary", SUMMARY_JSON: "frr_show_bgp_summary_json",
           ROUTES_TEXT: "frr_show_ip_route", ROUTES_JSON: "frr_show_ip_route_json"}

# state -> (faults applied to a healthy lab, the routers whose four reads are kept)
STATES = {
    "healthy": ([], ["leaf1", "spine1"]),
    "four_faults": ([("session_shut", "leaf1", "spine2"), ("maximum_paths", "leaf2", None), ("wrong_remote_as", "leaf3", "spine3"),
                     ("no_policy", "leaf4", None)], ["leaf1", "leaf2", "leaf3", "leaf4", "spine3"]),
    "isolated_and_both_wrong_as": ([("isolated", "leaf1", None), ("wrong_remote_as_both", "leaf2", "spine1")],
                                   ["leaf1", "leaf3", "spine1"]),
    # one fault alone: the other leaves' tables lack one prefix and nothing else (where a text table proves nothing)
    "one_leaf_without_policy": ([("no_policy", "leaf4", None)], ["leaf1"]),
    # sessions up with a policy that accepts nothing: no (Policy) mark, 0 prefixes received, no remote prefix
    "one_leaf_denying_in": ([("deny_in", "leaf2", None)], ["leaf2"]),
}
SETTLE = 15  # s after the faults: a session that cannot come up has left Connect/OpenSent, a shut link has been seen


def bgp_truth(document):
    """The bgp fact as FRR's JSON plainly holds it: state word apart from its reason ("Idle (Admin)"), an
    Established session that RFC 8212 keeps empty (peerState Policy) marked no_policy."""
    neighbors = {}
    for address, peer in document.get("peers", {}).items():
        state, reason = (peer["state"].split(" ", 1) + [""])[:2]
        entry = {"remote_as": peer["remoteAs"], "state": state,
                 "prefixes_received": peer["pfxRcd"] if state == "Established" else None}
        if reason:  # "Idle (Admin)"
            entry["reason"] = reason.strip("()")
        if peer.get("peerState") == "Policy":
            entry["prefixes_received"], entry["no_policy"] = 0, True
        neighbors[address] = entry
    return {"neighbors": neighbors}


def routes_truth(document):
    """The routes fact: each selected BGP route with the next hops in the FIB."""
    routes = {}
    for prefix, entries in document.items():
        for entry in entries:
            if entry.get("protocol") == "bgp" and entry.get("selected"):
                routes[prefix] = {"next_hops": [hop["ip"] for hop in entry["nexthops"] if hop.get("fib")]}
    return {"routes": routes}


def keep(state, router, command, text, truth, version):
    parser = PARSERS[command]
    folder = os.path.join(FIXTURES, parser)
    os.makedirs(folder, exist_ok=True)
    base = os.path.join(folder, "lab_%s_%s_real" % (state, router))
    with open(base + ".raw", "w", encoding="utf-8") as handle:
        handle.write(text)
    faults = ", ".join("%s %s%s" % (kind, leaf, " " + spine if spine else "") for kind, leaf, spine in STATES[state][0]) or "none"
    case = {"source": "real run: %s, lab/fabric.py (4 spines, 4 leaves, eBGP, network namespaces), state %s (faults: %s); "
                      "vtysh -N pyrlab-%s -c '%s' (lab/capture.py); facts: the same router's JSON at that moment" % (
                          version, state, faults, router, command)}
    if parsing.PARSERS[parser].kind == "textfsm":
        case["parsed_sample"] = parsing.textfsm_rows(parser, text)
    if command == ROUTES_TEXT and text.strip():
        truth = dict(truth, unverified=NO_TRAILER)  # what the table lists stands; what it lacks is not proven absent
    case["facts"] = truth
    if os.path.exists(base + ".yml"):  # values a person read off the raw stay, for the test to hold to the new raw
        with open(base + ".yml", encoding="utf-8") as handle:
            kept = (yaml.safe_load(handle) or {}).get("hand_checked")
        if kept:
            case["hand_checked"] = kept
    with open(base + ".yml", "w", encoding="utf-8") as handle:
        handle.write("---\n" + yaml.safe_dump(case, sort_keys=False, width=120))


def main(argv=None):
    """Every state, or the states named (`sudo .venv/bin/python lab/capture.py one_leaf_denying_in`)."""
    states = list(sys.argv[1:] if argv is None else argv) or list(STATES)
    unknown = sorted(set(states) - set(STATES))
    if unknown:
        raise SystemExit("unknown state %s (known: %s)" % (", ".join(unknown), ", ".join(STATES)))
    version = "Debian's frr " + fabric.sh("dpkg-query", "-W", "-f", "${Version}", "frr").stdout.strip()
    try:
        _capture(version, states)
    finally:
        fabric.down()


def _capture(version, states):
    for state in states:
        faults, routers = STATES[state]
        fabric.up(4, 4)
        for kind, leaf, spine in faults:
            fabric.fault(kind, leaf, spine)
        if faults:
            time.sleep(SETTLE)
        for router in routers:
            answers = {command: fabric.vtysh(router, command).stdout for command in PARSERS}
            bgp = bgp_truth(json.loads(fabric.vtysh(router, SUMMARY_JSON).stdout))
            routes = routes_truth(json.loads(fabric.vtysh(router, ROUTES_JSON).stdout))
            for command, text in answers.items():
                keep(state, router, command, text, bgp if "summary" in command else routes, version)
        print("%s: kept %d reads of %s" % (state, len(PARSERS) * len(routers), ", ".join(routers)))


if __name__ == "__main__":
    main()
