"""A check's `names_from`: sources its judge reads only to name what it found (catalog/checks.yml header)."""

import pytest

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog


def _catalog_with(tmp_path, old, new):
    text = open(_catalog.CATALOG_PATH, encoding="utf-8").read()
    assert old in text
    folder = tmp_path / str(len(list(tmp_path.iterdir())))  # a folder each: load_catalog caches by path
    folder.mkdir()
    path = folder / "checks.yml"
    path.write_text(text.replace(old, new, 1))
    return _catalog.load_catalog(str(path))


def test_gpu_xid_names_its_gpus_from_nvidia_smi():
    check = next(c for c in _catalog.load_catalog()["checks"] if c["id"] == "gpu_xid")
    assert check["names_from"] == ["gpu_query"] and set(check["names_from"]) <= set(check["sources"])


def test_names_from_lists_the_checks_own_sources(tmp_path):
    catalog = _catalog_with(tmp_path, "judge: gpudirect\n", "judge: gpudirect\n    names_from: [kernel_modules]\n")
    assert next(c for c in catalog["checks"] if c["id"] == "gpudirect")["names_from"] == ["kernel_modules"]
    with pytest.raises(_catalog.CatalogError, match="check gpudirect: names_from is a list of the check's own sources"):
        _catalog_with(tmp_path, "judge: gpudirect\n", "judge: gpudirect\n    names_from: [gpu_query]\n")
    with pytest.raises(_catalog.CatalogError, match="names_from is a list"):
        _catalog_with(tmp_path, "judge: gpudirect\n", "judge: gpudirect\n    names_from: kernel_modules\n")
