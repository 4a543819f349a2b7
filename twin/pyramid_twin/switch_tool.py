"""A Linux switch's CLI tools in the twin (SONiC's `show`, Cumulus' `nv`, FRR's `vtysh`).

The bin stubs of a SONiC or Cumulus switch run ``switch_tool.py SWITCH_JSON TOOL ARGS...``; the
argv joined by spaces is looked up in formats_<os>.COMMANDS, as the catalog runs it. Anything else
gets the tool's own error and exit code (formats_<os>.error). Hot path: stdlib only.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # run as a script under -I -S
from pyramid_twin import switch_session  # noqa: E402


def main(argv):
    switch = switch_session.load(argv[1])
    formats = switch_session.formats_of(switch)
    command = " ".join(argv[2:])
    handler = formats.COMMANDS.get(command)
    if handler is None:
        text, rc = formats.error(command)
        sys.stderr.write(text)
        return rc
    sys.stdout.write(handler(switch_session.snapshot_now(switch)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
