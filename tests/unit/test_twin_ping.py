"""The twin's rail pings: iputils ping and fping answer from the twin's own state (no packet is sent),
each in its tool's real layout, read by the product's parsers (linux_ping, linux_fping) into the same
facts, so the rail mesh judges a node the same whichever tool it has."""

import pytest

from pyramid_twin import formats_ping

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils import parsing


def _node(index, **ping):
    return {"hostname": "node-%03d" % index, "index": index, "ping": ping}


NODES = {"node-001": _node(1), "node-002": _node(2), "node-003": _node(3, mlx5_1={"loss_percent": 100}),
         "node-004": _node(4, mlx5_0={"rtt_ms": 4.0}), "node-005": _node(5, mlx5_2={"ip_wrong": True})}


def _fping(source_node, target, count=3, source=None):
    state = NODES["node-%03d" % source_node]
    rail = int(target.split(".")[1][1])
    source = source or "10.5%d.0.%d" % (rail, source_node)
    return formats_ping.fping(state, ["-c", str(count), "-p", "200", "-t", "1000", "-S", source, target], {}, NODES.get)


def _ping(source_node, target, count=3):
    rail = int(target.split(".")[1][1])
    argv = ["-n", "-q", "-c", str(count), "-i", "0.2", "-W", "1", "-I", "10.5%d.0.%d" % (rail, source_node), target]
    return formats_ping.ping(NODES["node-%03d" % source_node], argv, {}, NODES.get)


def _facts(parser, answer):
    _rc, out, err = answer
    return parsing.parse(parser, out + "\n" + err)  # the catalog's `stderr: true`: stdout, then stderr


def test_a_healthy_fping_prints_a_line_per_reply_then_its_summary_on_stderr():
    rc, out, err = _fping(1, "10.50.0.2")
    assert rc == 0 and out.splitlines()[0] == "10.50.0.2 : [0], 64 bytes, 0.011 ms (0.011 avg, 0% loss)"
    assert err == "\n10.50.0.2 : xmt/rcv/%loss = 3/3/0%, min/avg/max = 0.010/0.011/0.013\n"


@pytest.mark.parametrize("source, target", [(1, "10.50.0.2"), (1, "10.51.0.3"), (2, "10.50.0.4"), (1, "10.53.0.9")])
def test_fping_and_ping_give_the_judge_the_same_facts(source, target):
    fping, ping = _facts("linux_fping", _fping(source, target)), _facts("linux_ping", _ping(source, target))
    for key in ("transmitted", "received", "loss_percent", "rtt_avg_ms", "source_address_missing"):
        assert fping[key] == ping[key], (key, fping, ping)


def test_fping_on_a_lossy_rail_times_out_with_fpings_words_and_exits_1():
    rc, out, err = _fping(1, "10.51.0.3")
    assert rc == 1 and out.splitlines()[-1] == "10.51.0.3 : [2], timed out (NaN avg, 100% loss)"
    assert err.strip() == "10.51.0.3 : xmt/rcv/%loss = 3/0/100%"


def test_fping_round_trips_print_as_fpings_sprint_tm():
    assert "min/avg/max = 3.60/4.00/4.80" in _fping(1, "10.50.0.4")[2]


def test_a_source_address_the_node_does_not_hold_is_fpings_bind_error_and_exit_4():
    rc, _out, err = _fping(5, "10.52.0.1")
    assert rc == 4 and err == "fping: cannot bind source address : Cannot assign requested address\n"
    assert _facts("linux_fping", (rc, "", err))["source_address_missing"]
