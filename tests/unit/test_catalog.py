"""The catalog is consistent, and the docs are generated from it."""

import copy
import os
import re
import shutil
import subprocess
import sys

import pytest
import yaml

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import catalog_references as _references, engine as _engine

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CATALOG = _catalog.load_catalog()


def test_every_layer0_row_of_the_seed_checklist_is_covered():
    covered = {c["row"] for c in CATALOG["checks"]}
    assert {"iommu", "kernel", "rdma_driver", "gpudirect", "nic_firmware", "topology"} <= covered


def test_every_check_has_cause_and_go_back_to():
    for check in CATALOG["checks"]:
        assert check["cause"].strip() and check["go_back_to"].strip(), check["id"]


def test_each_command_is_planned_once_per_host():
    checks = _catalog.checks_at(CATALOG, 0)
    expect = {"pyramid_rails": ["mlx5_0", "mlx5_1"], "pyramid_dcgm_diag_level": 1, "pyramid_dcgm_diag_timeout": 300,
              "pyramid_rdma_modules": ["mlx5_core", "mlx5_ib"]}
    planned = _engine.reads(_engine.source_names(checks), CATALOG, expect)
    ids = [p["id"] for p in planned]
    assert len(ids) == len(set(ids))
    assert "mlxconfig[mlx5_1]" in ids and ["mlxconfig", "-d", "mlx5_1", "-e", "q"] == planned[ids.index("mlxconfig[mlx5_1]")]["ways"][0]["run"]


def test_the_shipped_catalog_names_only_parsers_judges_and_rounds_that_exist():
    assert _references.problems(CATALOG) == []


@pytest.mark.parametrize("edit, said", [
    (("judge: gpudirect", "judge: no_such_judge"), "check gpudirect: unknown host judge 'no_such_judge'"),
    (("judge: nccl_node_busbw", "judge: gpudirect"), "unknown pod judge 'gpudirect'"),  # a host judge is no pod judge
    (("parser: linux_lsmod", "parser: no_such_parser"), "unknown parser 'no_such_parser'"),
    # a check's own keys (catalog/kinds.yml check_fields) name what the runners and the report know, or are refused
    (("round: scale", "round: scales"), "check nccl_scale: unknown round 'scales' of the straggler hunt"),
    (("traffic: all_to_all", "traffic: alltoall"), "check nccl_alltoall_pod: unknown traffic 'alltoall'"),
    (("figure: gbps, compared_with: rdma_write_bw", "figure: gbps, compared_with: rdma_write"), "check rdma_gpudirect_bw: a picture"),
    (("tail_sources: [sw_pfc]", "tail_sources: [sw_ecn_marks]"), "check incast_leaf: tail_sources names sw_ecn_marks, not a source it reads"),
    (("leaves_from: {node: ibstat,", "leaves_from: {node: ibstatus,"), "check incast_ib: leaves_from names ibstatus"),
])
def test_a_catalog_naming_what_nothing_registers_is_refused_at_preflight(edited_catalog, edit, said):
    catalog = edited_catalog(*edit)  # what the catalog says of itself is whole
    with pytest.raises(_catalog.CatalogError, match=said):
        _references.check(catalog)


def test_docs_are_generated_from_the_catalog():
    result = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "gen_docs.py"), "--check"],
                            capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr


def test_a_switch_check_declares_the_platforms_it_applies_to(edited_catalog):
    # the default: all four; a check for fewer needs ways for those only (fec_counters: EOS and SONiC so far)
    # pfc_enabled: all four since EOS reads the running-config (issue 11)
    fewer = {"fec_counters": ["eos", "sonic"], "roce_port_qos": ["eos", "nxos", "cumulus"]}
    assert all(c["platforms"] == list(_catalog.SWITCH_OSES) for c in _catalog.checks_for(CATALOG, "switch") if c["id"] not in fewer)
    for cid, platforms in fewer.items():
        assert next(c for c in CATALOG["checks"] if c["id"] == cid)["platforms"] == platforms
    catalog = edited_catalog("judge: link_errors\n", "judge: link_errors\n    platforms: [eos, sonic]\n")
    check = next(c for c in catalog["checks"] if c["id"] == "link_errors")
    assert check["platforms"] == ["eos", "sonic"]
    assert _catalog.not_applicable(check, {"pyramid_switch_os": "eos"}) is None
    why = _catalog.not_applicable(check, {"pyramid_switch_os": "cumulus"})
    assert why.startswith("not applicable on cumulus") and "eos, sonic" in why
    gpu_check = next(c for c in catalog["checks"] if c["device"] == "gpu_node")
    assert "platforms" not in gpu_check and _catalog.not_applicable(gpu_check, {}) is None


