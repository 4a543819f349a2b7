"""The multi-node all-reduce judge, from nccl-tests fixtures (tests/unit/parsers/nccl_tests/)."""

import os

import pytest

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog, expectations as _expectations
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.judging import fabric as _judges_fabric
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core.model import SourceFailure

FIXTURES = os.path.join(os.path.dirname(__file__), "parsers", "nccl_tests")
CATALOG = _catalog.load_catalog()
# the fixtures' DGX names its eight rails this way
DGX_RAILS = ["mlx5_0", "mlx5_3", "mlx5_4", "mlx5_5", "mlx5_6", "mlx5_9", "mlx5_10", "mlx5_11"]


def _facts(run, group):
    """A fabric judge's facts for one run across ``group`` (run/fabric_runs.judged_facts)."""
    return {"run": run, "group": list(group), "platforms": CATALOG["platforms"]}


def expect(**values):
    values.setdefault("pyramid_rails", DGX_RAILS)
    resolved, errors = _expectations.resolve(CATALOG, values)
    assert not errors
    return resolved


def judge(parsers, fixture, group=("node-001", "node-002"), **values):
    with open(os.path.join(FIXTURES, fixture + ".raw"), encoding="utf-8") as handle:
        run = parsers.parse("nccl_tests", handle.read())
    return _judges_fabric.nccl_group(_facts(run, list(group)), expect(**values))


def test_eight_rails_with_gdrdma_at_the_expected_figure_pass(parsers):
    outcome = judge(parsers, "h100_2node_ib_8nics_gdrdma")
    assert outcome["status"] == "PASS", outcome
    assert "4 GiB busbw" in outcome["actual"]


def test_gpudirect_off_fails_naming_both_nodes(parsers):
    outcome = judge(parsers, "h100_2node_gdr_disabled")
    assert outcome["status"] == "FAIL" and outcome["cause_key"] == "gdr_off"
    assert outcome["by_host"] == {"node-001": ["gdr_off"], "node-002": ["gdr_off"]}


def test_nccl_ib_hca_with_one_nic_fails_as_nics_missing(parsers):
    outcome = judge(parsers, "h100_2node_ib_hca_only_mlx5_0")
    assert outcome["status"] == "FAIL" and outcome["cause_key"] == "nics_missing"
    assert "node-001 used 1 of 8 rails (mlx5_0)" in outcome["actual"]


def test_tcp_socket_fallback_fails_as_nics_missing(parsers):
    outcome = judge(parsers, "h100_2node_socket_fallback")
    assert outcome["status"] == "FAIL" and outcome["cause_key"] == "nics_missing"


def test_without_nccl_debug_lines_nics_and_gdr_are_unknown_an_error(parsers):
    # the run's own figures as the table (35.29 GB/s busbw at 8 GiB): the bandwidth is fine, only the
    # rails and GPUDirect are unknown, which is missing data: an ERROR, never a PASS nor a FAIL
    outcome = judge(parsers, "nccl_tests_2_18_mpirun_two_nodes_real", pyramid_nccl_expected={"8589934592": 35})
    assert (outcome["status"], outcome["cause_key"], outcome["by_host"]) == ("ERROR", None, {})
    assert outcome["actual"] == "no NCCL_DEBUG=INFO network lines: set NCCL_DEBUG=INFO in pyramid_nccl_env"


def test_without_nccl_debug_lines_a_slow_run_is_a_fail_that_still_names_the_unknowns(parsers):
    # measured 35 GB/s busbw against the platform's 330: a finding, FAIL; the missing lines are said too
    outcome = judge(parsers, "nccl_tests_2_18_mpirun_two_nodes_real")
    assert (outcome["status"], outcome["cause_key"]) == ("FAIL", "slow")
    assert outcome["actual"].startswith("below 85% of the expected figure at 4 of 4 sizes, 4 GiB busbw 35.0 < 280.5")
    assert outcome["actual"].endswith("; no NCCL_DEBUG=INFO network lines: set NCCL_DEBUG=INFO in pyramid_nccl_env")


def test_a_custom_table_replaces_the_platform(parsers):
    outcome = judge(parsers, "h100_2node_ib_8nics_gdrdma", pyramid_nccl_expected={"4294967296": 900})
    assert outcome["status"] == "FAIL" and outcome["cause_key"] == "slow"
    assert "< 765.0" in outcome["actual"]


def test_no_measured_size_in_the_table_is_an_error(parsers):
    outcome = judge(parsers, "h100_2node_ib_8nics_gdrdma", pyramid_nccl_expected={"12345": 10})
    assert outcome["status"] == "ERROR" and "widen -b/-e" in outcome["actual"]


def test_a_rank_count_that_does_not_match_the_group_fails(parsers):
    outcome = judge(parsers, "h100_2node_ib_8nics_gdrdma", group=("node-001", "node-002", "node-003"))
    assert outcome["status"] == "FAIL" and "16 of 24 ranks joined" in outcome["actual"]


def test_a_hang_names_the_nodes_whose_ranks_never_reported(parsers):
    output = "#  Rank  0 Group  0 Pid  23100 on   node-001 device  0 [0x18] NVIDIA H100 80GB HBM3\n"
    hung = SourceFailure("mpirun ...", "hung", "timeout", output, parsers.partial("nccl_tests", output))
    outcome = _judges_fabric.nccl_group(_facts(hung, ["node-001", "node-002"]), expect())
    assert outcome["status"] == "FAIL" and outcome["cause_key"] == "hang"
    assert "never reported: node-002" in outcome["actual"]


