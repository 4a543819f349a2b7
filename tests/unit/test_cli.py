"""network_cli collection: an answer cut at a line that looks like a prompt is read to its end, asked
again and never parsed; a CLI that stops answering fails that command and the rest as timeouts."""

import pytest

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.collect import cli as _cli
from ansible.module_utils.connection import ConnectionError as NetworkConnectionError

PROMPT = "\nleaf1-r1#"
CUT = "\nQoS-Group#"


class FakeConnection:
    """Plays network_cli's side: each get() or receive() answers from a script of (text, prompt seen)."""

    def __init__(self, script):
        self.script = list(script)
        self.calls = []
        self.prompt = None
        self.closed = False

    def _next(self, call):
        self.calls.append(call)
        step = self.script.pop(0)
        if isinstance(step, Exception):
            raise step
        text, self.prompt = step
        return text

    def get(self, command):
        return self._next(("get", command))

    def receive(self):
        return self._next(("receive",))

    def get_prompt(self):
        return self.prompt

    def close(self):
        self.closed = True


def _sources(*commands):
    return [{"id": "s%d" % index, "ways": [{"cli": command}]} for index, command in enumerate(commands)]


@pytest.fixture
def connect(monkeypatch):
    def install(script):
        fake = FakeConnection(script)
        monkeypatch.setattr(_cli, "Connection", lambda socket_path: fake)
        return fake
    return install


def test_whole_answers_are_collected_after_the_prompt_is_learned(connect):
    fake = connect([("", PROMPT), ("table a", PROMPT), ("table b", PROMPT)])
    raw, unreachable = _cli.collect("/sock", _sources("show a", "show b"))
    assert unreachable is None
    assert [raw["s0"]["stdout"], raw["s1"]["stdout"]] == ["table a", "table b"]
    assert fake.calls[0] == ("get", "")  # the empty line that shows the switch's own prompt


def test_a_cut_answer_is_drained_and_asked_again(connect):
    fake = connect([("", PROMPT), ("Egress Queuing for Ethernet1/1", CUT), (" Bandwidth% ...", PROMPT),
                    ("Egress Queuing for Ethernet1/1\nQoS-Group# Bandwidth% ...", PROMPT)])
    raw, _unreachable = _cli.collect("/sock", _sources("show queuing interface Ethernet1/1"))
    assert raw["s0"]["status"] == "ok" and "Bandwidth%" in raw["s0"]["stdout"]
    assert fake.calls[1:] == [("get", "show queuing interface Ethernet1/1"), ("receive",),
                              ("get", "show queuing interface Ethernet1/1")]
    assert not fake.closed


def test_an_answer_cut_every_time_is_a_failure_naming_the_false_prompt(connect):
    fake = connect([("", PROMPT)] + [("part", CUT), ("rest", PROMPT)] * _cli.CUT_TRIES + [("table b", PROMPT)])
    raw, _unreachable = _cli.collect("/sock", _sources("show queuing interface Ethernet1/1", "show b"))
    assert raw["s0"]["status"] == "failed" and raw["s0"]["stdout"] == ""
    assert "QoS-Group#" in raw["s0"]["attempts"][0] and "ansible_buffer_read_timeout" in raw["s0"]["attempts"][0]
    assert raw["s1"]["status"] == "ok"  # the session was drained: the next command is answered whole
    assert not fake.script


def test_a_rest_that_never_reaches_the_prompt_closes_the_session(connect):
    fake = connect([("", PROMPT), ("part", CUT)] + [("more", CUT)] * _cli.DRAINS)
    raw, unreachable = _cli.collect("/sock", _sources("show queuing interface Ethernet1/1", "show b"))
    assert unreachable is None and fake.closed
    assert raw["s0"]["status"] == "failed" and "never ended at the prompt" in raw["s0"]["attempts"][0]
    assert raw["s1"]["status"] == "failed" and "not run" in raw["s1"]["attempts"][0]


