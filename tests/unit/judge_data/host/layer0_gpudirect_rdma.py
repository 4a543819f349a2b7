"""gpudirect needs an RDMA device before any driver path counts (issue "Truth on real hosts"): a real
H200 host with no RDMA NIC passed gpudirect from the driver flavour and kernel alone. Rows built on
the layer0 table's healthy node; the listing is the real empty /sys/class/infiniband of that host."""

from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.host.layer0 import NO_SYS_MODULE, RDMA, failed, fixture, kernel, modules, node

NO_RDMA = fixture("linux_dir_listing", "no_rdma_devices")
DMABUF_HOST = {"osrelease": kernel("6.18.44-fc-v310-gpu")}

DATA = [
    {"check": "gpudirect", "name": "no RDMA device: DMA-BUF driver alone does not pass", "facts": node(**DMABUF_HOST),
     "raw": {"rdma_sysfs": NO_RDMA}, "status": "FAIL",
     "contains": ["no RDMA device in /sys/class/infiniband", "No RDMA NIC visible to the kernel"]},
    {"check": "gpudirect", "name": "no RDMA device: nvidia_peermem alone does not pass", "raw": {"rdma_sysfs": NO_RDMA}, "facts": node(),
     "status": "FAIL", "contains": ["no GPUDirect RDMA to speak of"]},
    # issue 66: no NIC, so no nvidia_peermem advice: the way back is rails_present's, the cause the same run's modules say
    {"check": "gpudirect", "name": "no RDMA device, RDMA core not in the kernel: the driver, not nvidia_peermem",
     "raw": {"rdma_sysfs": NO_RDMA}, "facts": node(kernel_modules=modules("nvidia", "nvidia_uvm"),
                                                   module_sysfs={name: NO_SYS_MODULE(name) for name in RDMA}),
     "status": "FAIL", "contains": ["GPUDirect RDMA has nothing to reach: the RDMA core is not in the kernel (mlx5_core, mlx5_ib, "
                                    "ib_core neither loaded nor built in)"]},
    {"check": "gpudirect", "name": "RDMA devices and DMA-BUF", "facts": node(**DMABUF_HOST), "expect": {"pyramid_gpudirect_paths": ["dmabuf"]},
     "status": "PASS", "contains": ["path dmabuf", "nvidia_peermem loaded, but only DMA-BUF is accepted"]},
    {"check": "gpudirect", "name": "the RDMA listing failed", "facts": node(rdma_sysfs=failed("ls /sys/class/infiniband", "Permission denied", "unreadable")),
     "status": "ERROR", "contains": ["ls /sys/class/infiniband"]},
]
