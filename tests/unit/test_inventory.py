"""core/inventory.py: pre-flight's device types, problems and run directory."""

import datetime
import os

import pytest

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog, inventory as _inventory

CATALOG = _catalog.load_catalog()
GROUPS = {"gpu_nodes": ["n1", "n2"], "rail_leaves": ["leaf1"], "spines": ["spine1"], "switches": ["leaf1", "spine1"], "ungrouped": ["x"]}


def test_hosts_get_the_device_type_of_their_group_in_play_order():
    assert _inventory.device_types(["spine1", "n2", "leaf1", "n1", "x"], GROUPS) == {"switch": ["spine1", "leaf1"], "gpu_node": ["n2", "n1"]}


def test_a_host_in_no_pyramid_group_is_a_problem_and_so_is_each_bad_expectation():
    devices = _inventory.device_types(["n1", "leaf1", "x"], GROUPS)
    asked = []

    def errors_of(host, checks):
        asked.append((host, {check["device"] for check in checks}))
        return ["pyramid_rails: not a list"] if host == "n1" else []
    found = _inventory.problems(["n1", "leaf1", "x"], devices, CATALOG, errors_of)
    assert found == ["n1: pyramid_rails: not a list", "x: in none of the groups gpu_nodes, rail_leaves, spines, switches"]
    assert dict(asked) == {"n1": {"gpu_node"}, "leaf1": {"switch"}}


def test_the_message_shows_twenty_problems_and_counts_the_rest():
    message = _inventory.problems_message(["h%d: bad" % i for i in range(23)])
    assert message.startswith("invalid expectations, no host was touched:\nh0: bad")
    assert "h19: bad" in message and "h20: bad" not in message and message.endswith("... and 3 more")


def test_each_run_gets_a_new_directory_named_by_utc_time(tmp_path):
    now = datetime.datetime(2026, 11, 23, 22, 5, 9, tzinfo=datetime.timezone.utc)
    first = _inventory.new_run_dir(str(tmp_path / "reports"), now=now)
    second = _inventory.new_run_dir(str(tmp_path / "reports"), now=now)
    assert first != second and os.path.basename(first).startswith("20261123T220509Z-")
    assert os.path.isdir(os.path.join(first, "devices"))


def test_an_existing_run_directory_is_never_reused(tmp_path, monkeypatch):
    now = datetime.datetime(2026, 11, 23, tzinfo=datetime.timezone.utc)
    monkeypatch.setattr(_inventory.secrets, "token_hex", lambda n: "abcdef")
    _inventory.new_run_dir(str(tmp_path), now=now)
    with pytest.raises(FileExistsError):
        _inventory.new_run_dir(str(tmp_path), now=now)


# issue 37: the three misspelled expectations a new user typed, each with the name it was meant to be
TYPOS = {"pyramid_rdma_gbps_mn": "pyramid_rdma_gbps_min", "pyramid_nccl_tolerence": "pyramid_nccl_tolerance",
         "pyramid_bgp_neighbours": "pyramid_bgp_neighbors"}


@pytest.mark.parametrize("typo, meant", sorted(TYPOS.items()))
def test_a_misspelled_variable_stops_preflight_naming_the_hosts_and_the_nearest_known_name(typo, meant):
    catalog = _catalog.load_catalog()
    assert meant in catalog["expectations"]
    found = _inventory.unknown_variables({"node-001": {typo: None}, "node-002": {typo: None, "pyramid_soak_seconds": None}}, catalog)
    assert found == ["node-001, node-002: %s is not a variable of gpufabric.pyramid; did you mean %s? (a deliberate one: "
                     "list it in pyramid_extra_vars)" % (typo, meant)]


def test_known_and_allowed_variables_pass_and_a_name_near_nothing_is_still_refused():
    catalog = _catalog.load_catalog()
    names = {"pyramid_soak_seconds": None, "pyramid_report_dir": None, "pyramid_awx_host": None,
             "pyramid_site_rack": None, "pyramid_extra_vars": ["pyramid_site_rack"], "ansible_host": None}
    assert _inventory.unknown_variables({"node-001": names}, catalog) == []
    found = _inventory.unknown_variables({"node-001": {"pyramid_zzz": None}}, catalog)
    assert found == ["node-001: pyramid_zzz is not a variable of gpufabric.pyramid (a deliberate one: list it in pyramid_extra_vars)"]