@pytest.mark.parametrize("status", ["missing", "failed", None])
def test_a_launcher_that_gave_no_data_is_an_error(status):
    outcome = _judges_fabric.nccl_group(_facts(SourceFailure("mpirun", "mpirun: command not found", status), ["a", "b"]), expect())
    assert outcome["status"] == "ERROR"


@pytest.mark.parametrize("table", [{"4G": 330}, {"4294967296": "fast"}, {"4294967296": 0}])
def test_bad_expected_tables_are_refused_before_any_host_is_touched(table):
    assert _expectations.resolve(CATALOG, {"pyramid_nccl_expected": table})[1]


def test_an_unknown_platform_is_refused():
    errors = _expectations.resolve(CATALOG, {"pyramid_nccl_platform": "a100_8x200g"})[1]
    assert errors and "h100_8x400g" in errors[0]


def test_a_slow_run_that_nccl_warned_about_is_blamed_on_the_warning(parsers):
    with open(os.path.join(FIXTURES, "h100_2node_ib_8nics_gdrdma.raw"), encoding="utf-8") as handle:
        run = parsers.parse("nccl_tests", handle.read())
    run["nccl"]["warnings"] = ["NET/IB : skipping mlx5_3: topology file says NIC not attached"]
    outcome = _judges_fabric.nccl_group(_facts(run, ["node-001", "node-002"]), expect(pyramid_nccl_expected={"4294967296": 900}))
    assert outcome["status"] == "FAIL" and outcome["cause_key"] == "warning"
    assert "NCCL WARN: NET/IB : skipping mlx5_3" in outcome["actual"]
    assert "warning" in CATALOG["checks"][[c["id"] for c in CATALOG["checks"]].index("nccl_pairs")]["causes"]


def test_the_all_to_all_floor_is_the_nic_bound_ceiling_scaled_by_the_fraction_and_the_bisection():
    values = expect(pyramid_rails=["mlx5_%d" % i for i in range(8)])
    group = ["node-001", "node-002"]
    floor, figured = _judges_fabric.alltoall_floor(group, values, {"node-001": "su1", "node-002": "su1"})
    assert floor == pytest.approx(50 * 15 / 8.0 * 0.7)  # 8 x 400G over 8 GPUs: 50 GB/s a GPU; 16 ranks
    assert "spine" not in figured
    crossing = {"node-001": "su1", "node-002": "su2"}
    floor_2_1, figured = _judges_fabric.alltoall_floor(group, dict(values, pyramid_fabric_bisection=0.5), crossing)
    assert floor_2_1 == pytest.approx(floor / 2) and "100% of a node's traffic crosses the spine layer, whose bisection is 0.5" in figured
    four = ["n1", "n2", "n3", "n4"]  # two units of two: 2 of a node's 3 peers across the spines
    assert _judges_fabric.cross_share(four, {"n1": "a", "n2": "a", "n3": "b", "n4": "b"}) == pytest.approx(2 / 3.0)
    floor_4, _figured = _judges_fabric.alltoall_floor(four, dict(values, pyramid_fabric_bisection=0.5),
                                                      {"n1": "a", "n2": "a", "n3": "b", "n4": "b"})
    assert floor_4 == pytest.approx(50 * 31 / 24.0 * 0.7 * 0.75)


def test_an_all_to_all_read_without_a_large_size_is_an_error_never_a_pass(parsers):
    with open(os.path.join(FIXTURES, "h100_2node_ib_8nics_gdrdma.raw"), encoding="utf-8") as handle:
        run = parsers.parse("nccl_tests", handle.read())
    run = dict(run, rows=[row for row in run["rows"] if row["size"] < (64 << 20)])
    outcome = _judges_fabric.nccl_alltoall_group(_facts(run, ["node-001", "node-002"]), expect())
    assert outcome["status"] == "ERROR" and "no size of 64 MiB or more was measured" in outcome["actual"]


def test_in_place_not_validated_is_accepted_for_all_to_all_only(parsers):
    with open(os.path.join(FIXTURES, "h100_2node_ib_8nics_gdrdma.raw"), encoding="utf-8") as handle:
        run = parsers.parse("nccl_tests", handle.read())
    run = dict(run, rows=[dict(row, ip_wrong=None) for row in run["rows"]])
    group = ["node-001", "node-002"]
    assert _judges_fabric.nccl_alltoall_group(_facts(run, group), expect(pyramid_nccl_alltoall_fraction=0.01))["status"] == "PASS"
    outcome = _judges_fabric.nccl_group(_facts(run, group), expect())
    assert outcome["status"] == "ERROR" and "results not validated (#wrong N/A)" in outcome["actual"]
    unvalidated = dict(run, rows=[dict(row, oop_wrong=None) for row in run["rows"]])
    outcome = _judges_fabric.nccl_alltoall_group(_facts(unvalidated, group), expect(pyramid_nccl_alltoall_fraction=0.01))
    assert outcome["status"] == "ERROR" and "not validated" in outcome["actual"]
