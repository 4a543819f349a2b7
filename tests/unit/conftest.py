"""Unit-test setup: repo root and twin/ on sys.path, _parsers loaded by path.

Inside a collection the plugin_utils module is only importable as
ansible_collections.gpufabric.pyramid...; the tests load the file directly.
"""

import importlib.util
import os
import sys

import pytest

REPO_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
for path in (REPO_ROOT, os.path.join(REPO_ROOT, "twin")):
    if path not in sys.path:
        sys.path.insert(0, path)

PARSERS_PATH = os.path.join(REPO_ROOT, "plugins", "plugin_utils", "_parsers.py")


def load_parsers():
    """The _parsers module, loaded once from its file."""
    module = sys.modules.get("pyramid_parsers")
    if module is None:
        spec = importlib.util.spec_from_file_location("pyramid_parsers", PARSERS_PATH)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        sys.modules["pyramid_parsers"] = module
    return module


@pytest.fixture(scope="session")
def parsers():
    return load_parsers()
