"""The twin's exporters for Layer 7: what dcgm-exporter, node_exporter (infiniband and ethtool
collectors) and snmp_exporter (if_mib) print, per device, in the Prometheus text exposition format.

One HTTP server answers ``/metrics?target=DEVICE`` (snmp_exporter's multi-target pattern), so one
Prometheus job scrapes every device of the pod through one port and relabels ``instance`` to the
device (``config()`` writes that job). A device may lack series (``missing``: its exporter is not
deployed) or serve samples with old timestamps (``stale_seconds``: a hung collector behind a cache,
a federation of a Prometheus that stopped scraping it).

Metric names, types and labels as the exporters print them:
- dcgm-exporter etc/default-counters.csv (NVIDIA/dcgm-exporter d5e5f510, 2026-05): DCGM_FI_PROF_GR_ENGINE_ACTIVE,
  DCGM_FI_PROF_PIPE_TENSOR_ACTIVE, DCGM_FI_DEV_XID_ERRORS, DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS; labels gpu, UUID,
  device, modelName, Hostname.
- node_exporter collector/infiniband_linux.go (prometheus/node_exporter a7dcc3a0): node_infiniband_<name>{device, port};
  collector/ethtool_linux.go: node_ethtool_<stat> with rx -> received, tx -> transmitted, untyped, label device.
- snmp_exporter's if_mib module: IF-MIB object names (ifHCInOctets, ...), labels ifIndex, ifName, ifDescr, ifAlias.

Run as ``python3 -m pyramid_twin.exporter --port N --config FILE`` (twin/prometheus, started by twin/up):
it serves the whole pod at ``/metrics`` too, each series labelled with its device.
"""

from __future__ import annotations

import argparse
import glob
import http.server
import os
import socketserver
import sys
import threading
import time
import urllib.parse
import zlib

DCGM = [  # (name, type, help) - default-counters.csv
    ("DCGM_FI_PROF_GR_ENGINE_ACTIVE", "gauge", "Ratio of time the graphics engine is active."),
    ("DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", "gauge", "Ratio of cycles the tensor (HMMA) pipe is active."),
    ("DCGM_FI_DEV_XID_ERRORS", "gauge", "Value of the last XID error encountered."),
    ("DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS", "counter", "Number of remapped rows for uncorrectable errors"),
]
INFINIBAND = [  # node_exporter collector/infiniband_linux.go
    ("node_infiniband_port_data_received_bytes_total", "counter", "Number of data octets received on all links"),
    ("node_infiniband_port_data_transmitted_bytes_total", "counter", "Number of data octets transmitted on all links"),
    ("node_infiniband_symbol_error_total", "counter", "Number of minor link errors detected on one or more physical lanes."),
    ("node_infiniband_port_errors_received_total", "counter", "Number of packets containing an error that were received on this port"),
    ("node_infiniband_link_downed_total", "counter",
     "Number of times the link failed to recover from an error state and went down"),
]
ETHTOOL = [  # node_exporter collector/ethtool_linux.go: unknown stats are untyped, help "Network interface <stat>"
    ("node_ethtool_received_prio3_pause", "untyped", "Network interface rx_prio3_pause"),
    ("node_ethtool_transmitted_prio3_pause", "untyped", "Network interface tx_prio3_pause"),
]
IF_MIB = [  # snmp_exporter if_mib module
    ("ifHCInOctets", "counter", "The total number of octets received on the interface, including framing characters - 1.3.6.1.2.1.31.1.1.1.6"),
    ("ifHCOutOctets", "counter", "The total number of octets transmitted out of the interface, including framing characters - 1.3.6.1.2.1.31.1.1.1.10"),
    ("ifOutDiscards", "counter",
     "The number of outbound packets which were chosen to be discarded even though no errors had been detected - 1.3.6.1.2.1.2.2.1.19"),
    ("ifInErrors", "counter", "For packet-oriented interfaces, the number of inbound packets that contained errors - 1.3.6.1.2.1.2.2.1.14"),
    ("ifOperStatus", "gauge", "The current operational state of the interface - 1.3.6.1.2.1.2.2.1.8"),
]


