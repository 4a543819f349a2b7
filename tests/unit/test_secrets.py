"""Secrets stay out of results files, reports and run logs (core/secrets.py)."""

import json

import pytest

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import results as _results
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core.secrets import MASK, mask_text, mask_values
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import fabric_runs as _fabric_runs

SECRET = "s3cr3t-tok3n"


@pytest.mark.parametrize("name", ["NCCL_NET_PLUGIN_TOKEN", "api_key", "AWS_SECRET_ACCESS_KEY", "DB_PASSWORD", "my_credentials", "Passwd"])
def test_secret_looking_names_are_masked_in_text_and_values(name):
    assert mask_text("env %s=%s all_reduce_perf -b 8" % (name, SECRET)) == "env %s=%s all_reduce_perf -b 8" % (name, MASK)
    assert mask_values({name: SECRET}) == {name: MASK}


def test_other_values_are_kept_as_they_are():
    env = {"NCCL_IB_HCA": "mlx5_0,mlx5_3", "NCCL_SOCKET_IFNAME": "eth0", "NCCL_IB_GID_INDEX": 3}
    assert mask_values({"pyramid_nccl_env": env, "pyramid_rails": ["mlx5_0"]}) == {"pyramid_nccl_env": env, "pyramid_rails": ["mlx5_0"]}
    assert mask_text("NCCL_IB_HCA=mlx5_0 mpirun -x NCCL_NET_PLUGIN_TOKEN -np 16") == "NCCL_IB_HCA=mlx5_0 mpirun -x NCCL_NET_PLUGIN_TOKEN -np 16"


def test_nested_expectations_are_masked_at_any_depth():
    masked = mask_values({"pyramid_nccl_env": {"NCCL_NET_PLUGIN_TOKEN": SECRET, "NCCL_DEBUG": "INFO"},
                          "pyramid_train_env": [{"WANDB_API_KEY": SECRET}], "note": "HF_TOKEN=%s" % SECRET})
    assert SECRET not in json.dumps(masked)
    assert masked["pyramid_nccl_env"] == {"NCCL_NET_PLUGIN_TOKEN": MASK, "NCCL_DEBUG": "INFO"}


def test_a_results_file_never_holds_the_secret_and_the_run_keeps_it(tmp_path):
    doc = {"host": "node-001", "facts": {}, "expect": {"pyramid_nccl_env": {"NCCL_NET_PLUGIN_TOKEN": SECRET}},
           "results": [{"layer": 5, "check": "nccl_completes", "status": "PASS", "command": "NCCL_NET_PLUGIN_TOKEN=%s all_reduce_perf" % SECRET}]}
    _results.save(str(tmp_path), doc)
    text = (tmp_path / "devices" / "node-001.json").read_text()
    assert SECRET not in text and MASK in text
    assert doc["expect"]["pyramid_nccl_env"]["NCCL_NET_PLUGIN_TOKEN"] == SECRET  # the run in memory still has it


def test_a_hunt_log_never_holds_the_secret(tmp_path):
    log = _fabric_runs.RunLog(str(tmp_path), 5)
    path = log.write("nccl_pairs", ["a", "b"], {"command": "env HF_TOKEN=%s torchrun x" % SECRET, "status": "ok", "rc": 0,
                                                "stdout": "NCCL INFO NCCL_NET_PLUGIN_TOKEN=%s set by environment\n" % SECRET,
                                                "stderr": "API_KEY=%s" % SECRET})
    text = (tmp_path / path).read_text()
    assert SECRET not in text and text.count(MASK) == 3
