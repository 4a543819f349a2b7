"""Layer 7, telemetry: the golden signals of a device in Prometheus, fresh (judging/telemetry.py).

Each raw output is a Prometheus /api/v1/query answer in the shape of the real captures in
tests/unit/parsers/prometheus_query_vector/ (Prometheus 2.42): the series of node-001 (or leaf1-r0)
alone, as the telemetry action leaves them for the judge (run/telemetry.py of_device), with the
newest sample ``age`` seconds before the evaluation time."""

import json

NOW = 1795492350.37  # the evaluation time of the real captures
NODE = {"pyramid_telemetry_device": "node-001", "pyramid_prometheus_url": "http://127.0.0.1:9090"}
SWITCH = {"pyramid_telemetry_device": "leaf1-r0", "pyramid_prometheus_url": "http://127.0.0.1:9090", "pyramid_switch_os": "eos"}
RAILS = ["mlx5_%d" % i for i in range(8)]
PAUSE = ("node_ethtool_received_prio3_pause", "node_ethtool_transmitted_prio3_pause")


def vector(labels_list, age=0.7):
    """An instant-vector answer: one series per label set, its value the time of its newest sample."""
    return json.dumps({"status": "success", "data": {"resultType": "vector", "result": [
        {"metric": dict(labels), "value": [NOW, repr(round(NOW - age, 3))]} for labels in labels_list]}})


def node_series(extra=None):
    return [dict({"instance": "node-001:9100", "job": "node"}, **(extra or {}))]


def gpus(age=0.7, without=()):
    return vector([{"Hostname": "node-001", "gpu": str(gpu), "instance": "node-001:9400", "job": "dcgm"} for gpu in range(8)
                   if gpu not in without], age)


def rails(age=0.7, without=(), old=None):
    """Every rail's series (but ``without``); ``old``: (rail, age) of one rail whose exporter stopped updating it."""
    document = json.loads(vector([{"device": rail, "port": "1", "instance": "node-001:9100", "job": "node"}
                                  for rail in RAILS if rail not in without], age))
    for entry in document["data"]["result"] if old else []:
        if entry["metric"]["device"] == old[0]:
            entry["value"][1] = repr(round(NOW - old[1], 3))
    return json.dumps(document)


def interfaces(age=0.7, count=8):
    """The pause counters of the node's rail interfaces as node_exporter's ethtool collector labels them (device=<netdev>;
    the twin's exporter and a real mlx5 node print one series per rail netdev)."""
    return vector([dict(node_series()[0], device="eth%d" % i) for i in range(count)], age)


def _one_old(answer, label, item, age):
    """An answer whose series of one item (by its label) has its newest sample ``age`` seconds old."""
    document = json.loads(answer)
    for entry in document["data"]["result"]:
        if entry["metric"].get(label) == item:
            entry["value"][1] = repr(round(NOW - age, 3))
    return json.dumps(document)


ERROR_ANSWER = ('{"status":"error","errorType":"bad_data","error":"invalid parameter \\"query\\": 1:18: parse error: '
                'unexpected \\"}\\" in label matching, expected label matching operator"}')


def healthy(**override):
    """Every default selector of the five signals answered for node-001, fresh."""
    raw = {
        "telemetry_gpu_activity": {"DCGM_FI_PROF_GR_ENGINE_ACTIVE": gpus(), "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE": gpus()},
        "telemetry_gpu_health": {"DCGM_FI_DEV_XID_ERRORS": gpus(), "DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS": gpus()},
        "telemetry_rdma_throughput": {"node_infiniband_port_data_received_bytes_total": rails(),
                                      "node_infiniband_port_data_transmitted_bytes_total": rails()},
        "telemetry_congestion": {"node_ethtool_received_prio3_pause": interfaces(),
                                 "node_ethtool_transmitted_prio3_pause": interfaces()},
        "telemetry_link_errors": {"node_infiniband_symbol_error_total": rails(), "node_infiniband_port_errors_received_total": rails(),
                                  "node_infiniband_link_downed_total": rails()},
    }
    for name, answers in override.items():
        raw[name] = dict(raw[name], **answers)
    return raw


def ports(age=0.7):
    return vector([{"ifIndex": str(i), "ifName": "Ethernet%d/1" % i, "instance": "leaf1-r0", "job": "snmp"} for i in (1, 2)], age)


def switch_healthy(**override):
    raw = {"telemetry_switch_throughput": {"ifHCInOctets": ports(), "ifHCOutOctets": ports()},
           "telemetry_switch_congestion": {"ifOutDiscards": ports()},
           "telemetry_switch_link_errors": {"ifInErrors": ports(), "ifOperStatus": ports()}}
    for name, answers in override.items():
        raw[name] = dict(raw[name], **answers)
    return raw


