"""The engine's steps hand the FAIL and ERROR records they wrote to the terminal (issue 39): core/results.record keeps
them in the worker's process, core/action.EngineAction's wrapped run hands them on once, from the outermost run of a
task, as ``pyramid_findings`` (printed by the progress callback: tests/unit/test_progress_callback.py)."""

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import action as _action, results as _results


def _record(check, status, host="node-001"):
    return {"host": host, "layer": 0, "check": check, "status": status, "actual": "found", "cause": "why", "title": "t"}


class _Base(_action.EngineAction):
    # pylint: disable=super-init-not-called,arguments-differ,unused-argument
    def __init__(self):
        pass

    def run(self, tmp=None, task_vars=None):
        doc = {"host": "node-001", "results": []}
        _results.record(doc, [_record("iommu", "PASS"), _record("gpudirect", "FAIL"), _record("mlxconfig", "ERROR"),
                              _record("ib_links", "SKIP"), _record("rdma_write_bw", "BLOCKED")])
        return {"changed": False}


class _Phased(_Base):
    def run(self, tmp=None, task_vars=None):  # a kind's run calling its base's, as PhasedRunAction's subclasses may
        inner = super().run(tmp, task_vars)
        assert "pyramid_findings" not in inner  # the inner call hands nothing on: the task's result does
        return dict(inner, msg="phase done")


def test_a_step_hands_on_its_fail_and_error_records_once():
    _results.take_findings()
    result = _Base().run()
    assert [(f["check"], f["status"]) for f in result["pyramid_findings"]] == [("gpudirect", "FAIL"), ("mlxconfig", "ERROR")]
    assert result["pyramid_findings"][0] == {"host": "node-001", "layer": 0, "check": "gpudirect", "status": "FAIL",
                                             "actual": "found", "cause": "why"}
    assert "pyramid_findings" not in _Base.run.__wrapped__(_Base())  # recorded, not handed on by the bare run ...
    assert len(_results.take_findings()) == 2  # ... so still kept until taken


def test_only_the_outermost_run_of_a_task_hands_them_on():
    _results.take_findings()
    result = _Phased().run()
    assert result["msg"] == "phase done" and len(result["pyramid_findings"]) == 2
    assert _results.take_findings() == []


def test_a_step_that_found_nothing_adds_nothing():
    class _Clean(_Base):
        def run(self, tmp=None, task_vars=None):
            _results.record({"host": "node-001", "results": []}, [_record("iommu", "PASS")])
            return {"changed": False}
    _results.take_findings()
    assert _Clean().run() == {"changed": False}
