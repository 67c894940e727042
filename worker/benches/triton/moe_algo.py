"""The GPU-free half of the Triton fused-MoE benchmark (standard library only).

Everything here runs on plain Python lists, so the CPU tests (moe_algo_test.py, registered in
ctest) check exactly the code the GPU harness (fused_moe_bench.py) runs:

* route_topk: softmax + top-k routing of router logits (the reference's routing);
* align_block_size: the token -> expert sorting and padding to BLOCK_SIZE_M that vLLM calls
  moe_align_block_size; the harness feeds its output to the Triton kernel unchanged;
* program_tile: the grouped (GROUP_SIZE_M) program-id -> (block row, block column) mapping that
  the Triton kernel computes in tl code; blocked_moe_gemm emulates the kernel's program grid with
  it, and the tests compare that emulation with the dense float reference (reference_moe);
* smem_bytes: the shared memory a tile set needs (the spec's compile-time constraint);
* tuning_space / surfaces / roofline_ms: the search space of benchmark_moe.py --tune, the
  platform surfaces (cuda honours all six, bi-v100 only BLOCK_SIZE_M), the roofline floor.

Nothing here raises on valid input; invalid arguments raise ValueError with the offending value.
"""

import math
import os
import re

TILE_PARAMS = ("BLOCK_SIZE_M", "BLOCK_SIZE_N", "BLOCK_SIZE_K", "GROUP_SIZE_M", "num_warps",
               "num_stages")

# What a surface that does not honour a parameter runs instead. ixformer's
# vllm_invoke_fused_moe_kernel takes BLOCK_SIZE_M only and keeps its compiled-in tiles; we stand in
# for them with vLLM's fallback configuration (fused_moe.get_default_config) and the launch
# defaults it is used with.
FIXED_WHEN_IGNORED = {"BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 8, "num_warps": 4,
                      "num_stages": 2}

# benchmark_moe.py's get_configs_compute_bound() space (vLLM benchmarks/kernels): 1920 sets.
BENCHMARK_MOE_SPACE = {
    "BLOCK_SIZE_M": [16, 32, 64, 128, 256],
    "BLOCK_SIZE_N": [32, 64, 128, 256],
    "BLOCK_SIZE_K": [64, 128, 256],
    "GROUP_SIZE_M": [1, 16, 32, 64],
    "num_warps": [4, 8],
    "num_stages": [2, 3, 4, 5],
}

MIXTRAL_8X7B = {"E": 8, "N": 14336, "K": 4096, "topk": 2}
TUNED_BATCH_SIZES = [1, 2, 4, 8, 16, 24, 32, 48, 64, 96, 128, 256, 512, 1024, 1536, 2048, 3072,
                     4096]


# ---------------------------------------------------------------------------------------------
# Routing, alignment, the kernel's program mapping


def route_topk(logits, topk):
    """Per row: softmax over experts, the topk largest (ties: lower expert first), weights
    renormalised to sum 1 (Mixtral). Returns (ids, weights), each a list of rows of topk."""
    ids, weights = [], []
    for row in logits:
        top = max(row)
        probs = [math.exp(v - top) for v in row]
        total = sum(probs)
        probs = [p / total for p in probs]
        order = sorted(range(len(row)), key=lambda e: (-probs[e], e))[:topk]
        norm = sum(probs[e] for e in order)
        ids.append(order)
        weights.append([probs[e] / norm for e in order])
    return ids, weights


