"""The built-in NCCL benchmark (payloads/nccl_bench.py) prints a table its own parser reads
at every value: extreme bandwidths (10137.90 GB/s algbw, seen with one rank on a real H100) must not
run into the next column. The table functions are loaded without torch, which the controller lacks."""

import importlib.util
import os

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("nccl_bench", os.path.join(ROOT, "payloads", "nccl_bench.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _output(bench, rows):
    lines = ["# nThread 1 nGpus 1 minBytes 8 maxBytes 17179869184 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0",
             "#", "# Using devices",
             "#  Rank  0 Group  0 Pid   4242 on     h100-1 device  0 [0x18] NVIDIA H100 80GB HBM3",
             "#  Rank  1 Group  0 Pid   4243 on     h100-1 device  1 [0x2a] NVIDIA H100 80GB HBM3",
             "#", "#%74s%39s" % ("out-of-place", "in-place"), bench.HEADER % bench.COLUMNS, (bench.HEADER % bench.UNITS).rstrip()]
    given = {size: (oop, ip) for size, oop, ip in rows}
    size = 8
    while size <= 17179869184:  # every size the header asks for: a table missing one is not complete
        oop, ip = given.get(size, ((30.0, 1.0, 1.0, 0), (30.0, 1.0, 1.0, 0)))
        lines.append(bench.format_row(size, size // 4, bench.format_side(*oop), bench.format_side(*ip)))
        size *= 2
    lines += ["# Out of bounds values : 0 OK", "# Avg bus bandwidth    : 1.5 ", "#"]
    return "\n".join(lines) + "\n"


EXTREMES = [
    (8, (26.48, 0.0, 0.0, 0), (26.1, 0.0, 0.0, 0)),
    (268435456, (26.48, 10137.90, 10137.90, 0), (26.48, 10137.90, 10137.90, 0)),  # the real H100 one-rank case
    (17179869184, (1694.65, 10137.9, 0.01, 0), (123456.78, 99999.99, 175000.5, 12345678)),
]


def test_extreme_values_stay_in_their_columns(bench, parsers):
    facts = parsers.parse("nccl_tests", _output(bench, EXTREMES))
    assert [row["size"] for row in facts["rows"]] == [8 << shift for shift in range(32)]
    by_size = {row["size"]: row for row in facts["rows"]}
    big = by_size[268435456]
    assert (big["oop_time_us"], big["oop_algbw"], big["oop_busbw"], big["oop_wrong"]) == (26.48, 10137.9, 10137.9, 0)
    last = by_size[17179869184]
    assert (last["oop_time_us"], last["oop_algbw"], last["oop_busbw"]) == (1694.65, 10137.9, 0.01)
    assert (last["ip_time_us"], last["ip_algbw"], last["ip_busbw"], last["ip_wrong"]) == (123456.78, 99999.99, 175000.5, 12345678)
    assert [rank["rank"] for rank in facts["ranks"]] == [0, 1]


@pytest.mark.parametrize("value", [0.0, 9.99, 99999.99, 1234567.89])
def test_every_field_is_set_off_by_spaces(bench, value):
    side = bench.format_side(value, value, value, 7)
    assert side.split() == ["%.2f" % value] * 3 + ["7"]
    row = bench.format_row(17179869184, 4294967296, side, side)
    assert row.split()[:5] == ["17179869184", "4294967296", "float", "sum", "-1"]


@pytest.mark.parametrize("op, world, asked, printed", [
    # nccl-tests 2.19 src/<op>.cu GetCollByteCount, floats: a per-rank count rounded down to 16 bytes
    ("all_gather", 8, 64, (0, 0)), ("all_gather", 8, 128, (4, 128)), ("all_gather", 8, 4 << 30, (1 << 27, 4 << 30)),
    ("reduce_scatter", 6, 1024, (40, 960)), ("alltoall", 4, 1 << 20, (65536, 1 << 20)),
    ("all_reduce", 8, 8, (2, 8)), ("all_reduce", 8, 1, (0, 0)), ("sendrecv", 8, 4096, (1024, 4096)),
])
def test_counts_and_sizes_are_nccl_tests_own(bench, op, world, asked, printed):
    assert bench.counts(asked, op, world) == printed


def test_busbw_factors_and_reductions_are_nccl_tests_own(bench):
    factors = {op: spec["busbw"](8) for op, spec in bench.COLLECTIVES.items()}
    assert factors == {"all_reduce": 1.75, "all_gather": 0.875, "reduce_scatter": 0.875, "alltoall": 0.875, "sendrecv": 1.0}
    assert {op: spec["redop"] for op, spec in bench.COLLECTIVES.items()} == {
        "all_reduce": "sum", "all_gather": "none", "reduce_scatter": "sum", "alltoall": "none", "sendrecv": "sum"}
