"""Unit-test setup: repo root and twin/ on sys.path; the parse stage as the `parsers` fixture."""

import os
import sys

import pytest

REPO_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
for path in (REPO_ROOT, os.path.join(REPO_ROOT, "twin")):
    if path not in sys.path:
        sys.path.insert(0, path)


@pytest.fixture(scope="session")
def parsers():
    from ansible_collections.gpufabric.pyramid.plugins.plugin_utils import parsing  # pylint: disable=import-outside-toplevel
    return parsing


@pytest.fixture
def edited_catalog(tmp_path):
    """Load a copy of the shipped catalog (its index and every area) with one text replaced in the one file holding it.

    Each call copies into a folder of its own: load_catalog caches by path. `files` adds or replaces whole files."""
    import shutil  # pylint: disable=import-outside-toplevel
    from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog  # pylint: disable=import-outside-toplevel

    def edit(old=None, new=None, files=None):
        folder = tmp_path / ("catalog%d" % len(list(tmp_path.iterdir())))
        shutil.copytree(os.path.dirname(os.path.abspath(_catalog.CATALOG_PATH)), str(folder))
        if old is not None:
            holding = [path for path in sorted(folder.iterdir()) if old in path.read_text(encoding="utf-8")]
            assert len(holding) == 1, "%r is in %s" % (old, [path.name for path in holding])
            holding[0].write_text(holding[0].read_text(encoding="utf-8").replace(old, new, 1), encoding="utf-8")
        for name, text in (files or {}).items():
            (folder / name).write_text(text, encoding="utf-8")
        return _catalog.load_catalog(str(folder / os.path.basename(_catalog.CATALOG_PATH)))
    return edit
