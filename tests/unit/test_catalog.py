"""The catalog is consistent, and the docs are generated from it."""

import os
import subprocess
import sys

import pytest

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils import _catalog, _engine

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CATALOG = _catalog.load_catalog()


def test_every_layer0_row_of_the_seed_checklist_is_covered():
    covered = {c["row"] for c in CATALOG["checks"]}
    assert {"iommu", "kernel", "rdma_driver", "gpudirect", "nic_firmware", "topology"} <= covered


def test_every_check_has_cause_and_go_back_to():
    for check in CATALOG["checks"]:
        assert check["cause"].strip() and check["go_back_to"].strip(), check["id"]


def test_each_command_is_planned_once_per_host():
    checks = _catalog.checks_at(CATALOG, 0)
    expect = {"pyramid_rails": ["mlx5_0", "mlx5_1"]}
    planned = _engine.plan(_engine.source_names(checks), CATALOG, expect)
    ids = [p["id"] for p in planned]
    assert len(ids) == len(set(ids))
    assert "mlxconfig[mlx5_1]" in ids and ["mlxconfig", "-d", "mlx5_1", "-e", "q"] == planned[ids.index("mlxconfig[mlx5_1]")]["ways"][0]["run"]


def test_a_broken_catalog_is_refused(tmp_path):
    broken = tmp_path / "checks.yml"
    text = open(_catalog.CATALOG_PATH, encoding="utf-8").read().replace("judge: gpudirect", "judge: no_such_judge")
    broken.write_text(text)
    with pytest.raises(_catalog.CatalogError, match="no_such_judge"):
        _catalog.load_catalog(str(broken))


def test_docs_are_generated_from_the_catalog():
    result = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "gen_docs.py"), "--check"],
                            capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
