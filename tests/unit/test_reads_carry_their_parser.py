"""The plan carries its choice (issue 34): each planned read names the parser of each of its ways, the host is sent the
commands only, and each answer comes back naming the parser of the way that gave it, so parsing chooses nothing again."""

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core.model import SourceFailure
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import ansible_collect as _collector, engine as _engine

CATALOG = _catalog.load_catalog()
EXPECT = {"pyramid_rdma_modules": ["mlx5_core"]}
MODULES = "mlx5_core 2412544 1 mlx5_ib, Live 0x0000000000000000\n"


class _Connection:
    transport = "ssh"


class _Action:
    """What ansible_collect.collect asks of an action plugin: its connection's kind and a module run on the host."""

    def __init__(self, answer):
        self._connection, self.sent, self._answer = _Connection(), [], answer

    def _execute_module(self, module_name, module_args, task_vars):  # pylint: disable=unused-argument
        self.sent.append(module_args)
        return {"sources": {read["id"]: self._answer(read) for read in module_args["sources"]}}


def test_each_planned_way_names_its_parser_and_the_host_is_sent_the_commands_only():
    (read,) = _engine.reads(["kernel_modules"], CATALOG, EXPECT)
    assert [way["parser"] for way in read["ways"]] == [way["parser"] for way in CATALOG["sources"]["kernel_modules"]["ways"]]
    action = _Action(lambda read: {"status": "ok", "command": "lsmod", "way": 0, "rc": 0, "stdout": "", "stderr": ""})
    _collector.collect(action, [read], 10, {})
    (sent,) = action.sent[0]["sources"]
    assert all(not set(_engine.CHOICE) & set(way) for way in sent["ways"]), sent


def test_the_answer_of_a_later_way_names_that_ways_parser_and_is_parsed_by_it():
    (read,) = _engine.reads(["kernel_modules"], CATALOG, EXPECT)
    assert len({way["parser"] for way in read["ways"]}) > 1, "kernel_modules reads lsmod, then /proc/modules"
    action = _Action(lambda read: {"status": "ok", "command": "cat /proc/modules", "way": 1, "rc": 0, "stdout": MODULES,
                                   "stderr": "", "attempts": ["lsmod: command not found", "cat /proc/modules: ok"]})
    collected, unreachable = _collector.collect(action, [read], 10, {})
    assert unreachable is None
    answer = collected["kernel_modules"]
    assert answer["parser"] == read["ways"][1]["parser"]
    facts = _engine.parse_one(answer)
    assert not isinstance(facts, SourceFailure), facts.reason


def test_one_command_read_by_two_parsers_runs_once_and_each_answer_names_its_own_parser():
    catalog = {"sources": {"first": {"ways": [{"run": ["tool", "-q"], "parser": "linux_proc_modules"}]},
                           "second": {"ways": [{"run": ["tool", "-q"], "parser": "linux_lsmod"}]}}}
    planned = _engine.reads(["first", "second"], catalog, {})
    action = _Action(lambda read: {"status": "ok", "command": "tool -q", "way": 0, "rc": 0, "stdout": MODULES, "stderr": ""})
    collected, _unreachable = _collector.collect(action, planned, 10, {})
    assert len(action.sent[0]["sources"]) == 1
    assert {name: answer["parser"] for name, answer in collected.items()} == {"first": "linux_proc_modules", "second": "linux_lsmod"}


def test_an_answer_naming_no_parser_is_no_data_never_facts():
    facts = _engine.parse_one({"status": "ok", "command": "lsmod", "stdout": MODULES})
    assert isinstance(facts, SourceFailure) and facts.reason == "lsmod: no parser chosen for its output"


def test_a_module_run_that_failed_still_names_each_reads_parser():
    (read,) = _engine.reads(["kernel_modules"], CATALOG, EXPECT)

    class _Failing(_Action):
        def _execute_module(self, module_name, module_args, task_vars):
            return {"failed": True, "msg": "MODULE FAILURE"}
    collected, _unreachable = _collector.collect(_Failing(None), [read], 10, {})
    failure = _engine.parse_one(collected["kernel_modules"])
    assert isinstance(failure, SourceFailure) and "MODULE FAILURE" in failure.reason
    assert collected["kernel_modules"]["parser"] == read["ways"][0]["parser"]


def test_an_answer_from_a_way_nobody_planned_names_no_parser():
    (read,) = _engine.reads(["kernel_modules"], CATALOG, EXPECT)
    for way in (len(read["ways"]), -1, "1"):
        answer = _engine.answered(read, {"status": "ok", "command": "lsmod", "way": way, "stdout": MODULES})
        assert "parser" not in answer and isinstance(_engine.parse_one(answer), SourceFailure)
