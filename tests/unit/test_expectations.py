"""Thresholds are inventory variables, validated (type, choices, minimum) with documented defaults."""

import pytest

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog, expectations as _expectations

CATALOG = _catalog.load_catalog()


def resolve(**given):
    return _expectations.resolve(CATALOG, given)


def test_defaults_are_the_seed_figures():
    values, errors = resolve()
    assert errors == []
    assert values["pyramid_rails"] == ["mlx5_%d" % i for i in range(8)]
    assert values["pyramid_rail_rate_gbps"] == 400
    assert values["pyramid_hugepages_total"] == 64
    assert values["pyramid_hugepage_size_kb"] == 1048576
    assert values["pyramid_mlxconfig"] == {"ROCE_CC_PRIO_MASK_P1": "255", "ROCE_CC_PRIO_MASK_P2": "255"}


def test_strings_from_inventory_are_typed():
    values, errors = resolve(pyramid_rail_rate_gbps="200", pyramid_iommu_passthrough="no")
    assert errors == []
    assert values["pyramid_rail_rate_gbps"] == 200
    assert values["pyramid_iommu_passthrough"] is False


@pytest.mark.parametrize("given, fragment", [
    ({"pyramid_rail_rate_gbps": "fast"}, "pyramid_rail_rate_gbps"),
    ({"pyramid_rail_rate_gbps": 0}, "at least 1"),
    ({"pyramid_hugepage_size_kb": 4096}, "pyramid_hugepage_size_kb"),
    ({"pyramid_gpudirect_paths": ["peermem", "magic"]}, "pyramid_gpudirect_paths"),
    ({"pyramid_rails": []}, "must not be empty"),
    ({"pyramid_mlxconfig": {"ROCE_CC_PRIO_MASK_P1": [255]}}, "pyramid_mlxconfig.ROCE_CC_PRIO_MASK_P1"),
    ({"pyramid_gpu_nic_paths": "SYS,CROSS"}, "pyramid_gpu_nic_paths"),
])
def test_bad_values_are_named(given, fragment):
    errors = resolve(**given)[1]
    assert errors and any(fragment in error for error in errors), errors


def test_mlxconfig_integers_compare_as_strings():
    values, errors = resolve(pyramid_mlxconfig={"ROCE_CC_PRIO_MASK_P1": 255})
    assert errors == [] and values["pyramid_mlxconfig"] == {"ROCE_CC_PRIO_MASK_P1": "255"}


def test_switch_expectations_are_required_typed_and_cross_checked():
    from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog, expectations as _expectations
    catalog = _catalog.load_catalog()
    names = _catalog.expectation_names(_catalog.checks_for(catalog, "switch"), catalog)
    errors = _expectations.resolve(catalog, {}, names)[1]
    assert "pyramid_switch_os is required for this device and is not set" in errors
    assert "pyramid_switch_ports is required for this device and is not set" in errors
    values = {"pyramid_switch_os": "junos",
              "pyramid_switch_ports": [{"port": "Ethernet1/1", "role": "uplink"}, {"port": "Ethernet1/1"}, {"peer": "x"}],
              "pyramid_bgp_neighbors": [{"address": "10.0.0.300"}], "pyramid_ecmp_prefixes": ["10.1.0.0/33"],
              "pyramid_optics_rx_min_dbm": -3, "pyramid_optics_rx_max_dbm": -7}
    text = " ".join(_expectations.resolve(catalog, values, names)[1])
    for words in ("pyramid_switch_os", "junos", "role", "port", "10.0.0.300", "10.1.0.0/33",
                  "pyramid_optics_rx_min_dbm (-3.0) must be below"):
        assert words in text, (words, text)
    good = {"pyramid_switch_os": "nxos", "pyramid_switch_ports": [{"port": "Ethernet1/1", "peer": "node-001"}],
            "pyramid_bgp_neighbors": [{"address": "10.0.0.1", "name": "spine-01", "remote_as": 65000}]}
    values, errors = _expectations.resolve(catalog, good, names)
    assert errors == [] and values["pyramid_switch_ports"][0]["role"] == "host" and values["pyramid_soak_seconds"] == 300


