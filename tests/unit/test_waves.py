"""Pods larger than Ansible's forks: the per-node tests run in waves (issue 16). The server of a rail mesh round
must outlive every wave of clients, and pre-flight says when the forks are too few."""

import pytest

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core.inventory import forks_warning
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run.background import client_reads, waves
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run.rail_mesh import server_lifetime


@pytest.mark.parametrize("nodes, forks, expected", [(8, 16, 1), (16, 16, 1), (17, 16, 2), (512, 16, 32), (0, 16, 0),
                                                    (3, 0, 3), (3, None, 3)])
def test_waves_are_the_nodes_over_the_forks_rounded_up(nodes, forks, expected):
    assert waves(nodes, forks) == expected


def test_a_server_outlives_the_waves_of_every_phase():
    """512 nodes, 16 forks, 30 s runs: serve, run and stop each take 32 waves of Ansible's per-node work; the
    clients run in the background, so the run itself is one 30 s (the lifetime before counted 2 x 32 x 5 s). A later
    round's server starts in the round before's stop: it outlives that stop's 32 waves too, each a hung client's
    30 s run and 60 s command timeout at worst."""
    lifetime = server_lifetime(512, 16, 30, 30, 60)
    assert lifetime == 3 * 32 * 5 + 32 * (30 + 60) + 30 + 30 + 2 * 60
    assert lifetime > server_lifetime(16, 16, 30, 30, 60)


def test_one_wave_keeps_the_lifetime_of_a_pod_within_the_forks():
    assert server_lifetime(8, 16, 5, 30, 60) == 15 + (5 + 60) + 5 + 30 + 120


def test_forks_covering_every_gpu_node_give_no_warning():
    assert forks_warning(16, 16) is None
    assert forks_warning(64, 8) is None


def test_too_few_forks_are_named_with_their_waves_and_the_fix():
    said = forks_warning(16, 128)
    assert "forks 16 < 128 GPU nodes" in said
    assert "8 waves" in said
    assert "--forks 128" in said


CMD = "ib_write_bw -d mlx5_0 -D 5 10.50.0.2"
RUNNING = {"status": "listening", "command": CMD}


def test_a_background_client_that_ended_well_is_read():
    ended = {"c0": {"status": "ok", "rc": 0, "command": CMD, "stdout": "BW report", "stderr": ""}}
    assert client_reads({"c0": RUNNING}, ended, "lost", 5, 65)["c0"] == ended["c0"]


def test_a_short_client_that_ended_before_its_start_looked_twice_is_still_read():
    """rail_servers calls a process that ends before its settle time 'ended before listening' (failed), whatever its
    exit code; the stop's read of its exit code 0 and output is the truth."""
    start = {"status": "failed", "rc": 0, "command": CMD, "msg": CMD + ": ended before listening"}
    ended = {"c0": {"status": "ok", "rc": 0, "command": CMD, "stdout": "BW report", "stderr": ""}}
    assert client_reads({"c0": start}, ended, "lost", 1, 61)["c0"]["status"] == "ok"


def test_a_client_that_never_ran_keeps_what_its_start_said():
    start = {"status": "failed", "rc": 127, "command": CMD, "msg": "ib_write_bw: command not found"}
    assert client_reads({"c0": start}, {}, "lost", 5, 65)["c0"] == start
    refused = {"status": "failed", "rc": 1, "command": CMD, "msg": CMD + ": ended before listening: Couldn't connect"}
    assert client_reads({"c0": refused}, {"c0": {"status": "failed", "rc": 1}}, "lost", 5, 65)["c0"]["msg"] == (
        CMD + ": ended at once: Couldn't connect")


def test_a_hung_client_is_a_timeout_naming_the_wait():
    ended = {"c0": {"status": "killed", "rc": None, "command": CMD, "stdout": "", "stderr": "",
                    "msg": "still running 65s after its client was done (killed)"}}
    read = client_reads({"c0": RUNNING}, ended, "lost", 5, 65)["c0"]
    assert read["status"] == "timeout"
    assert "hung: still running when the round's stop had waited 65 s for 5 s of runs (killed)" in read["msg"]


def test_a_client_whose_output_the_stop_lost_is_a_failure_saying_so():
    read = client_reads({"c0": RUNNING}, {}, "rail_servers: host unreachable", 5, 65)["c0"]
    assert read == {"status": "failed", "command": CMD, "msg": "rail_servers: host unreachable"}
