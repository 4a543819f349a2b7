"""Built-in GPU-pair bandwidth test for hosts without CUDA samples' p2pBandwidthLatencyTest: every ordered pair of the
node's GPUs, a copy from GPU i into GPU j's memory (P2P writes, issued on GPU i, as the sample does), timed with CUDA
events, printed in the sample's own layout (its device lines, peer access lines, connectivity matrix and "Unidirectional
P2P=Enabled Bandwidth (P2P Writes) Matrix (GB/s)") so one parser reads both.

Figures are the sample's: 40,000,000 ints (160 MB) copied 5 times per pair, GB = 10^9 bytes; a GPU's own cell copies
within its memory and counts the read and the write. One process drives every GPU (started by torchrun with one
process, so that it runs under the Python that has PyTorch; it uses no process group).
"""

import argparse

try:
    import torch
except ImportError:  # the layout below is unit-tested on the controller, which has no torch
    torch = None

MATRIX_TITLE = "Unidirectional P2P=Enabled Bandwidth (P2P Writes) Matrix (GB/s)"


def connectivity_lines(access):
    """The sample's P2P Connectivity Matrix: 1 where GPU i can access GPU j's memory (and on the diagonal)."""
    n = len(access)
    lines = ["P2P Connectivity Matrix", "     D\\D" + "".join("%6d" % j for j in range(n))]
    for i in range(n):
        lines.append("%6d\t" % i + "".join("%6d" % (1 if i == j or access[i][j] else 0) for j in range(n)))
    return lines


def matrix_lines(gbps):
    """A bandwidth matrix as the sample prints it: a D\\D header, then one row per source GPU, %6.02f per cell."""
    n = len(gbps)
    lines = ["   D\\D" + "".join("%6d " % j for j in range(n))]
    for i in range(n):
        lines.append("%6d " % i + "".join("%6.02f " % gbps[i][j] for j in range(n)))
    return lines


def _copy_gbps(src, dst, repeat):
    """GB/s of ``repeat`` copies of src into dst, timed on the source GPU's current stream (where PyTorch issues a copy
    between GPUs, after both GPUs' streams are synchronized)."""
    with torch.cuda.device(src.device):
        dst.copy_(src, non_blocking=True)  # warm-up: peer access enabled, the copy engine awake
        torch.cuda.synchronize(src.device)
        torch.cuda.synchronize(dst.device)
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _copy in range(repeat):
            dst.copy_(src, non_blocking=True)
        stop.record()
        stop.synchronize()
        seconds = start.elapsed_time(stop) / 1e3
    gigabytes = src.numel() * src.element_size() * repeat / 1e9
    return gigabytes * (2 if src.device == dst.device else 1) / seconds


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--num-elems", type=int, default=40000000, help="ints copied per pair (the sample's numElems)")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    n = torch.cuda.device_count()
    print("[gpufabric.pyramid built-in P2P bandwidth test: torch %s, Tensor.copy_ between GPUs, CUDA-event timed]"
          % torch.__version__)
    for i in range(n):
        props = torch.cuda.get_device_properties(i)
        print("Device: %d, %s, pciBusID: %x, pciDeviceID: %x, pciDomainID:%x" % (
            i, props.name, getattr(props, "pci_bus_id", 0), getattr(props, "pci_device_id", 0), getattr(props, "pci_domain_id", 0)))
    access = [[i != j and torch.cuda.can_device_access_peer(i, j) for j in range(n)] for i in range(n)]
    for i in range(n):
        for j in range(n):
            if i != j:
                print("Device=%d %s Access Peer Device=%d" % (i, "CAN" if access[i][j] else "CANNOT", j))
    print("\n".join(connectivity_lines(access)))
    buffers = [torch.zeros(args.num_elems, dtype=torch.int32, device="cuda:%d" % i) for i in range(n)]
    local = [torch.zeros(args.num_elems, dtype=torch.int32, device="cuda:%d" % i) for i in range(n)]
    gbps = [[_copy_gbps(local[i] if i == j else buffers[i], buffers[j], args.repeat) for j in range(n)] for i in range(n)]
    print(MATRIX_TITLE)
    print("\n".join(matrix_lines(gbps)))
    print("\nNOTE: gpufabric.pyramid built-in P2P bandwidth test: every ordered pair of %d GPUs measured." % n)


if __name__ == "__main__":
    main()
