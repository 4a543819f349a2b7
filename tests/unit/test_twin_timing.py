"""The twin's timing mode (twin/pyramid_twin/timing.py): a tool that times itself takes the time it prints,
scaled by the scenario's factor; a duration its command line asks for is taken in real time, unscaled;
without the mode every tool answers at once."""

import importlib
import json
import os
import sys

import pytest

from pyramid_twin import formats_fabric, formats_nccl, formats_ping, model, switch_model, timing

BENCH = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "bench")

TABLE = """# nThread 1 nGpus 8 minBytes 1024 maxBytes 4096 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0
#
#                                                              out-of-place                       in-place
#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)
        1024           256     float     sum      -1    10.00    0.10    0.18      0    12.00    0.09    0.15      0
        2048           512     float     sum      -1    20.00    0.10    0.18      0    22.00    0.09    0.16      0
        4096          1024     float     sum      -1    40.00    0.10    0.18    N/A    41.00    0.10    0.18    N/A
# Out of bounds values : 0 OK
# Avg bus bandwidth    : 0.17
"""


def _state(factor=None):
    scenario = {"pod": {"nodes": 2, "gpus_per_node": 8, "rails": 8}, "faults": [],
                "timing": None if factor is None else {"factor": factor}}
    return model.node_state(scenario, "node-001")


def test_nccl_seconds_sums_both_sides_times_iters_plus_the_warmup_of_the_largest_size():
    # (10 + 12 + 20 + 22 + 40 + 41) x 20 + 40 x 5 = 2900 + 200 us
    assert timing.nccl_seconds(TABLE) == pytest.approx(3100e-6)
    assert timing.nccl_seconds("no table here\n") == 0.0


def test_train_seconds_takes_the_slowest_rank_of_each_step():
    log = ("pyramid-train rank=0 step=1 step_time_ms=2500.000 fwd_ms=1 loss=1 host=a\n"
           "pyramid-train rank=1 step=1 step_time_ms=2550.000 fwd_ms=1 loss=1 host=a\n"
           "pyramid-train rank=0 step=2 step_time_ms=850.000 fwd_ms=1 loss=1 host=a\n"
           "pyramid-train rank=1 step=2 step_time_ms=840.000 fwd_ms=1 loss=1 host=a\n")
    assert timing.train_seconds(log) == pytest.approx(3.4)
    megatron = " iteration        1/       2 | elapsed time per iteration (ms): 8500.0 | lm loss\n" \
               " iteration        2/       2 | elapsed time per iteration (ms): 3400.0 | lm loss\n"
    assert timing.train_seconds(megatron) == pytest.approx(11.9)


def test_off_by_default_every_tool_answers_at_once():
    state = _state()
    assert timing.factor(state) is None
    result = formats_nccl.torchrun(state, ["--standalone", "--nproc_per_node=8", "train_step.py", "--steps", "30"], {})
    assert timing.seconds(state, "torchrun", [], result) == 0.0
    assert timing.seconds(state, "ib_write_bw", ["-D", "5", "10.50.0.2"], (0, "", "")) == 0.0


def test_all_reduce_perf_sleeps_its_sweep_times_the_factor():
    state = _state(0.5)
    result = formats_nccl.all_reduce_perf(state, ["-b", "8", "-e", "128M", "-f", "2", "-g", "8"], {})
    slept = []
    waited = timing.pause(state, "all_reduce_perf", [], result, sleep=slept.append)
    assert waited == slept[0] == pytest.approx(0.5 * timing.nccl_seconds(result[1]))
    assert 0.01 < waited < 1.0  # a full 8 B .. 128 MiB sweep at ~360 GB/s: tens of milliseconds of GPU time


def test_training_steps_sleep_the_printed_step_times_times_the_factor():
    state = _state(0.1)
    result = formats_nccl.torchrun(state, ["--standalone", "--nproc_per_node=8", "train_step.py", "--steps", "30"], {})
    # 30 steps of ~850 ms, the first three times as long: ~27 s of training, 2.7 s at factor 0.1
    assert timing.seconds(state, "torchrun", [], result) == pytest.approx(0.1 * (850 * 32) / 1e3, rel=0.05)


