"""rail_servers' `stopped`, as Layer 4's and the incast's rounds end on a host: a process that ended keeps its output and
exit code, one still running after the grace is killed and said so, the work directory is removed. Real processes
under a temporary directory, the module run as Ansible runs it (a Python process reading its arguments from a file)."""

import json
import os
import subprocess
import sys

import pytest

MODULE = os.path.join(os.path.dirname(__file__), "..", "..", "plugins", "modules", "rail_servers.py")
BANNER = "echo 'Waiting for client to connect'; "


def _module(tmp_path, **args):
    path = tmp_path / ("args-%s.json" % args["state"])
    path.write_text(json.dumps({"ANSIBLE_MODULE_ARGS": args}))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    done = subprocess.run([sys.executable, MODULE, str(path)], capture_output=True, text=True, env=env, timeout=60, check=False)
    return json.loads(done.stdout)


def _started(tmp_path, workdir, processes, wait_for="banner"):
    answer = _module(tmp_path, state="started", workdir=str(workdir), wait_for=wait_for, lifetime=60, listen_timeout=10,
                     servers=[{"id": pid, "argv": argv} for pid, argv in processes.items()])
    assert not answer.get("failed"), answer
    return answer["servers"]


def test_servers_that_ended_keep_their_output_and_one_still_waiting_is_killed(tmp_path):
    servers = tmp_path / "servers"
    started = _started(tmp_path, servers, {"a>b@0": ["sh", "-c", BANNER + "sleep 1; echo served"],
                                           "a>b@1": ["sh", "-c", BANNER + "sleep 60"]})
    assert {sid: state["status"] for sid, state in started.items()} == {"a>b@0": "listening", "a>b@1": "listening"}
    stopped = _module(tmp_path, state="stopped", workdir=str(servers), grace=3)["servers"]
    assert stopped["a>b@0"]["status"] == "ok" and "served" in stopped["a>b@0"]["stdout"]
    assert stopped["a>b@1"]["status"] == "killed" and "still running 3.0s" in stopped["a>b@1"]["msg"]
    assert not servers.exists()


def test_background_clients_keep_their_exit_code_and_words(tmp_path):
    clients = tmp_path / "clients"
    _started(tmp_path, clients, {"b>a@0": ["sh", "-c", "sleep 0.5; echo 'BW 390.1'"],
                                 "b>a@1": ["sh", "-c", "sleep 0.5; echo 'no route' >&2; exit 3"]}, wait_for="running")
    ended = _module(tmp_path, state="stopped", workdir=str(clients), grace=20)["servers"]
    assert ended["b>a@0"]["status"] == "ok" and ended["b>a@0"]["stdout"].strip() == "BW 390.1"
    assert ended["b>a@1"]["status"] == "failed" and ended["b>a@1"]["rc"] == 3 and "no route" in ended["b>a@1"]["msg"]


def test_clients_then_their_servers_stop_in_one_run_each_with_its_grace(tmp_path):
    # a round's end on a host (Layer 4's and the incast's stop): its background clients are waited for first, then the
    # servers they ran against, in one module run; each directory keeps its own grace and its own answer
    clients, servers = tmp_path / "clients", tmp_path / "servers"
    _started(tmp_path, servers, {"a>b@0": ["sh", "-c", BANNER + "sleep 60"]})
    _started(tmp_path, clients, {"b>a@0": ["sh", "-c", "sleep 0.5; echo 'BW 390.1'"]}, wait_for="running")
    answer = _module(tmp_path, state="stopped", workdir=str(clients), grace=20,
                     and_then=[{"workdir": str(servers), "grace": 0.5}, {"workdir": str(tmp_path / "never-made")}])
    assert answer["servers"]["b>a@0"]["status"] == "ok" and answer["servers"]["b>a@0"]["stdout"].strip() == "BW 390.1"
    ended = answer["and_then"]
    assert len(ended) == 2 and ended[1] == {}
    assert ended[0]["a>b@0"]["status"] == "killed" and "still running 0.5s" in ended[0]["a>b@0"]["msg"]
    assert not clients.exists() and not servers.exists()


def test_a_round_ends_and_the_next_rounds_servers_start_in_one_run(tmp_path):
    # Layer 4's stop with next_round: the round's clients and servers stop, then the next round's servers start on the
    # same port the last round's server held (it is gone by then), each seen listening; one that cannot start says why
    clients, servers, following = tmp_path / "clients", tmp_path / "servers", tmp_path / "round2"
    _started(tmp_path, servers, {"a>b@0": ["sh", "-c", BANNER + "sleep 60"]})
    _started(tmp_path, clients, {"b>a@0": ["sh", "-c", "sleep 0.5; echo 'BW 390.1'"]}, wait_for="running")
    answer = _module(tmp_path, state="stopped", workdir=str(clients), grace=20, and_then=[{"workdir": str(servers), "grace": 0.5}],
                     then_start={"workdir": str(following), "lifetime": 60, "listen_timeout": 10, "servers": [
                         {"id": "a>c@0", "argv": ["sh", "-c", BANNER + "sleep 60"]},
                         {"id": "a>c@1", "argv": ["sh", "-c", "echo 'Couldn't listen to port 18516' >&2; exit 1"]}]})
    assert answer["servers"]["b>a@0"]["status"] == "ok"
    assert answer["and_then"][0]["a>b@0"]["status"] == "killed" and not servers.exists()
    started = answer["then_started"]
    assert started["a>c@0"] == {"status": "listening", "command": "sh -c " + BANNER + "sleep 60"}
    assert started["a>c@1"]["status"] == "failed" and "ended before listening" in started["a>c@1"]["msg"]
    stopped = _module(tmp_path, state="stopped", workdir=str(following), grace=0.5)["servers"]
    assert stopped["a>c@0"]["status"] == "killed" and not following.exists()