def align_block_size(topk_ids, num_experts, block_m):
    """moe_align_block_size. topk_ids: rows of expert ids (token t, slot k -> flat id t*topk+k).

    Returns (sorted_ids, expert_ids, num_tokens_post_padded):
      sorted_ids  flat ids grouped by expert (experts ascending, token order kept inside a group),
                  each group padded with the sentinel numel (= tokens*topk) to a multiple of
                  block_m; len(sorted_ids) == num_tokens_post_padded;
      expert_ids  the expert of each block of block_m entries (len = num_tokens_post_padded /
                  block_m); an expert without tokens gets no block.
    """
    if block_m <= 0:
        raise ValueError("block_m must be positive, got %r" % (block_m,))
    flat = [e for row in topk_ids for e in row]
    numel = len(flat)
    groups = [[] for _ in range(num_experts)]
    for i, e in enumerate(flat):
        if not 0 <= e < num_experts:
            raise ValueError("expert id %r out of range [0, %d)" % (e, num_experts))
        groups[e].append(i)
    sorted_ids, expert_ids = [], []
    for e, group in enumerate(groups):
        blocks = -(-len(group) // block_m)
        sorted_ids.extend(group + [numel] * (blocks * block_m - len(group)))
        expert_ids.extend([e] * blocks)
    return sorted_ids, expert_ids, len(sorted_ids)


def program_tile(pid, num_pid_m, num_pid_n, group_m):
    """The kernel's grouped ordering: programs walk GROUP_SIZE_M block rows down one column
    before moving right, so consecutive programs share B tiles in L2. -> (pid_m, pid_n)."""
    in_group = group_m * num_pid_n
    group_id = pid // in_group
    first_m = group_id * group_m
    size_m = min(num_pid_m - first_m, group_m)
    local = pid % in_group
    return first_m + local % size_m, local // size_m


def blocked_moe_gemm(a, w, sorted_ids, expert_ids, num_valid, top_k, tiles, weights=None):
    """Emulates the Triton kernel's program grid on lists: out[id] = A[id // top_k] @ W[e]^T
    (times the routing weight of flat id when weights is given), for every flat id < num_valid.
    a: rows of K floats; w[e]: rows of N floats of length K (vLLM's (E, N, K) layout);
    tiles: dict with BLOCK_SIZE_M/N/K, GROUP_SIZE_M. Returns (out, writes) where writes counts
    how often each output element was stored (the tests require exactly once)."""
    bm, bn, bk = tiles["BLOCK_SIZE_M"], tiles["BLOCK_SIZE_N"], tiles["BLOCK_SIZE_K"]
    n, k = len(w[0]), len(a[0])
    em = len(sorted_ids)
    num_pid_m, num_pid_n = -(-em // bm), -(-n // bn)
    out = [[0.0] * n for _ in range(num_valid)]
    writes = [[0] * n for _ in range(num_valid)]
    flat_w = [x for row in weights for x in row] if weights is not None else None
    for pid in range(num_pid_m * num_pid_n):
        pid_m, pid_n = program_tile(pid, num_pid_m, num_pid_n, tiles["GROUP_SIZE_M"])
        expert = expert_ids[pid_m]
        rows = sorted_ids[pid_m * bm:(pid_m + 1) * bm]
        cols = range(pid_n * bn, min((pid_n + 1) * bn, n))
        for tok in rows:
            if tok >= num_valid:
                continue  # padding: masked in the kernel
            for c in cols:
                acc = 0.0
                for k0 in range(0, k, bk):
                    for kk in range(k0, min(k0 + bk, k)):
                        acc += a[tok // top_k][kk] * w[expert][c][kk]
                if flat_w is not None:
                    acc *= flat_w[tok]
                out[tok][c] = acc
                writes[tok][c] += 1
    return out, writes


def silu_and_mul(rows):
    """vLLM's SiluAndMul: x[:, :N] * sigmoid(x[:, :N]) * x[:, N:] for rows of 2N."""
    half = len(rows[0]) // 2
    return [[g / (1.0 + math.exp(-g)) * u for g, u in zip(r[:half], r[half:])] for r in rows]


def reference_moe(x, w1, w2, topk_ids, topk_weights):
    """The dense float reference of fused_experts: for each token, sum over its top-k experts of
    weight * (silu(x W1g^T) * (x W1u^T)) W2^T. x: M rows of K; w1[e]: 2N rows of K; w2[e]: K rows
    of N. Returns M rows of K."""
    out = []
    for t, row in enumerate(x):
        acc = [0.0] * len(w2[0])
        for e, wt in zip(topk_ids[t], topk_weights[t]):
            h = [sum(xi * wi for xi, wi in zip(row, w1r)) for w1r in w1[e]]
            act = silu_and_mul([h])[0]
            for c, w2r in enumerate(w2[e]):
                acc[c] += wt * sum(ai * wi for ai, wi in zip(act, w2r))
        out.append(acc)
    return out


def fused_moe_blocked(x, w1, w2, topk_ids, topk_weights, tiles):
    """The harness's pipeline on lists: align, GEMM1 (no weight), SiLU-and-mul, GEMM2 (routing
    weight applied), sum over the top-k slots. Returns M rows of K."""
    topk = len(topk_ids[0])
    sorted_ids, expert_ids, _ = align_block_size(topk_ids, len(w1), tiles["BLOCK_SIZE_M"])
    num_valid = len(x) * topk
    h, _ = blocked_moe_gemm(x, w1, sorted_ids, expert_ids, num_valid, topk, tiles)
    act = silu_and_mul(h)
    y, _ = blocked_moe_gemm(act, w2, sorted_ids, expert_ids, num_valid, 1, tiles, topk_weights)
    return [[sum(y[t * topk + s][c] for s in range(topk)) for c in range(len(y[0]))]
            for t in range(len(x))]


# ---------------------------------------------------------------------------------------------
# Shared memory, the space, the surfaces, the floor


def smem_bytes(block_m, block_n, block_k, num_stages, elem_bytes=2):
    """Shared memory the software-pipelined K loop needs: `buffers` copies of an A tile
    (BLOCK_SIZE_M x BLOCK_SIZE_K) and a B tile (BLOCK_SIZE_K x BLOCK_SIZE_N). Triton 3.6 on sm_90
    keeps num_stages buffers on its wgmma path (BLOCK_SIZE_M >= 64) and num_stages - 1 on the
    mma path (smaller M tiles); the compiled kernels' `shared` figures on the H200 matched this
    exactly for every tile set measured (docs/gpu-results.md). This is the estimate the spec's
    constraint uses; the harness still checks the compiled kernel's real figure."""
    buffers = num_stages if block_m >= 64 else num_stages - 1
    return (block_m * block_k + block_k * block_n) * elem_bytes * max(1, buffers)


def tuning_space(space=None, smem_limit=None):
    """Every tile set of `space` (default: benchmark_moe.py's), in odometer order (last parameter
    fastest), split by the shared-memory estimate: -> (feasible, infeasible), lists of dicts."""
    space = space or BENCHMARK_MOE_SPACE
    configs = [{}]
    for name in TILE_PARAMS:
        configs = [dict(c, **{name: v}) for c in configs for v in space[name]]
    if smem_limit is None:
        return configs, []
    fits = [c for c in configs if config_smem(c) <= smem_limit]
    too_big = [c for c in configs if config_smem(c) > smem_limit]
    return fits, too_big


def tile_set_id(config):
    """'BM/BN/BK/GROUP/warps/stages' of a tile-set dict (what tables, logs and --configs use)."""
    return "/".join(str(config[name]) for name in TILE_PARAMS)


def parse_tile_set(text):
    """A tile_set_id back into a tile-set dict of ints. Raises ValueError naming `text` when it
    is not six integers."""
    try:
        values = [int(v) for v in text.split("/")]
    except ValueError:
        values = []
    if len(values) != len(TILE_PARAMS):
        raise ValueError("%r is not BM/BN/BK/GROUP/warps/stages (six integers)" % text)
    return dict(zip(TILE_PARAMS, values))


def config_smem(config):
    return smem_bytes(config["BLOCK_SIZE_M"], config["BLOCK_SIZE_N"], config["BLOCK_SIZE_K"],
                      config["num_stages"])


def read_surface_honoured(source, family="fused_moe"):
    """The `honoured` list of `family` in a platform surface file (worker/platforms/*.yaml), or
    None when the file does not mention the family (then everything is honoured). Reads the
    subset of YAML those files use (a top-level key, an indented `honoured: [a, b]`).
    Raises ValueError naming the file and line when the list is malformed."""
    with open(source) as f:
        lines = f.read().splitlines()
    inside = False
    for number, line in enumerate(lines, 1):
        if re.match(r"^%s:\s*(#.*)?$" % re.escape(family), line):
            inside = True
            continue
        if inside and line and not line[0].isspace() and not line.startswith("#"):
            break  # next top-level key
        m = re.match(r"^\s+honoured:\s*(.*?)\s*(#.*)?$", line) if inside else None
        if m:
            text = m.group(1)
            if not (text.startswith("[") and text.endswith("]")):
                raise ValueError("%s:%d: honoured must be a [list], got %r" % (source, number, text))
            return [t.strip() for t in text[1:-1].split(",") if t.strip()]
    return None


def find_surface(name_or_path, search_dirs):
    """A surface file: a value with '/' or ending in .yaml is a path; else NAME.yaml in the first
    of search_dirs that has it. None when not found."""
    if "/" in name_or_path or name_or_path.endswith(".yaml"):
        return name_or_path if os.path.exists(name_or_path) else None
    for d in search_dirs:
        path = os.path.join(d, name_or_path + ".yaml")
        if os.path.exists(path):
            return path
    return None


def effective_tiles(params, honoured):
    """What the kernel really runs: a parameter the surface honours takes the requested value,
    any other the fixed one (FIXED_WHEN_IGNORED). honoured None = everything honoured.
    BLOCK_SIZE_M is required; the others default to the fixed values when absent."""
    tiles = {}
    for name in TILE_PARAMS:
        requested = params.get(name)
        if name == "BLOCK_SIZE_M" and requested is None:
            raise ValueError("BLOCK_SIZE_M is required")
        use = requested is not None and (honoured is None or name in honoured)
        tiles[name] = int(requested) if use else FIXED_WHEN_IGNORED[name]
    return tiles


def experts_touched(topk_ids):
    return len({e for row in topk_ids for e in row})


def moe_flops(m, n, k, topk):
    """FLOPs of fused_experts: GEMM1 (K -> 2N) and GEMM2 (N -> K) for M*topk rows."""
    return 2 * m * topk * k * (2 * n) + 2 * m * topk * n * k


def moe_bytes(m, n, k, topk, touched, elem_bytes=2):
    """Fewest bytes: the touched experts' W1 (2N x K) and W2 (K x N) once, x in, y out, and the
    intermediate (M*topk x 2N written and read, M*topk x N written and read, M*topk x K)."""
    weights = touched * 3 * n * k * elem_bytes
    acts = (m * k * 2 + m * topk * (2 * n * 2 + n * 2 + k)) * elem_bytes
    return weights + acts


def roofline_ms(m, n, k, topk, touched, tflops, gbps):
    """max(FLOPs / rate, bytes / bandwidth) in ms; tflops in TFLOP/s, gbps in GB/s."""
    t_compute = moe_flops(m, n, k, topk) / (tflops * 1e12)
    t_memory = moe_bytes(m, n, k, topk, touched) / (gbps * 1e9)
    return 1e3 * max(t_compute, t_memory)


def stage_tiles(em, n, k, tiles):
    """Programs of the pipeline's two GEMM launches for `em` aligned rows (a multiple of
    BLOCK_SIZE_M): (gemm1, gemm2) = em / BLOCK_SIZE_M times cdiv(2N, BLOCK_SIZE_N), resp.
    cdiv(K, BLOCK_SIZE_N)."""
    rows = em // tiles["BLOCK_SIZE_M"]
    bn = tiles["BLOCK_SIZE_N"]
    return rows * -(-2 * n // bn), rows * -(-k // bn)


def wave_use(programs, processors):
    """Equal programs run in waves of `processors`: (waves, the fraction of the processors' time
    they fill = programs / (waves * processors)). The last wave's idle processors are what a
    launch of 2.4 waves loses against one of exactly 2 or 3. No programs: (0, 1.0)."""
    if programs <= 0:
        return 0, 1.0
    waves = -(-programs // processors)
    return waves, programs / (waves * processors)

