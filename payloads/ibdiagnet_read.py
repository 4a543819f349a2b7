"""Run ibdiagnet and print the database it wrote: ``python3 -c <this> ibdiagnet [ARG...]``.

ibdiagnet (NVIDIA's fabric diagnostic, ibutils2) prints a log and writes its findings as files into a directory
(``-o DIR``, /var/tmp/ibdiagnet2 by default); the counters of every port are in ibdiagnet2.db_csv's PM_INFO. This
runs it into a directory of its own (never a site's /var/tmp/ibdiagnet2, which another run may be writing), sends
its log to stderr, prints ibdiagnet2.db_csv's sections the counters' judges read (RUN_INFO, NODES, PM_INFO and the
index table) on stdout as written, and removes the directory, also when stopped (SIGTERM). Its exit code is ibdiagnet's where
no database was written (127: not installed); 0 where it was, whatever ibdiagnet found: the database proves itself
whole (its index table, written last) and the judges read the counters in it, never ibdiagnet's own summary.

The collect module runs commands as argv lists, never through a shell, and a catalog source cannot read a file a
command of it wrote: this is the one step between them.
"""

import os
import shutil
import signal
import subprocess
import sys
import tempfile

DATABASE = "ibdiagnet2.db_csv"
# what the counters' judges read (the node names, the counters, the index that proves the file whole): the database
# of a large subnet holds far more (cables, FEC, temperatures), some 1.75 KB a port against PM_INFO's 0.3
SECTIONS = (b"RUN_INFO", b"NODES", b"PM_INFO", b"INDEX_TABLE")


def _sections(source, sink):
    """The database's first line and SECTIONS, as written (bytes: the parser judges its encoding)."""
    keep = False
    for number, line in enumerate(source):
        if number == 0 and line.startswith(b"#"):
            sink.write(line)
            continue
        mark = line.strip()
        if mark.startswith(b"START_"):
            keep = mark[len(b"START_"):] in SECTIONS
        if keep:
            sink.write(line)
            if mark.startswith(b"END_"):
                sink.write(b"\n")
                keep = False


def _stopped(signum, _frame):
    raise SystemExit(128 + signum)  # the collector's timeout: the directory is still removed (finally)


def main(argv):
    if len(argv) < 2:
        sys.stderr.write("usage: ibdiagnet_read IBDIAGNET [ARG...] (without -o: the directory is this script's)\n")
        return 2
    if "-o" in argv[2:] or "--output_path" in argv[2:]:
        sys.stderr.write("ibdiagnet_read: the output directory is this script's own: drop -o\n")
        return 2
    signal.signal(signal.SIGTERM, _stopped)
    folder = tempfile.mkdtemp(prefix="pyramid-ibdiagnet-")
    try:
        try:
            ran = subprocess.run(argv[1:] + ["-o", folder], stdout=sys.stderr, stderr=sys.stderr, check=False,
                                 env=dict(os.environ, LC_ALL="C"))
        except OSError as exc:
            sys.stderr.write("ibdiagnet_read: %s: %s\n" % (argv[1], exc.strerror))
            return 127
        path = os.path.join(folder, DATABASE)
        if not os.path.isfile(path):
            sys.stderr.write("ibdiagnet_read: %s exited %d and wrote no %s\n" % (argv[1], ran.returncode, DATABASE))
            return ran.returncode or 1
        with open(path, "rb") as handle:
            _sections(handle, sys.stdout.buffer)
        sys.stdout.buffer.flush()
        return 0
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