def test_sharp_declared_on_a_roce_pod_is_refused_before_any_host_is_touched():
    from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog, expectations as _expectations
    catalog = _catalog.load_catalog()
    errors = _expectations.resolve(catalog, {"pyramid_nccl_sharp": True})[1]
    assert "pyramid_nccl_sharp is true but pyramid_rdma_link_layer is roce: SHARP runs on InfiniBand fabrics only" in errors
    assert _expectations.resolve(catalog, {"pyramid_nccl_sharp": True, "pyramid_rdma_link_layer": "infiniband"})[1] == []


@pytest.mark.parametrize("raw, message", [
    ({"pyramid_nccl_env": ["NCCL_DEBUG=INFO"]}, "pyramid_nccl_env must be a mapping (name: value), got a list ['NCCL_DEBUG=INFO']"),
    ({"pyramid_nccl_env": "NCCL_DEBUG=INFO"}, "pyramid_nccl_env must be a mapping (name: value), got text 'NCCL_DEBUG=INFO'"),
    ({"pyramid_nccl_tolerance": float("nan")}, "pyramid_nccl_tolerance must be a finite number, got nan"),
    ({"pyramid_straggler_ratio": float("inf")}, "pyramid_straggler_ratio must be a finite number, got inf"),
    ({"pyramid_gpus_per_node": True}, "pyramid_gpus_per_node must be a number, got True"),
    # out of range: each would leave its check unable to FAIL (busbw under 0% of the figure, no rank under 0x the median)
    ({"pyramid_nccl_tolerance": 1.0}, "pyramid_nccl_tolerance must be below 1.0, got 1.0"),
    ({"pyramid_nccl_tolerance": -0.5}, "pyramid_nccl_tolerance must be at least 0.0, got -0.5"),
    ({"pyramid_straggler_ratio": 0}, "pyramid_straggler_ratio must be above 0.0, got 0"),
    ({"pyramid_straggler_ratio": -1}, "pyramid_straggler_ratio must be above 0.0, got -1"),
    ({"pyramid_straggler_ratio": 1.5}, "pyramid_straggler_ratio must be at most 1.0, got 1.5"),
    ({"pyramid_train_baseline_tolerance": -1}, "pyramid_train_baseline_tolerance must be at least 0.0, got -1"),
    ({"pyramid_nccl_node_busbw": {"8589934592": "nan"}}, "pyramid_nccl_node_busbw.8589934592 must be a positive figure in GB/s"),
    ({"pyramid_rails": ["mlx5_0\nshow running-config"]}, "pyramid_rails must not contain a line break"),
    ({"pyramid_nccl_env": {"NCCL_DEBUG": "INFO\r\nreboot"}}, "pyramid_nccl_env must not contain a line break"),
    # issue 40: an optics threshold the validator refused was compared again in the cross-check (TypeError)
    ({"pyramid_optics_rx_min_dbm": "low", "pyramid_optics_rx_max_dbm": 4}, "argument 'pyramid_optics_rx_min_dbm' is of type str"),
    ({"pyramid_optics_rx_min_dbm": -10, "pyramid_optics_rx_max_dbm": [4]}, "argument 'pyramid_optics_rx_max_dbm' is of type list"),
    ({"pyramid_optics_rx_min_dbm": {"dbm": -10}, "pyramid_optics_rx_max_dbm": "4"}, "argument 'pyramid_optics_rx_min_dbm' is of type dict"),
])
def test_hostile_values_are_refused_by_name_never_a_crash(raw, message):
    _values, errors = _expectations.resolve(CATALOG, raw)
    assert any(error.startswith(message) for error in errors), errors


