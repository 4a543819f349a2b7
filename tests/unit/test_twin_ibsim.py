"""The twin's ibsim pods (twin/pyramid_twin/ibsim.py): the subnet handed to ibsim as an ibnetdiscover topology, the
LIDs handed to opensm, and the scenarios the real stack can take. The real stack itself runs in
tests/e2e/test_validate_infiniband_ibsim.py."""

import os
import signal
import time

import pytest

from pyramid_twin import formats_infiniband, ibsim, model


def _pod(tmp_path, faults="[]", pod=""):
    path = tmp_path / "ib.yml"
    settings = "nodes: 2, rails: 2, ib_stack: ibsim, node_defaults: {link_layer: InfiniBand, rate: 200}"
    if pod.startswith(", nodes:"):  # another pod size
        settings, pod = settings.replace("nodes: 2", pod[2:]), ""
    path.write_text("pod: {%s%s}\nfaults: %s\n" % (settings, pod, faults))
    scenario = model.load_scenario(str(path))
    return scenario, [model.node_state(scenario, name) for name in model.node_names(scenario)]


def test_the_topology_gives_both_ends_of_each_link_its_width_and_speed_and_the_sm_host_a_port(tmp_path):
    _scenario, nodes = _pod(tmp_path, "[{node: node-002, kind: ib_link, rail: mlx5_1, width: 1X}]")
    switches, cas = ibsim.with_sm_host(*formats_infiniband.subnet(nodes), nodes[0]["ib_sm"])
    text = ibsim.topology(switches, cas)
    port_guid = nodes[1]["rails"][1]["port_guid"]  # node-002 mlx5_1: its node GUID + 1, as ibsim gives a CA's port
    assert int(port_guid, 16) == int(nodes[1]["rails"][1]["node_guid"], 16) + 1
    ca = ibsim.ca_id(port_guid)
    assert ca == "H-%016x" % int(nodes[1]["rails"][1]["node_guid"], 16)
    # the leaf's side and the CA's side of the 1X link, each with the link column ibsim reads its width and speed from
    assert '[2]\t"%s"[1](%s)\t\t# "node-002 mlx5_1" lid 8 1xHDR' % (ca, port_guid[2:]) in text
    assert '[1](%s) \t"S-0c42a10300000002"[2]\t\t# lid 8 lmc 0 "leaf1-r1" lid 2 1xHDR' % port_guid[2:] in text
    assert text.count("4xHDR") == 2 * (3 + 4 + 1)  # 3 healthy rails, 4 leaf-spine links, the SM host: both ends each
    # opensm's HCA on the first leaf's last port, at the LID and GUID every node's ibstat names as its SM's: past every
    # node's (node index * 16 + rail + 1, its ibstat's Base lid)
    sm = nodes[0]["ib_sm"]
    assert sm["guid"] == model.IBSIM_SM_HOST_PORT_GUID and sm["lid"] == 3 * 16 + 1
    assert '[64]\t"%s"[1](%s)\t\t# "ufm-01 mlx5_0" lid 49 4xHDR' % (ibsim.ca_id(sm["guid"]), sm["guid"][2:]) in text
    assert "0x%016x 49 49" % int(sm["guid"], 16) in ibsim.guid2lid(switches, cas).splitlines()


def test_the_cas_take_the_lids_their_ibstat_shows(tmp_path):
    _scenario, nodes = _pod(tmp_path)
    lids = {"%s %s" % (node["hostname"], rail["device"]): node["index"] * 16 + number + 1
            for node in nodes for number, rail in enumerate(node["rails"])}
    switches, cas = ibsim.with_lids(*formats_infiniband.subnet(nodes), lids)
    assert {description: lid for description, _guid, lid, _port in cas} == lids == {
        "node-001 mlx5_0": 17, "node-001 mlx5_1": 18, "node-002 mlx5_0": 33, "node-002 mlx5_1": 34}
    leaf = dict(switches[0][3])
    assert leaf[2]["remote"] == {"lid": 33, "port": 1, "name": "node-002 mlx5_0"}  # the far end's LID moved with it
    assert "0x%016x 33 33" % int(nodes[1]["rails"][0]["port_guid"], 16) in ibsim.guid2lid(switches, cas)


