"""The twin's real Slurm (twin/slurm: Debian's slurmctld and a slurmd per GPU node), as the hand-over's tests read it:
its slurm.conf, the real scontrol and sinfo run here, what sinfo says each node is (through the product's parser)."""

import os
import subprocess

import pytest

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils import parsing

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
POINTER = os.path.join(ROOT, ".twin", "slurm.conf.path")
SINFO = ["sinfo", "-N", "-h", "-o", "%N %T %E"]


def conf():
    """The running twin's slurm.conf; the test fails (never skips) where twin/slurm did not start one."""
    try:
        with open(POINTER, encoding="utf-8") as handle:
            path = handle.read().strip()
    except OSError:
        path = ""
    if not path or not os.path.exists(path):
        pytest.fail("no real Slurm on the twin (%s missing): twin/slurm up, and the Debian packages slurmctld slurmd munge "
                    "(bindep.txt's twin profile, make setup)" % POINTER)
    return path


def run(argv, slurm_conf=None):
    """{"rc", "stdout", "stderr"} of a Slurm client run here against the twin's Slurm (or the slurm.conf given)."""
    ran = subprocess.run(argv, env=dict(os.environ, SLURM_CONF=slurm_conf or conf()), capture_output=True, text=True,
                         timeout=120, check=False)
    return {"rc": ran.returncode, "stdout": ran.stdout, "stderr": ran.stderr}


def sinfo(slurm_conf=None):
    """{node: {"state", "not_responding", "reason"}} as sinfo prints them, through the product's parser."""
    read = run(SINFO, slurm_conf)
    assert read["rc"] == 0, read
    return parsing.parse("slurm_sinfo_nodes", read["stdout"])["nodes"]


def drained(nodes):
    """The nodes of ``nodes`` sinfo shows drained (or draining), each with its reason."""
    seen = sinfo()
    return {node: seen[node]["reason"] for node in nodes if seen[node]["state"] in ("drained", "draining", "drain")}


def give_back(nodes):
    """Resume every node of ``nodes`` that is out of service, whoever took it out: a test leaves the twin's Slurm as the
    pod its scenarios describe."""
    seen = sinfo()
    out = [node for node in nodes if seen[node]["state"] != "idle"]
    if out:
        ran = run(["scontrol", "update", "nodename=%s" % ",".join(out), "state=resume"])
        assert ran["rc"] == 0, ran
