"""The lab from a checkout FRR's user cannot enter (issue 73): a clone under root's home (mode 700, as Debian makes it)
or under `mktemp -d`. zebra and bgpd drop to `frr` once started; with their configuration in the checkout they started
with none and no session ever came up ("not converged after 60 s"). The lab is built here from a copy of this checkout's
lab/ inside a fresh mode-700 directory, exactly as such a clone holds it, and must converge, then leave nothing behind.

Runs on the lab's worker after tests/lab/test_lab_fabric.py has taken its lab down (one lab at a time: the namespaces
and the sshd's addresses are the machine's).
"""

import os
import shutil
import subprocess
import sys
import tempfile

import pytest

from ansible_collections.gpufabric.pyramid.tests import daemons
from ansible_collections.gpufabric.pyramid.tests.lab import test_lab_fabric

ROOT = test_lab_fabric.ROOT


@pytest.fixture
def private_clone():
    why = test_lab_fabric._why_not()  # pylint: disable=protected-access  # the lab's own reasons to skip
    if why:
        pytest.skip(why)
    home = tempfile.mkdtemp(prefix="pyramid-private-")  # mode 700, as root's home is
    assert os.stat(home).st_mode & 0o777 == 0o700
    clone = os.path.join(home, "clone")
    shutil.copytree(os.path.join(ROOT, "lab"), os.path.join(clone, "lab"), ignore=shutil.ignore_patterns("__pycache__"))
    try:
        yield clone
    finally:
        subprocess.run([sys.executable, os.path.join(clone, "lab", "fabric.py"), "down"], capture_output=True, check=False)
        subprocess.run(["ip", "netns", "del", test_lab_fabric.FOREIGN], capture_output=True, check=False)
        shutil.rmtree(home, ignore_errors=True)


def test_the_lab_converges_from_a_checkout_frr_cannot_enter(private_clone):
    fabric = [sys.executable, os.path.join(private_clone, "lab", "fabric.py")]
    built = subprocess.run(fabric + ["up", "--spines", "2", "--leaves", "2", "--nodes", "2"], capture_output=True, text=True, check=False, timeout=120)
    assert built.returncode == 0, built.stderr
    assert "every session Established" in built.stdout
    assert daemons.reaching_into(private_clone) == []  # FRR's daemons read their run directories, not the clone
    routes = subprocess.run(fabric + ["vtysh", "leaf1", "-c", "show ip route bgp"], capture_output=True, text=True, check=False)
    assert "10.51.0.0/24" in routes.stdout  # leaf2's rail prefix, learned over both spines
    down = subprocess.run(fabric + ["down"], capture_output=True, text=True, check=False)
    assert down.returncode == 0, down.stderr
    assert not [name for name in os.listdir("/var/run/frr") if name.startswith("pyrlab-")]
    assert not os.path.exists(os.path.join(private_clone, ".lab"))
