# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A vendor tool that hangs on a host costs one timeout there, not one per rail (issue "Scale and speed": a hung
mlxconfig on 8 rails took 8 timeouts). Real processes under coreutils timeout; what is asserted is which runs
started, never how long they took."""

import os
import shutil
import stat

import pytest

from ansible_collections.gpufabric.pyramid.plugins.modules import collect as _collect

pytestmark = pytest.mark.skipif(shutil.which("timeout") is None, reason="needs coreutils timeout")


class _Module:
    """What _run uses of AnsibleModule: the tools' paths (the commands run for real)."""

    def __init__(self, path):
        self._path = path

    def get_bin_path(self, name):
        return shutil.which(name, path=self._path)


def _tool(directory, name, body):
    path = directory / name
    path.write_text("#!/bin/sh\necho \"$0 $*\" >> %s\n%s\n" % (directory / "started", body))
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


def _started(directory):
    return (directory / "started").read_text().splitlines()


@pytest.fixture
def tools(tmp_path):
    _tool(tmp_path, "mlxconfig", "exec sleep 30")
    _tool(tmp_path, "ibstat", "echo ok")
    return _Module(str(tmp_path) + os.pathsep + os.environ.get("PATH", ""))


def test_a_hung_tool_is_not_started_again_and_its_later_runs_name_the_hang(tools, tmp_path):
    hung = _collect.HungTools()
    results = [_collect.collect_source(tools, [{"run": ["mlxconfig", "-d", rail, "-e", "q"]}], 1, hung_tools=hung)
               for rail in ("mlx5_0", "mlx5_1", "mlx5_2")]
    other = _collect.collect_source(tools, [{"run": ["ibstat"]}], 1, hung_tools=hung)
    assert [line.split("/")[-1] for line in _started(tmp_path)] == ["mlxconfig -d mlx5_0 -e q", "ibstat "]
    assert results[0]["status"] == "timeout" and results[0]["msg"] == "did not finish within 1s (hung?)"
    for result, rail in zip(results[1:], ("mlx5_1", "mlx5_2")):
        assert result["status"] == "timeout" and result["command"] == "mlxconfig -d %s -e q" % rail
        assert result["msg"] == "not run: mlxconfig already hung on this host (mlxconfig -d mlx5_0 -e q: did not finish within 1s (hung?))"
    assert other["status"] == "ok" and other["stdout"] == "ok\n"


def test_a_generic_program_that_hung_still_runs_again(tools, tmp_path):
    hung = _collect.HungTools()
    first = _collect.collect_source(tools, [{"run": ["sh", "-c", "echo one >> %s; exec sleep 30" % (tmp_path / "started")]}], 1,
                                    hung_tools=hung)
    second = _collect.collect_source(tools, [{"run": ["sh", "-c", "echo two >> %s" % (tmp_path / "started")]}], 1,
                                     hung_tools=hung)
    assert first["status"] == "timeout" and second["status"] == "ok"
    assert _started(tmp_path) == ["one", "two"]


def test_without_a_shared_record_each_call_stands_alone(tools, tmp_path):
    for rail in ("mlx5_0", "mlx5_1"):
        assert _collect.collect_source(tools, [{"run": ["mlxconfig", "-d", rail]}], 1)["status"] == "timeout"
    assert len(_started(tmp_path)) == 2
