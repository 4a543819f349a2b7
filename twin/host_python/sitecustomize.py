"""The twin's nodes' Python: Ansible's modules compiled once per source, not once per module run.

Ansible runs a module on a host as a zip of its sources (AnsiballZ), which `zipimport` compiles on every run: no
bytecode is ever written for a zip. A real pod pays that on each host's own cores; the twin's nodes all share the
controller's two, where compiling `ansible.module_utils.basic` and what it imports was about a third of a module run's
CPU (bench/README.md). This keeps each compiled module beside the twin's state, keyed by its path inside the zip and
the SHA-256 of its source: the same source always gives the same code, so nothing a module does or prints changes,
and a changed module_utils (another ansible-core) is compiled anew. Twin only: entry.py puts this directory on the
node's PYTHONPATH (as it puts the node's bin/ on its PATH); the product never sees it.
"""

import zipimport

_COMPILE = getattr(zipimport, "_compile_source", None)  # CPython's own step; absent elsewhere: no cache, no harm
CACHE = __file__.rpartition("/twin/host_python/")[0] + "/.twin/pycode"  # twin/up's state directory


def _cached_compile(pathname, source):
    import marshal  # pylint: disable=import-outside-toplevel
    import os  # pylint: disable=import-outside-toplevel

    try:
        from _sha2 import sha256  # pylint: disable=import-outside-toplevel
    except ImportError:
        from _sha256 import sha256  # pylint: disable=import-outside-toplevel
    import _imp  # pylint: disable=import-outside-toplevel

    inner = pathname.rpartition(".zip" + os.sep)[2]  # the module's path inside the zip, not the run's temp dir
    path = os.path.join(CACHE, sha256(inner.encode() + b"\0" + source).hexdigest())
    try:
        with open(path, "rb") as handle:
            code = marshal.loads(handle.read())
        _imp._fix_co_filename(code, pathname)  # pylint: disable=protected-access
        return code  # tracebacks name this run's file, as a fresh compile would
    except (OSError, EOFError, ValueError, TypeError):
        pass
    code = _COMPILE(pathname, source)
    try:
        os.makedirs(CACHE, exist_ok=True)
        partial = "%s.%d" % (path, os.getpid())
        with open(partial, "wb") as handle:
            handle.write(marshal.dumps(code))
        os.replace(partial, path)  # whole or absent, whichever node reads it next
    except OSError:
        pass
    return code


if _COMPILE is not None and "/twin/host_python/" in __file__:
    zipimport._compile_source = _cached_compile  # pylint: disable=protected-access
