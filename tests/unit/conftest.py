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
