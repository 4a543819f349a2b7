"""payloads/ibdiagnet_read.py: ibdiagnet run into a directory of its own, its database printed, the directory removed;
no database is never an empty read (ibdiagnet's exit code, 127 without it), and its own log goes to stderr."""

import os
import subprocess
import sys

PAYLOAD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "payloads", "ibdiagnet_read.py")


def _tool(tmp_path, body):
    tool = tmp_path / "ibdiagnet"
    tool.write_text("#!/bin/sh\n" + body, encoding="utf-8")
    tool.chmod(0o755)
    return str(tool)


def _run(*argv):
    return subprocess.run([sys.executable, "-c", open(PAYLOAD, encoding="utf-8").read()] + list(argv),
                          capture_output=True, text=True, check=False, timeout=30)


def test_the_database_is_printed_and_its_directory_removed(tmp_path):
    # as the real one: a log on stdout, the files under -o DIR (its last argument here), an exit code of its own
    tool = _tool(tmp_path, 'echo "-I- Stage Port Counters"; for a; do d="$a"; done;'
                           ' printf "# INDEX_TABLE offset: 1\\n\\nSTART_CABLE_INFO\\nNodeGuid,PortNum\\n0x1,1\\nEND_CABLE_INFO\\n\\n'
                           'START_PM_INFO\\nNodeGUID\\n0x1\\nEND_PM_INFO\\n\\nSTART_INDEX_TABLE\\nName, Rows\\nPM_INFO, 1\\nEND_INDEX_TABLE\\n"'
                           ' > "$d/ibdiagnet2.db_csv"; echo "$d" > %s/dir; exit 1\n' % tmp_path)
    ran = _run(tool, "--pc")
    # the sections the judges read, as written; the others (cables, FEC, temperatures) left out
    assert ran.returncode == 0 and ran.stdout == ("# INDEX_TABLE offset: 1\nSTART_PM_INFO\nNodeGUID\n0x1\nEND_PM_INFO\n\n"
                                                  "START_INDEX_TABLE\nName, Rows\nPM_INFO, 1\nEND_INDEX_TABLE\n\n")
    assert "-I- Stage Port Counters" in ran.stderr  # its log, beside the database
    folder = (tmp_path / "dir").read_text(encoding="utf-8").strip()
    assert os.path.basename(folder).startswith("pyramid-ibdiagnet-") and not os.path.exists(folder)


def test_no_database_is_ibdiagnet_own_exit_code_never_an_empty_read(tmp_path):
    ran = _run(_tool(tmp_path, "echo '-E- Failed to open port' >&2; exit 3\n"))
    assert ran.returncode == 3 and ran.stdout == "" and "wrote no ibdiagnet2.db_csv" in ran.stderr


def test_not_installed_and_a_directory_of_the_callers_are_refused(tmp_path):
    ran = _run(str(tmp_path / "nowhere" / "ibdiagnet"))
    assert ran.returncode == 127 and "No such file" in ran.stderr
    ran = _run("ibdiagnet", "-o", "/var/tmp/ibdiagnet2")
    assert ran.returncode == 2 and "drop -o" in ran.stderr


def test_stopped_by_the_collectors_timeout_it_leaves_no_directory(tmp_path):
    """SIGTERM (coreutils timeout, the collector's deadline) while ibdiagnet runs: ibdiagnet killed, the directory removed."""
    import signal  # pylint: disable=import-outside-toplevel
    import time  # pylint: disable=import-outside-toplevel
    tool = _tool(tmp_path, 'for a; do d="$a"; done; echo "$d" > %s/dir; sleep 30\n' % tmp_path)
    process = subprocess.Popen([sys.executable, "-c", open(PAYLOAD, encoding="utf-8").read(), tool],  # pylint: disable=consider-using-with
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    for _attempt in range(100):
        if (tmp_path / "dir").exists() and (tmp_path / "dir").read_text(encoding="utf-8").strip():
            break
        time.sleep(0.1)
    folder = (tmp_path / "dir").read_text(encoding="utf-8").strip()
    assert os.path.isdir(folder)
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=20) == 128 + signal.SIGTERM
    assert not os.path.exists(folder)
