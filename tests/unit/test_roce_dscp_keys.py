"""A pod check reads a host's mlnx_qos facts back from its results file, where JSON made the dscp2prio
keys strings: the lookup must read both (a KeyError made every node ERROR on the twin)."""

import json

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.judging.roce import prio_of_dscp


def test_the_dscp_map_reads_the_same_fresh_and_from_a_results_file():
    fresh = {dscp: dscp // 8 for dscp in range(64)}
    stored = json.loads(json.dumps(fresh))
    assert prio_of_dscp(fresh, 26) == prio_of_dscp(stored, 26) == 3
    assert prio_of_dscp({}, 26) is None
