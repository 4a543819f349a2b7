"""Pods larger than Ansible's forks: the per-node tests run in waves (issue 16). The server of a rail mesh round
must outlive every wave of clients, and pre-flight says when the forks are too few."""

import pytest

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core.inventory import forks_warning
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.hunt.rail_mesh import server_lifetime, waves


@pytest.mark.parametrize("nodes, forks, expected", [(8, 16, 1), (16, 16, 1), (17, 16, 2), (512, 16, 32), (0, 16, 0),
                                                    (3, 0, 3), (3, None, 3)])
def test_waves_are_the_nodes_over_the_forks_rounded_up(nodes, forks, expected):
    assert waves(nodes, forks) == expected


def test_a_server_outlives_the_last_wave_of_clients():
    """512 nodes, 16 forks, 30 s runs: the last of 32 client waves ends 32 x (30 + 5) s after the run phase
    starts, itself after 32 waves of serve tasks; the lifetime before this fix (500 s) ended those servers."""
    lifetime = server_lifetime(512, 16, 30, 30, 60)
    last_client_ends = 32 * 5 + 32 * (30 + 5)
    assert lifetime > last_client_ends
    assert lifetime == last_client_ends + 30 + 2 * 60


def test_one_wave_keeps_the_lifetime_of_a_pod_within_the_forks():
    assert server_lifetime(8, 16, 5, 30, 60) == 5 + 5 + 5 + 30 + 120


def test_forks_covering_every_gpu_node_give_no_warning():
    assert forks_warning(16, 16) is None
    assert forks_warning(64, 8) is None


def test_too_few_forks_are_named_with_their_waves_and_the_fix():
    said = forks_warning(16, 128)
    assert "forks 16 < 128 GPU nodes" in said
    assert "8 waves" in said
    assert "--forks 128" in said