def test_a_command_timeout_fails_the_rest_and_closes_the_session(connect):
    timeout = NetworkConnectionError("command timeout triggered, timeout value is 15 secs.")
    fake = connect([("", PROMPT), ("table a", PROMPT), timeout])
    raw, _unreachable = _cli.collect("/sock", _sources("show a", "show b", "show c"))
    assert raw["s0"]["status"] == "ok"
    assert raw["s1"]["status"] == raw["s2"]["status"] == "timeout"
    assert "not run: the CLI stopped answering at `show b`" in raw["s2"]["attempts"][0]
    assert fake.closed


def test_a_session_that_cannot_open_makes_the_switch_unreachable(connect):
    connect([NetworkConnectionError("ssh connect failed: Access denied. Authentication that can continue: publickey")])
    raw, unreachable = _cli.collect("/sock", _sources("show a"))
    assert raw is None and "Authentication" in unreachable and "network_cli" in unreachable


def test_a_command_error_fails_that_command_only(connect):
    connect([("", PROMPT), NetworkConnectionError("% Invalid range at '^' marker."), ("table b", PROMPT)])
    raw, _unreachable = _cli.collect("/sock", _sources("show queuing interface Ethernet9/9", "show b"))
    assert raw["s0"]["status"] == "failed" and "Invalid range" in raw["s0"]["attempts"][0]
    assert raw["s1"]["status"] == "ok"


# release: ansible-core reuses a persistent connection whose socket file exists; one still shutting down
# fails the next task before it starts, so each task closes its own and waits until the socket is gone.

class ClosingProcess:
    """ansible-connection's side of close(): its socket goes after a moment, or never (a hung process)."""

    def __init__(self, socket_path, goes=True, refuses=False):
        self.socket_path, self.goes, self.refuses = socket_path, goes, refuses
        self.closes = 0

    def __call__(self, socket_path):
        assert socket_path == str(self.socket_path)
        return self

    def close(self):
        self.closes += 1
        if self.goes:
            self.socket_path.unlink()
        if self.refuses:
            raise NetworkConnectionError("Unable to connect to socket '%s'" % self.socket_path)


def test_release_closes_the_connection_and_returns_once_its_socket_is_gone(monkeypatch, tmp_path):
    sock = tmp_path / "pc" / "420ecd8afc"
    sock.parent.mkdir()
    sock.write_text("")
    process = ClosingProcess(sock)
    monkeypatch.setattr(_cli, "Connection", process)
    assert _cli.release(str(sock)) is True
    assert process.closes == 1 and not sock.exists()


def test_release_of_a_connection_already_gone_does_nothing(monkeypatch, tmp_path):
    process = ClosingProcess(tmp_path / "gone")
    monkeypatch.setattr(_cli, "Connection", process)
    assert _cli.release(str(tmp_path / "gone")) is True and _cli.release(None) is True
    assert process.closes == 0


def test_release_gives_up_on_a_socket_that_stays(monkeypatch, tmp_path):
    sock = tmp_path / "stuck"
    sock.write_text("")
    process = ClosingProcess(sock, goes=False, refuses=True)  # refused: the close error is not raised
    monkeypatch.setattr(_cli, "Connection", process)
    assert _cli.release(str(sock), seconds=0.2) is False
    assert process.closes == 1 and sock.exists()


@pytest.mark.parametrize("item", ["Ethernet1/1\nreload", "Ethernet1/1\r", "Ethernet1/1\x03", "Ethernet1/1\u2028reload"])
def test_a_command_with_a_line_break_is_never_sent(connect, item):
    fake = connect([("", PROMPT), ("table b", PROMPT)])
    raw, unreachable = _cli.collect("/sock", _sources("show interface %s transceiver details" % item, "show b"))
    assert unreachable is None
    assert raw["s0"]["status"] == "failed" and "\n" not in raw["s0"]["command"]
    assert "refused to send" in raw["s0"]["attempts"][0] and "Ethernet1/1" in raw["s0"]["attempts"][0]
    assert fake.calls == [("get", ""), ("get", "show b")]  # only the empty line and the clean command went out
    assert raw["s1"]["stdout"] == "table b"