def node(name, rails=8, gpus=8, missing=(), stale_seconds=0, rails_missing=()):
    """A GPU node's description for ``exposition``."""
    return {"kind": "gpu_node", "name": name, "rails": ["mlx5_%d" % i for i in range(rails)], "gpus": gpus,
            "missing": set(missing), "stale_seconds": stale_seconds, "rails_missing": set(rails_missing)}


def switch(name, ports=4, missing=(), stale_seconds=0):
    return {"kind": "switch", "name": name, "ports": ["Ethernet%d/1" % i for i in range(1, ports + 1)],
            "missing": set(missing), "stale_seconds": stale_seconds}


def _escape(value):
    """A label value in the text format: backslash, double quote and line feed escaped."""
    return str(value).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _labels(labels):
    return "{%s}" % ",".join('%s="%s"' % (key, _escape(value)) for key, value in labels)


def _node_samples(device, name, seconds):
    """The series one node's exporters print for metric ``name``."""
    if name.startswith("DCGM_"):
        return [((("gpu", gpu), ("UUID", "GPU-%08x-0000-0000-0000-%012d" % (zlib.crc32(device["name"].encode()), gpu)),
                  ("device", "nvidia%d" % gpu), ("modelName", "NVIDIA H100 80GB HBM3"), ("Hostname", device["name"])),
                 0 if "XID" in name or "REMAPPED" in name else 0.42) for gpu in range(device["gpus"])]
    rails = [rail for rail in device["rails"] if rail not in device.get("rails_missing", ())]
    if name.startswith("node_infiniband_"):
        return [((("device", rail), ("port", "1")), int(seconds * 1e9) if "bytes" in name else 0) for rail in rails]
    return [((("device", "eth%d" % i),), 0) for i, _rail in enumerate(rails)]


def _switch_samples(device, name, seconds):
    values = {"ifHCInOctets": int(seconds * 4e10), "ifHCOutOctets": int(seconds * 4e10), "ifOperStatus": 1}
    return [((("ifAlias", ""), ("ifDescr", port), ("ifIndex", index), ("ifName", port)), values.get(name, 0))
            for index, port in enumerate(device["ports"], start=1)]


def _printed(device):
    """The families the device's exporters print: its kind's, less those it misses."""
    families = DCGM + INFINIBAND + ETHTOOL if device["kind"] == "gpu_node" else IF_MIB
    return {name for name, _kind, _help in families} - set(device["missing"])


def _samples(device, name, now, instance=False):
    """(labels, value, timestamp suffix) of one family on one device; ``instance``: label it with the device."""
    samples_of = _node_samples if device["kind"] == "gpu_node" else _switch_samples
    stamp = " %d" % int((now - device["stale_seconds"]) * 1000) if device.get("stale_seconds") else ""
    extra = ((("instance", device["name"] + (":9100" if device["kind"] == "gpu_node" else "")),) if instance else ())
    return [(extra + labels, value, stamp) for labels, value in samples_of(device, name, now - 1.7e9)]


def exposition(devices, now=None, instance=False):
    """The /metrics text of one device (a dict), or of several (a list, each series labelled with its
    device's ``instance``: one target for a whole pod, scraped with honor_labels): every family their
    exporters print, but those a device misses."""
    now = time.time() if now is None else now
    devices = [devices] if isinstance(devices, dict) else devices
    lines = []
    for name, kind, helptext in DCGM + INFINIBAND + ETHTOOL + IF_MIB:
        found = [sample for device in devices if name in _printed(device) for sample in _samples(device, name, now, instance)]
        if found:
            lines += ["# HELP %s %s" % (name, helptext), "# TYPE %s %s" % (name, kind)]
            lines += ["%s%s %s%s" % (name, _labels(labels), value, stamp) for labels, value, stamp in found]
    return "\n".join(lines) + "\n"


class _Handler(http.server.BaseHTTPRequestHandler):
    devices = {}

    def do_GET(self):  # noqa: N802  (http.server's name)
        url = urllib.parse.urlsplit(self.path)
        target = urllib.parse.parse_qs(url.query).get("target", [None])[0]
        if url.path != "/metrics" or (target is not None and target not in self.devices):
            self.send_error(404, "no such target %r" % target)
            return
        if target is None:  # the whole pod, each series labelled with its device
            body = exposition(list(self.devices.values()), instance=True).encode()
        else:
            body = exposition(self.devices[target]).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):  # quiet: Prometheus scrapes every second
        return


