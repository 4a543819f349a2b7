"""The GPU-pair bandwidth test of a twin node: CUDA samples' p2pBandwidthLatencyTest in its own layout (its printf
formats, Samples/5_Domain_Specific/p2pBandwidthLatencyTest; a real 2 x H200 run is tests/unit/parsers/p2p_bandwidth/
h200_x2_sample_real.raw), and the built-in payloads/p2p_bench.py's subset of it under torchrun.

Figures of an HGX H100 (NV18 between every pair): P2P writes about 370 GB/s each way (public captures 364-378), a
GPU's own copy about 2,490 GB/s, 38 GB/s through host memory where P2P is off (the real H200 run's P2P=Disabled
matrix). state["p2p"]: "slow" {"i-j": factor} for a pair slowed both ways, "off" ["i-j"] for a pair without peer
access (the faults gpu_pair_slow and gpu_p2p_off).
"""

import random

NOTE = "NOTE: The CUDA Samples are not meant for performance measurements. Results may vary when GPU Boost is enabled."


def _key(i, j):
    return "%d-%d" % (min(i, j), max(i, j))


def _access(state, i, j):
    return i == j or _key(i, j) not in state.get("p2p", {}).get("off", [])


def _figures(state, kind):
    """{(i, j): figure} of one matrix: unidirectional or bidirectional GB/s, or latency in us, with P2P on or off."""
    gpus = len(state["gpus"])
    rng = random.Random("%s-%s" % (state["hostname"], kind))
    slow = state.get("p2p", {}).get("slow", {})
    cells = {}
    for i in range(gpus):
        for j in range(gpus):
            jitter = 1 + rng.uniform(-0.02, 0.02)
            p2p = kind.endswith("on") and _access(state, i, j)
            if kind.startswith("latency"):
                cells[(i, j)] = (1.8 if i == j else 2.2 if p2p else 17.5) * jitter
                continue
            both = 2 if kind.startswith("bi") else 1
            if i == j:
                cells[(i, j)] = 2490.0 * both * jitter
            else:
                cells[(i, j)] = (370.0 if p2p else 38.0) * both * jitter * slow.get(_key(i, j), 1.0)
    return cells


def _matrix(cells, gpus, corner="   D\\D"):
    lines = [corner + "".join("%6d " % j for j in range(gpus))]
    for i in range(gpus):
        lines.append("%6d " % i + "".join("%6.02f " % cells[(i, j)] for j in range(gpus)))
    return lines


def _head(state, title):
    gpus = len(state["gpus"])
    lines = [title]
    for gpu in state["gpus"]:
        bus = int(gpu["pci"].split(":")[1], 16)
        lines.append("Device: %d, %s, pciBusID: %x, pciDeviceID: 0, pciDomainID:0" % (gpu["index"], gpu["name"], bus))
    for i in range(gpus):
        for j in range(gpus):
            if i != j:
                lines.append("Device=%d %s Access Peer Device=%d" % (i, "CAN" if _access(state, i, j) else "CANNOT", j))
    return lines


def _connectivity(state):
    gpus = len(state["gpus"])
    lines = ["P2P Connectivity Matrix", "     D\\D" + "".join("%6d" % j for j in range(gpus))]
    for i in range(gpus):
        lines.append("%6d\t" % i + "".join("%6d" % (1 if _access(state, i, j) else 0) for j in range(gpus)))
    return lines


def p2p_bandwidth_latency_test(state, args, env):
    if args:
        return 1, "", "pyramid twin: p2pBandwidthLatencyTest is simulated without options\n", False
    gpus = len(state["gpus"])
    lines = _head(state, "[P2P (Peer-to-Peer) GPU Bandwidth Latency Test]")
    lines += ["", "***NOTE: In case a device doesn't have P2P access to other one, it falls back to normal memcopy procedure.",
              "So you can see lesser Bandwidth (GB/s) and unstable Latency (us) in those cases.", ""]
    lines += _connectivity(state)
    for title, kind in (("Unidirectional P2P=Disabled Bandwidth Matrix (GB/s)", "uni-off"),
                        ("Unidirectional P2P=Enabled Bandwidth (P2P Writes) Matrix (GB/s)", "uni-on"),
                        ("Bidirectional P2P=Disabled Bandwidth Matrix (GB/s)", "bi-off"),
                        ("Bidirectional P2P=Enabled Bandwidth Matrix (GB/s)", "bi-on")):
        lines += [title] + _matrix(_figures(state, kind), gpus)
    for title, kind in (("P2P=Disabled Latency Matrix (us)", "latency-off"), ("P2P=Enabled Latency (P2P Writes) Matrix (us)", "latency-on")):
        cells = _figures(state, kind)
        lines += [title] + _matrix(cells, gpus, "   GPU") + [""] + _matrix({k: v * 1.9 for k, v in cells.items()}, gpus, "   CPU")
    lines += ["", NOTE]
    return 0, "\n".join(lines) + "\n", "", False


def p2p_builtin(state):
    """payloads/p2p_bench.py's output (under torchrun --nproc_per_node=1)."""
    gpus = len(state["gpus"])
    lines = _head(state, "[gpufabric.pyramid built-in P2P bandwidth test: torch 2.4.0, Tensor.copy_ between GPUs, CUDA-event timed]")
    lines += _connectivity(state)
    lines += ["Unidirectional P2P=Enabled Bandwidth (P2P Writes) Matrix (GB/s)"] + _matrix(_figures(state, "uni-on"), gpus)
    lines += ["", "NOTE: gpufabric.pyramid built-in P2P bandwidth test: every ordered pair of %d GPUs measured." % gpus]
    return 0, "\n".join(lines) + "\n", "", False
