"""A BGP session's state on every platform: RFC 4271's word apart from the reason the platform prints beside it
(issue 35: EOS's "Idle(NoIf)" stayed one word where NX-OS dropped "(Admin)"), and a word that is no state refused."""

import pytest

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.parsing import _common


@pytest.mark.parametrize("printed, word, reason", [
    ("Idle (Admin)", "Idle", "Admin"),  # FRR's text and JSON, NX-OS, SONiC (fixtures: lab_four_faults_leaf1_real)
    ("Idle(NoIf)", "Idle", "NoIf"),  # EOS writes the reason against the word
    ("Estab(NotNegotiated)", "Established", "NotNegotiated"),  # EOS: up, its address family never negotiated
    ("Shut (Admin)", "Shut", "Admin"),  # NX-OS (genie_dampening_shut_admin_real)
    ("Established", "Established", None),
    ("active", "Active", None),  # FRR's text prints some words in lower case
])
def test_the_state_word_and_its_reason_are_read_apart(printed, word, reason):
    assert _common.bgp_state(printed) == (word, reason)


@pytest.mark.parametrize("printed", ["", "Idl", "Estab(", "Idle (Admin) 0", "(Policy)", "3", None])
def test_a_word_that_is_no_state_is_refused(printed):
    with pytest.raises(ValueError, match="unknown BGP state"):
        _common.bgp_state(printed)


def test_a_session_with_a_reason_keeps_it_and_counts_prefixes_only_while_established():
    assert _common.bgp_neighbor(65000, "Idle (Admin)", 5) == {"remote_as": 65000, "state": "Idle", "prefixes_received": None,
                                                              "reason": "Admin"}
    assert _common.bgp_neighbor(65000, "Established", 3) == {"remote_as": 65000, "state": "Established", "prefixes_received": 3}
