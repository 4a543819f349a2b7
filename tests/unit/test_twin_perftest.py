"""The twin's ib_write_bw: a server really listens on its node's loopback address, a client really
connects to the address of the rail plan mapped onto the twin's, and both print what the product's
parser reads (the same layout as the real captures in tests/unit/parsers/perftest_ib_write_bw/)."""

import io
import sys
import threading
import time

import pytest

from pyramid_twin import formats_perftest

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils import parsing

PORT = 28515  # loopback only: 127.1.x.y, the twin's node addresses


def _node(index, link_layer="Ethernet", rate=400, **rdma):
    rails = [{"device": "mlx5_%d" % r, "port": 1, "rate": rate, "link_layer": link_layer} for r in range(2)]
    return {"hostname": "node-%03d" % index, "index": index, "address": "127.1.0.%d" % index, "rails": rails, "rdma": rdma}


def _pair(server, client, rail=0, port=PORT, **args):
    nodes = {s["hostname"]: s for s in (server, client)}
    answer = {}
    banner = io.StringIO()

    def serve():
        saved, sys.stdout = sys.stdout, banner
        try:
            argv = ["-d", "mlx5_%d" % rail, "-F", "--report_gbits", "-x", "3", "-p", str(port)]
            answer["server"] = formats_perftest.ib_write_bw(server, argv, {}, nodes.get)
        finally:
            sys.stdout = saved
    thread = threading.Thread(target=serve)
    thread.start()
    deadline = time.time() + 5
    while "Waiting for client to connect" not in banner.getvalue() and time.time() < deadline:
        time.sleep(0.01)
    time.sleep(0.05)  # it binds right after the banner, as perftest does
    answer["client"] = formats_perftest.ib_write_bw(
        client, ["-d", "mlx5_%d" % rail, "-F", "--report_gbits", "-x", "3", "-p", str(port),
                 "10.5%d.0.%d" % (rail, server["index"])], {})
    thread.join(10)
    return answer["server"], answer["client"], banner.getvalue()


def test_a_healthy_pair_measures_line_rate_at_both_ends():
    (src, sout, _serr), (crc, cout, _cerr), banner = _pair(_node(1), _node(2))
    assert src == 0 and crc == 0 and "* Waiting for client to connect... *" in banner
    assert parsing.parse("perftest_ib_write_bw", sout)["gbps"] == parsing.parse("perftest_ib_write_bw", cout)["gbps"] > 350


def test_a_slow_rail_at_either_end_is_what_both_ends_measure():
    (_r, sout, _e), (_c, cout, _ce), _b = _pair(_node(3), _node(4, **{"gbps": {"mlx5_0": 182.0}}))
    assert parsing.parse("perftest_ib_write_bw", sout)["gbps"] == parsing.parse("perftest_ib_write_bw", cout)["gbps"] == 182.0


def test_a_stale_server_holding_the_port_is_perftests_own_error():
    server = _node(5, stale_ports=[PORT + 1])
    rc, _out, err = formats_perftest.ib_write_bw(server, ["-d", "mlx5_0", "-p", str(PORT + 1)], {}, {}.get)
    assert rc == 1 and err.startswith("Couldn't listen to port %d\n" % (PORT + 1))


def test_no_server_listening_is_couldnt_connect():
    rc, _out, err = formats_perftest.ib_write_bw(_node(6), ["-d", "mlx5_0", "-p", str(PORT + 2), "10.50.0.7"], {})
    assert rc == 1 and err.startswith("Couldn't connect to 10.50.0.7:%d" % (PORT + 2))


def test_an_address_outside_the_plan_is_never_contacted():
    rc, _out, err = formats_perftest.ib_write_bw(_node(6), ["-d", "mlx5_0", "192.168.1.10"], {})
    assert rc == 1 and "Couldn't connect to 192.168.1.10:18515" in err


def test_an_empty_gid_entry_fails_both_ends_at_rtr():
    (src, sout, serr), (crc, cout, cerr), _b = _pair(_node(8, gid_missing=["mlx5_1"]), _node(9), rail=1, port=PORT + 3)
    assert src == crc == 1 and "Failed to modify QP" in serr and "Failed to modify QP" in cerr
    with pytest.raises(parsing.ParseError):
        parsing.parse("perftest_ib_write_bw", cout)


def test_an_unknown_device_is_perftests_own_error():
    rc, _out, err = formats_perftest.ib_write_bw(_node(10), ["-d", "mlx5_9"], {}, {}.get)
    assert rc == 1 and err == "IB device mlx5_9 not found\n Unable to find the Infiniband/RoCE device\n"
