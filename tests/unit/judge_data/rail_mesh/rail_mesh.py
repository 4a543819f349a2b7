"""The rail mesh judge rows: one ib_write_bw run (Layer 4, its client's output) against pyramid_rdma_gbps_min,
and one rail ping (Layer 2) against the loss and round-trip limits.

Raw outputs are the real captures of tests/unit/parsers/perftest_ib_write_bw/ (each says where it
comes from); who is to blame for a miss across runs is judging/rail_rounds.py (test_rail_rounds.py).
"""

import os

HERE = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "parsers", "perftest_ib_write_bw")


def _raw(case):
    with open(os.path.join(HERE, case + ".raw"), encoding="utf-8") as handle:
        return handle.read()


DATA = [
    {"check": "rdma_write_bw", "name": "ConnectX-7 NDR at 392 Gb/s", "raw": {"ib_write_bw_client": _raw("client_gbits_ib_cx7_ndr_392G")},
     "status": "PASS", "contains": ["392.3 Gb/s at 65536 bytes", ">= 350 Gb/s"]},
    {"check": "rdma_write_bw", "name": "a 400G rail at 363 Gb/s still passes 350",
     "raw": {"ib_write_bw_client": _raw("client_gbits_roce_rdmacm_D10_q3_bnxt_363G")},
     "status": "PASS", "contains": ["363.5 Gb/s"]},
    {"check": "rdma_write_bw", "name": "181 Gb/s on a 400G pod", "raw": {"ib_write_bw_client": _raw("client_gbits_cuda_dmabuf_D60_q16_roce_A40")},
     "status": "FAIL", "contains": ["181.5 Gb/s", "{cause}"]},
    {"check": "rdma_write_bw", "name": "181 Gb/s against an HDR pod's 190", "expect": {"pyramid_rdma_gbps_min": 190},
     "raw": {"ib_write_bw_client": _raw("client_gbits_cuda_dmabuf_D60_q16_roce_A40")}, "status": "FAIL", "contains": [">= 190 Gb/s"]},
    {"check": "rdma_write_bw", "name": "MiB/sec without --report_gbits, read as Gb/s", "expect": {"pyramid_rdma_gbps_min": 90},
     "raw": {"ib_write_bw_client": _raw("client_mib_roce")}, "status": "PASS", "contains": ["92.5 Gb/s"]},
    {"check": "rdma_write_bw", "name": "no server listening", "raw": {"ib_write_bw_client": _raw("err_connect_refused_pre_pr228")},
     "status": "ERROR", "contains": ["Couldn't connect to 192.168.125.211:18515"]},
    {"check": "rdma_write_bw", "name": "an empty GID entry fails at RTR", "raw": {"ib_write_bw_client": _raw("err_rtr_failed_zero_gid")},
     "status": "ERROR", "contains": ["Failed to modify QP 59 to RTR"]},
]

PING = os.path.join(os.path.dirname(HERE), "linux_ping")


def _ping(case):
    with open(os.path.join(PING, case + ".raw"), encoding="utf-8") as handle:
        return handle.read()


# Layer 2's rail ping: one run (a node pinging a partner's rail address from its own) against the loss and rtt limits;
# the source's first way is fping where present, ping (these rows) where not
DATA += [
    {"check": "rail_ping", "name": "a reply, no loss, 54 us", "raw": {"rail_ping": ("linux_ping", _ping("I_srcaddr_success"))},
     "status": "PASS", "contains": ["1/1 replies, 0% loss, rtt avg 0.054 ms"]},
    {"check": "rail_ping", "name": "6.6 ms is out of range inside a pod", "raw": {"rail_ping": ("linux_ping", _ping("success_iputils_3"))},
     "status": "FAIL", "contains": ["rtt avg 6.606 ms", "rtt avg <= 1 ms"]},
    {"check": "rail_ping", "name": "6.6 ms within a raised limit", "expect": {"pyramid_ping_rtt_max_ms": 10},
     "raw": {"rail_ping": ("linux_ping", _ping("success_iputils_3"))}, "status": "PASS"},
    {"check": "rail_ping", "name": "a third lost", "expect": {"pyramid_ping_rtt_max_ms": 500},
     "raw": {"rail_ping": ("linux_ping", _ping("partial_loss_33pct"))}, "status": "FAIL", "contains": ["2/3 replies, 33.3333% loss"]},
    {"check": "rail_ping", "name": "nothing back", "raw": {"rail_ping": ("linux_ping", _ping("I_srcaddr_100pct_loss_silent"))},
     "status": "FAIL", "contains": ["0/3 replies, 100% loss"]},
    {"check": "rail_ping", "name": "the source address is not on this node", "raw": {"rail_ping": ("linux_ping", _ping("I_srcaddr_bind_cannot_assign"))},
     "status": "FAIL", "contains": ["Cannot assign requested address"]},
    {"check": "rail_ping", "name": "no route at all", "raw": {"rail_ping": ("linux_ping", _ping("I_ifname_connect_network_unreachable"))},
     "status": "FAIL", "contains": ["no route (connect: Network is unreachable)"]},
    {"check": "rail_ping", "name": "cut before its statistics", "raw": {"rail_ping": ("linux_ping", _ping("cut_before_statistics"))},
     "status": "ERROR", "contains": ["no ping statistics line (cut short?)"]},
]

