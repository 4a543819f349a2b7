"""An inbox_rdma twin node (issue 67: rdma-core and iproute2, no ibstat): `rdma link`, with the argv catalog/host.yml
gives it, and the sysfs files of each rail's rate and firmware parse back to the node's rails."""

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
