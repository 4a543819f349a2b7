"""The ground floor names no inventory variable (issue 69): which variables every device is given beyond what its checks
read is declared beside each variable in the catalog (`read_on_every_device`, `read_with_sources`, `choices_from`), not
written in core/catalog.py or core/expectations.py, so an area that needs one more changes its own file only."""

import ast
import copy
import os

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog

CORE = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "plugins", "plugin_utils", "core")
# (file, name): why the ground floor reads it by name
EXCEPTIONS = {("catalog.py", "pyramid_switch_os"): "a switch check's `platforms` are the values of the switch's OS (not_applicable)"}


def _named(path):
    with open(path, encoding="utf-8") as handle:
        tree = ast.parse(handle.read())
    return {node.value for node in ast.walk(tree) if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and node.value.startswith("pyramid_") and node.value.isidentifier()}


def test_core_names_no_inventory_variable_beyond_the_said_exceptions():
    found = {(name, variable) for name in ("catalog.py", "expectations.py") for variable in _named(os.path.join(CORE, name))}
    assert found == set(EXCEPTIONS), "variables named on the ground floor (declare them in the catalog): %s" % sorted(
        found - set(EXCEPTIONS))


def test_what_every_device_is_given_is_read_from_the_declarations():
    catalog = _catalog.load_catalog()
    given = set(_catalog.expectation_names([], catalog))
    assert {"pyramid_enforce_gate", "pyramid_command_timeout", "pyramid_waive", "pyramid_drain"} <= given
    assert given == {name for name, definition in catalog["expectations"].items() if definition.get("read_on_every_device")}
    changed = copy.deepcopy(catalog)
    changed["expectations"]["pyramid_gpus_per_node"]["read_on_every_device"] = "a test's"
    del changed["expectations"]["pyramid_drain"]["read_on_every_device"]
    now = set(_catalog.expectation_names([], changed))
    assert "pyramid_gpus_per_node" in now and "pyramid_drain" not in now


def test_an_expectation_read_with_a_kind_of_source_follows_the_source():
    catalog = _catalog.load_catalog()
    counted = next(check for check in catalog["checks"] if any(catalog["sources"][s].get("counters") for s in check["sources"]))
    launched = next(check for check in catalog["checks"] if any(catalog["sources"][s].get("launched") for s in check["sources"]))
    on_switch = next(check for check in catalog["checks"] if check["device"] == "switch")
    assert "pyramid_soak_seconds" in _catalog.expectation_names([counted], catalog)
    assert "pyramid_nccl_launcher" in _catalog.expectation_names([launched], catalog)
    assert "pyramid_switch_os" in _catalog.expectation_names([on_switch], catalog)
    assert "pyramid_nccl_launcher" not in _catalog.expectation_names([counted], catalog) or counted is launched
    assert catalog["expectations"]["pyramid_nccl_platform"]["choices"] == sorted(catalog["platforms"])
