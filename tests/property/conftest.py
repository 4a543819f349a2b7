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


def _pin_local_constants():
    """Hypothesis draws some values from the constants of the "local" modules loaded so far (every module
    in sys.modules outside site-packages). Which modules are loaded depends on what ran before in the same
    pytest process (the unit tests, the twin's tests), so one derandomized test drew other damage alone
    than in CI: the suite was not reproducible. The pool is pinned to the constants of the collection's own
    plugin code, read from source in name order on first use, whatever else the process has loaded."""
    import importlib  # pylint: disable=import-outside-toplevel
    import inspect  # pylint: disable=import-outside-toplevel
    import pkgutil  # pylint: disable=import-outside-toplevel

    from hypothesis.internal import constants_ast  # pylint: disable=import-outside-toplevel
    from hypothesis.internal.conjecture import providers  # pylint: disable=import-outside-toplevel

    from ansible_collections.gpufabric.pyramid.plugins import plugin_utils  # pylint: disable=import-outside-toplevel

    pool = []

    def pinned():
        if not pool:
            constants = constants_ast.Constants()
            for info in sorted(pkgutil.walk_packages(plugin_utils.__path__, plugin_utils.__name__ + "."), key=lambda info: info.name):
                source = inspect.getsource(importlib.import_module(info.name))
                constants |= constants_ast._constants_from_source(source, limit=True)  # pylint: disable=protected-access
            pool.append(constants)
            providers.CONSTANTS_CACHE.cache.clear()
        return pool[0]

    providers._get_local_constants = pinned  # pylint: disable=protected-access


_pin_local_constants()