def test_a_misspelled_group_whose_hosts_the_playbooks_would_leave_out_is_named():
    groups = {"all": ["n1", "n2", "sw1", "mgmt"], "ungrouped": [], "gpu_node": ["n1", "n2"], "switches": ["sw1"],
              "spine": ["sw1"], "monitoring": ["mgmt"]}
    assert _inventory.misspelled_groups(groups) == [
        "group gpu_node (n1, n2): did you mean gpu_nodes? Its hosts are in none of the groups the playbooks read "
        "(gpu_nodes, switches, rail_leaves, spines, launcher, ib_fabric_hosts, scheduler)"]  # spine's host is a switch: not left out


# The inventory's own group names (issue 37: "group names are variables with documented defaults").
RENAMED = {"all": ["n1", "n2", "n3", "sw1", "l1"], "ungrouped": [], "gpus": ["n2", "n1", "n3"], "fabric": ["sw1"],
           "login": ["l1"]}


def test_group_names_default_to_the_playbooks_own_and_follow_the_extra_variables():
    assert _inventory.group_names({}) == {"gpu_nodes": "gpu_nodes", "switches": "switches", "launcher": "launcher",
                                          "ib_fabric_hosts": "ib_fabric_hosts", "scheduler": "scheduler"}
    names = _inventory.group_names({"pyramid_group_gpu_nodes": "gpus", "pyramid_group_launcher": "login"})
    assert names["gpu_nodes"] == "gpus" and names["launcher"] == "login" and names["switches"] == "switches"


def test_a_renamed_group_is_read_under_the_playbooks_name_in_the_inventorys_order():
    names = _inventory.group_names({"pyramid_group_gpu_nodes": "gpus", "pyramid_group_switches": "fabric"})
    groups = _inventory.read_groups(RENAMED, names)
    assert groups["gpu_nodes"] == ["n2", "n1", "n3"] and groups["switches"] == ["sw1"]  # n2 keeps the first rail addresses
    assert _inventory.device_types(["n1", "n2", "n3", "sw1"], groups) == {"gpu_node": ["n1", "n2", "n3"], "switch": ["sw1"]}
    assert _inventory.group_members(RENAMED, names) == [
        {"group": "gpu_nodes", "host": "n2"}, {"group": "gpu_nodes", "host": "n1"}, {"group": "gpu_nodes", "host": "n3"},
        {"group": "switches", "host": "sw1"}]
    assert not _inventory.group_members(RENAMED, _inventory.group_names({}))  # nothing renamed, nothing added
    assert not _inventory.group_problems(RENAMED, names, {"n1": {"pyramid_group_gpu_nodes": "gpus"}})
    assert not _inventory.misspelled_groups(RENAMED, names)


def test_a_renamed_group_missing_or_beside_a_group_of_the_playbooks_name_is_named():
    names = _inventory.group_names({"pyramid_group_gpu_nodes": "gpu", "pyramid_group_switches": "fabric"})
    groups = dict(RENAMED, switches=["sw9"])
    assert _inventory.group_problems(groups, names, {}) == [
        "pyramid_group_gpu_nodes=gpu: the inventory has no group gpu; did you mean gpus?",
        "pyramid_group_switches=fabric, yet the inventory has a group switches too (sw9): the playbooks would read both; "
        "rename one"]


def test_a_group_variable_set_in_the_inventory_not_as_an_extra_variable_is_named():
    # the plays chose their hosts from gpu_nodes (the default) before any inventory variable was read
    found = _inventory.group_problems(RENAMED, _inventory.group_names({}), {
        "localhost": {"pyramid_group_gpu_nodes": "gpus"}, "n1": {"pyramid_group_gpu_nodes": "gpus"}})
    assert found == ["localhost, n1: pyramid_group_gpu_nodes=gpus is set in the inventory, where the plays, which choose "
                     "their hosts before they read any inventory variable, do not see it: give it as an extra variable "
                     "(-e pyramid_group_gpu_nodes=gpus, or the AWX job template's extra variables)"]


def test_a_misspelled_renamed_group_reads_against_the_inventorys_name():
    names = _inventory.group_names({"pyramid_group_gpu_nodes": "gpus"})
    found = _inventory.misspelled_groups({"all": ["n1"], "gpu": ["n1"], "gpus": []}, names)
    assert found == ["group gpu (n1): did you mean gpus? Its hosts are in none of the groups the playbooks read "
                     "(gpus, switches, rail_leaves, spines, launcher, ib_fabric_hosts, scheduler)"]


