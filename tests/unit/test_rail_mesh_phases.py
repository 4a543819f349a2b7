"""run/rail_mesh_phases.py's device phases (serve, run, stop) over rounds, with a fake rail_servers that keeps the work
directories it was given and holds its arguments to the module's own argument spec: every client read is parsed with the
parser its start was planned with, each round's stop reaches the directory the round before started its servers in,
and nothing is left running. The real module's start and stop are tests/unit/test_rail_servers_stop.py's."""

import glob
import json
import os

from ansible.module_utils.common.arg_spec import ArgumentSpecValidator

from ansible_collections.gpufabric.pyramid.plugins.modules import rail_servers as _rail_servers
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog, expectations as _expectations, results as _results
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.judging import JUDGES
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import rail_mesh as _mesh, rail_mesh_phases as _phases

CATALOG = _catalog.load_catalog()
HOSTS = ["node-001", "node-002", "node-003", "node-004"]
FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "parsers", "perftest_ib_write_bw")
CLIENT_OUTPUT = open(sorted(path for path in glob.glob(os.path.join(FIXTURES, "*.raw")) if "client" in os.path.basename(path))[0],
                     encoding="utf-8").read()


class _RailServers:
    """rail_servers on every node at once: the ids it started in each work directory, until a stop ends them."""

    def __init__(self):
        self.running, self.calls = {}, []

    def __call__(self, given):
        validated = ArgumentSpecValidator(_rail_servers.ARGUMENT_SPEC).validate(given)
        assert not validated.error_messages, validated.error_messages
        args = validated.validated_parameters  # with the module's defaults, as it would run
        self.calls.append(args)
        if args["state"] == "started":
            assert args["workdir"] not in self.running, "a directory started twice: %s" % args["workdir"]
            self.running[args["workdir"]] = [server["id"] for server in args["servers"]]
            return {"servers": {server["id"]: {"status": "listening", "command": " ".join(server["argv"])} for server in args["servers"]}}
        answer = {"servers": self._stop(args["workdir"]), "and_then": [self._stop(step["workdir"]) for step in args["and_then"]]}
        if args.get("then_start"):
            following = args["then_start"]
            self.running[following["workdir"]] = [server["id"] for server in following["servers"]]
            answer["then_started"] = {server["id"]: {"status": "listening", "command": " ".join(server["argv"])}
                                      for server in following["servers"]}
        return answer

    def _stop(self, workdir):
        return {run_id: {"status": "ok", "rc": 0, "command": "ib_write_bw", "stdout": CLIENT_OUTPUT, "stderr": ""}
                for run_id in self.running.pop(workdir, [])}


class _Step:
    def __init__(self, host, expect, servers):
        self.host, self.groups, self.forks, self._expect, self._servers = host, {"gpu_nodes": HOSTS}, None, expect, servers

    def expectations(self, host, catalog, checks, extra=()):  # pylint: disable=unused-argument
        return self._expect

    def execute(self, module, args):
        assert module == "gpufabric.pyramid.rail_servers"
        return self._servers(args)


def test_every_round_stops_what_the_round_before_started_and_each_client_read_names_its_parser(tmp_path):
    run_dir = str(tmp_path)
    for host in HOSTS:  # every node passed the layers below
        _results.save(run_dir, {"host": host, "results": [{"layer": 0, "check": "iommu", "status": "PASS"}], "facts": {}})
    expect, errors = _expectations.resolve(CATALOG, {"pyramid_rdma_gpudirect": False})
    assert not errors, errors
    servers = _RailServers()
    phases = {host: _phases.RailMeshPhases(_Step(host, expect, servers), CATALOG, {"layer": 4}) for host in HOSTS}
    args = {"run_dir": run_dir, "hosts": HOSTS, "layer": 4}
    rounds = phases[HOSTS[0]].plan({}, args)["rounds"]
    assert len(rounds) == 2
    for host in HOSTS:
        assert "servers listening" in phases[host].serve({}, dict(args, round=0))["msg"]
    for index in rounds:
        for host in HOSTS:
            assert "clients started" in phases[host].run({}, dict(args, round=index))["msg"]
        for host in HOSTS:
            following = index + 1 if index + 1 < len(rounds) else ""
            said = phases[host].stop({}, dict(args, round=index, next_round=following))["msg"]
            assert "clients ended" in said and ("round %d: " % (index + 2) in said) == (following != ""), said
    assert servers.running == {}, "left running: %s" % sorted(servers.running)
    plan = _mesh.load_plan(run_dir, 4)
    check = phases[HOSTS[0]]._check  # pylint: disable=protected-access
    runs = _mesh.measured(run_dir, plan, check, JUDGES["rail_mesh"][check["judge"]], lambda host: expect)
    assert runs and all(run["gbps"] for run in runs), [run["actual"] for run in runs if not run["gbps"]][:3]
    with open(os.path.join(run_dir, "mesh", "layer4", "round-1", "node-001.server.json"), encoding="utf-8") as handle:
        assert all(read["parser"] == "perftest_ib_write_bw" for read in json.load(handle).values())


def test_a_node_whose_start_file_is_missing_still_stops_its_servers_directory(tmp_path):
    # the start's task never returned (killed by async, say): the round's stop asks for its servers' directory anyway,
    # so a server started then holds no port the next round's start needs
    run_dir = str(tmp_path)
    expect, _errors = _expectations.resolve(CATALOG, {"pyramid_rdma_gpudirect": False})
    servers = _RailServers()
    phases = {host: _phases.RailMeshPhases(_Step(host, expect, servers), CATALOG, {"layer": 4}) for host in HOSTS}
    for host in HOSTS:
        _results.save(run_dir, {"host": host, "results": [{"layer": 0, "check": "iommu", "status": "PASS"}], "facts": {}})
    args = {"run_dir": run_dir, "hosts": HOSTS, "layer": 4}
    phases[HOSTS[0]].plan({}, args)
    phases["node-001"].serve({}, dict(args, round=0))
    os.remove(os.path.join(run_dir, "mesh", "layer4", "round-1", "node-001.servers_start.json"))
    phases["node-001"].stop({}, dict(args, round=0, next_round=1))
    assert not any("round1-servers-node-001" in workdir for workdir in servers.running), sorted(servers.running)


def test_a_lone_node_whose_name_ends_without_a_number_plans_no_pair_and_no_failure(tmp_path):
    # the lent H200 (inventories/device: gpu-host) stopped at Layer 2 with no report: its rail addresses were asked of
    # the number that ends its name (issue 71) though a lone node pairs with nobody; two such nodes are named
    run_dir = str(tmp_path)
    expect, _errors = _expectations.resolve(CATALOG, {"pyramid_rdma_gpudirect": False})
    servers = _RailServers()
    _results.save(run_dir, {"host": "gpu-host", "results": [{"layer": 0, "check": "iommu", "status": "PASS"}], "facts": {}})
    planned = _phases.RailMeshPhases(_Step("gpu-host", expect, servers), CATALOG, {"layer": 4}).plan(
        {}, {"run_dir": run_dir, "hosts": ["gpu-host"], "layer": 4})
    assert not planned.get("failed") and planned["rounds"] == [], planned
    _results.save(run_dir, {"host": "gpu-b", "results": [{"layer": 0, "check": "iommu", "status": "PASS"}], "facts": {}})
    refused = _phases.RailMeshPhases(_Step("gpu-host", expect, servers), CATALOG, {"layer": 4}).plan(
        {}, {"run_dir": run_dir, "hosts": ["gpu-host", "gpu-b"], "layer": 4})
    assert refused["failed"] and "no number ends the name 'gpu-host'" in refused["msg"], refused
