"""A failed run is reported by its exit code and the first line that says why (module_utils/failure_line.py, used by the collect module and the engine),
not by the launcher's teardown lines that follow it."""

import shutil

from ansible_collections.gpufabric.pyramid.plugins.module_utils import failure_line as _collect

# torchrun with 2 ranks on a 1-GPU host (the issue's real H100 case), shortened: the cause is rank 1's
# first error line; the last lines are torchrun's summary.
TORCHRUN_STDERR = """W1123 10:01:02.123000 4242 torch/distributed/run.py:793] Setting OMP_NUM_THREADS environment variable for each process to be 1
[rank1]: Traceback (most recent call last):
[rank1]:   File "/tmp/allreduce_bench.py", line 45, in main
[rank1]:     torch.cuda.set_device(local)
[rank1]: torch.AcceleratorError: CUDA error: invalid device ordinal
[rank1]: CUDA kernel errors might be asynchronously reported at some other API call
E1123 10:01:05.456000 4242 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) local_rank: 1 (pid: 4244)
torch.distributed.elastic.multiprocessing.errors.ChildFailedError:
============================================================
/tmp/allreduce_bench.py FAILED
------------------------------------------------------------
"""


def test_the_first_error_line_is_the_one_reported():
    assert _collect.why_failed(TORCHRUN_STDERR, "") == "[rank1]: torch.AcceleratorError: CUDA error: invalid device ordinal"


def test_stderr_is_read_before_stdout():
    assert _collect.why_failed("mlxconfig: Failed to open device", "Error: later on stdout") == "mlxconfig: Failed to open device"
    assert _collect.why_failed("", "header\nibstat: Error: no devices\nfooter") == "ibstat: Error: no devices"


def test_without_an_error_looking_line_the_last_line_is_reported():
    assert _collect.why_failed("first\nsecond\n", "out") == "second"
    assert _collect.why_failed("", "only stdout\n") == "only stdout"
    assert _collect.why_failed("", "") == ""


# Open MPI's help text when a node lacks the program (its wording, mpirun 4.1): the cause first, where at the end.
MPIRUN_NOT_FOUND = """--------------------------------------------------------------------------
mpirun was unable to find the specified executable file, and therefore
did not launch the job.  This error was first reported for process
rank 8; it may have occurred for other processes as well.

NOTE: A common cause for this error is misspelling a mpirun command
      line parameter option (remember that mpirun interprets the first
      unrecognized command line token as the executable).

Node:       node-008
Executable: all_reduce_perf
--------------------------------------------------------------------------
"""


def test_where_a_launcher_says_it_failed_is_kept():
    assert _collect.why_failed(MPIRUN_NOT_FOUND, "") == (
        "mpirun was unable to find the specified executable file, and therefore (Node: node-008; Executable: all_reduce_perf)")


def _collect_module():
    from ansible_collections.gpufabric.pyramid.plugins.modules import collect  # pylint: disable=import-outside-toplevel
    return collect


class _Module:
    """What _run uses of AnsibleModule: the tool's path (the command itself runs for real)."""

    def get_bin_path(self, name):
        return shutil.which(name) if name != "timeout" else None


def test_bytes_that_are_not_text_are_replaced_and_the_command_named():
    # ibstat's CA type read from a sysfs file holding a stray 0xff byte (issue "Hostile inputs")
    script = "printf 'CA %s\\n\\tCA type: MT4129\\377\\n' \"'mlx5_0'\""
    result = _collect_module()._run(_Module(), ["sh", "-c", script], 60)
    assert result["status"] == "ok" and result["stdout"] == "CA 'mlx5_0'\n\tCA type: MT4129\ufffd\n"
    assert result["non_text"].endswith("printed 1 byte that is not UTF-8 text on stdout (first at byte 28, shown as U+FFFD)")
    assert result["non_text"].startswith(result["command"])
    result.pop("non_text")
    import json  # pylint: disable=import-outside-toplevel
    json.dumps(result, ensure_ascii=False).encode("utf-8")  # what ansible-core must be able to send back


def test_text_output_has_no_note():
    result = _collect_module()._run(_Module(), ["sh", "-c", "echo ok"], 60)
    assert result["stdout"] == "ok\n" and "non_text" not in result
