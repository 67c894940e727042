"""The compile pool: tile sets compiled into the shared TRITON_CACHE_DIR by spawned processes
(no launch), so the executions that follow find their kernels compiled. A tile set that does not
compile is reported on stderr and skipped; the number compiled is logged."""
import multiprocessing as mp
import sys
import time

from .common import cid, log


def _compile_chunk(job):
    """Child process: compile tile sets into the shared TRITON_CACHE_DIR (no launch)."""
    kind, items, shape = job
    import torch
    done = 0
    try:
        if kind == "moe":
            import fused_moe_bench as b
            ctx = b.setup({})
            for c in items:
                try:  # the harness's own launch path with dummy buffers (no launch)
                    b.compile_tile_set(ctx, c, shape)
                    done += 1
                except Exception as exc:  # noqa: BLE001 - the main process reports it
                    print("compile %s: %s" % (cid(c), str(exc)[:120]), file=sys.stderr)
        else:
            import flash_attn_bench as b
            kern = b.make_kernel()
            bf = torch.empty(16, device="cuda", dtype=torch.bfloat16)
            for c, d, causal in items:
                try:
                    kern.warmup(bf, bf, bf, bf, 0.1, 4096, HEAD_DIM=d, BLOCK_M=c["BLOCK_M"],
                                BLOCK_N=c["BLOCK_N"], CAUSAL=causal, num_warps=c["num_warps"],
                                num_stages=c["num_stages"], grid=(1,))
                    done += 1
                except Exception as exc:  # noqa: BLE001
                    print("compile fa %s: %s" % (c, str(exc)[:120]), file=sys.stderr)
    except Exception as exc:  # noqa: BLE001
        print("compile pool: %s" % exc, file=sys.stderr)
    return done


def compile_pool(kind, items, shape, jobs):
    t = time.time()
    chunks = [items[i::jobs] for i in range(jobs) if items[i::jobs]]
    with mp.get_context("spawn").Pool(len(chunks)) as pool:
        done = sum(pool.map(_compile_chunk, [(kind, c, shape) for c in chunks]))
    log("compiled %d of %d %s items in %.1f s with %d processes" % (done, len(items), kind,
                                                                     time.time() - t, len(chunks)))
    return time.time() - t