def test_platforms_must_be_known_switch_platforms(edited_catalog):
    with pytest.raises(_catalog.CatalogError, match="platforms is a non-empty list"):
        edited_catalog("judge: link_errors\n", "judge: link_errors\n    platforms: [junos]\n")
    with pytest.raises(_catalog.CatalogError, match="platforms is a non-empty list"):
        edited_catalog("judge: gpudirect\n", "judge: gpudirect\n    platforms: [eos]\n")


def test_a_judge_sees_only_the_expectations_its_check_declares():
    check = next(c for c in CATALOG["checks"] if c["id"] == "rails_rate")
    expect = {"pyramid_rails": ["mlx5_0"], "pyramid_rail_rate_gbps": 400, "pyramid_nccl_timeout": 60}
    assert _engine.declared(check, expect) == {"pyramid_rails": ["mlx5_0"], "pyramid_rail_rate_gbps": 400}


def test_a_judge_reading_an_undeclared_expectation_is_an_error_not_a_pass():
    check = dict(next(c for c in CATALOG["checks"] if c["id"] == "rails_rate"), expect=["pyramid_rails"])
    facts = {"ibstat": {"devices": {"mlx5_0": {"ports": {"1": {"state": "Active", "phys_state": "LinkUp", "rate_gbps": 400}}}}}}
    record = _engine.judge_host("node-001", check, CATALOG, facts, {"pyramid_rails": ["mlx5_0"], "pyramid_rail_rate_gbps": 400})
    assert record["status"] == "ERROR" and "pyramid_rail_rate_gbps" in record["actual"]


def test_the_areas_merge_in_the_index_order_and_may_not_redefine(edited_catalog):
    """The index lists the areas: their checks run within a layer, and list within a row, in that order."""
    order = [c["id"] for c in CATALOG["checks"] if c["layer"] == 0 and c["scope"] == "host"]
    assert order.index("gpu_nic_affinity") < order.index("gpu_xid")  # host before gpu_health, as listed
    area = {"sources": {"area_source": {"ways": [{"read": "/proc/version", "parser": "linux_proc_osrelease"}]}},
            "checks": [{"id": "area_check", "layer": 0, "row": "gpu_health", "title": "t", "sources": ["area_source"],
                        "judge": "kernel_params", "cause": "c", "go_back_to": "g"}]}
    catalog = edited_catalog("  - host ", "  - extra\n  - host ", files={"extra.yml": yaml.safe_dump(area)})
    ids = [c["id"] for c in catalog["checks"]]
    assert ids[0] == "area_check" and "area_source" in catalog["sources"]
    area["sources"] = {"cmdline": area["sources"]["area_source"]}
    with pytest.raises(_catalog.CatalogError, match="sources already defined: cmdline"):
        edited_catalog("  - host ", "  - extra\n  - host ", files={"extra.yml": yaml.safe_dump(area)})


@pytest.mark.parametrize("old, new, files, said", [
    (None, None, {"stray.yml": "checks: []\n"}, "files not listed under areas: stray.yml"),  # never silently ignored
    ("  - telemetry ", "  - telemetry\n  - nowhere ", None, "areas not found: nowhere.yml"),
    ("  - telemetry ", "  - telemetry\n  - host ", None, "an area is listed twice"),
    (None, None, {"telemetry.yml": "rows: []\n"}, r"unknown keys \['rows'\] \(rows live in the index\)"),
    ("\nareas:\n", "\nchecks: []\nareas:\n", None, "sources and checks live in the areas"),
    ("  - telemetry ", "  - ../telemetry ", None, "areas is a list of file names beside it"),  # never a file elsewhere
    ("  - id: qos_load\n", "  - name: qos_load\n", None, "each row has an id"),
    ("  - id: qos_load\n    title: \"No PFC storms under load\"\n    layer: 3\n", "", None, "unknown row 'qos_load'"),
    # a fabric check says which round of the hunt runs it, a mesh check what it expects (catalog/kinds.yml keys)
    ("    round: pairs\n", "", None, "check nccl_pairs: a fabric check names its round"),
    ('    wanted: "ib_write_bw >= {pyramid_rdma_gbps_min:g} Gb/s"\n', "", None, "check rdma_write_bw: a rail_mesh check names its wanted"),
    ("    picture: {name: busbw}\n", "    picture: busbw\n", None, "check nccl_node_busbw: picture is a dict"),
])
def test_an_index_or_area_that_contradicts_itself_is_refused(edited_catalog, old, new, files, said):
    with pytest.raises(_catalog.CatalogError, match=said):
        edited_catalog(old, new, files=files)