FPING = os.path.join(os.path.dirname(HERE), "linux_fping")


def _fping(case):
    with open(os.path.join(FPING, case + ".raw"), encoding="utf-8") as handle:
        return handle.read()


# the same judge on fping's summary (the rail_ping source's first way)
DATA += [
    {"check": "rail_ping", "name": "fping: four replies, 96 us", "raw": {"rail_ping": _fping("c4_localhost_success")},
     "status": "PASS", "contains": ["4/4 replies, 0% loss, rtt avg 0.096 ms"]},
    {"check": "rail_ping", "name": "fping -C: one of five lost", "expect": {"pyramid_ping_rtt_max_ms": 100},
     "raw": {"rail_ping": _fping("C5_q_one_lost_manpage")}, "status": "FAIL", "contains": ["4/5 replies, 20% loss, rtt avg 48.675 ms"]},
    {"check": "rail_ping", "name": "fping: nothing back", "raw": {"rail_ping": _fping("q_c5_100pct_loss")},
     "status": "FAIL", "contains": ["0/5 replies, 100% loss"]},
    {"check": "rail_ping", "name": "fping: the source address is not on this node", "raw": {"rail_ping": _fping("S_bind_cannot_assign")},
     "status": "FAIL", "contains": ["Cannot assign requested address"]},
    {"check": "rail_ping", "name": "fping: cut before its summary", "raw": {"rail_ping": _fping("cut_before_summary")},
     "status": "ERROR", "contains": ["0 fping summary lines for one target (cut short?)"]},
]


def _gdr(case, host_gbps, said=None):
    """A GPUDirect run's facts (a real capture through the parser) with the host-memory run of the same
    pair, rail and direction that run/rail_mesh.measured_gpudirect puts beside it."""
    from ansible_collections.gpufabric.pyramid.plugins.plugin_utils import parsing  # pylint: disable=import-outside-toplevel
    facts = parsing.parse("perftest_ib_write_bw", _raw(case))
    return {"ib_write_bw_gdr_client": dict(facts, host_memory={"gbps": host_gbps, "said": said})}


# Layer 4's GPUDirect run (--use_cuda=<gpu>) against the host-memory run of the same pair and rail (seed 004: within 5-10%)
DATA += [
    {"check": "rdma_gpudirect_bw", "name": "H200 dma-buf at 140.4 Gb/s, 97% of host memory's 145",
     "facts": _gdr("client_gbits_cuda_dmabuf_a_roce_h200", 145.0), "status": "PASS",
     "contains": ["140.4 Gb/s from GPU 0, 97% of host memory's 145.0 Gb/s", "within 10% of the host-memory run"]},
    {"check": "rdma_gpudirect_bw", "name": "RTX 4080 peermem in MiB/sec, 96% of host memory",
     "facts": _gdr("client_mib_cuda_ib_rtx4080", 130.0), "status": "PASS", "contains": ["125.4 Gb/s from GPU 0, 96%"]},
    {"check": "rdma_gpudirect_bw", "name": "94% of host memory misses a 5% tolerance", "expect": {"pyramid_rdma_gpudirect_tolerance_percent": 5},
     "facts": _gdr("client_gbits_cuda_dmabuf_a_roce_h200", 150.0), "status": "FAIL",
     "contains": ["94% of host memory's 150.0 Gb/s", "within 5% of the host-memory run", "{cause}"]},
    {"check": "rdma_gpudirect_bw", "name": "A40 GPUDirect at half the host-memory run",
     "facts": _gdr("client_gbits_cuda_dmabuf_D60_q16_roce_A40", 363.5), "status": "FAIL",
     "contains": ["181.5 Gb/s from GPU 0, 50% of host memory's 363.5 Gb/s", "nvidia_peermem / dma-buf, PCIe ACS/IOMMU, GPU-NIC affinity"]},
    {"check": "rdma_gpudirect_bw", "name": "perftest built without CUDA", "raw": {"ib_write_bw_gdr_client": _raw("err_cuda_unsupported_memory_type")},
     "status": "ERROR", "contains": ["no CUDA support (perftest: Unsupported memory type)", "pyramid_rdma_gpudirect: false"]},
    {"check": "rdma_gpudirect_bw", "name": "a run that picked no GPU is not a GPUDirect run",
     "raw": {"ib_write_bw_gdr_client": _raw("client_gbits_ib_cx7_ndr_392G")}, "status": "ERROR", "contains": ["no 'Picking device No.' line"]},
    {"check": "rdma_gpudirect_bw", "name": "no host-memory run to compare with",
     "facts": _gdr("client_mib_cuda_ib_rtx4080", None, "Couldn't connect to 10.50.0.2:18515"), "status": "ERROR",
     "contains": ["125.4 Gb/s from GPU 0, but no host-memory run of this pair and rail", "Couldn't connect to 10.50.0.2:18515"]},
]
