"""One cause per failure (run/depends.py, the catalog's depends_on): with no RDMA device, the rail reads' ERRORs are
the same fact as rails_present's FAIL and read SKIP "depends on rails_present (FAIL)"; a dependent's own FAIL stands;
the report shows the root finding with its dependents folded under it. The shape of a real run on an H100 host
without RDMA NICs (docs/examples/h100x1-real: one FAIL and 13 ERRORs before this)."""

import pytest

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog, results as _results
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.report import go_no_go
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import depends

CATALOG = _catalog.load_catalog()
NO_RDMA = "no RDMA devices on this host (/sys/class/infiniband empty; ibstat: command not found)"


def _record(check, status, actual, layer=0):
    return {"host": "gpu-host", "layer": layer, "check": check, "title": check, "row": "rdma", "status": status,
            "expected": "e", "actual": actual, "command": "c", "cause": "why" if status != "PASS" else None, "go_back_to": "there"}


def test_the_rail_reads_of_a_host_without_rdma_devices_fold_under_rails_present():
    records = depends.fold([_record("rails_present", "FAIL", NO_RDMA), _record("rails_active", "ERROR", "ibstat: command not found"),
                            _record("rails_rate", "FAIL", "mlx5_2: 200 Gb/s"), _record("gpus_present", "ERROR", "nvidia-smi: not found")],
                           CATALOG, [])
    present, active, rate, gpus = records
    assert present["status"] == "FAIL" and present["actual"] == NO_RDMA
    assert active["status"] == "SKIP" and active["depends_on"] == "rails_present" and active["cause"] is None
    assert active["actual"] == "not judged: depends on rails_present (FAIL: %s)" % NO_RDMA
    assert active["unread"] == "ibstat: command not found"  # what the read said is kept
    assert rate["status"] == "FAIL"  # judged, its own finding: it stands
    assert gpus["status"] == "ERROR"  # depends on nothing that failed


def test_a_later_layers_read_folds_under_the_root_recorded_below():
    earlier = depends.fold([_record("rails_present", "FAIL", NO_RDMA)], CATALOG, [])
    dcqcn = depends.fold([_record("roce_dcqcn", "ERROR", "rail_netdev: no netdev", layer=3)], CATALOG, earlier)[0]
    assert dcqcn["status"] == "SKIP" and "depends on rails_present (FAIL" in dcqcn["actual"]
    healthy = depends.fold([_record("roce_dcqcn", "ERROR", "mlnx_qos: timeout", layer=3)], CATALOG, [_record("rails_present", "PASS", "8")])
    assert healthy[0]["status"] == "ERROR"  # its prerequisite passed: the ERROR is its own


@pytest.mark.parametrize("depends_on, layer", [(["no_such_check"], 0), (["roce_dcqcn"], 0), (["gpu_clocks"], 0)])
def test_a_dependency_not_judged_before_the_check_is_refused(depends_on, layer):
    checks = [dict(check, depends_on=depends_on) if check["id"] == "rails_active" else check for check in CATALOG["checks"]]
    with pytest.raises(_catalog.CatalogError, match="depends_on"):
        _catalog._check(dict(CATALOG, checks=checks))  # pylint: disable=protected-access


def test_the_report_shows_the_root_finding_with_its_dependents_and_no_error_of_theirs(tmp_path):
    records = depends.fold([_record("rails_present", "FAIL", NO_RDMA)] + [
        _record(check, "ERROR", "ibstat: command not found") for check in ("rails_active", "rails_rate", "mlxconfig")], CATALOG, [])
    doc = _results.load(str(tmp_path), "gpu-host")
    _results.record(doc, records)
    _results.save(str(tmp_path), doc)
    report = go_no_go.build(CATALOG, str(tmp_path), {"gpu_node": ["gpu-host"]})
    text = go_no_go.checklist_text(report)
    assert "gpu-host L0 rails_present FAIL: %s [3 checks depend on it, not judged: rails_active, rails_rate, mlxconfig]" % NO_RDMA in text
    assert "rails_active ERROR" not in text and "[3 checks depend on it" in go_no_go.markdown(report)