@pytest.mark.parametrize("raw, message", [
    ({"pyramid_rails": ["mlx5_0; rm -rf /"]}, "pyramid_rails: 'mlx5_0; rm -rf /' is not a valid RDMA device name"),
    ({"pyramid_rails": ["$(reboot)"]}, "pyramid_rails: '$(reboot)' is not a valid RDMA device name"),
    ({"pyramid_rails": ["-x"]}, "pyramid_rails: '-x' is not a valid RDMA device name"),
    ({"pyramid_rails": ["--help"]}, "pyramid_rails: '--help' is not a valid RDMA device name"),
    ({"pyramid_rails": [""]}, "pyramid_rails: '' is not a valid RDMA device name"),
    ({"pyramid_nccl_min_bytes": "8 -x"}, "pyramid_nccl_min_bytes: '8 -x' is not a valid message size"),
    ({"pyramid_nccl_max_bytes": "4T"}, "pyramid_nccl_max_bytes: '4T' is not a valid message size"),
    ({"pyramid_nccl_env": {"NCCL_DEBUG=INFO": "x"}}, "pyramid_nccl_env: 'NCCL_DEBUG=INFO' is not a valid environment variable name"),
    ({"pyramid_nccl_env": {"$(reboot)": "x"}}, "pyramid_nccl_env: '$(reboot)' is not a valid environment variable name"),
    ({"pyramid_soak_seconds": 1000000000}, "pyramid_soak_seconds must be at most 86400"),
    ({"pyramid_switch_ports": [{"port": "Ethernet1/1 ; reload"}]}, "pyramid_switch_ports.port: 'Ethernet1/1 ; reload' is not a valid interface name"),
    ({"pyramid_switch_ports": [{"port": "-Ethernet1"}]}, "pyramid_switch_ports.port: '-Ethernet1' is not a valid interface name"),
    ({"pyramid_switch_ports": [{"port": "Ethernet1", "peer_port": "swp1;x"}]}, "pyramid_switch_ports.peer_port: 'swp1;x' is not"),
    ({"pyramid_bgp_neighbors": [{"address": "10.0.0.1", "remote_as": -65000}]}, "pyramid_bgp_neighbors.remote_as must be at least 1"),
    ({"pyramid_bgp_neighbors": [{"address": "10.0.0.1", "remote_as": 4294967296}]}, "pyramid_bgp_neighbors.remote_as must be at most"),
])
def test_names_follow_their_grammar(raw, message):
    _values, errors = _expectations.resolve(CATALOG, raw)
    assert any(error.startswith(message) for error in errors), errors


@pytest.mark.parametrize("raw", [
    {"pyramid_rails": ["mlx5_0", "mlx5_10", "bnxt_re0", "ibp23s0", "rocep1s0f0"]},
    {"pyramid_nccl_min_bytes": "1M", "pyramid_nccl_max_bytes": "16G"},
    {"pyramid_nccl_env": {"NCCL_DEBUG": "INFO", "NCCL_IB_HCA": "=mlx5_0:1,mlx5_1:1", "_PRIVATE": "1"}},
    {"pyramid_switch_ports": [{"port": "Ethernet1/1", "peer": "node-001", "peer_port": "ens1f0np0"}, {"port": "swp1s0"},
                              {"port": "et-0/0/0:1", "role": "fabric", "peer": "spine-01.pod.example", "peer_port": "Ethernet49/1"}]},
    {"pyramid_bgp_neighbors": [{"address": "10.0.0.1", "remote_as": 4200000001}]},
])
def test_real_names_pass_their_grammar(raw):
    assert _expectations.resolve(CATALOG, raw)[1] == []


@pytest.mark.parametrize("env", [{"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"},
                                 {"NCCL_DEBUG": "WARN", "NCCL_IB_GID_INDEX": "3"}])
def test_an_nccl_env_that_drops_what_the_judges_read_is_refused_before_any_load(env):
    """The first-run trap (issue 71): the documented root remedy written as the whole dict dropped NCCL_DEBUG=INFO, and
    every NCCL run was then an ERROR 15-20 minutes in. Pre-flight names the entry and how to keep it."""
    _values, errors = _expectations.resolve(CATALOG, {"pyramid_nccl_env": env})
    assert len(errors) == 1 and errors[0].startswith("pyramid_nccl_env has no NCCL_DEBUG=INFO (Layer 5's judges read"), errors
    assert "keep NCCL_DEBUG: INFO beside your own entries" in errors[0], errors
    merged = dict(_expectations.resolve(CATALOG, {})[0]["pyramid_nccl_env"], **env)
    merged["NCCL_DEBUG"] = "INFO"
    assert _expectations.resolve(CATALOG, {"pyramid_nccl_env": merged})[1] == []


