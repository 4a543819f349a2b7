"""The twin's multi-node runs (mpirun/srun ... all_reduce_perf) parse and judge as a real pod's would."""

import os

import pytest
import yaml

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog, expectations as _expectations
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.judging import fabric as _judges_fabric
from pyramid_twin import formats_fabric, model

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CATALOG = _catalog.load_catalog()
EXPECT = _expectations.resolve(CATALOG, {})[0]
# run as root here, as the twin is reached: Open MPI's permission, as inventories/twin/group_vars/all.yml gives it
ENV = dict(EXPECT["pyramid_nccl_env"], OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
RUN = ["all_reduce_perf", "-b", "8", "-e", "4G", "-f", "2", "-g", "1"]


def _facts(run, group):
    """A fabric judge's facts for one run across ``group`` (run/fabric_runs.judged_facts)."""
    return {"run": run, "group": list(group), "platforms": CATALOG["platforms"]}


def pod(tmp_path, faults=(), nodes=4, **extra):
    path = tmp_path / "scenario.yml"
    path.write_text(yaml.safe_dump({"pod": dict(nodes=nodes, **extra), "faults": list(faults)}))
    scenario = model.load_scenario(str(path))
    states = {name: model.node_state(scenario, name) for name in model.node_names(scenario)}
    return states, states.get


def mpirun(states, load, names, env=None):
    env = env or ENV
    argv = ["-np", str(8 * len(names)), "-H", ",".join("%s:8" % n for n in names), "--bind-to", "none"]
    for name in sorted(env):
        argv += ["-x", name]
    return formats_fabric.mpirun(states[names[0]], argv + RUN, env, load)


def verdict(parsers, result, names, **values):
    rc, out, err, hang = result
    assert not hang and rc == 0, err
    return _judges_fabric.nccl_group(_facts(parsers.parse("nccl_tests", out), names), dict(EXPECT, **values))


def test_a_healthy_pair_passes(parsers, tmp_path):
    states, load = pod(tmp_path)
    outcome = verdict(parsers, mpirun(states, load, ["node-001", "node-003"]), ["node-001", "node-003"])
    assert outcome["status"] == "PASS", outcome


def test_srun_gives_the_same_verdict(parsers, tmp_path):
    states, load = pod(tmp_path)
    argv = ["--nodes=2", "--nodelist=node-001,node-002", "--ntasks-per-node=8", "--gpus-per-node=8", "--export=ALL"]
    outcome = verdict(parsers, formats_fabric.srun(states["node-001"], argv + RUN, ENV, load), ["node-001", "node-002"])
    assert outcome["status"] == "PASS", outcome


@pytest.mark.parametrize("fault, cause", [
    ({"kind": "gdr_off"}, "gdr_off"),
    ({"kind": "module_missing", "module": "nvidia_peermem"}, "gdr_off"),
    ({"kind": "mlxconfig", "set": {"ROCE_CC_PRIO_MASK_P1": 0}}, "slow"),
    ({"kind": "slow_node", "factor": 0.6}, "slow"),
    ({"kind": "port_state", "rail": "mlx5_4"}, "nics_missing"),
])
def test_a_bad_node_makes_its_pair_miss_with_its_cause(parsers, tmp_path, fault, cause):
    states, load = pod(tmp_path, [dict(fault, node="node-002")])
    outcome = verdict(parsers, mpirun(states, load, ["node-001", "node-002"]), ["node-001", "node-002"])
    assert outcome["status"] == "FAIL" and outcome["cause_key"] == cause, outcome


def test_nccl_ib_hca_naming_one_nic_uses_one_nic(parsers, tmp_path):
    states, load = pod(tmp_path)
    outcome = verdict(parsers, mpirun(states, load, ["node-001", "node-002"], dict(ENV, NCCL_IB_HCA="mlx5_0")),
                      ["node-001", "node-002"])
    assert outcome["cause_key"] == "nics_missing" and "used 1 of 8 rails (mlx5_0)" in outcome["actual"]


def test_the_fabric_fault_shows_only_above_its_node_count(parsers, tmp_path):
    states, load = pod(tmp_path, nodes=8, fabric={"degraded_above_nodes": 4, "factor": 0.6})
    names = sorted(states)
    assert verdict(parsers, mpirun(states, load, names[:4]), names[:4])["status"] == "PASS"
    assert verdict(parsers, mpirun(states, load, names), names)["cause_key"] == "slow"


ALLTOALL = ["alltoall_perf", "-b", "8", "-e", "4G", "-f", "2", "-g", "1"]


def alltoall_verdict(parsers, states, load, names, units, **values):
    argv = ["-np", str(8 * len(names)), "-H", ",".join("%s:8" % n for n in names), "--bind-to", "none"]
    for name in sorted(ENV):
        argv += ["-x", name]
    rc, out, err, hang = formats_fabric.mpirun(states[names[0]], argv + ALLTOALL, ENV, load)
    assert not hang and rc == 0, err
    run = parsers.parse("nccl_tests", out)
    assert {row["ip_wrong"] for row in run["rows"]} == {None}  # nccl-tests validates alltoall out-of-place only
    return _judges_fabric.nccl_alltoall_group(_facts(run, names), dict(EXPECT, scalable_units=units, **values))


def test_a_spine_funnel_slows_only_the_all_to_all_across_units(parsers, tmp_path):
    # the spine layer carries a quarter of the node ports' rate; 2/3 of a node's traffic crosses it: 37.5% of healthy
    states, load = pod(tmp_path, nodes=4, fabric={"spine_funnel": {"nodes_per_unit": 2, "factor": 0.25}})
    names = sorted(states)
    units = {"node-001": "su1", "node-002": "su1", "node-003": "su2", "node-004": "su2"}
    assert alltoall_verdict(parsers, states, load, names[:2], units)["status"] == "PASS"  # one unit: the rail leaves
    outcome = alltoall_verdict(parsers, states, load, names, units)
    assert (outcome["status"], outcome["cause_key"]) == ("FAIL", "slow"), outcome
    assert "4 nodes (32 ranks, 2 scalable units)" in outcome["expected"] and "spine" not in outcome["expected"]
    assert verdict(parsers, mpirun(states, load, names), names)["status"] == "PASS"  # the ring all-reduce never sees it
    # a spine layer declared 4:1 oversubscribed expects that much across units: the same run then holds
    outcome = alltoall_verdict(parsers, states, load, names, units, pyramid_fabric_bisection=0.25)
    assert outcome["status"] == "PASS", outcome
    assert "x 0.38: 67% of a node's traffic crosses the spine layer, whose bisection is 0.25" in outcome["expected"]


def test_a_healthy_all_to_all_across_nodes_clears_its_floor_at_every_pod_size(parsers, tmp_path):
    states, load = pod(tmp_path, nodes=8)
    for count in (2, 4, 8):
        names = sorted(states)[:count]
        outcome = alltoall_verdict(parsers, states, load, names, {name: "su1" for name in names})
        assert outcome["status"] == "PASS", outcome


def test_a_node_without_gpudirect_is_named_in_the_all_to_all(parsers, tmp_path):
    states, load = pod(tmp_path, [{"node": "node-002", "kind": "gdr_off"}])
    names = ["node-001", "node-002", "node-003"]
    outcome = alltoall_verdict(parsers, states, load, names, {name: "su1" for name in names})
    assert outcome["status"] == "FAIL" and outcome["by_host"] == {"node-002": ["gdr_off"]}, outcome


def test_the_builtin_all_to_all_across_nodes_prints_the_same_table(parsers, tmp_path):
    states, load = pod(tmp_path)
    names = ["node-001", "node-002"]
    code = "# gpufabric.pyramid built-in benchmark"
    argv = (["-np", "2", "-H", ",".join(names), "--bind-to", "none", "torchrun", "--nnodes=2", "--nproc_per_node=8",
             "--no-python", "python3", "-c", code, "--op", "alltoall", "-b", "8", "-e", "4G", "-f", "2"])
    rc, out, err, _hang = formats_fabric.mpirun(states["node-001"], argv, {k: v for k, v in ENV.items() if k.startswith("OMPI_")}, load)
    assert rc == 0, err
    run = parsers.parse("nccl_tests", out)
    assert "alltoall over NCCL" in out and run["rows"][-1]["oop_busbw"] > 70
    assert {row["ip_wrong"] for row in run["rows"]} == {0}  # payloads/nccl_bench.py validates both sides


IB_NODES = {"link_layer": "InfiniBand"}
COLLNET = dict(ENV, NCCL_COLLNET_ENABLE="1")


@pytest.mark.parametrize("sharp, env, status, said", [
    ({"state": "up"}, COLLNET, "PASS", "SHARP (CollNet connected) on every node"),
    ({"state": "up"}, ENV, "FAIL", "NCCL was not asked to use it"),  # the plugin is there, NCCL_COLLNET_ENABLE is not
    ({"state": "no_job"}, COLLNET, "FAIL", "node-001: NET/IB : SHARP coll init error: Cannot create SHARP job(-11)"),
    (None, COLLNET, "FAIL", "asked for (NCCL_COLLNET_ENABLE=1) but no 'Connected CollNet' line"),  # no SHARP on the fabric
], ids=["connected", "not asked", "job refused", "no plugin"])
def test_sharp_declared_is_judged_from_what_nccl_printed(parsers, tmp_path, sharp, env, status, said):
    states, load = pod(tmp_path, node_defaults=IB_NODES, **({"sharp": sharp} if sharp else {}))
    names = ["node-001", "node-002"]
    outcome = verdict(parsers, mpirun(states, load, names, env), names, pyramid_nccl_sharp=True)
    assert outcome["status"] == status and said in outcome["actual"], outcome
    if status == "FAIL":
        assert outcome["cause_key"] == "sharp_unused" and sorted(outcome["by_host"]) == names, outcome
    # not declared: the same run is judged without it
    assert verdict(parsers, mpirun(states, load, names, env), names)["status"] == "PASS"


def test_launch_failures_print_what_the_launchers_print(tmp_path):
    states, load = pod(tmp_path, [{"node": "node-002", "kind": "unreachable"},
                                  {"node": "node-003", "kind": "tool_missing", "tool": "all_reduce_perf"}])
    rc, out, err = mpirun(states, load, ["node-001", "node-002"])[:3]
    assert rc and not out and "node-002" in err
    rc, out, err = mpirun(states, load, ["node-001", "node-003"])[:3]
    assert rc and "Executable: all_reduce_perf\nNode: node-003" in err
    argv = ["--nodes=2", "--nodelist=node-001,node-003", "--ntasks-per-node=8"]
    rc, out, err = formats_fabric.srun(states["node-001"], argv + RUN, ENV, load)[:3]
    assert rc == 2 and "node-003: tasks 8-15" in err


def torchrun_argv(names, steps=EXPECT["pyramid_train_steps"]):  # the steps the judge holds the built-in run to
    code = "print('pyramid-train rank=%d ...')  # the built-in payload"
    return ["torchrun", "--nnodes=%d" % len(names), "--nproc_per_node=8", "--rdzv-backend=c10d",
            "--rdzv-endpoint=%s:29500" % names[0], "--no-python", "python3", "-c", code, "--steps", str(steps)]


def train_verdict(parsers, result, names):
    rc, out, err = result[:3]
    assert rc in (0, 1), err
    return _judges_fabric.training_group(_facts(parsers.parse("training_log", out), names), EXPECT)


def test_training_across_nodes_passes_and_names_the_node_of_a_slow_rank(parsers, tmp_path):
    states, load = pod(tmp_path, [{"node": "node-003", "kind": "slow_rank", "rank": 2, "factor": 1.3}])
    names = ["node-001", "node-002"]
    argv = ["-np", "2", "-H", ",".join(names), "--bind-to", "none"] + torchrun_argv(names)
    assert train_verdict(parsers, formats_fabric.mpirun(states["node-001"], argv, ENV, load), names)["status"] == "PASS"
    names = ["node-001", "node-002", "node-003", "node-004"]
    argv = ["--nodes=4", "--nodelist=" + ",".join(names), "--ntasks-per-node=1", "--export=ALL"] + torchrun_argv(names)
    outcome = train_verdict(parsers, formats_fabric.srun(states["node-001"], argv, ENV, load), names)
    assert outcome["status"] == "FAIL" and outcome["cause_key"] == "slow_rank"
    assert "rank 18 (node-003)" in outcome["actual"] and outcome["by_host"] == {"node-003": ["slow_rank"]}


def test_a_training_timeout_across_nodes_is_a_fail(parsers, tmp_path):
    states, load = pod(tmp_path, [{"node": "node-002", "kind": "training_timeout"}])
    names = ["node-001", "node-002"]
    argv = ["-np", "2", "-H", ",".join(names)] + torchrun_argv(names)
    outcome = train_verdict(parsers, formats_fabric.mpirun(states["node-001"], argv, ENV, load), names)
    assert outcome["status"] == "FAIL" and outcome["cause_key"] == "timeout"


def test_the_builtin_benchmark_across_nodes_is_judged_like_nccl_tests(parsers, tmp_path):
    states, load = pod(tmp_path, [{"node": "node-002", "kind": "gdr_off"}])
    with open(os.path.join(ROOT, "payloads", "nccl_bench.py"), encoding="utf-8") as handle:
        code = handle.read()
    for names, status in ((["node-001", "node-003"], "PASS"), (["node-001", "node-002"], "FAIL")):
        argv = ["-np", "2", "-H", ",".join(names), "--bind-to", "none", "-x", "NCCL_DEBUG", "-x", "NCCL_IB_HCA",
                "torchrun", "--nnodes=2", "--nproc_per_node=8", "--rdzv-backend=c10d", "--rdzv-endpoint=%s:29500" % names[0],
                "--no-python", "python3", "-c", code, "-b", "8", "-e", "4G", "-f", "2"]
        outcome = verdict(parsers, formats_fabric.mpirun(states["node-001"], argv, ENV, load), names)
        assert outcome["status"] == status, outcome
    assert outcome["cause_key"] == "gdr_off"


def test_the_parity_test_across_nodes_names_the_node_of_a_diverging_rank(parsers, tmp_path):
    states, load = pod(tmp_path, [{"node": "node-002", "kind": "parity_divergence", "rank": 5, "factor": 1.02}])
    with open(os.path.join(ROOT, "payloads", "parity.py"), encoding="utf-8") as handle:
        code = handle.read()
    for names, blamed in ((["node-001", "node-003"], {}), (["node-001", "node-002"], {"node-002": ["diverged"]})):
        argv = ["-np", "2", "-H", ",".join(names), "--bind-to", "none", "torchrun", "--nnodes=2", "--nproc_per_node=8",
                "--no-python", "python3", "-c", code]
        rc, out, err, _hang = formats_fabric.mpirun(states[names[0]], argv, ENV, load)
        assert rc == 0, err
        outcome = _judges_fabric.training_parity_group(_facts(parsers.parse("training_parity", out), names), EXPECT)
        assert outcome["by_host"] == blamed and outcome["status"] == ("FAIL" if blamed else "PASS"), outcome


def _gather_verdict(parsers, states, load, names, op, **values):
    argv = ["-np", str(8 * len(names)), "-H", ",".join("%s:8" % n for n in names), "--bind-to", "none"]
    for name in sorted(ENV):
        argv += ["-x", name]
    rc, out, err, hang = formats_fabric.mpirun(states[names[0]], argv + ["%s_perf" % op] + RUN[1:], ENV, load)
    assert not hang and rc in (0, 1), err
    run = parsers.parse("nccl_tests", out)
    return _judges_fabric.JUDGES["fabric"]["nccl_%s_group" % op](_facts(run, names), dict(EXPECT, **values))


def test_all_gather_and_reduce_scatter_across_nodes_and_a_collective_corrupt_across_nodes_only(parsers, tmp_path):
    """The pod's FSDP collectives (nccl_all_gather_pod, nccl_reduce_scatter_pod) in the twin's format: healthy on 3 nodes
    (24 ranks: nccl-tests' per-rank rounding of 4 GiB, judged against a declared figure), a spine funnel leaves these
    rings alone, and pod.fabric.corrupt makes reduce-scatter alone wrong across nodes."""
    states, load = pod(tmp_path, nodes=3, fabric={"spine_funnel": {"nodes_per_unit": 1, "factor": 0.25}})
    names = sorted(states)
    for op in ("all_gather", "reduce_scatter"):
        outcome = _gather_verdict(parsers, states, load, names, op)
        assert outcome["status"] == "PASS" and "busbw not judged" in outcome["actual"], outcome
        declared = _gather_verdict(parsers, states, load, names, op, pyramid_nccl_pod_collective_busbw={op: {str(4 << 30): 330}})
        assert declared["status"] == "PASS" and "4 GiB busbw" in declared["actual"], declared
    states, load = pod(tmp_path, nodes=3, fabric={"corrupt": {"op": "reduce_scatter", "wrong": 12}})
    assert _gather_verdict(parsers, states, load, names, "all_gather")["status"] == "PASS"
    outcome = _gather_verdict(parsers, states, load, names, "reduce_scatter")
    assert (outcome["status"], outcome["cause_key"], outcome["by_host"]) == ("FAIL", "wrong", {}), outcome


@pytest.mark.parametrize("corrupt", [{"op": "sendrecv", "wrong": 1}, {"op": "all_gather", "wrong": 0}, {"op": "all_gather"}, "yes"])
def test_a_corrupt_collective_the_twin_cannot_make_is_refused(tmp_path, corrupt):
    with pytest.raises(model.ScenarioError, match="pod.fabric.corrupt takes op"):
        pod(tmp_path, fabric={"corrupt": corrupt})


def test_mpirun_as_root_without_open_mpis_permission_is_refused_as_open_mpi_does(tmp_path):
    """The twin's sshd runs every command as root: its mpirun refuses as Open MPI 4.1 does, unless both variables are 1
    (pre-flight names the trap first: core/inventory.mpirun_as_root)."""
    states, load = pod(tmp_path)
    env = {name: value for name, value in ENV.items() if not name.startswith("OMPI_ALLOW")}
    rc, out, err, hang = mpirun(states, load, ["node-001", "node-002"], env)
    assert (rc, out, hang) == (1, "", False) and "mpirun has detected an attempt to run as root" in err
    assert "OMPI_ALLOW_RUN_AS_ROOT=1" in err and "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1" in err