def test_the_rows_read_top_to_bottom_in_layer_order(edited_catalog):
    assert [row["layer"] for row in CATALOG["rows"]] == sorted(row["layer"] for row in CATALOG["rows"])
    with pytest.raises(_catalog.CatalogError, match="in layer order"):
        edited_catalog('title: "Telemetry plumbed"\n    layer: 7', 'title: "Telemetry plumbed"\n    layer: 2')


def test_the_c_and_the_python_loader_read_every_catalog_file_alike():
    """The catalog is parsed with libyaml where PyYAML has it (every worker process parses it once per task): the pure
    Python loader, its fallback, must read the same catalog."""
    assert _catalog.SAFE_LOADER is (yaml.CSafeLoader if yaml.__with_libyaml__ else yaml.SafeLoader)
    folder = os.path.dirname(os.path.abspath(_catalog.CATALOG_PATH))
    for name in sorted(os.listdir(folder)):
        if name.endswith(".yml"):
            with open(os.path.join(folder, name), encoding="utf-8") as handle:
                text = handle.read()
            assert yaml.load(text, Loader=_catalog.SAFE_LOADER) == yaml.load(text, Loader=yaml.SafeLoader), name  # nosec B506


# A parser no way of the catalog names, but another parser calls on part of its output (its template's rows).
READ_INSIDE = {"nccl_debug": "the NCCL_DEBUG lines an nccl-tests run prints among its table (parsing/nccl.py)"}
# Parsers of real outputs landed before the way that runs them (issue 67): each says what is left to wire. Once a way
# names one, the test below fails until its line is removed here.
NOT_YET_A_WAY = {
    "linux_ibdev2netdev": "each rail's netdev is read from the files ibdev2netdev itself reads, which every host has "
                          "(/sys/class/infiniband/<rail>/device/net: roce_host.yml rail_netdev, payloads/rail_netdev.py); "
                          "ibdev2netdev is MLNX_OFED's and DOCA's script, absent from the inbox stack, and as a way after "
                          "that read it would run only where the same files failed it",
    "linux_perfquery": "one port's counters, not the subnet's: ib_port_counters stays the reader's whole-subnet read; "
                       "a node-side source (perfquery -C <rail> -P 1, read a soak apart) for ib_port_errors where the "
                       "pod read failed, proving the CA end and naming the leaf end unproven, is not built yet",
}

# Parsers of what a run reads outside the catalog's checks: the hand-over to the scheduler (run/handover.py) reads the
# scheduler's state before it changes it; its tests read sinfo after.
READ_BY_THE_HANDOVER = {"slurm_scontrol_show_node": "the Slurm nodes' state before a drain or a resume",
                        "slurm_sinfo_nodes": "the tests' look at what the drain left in Slurm (tests/e2e/test_validate_drain.py)",
                        "kubernetes_get_nodes_json": "the Kubernetes nodes' cordons and taints before a drain or a resume"}


def test_every_parser_is_reached_by_a_way_of_the_catalog_or_read_inside_another():
    from ansible_collections.gpufabric.pyramid.plugins.plugin_utils import parsing
    named = {way["parser"] for source in CATALOG["sources"].values() for way in source["ways"]}
    assert sorted(set(parsing.PARSERS) - named - set(READ_INSIDE) - set(NOT_YET_A_WAY) - set(READ_BY_THE_HANDOVER)) == []
    assert not set(READ_INSIDE) & named and set(READ_INSIDE) <= set(parsing.PARSERS)
    assert not set(NOT_YET_A_WAY) & named and set(NOT_YET_A_WAY) <= set(parsing.PARSERS)


@pytest.mark.parametrize("old, new, words", [
    ("    read_on: ib_fabric_hosts\n", "    read_on: ''\n", "source ib_link_info: read_on names the inventory group"),
    ("  - id: ib_links\n    layer: 1\n    row: links\n    scope: pod\n", "  - id: ib_links\n    layer: 1\n    row: links\n",
     "check ib_links: a source read on one host for the pod (read_on) is read by pod and incast and link checks only"),
    ("only_if: {pyramid_rdma_link_layer: infiniband}\n    title: \"Every rail's",
     "only_if: {pyramid_rdma_link_layr: infiniband}\n    title: \"Every rail's", "check ib_links: only_if maps expectations"),
])
def test_a_read_on_source_or_an_only_if_that_cannot_be_kept_is_refused(edited_catalog, old, new, words):
    with pytest.raises(_catalog.CatalogError) as refused:
        edited_catalog(old, new)
    assert words in str(refused.value) and str(refused.value).count(words) == 1


