"""run/background.py: the start and stop that every phased run (the rail mesh, the incast) shares, with a fake step
in place of Ansible (what rail_servers answers is its documented RETURN; tests/unit/test_rail_servers_stop.py runs
the real module)."""

from ansible.module_utils.common.arg_spec import ArgumentSpecValidator

from ansible_collections.gpufabric.pyramid.plugins.modules import rail_servers as _rail_servers
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import background as _background

READS = [{"id": "a>b@0", "ways": [{"run": ["ib_write_bw", "-d", "mlx5_0"], "parser": "perftest_ib_write_bw"}]},
         {"id": "a>b@1", "ways": [{"run": ["ib_write_bw", "-d", "mlx5_1"], "parser": "perftest_ib_write_bw"}]}]


class _Step:
    def __init__(self, *answers):
        self.calls, self._answers = [], list(answers)

    def execute(self, module, args):
        """rail_servers' answer; its arguments held to the module's own argument spec first, as Ansible would."""
        errors = ArgumentSpecValidator(_rail_servers.ARGUMENT_SPEC).validate(args).error_messages
        assert module == _background.SERVERS and not errors, errors
        self.calls.append((module, args))
        return self._answers.pop(0)


def _background_of(tmp_path, step):
    return _background.Background(step, _background.RunFiles(str(tmp_path / "incast")), "incast", str(tmp_path))


def test_a_start_the_module_lost_is_a_failure_for_each_run_kept_with_its_parser(tmp_path):
    step = _Step({"failed": True, "msg": "rail_servers: no timeout binary"})
    states, not_running = _background_of(tmp_path, step).start("node-001", 0, "servers", READS, 60, 15)
    assert not_running == ["a>b@0", "a>b@1"]
    assert states["a>b@1"] == {"status": "failed", "command": "ib_write_bw -d mlx5_1", "msg": "rail_servers: no timeout binary",
                               "parser": "perftest_ib_write_bw"}
    assert _background.RunFiles(str(tmp_path / "incast")).load(0, "node-001", "servers_start") == states
    (module, args), = step.calls
    assert module == _background.SERVERS and args["servers"][0] == {"id": "a>b@0", "argv": ["ib_write_bw", "-d", "mlx5_0"]}


def test_both_sides_stop_in_one_module_run_clients_first_and_each_keeps_what_it_said(tmp_path):
    listening = {"status": "listening", "command": "ib_write_bw"}
    step = _Step({"servers": {"a>b@0": listening}}, {"servers": {"a>b@1": listening}},
                 {"servers": {"a>b@1": {"status": "ok", "stdout": "done"}}, "and_then": [{}]})
    background = _background_of(tmp_path, step)
    background.start("node-001", 0, "servers", READS[:1], 60, 15)
    background.start("node-001", 0, "clients", READS[1:], 60, 15, wait_for="running")
    ended, _answer = background.stop("node-001", 0, {"clients": 40, "servers": 5})
    module, args = step.calls[-1]
    assert len(step.calls) == 3 and args["state"] == "stopped" and args["grace"] == 40 and args["and_then"][0]["grace"] == 5
    assert args["workdir"] == background.workdir("node-001", 0, "clients") != args["and_then"][0]["workdir"]
    assert list(ended) == ["clients", "servers"]
    clients = _background.client_reads(*ended["clients"][:2], "lost", 30, 40)
    assert clients["a>b@1"] == {"status": "ok", "stdout": "done", "parser": "perftest_ib_write_bw"}
    servers = _background.server_reads(*ended["servers"][:2], "server output lost")
    assert servers["a>b@0"]["status"] == "failed" and servers["a>b@0"]["msg"] == "server output lost"
    assert servers["a>b@0"]["parser"] == "perftest_ib_write_bw"


def test_a_stop_that_starts_the_next_rounds_servers_gives_them_as_rail_servers_takes_them(tmp_path):
    step = _Step({"servers": {"a>b@0": {"status": "listening", "command": "ib_write_bw"}}},
                 {"servers": {}, "and_then": [], "then_started": {"a>b@1": {"status": "listening"}}})
    background = _background_of(tmp_path, step)
    background.start("node-001", 0, "servers", READS[:1], 60, 15)
    then_start = background.start_arguments("node-001", 1, "servers", READS[1:], 60, 15)
    ended, answer = background.stop("node-001", 0, {"clients": 40, "servers": 5}, then_start=then_start)
    assert list(ended) == ["servers"] and answer["then_started"] == {"a>b@1": {"status": "listening"}}
    assert step.calls[-1][1]["then_start"]["workdir"] == background.workdir("node-001", 1, "servers")


def test_a_device_that_started_nothing_is_not_asked_to_stop(tmp_path):
    step = _Step()
    assert _background_of(tmp_path, step).stop("node-002", 0, {"clients": 40, "servers": 5}) == ({}, None)
    assert step.calls == []


def test_work_directories_differ_by_run_round_side_and_device(tmp_path):
    first, other_run = _background_of(tmp_path, None), _background_of(tmp_path / "x", None)
    names = {first.workdir("node-001", 0, "servers"), first.workdir("node-001", 1, "servers"), first.workdir("node-001", 0, "clients"),
             first.workdir("node-002", 0, "servers"), other_run.workdir("node-001", 0, "servers"), first.workdir("a/b", 0, "servers")}
    assert len(names) == 6 and all(name.startswith("/tmp/pyramid-incast-") and "/" not in name[len("/tmp/"):] for name in names)


def test_a_run_its_start_did_not_see_running_stays_what_its_start_said_whatever_its_end():
    # the incast's senders: their output is never parsed, so a sender that ended at once is the load not run as planned
    started = {"a>b@0": {"status": "failed", "command": "ib_write_bw", "msg": "ended before listening", "parser": "perftest_ib_write_bw"}}
    read = _background.server_reads(started, {"a>b@0": {"status": "ok", "stdout": ""}}, "output lost")["a>b@0"]
    assert read == started["a>b@0"] and read is not started["a>b@0"]
