"""The GPU-free half of the flash-attention autotune benchmark (standard library only).

The thing being tuned is a `triton.Config` list (the seed's fact 2.5 / 5.2: Triton's autotuner
runs every config of the list and keeps the fastest, so adding configs suited to the device is
the effective change). This module holds the candidate configs, their shared-memory estimate, the
choice of the best set from per-shape results and its export as Python a user pastes into
`@triton.autotune(configs=...)`. Tested by fa_algo_test.py (ctest); used by flash_attn_bench.py
and scripts/triton_tune.py.
"""

CONFIG_KEYS = ("BLOCK_M", "BLOCK_N", "num_warps", "num_stages")

# The candidate grid: the large tiles Hopper likes and small ones that fit a 32-48 KiB shared
# memory (BI-V100's get_max_shared_memory is 32 KiB, the seed's open question is 48 KiB).
CANDIDATE_SPACE = {"BLOCK_M": [32, 64, 128], "BLOCK_N": [16, 32, 64, 128], "num_warps": [4, 8],
                   "num_stages": [1, 2, 3]}

# Shapes (batch, heads, seq_len, head_dim, causal) the set is tuned over.
SHAPES = [(16, 32, 512, 128, False), (4, 32, 2048, 128, False), (1, 32, 8192, 128, True)]


def shape_name(shape):
    b, h, s, d, causal = shape
    return "B%d_H%d_S%d_D%d%s" % (b, h, s, d, "_causal" if causal else "")


def smem_bytes(config, head_dim, elem_bytes=2):
    """Q tile once plus num_stages buffers of a K and a V tile (the pipelined inner loop)."""
    bm, bn, st = config["BLOCK_M"], config["BLOCK_N"], max(1, config["num_stages"])
    return (bm * head_dim + 2 * bn * head_dim * st) * elem_bytes


def candidates(space=None, head_dim=128, smem_limit=None):
    """Every config of the space (last key fastest) whose estimate fits smem_limit (None: all);
    drops BLOCK_N > BLOCK_M with 8 warps (too little work per warp to be worth compiling)."""
    space = space or CANDIDATE_SPACE
    out = [{}]
    for key in CONFIG_KEYS:
        out = [dict(c, **{key: v}) for c in out for v in space[key]]
    out = [c for c in out if not (c["num_warps"] == 8 and c["BLOCK_M"] < 64)]
    if smem_limit is not None:
        out = [c for c in out if smem_bytes(c, head_dim) <= smem_limit]
    return out


def config_key(config):
    return tuple(int(config[k]) for k in CONFIG_KEYS)


def best_set(results):
    """results: {shape name: [(config, median_ms)]}. Returns the export: per shape the fastest
    config (ties: first listed), deduplicated in shape order, as [(config, [shape names])]."""
    chosen = []
    for shape in results:
        rows = [r for r in results[shape] if r[1] is not None]
        if not rows:
            continue
        best = min(rows, key=lambda r: r[1])[0]
        for entry in chosen:
            if config_key(entry[0]) == config_key(best):
                entry[1].append(shape)
                break
        else:
            chosen.append((dict(best), [shape]))
    return chosen


def export_config_list(chosen, name="configs"):
    """Python source: `name = [triton.Config({...}, num_warps=W, num_stages=S), ...]` with the
    shapes each config won as a comment. Paste into @triton.autotune(configs=name, key=[...])."""
    lines = ["import triton", "", "%s = [" % name]
    for config, shapes in chosen:
        lines.append("    triton.Config({'BLOCK_M': %d, 'BLOCK_N': %d}, num_warps=%d, num_stages=%d),"
                     "  # best for %s" % (config["BLOCK_M"], config["BLOCK_N"], config["num_warps"],
                                          config["num_stages"], ", ".join(shapes)))
    lines.append("]")
    return "\n".join(lines) + "\n"