def test_across_nodes_the_group_run_takes_its_time_too():
    states = [_state(1.0), dict(_state(1.0), hostname="node-002")]
    result = formats_fabric.group_train_log(states, 8, 10)
    assert timing.seconds(states[0], "mpirun", [], result) == pytest.approx(timing.train_seconds(result[1]))
    assert timing.train_seconds(result[1]) > 8.5


def test_a_hung_or_broken_run_takes_no_extra_time():
    state = _state(1.0)
    assert timing.seconds(state, "all_reduce_perf", [], (0, TABLE, "", True)) == 0.0  # the fake tool hangs itself
    assert timing.seconds(state, "all_reduce_perf", [], (2, "", "not simulated", False)) == 0.0


def test_asked_durations_are_real_whatever_the_factor():
    state = _state(0.01)
    assert timing.seconds(state, "ib_write_bw", ["-d", "mlx5_0", "-D", "3", "10.50.0.2"], (0, "table", "")) == 3.0
    assert timing.seconds(state, "ib_write_bw", ["-d", "mlx5_0", "-D", "3"], (0, "served", "")) == 3.0  # the server
    assert timing.seconds(state, "ib_write_bw", ["-D", "3", "10.50.0.2"], (1, "", "Couldn't connect")) == 0.0
    # an incast's paced sender already ran its -D in real time (formats_perftest._incast)
    assert timing.seconds(state, "ib_write_bw", ["-D", "3", "--rate_limit=40", "10.50.0.2"], (0, "t", "")) == 0.0
    assert timing.seconds(state, "fping", ["-c", "5", "-p", "200", "-S", "10.50.0.1", "10.50.0.2"], (0, "", "")) \
        == pytest.approx(0.8)


def test_ping_takes_the_time_iputils_prints():
    nodes = {"node-001": dict(_state(0.01), ping={}), "node-002": dict(_state(0.01), hostname="node-002", index=2, ping={})}
    argv = ["-n", "-q", "-c", "5", "-i", "0.2", "-W", "1", "-I", "10.50.0.1", "10.50.0.2"]
    result = formats_ping.ping(nodes["node-001"], argv, {}, nodes.get)
    assert "time 800ms" in result[1]
    assert timing.seconds(nodes["node-001"], "ping", argv, result) == pytest.approx(0.8)


@pytest.mark.parametrize("timing_yaml, expected", [
    ("", None), ("timing: {factor: 0.05}\n", {"factor": 0.05}), ("timing: {factor: 1}\n", {"factor": 1.0})])
def test_scenario_timing_key(tmp_path, timing_yaml, expected):
    path = tmp_path / "pod.yml"
    path.write_text("pod: {nodes: 2}\n" + timing_yaml)
    scenario = model.load_scenario(str(path))
    assert scenario["timing"] == expected
    assert model.node_state(scenario, "node-001")["timing"] == expected


@pytest.mark.parametrize("bad", ["timing: {factor: -1}\n", "timing: {factor: fast}\n", "timing: {scale: 2}\n",
                                 "timing: 0.05\n", "timing: {factor: true}\n"])
def test_scenario_timing_key_refused(tmp_path, bad):
    path = tmp_path / "pod.yml"
    path.write_text("pod: {nodes: 2}\n" + bad)
    with pytest.raises(model.ScenarioError, match="timing takes factor"):
        model.load_scenario(str(path))


def test_each_wait_is_recorded_with_its_kind_and_the_nodes_its_output_names(tmp_path):
    states = [_state(1.0), dict(_state(1.0), hostname="node-002")]
    train = formats_fabric.group_train_log(states, 8, 3)
    table = formats_fabric.group_table(states, 8, {}, 8, 1 << 20, 2)
    timing.record(str(tmp_path), timing.entry(states[0], "mpirun", train, 2.5, 100.0))
    timing.record(str(tmp_path), timing.entry(states[0], "srun", table, 0.1, 101.0))
    timing.record(str(tmp_path), timing.entry(states[0], "ib_write_bw", (0, "", ""), 1.0, 200.0))
    found = sorted(timing.load([str(tmp_path), str(tmp_path / "absent")], since=50.0, until=150.0), key=lambda i: i["start"])
    assert [(i["tool"], i["kind"], i["nodes"], i["seconds"]) for i in found] == [("mpirun", "train", 2, 2.5),
                                                                                 ("srun", "nccl", 2, 0.1)]


