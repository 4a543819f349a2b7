"""Judge data: the finder of the judges' rows as DATA tables, filed by the judging module they test (this package's
__init__.py stays empty, as ansible-test sanity asks).

<module>/<table>.py holds rows of the judges of plugins/plugin_utils/judging/<module>.py, with <table>.verdicts.json
beside it (what each row's verdict says, word for word); tests/unit/test_judge_data.py runs every row and holds each
table to its folder. A module at this level holds no rows: helpers the tables of several modules share.
"""

import importlib
import pkgutil

from ansible_collections.gpufabric.pyramid.tests.unit import judge_data as _PACKAGE


def tables():
    """{"<module>/<table>": module} of every module below this package that holds a DATA list, in order of that name
    (a table filed here at the top, outside any module's folder, is found too: test_judge_data refuses it)."""
    found = {}
    for info in pkgutil.walk_packages(_PACKAGE.__path__, _PACKAGE.__name__ + ".", onerror=_unreadable):
        if info.ispkg:
            continue
        module = importlib.import_module(info.name)
        if hasattr(module, "DATA"):
            found[info.name[len(_PACKAGE.__name__) + 1:].replace(".", "/")] = module
    return dict(sorted(found.items()))


def _unreadable(name):
    """A module folder that does not import: its tables would go unrun (walk_packages skips it by default)."""
    raise ImportError("judge data: %s does not import" % name)