class _Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def serve(devices, host="127.0.0.1", port=0):
    """Start the exporter in a thread; returns the server (server.server_address[1] is its port)."""
    handler = type("Handler", (_Handler,), {"devices": {device["name"]: device for device in devices}})
    server = _Server((host, port), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def config(exporter, devices, interval="1s"):
    """A prometheus.yml scraping every device through the exporter at ``exporter`` (host:port).

    GPU nodes are scraped as node_exporter targets are (instance host:9100), switches as snmp_exporter
    targets (instance = the switch): Layer 7 matches both forms."""
    jobs = []
    for job, kind, instance in (("twin_nodes", "gpu_node", "${1}:9100"), ("twin_switches", "switch", "${1}")):
        targets = [device["name"] for device in devices if device["kind"] == kind]
        if not targets:
            continue
        jobs.append("\n".join([
            "  - job_name: %s" % job,
            "    metrics_path: /metrics",
            "    static_configs:",
            "      - targets: [%s]" % ", ".join('"%s"' % name for name in targets),
            "    relabel_configs:",
            "      - {source_labels: [__address__], target_label: __param_target}",
            "      - {source_labels: [__param_target], target_label: instance, replacement: '%s'}" % instance,
            "      - {target_label: __address__, replacement: '%s'}" % exporter,
        ]))
    return "global:\n  scrape_interval: %s\n  evaluation_interval: %s\nscrape_configs:\n%s\n" % (interval, interval, "\n".join(jobs))


def pod_config(exporter_address, interval="5s"):
    """A prometheus.yml scraping the whole pod from one target (``/metrics``), keeping the exporter's
    ``instance`` labels (honor_labels): the twin's demo Prometheus (twin/prometheus)."""
    return "\n".join([
        "global:", "  scrape_interval: %s" % interval, "  evaluation_interval: %s" % interval, "scrape_configs:",
        "  - job_name: twin_pod", "    honor_labels: true", "    metrics_path: /metrics",
        "    static_configs:", "      - targets: ['%s']" % exporter_address, ""])


def twin_devices(scenario_paths, nodes=64, leaves=4, spines=8):
    """Every node and switch of the given twin scenarios, and of any pod up to ``nodes`` nodes, ``leaves``
    scalable units of 8 rail leaves and ``spines`` spines (one demo Prometheus serves every scenario)."""
    from pyramid_twin import model, switch_model  # pylint: disable=import-outside-toplevel
    found = {"node-%03d" % i: node("node-%03d" % i) for i in range(1, nodes + 1)}
    found.update({"leaf%d-r%d" % (su, rail): switch("leaf%d-r%d" % (su, rail)) for su in range(1, leaves + 1) for rail in range(8)})
    found.update({"spine-%02d" % i: switch("spine-%02d" % i) for i in range(1, spines + 1)})
    for path in scenario_paths:
        scenario = model.load_scenario(path)
        for name in model.node_names(scenario):
            found.setdefault(name, node(name, rails=scenario["pod"]["rails"], gpus=scenario["pod"].get("gpus_per_node", 8)))
        topo = switch_model.topology(scenario)
        for name in (topo or {}).get("switches", {}):
            found.setdefault(name, switch(name))
    return [found[name] for name in sorted(found)]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True, help="the exporter's port on 127.0.0.1")
    parser.add_argument("--config", help="write a prometheus.yml scraping every device here, then serve")
    parser.add_argument("--scenarios", nargs="*", help="twin scenario files (default: twin/scenarios/*.yml)")
    args = parser.parse_args(argv)
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    devices = twin_devices(args.scenarios or sorted(glob.glob(os.path.join(here, "scenarios", "*.yml"))))
    if args.config:
        with open(args.config, "w", encoding="utf-8") as handle:
            handle.write(pod_config("127.0.0.1:%d" % args.port))
    server = serve(devices, port=args.port)
    print("twin exporter: %d devices on 127.0.0.1:%d" % (len(devices), server.server_address[1]), flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        server.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