DATA = [
    {"check": "telemetry_signals", "name": "every signal fresh", "raw": healthy(), "expect": NODE, "status": "PASS",
     "contains": ["11 series selectors fresh for node-001", "each with a sample in the last 120s"]},
    {"check": "telemetry_signals", "name": "newest sample exactly at the window passes", "expect": NODE, "status": "PASS",
     "raw": healthy(telemetry_link_errors={"node_infiniband_link_downed_total": rails(age=120)}),
     "contains": ["oldest newest-sample 120s"]},
    {"check": "telemetry_signals", "name": "dcgm-exporter not scraped: GPU activity missing", "expect": NODE, "status": "FAIL",
     "raw": healthy(telemetry_gpu_activity={"DCGM_FI_PROF_GR_ENGINE_ACTIVE": vector([]), "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE": vector([])}),
     "contains": ["node-001: GPU activity: missing DCGM_FI_PROF_GR_ENGINE_ACTIVE; GPU activity: missing DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", "{cause}"]},
    {"check": "telemetry_signals", "name": "not one series of the node: not scraped, or under another name", "expect": NODE, "status": "FAIL",
     "raw": {source: {selector: vector([]) for selector in answers} for source, answers in healthy().items()},
     "contains": ["node-001: no series at all for it (instance=node-001 or node-001:<port>): not scraped, or under another name"]},
    {"check": "telemetry_signals", "name": "link errors 300 s old: stale", "expect": NODE, "status": "FAIL",
     "raw": healthy(telemetry_link_errors={"node_infiniband_link_downed_total": rails(age=300)}),
     "contains": ["link errors: stale node_infiniband_link_downed_total (newest sample 300s old)", "in the last 120s"]},
    {"check": "telemetry_signals", "name": "a stale gauge without rails (pause frames)", "expect": NODE, "status": "FAIL",
     "raw": healthy(telemetry_congestion={"node_ethtool_received_prio3_pause": interfaces(age=121)}),
     "contains": ["congestion: stale node_ethtool_received_prio3_pause (newest sample 121s old)"]},
    # issue 68: the congestion signal is judged per interface as the others are per rail and GPU: the pause counters of
    # some rails' interfaces missing passed ("11 series selectors fresh")
    {"check": "telemetry_signals", "name": "pause counters of three rails' interfaces missing", "expect": NODE, "status": "FAIL",
     "raw": healthy(telemetry_congestion={"node_ethtool_transmitted_prio3_pause": interfaces(count=5)}),
     "contains": ["congestion: missing node_ethtool_transmitted_prio3_pause for 3 of 8 rails' interfaces (series for eth0, eth1, eth2, eth3, eth4)"]},
    {"check": "telemetry_signals", "name": "one interface's pause counter stale", "expect": NODE, "status": "FAIL",
     "raw": healthy(telemetry_congestion={"node_ethtool_received_prio3_pause": _one_old(interfaces(), "device", "eth6", 300)}),
     "contains": ["congestion: stale node_ethtool_received_prio3_pause (newest sample: eth6 300s old)"]},
    {"check": "telemetry_signals", "name": "a node of 4 rails: 4 interfaces are every rail", "status": "PASS",
     "expect": dict(NODE, pyramid_rails=RAILS[:4]),
     "raw": healthy(telemetry_congestion={name: interfaces(count=4) for name in PAUSE},
                    **{source: {selector: rails(without=RAILS[4:]) for selector in answers}
                       for source, answers in healthy().items() if source in ("telemetry_rdma_throughput", "telemetry_link_errors")}),
     "contains": ["11 series selectors fresh for node-001"]},
    {"check": "telemetry_signals", "name": "a stricter window", "expect": dict(NODE, pyramid_telemetry_max_age_seconds=30), "status": "FAIL",
     "raw": healthy(telemetry_gpu_health={"DCGM_FI_DEV_XID_ERRORS": gpus(age=45)}),
     "contains": ["GPU health: stale DCGM_FI_DEV_XID_ERRORS (newest sample 45s old)", "in the last 30s"]},
    {"check": "telemetry_signals", "name": "one rail's counters missing", "expect": NODE, "status": "FAIL",
     "raw": healthy(telemetry_rdma_throughput={"node_infiniband_port_data_received_bytes_total": rails(without=("mlx5_3",))}),
     "contains": ["per-rail RDMA throughput: missing node_infiniband_port_data_received_bytes_total for mlx5_3"]},
    {"check": "telemetry_signals", "name": "one rail's counters stale", "expect": NODE, "status": "FAIL",
     "raw": healthy(telemetry_rdma_throughput={"node_infiniband_port_data_transmitted_bytes_total": rails(old=("mlx5_5", 200))}),
     "contains": ["per-rail RDMA throughput: stale node_infiniband_port_data_transmitted_bytes_total (newest sample: mlx5_5 200s old)"]},
    # issue 40: every per-rail and per-GPU signal is held to every rail and GPU, not RDMA throughput alone
    {"check": "telemetry_signals", "name": "one rail's link-error series missing", "expect": NODE, "status": "FAIL",
     "raw": healthy(telemetry_link_errors={"node_infiniband_symbol_error_total": rails(without=("mlx5_6",))}),
     "contains": ["link errors: missing node_infiniband_symbol_error_total for mlx5_6"]},
    {"check": "telemetry_signals", "name": "one GPU's DCGM activity series missing", "expect": NODE, "status": "FAIL",
     "raw": healthy(telemetry_gpu_activity={"DCGM_FI_PROF_PIPE_TENSOR_ACTIVE": gpus(without=(5,))}),
     "contains": ["GPU activity: missing DCGM_FI_PROF_PIPE_TENSOR_ACTIVE for 5"]},
    {"check": "telemetry_signals", "name": "one GPU's DCGM health series stale", "expect": NODE, "status": "FAIL",
     "raw": healthy(telemetry_gpu_health={"DCGM_FI_DEV_XID_ERRORS": _one_old(gpus(), "gpu", "3", 400)}),
     "contains": ["GPU health: stale DCGM_FI_DEV_XID_ERRORS (newest sample: 3 400s old)"]},
    {"check": "telemetry_signals", "name": "a node of 4 GPUs: 4 series are every GPU", "status": "PASS",
     "expect": dict(NODE, pyramid_gpus_per_node=4),
     "raw": healthy(**{source: {selector: gpus(without=(4, 5, 6, 7)) for selector in answers}
                       for source, answers in healthy().items() if source.startswith("telemetry_gpu")}),
     "contains": ["11 series selectors fresh for node-001"]},
    {"check": "telemetry_signals", "name": "a missing signal and an API error: FAIL, the error said", "expect": NODE, "status": "FAIL",
     "raw": healthy(telemetry_gpu_activity={"DCGM_FI_PROF_GR_ENGINE_ACTIVE": vector([])},
                    telemetry_congestion={"node_ethtool_received_prio3_pause": ERROR_ANSWER}),
     "contains": ["missing DCGM_FI_PROF_GR_ENGINE_ACTIVE", "not read: congestion (node_ethtool_received_prio3_pause)"]},
    {"check": "telemetry_signals", "name": "Prometheus refused one query: ERROR naming it", "expect": NODE, "status": "ERROR",
     "raw": healthy(telemetry_congestion={"node_ethtool_received_prio3_pause": ERROR_ANSWER}),
     "contains": ["Prometheus could not be read for node-001: congestion (node_ethtool_received_prio3_pause)", "bad_data"]},
    {"check": "telemetry_signals", "name": "every query of a signal refused: ERROR, no data", "expect": NODE, "status": "ERROR",
     "raw": healthy(telemetry_gpu_health={"DCGM_FI_DEV_XID_ERRORS": ERROR_ANSWER, "DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS": ERROR_ANSWER}),
     "contains": ["No data from", "bad_data"]},
    {"check": "switch_telemetry_signals", "name": "every switch signal fresh", "raw": switch_healthy(), "expect": SWITCH, "status": "PASS",
     "contains": ["5 series selectors fresh for leaf1-r0"]},
    {"check": "switch_telemetry_signals", "name": "snmp_exporter not scraping the switch", "expect": SWITCH, "status": "FAIL",
     "raw": switch_healthy(telemetry_switch_link_errors={"ifInErrors": vector([]), "ifOperStatus": vector([])}),
     "contains": ["leaf1-r0: link errors: missing ifInErrors; link errors: missing ifOperStatus", "{cause}"]},
    {"check": "switch_telemetry_signals", "name": "switch counters stale", "expect": SWITCH, "status": "FAIL",
     "raw": switch_healthy(telemetry_switch_throughput={"ifHCInOctets": ports(age=600)}),
     "contains": ["port throughput: stale ifHCInOctets (newest sample 600s old)"]},
    {"check": "switch_telemetry_signals", "name": "Prometheus refused the queries", "expect": SWITCH, "status": "ERROR",
     "raw": switch_healthy(telemetry_switch_congestion={"ifOutDiscards": ERROR_ANSWER}),
     "contains": ["No data from", "bad_data"]},
]
