"""NCCL runs and training runs as their parsers give them (nccl_tests, training_log), for the tables of
judging/workload.py (one host's run: workload/layer5_6.py and beside it) and judging/fabric.py (a run across a group of
nodes: fabric/layer5_6.py and beside it), and for the bug classes' rows of both.
"""

import collections

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils import parsing
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core.model import SourceFailure
from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.host.layer0 import fixture

HOSTS = ("node-001", "node-002", "node-003")
PAIR = ["node-001", "node-002"]
DGX_RAILS = ["mlx5_0", "mlx5_3", "mlx5_4", "mlx5_5", "mlx5_6", "mlx5_9", "mlx5_10", "mlx5_11"]  # the nccl_tests fixtures' DGX
RAILS = ["mlx5_%d" % index for index in range(8)]  # pyramid_rails by default
GIB = 1 << 30
LAST = 8 * GIB
NCCL_CMD = "all_reduce_perf -b 8 -e 4G -f 2 -g 8"
TRAIN_CMD = "torchrun --standalone train_step.py"


def nccl_row(size, busbw, ip_busbw=None, oop_wrong=0, ip_wrong=0, algbw=None, ip_algbw=None):
    ip_busbw = busbw if ip_busbw is None else ip_busbw
    algbw = busbw if algbw is None else algbw
    return {"size": size, "count": size // 4, "type": "float", "redop": "sum", "oop_time_us": 100.0, "oop_algbw": algbw,
            "oop_busbw": busbw, "oop_wrong": oop_wrong, "ip_time_us": 100.0, "ip_algbw": algbw if ip_algbw is None else ip_algbw,
            "ip_busbw": ip_busbw, "ip_wrong": ip_wrong}


def nccl(*rows, hosts=("node-001",), gpus=8, oob=0, network="IB", nics=None, gdr=True, warnings=()):
    """nccl_tests facts: rows (default: 1 MiB and 8 GiB at 400 GB/s), gpus ranks on each host, NCCL_DEBUG lines."""
    rows = list(rows) or [nccl_row(1 << 20, 20.0), nccl_row(LAST, 400.0)]
    nics_by_host = {host: list(RAILS if nics is None else nics.get(host, RAILS)) for host in hosts}
    gdr_by_host = {host: gdr if not isinstance(gdr, dict) else gdr.get(host, True) for host in hosts}
    on = [host for host in hosts for device in range(gpus)]
    return {"ranks": [{"rank": index, "host": host, "device": index % gpus} for index, host in enumerate(on)],
            "rows": rows, "out_of_bounds": oob,
            "nccl": {"version": "2.21.5", "network": network, "nics": list(RAILS), "nics_by_host": nics_by_host, "gdr": True,
                     "gdr_evidence": None, "gdr_by_host": gdr_by_host, "transports": [], "warnings": list(warnings)}}


def hang(ranks=(), sizes=(), command=NCCL_CMD):
    """A run killed at the timeout: the ranks (rank, host) and sizes its output still showed."""
    partial = {"ranks": [{"rank": rank, "host": host, "device": rank} for rank, host in ranks], "sizes_done": list(sizes)}
    return SourceFailure(command, "did not finish within 900s (hung?)", "timeout", partial=partial if ranks or sizes else None)


def steps(times, ranks=(0,), first=1, fwd=None, hosts=None):
    """training_log steps: step i (from `first`) of each rank takes times[i] ms (a per-rank list when a dict)."""
    out = []
    for rank in ranks:
        own = times[rank] if isinstance(times, dict) else times
        for index, value in enumerate(own):
            step = {"step": first + index, "rank": rank, "step_time_ms": value, "fwd_ms": None if fwd is None else fwd.get(rank, value / 3),
                    "loss": 1.0}
            if hosts:
                step["host"] = hosts[rank]
            out.append(step)
    return out


def train(times=(100.0,) * 10, ranks=(0, 1), timeouts=(), exit_code=None, fmt="pyramid", **keywords):
    facts = {"format": fmt, "timeouts": list(timeouts), "steps": steps(list(times) if not isinstance(times, dict) else times, ranks, **keywords)}
    if exit_code is not None:
        facts["exit_code"] = exit_code
    return {"training_node": facts}


def fabric_train(times, hosts, **keywords):
    """A training run across nodes: rank r on hosts[r]."""
    return {"training_fabric": train(times, ranks=tuple(range(len(hosts))), hosts=list(hosts), **keywords)["training_node"]}


STEADY = [100.0] * 10
# after 5 warm-up steps, the robust CV (1.4826 MAD / median) of [100-d, 100+d] alternating is 1.4826 d / 100:
# d 3.3 gives 4.9%, d 3.44 gives 5.1%
CV_49 = [100.0] * 5 + [96.7, 103.3] * 3
CV_51 = [100.0] * 5 + [96.56, 103.44] * 3
AT_5 = [100.0] * 5 + [96.6, 103.4] * 3  # 5.04%: a limit set to exactly its CV
EIGHT_TABLE = {"pyramid_nccl_expected": {str(LAST): 400}}


def _cut_at_half(case):
    """A real two-rank log of 12 steps cut, at a line boundary, after both ranks' step 6 (its second half lost)."""
    parser, text = fixture("training_log", case)
    kept = []
    for line in text.splitlines(keepends=True):
        if "step=7 " in line:
            break
        kept.append(line)
    return parser, "".join(kept)


CUT_AT_HALF = _cut_at_half("pyramid_h200_x2_real")


def as_asked(rows):
    """training_stable and training_pod rows of the built-in step judge the run they show as a whole one:
    the inventory asks for its ranks and steps (pyramid_gpus_per_node on each node, pyramid_train_steps:
    the built-in's log must hold every rank's every step), unless the row sets them itself to judge a log
    that lost some."""
    sources = {"training_stable": "training_node", "training_pod": "training_fabric"}
    for row in rows:
        if row["check"] not in sources:
            continue
        source = sources[row["check"]]
        run = (row.get("facts") or {}).get(source)
        if source in (row.get("raw") or {}):
            try:
                run = parsing.parse("training_log", row["raw"][source][1])
            except parsing.ParseError:
                continue
        if not isinstance(run, dict) or run.get("format") != "pyramid" or not run["steps"]:
            continue
        expect = row.setdefault("expect", {})
        ranks_by_node = collections.Counter(host for host, _rank in {(step.get("host"), step["rank"]) for step in run["steps"]})
        expect.setdefault("pyramid_gpus_per_node", max(ranks_by_node.values()))
        expect.setdefault("pyramid_train_steps", max(4, max(step["step"] for step in run["steps"])))
    return rows