def test_a_crossed_pair_of_cables_is_crossed_in_the_topology(tmp_path):
    _scenario, nodes = _pod(tmp_path, "[{node: node-001, kind: ib_cable_swap, rails: [0, 1]}]")
    text = ibsim.topology(*formats_infiniband.subnet(nodes))
    leaf0 = text.split("\n\n")[0]
    assert '# "node-001 mlx5_1"' in leaf0 and '# "node-001 mlx5_0"' not in leaf0


@pytest.mark.parametrize("faults, pod, said", [
    ("[]", ", ib_sm: {restarts: true}", "takes no pod.ib_sm.restarts"),
    ("[]", ", ib_sm: {node: node-002, rail: mlx5_0, state: stopped}", "a stray master .pod.ib_sm node. is not stopped"),
    ("[]", ", nodes: 33", "one scalable unit"),
    ("[{node: node-001, kind: port_state, rail: mlx5_0, state: Initializing, phys_state: LinkUp}]", "", ", not port_state$"),
    ("[{node: node-001, kind: ib_sm_lid, rail: mlx5_0}]", "", ", not ib_sm_lid$"),
    ("[{node: node-001, kind: ib_link, rail: mlx5_0, speed_gbps: 106.25}]", "", "at 2.5, .* Gbps only, not 106.25"),
])
def test_what_the_real_stack_cannot_show_is_refused_by_name(tmp_path, faults, pod, said):
    with pytest.raises(model.ScenarioError, match=said):
        _pod(tmp_path, faults, pod)


def test_an_ndr_pod_is_refused_ibsim_trains_at_hdr_at_most(tmp_path):
    path = tmp_path / "ib.yml"
    path.write_text("pod: {nodes: 2, ib_stack: ibsim, node_defaults: {link_layer: InfiniBand}}\nfaults: []\n")
    with pytest.raises(model.ScenarioError, match="HDR at most"):
        model.load_scenario(str(path))


def test_a_pod_without_the_stack_says_where_it_should_be(monkeypatch, tmp_path):
    monkeypatch.setattr(ibsim, "STACK", str(tmp_path / "nothing"))
    monkeypatch.setattr(ibsim, "UMAD2SIM", str(tmp_path / "nothing" / "libumad2sim.so"))
    assert "make setup" in ibsim.missing()


def test_the_scenario_and_the_topology_know_the_same_lane_speeds():
    assert tuple(model.IBSIM_LANE_GBPS) == tuple(ibsim.SPEED_WORD)


def _files_closed(pid):
    """The process has closed its files: gone, or a zombie (Z) or dead (X) waiting to be reaped."""
    try:
        with open("/proc/%d/stat" % pid, encoding="utf-8") as handle:
            return handle.read().rsplit(")", 1)[-1].split()[0] in ("Z", "X")
    except OSError:
        return True


def test_a_pods_stack_starts_once_and_over_again_from_nothing_when_it_went_away(tmp_path):
    """The real stack (skipped where make setup could not fetch it): ready after its start; ibsim gone, the next
    ensure() starts both anew with the stopped SM's marker cleared; a console with no ibsim behind it is an error at
    once, never a writer blocked for ever."""
    if ibsim.missing():
        pytest.skip(ibsim.missing())
    _scenario, nodes = _pod(tmp_path)
    switches, cas = formats_infiniband.subnet(nodes)
    pod = ibsim.Pod(str(tmp_path / "pod"))
    try:
        pod.ensure(switches, cas, nodes[0]["ib_sm"])
        first = pod._pid("ibsim")  # pylint: disable=protected-access
        assert first and pod._pid("opensm") and (tmp_path / "pod" / "ibsim" / "ready").exists()  # pylint: disable=protected-access
        assert pod.once("sm-stopped") and not pod.once("sm-stopped")
        os.kill(first, signal.SIGKILL)
        for _attempt in range(100):  # gone to the end: the kernel drops a dying process's memory (its cmdline, which
            # _pid reads) before its open files, so the console's reader outlives _pid's answer by a moment
            if not pod._pid("ibsim") and _files_closed(first):  # pylint: disable=protected-access
                break
            time.sleep(0.05)
        with pytest.raises(RuntimeError, match="console cannot be written"):
            pod.console("Attached")
        pod.ensure(switches, cas, nodes[0]["ib_sm"])
        assert pod._pid("ibsim") not in (None, first) and pod.once("sm-stopped")  # pylint: disable=protected-access
        rc, out, _err = pod.run("sminfo", [], ibsim.ca_id(nodes[0]["rails"][0]["port_guid"]))
        assert rc == 0 and "SMINFO_MASTER" in out, out
    finally:
        pod.stop()
