"""Layer 0 on InfiniBand (catalog/host.yml rails_ib_mtu, issue 36) as a data table: each rail's negotiated MTU from
`ibv_devinfo -d <rail>`, real captures (tests/unit/parsers/linux_ibv_devinfo): a ConnectX-6 on HDR at 4096, the same
with its active MTU at 2048 (derived), an InfiniHost III of OFED 1.x that cannot do more than 2048, a port down."""

from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.host.layer0 import fixture

CX6 = fixture("linux_ibv_devinfo", "cx6_hdr_real")
CX6_2048 = fixture("linux_ibv_devinfo", "cx6_active_2048")
MTHCA = fixture("linux_ibv_devinfo", "mthca_ofed1_real")
DOWN = fixture("linux_ibv_devinfo", "cx7_roce_port_down_real")
CUT = fixture("linux_ibv_devinfo", "cx6_cut_before_active_mtu")
IB = {"pyramid_rdma_link_layer": "infiniband"}


def rails(**reads):
    return {"ibv_devinfo": reads}


DATA = [
    {"check": "rails_ib_mtu", "name": "a rail at 4096: PASS",
     "raw": rails(mlx5_0=CX6), "expect": dict(IB, pyramid_rails=["mlx5_0"]), "status": "PASS",
     "contains": ["1 rail at 4096 bytes"]},
    {"check": "rails_ib_mtu", "name": "a rail that can do 4096 and negotiated 2048: FAIL naming it, the link's cap as the cause",
     "raw": rails(mlx5_0=CX6_2048), "expect": dict(IB, pyramid_rails=["mlx5_0"]), "status": "FAIL",
     "contains": ["mlx5_0: active_mtu 2048, max_mtu 4096", "leaf port facing it is capped lower"]},
    {"check": "rails_ib_mtu", "name": "a port that cannot do more than 2048: FAIL, the port as the cause",
     "raw": rails(mthca0=MTHCA), "expect": dict(IB, pyramid_rails=["mthca0"]), "status": "FAIL",
     "contains": ["mthca0: active_mtu 2048, max_mtu 2048", "cannot do the MTU"]},
    {"check": "rails_ib_mtu", "name": "2048 declared as the fabric's MTU: the old port passes",
     "raw": rails(mthca0=MTHCA), "expect": dict(IB, pyramid_rails=["mthca0"], pyramid_ib_mtu=2048), "status": "PASS",
     "contains": ["1 rail at 2048 bytes"]},
    {"check": "rails_ib_mtu", "name": "a port down has no negotiated MTU (its 1024 is no finding): ERROR, never a FAIL or a pass",
     "raw": rails(rocep1s0f1=DOWN), "expect": dict(IB, pyramid_rails=["rocep1s0f1"]), "status": "ERROR",
     "contains": ["no negotiated MTU: rocep1s0f1 port 1 Down"]},
    {"check": "rails_ib_mtu", "name": "a read that lists another device, and a read cut short: ERROR naming the rails",
     "raw": rails(mlx5_0=CUT, mlx5_1=CX6), "expect": dict(IB, pyramid_rails=["mlx5_0", "mlx5_1"]), "status": "ERROR",
     "contains": ["mlx5_0: ", "cut short", "mlx5_1: ibv_devinfo -d mlx5_1 shows no port 1 of mlx5_1 (devices: mlx5_0)"]},
]