def _bench():
    """bench/pod_twin.py, which is no package."""
    if BENCH not in sys.path:
        sys.path.insert(0, BENCH)
    return importlib.import_module("pod_twin")


@pytest.mark.parametrize("nodes, spines", [(8, 4), (32, 4), (33, 8), (128, 4)])
def test_bench_pod_is_the_twin_pod_with_its_switches(tmp_path, nodes, spines):
    pod_twin = _bench()
    path = tmp_path / "pod.yml"
    path.write_text(pod_twin.scenario_text(nodes, spines, 0.05))
    scenario = model.load_scenario(str(path))
    assert scenario["timing"] == {"factor": 0.05}
    assert len(switch_model.topology(scenario)["switches"]) == pod_twin.switch_count(nodes, spines)


def test_bench_critical_path_of_self_timed_runs():
    pod_twin = _bench()
    waits = [{"kind": "train", "nodes": 1, "seconds": s} for s in (27.0, 28.0)] + [
        {"kind": "train", "nodes": 8, "seconds": 29.0}, {"kind": "nccl", "nodes": 2, "seconds": 2.0},
        {"kind": "nccl", "nodes": 2, "seconds": 2.5}, {"kind": "nccl", "nodes": 4, "seconds": 3.0},
        {"kind": "nccl", "nodes": 8, "seconds": 3.5}, {"kind": "asked", "nodes": 1, "seconds": 9.0}]
    # node runs side by side (the longest), pairs side by side (the longest), larger runs one after another
    assert pod_twin.self_timed(waits, "train") == 28.0 + 29.0
    assert pod_twin.self_timed(waits, "nccl") == 2.5 + 3.0 + 3.5
    assert pod_twin.devices_of("gpu_nodes:switches", 8, 12) == 20 and pod_twin.devices_of("switches", 8, 12) == 12


def test_bench_machine_busy_share():
    pod_twin = _bench()
    before = pod_twin.machine_busy_seconds()
    sum(range(2000000))  # some CPU of this process, which the machine's count includes
    assert pod_twin.machine_busy_seconds() >= before > 0
    assert pod_twin.busy_share(30.0, 20.0, 2) == 0.75 and pod_twin._percent(0.75) == "75%"
    # no reading, no span, no cores: no share rather than a made-up one
    assert pod_twin.busy_share(None, 20.0, 2) is None and pod_twin.busy_share(1.0, 0.0, 2) is None
    assert pod_twin._percent(None) == "-"


def test_bench_forks_from_the_environment_else_ansible_cfg(monkeypatch):
    pod_twin = _bench()
    monkeypatch.setenv("ANSIBLE_FORKS", "32")
    assert pod_twin.forks() == 32
    monkeypatch.delenv("ANSIBLE_FORKS")
    assert pod_twin.forks() == 16  # ansible.cfg's


def test_bench_table_of_a_stored_run(capsys):
    """The figures bench/README.md quotes, printed again from the JSON they were kept in."""
    pod_twin = _bench()
    with open(os.path.join(BENCH, "results", "pod_twin-timing-32-2026-11-24.json"), encoding="utf-8") as handle:
        run = json.load(handle)["runs"][0]
    pod_twin.print_table(run)
    out = capsys.readouterr().out
    assert "32 nodes, 12 switches, forks 16, timing factor 1: GO, validate.yml 527.0 s" in out
    assert "2 cores busy 710.3 s of 1054.0 core-seconds (67%): the controller 243.3 s" in out
    assert "| validate.yml | 44 | 527.0 | 243.3 | 5.529 | 67% | 88.9 | 438.1 |" in out
