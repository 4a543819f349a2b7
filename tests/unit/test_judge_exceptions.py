"""A judge that raises is an ERROR for its check naming the exception, for every host it judged:
never a traceback that loses the layer's results, never a PASS (run/engine.run_judge)."""

import pytest

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils import judging
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog, expectations as _expectations
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import engine as _engine

CATALOG = _catalog.load_catalog()
EXPECT = _expectations.resolve(CATALOG, {})[0]
HOST_CHECK = next(c for c in CATALOG["checks"] if c["scope"] == "host" and c["device"] == "gpu_node")
POD_CHECK = next(c for c in CATALOG["checks"] if c["scope"] == "pod")


def _raising(exc):
    def judge(*_args):
        raise exc
    return judge


@pytest.mark.parametrize("exc", [ZeroDivisionError("float division by zero"), AttributeError("'NoneType' object has no attribute 'x'"),
                                 IndexError("list index out of range"), OverflowError("cannot convert float infinity to integer")])
def test_a_host_judge_that_raises_is_an_error_naming_the_exception(monkeypatch, exc):
    monkeypatch.setitem(judging.JUDGES["host"], HOST_CHECK["judge"], _raising(exc))
    facts = {name: {} for name in HOST_CHECK["sources"]}
    record = _engine.judge_host("node-001", HOST_CHECK, CATALOG, facts, EXPECT)
    assert record["status"] == "ERROR"
    assert record["actual"] == "facts incomplete for %s: %s: %s" % (HOST_CHECK["judge"], type(exc).__name__, exc)
    assert "node-001" in record["cause"]


def test_a_pod_judge_that_raises_is_an_error_for_every_host_it_judged(monkeypatch):
    monkeypatch.setitem(judging.JUDGES["pod"], POD_CHECK["judge"], _raising(ZeroDivisionError("division by zero")))
    facts = {name: {} for name in POD_CHECK["sources"]}
    results = _engine.judge_pod(POD_CHECK, CATALOG, {"a": facts, "b": facts}, {"a": EXPECT, "b": EXPECT})
    assert sorted(results) == ["a", "b"] and {r["status"] for r in results.values()} == {"ERROR"}
    assert all("ZeroDivisionError" in r["actual"] for r in results.values())


def test_a_fabric_judge_that_raises_gives_an_outcome_the_hunt_can_record():
    outcome = _engine.run_judge({"id": "nccl_pairs", "judge": "nccl_group"}, _raising(KeyError("rows")), None)
    assert outcome == {"status": "ERROR", "expected": "parseable output from every source of nccl_pairs", "cause_key": None,
                       "actual": "facts incomplete for nccl_group: KeyError: 'rows'"}


def test_a_judge_that_answers_is_left_alone():
    assert _engine.run_judge(HOST_CHECK, lambda *a: {"status": "PASS"}, None) == {"status": "PASS"}