def test_a_long_port_plan_is_checked_for_duplicates():
    ports = [{"port": "Ethernet%d" % i, "peer": "node-%d" % i, "rail": "mlx5_0"} for i in range(40000)] + [{"port": "Ethernet7", "peer": "x", "rail": "mlx5_0"}]
    assert _expectations._cross_errors({"pyramid_switch_ports": ports}, CATALOG["expectations"]) == [
        "pyramid_switch_ports: ports listed twice: Ethernet7"]


@pytest.mark.parametrize("given, error", [
    ({"pyramid_optics_rx_min_dbm": -2.0, "pyramid_optics_rx_max_dbm": -3.0},
     "pyramid_optics_rx_min_dbm (-2.0) must be below pyramid_optics_rx_max_dbm (-3.0)"),
    ({"pyramid_bgp_neighbors": [{"address": "spine-1"}]}, "pyramid_bgp_neighbors: 'spine-1' is not an IP address"),
    ({"pyramid_ecmp_prefixes": ["10.50.0.0/33"]}, "pyramid_ecmp_prefixes: '10.50.0.0/33' is not a prefix"),
    ({"pyramid_ib_ports": [{"rail": "mlx5_0"}, {"rail": "mlx5_0"}]}, "pyramid_ib_ports: rails planned twice: mlx5_0"),
    ({"pyramid_nccl_sharp": True, "pyramid_rdma_link_layer": "ethernet"},
     "pyramid_nccl_sharp is true but pyramid_rdma_link_layer is ethernet: SHARP runs on InfiniBand fabrics only"),
])
def test_each_cross_rule_an_area_declares_is_held(given, error):
    """The rules between variables sit in each area's catalog beside the variable (issue 69); the grammar here."""
    assert _expectations._cross_errors(given, CATALOG["expectations"]) == [error]
    assert not any(name in open(_expectations.__file__, encoding="utf-8").read() for name in given)


def test_values_as_ansible_hands_them_are_named_in_the_inventorys_words():
    """Ansible 2.19 hands inventory values in tagged types (_AnsibleTaggedList, a tagged str): a message names the kind
    the person typed (issue 37: "got _AnsibleTaggedList [...]")."""
    from ansible.module_utils._internal._datatag import AnsibleTagHelper  # pylint: disable=import-outside-toplevel
    from ansible._internal._datatag._tags import Origin  # pylint: disable=import-outside-toplevel
    origin = Origin(path="/inventory/group_vars/gpu_nodes.yml", line_num=3)
    tagged = AnsibleTagHelper.tag(["NCCL_DEBUG=INFO"], [origin])
    assert type(tagged).__name__.startswith("_AnsibleTagged")
    _values, errors = _expectations.resolve(CATALOG, {"pyramid_nccl_env": tagged,
                                                      "pyramid_rails": AnsibleTagHelper.tag("mlx5_0", [origin])})
    text = " ".join(errors)
    assert "pyramid_nccl_env must be a mapping (name: value), got a list ['NCCL_DEBUG=INFO']" in text, errors
    assert "Tagged" not in text and "_Ansible" not in text, errors


def test_stack_pins_and_floors_are_quoted_versions_with_reasons():
    """A version typed as a YAML number loses its trailing zeros (2.20 reads 2.2): pins and floors are quoted text, every
    floor has its reason, and a component name is one of the stack's (issue 38)."""
    catalog = _catalog.load_catalog()
    resolve = _expectations.resolve
    good = {"pyramid_stack": {"nccl": "2.21.5", "driver": "550.90.07"},
            "pyramid_stack_min": {"nic_firmware": {"version": "28.39.1002", "reason": "link flaps"}}}
    assert resolve(catalog, good)[1] == []
    for bad, said in (({"pyramid_stack": {"nccl": 2.20}}, "must be a quoted version"),
                      ({"pyramid_stack": {"nccl": ""}}, "must be a quoted version"),
                      ({"pyramid_stack": {"ncl": "2.21.5"}}, "is not a valid stack component"),
                      ({"pyramid_stack_min": {"nccl": {"version": 2.20, "reason": "a hang"}}}, "must be quoted text"),
                      ({"pyramid_stack_min": {"nccl": {"version": "2.20"}}}, "mapping of version and reason"),
                      ({"pyramid_stack_min": {"drivr": {"version": "550", "reason": "x"}}}, "did you mean driver?")):
        errors = resolve(catalog, bad)[1]
        assert any(said in error for error in errors), (bad, errors)
