"""The hostile-input suite's open findings (known_open.txt) are strict xfails: a ratchet, not a hiding place.

A case listed there fails today for a reason docs/robustness.md names; if it starts to pass the run
fails (strict), so the list only shrinks. A case not listed must pass.
"""

import os

import pytest

KNOWN_OPEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "known_open.txt")


def _known_open():
    with open(KNOWN_OPEN, encoding="utf-8") as handle:
        return {line.strip() for line in handle if line.strip() and not line.startswith("#")}


def pytest_collection_modifyitems(config, items):  # pylint: disable=unused-argument
    known = _known_open()
    for item in items:
        if item.nodeid in known:
            item.add_marker(pytest.mark.xfail(strict=True, reason="open finding of issue 17 (tests/property/known_open.txt)"))
