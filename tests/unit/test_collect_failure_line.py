"""A failed run is reported by its exit code and the first line that says why (module_utils/failure_line.py, used by the collect module and the engine),
not by the launcher's teardown lines that follow it."""

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
