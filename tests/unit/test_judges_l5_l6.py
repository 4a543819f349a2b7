"""Layer 5/6 judges from data tables: hangs, wrong results, stragglers, unstable steps, slow ranks."""

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog, expectations as _expectations
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import engine as _engine
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.judging import workload as _judges
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core.model import SourceFailure

CATALOG = _catalog.load_catalog()
EXPECT = _expectations.resolve(CATALOG, {})[0]


def nccl(busbw=300.0, wrong=0, sizes=(1 << 20, 1 << 30)):
    rows = [{"size": s, "count": s // 4, "type": "float", "redop": "sum", "oop_time_us": 1.0, "oop_algbw": busbw,
             "oop_busbw": busbw * 0.9, "oop_wrong": wrong, "ip_time_us": 1.0, "ip_algbw": busbw, "ip_busbw": busbw,
             "ip_wrong": wrong} for s in sizes]
    return {"nccl_node": {"ranks": [{"rank": r, "host": "n1"} for r in range(8)], "n_gpus": 8, "rows": rows,
                          "avg_busbw": busbw, "out_of_bounds": 0, "nccl": {}}}


def test_completed_run_passes():
    assert _judges.nccl_completes(nccl(), EXPECT)["status"] == "PASS"


def test_a_hang_is_a_fail_naming_the_ranks():
    output = "#  Rank  0 Group  0 Pid   4242 on   node-005 device  0 [0x18] NVIDIA H100\n" \
             "#  Rank  1 Group  0 Pid   4242 on   node-005 device  1 [0x2a] NVIDIA H100\n" \
             "     1048576        262144     float     sum      -1    10.0  100.0  175.0      0    10.0  100.0  175.0      0\n"
    # the engine reads a hang's output with the source's parser; the judge sees facts, never the text
    read = _engine.reads(["nccl_node"], CATALOG, EXPECT)[0]
    hung = _engine.parse_one(_engine.answered(read, {"status": "timeout", "command": "all_reduce_perf", "way": 0, "stdout": output,
                                                     "attempts": ["all_reduce_perf: timed out"]}))
    assert hung.partial == {"ranks": [{"rank": 0, "host": "node-005", "device": 0}, {"rank": 1, "host": "node-005", "device": 1}],
                            "sizes_done": [1048576]}
    assert _engine.restore_facts(_engine.serializable_facts(hung)).partial == hung.partial
    outcome = _judges.nccl_completes({"nccl_node": hung}, EXPECT)
    assert outcome["status"] == "FAIL"
    assert "ranks 0,1 on node-005" in outcome["actual"] and "1048576 B" in outcome["actual"]


def test_a_missing_tool_is_an_error_not_a_hang():
    outcome = _judges.nccl_completes({"nccl_node": SourceFailure("torchrun", "command not found", "missing")}, EXPECT)
    assert outcome["status"] == "ERROR"


def test_wrong_results_fail():
    outcome = _judges.nccl_correct(nccl(wrong=12), EXPECT)
    assert outcome["status"] == "FAIL" and "12 wrong" in outcome["actual"]


def test_unvalidated_results_are_not_a_pass():
    facts = nccl()
    for row in facts["nccl_node"]["rows"]:
        row["oop_wrong"] = row["ip_wrong"] = None
    assert _judges.nccl_correct(facts, EXPECT)["status"] == "ERROR"


def test_straggler_under_90_percent_of_the_median_is_named():
    facts = {"n%d" % i: nccl(300.0) for i in range(5)}
    facts["n3"] = nccl(180.0)  # 60%
    verdicts = _judges.nccl_node_busbw(facts, {h: EXPECT for h in facts})
    assert verdicts["n3"]["status"] == "FAIL" and "straggler" in verdicts["n3"]["actual"]
    assert all(verdicts[h]["status"] == "PASS" for h in facts if h != "n3")


def test_expected_table_within_tolerance():
    expect = dict(EXPECT, pyramid_nccl_node_busbw={str(1 << 30): "400"})
    facts = {"n1": nccl(330.0), "n2": nccl(330.0)}
    verdicts = _judges.nccl_node_busbw(facts, {h: expect for h in facts})
    assert {v["status"] for v in verdicts.values()} == {"FAIL"}  # 330 < 400 * 0.85
    expect = dict(EXPECT, pyramid_nccl_node_busbw={str(1 << 30): "370"})
    verdicts = _judges.nccl_node_busbw(facts, {h: expect for h in facts})
    assert {v["status"] for v in verdicts.values()} == {"PASS"}