def test_a_misspelled_group_variable_names_the_meant_one():
    found = _inventory.unknown_variables({"n1": {"pyramid_group_gpu_node": None}}, {"expectations": {}})
    assert found == ["n1: pyramid_group_gpu_node is not a variable of gpufabric.pyramid; did you mean pyramid_group_gpu_nodes? "
                     "(a deliberate one: list it in pyramid_extra_vars)"]


def test_a_run_across_nodes_without_a_launcher_host_stops_in_preflight_unless_those_layers_are_left_out():
    names = _inventory.group_names({"pyramid_group_launcher": "login"})
    groups = {"gpu_nodes": ["n1", "n2"], "launcher": []}
    found = _inventory.launcher_missing(["n1", "n2"], groups, names, ["all"], [])
    assert found and found[0].startswith("no launcher host: the runs across nodes of Layers 5 and 6 start from the first "
                                         "host of the group login")
    assert _inventory.launcher_missing(["n1", "n2"], groups, names, ["layer5"], [])
    assert _inventory.launcher_missing(["n2"], groups, names, ["all"], [])  # one node of a --limit: n1 is its reference
    assert not _inventory.launcher_missing(["n1", "n2"], groups, names, ["layer0", "layer4"], [])  # none asked for
    assert not _inventory.launcher_missing(["n1", "n2"], groups, names, ["all"], ["layer5", "layer6"])
    assert not _inventory.launcher_missing(["n1", "n2"], groups, names, ["all"], [], check_mode=True)  # --check starts no run
    assert not _inventory.launcher_missing([], groups, names, ["all"], [])  # a --limit to the switches
    assert not _inventory.launcher_missing(["n1", "n2"], dict(groups, launcher=["n1"]), names, ["all"], [])
    assert not _inventory.launcher_missing(["n1"], {"gpu_nodes": ["n1"]}, names, ["all"], [])  # a lone box


def test_a_group_of_the_playbooks_name_beside_a_renamed_one_is_named_even_with_the_same_hosts_in_another_order():
    names = _inventory.group_names({"pyramid_group_gpu_nodes": "gpus"})
    assert _inventory.group_problems(dict(RENAMED, gpu_nodes=["n1", "n2", "n3"]), names, {}) == [
        "pyramid_group_gpu_nodes=gpus, yet the inventory has a group gpu_nodes too (n1, n2, n3): the playbooks would read "
        "both; rename one"]
    assert not _inventory.group_problems(dict(RENAMED, gpu_nodes=["n2", "n1", "n3"]), names, {})  # the same group, twice named
    assert _inventory.group_names({"pyramid_group_gpu_nodes": ""})["gpu_nodes"] == "gpu_nodes"  # as the plays' default(.., true)


ROOT_ENV = {"NCCL_DEBUG": "INFO", "OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}


@pytest.mark.parametrize("host_vars, expect, across, refused", [
    ({"ansible_user": "root"}, {"pyramid_nccl_launcher": "mpirun", "pyramid_nccl_env": {"NCCL_DEBUG": "INFO"}}, True, True),
    ({"ansible_user": "ops", "ansible_become": True}, {"pyramid_nccl_launcher": "mpirun", "pyramid_nccl_env": {}}, True, True),
    ({"ansible_user": "root"}, {"pyramid_nccl_launcher": "mpirun", "pyramid_nccl_env": ROOT_ENV}, True, False),
    ({"ansible_user": "root"}, {"pyramid_nccl_launcher": "srun", "pyramid_nccl_env": {}}, True, False),  # Slurm starts it
    ({"ansible_user": "ops"}, {"pyramid_nccl_launcher": "mpirun", "pyramid_nccl_env": {}}, True, False),
    ({"ansible_user": "ops", "ansible_become": True, "ansible_become_user": "ops2"}, {"pyramid_nccl_launcher": "mpirun"}, True, False),
    ({}, {"pyramid_nccl_launcher": "mpirun", "pyramid_nccl_env": {}}, True, False),  # a user left unset is not guessed
    ({"ansible_user": "root"}, {"pyramid_nccl_launcher": "mpirun", "pyramid_nccl_env": {}}, False, False),  # no run across nodes
])
def test_mpirun_as_root_without_open_mpis_permission_is_a_first_run_trap_named_at_preflight(host_vars, expect, across, refused):
    problem = _inventory.mpirun_as_root("node-001", host_vars, expect, across)
    assert bool(problem) == refused, problem
    if refused:
        assert problem.startswith("the launcher node-001 is reached as root") and "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM" in problem
