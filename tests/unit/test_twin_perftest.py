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
    gpus = [{"index": g, "name": "NVIDIA H100 80GB HBM3", "pci": "0000:%02x:00.0" % (0x18 + g)} for g in range(2)]
    return {"hostname": "node-%03d" % index, "index": index, "address": "127.1.0.%d" % index, "rails": rails, "rdma": rdma,
            "gpus": gpus}


def _pair(server, client, rail=0, port=PORT, extra=()):
    nodes = {s["hostname"]: s for s in (server, client)}
    answer = {}
    banner = io.StringIO()

    def serve():
        saved, sys.stdout = sys.stdout, banner
        try:
            argv = ["-d", "mlx5_%d" % rail, "-F", "--report_gbits", "-x", "3", "-p", str(port)] + list(extra)
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
        client, ["-d", "mlx5_%d" % rail, "-F", "--report_gbits", "-x", "3", "-p", str(port)] + list(extra) + [
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


def test_a_gpudirect_run_prints_perftests_cuda_preamble_and_measures_near_host_memory():
    (src, sout, _se), (crc, cout, _ce), banner = _pair(_node(11), _node(12), port=PORT + 4, extra=["--use_cuda=1"])
    host = formats_perftest.rail_gbps(_node(11), "mlx5_0")
    assert src == crc == 0 and "* Waiting for client to connect... *" in banner
    for out in (sout, cout):
        assert out.startswith("initializing CUDA\nListing all CUDA devices in system:\nCUDA device 0: PCIe address is 18:00\n")
        assert "\nPicking device No. 1\n[pid = 4101, dev = 1] device name = [NVIDIA H100 80GB HBM3]\n" in out
        facts = parsing.parse("perftest_ib_write_bw", out)
        assert facts["cuda_device"] == 1 and facts["gbps"] == round(host * formats_perftest.GDR_HEALTHY, 2)
        assert facts["gbps"] >= host * 0.9  # within the default 10% of host memory
    assert parsing.parse("perftest_ib_write_bw", cout)["gbps"] == parsing.parse("perftest_ib_write_bw", sout)["gbps"]


def test_a_slow_gpudirect_node_measures_its_factor_of_host_memory_at_both_ends():
    dmabuf = ["--use_cuda=0", "--use_cuda_dmabuf"]
    (_r, sout, _e), (_c, cout, _ce), _b = _pair(_node(13), _node(14, gdr_factor=0.5), port=PORT + 5, extra=dmabuf)
    host = formats_perftest.rail_gbps(_node(13), "mlx5_0")
    assert "using DMA-BUF for GPU buffer" in cout
    assert parsing.parse("perftest_ib_write_bw", sout)["gbps"] == parsing.parse("perftest_ib_write_bw", cout)["gbps"] == round(host * 0.5, 2)


def test_the_gdr_bw_fault_leaves_host_memory_runs_alone():
    (_r, sout, _e), (_c, cout, _ce), _b = _pair(_node(15), _node(16, gdr_factor=0.5), port=PORT + 6)
    assert parsing.parse("perftest_ib_write_bw", cout)["gbps"] == formats_perftest.rail_gbps(_node(15), "mlx5_0")
    assert parsing.parse("perftest_ib_write_bw", cout)["cuda_device"] is None


def test_a_gpu_index_the_node_lacks_is_perftests_own_error():
    rc, out, err = formats_perftest.ib_write_bw(_node(17), ["-d", "mlx5_0", "--use_cuda=5"], {}, {}.get)
    assert rc == 1 and out == "initializing CUDA\n" and err.startswith("No such device ID (5) exists in system\n")
