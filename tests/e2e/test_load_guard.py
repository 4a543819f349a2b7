"""The load guard against a real Slurm (run/load_guard.py, the gpufabric.pyramid.load_guard action in validate.yml,
issue 71): a job runs on node-003 in the twin's Slurm (sbatch, a real job on its slurmd); validate.yml with
pyramid_drain: slurm stops before the first load (here Layer 4's ib_write_bw), naming node-003 and its state, and loads
nothing. A run with the guard lifted goes on."""

import os
import re
import time

import pytest

from ansible_collections.gpufabric.pyramid.tests.e2e import real_slurm

pytestmark = [pytest.mark.twin, pytest.mark.slow]
POD = {"pod": {"nodes": 4}, "faults": []}
# Layer 4's plays alone, the gate lifted: the guard's play (its tags: layer3 ... layer6) runs before ib_write_bw loads
# every rail (its rounds' files under mesh/layer4)
LAYER4 = {"cmdline": "--tags layer4", "pyramid_enforce_gate": False, "pyramid_drain": "slurm", "pyramid_rdma_duration": 1}


def _shown(run):
    """The play's output as one line: its colours and YAML wraps out."""
    return " ".join(re.sub(r"\x1b\[[0-9;]*m", "", run.stdout).split())


@pytest.fixture
def busy_node(twin):  # pylint: disable=unused-argument
    real_slurm.conf()
    real_slurm.give_back(["node-003"])
    submitted = real_slurm.run(["sbatch", "-w", "node-003", "-N", "1", "-o", "/dev/null", "--wrap", "sleep 600"])
    assert submitted["rc"] == 0, submitted
    job = submitted["stdout"].split()[-1]
    for _attempt in range(60):  # running once slurmd started it
        if "RUNNING" in real_slurm.run(["squeue", "-h", "-j", job, "-o", "%T"])["stdout"]:
            break
        time.sleep(0.5)
    yield "node-003"
    real_slurm.run(["scancel", job])


def test_a_job_on_a_node_stops_the_run_before_the_first_load_naming_it(validate, busy_node):
    run = validate(POD, **LAYER4)
    assert run.rc != 0, run.stdout[-3000:]
    said = _shown(run)
    assert "jobs run on %s (ALLOCATED): Layers 3 to 6 would load them at line rate" % busy_node in said, run.stdout[-3000:]
    assert "pyramid_load_guard: false" in said
    assert run.report is None  # stopped like pre-flight: no verdict on a run that loaded nothing
    assert not os.path.isdir(os.path.join(run.run_dirs[-1], "mesh", "layer4")), os.listdir(run.run_dirs[-1])
    # lifted, the same run loads the rails (Layer 4's rounds) and ends with its report
    lifted = validate(POD, **dict(LAYER4, pyramid_load_guard=False))
    assert lifted.report is not None, lifted.stdout[-3000:]
    assert os.listdir(os.path.join(lifted.run_dirs[-1], "mesh", "layer4"))
