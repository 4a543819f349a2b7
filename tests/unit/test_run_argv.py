"""module_utils/run_argv.py: a command's output is read to its end, whatever the host's load."""

import time

from ansible_collections.gpufabric.pyramid.plugins.module_utils.run_argv import run_argv


def test_a_tool_silent_for_seconds_then_printing_and_exiting_keeps_its_output():
    # ib_write_bw -D prints its table after the run and exits at once: run_command's loop could drop it
    rc, out, err, cut = run_argv(["sh", "-c", "sleep 1.2; printf 'BW average 391.5\\n'; printf 'warn\\n' >&2"], {"LC_ALL": "C"}, 10)
    assert (rc, out, err, cut) == (0, b"BW average 391.5\n", b"warn\n", False)


def test_the_environment_is_the_hosts_plus_the_update():
    rc, out, _err, _cut = run_argv(["sh", "-c", "printf '%s %s' \"$LC_ALL\" \"$PYRAMID_X\""], {"LC_ALL": "C", "PYRAMID_X": "1"}, 10)
    assert rc == 0 and out == b"C 1"


def test_a_descendant_holding_the_pipes_is_cut_by_the_guard_and_said():
    started = time.time()
    rc, out, _err, cut = run_argv(["sh", "-c", "echo started; sleep 30 & exit 0"], None, 0, guard_seconds=1)
    assert cut and rc == 124 and out.startswith(b"started") and time.time() - started < 10
