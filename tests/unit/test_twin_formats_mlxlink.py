"""The twin's `mlxlink -d <rail> -p 1 -c -m` (twin/pyramid_twin/formats_mlxlink.py) read back by the product's parser and
judged by nic_physical_layer as validate.yml would: every rail of a healthy node passes, the nic_ber and nic_module_hot
faults fail on their rail alone with their figures, a rail mlxlink cannot open is no read, and a command the twin does
not simulate says so."""

import yaml

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils import parsing
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog, expectations as _expectations
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.judging import JUDGES
from pyramid_twin import formats_mlxlink, model

CATALOG = _catalog.load_catalog()
CHECK = next(check for check in CATALOG["checks"] if check["id"] == "nic_physical_layer")


def _node(tmp_path, *faults, link_layer=None):
    """node-001 of a two-node scenario with these faults, as the twin renders it (model.load_scenario checks the kinds)."""
    scenario = {"pod": {"nodes": 2, "gpus_per_node": 8, "rails": 8}, "faults": [dict(f, node="node-001") for f in faults]}
    if link_layer:
        scenario["pod"]["node_defaults"] = {"link_layer": link_layer}
    path = tmp_path / ("scenario-%s.yml" % (link_layer or "roce"))
    path.write_text(yaml.safe_dump(scenario), encoding="utf-8")
    return model.node_state(model.load_scenario(str(path)), "node-001")


def _judged(state):
    expect, errors = _expectations.resolve(CATALOG, {})
    assert not errors, errors
    reads = {}
    for rail in expect["pyramid_rails"]:
        argv = CATALOG["sources"]["rail_mlxlink"]["ways"][0]["run"]
        rc, out, err = formats_mlxlink.mlxlink(state, [word.replace("{item}", rail) for word in argv[1:]], {})
        assert rc == 0 and not err, err
        reads[rail] = parsing.parse("linux_mlxlink", out)
    declared = {name: expect[name] for name in CHECK["expect"]}
    return reads, JUDGES["host"][CHECK["judge"]]({"rail_mlxlink": reads}, declared)


def test_a_healthy_node_passes_on_every_rail_roce_and_infiniband(tmp_path):
    for link_layer in (None, "InfiniBand"):
        reads, outcome = _judged(_node(tmp_path, link_layer=link_layer))
        assert outcome["status"] == "PASS", outcome
        assert "8 rails: worst raw BER 2E-09, at most 0 effective errors, modules <= 45 C" == outcome["actual"]
        assert {read["speed"] for read in reads.values()} == {"IB-NDR" if link_layer else "400G"}
        assert {read["effective_ber"] for read in reads.values()} == {1.5e-254}  # 15E-255: none counted


def test_the_faults_fail_on_their_rail_alone_with_their_figures(tmp_path):
    state = _node(tmp_path, {"kind": "nic_ber", "rail": "mlx5_3", "raw_ber": "5E-6", "effective_errors": 7},
                  {"kind": "nic_module_hot", "rail": "mlx5_6", "celsius": 81})
    reads, outcome = _judged(state)
    assert outcome["status"] == "FAIL", outcome
    assert outcome["actual"] == ("mlx5_3: raw (pre-FEC) BER 5E-06 > 1E-07; mlx5_3: 7 effective (post-FEC) errors, BER 1E-12 "
                                 "in the 4320 min since the counters were cleared (at most 0); mlx5_6: module 81 C > 70 C")
    assert reads["mlx5_0"]["raw_ber"] == 2e-9 and reads["mlx5_6"]["temperature_c"] == 81.0


def test_a_device_it_cannot_open_and_an_argv_it_does_not_simulate(tmp_path):
    state = _node(tmp_path)
    rc, out, err = formats_mlxlink.mlxlink(state, ["-d", "mlx5_9", "-p", "1", "-c", "-m"], {})
    assert rc == 1 and not out and err == '-E- Failed to open device: "mlx5_9", No such file or directory\n'
    try:
        parsing.parse("linux_mlxlink", err)
    except parsing.ParseError as exc:
        assert "Failed to open device" in str(exc)
    else:
        raise AssertionError("an -E- line parsed")
    rc, _out, err = formats_mlxlink.mlxlink(state, ["-d", "mlx5_0", "--show_eye"], {})
    assert rc != 0 and "not simulated" in err
