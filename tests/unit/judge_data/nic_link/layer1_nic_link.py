"""Layer 1 on the GPU nodes (catalog/nic_link.yml nic_physical_layer, issue 67) as a data table: each rail's own physical
layer from `mlxlink -d <rail> -p 1 -c -m`, real captures (tests/unit/parsers/linux_mlxlink): a BlueField-3 port on a
passive DAC (no sensor, no error counted), an OSFP optic at 54 C on a healthy 400G link (raw BER 2E-9), and the same
with its raw BER, effective errors or temperature raised by hand; mlxlink missing, a device it cannot open, a read cut
short, a BER it could not compute."""

from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.host.layer0 import fixture, missing

DAC = fixture("linux_mlxlink", "bluefield3_dac_real")
OPTIC = fixture("linux_mlxlink", "optic_assembled_real")
RAW_HIGH = fixture("linux_mlxlink", "raw_ber_high")
EFFECTIVE = fixture("linux_mlxlink", "effective_errors")
HOT = fixture("linux_mlxlink", "module_hot")
RAW_NA = fixture("linux_mlxlink", "raw_ber_not_available")
CUT = fixture("linux_mlxlink", "cut_mid_counters")
CUT_VALUE = fixture("linux_mlxlink", "cut_inside_last_value")
NO_DEVICE = fixture("linux_mlxlink", "no_such_device")
TWO = {"pyramid_rails": ["mlx5_0", "mlx5_1"]}


def rails(**reads):
    return {"rail_mlxlink": reads}


DATA = [
    {"check": "nic_physical_layer", "name": "an optic at 54 C and a passive DAC, no effective error: PASS naming the worst",
     "raw": rails(mlx5_0=OPTIC, mlx5_1=DAC), "expect": TWO, "status": "PASS",
     "contains": ["2 rails: worst raw BER 2E-09, at most 0 effective errors, modules <= 54 C (mlx5_1 passive copper: no sensor)"]},
    {"check": "nic_physical_layer", "name": "raw BER 5E-6 on one rail: FAIL naming the rail, its BER and the threshold",
     "raw": rails(mlx5_0=OPTIC, mlx5_1=RAW_HIGH), "expect": TWO, "status": "FAIL",
     "contains": ["mlx5_1: raw (pre-FEC) BER 5E-06 > 1E-07", "dirty or damaged fiber"]},
    {"check": "nic_physical_layer", "name": "a pod that accepts raw BER up to 1e-5: the same rail passes",
     "raw": rails(mlx5_0=OPTIC, mlx5_1=RAW_HIGH), "expect": dict(TWO, pyramid_nic_raw_ber_max=1.0e-5), "status": "PASS",
     "contains": ["worst raw BER 5E-06"]},
    {"check": "nic_physical_layer", "name": "42 effective errors: FAIL, frames the FEC could not correct",
     "raw": rails(mlx5_0=EFFECTIVE, mlx5_1=DAC), "expect": TWO, "status": "FAIL",
     "contains": ["mlx5_0: 42 effective (post-FEC) errors, BER 1E-12 in the 348350 min since the counters were cleared (at most 0)"]},
    {"check": "nic_physical_layer", "name": "a module at 78 C: FAIL over 70 C",
     "raw": rails(mlx5_0=HOT), "expect": {"pyramid_rails": ["mlx5_0"]}, "status": "FAIL",
     "contains": ["mlx5_0: module 78 C > 70 C"]},
    {"check": "nic_physical_layer", "name": "a module under the pod's limit but at its own high alarm: FAIL",
     "raw": rails(mlx5_0=HOT), "expect": {"pyramid_rails": ["mlx5_0"], "pyramid_nic_module_temperature_max_c": 85},
     "status": "FAIL", "contains": ["mlx5_0: module 78 C, at its own high alarm 75 C"]},
    {"check": "nic_physical_layer", "name": "mlxlink not installed on the node: ERROR naming the command, never a pass",
     "facts": rails(mlx5_0=missing("mlxlink -d mlx5_0 -p 1 -c -m"), mlx5_1=missing("mlxlink -d mlx5_1 -p 1 -c -m")),
     "expect": TWO, "status": "ERROR", "contains": ["mlxlink -d mlx5_0 -p 1 -c -m: command not found"]},
    {"check": "nic_physical_layer", "name": "one rail mlxlink cannot open, the other healthy: ERROR naming it",
     "raw": rails(mlx5_0=OPTIC, mlx5_1=NO_DEVICE), "expect": TWO, "status": "ERROR",
     "contains": ["mlx5_1: ", 'Failed to open device: "mlx5_9"']},
    {"check": "nic_physical_layer", "name": "a read cut inside the counters, or inside its last value: ERROR, never a partial pass",
     "raw": rails(mlx5_0=CUT, mlx5_1=CUT_VALUE, mlx5_2=OPTIC), "expect": {"pyramid_rails": ["mlx5_0", "mlx5_1", "mlx5_2"]},
     "status": "ERROR",
     "contains": ["mlx5_0: ", "without Raw Physical BER", "mlx5_1: ", "ends inside its last line"]},
    {"check": "nic_physical_layer", "name": "a raw BER mlxlink shows N/A: ERROR, nothing measured is no pass",
     "raw": rails(mlx5_0=RAW_NA), "expect": {"pyramid_rails": ["mlx5_0"]}, "status": "ERROR",
     "contains": ["mlx5_0: Raw Physical BER N/A"]},
    {"check": "nic_physical_layer", "name": "a FAIL on one rail stands beside another rail left unread, which it names",
     "raw": rails(mlx5_0=RAW_HIGH, mlx5_1=NO_DEVICE), "expect": TWO, "status": "FAIL",
     "contains": ["mlx5_0: raw (pre-FEC) BER 5E-06 > 1E-07; not read: mlx5_1: "]},
]