def training(step_times, fwd=None, ranks=2, timeouts=()):
    steps = []
    for step, value in enumerate(step_times, start=1):
        for rank in range(ranks):
            steps.append({"step": step, "rank": rank, "step_time_ms": value,
                          "fwd_ms": (fwd or {}).get(rank, 30.0), "loss": 1.0})
    return {"training_node": {"format": "pyramid", "steps": steps, "timeouts": list(timeouts), "nan_iterations": None}}


def asked(facts):
    """The expectations of the run the facts show: the built-in step's log holds every rank's every step."""
    steps = facts["training_node"]["steps"]
    return dict(EXPECT, pyramid_gpus_per_node=len({step["rank"] for step in steps}),
                pyramid_train_steps=max(4, max(step["step"] for step in steps)))


def test_stable_training_passes():
    facts = training([300.0] * 5 + [100.0, 101.0, 99.0, 100.5, 100.0] * 4)
    outcome = _judges.training_stable(facts, asked(facts))
    assert outcome["status"] == "PASS", outcome


def test_unstable_step_time_fails():
    facts = training([100.0] * 5 + [100.0, 140.0, 70.0, 120.0, 90.0] * 4)
    outcome = _judges.training_stable(facts, asked(facts))
    assert outcome["status"] == "FAIL" and "CV" in outcome["actual"]


def test_slow_rank_is_named_from_forward_time():
    facts = training([100.0] * 20, fwd={0: 30.0, 1: 30.2, 2: 41.0, 3: 29.9}, ranks=4)
    outcome = _judges.training_stable(facts, asked(facts))
    assert outcome["status"] == "FAIL" and "rank 2" in outcome["actual"]


def test_nccl_timeout_in_training_fails():
    outcome = _judges.training_stable(training([100.0] * 20, timeouts=["Watchdog caught collective operation timeout"]), EXPECT)
    assert outcome["status"] == "FAIL" and "timeout" in outcome["cause"].lower()


def test_too_few_steps_is_an_error():
    assert _judges.training_stable(training([100.0] * 6), EXPECT)["status"] == "ERROR"


def steady_training(step_ms, steps=12):
    return {"training_node": {"format": "pyramid", "timeouts": [], "nan_iterations": 0, "steps": [
        {"step": s, "rank": r, "step_time_ms": step_ms, "fwd_ms": step_ms * 0.3, "loss": 1.0}
        for s in range(1, steps + 1) for r in range(2)]}}


def test_a_step_slower_than_the_baseline_fails():
    plain = asked(steady_training(870.0))
    expect = dict(plain, pyramid_train_step_ms_baseline=800.0)
    assert _judges.training_stable(steady_training(870.0), expect)["status"] == "PASS"  # within 10%
    outcome = _judges.training_stable(steady_training(1000.0), expect)
    assert outcome["status"] == "FAIL" and "25% slower than the baseline 800.0 ms" in outcome["actual"]
    assert _judges.training_stable(steady_training(1000.0), plain)["status"] == "PASS"  # no baseline: not judged


def test_a_log_cut_before_its_end_with_exit_0_is_an_error():
    facts = steady_training(100.0, steps=12)
    expect = dict(asked(facts), pyramid_train_steps=30)  # asked for 30 steps, the log stops at 12
    outcome = _judges.training_stable(facts, expect)
    assert outcome["status"] == "ERROR" and "rank 0 reported 12 of 30 steps (last 12)" in outcome["actual"]
    expect = dict(asked(facts), pyramid_gpus_per_node=4)  # 2 ranks in the log where 4 ran
    assert "2 ranks in the log where 4 ranks ran" in _judges.training_stable(facts, expect)["actual"]


def test_more_ranks_than_gpus_is_a_fail_naming_both():
    died = SourceFailure("torchrun --standalone --nproc_per_node=2 train_step.py --steps 30",
                         "torchrun ...: unparseable output (training_log): training_log: no step lines; exit code 1; stderr: "
                         "[rank1]: torch.AcceleratorError: CUDA error: invalid device ordinal")
    one_gpu = {"gpus": {"GPU0": {"links": {}, "cpu_affinity": "0-15", "numa_affinity": "0"}}, "nics": {}}
    expect = dict(EXPECT, pyramid_gpus_per_node=2)
    outcome = _judges.training_stable({"training_node": died, "gpus_found": one_gpu}, expect)
    assert outcome["status"] == "FAIL" and outcome["actual"].startswith("2 ranks, 1 GPU:")
    assert "exit code 1" in outcome["actual"] and "invalid device ordinal" in outcome["actual"]
    assert _judges.training_stable({"training_node": died, "gpus_found": None}, expect)["status"] == "ERROR"
