# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Layer 5 inside the node: every ordered GPU pair's P2P bandwidth (p2pBandwidthLatencyTest or the built-in copy test)
judged against its link in nvidia-smi topo -m: an NVLink pair (NV#) at least its links' share, every pair near the pod's
median for its kind of link, and peer access on (without it a copy bounces through host memory)."""

from __future__ import annotations

import re
import statistics

from ..core.model import ERROR, FAIL, PASS, SKIP, SourceFailure, counted, verdict
from .registry import judge, summary

_NVLINK = re.compile(r"^NV(\d+)$")


def _pairs(facts):
    """(pairs with their link, None) or (None, (status, why)) for one node."""
    run, topo = facts["gpu_p2p"], facts.get("gpus_found")
    if isinstance(run, SourceFailure):
        return None, (ERROR, "no P2P bandwidth: %s" % run.reason)
    if topo is None or isinstance(topo, SourceFailure):
        return None, (ERROR, "%s seen by the test, but no link to judge its pairs by: nvidia-smi topo -m not read (%s)" % (
            counted(len(run["gpus"]), "GPU"), topo.reason if topo is not None else "not collected"))
    if len(topo["gpus"]) < 2 and len(run["gpus"]) < 2:  # both say one GPU: nothing to pair, never a pass
        return None, (SKIP, "%s: no GPU pair to measure" % counted(len(run["gpus"]), "GPU"))
    if len(topo["gpus"]) != len(run["gpus"]):
        return None, (ERROR, "the test saw %s, nvidia-smi topo -m %s (CUDA_VISIBLE_DEVICES?)" % (
            counted(len(run["gpus"]), "GPU"), counted(len(topo["gpus"]), "GPU")))
    pairs = []
    for pair in run["pairs"]:
        link = topo["gpus"].get("GPU%d" % pair["src"], {}).get("links", {}).get("GPU%d" % pair["dst"])
        if link is None:
            return None, (ERROR, "nvidia-smi topo -m has no cell GPU%d to GPU%d" % (pair["src"], pair["dst"]))
        pairs.append(dict(pair, link=link))
    return pairs, None


def _name(pair):
    return "GPU %d -> GPU %d (%s)" % (pair["src"], pair["dst"], pair["link"])


def _floor(link, expect):
    """The least an NVLink pair moves: its links x the per-link figure x the fraction; None for a PCIe path."""
    found = _NVLINK.match(link)
    if not found:
        return None
    return int(found.group(1)) * expect["pyramid_nvlink_gbps_per_link"] * expect["pyramid_gpu_p2p_min_fraction"]


@judge("gpu_p2p", scope="pod")
def gpu_p2p(facts_by_host, expect_by_host):
    read = {host: _pairs(facts) for host, facts in facts_by_host.items()}
    by_link = {}
    for pairs, _problem in read.values():
        for pair in pairs or []:
            if pair["peer_access"]:
                by_link.setdefault(pair["link"], []).append(pair["gbps"])
    medians = {link: statistics.median(values) for link, values in by_link.items() if len(values) >= 2}
    verdicts = {}
    for host, (pairs, problem) in read.items():
        expect = expect_by_host[host]
        ratio = expect["pyramid_gpu_p2p_ratio"]
        figures = (expect["pyramid_nvlink_gbps_per_link"], expect["pyramid_gpu_p2p_min_fraction"], round(ratio * 100))
        expected = ("P2P on between every GPU pair; an NVLink pair (NV#) at least # x %g GB/s x %g; every pair at least %d%% "
                    "of the pod's median for its link" % figures)
        if problem:
            verdicts[host] = verdict(problem[0], expected, problem[1])
            continue
        findings = []
        for pair in pairs:
            floor, median = _floor(pair["link"], expect), medians.get(pair["link"])
            if not pair["peer_access"]:
                findings.append("%s: no P2P access (CANNOT Access Peer), %.1f GB/s through host memory" % (_name(pair), pair["gbps"]))
            elif floor is not None and pair["gbps"] < floor:
                findings.append("%s: %.1f GB/s, under %.0f GB/s for %s" % (_name(pair), pair["gbps"], floor, pair["link"]))
            elif median is not None and pair["gbps"] < ratio * median:
                findings.append("%s: %.1f GB/s, under %d%% of the pod's %s median %.1f GB/s" % (
                    _name(pair), pair["gbps"], round(ratio * 100), pair["link"], median))
        if findings:
            verdicts[host] = verdict(FAIL, expected, summary(findings))
            continue
        links = sorted({pair["link"] for pair in pairs})
        verdicts[host] = verdict(PASS, expected, "%s: %s" % (counted(len(pairs), "ordered pair"), ", ".join(
            "%s %.1f-%.1f GB/s" % (link, min(p["gbps"] for p in pairs if p["link"] == link), max(p["gbps"] for p in pairs if p["link"] == link))
            for link in links)))
    return verdicts
