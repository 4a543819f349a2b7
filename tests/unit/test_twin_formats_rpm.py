"""A RHEL-family twin node (issue 67): rpm, with the argv catalog/host.yml gives it, and /etc/os-release parse back to the
node's state, and the node's software_stack is judged on them as an Ubuntu node's is on dpkg-query's."""

import yaml

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils import parsing
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog
from pyramid_twin import fake_tool, formats_rpm, model, render as twin_render

SOURCES = _catalog.load_catalog()["sources"]


def node(tmp_path, faults=()):
    scenario = {"pod": {"nodes": 2}, "faults": [dict(fault, node="node-001") for fault in faults]}
    path = tmp_path / "scenario.yml"
    path.write_text(yaml.safe_dump(scenario))
    return model.node_state(model.load_scenario(str(path)), "node-001")


def way(source, parser):
    return next(each for each in SOURCES[source]["ways"] if each["parser"] == parser)


def test_a_rhel_node_answers_rpm_as_rpm_4_18_does_and_has_no_dpkg_query(tmp_path):
    state = node(tmp_path, [{"kind": "distro", "distro": "rhel"}])
    assert "dpkg-query" in state["tools"]["missing"] and state["kernel_release"] == formats_rpm.RHEL_KERNEL
    query = way("stack_packages", "linux_rpm_query")
    rc, out, err = fake_tool.rpm(state, query["run"][1:], {})
    assert rc == 0 and rc in query["accept_rc"] and err == ""
    facts = parsing.parse("linux_rpm_query", out)
    assert facts["manager"] == "rpm" and facts["not_found"] == []
    assert facts["packages"]["libnccl"]["version"] == state["stack"]["packages"]["libnccl2"]
    assert facts["packages"]["libibverbs"]["version"] == state["stack"]["packages"]["libibverbs1"]
    cuda = way("cuda_runtime_rpm", "linux_rpm_query_all")
    rc, out, err = fake_tool.rpm(state, cuda["run"][1:], {})
    assert rc == 0 and parsing.parse("linux_rpm_query_all", out)["installed"] == ["cuda-cudart-12-4"]
    release = parsing.parse("linux_etc_os_release", formats_rpm.os_release(state))
    assert (release["family"], release["pretty_name"]) == ("rhel", "Rocky Linux 9.4 (Blue Onyx)")


def test_rpm_denies_what_a_rhel_node_lacks_with_its_exit_code(tmp_path):
    state = node(tmp_path, [{"kind": "distro"}, {"kind": "stack", "nccl": None}])
    query = way("stack_packages", "linux_rpm_query")
    rc, out, _err = fake_tool.rpm(state, query["run"][1:], {})
    assert rc == 1 and "package libnccl is not installed\n" in out
    assert parsing.parse("linux_rpm_query", out)["not_found"] == ["libnccl"]


def test_an_ubuntu_node_shows_ubuntu_and_has_no_rpm(tmp_path):
    state = node(tmp_path)
    assert parsing.parse("linux_etc_os_release", formats_rpm.os_release(state))["family"] == "debian"
    target = tmp_path / "render"
    twin_render.render_into(state, str(target), str(target))
    assert not (target / "bin" / "rpm").exists() and (target / "bin" / "dpkg-query").exists()
    assert (target / "fs" / "etc" / "os-release").read_text() == formats_rpm.OS_RELEASE["ubuntu"]


def test_the_twin_os_release_fixture_is_the_renderer_s(tmp_path):
    """tests/unit/parsers/linux_etc_os_release/twin_ubuntu_22_04 is what the twin prints (product and twin on one text)."""
    with open("tests/unit/parsers/linux_etc_os_release/twin_ubuntu_22_04.raw", encoding="utf-8") as handle:
        assert handle.read() == formats_rpm.os_release(node(tmp_path))
