"""Parts of a tuning run that are not the per-M tuning: the roofline floors, the device's shared
memory per block, and which requested tiles change the compiled kernel on each surface."""
import time

import tune_report as tr

from .common import cid, log, timed


def floors(torch, sustain_s=10.0):
    """The roofline's ceilings: device-to-device copy GB/s, a read-once GB/s, and bf16 8192^3
    matmul TFLOP/s twice: at once (the clocks as found, boost) and after `sustain_s` seconds of
    back-to-back matmuls (`matmul_TFLOPs_sustained`: the device at its power cap, as in a long
    tuning run; ~15% lower on an H100, docs/gpu-results.md)."""
    x = torch.empty(1 << 30, dtype=torch.uint8, device="cuda")
    y = torch.empty_like(x)
    a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)

    copy_ms = timed(torch, lambda: y.copy_(x), 20)
    mm_ms = timed(torch, lambda: a @ b, 20)
    w = torch.randn(1 << 31, dtype=torch.bfloat16, device="cuda")  # 4 GiB, read once
    read_ms = timed(torch, lambda: torch.sum(w, dtype=torch.float32), 10)
    read_bytes = 2 * w.numel()
    del w  # 4 GiB back before the sustained matmuls
    start = time.time()
    while time.time() - start < sustain_s:
        for _ in range(10):
            a @ b
        torch.cuda.synchronize()
    sustained_ms = timed(torch, lambda: a @ b, 20)
    return {"copy_GBps": 2 * x.numel() / copy_ms / 1e6, "matmul_TFLOPs": 2 * 8192 ** 3 / mm_ms / 1e9,
            "matmul_TFLOPs_sustained": 2 * 8192 ** 3 / sustained_ms / 1e9,
            "read_GBps": read_bytes / read_ms / 1e6}


def device_smem_limit(torch):
    try:
        import triton
        return int(triton.runtime.driver.active.utils.get_device_properties(0)["max_shared_mem"])
    except Exception:  # noqa: BLE001
        return int(getattr(torch.cuda.get_device_properties(0), "shared_memory_per_block_optin", 232448))


def surfaces(runner, base):
    rows = []
    tiles = [{"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 8, "num_warps": 4, "num_stages": 2},
             {"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 8, "num_warps": 4, "num_stages": 2},
             {"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 64, "GROUP_SIZE_M": 8, "num_warps": 4, "num_stages": 2},
             {"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 1, "num_warps": 4, "num_stages": 2},
             {"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 8, "num_warps": 8, "num_stages": 3},
             {"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 8, "num_warps": 4, "num_stages": 2}]
    for platform in ("cuda", "bi-v100"):
        for t in tiles:
            key = platform + ":" + cid(t)
            col = runner.execute("surfaces", key, dict(base, M=256, platform=platform, **t), {"M": 256})
            rows.append({"platform": platform, "requested": cid(t), "fingerprint": col.fp if col else None,
                         "median": tr.median(col.samples) if col else None,
                         "ran": col.info_map.get("tiles") if col else None})
            log("surface %s %s -> %s" % (platform, cid(t), rows[-1]["fingerprint"]))
    return rows
