"""payloads/p2p_bench.py prints CUDA samples' p2pBandwidthLatencyTest layout: what its format functions print parses with
the p2p_bandwidth parser, cell for cell (the real runs of both are tests/unit/parsers/p2p_bandwidth/*_real.raw)."""

import importlib.util
import os

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils import parsing

PAYLOAD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "payloads", "p2p_bench.py")


def _payload():
    spec = importlib.util.spec_from_file_location("p2p_bench", PAYLOAD)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_builtin_layout_parses_cell_for_cell():
    bench = _payload()
    access = [[False, True, False], [True, False, True], [False, True, False]]
    gbps = [[2490.0, 370.25, 38.0], [371.5, 2501.125, 369.0], [37.9, 368.75, 2488.0]]
    lines = ["[gpufabric.pyramid built-in P2P bandwidth test: torch 2.4.0, Tensor.copy_ between GPUs, CUDA-event timed]"]
    lines += ["Device: %d, NVIDIA H100 80GB HBM3, pciBusID: %x, pciDeviceID: 0, pciDomainID:0" % (i, 0x18 + i) for i in range(3)]
    lines += ["Device=%d %s Access Peer Device=%d" % (i, "CAN" if access[i][j] else "CANNOT", j) for i in range(3) for j in range(3) if i != j]
    lines += bench.connectivity_lines(access) + [bench.MATRIX_TITLE] + bench.matrix_lines(gbps) + ["", "NOTE: done"]
    facts = parsing.parse("p2p_bandwidth", "\n".join(lines) + "\n")
    assert facts["local_gbps"] == [2490.0, 2501.12, 2488.0]  # %6.02f, as the sample rounds
    assert {(p["src"], p["dst"]): (p["gbps"], p["peer_access"]) for p in facts["pairs"]} == {
        (0, 1): (370.25, True), (0, 2): (38.0, False), (1, 0): (371.5, True), (1, 2): (369.0, True),
        (2, 0): (37.9, False), (2, 1): (368.75, True)}
    assert bench.MATRIX_TITLE == parsing.PARSERS["p2p_bandwidth"].function.__globals__["MATRIX_TITLE"]