def test_a_bad_next_server_is_refused_before_anything_stops(tmp_path):
    servers = tmp_path / "servers"
    _started(tmp_path, servers, {"a>b@0": ["sh", "-c", BANNER + "sleep 60"]})
    answer = _module(tmp_path, state="stopped", workdir=str(servers), grace=0.5,
                     then_start={"workdir": str(tmp_path / "round2"), "servers": [{"id": "a b", "argv": ["true"]}]})
    assert answer["failed"] and "then_start: server id 'a b'" in answer["msg"]
    assert servers.exists()  # nothing stopped: the round's servers are still there for a stop that works
    assert _module(tmp_path, state="stopped", workdir=str(servers), grace=0.5)["servers"]["a>b@0"]["status"] == "killed"


def test_a_host_that_started_nothing_stops_nothing(tmp_path):
    assert _module(tmp_path, state="stopped", workdir=str(tmp_path / "never-made"))["servers"] == {}


def test_a_zombie_is_not_alive():
    # an ended server nobody reaped (its adopter is a container's PID 1 that reaps nothing) is dead: killing its group
    # must not wait out two seconds per signal for it (it did, per server, on the twin: 21 s to end one round)
    import time  # pylint: disable=import-outside-toplevel

    from ansible_collections.gpufabric.pyramid.plugins.modules import rail_servers  # pylint: disable=import-outside-toplevel

    alive = rail_servers._alive  # pylint: disable=protected-access
    child = subprocess.Popen(["true"])  # pylint: disable=consider-using-with  # reaped at the end, on purpose
    try:
        for _attempt in range(3000):  # until it has exited (at most 30 s: a bound on the work, not a timing)
            with open("/proc/%d/stat" % child.pid, "rb") as handle:
                if handle.read().rsplit(b")", 1)[1].split()[0] == b"Z":
                    break
            time.sleep(0.01)
        assert not alive(child.pid)  # a zombie: ended, not reaped yet
        assert os.path.exists("/proc/%d" % child.pid)
    finally:
        child.wait()
    assert not alive(child.pid) and alive(os.getpid())


def test_a_run_after_another_starts_only_when_that_one_ended(tmp_path):
    # Layer 4's GPUDirect client of a rail runs right after the host-memory client of that rail, never beside it: the
    # second writes when it started, the first when it ended; a failed first run does not hold the second back
    clients, marks = tmp_path / "clients", tmp_path / "marks"
    marks.mkdir()
    first = ["sh", "-c", "sleep 1; date +%%s.%%N > %s/first_ended; echo 'BW 390.1'" % marks]
    failing = ["sh", "-c", "sleep 0.5; exit 3"]
    second = ["sh", "-c", "date +%%s.%%N > %s/second_started; echo 'BW 388.0'" % marks]
    answer = _module(tmp_path, state="started", workdir=str(clients), wait_for="running", lifetime=60, listen_timeout=10, servers=[
        {"id": "b>a@0", "argv": first}, {"id": "b>a@1", "argv": failing},
        {"id": "b>a@0.gdr", "argv": second, "after": "b>a@0"}, {"id": "b>a@1.gdr", "argv": ["echo", "ran"], "after": "b>a@1"}])
    assert {sid: state["status"] for sid, state in answer["servers"].items()} == dict.fromkeys(
        ("b>a@0", "b>a@1", "b>a@0.gdr", "b>a@1.gdr"), "listening")
    assert answer["servers"]["b>a@0.gdr"]["command"] == " ".join(second)  # its own command, not the wait before it
    ended = _module(tmp_path, state="stopped", workdir=str(clients), grace=20)["servers"]
    assert [ended[sid]["status"] for sid in ("b>a@0", "b>a@0.gdr", "b>a@1", "b>a@1.gdr")] == ["ok", "ok", "failed", "ok"]
    assert ended["b>a@0.gdr"]["stdout"].strip() == "BW 388.0" and ended["b>a@1.gdr"]["stdout"].strip() == "ran"
    assert float((marks / "second_started").read_text()) >= float((marks / "first_ended").read_text())


def test_a_run_waiting_for_one_that_hangs_is_killed_with_it(tmp_path):
    clients = tmp_path / "clients"
    _module(tmp_path, state="started", workdir=str(clients), wait_for="running", lifetime=60, listen_timeout=10, servers=[
        {"id": "b>a@0", "argv": ["sleep", "60"]}, {"id": "b>a@0.gdr", "argv": ["echo", "ran"], "after": "b>a@0"}])
    ended = _module(tmp_path, state="stopped", workdir=str(clients), grace=1)["servers"]
    assert ended["b>a@0"]["status"] == ended["b>a@0.gdr"]["status"] == "killed" and "ran" not in ended["b>a@0.gdr"]["stdout"]
    assert not clients.exists()


@pytest.mark.parametrize("servers, wait_for, words", [
    ([{"id": "a", "argv": ["true"], "after": "b"}, {"id": "b", "argv": ["true"]}], "running", "'b' is not an entry listed before it"),
    ([{"id": "a", "argv": ["true"], "after": "a"}], "running", "'a' is not an entry listed before it"),
    ([{"id": "a", "argv": ["true"]}, {"id": "b", "argv": ["true"], "after": "a"}], "banner", "after needs wait_for=running"),
])
def test_an_after_that_cannot_be_kept_is_refused_before_anything_starts(tmp_path, servers, wait_for, words):
    workdir = tmp_path / "clients"
    answer = _module(tmp_path, state="started", workdir=str(workdir), wait_for=wait_for, servers=servers)
    assert answer.get("failed") and words in answer["msg"] and not workdir.exists()
