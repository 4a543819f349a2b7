"""The twin's kernel modules as rdma_modules reads them (issue 66: read, don't infer): /proc/modules, /sys/module and
modinfo rendered from one node's state, parsed back with the product's parsers and judged as validate.yml does. A
healthy node's modules are loaded; with rdma_built_in (the lent H200's kernel) they are built in, ib_uverbs with no
/sys/module directory, and only modinfo's "filename: (builtin)" proves it."""

import os

import yaml

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog, expectations as _expectations
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import engine as _engine
from pyramid_twin import fake_tool, formats, model, render

CATALOG = _catalog.load_catalog()
CHECK = next(check for check in CATALOG["checks"] if check["id"] == "rdma_modules")
RDMA = ("mlx5_core", "mlx5_ib", "ib_core", "ib_uverbs")


def _state(tmp_path, *faults):
    scenario = {"pod": {"nodes": 1, "gpus_per_node": 1}, "faults": [dict(fault, node="node-001") for fault in faults]}
    path = tmp_path / "scenario.yml"
    path.write_text(yaml.safe_dump(scenario))
    return model.node_state(model.load_scenario(str(path)), "node-001")


def _read(tmp_path, state, modinfo=True):
    """The facts of rdma_modules' sources on the twin's node: each read as the collector makes it."""
    root = tmp_path / "sys_module"
    render._sys_module(str(root), formats.proc_modules(state), state["builtin_modules"])  # pylint: disable=protected-access

    def parsed(parser, text, command):
        return _engine.parse_one({"status": "ok", "stdout": text, "command": command, "parser": parser})

    def sysfs(name):
        folder = root / name
        if (folder / "initstate").exists():
            return parsed("linux_sysfs_module_initstate", (folder / "initstate").read_text(), "cat initstate")
        if folder.is_dir():
            return parsed("linux_dir_listing", "".join(entry + "\n" for entry in sorted(os.listdir(str(folder)))), "ls")
        return _engine.SourceFailure("ls /sys/module/%s" % name, "does not exist", "missing")

    facts = {"kernel_modules": parsed("linux_proc_modules", formats.proc_modules(state), "cat /proc/modules"),
             "module_sysfs": {name: sysfs(name) for name in RDMA}}
    if modinfo:
        answers = {name: fake_tool.modinfo(state, [name], {}) for name in RDMA}
        facts["module_builtin"] = {name: parsed("linux_modinfo_where", out + err, "modinfo " + name)
                                   for name, (_rc, out, err) in answers.items()}
    return facts


def _judged(facts):
    expect, errors = _expectations.resolve(CATALOG, {})
    assert not errors, errors
    return _engine.judge_host("node-001", CHECK, CATALOG, facts, expect)


def test_a_healthy_node_has_its_modules_loaded_and_modinfo_shows_their_files(tmp_path):
    state = _state(tmp_path)
    facts = _read(tmp_path, state)
    assert all(not facts["module_builtin"][name]["builtin"] for name in RDMA)
    assert facts["module_builtin"]["ib_uverbs"]["filename"] == "/lib/modules/5.15.0-119-generic/updates/dkms/ib_uverbs.ko"
    record = _judged(facts)
    assert record["status"] == "PASS" and record["actual"] == "all loaded", record


def test_the_built_in_rdma_stack_is_proven_by_modinfo_and_ib_uverbs_is_never_inferred(tmp_path):
    state = _state(tmp_path, {"kind": "rdma_built_in"})
    facts = _read(tmp_path, state)
    assert not set(RDMA) & set(facts["kernel_modules"]["modules"])  # never in /proc/modules
    assert facts["module_sysfs"]["mlx5_core"] == {"entries": ["drivers", "parameters", "uevent"]}  # no initstate
    assert isinstance(facts["module_sysfs"]["ib_uverbs"], _engine.SourceFailure)  # no directory at all, as on the H200
    record = _judged(facts)
    assert record["status"] == "PASS", record
    assert "(modinfo: filename (builtin), from the kernel's modules.builtin.modinfo): ib_uverbs" in record["actual"]
    # the same node, modinfo not read: the module a built-in one may need is named as not proven, never a PASS
    record = _judged(_read(tmp_path / "again", state, modinfo=False))
    assert record["status"] == "ERROR" and record["actual"].startswith("ib_uverbs not proven: "), record


def test_modinfo_of_a_module_the_node_lacks_says_so_on_stderr_with_exit_1(tmp_path):
    rc, out, err = fake_tool.modinfo(_state(tmp_path), ["bnxt_re"], {})
    assert (rc, out, err) == (1, "", "modinfo: ERROR: Module bnxt_re not found.\n")
