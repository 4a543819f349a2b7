"""Which desired mlxconfig parameters apply to a card: the rule the mlxconfig judge and remediate.yml's
mlxconfig action share (a _P<n> parameter only where the card's Description names port n)."""

import pytest

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.judging.host import mlx_applicable, mlx_port

DESIRED = {"ROCE_CC_PRIO_MASK_P1": "255", "ROCE_CC_PRIO_MASK_P2": "255", "SRIOV_EN": "1", "LINK_TYPE_P4": "2"}


@pytest.mark.parametrize("name, port", [("ROCE_CC_PRIO_MASK_P2", 2), ("LINK_TYPE_P1", 1), ("SRIOV_EN", None),
                                        ("NUM_OF_VFS", None), ("_P2", None), ("PF_BAR2_SIZE", None), ("X_P", None)])
def test_the_port_of_a_parameter_is_its_p_suffix(name, port):
    assert mlx_port(name) == port


@pytest.mark.parametrize("ports, applies", [
    (1, {"ROCE_CC_PRIO_MASK_P1", "SRIOV_EN"}),
    (2, {"ROCE_CC_PRIO_MASK_P1", "ROCE_CC_PRIO_MASK_P2", "SRIOV_EN"}),
    (4, set(DESIRED)),
    (None, set(DESIRED)),  # no port count named: everything must be reported (a missing row is an ERROR)
])
def test_port_parameters_apply_up_to_the_cards_ports(ports, applies):
    assert set(mlx_applicable(DESIRED, {"params": {}, "ports": ports})) == applies
