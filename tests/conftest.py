"""Import the collection as ansible_collections.gpufabric.pyramid and the twin as pyramid_twin."""

import json
import os
import sys
import tempfile

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LINK = os.path.join(ROOT, ".collections", "ansible_collections", "gpufabric", "pyramid")
if not os.path.islink(LINK):
    os.makedirs(os.path.dirname(LINK), exist_ok=True)
    os.symlink("../../..", LINK)
for path in (os.path.join(ROOT, ".collections"), os.path.join(ROOT, "twin")):
    if path not in sys.path:
        sys.path.insert(0, path)


# Under pytest-xdist (`make test`, `make check`: -n 2) every test that talks to the twin runs on one worker, one after
# another, as it always did: the twin's sshd, its ports and the rail addresses' listeners are one pod and cannot be
# shared by two runs. The unit, property and static tests spread over the workers. (pytest-xdist's own loadgroup
# reads xdist_group marks by renaming node ids, which pytest 9.2 no longer lets it do: the scheduler is chosen here.)
ON_THE_TWIN_WORKER = ("tests/e2e/", "tests/twin/")
# The lab (tests/lab/: one FRR fabric in namespaces) is one pod too, but not the twin's: its tests share a worker.
ON_ONE_WORKER = "tests/lab/"


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    from xdist.scheduler import LoadScopeScheduling  # pylint: disable=import-outside-toplevel

    class TwinOnOneWorker(LoadScopeScheduling):
        """pytest-xdist's load-by-scope, whose one scope is the twin's tests and every other test its own."""

        def _split_scope(self, nodeid):
            if nodeid.startswith(ON_THE_TWIN_WORKER):
                return "the twin"
            if nodeid.startswith(ON_ONE_WORKER):
                return ON_ONE_WORKER  # one lab, its tests one after another on one worker (beside the twin's)
            return nodeid

    return TwinOnOneWorker(config, log)


_WORKER_STARTED = []


def pytest_runtest_setup(item):
    """A worker whose first test is not the twin's runs at a lower priority: the twin's worker is the suite's critical
    path, and the other fills the cores it leaves idle rather than taking them from its runs (bench/README.md)."""
    if not _WORKER_STARTED and os.environ.get("PYTEST_XDIST_WORKER"):
        _WORKER_STARTED.append(item.nodeid)
        if not item.nodeid.startswith(ON_THE_TWIN_WORKER):
            os.nice(10)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):  # pylint: disable=unused-argument
    """The incast's runs judge counters read within a window (docs/incast.md): they come last, once the other worker's
    unit and property tests (the first minutes) no longer share the cores with them. The healthy pod's run has an
    incast too (tests/e2e/conftest.py): its readers come last as well."""
    items.sort(key=_under_incast)  # a stable sort: the rest keep their order


def _under_incast(item):
    return LAST_OF_THE_TWIN in item.nodeid or HEALTHY_POD in getattr(item, "fixturenames", ())


LAST_OF_THE_TWIN = "tests/e2e/test_validate_incast.py"
HEALTHY_POD = "healthy_pod"


# Every twin run of the session (tests/e2e/conftest.py appends one JSON line per run: seconds, test, what), written by
# whichever worker ran it and summed up by the process that prints the summary, so growth is seen when it happens.
TWIN_RUNS_LOG = "PYRAMID_TWIN_RUNS_LOG"
_OWN_LOG = []


def pytest_configure(config):
    if not hasattr(config, "workerinput") and not os.environ.get(TWIN_RUNS_LOG):
        handle, path = tempfile.mkstemp(prefix="pyramid-twin-runs-", suffix=".jsonl")
        os.close(handle)
        os.environ[TWIN_RUNS_LOG] = path  # before pytest-xdist starts its workers: they inherit it
        _OWN_LOG.append(path)


def pytest_terminal_summary(terminalreporter):
    if not _OWN_LOG:
        return
    with open(_OWN_LOG[0], encoding="utf-8") as handle:
        runs = [json.loads(line) for line in handle if line.strip()]
    os.unlink(_OWN_LOG[0])
    if not runs:
        return
    terminalreporter.section("twin runs (ansible-playbook end to end)")
    terminalreporter.write_line("%d runs, %.0f s in all, slowest first:" % (len(runs), sum(run["seconds"] for run in runs)))
    for run in sorted(runs, key=lambda run: -run["seconds"]):  # every run: where the next saving is, is seen
        terminalreporter.write_line("%7.1f s  %s  (%s)" % (run["seconds"], run["test"], run["what"]))
