"""Stand-in for ansible-test's get-pip bootstrap script, which it downloads from a host that is not a
package registry. Same contract: run as __main__ in a fresh venv with pip-install arguments."""

import subprocess
import sys

GET_PIP_ONLY = {"--no-setuptools", "--no-wheel"}

# ensurepip installs the pip wheel bundled with CPython; run apart, since it blanks pip's config in its env.
subprocess.check_call([sys.executable, "-m", "ensurepip", "--upgrade"], stdout=subprocess.DEVNULL)
sys.exit(subprocess.call([sys.executable, "-m", "pip", "install"] + [a for a in sys.argv[1:] if a not in GET_PIP_ONLY]))
