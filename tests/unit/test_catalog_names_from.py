"""A check's `names_from`: sources its judge reads only to name what it found (catalog/checklist.yml header)."""

import pytest

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog


def test_gpu_xid_names_its_gpus_from_nvidia_smi():
    check = next(c for c in _catalog.load_catalog()["checks"] if c["id"] == "gpu_xid")
    assert check["names_from"] == ["gpu_query"] and set(check["names_from"]) <= set(check["sources"])


def test_names_from_lists_the_checks_own_sources(edited_catalog):
    catalog = edited_catalog("judge: gpudirect\n", "judge: gpudirect\n    names_from: [kernel_modules]\n")
    assert next(c for c in catalog["checks"] if c["id"] == "gpudirect")["names_from"] == ["kernel_modules"]
    with pytest.raises(_catalog.CatalogError, match="check gpudirect: names_from is a list of the check's own sources"):
        edited_catalog("judge: gpudirect\n", "judge: gpudirect\n    names_from: [gpu_query]\n")
    with pytest.raises(_catalog.CatalogError, match="names_from is a list"):
        edited_catalog("judge: gpudirect\n", "judge: gpudirect\n    names_from: kernel_modules\n")
