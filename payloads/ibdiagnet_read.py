"""Run ibdiagnet and print the database it wrote: ``python3 -c <this> ibdiagnet [ARG...]``.

ibdiagnet (NVIDIA's fabric diagnostic, ibutils2) prints a log and writes its findings as files into a directory
(``-o DIR``, /var/tmp/ibdiagnet2 by default); the counters of every port are in ibdiagnet2.db_csv's PM_INFO. This
runs it into a directory of its own (never a site's /var/tmp/ibdiagnet2, which another run may be writing), sends
its log to stderr, prints ibdiagnet2.db_csv on stdout and removes the directory. Its exit code is ibdiagnet's where
no database was written (127: not installed); 0 where it was, whatever ibdiagnet found: the database proves itself
whole (its index table, written last) and the judges read the counters in it, never ibdiagnet's own summary.

The collect module runs commands as argv lists, never through a shell, and a catalog source cannot read a file a
command of it wrote: this is the one step between them.
"""

import os
import shutil
import subprocess
import sys
import tempfile

DATABASE = "ibdiagnet2.db_csv"


def main(argv):
    if len(argv) < 2:
        sys.stderr.write("usage: ibdiagnet_read IBDIAGNET [ARG...] (without -o: the directory is this script's)\n")
        return 2
    if "-o" in argv[2:] or "--output_path" in argv[2:]:
        sys.stderr.write("ibdiagnet_read: the output directory is this script's own: drop -o\n")
        return 2
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
        with open(path, encoding="utf-8", errors="replace") as handle:
            shutil.copyfileobj(handle, sys.stdout)
        return 0
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
