"""The rows of the five classes of wrong judge (issue 33; judge_data/bug_classes.py says what each class is) that
test judging/telemetry.py. Each row's comment says its class and what a wrong judge of that class would do with it.
"""

from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.telemetry import layer7_telemetry as telemetry


DATA = []

# === class 4: thresholds at their boundary and one step beyond ===========================================
DATA += [
    # class 4: telemetry: one rail's newest sample exactly at the window passes, a second older fails (the per-rail
    # path: the table's boundary row is on every rail at once)
    {"check": "telemetry_signals", "name": "[4] one rail's newest sample exactly 120 s old passes", "expect": telemetry.NODE, "status": "PASS",
     "raw": telemetry.healthy(telemetry_rdma_throughput={"node_infiniband_port_data_received_bytes_total": telemetry.rails(old=("mlx5_6", 120))}),
     "contains": ["11 series selectors fresh for node-001"]},
    {"check": "telemetry_signals", "name": "[4] one rail's newest sample 121 s old fails", "expect": telemetry.NODE, "status": "FAIL",
     "raw": telemetry.healthy(telemetry_rdma_throughput={"node_infiniband_port_data_received_bytes_total": telemetry.rails(old=("mlx5_6", 121))}),
     "contains": ["per-rail RDMA throughput: stale node_infiniband_port_data_received_bytes_total (newest sample: mlx5_6 121s old)"]},
]
