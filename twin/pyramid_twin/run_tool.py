"""What a twin node's tool stubs run: ``run_tool.py TOOL NODE_DIR ARGS...``, fake_tool.main.

fake_tool.py is imported, not run as the script: Python compiles a script at every start and reads an imported
module's cached bytecode, and fake_tool.py's compile was a sixth of a tool run's CPU (the suite's budget, issue 33).
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from pyramid_twin import fake_tool  # noqa: E402  (path set above)

if __name__ == "__main__":
    sys.exit(fake_tool.main(sys.argv))
