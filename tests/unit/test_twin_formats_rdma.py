"""An inbox_rdma twin node (issue 67: rdma-core and iproute2, no ibstat): `rdma link` and `rdma -j link show`, with the
argv catalog/host.yml gives them, and the sysfs files of each rail's rate, port GUID and firmware parse back to the node's
rails."""

import yaml

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils import parsing
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog
from pyramid_twin import fake_tool, formats_rdma, model, render as twin_render

SOURCES = _catalog.load_catalog()["sources"]


def node(tmp_path, faults=(), **pod):
    pod.setdefault("nodes", 2)
    scenario = {"pod": pod, "faults": [dict(fault, node="node-001") for fault in faults]}
    path = tmp_path / "scenario.yml"
    path.write_text(yaml.safe_dump(scenario))
    return model.node_state(model.load_scenario(str(path)), "node-001")


def rdma_link_facts(state):
    way = next(each for each in SOURCES["ibstat"]["ways"] if each["parser"] == "linux_rdma_link")
    rc, out, err = fake_tool.rdma(state, way["run"][1:], {})
    assert (rc, err) == (0, "")
    return parsing.parse("linux_rdma_link", out)


def test_an_inbox_node_has_rdma_and_no_ibstat_and_its_rails_parse_back(tmp_path):
    state = node(tmp_path, [{"kind": "inbox_rdma"}, {"kind": "port_state", "rail": "mlx5_2"}])
    assert "ibstat" in state["tools"]["missing"]
    devices = rdma_link_facts(state)["devices"]
    assert sorted(devices) == [rail["device"] for rail in state["rails"]]
    for rail in state["rails"]:
        port = devices[rail["device"]]["ports"]["1"]
        assert (port["state"], port["phys_state"], port["link_layer"], port["netdev"]) == (
            rail["state"], rail["phys_state"], rail["link_layer"], rail["netdev"])
    assert devices["mlx5_2"]["ports"]["1"]["state"] == "Down"
    target = tmp_path / "render"
    twin_render.render_into(state, str(target), str(target))
    assert (target / "bin" / "rdma").exists() and not (target / "bin" / "ibstat").exists()


def test_an_infiniband_inbox_node_shows_its_lids(tmp_path):
    state = node(tmp_path, [{"kind": "inbox_rdma"}], node_defaults={"link_layer": "InfiniBand"})
    port = rdma_link_facts(state)["devices"]["mlx5_0"]["ports"]["1"]
    assert port["link_layer"] == "InfiniBand" and port["lid"] == 17 and port["state"] == "Active"


def test_the_json_form_says_what_the_text_form_says(tmp_path):
    """`rdma -j link show`, the ibstat source's way before the text one, with its argv: the same facts, RoCE and IB."""
    way = next(each for each in SOURCES["ibstat"]["ways"] if each["parser"] == "linux_rdma_link_json")
    for defaults in ({}, {"link_layer": "InfiniBand"}):
        state = node(tmp_path, [{"kind": "inbox_rdma"}, {"kind": "port_state", "rail": "mlx5_2"}], node_defaults=defaults)
        rc, out, err = fake_tool.rdma(state, way["run"][1:], {})
        assert (rc, err) == (0, "") and out.startswith("[{") and out.endswith("}]\n")
        assert parsing.parse("linux_rdma_link_json", out) == rdma_link_facts(state)


def test_rdma_answers_what_it_does_not_simulate_as_iproute2_does(tmp_path):
    state = node(tmp_path, [{"kind": "inbox_rdma"}])
    rc, out, err = fake_tool.rdma(state, ["-x", "link"], {})
    assert (rc, out) == (1, "") and err.startswith("Unknown option.\nUsage: rdma [ OPTIONS ] OBJECT")
    assert fake_tool.rdma(state, ["lnk"], {}) == (0, "", "Unknown object 'lnk'.\n")  # rd_exec_cmd: exit 0
    assert fake_tool.rdma(state, ["link", "set"], {}) == (0, "", "Unknown link command 'set'.\n")
    assert fake_tool.rdma(state, ["dev", "show"], {})[0] == fake_tool.NOT_SIMULATED
    assert fake_tool.rdma(state, ["link", "show", "-j"], {})[1].startswith("[{")  # getopt_long: an option anywhere


def test_each_rail_s_port_guid_and_node_guid_files_parse_back(tmp_path):
    """ports/1/gids/0 (GID 0: the port GUID ibstat prints, where rail_port_guid_sysfs reads it) and node_guid."""
    state = node(tmp_path, [{"kind": "inbox_rdma"}], node_defaults={"link_layer": "InfiniBand"})
    files = formats_rdma.sys_files(state)
    for rail in state["rails"]:
        base = "/sys/class/infiniband/%s/" % rail["device"]
        assert parsing.parse("linux_sysfs_ib_gid", files[base + "ports/1/gids/0"])["port_guid"] == rail["port_guid"]
        assert int(files[base + "node_guid"].replace(":", ""), 16) == int(rail["node_guid"], 16)
    assert files["/sys/class/infiniband/mlx5_0/node_guid"] == "a088:c203:0000:0100\n"


def test_each_rail_s_rate_and_firmware_files_parse_back(tmp_path):
    state = node(tmp_path, [{"kind": "rail_rate", "rail": "mlx5_3", "rate": 100}, {"kind": "firmware", "version": "28.37.1014"}])
    files = formats_rdma.sys_files(state)
    for rail in state["rails"]:
        base = "/sys/class/infiniband/%s/" % rail["device"]
        assert parsing.parse("linux_sysfs_ib_rate", files[base + "ports/1/rate"])["rate_gbps"] == rail["rate"]
        assert parsing.parse("linux_sysfs_fw_ver", files[base + "fw_ver"])["firmware"] == rail["firmware"] == "28.37.1014"
    assert files["/sys/class/infiniband/mlx5_3/ports/1/rate"] == "100 Gb/sec (4X EDR)\n"


def test_a_node_of_the_twin_s_usual_kind_has_neither_rdma_nor_rpm(tmp_path):
    target = tmp_path / "render"
    twin_render.render_into(node(tmp_path), str(target), str(target))
    assert not (target / "bin" / "rdma").exists() and not (target / "bin" / "rpm").exists()
    assert "missing rpm rdma\n" in (target / "node.meta").read_text()  # the host's own copies masked (namespace.py)