def test_a_source_written_like_another_takes_its_ways_with_its_words_changed():
    """nccl_fabric's launchers are written once: the all-to-all, all-gather and reduce-scatter across nodes change a
    word (the nccl-tests binary) or add words (the built-in's --op) in each of its ways, and keep every other field."""
    catalog = _catalog.load_catalog()
    base, derived = catalog["sources"]["nccl_fabric"], catalog["sources"]["nccl_fabric_all_gather"]
    assert len(derived["ways"]) == len(base["ways"]) == 4 and derived["launched"] and "like" not in derived
    for mine, theirs in zip(derived["ways"], base["ways"]):
        assert {k: v for k, v in mine.items() if k != "run"} == {k: v for k, v in theirs.items() if k != "run"}
        assert "all_reduce_perf" not in mine["run"]
        assert [word for word in mine["run"] if word not in theirs["run"]] in (["all_gather_perf"], ["--op", "all_gather"])
    assert derived["load"] == "NCCL all-gather across the whole pod" != base["load"]


@pytest.mark.parametrize("old, new, said", [
    ("    like: nccl_fabric\n    words: {all_reduce_perf: all_gather_perf,", "    like: nowhere\n    words: {all_reduce_perf: all_gather_perf,",
     "source nccl_fabric_all_gather: like names a source written out"),
    ("    like: nccl_fabric\n    words: {all_reduce_perf: all_gather_perf,", "    like: nccl_fabric_alltoall\n    words: {all_reduce_perf: all_gather_perf,",
     "not itself derived"),
    ("words: {all_reduce_perf: all_gather_perf,", "words: {all_reduce: all_gather_perf,",
     "source nccl_fabric_all_gather: words not in nccl_fabric's command lines: all_reduce"),  # a typo never runs all_reduce_perf
    # a way of the base naming its binary by path would keep running all-reduce under the all-gather's name
    ('''"--gpus-per-node={pyramid_gpus_per_node}", --export=ALL,\n              all_reduce_perf,''',
     '''"--gpus-per-node={pyramid_gpus_per_node}", --export=ALL,\n              /opt/nccl-tests/build/all_reduce_perf,''',
     "nccl_fabric's way 2 holds none of the words to change"),
    ("words: {all_reduce_perf: all_gather_perf,", "words: {all_reduce_perf: null,", "each word changes into a word or a list of words"),
    ("words: {all_reduce_perf: all_gather_perf,", "words: {all_reduce_perf: [],", "each word changes into a word or a list of words"),
    ('    load: "NCCL all-gather across the whole pod"\n', "", "the source says its own load"),
])
def test_a_source_like_another_that_cannot_be_derived_is_refused(edited_catalog, old, new, said):
    with pytest.raises(_catalog.CatalogError, match=said):
        edited_catalog(old, new)


@pytest.mark.parametrize("change, problem", [
    (lambda kinds: kinds["kinds"]["link"].update(judged="rack"), "kind link: judged is one of device, pod"),
    (lambda kinds: kinds["kinds"]["rail_mesh"].update(shape="ring"), "kind rail_mesh: unknown key shape"),
    (lambda kinds: kinds["kinds"]["host"].pop("on_device"), "kind host: missing on_device"),
    (lambda kinds: kinds["kinds"]["fabric"].update(across_nodes="yes"), "kind fabric: across_nodes is a bool"),
    (lambda kinds: kinds["check_fields"].update(colour={"type": "colour", "text": "its colour"}),
     "check_fields colour: a type of str, int, list, dict, bool and a text"),
    (lambda kinds: kinds.update(extra={}), "holds kind_fields, kinds and check_fields, nothing else"),
])
def test_the_kinds_declaration_is_held_to_its_own_fields(tmp_path, change, problem):
    """catalog/kinds.yml declares the kinds of run and the keys a kind and a check may carry (issue 69): the loader
    learns them from it and refuses a declaration its own fields do not allow, naming it."""
    folder = tmp_path / "catalog"
    shutil.copytree(os.path.dirname(_catalog.CATALOG_PATH), folder)
    with open(folder / "kinds.yml", encoding="utf-8") as handle:
        kinds = yaml.safe_load(handle)
    change(kinds)
    (folder / "kinds.yml").write_text(yaml.safe_dump(kinds), encoding="utf-8")
    with pytest.raises(_catalog.CatalogError, match=re.escape(problem)):
        _catalog.load_declarations(str(folder / "checklist.yml"))


def test_a_check_key_the_declaration_does_not_list_is_refused_and_one_it_lists_is_typed():
    catalog = copy.deepcopy(CATALOG)
    catalog["checks"][0]["colour"] = "blue"
    catalog["checks"][1]["row_alone"] = "no"
    with pytest.raises(_catalog.CatalogError) as refused:
        _catalog._check(catalog)  # pylint: disable=protected-access
    assert "check %s: unknown key colour" % catalog["checks"][0]["id"] in str(refused.value)
    assert "check %s: row_alone is a bool" % catalog["checks"][1]["id"] in str(refused.value)
