#!/usr/bin/env python3
"""Fused MoE in Triton, written by the project, served to fleetsweep (one-shot or persistent).

What runs (vLLM's fused_experts, from the algorithm): the router's top-k ids are sorted by
expert and padded to BLOCK_SIZE_M (moe_algo.align_block_size, outside the timed region); the
Triton kernel `moe_gemm` is a grouped GEMM over those padded blocks (each program: one
BLOCK_SIZE_M x BLOCK_SIZE_N tile of one expert, K in BLOCK_SIZE_K steps, GROUP_SIZE_M-grouped
program order); GEMM1 (K -> 2N), SiLU-and-mul, GEMM2 (N -> K) with the top-k weights applied in
its epilogue, then the sum over the top-k slots. The four tiles are tl.constexpr and num_warps /
num_stages launch options, so every tile set is its own compiled binary. The K loop drops its K
masks when K % BLOCK_SIZE_K == 0 (EVEN_K, decided by the host), and on sm_90 and newer reads the
weights through a host-side TMA tensor descriptor (B_DESC; module attribute B_DESC = 0 turns it
off): 4-6% faster at M >= 1024 on an H100 (docs/gpu-results.md, "Kernel candidate").

Parameters (fleetsweep parameters or NAME=VALUE arguments):
  BLOCK_SIZE_M BLOCK_SIZE_N BLOCK_SIZE_K GROUP_SIZE_M num_warps num_stages   the tile set
  M E N K topk        shape (defaults: Mixtral-8x7B, M=1024)    dtype  bfloat16 | float16
  smem_limit          bytes of shared memory a tile set may use (0: the device's own limit); a
                      compiled kernel above it is infeasible: error not_implemented, never timed
  reps warmup inner   samples per execution, untimed graph replays, pipeline calls per CUDA
                      graph (0: enough calls for about 1 ms, at most 10)
  platform            surface name or file when FLEETSWEEP_PLATFORM_SURFACE is unset: `cuda`
                      honours all six tile parameters, `bi-v100` BLOCK_SIZE_M only (the others
                      run at moe_algo.FIXED_WHEN_IGNORED, as ixformer's compiled tiles do)

Each execution: time_ms samples (CUDA events around a graph of `inner` pipeline calls, divided by
`inner`, like benchmark_moe.py), a check against a float32 torch reference (relative Frobenius
error, outputs poisoned with NaN first), the fingerprint = sha256 of the two compiled cubins
(what ran, never the requested values: a tile the surface ignores leaves it unchanged), and info
(effective tiles, shared memory used vs estimate, FLOPs, bytes, roofline floor).
"""
import hashlib
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
for _d in (os.path.join(HERE, "..", "python"), HERE, os.environ.get("FLEETSWEEP_BIN", "")):
    if _d and _d not in sys.path:
        sys.path.insert(0, _d)

import fleetsweep_bench as fsb  # noqa: E402

try:  # GPU nodes only; the CPU tests use the *_algo modules
    import triton
    import triton.language as tl
except ImportError:  # pragma: no cover
    triton = tl = None
import moe_algo  # noqa: E402

DEFAULTS = {"M": 1024, "E": 8, "N": 14336, "K": 4096, "topk": 2, "dtype": "bfloat16",
            "smem_limit": 0, "reps": 20, "warmup": 3, "inner": 0, "seed": 0, "platform": ""}
TOLERANCE = 2e-2  # relative Frobenius error for bf16/fp16 operands (METHOD.md: 1e-3..1e-2)
B_DESC = True  # load B (the weights) through TMA tensor descriptors where setup() finds sm_90+


def _kernel():
    @triton.jit(do_not_specialize=["EM", "num_valid"])
    def moe_gemm(a_ptr, b_ptr, c_ptr, w_ptr, sorted_ptr, expert_ptr, N, K, EM, num_valid,
                 stride_am, stride_ak, stride_be, stride_bn, stride_bk, stride_cm, stride_cn,
                 TOP_K: tl.constexpr, MUL_WEIGHT: tl.constexpr, BLOCK_SIZE_M: tl.constexpr,
                 BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
                 GROUP_SIZE_M: tl.constexpr, EVEN_K: tl.constexpr, B_DESC: tl.constexpr):
        # Program -> (block row, block column), grouped like moe_algo.program_tile.
        pid = tl.program_id(0)
        num_pid_m = tl.cdiv(EM, BLOCK_SIZE_M)
        num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
        in_group = GROUP_SIZE_M * num_pid_n
        first_m = (pid // in_group) * GROUP_SIZE_M
        size_m = tl.minimum(num_pid_m - first_m, GROUP_SIZE_M)
        local = pid % in_group
        pid_m = first_m + local % size_m
        pid_n = local // size_m
        # The block's rows: flat (token, slot) ids of one expert; padding ids are >= num_valid.
        offs_m = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
        tok = tl.load(sorted_ptr + offs_m).to(tl.int64)
        tok_ok = tok < num_valid
        expert = tl.load(expert_ptr + pid_m).to(tl.int64)
        offs_n = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
        offs_k = tl.arange(0, BLOCK_SIZE_K)
        # A rows stay masked (padding rows load nothing): gathering row 0 for them instead was
        # 3-13% slower at M >= 256 (docs/gpu-results.md, "Kernel candidate").
        a_ptrs = a_ptr + (tok[:, None] // TOP_K) * stride_am + offs_k[None, :] * stride_ak
        if B_DESC:
            # B through a TMA descriptor over the experts' weights seen as (E * N) x K rows: a
            # tile past N reads the next expert's rows (or zeros past the end), never stored.
            b_row = (expert * N + pid_n * BLOCK_SIZE_N).to(tl.int32)
        else:
            offs_bn = offs_n % N
            b_ptrs = b_ptr + expert * stride_be + offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn
        acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
        for step in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
            # EVEN_K (K % BLOCK_SIZE_K == 0, decided by the host): no K mask.
            if EVEN_K:
                a = tl.load(a_ptrs, mask=tok_ok[:, None], other=0.0)
            else:
                a = tl.load(a_ptrs, mask=tok_ok[:, None] & (offs_k[None, :] < K - step * BLOCK_SIZE_K),
                            other=0.0)
            if B_DESC:
                b = b_ptr.load([b_row, step * BLOCK_SIZE_K]).T  # zero-filled past K
            else:
                if EVEN_K:
                    b = tl.load(b_ptrs)
                else:
                    b = tl.load(b_ptrs, mask=offs_k[:, None] < K - step * BLOCK_SIZE_K, other=0.0)
                b_ptrs += BLOCK_SIZE_K * stride_bk
            acc = tl.dot(a, b, acc)
            a_ptrs += BLOCK_SIZE_K * stride_ak
        if MUL_WEIGHT:
            acc = acc * tl.load(w_ptr + tok, mask=tok_ok, other=0.0)[:, None]
        c_ptrs = c_ptr + tok[:, None] * stride_cm + offs_n[None, :] * stride_cn
        tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=tok_ok[:, None] & (offs_n[None, :] < N))

    return moe_gemm


def _silu_kernel():
    @triton.jit
    def silu_and_mul(x_ptr, out_ptr, N, stride_x, stride_out, BLOCK: tl.constexpr):
        row = tl.program_id(0).to(tl.int64)
        cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
        ok = cols < N
        gate = tl.load(x_ptr + row * stride_x + cols, mask=ok, other=0.0).to(tl.float32)
        up = tl.load(x_ptr + row * stride_x + N + cols, mask=ok, other=0.0).to(tl.float32)
        y = gate / (1.0 + tl.exp(-gate)) * up
        tl.store(out_ptr + row * stride_out + cols, y.to(out_ptr.dtype.element_ty), mask=ok)

    return silu_and_mul


def _surface_honoured(params):
    name = os.environ.get("FLEETSWEEP_PLATFORM_SURFACE") or params.get("platform") or ""
    if not name:
        return None, "generic"
    dirs = [os.environ.get("FLEETSWEEP_PLATFORM_DIR", ""), os.path.join(HERE, "..", "..", "platforms"),
            os.path.join(HERE, "..", "..", "..", "platforms"),  # installed: <bin>/benches/triton
            os.path.join(os.environ.get("FLEETSWEEP_BIN", "."), "..", "platforms"),
            os.path.join(os.environ.get("FLEETSWEEP_SRC", "."), "worker", "platforms")]
    path = moe_algo.find_surface(str(name), [d for d in dirs if d])
    if path is None:
        raise fsb.BenchError("bad_input", "platform surface %r not found in %s" % (name, dirs))
    return moe_algo.read_surface_honoured(path), os.path.basename(path)


def setup(session):
    try:
        import torch
    except ImportError:
        raise fsb.BenchError("not_implemented", "torch is not installed on this node")
    if triton is None:
        raise fsb.BenchError("not_implemented", "triton is not installed")
    if not torch.cuda.is_available():
        raise fsb.BenchError("not_implemented", "no CUDA device")
    ctx = {"torch": torch, "triton": triton, "kernel": _kernel(), "silu": _silu_kernel(),
           "inputs": {}, "b_desc": False}
    try:  # B through TMA descriptors where the device has the copy engine (sm_90 and newer)
        from triton.tools.tensor_descriptor import TensorDescriptor
        ctx["TensorDescriptor"] = TensorDescriptor
        ctx["b_desc"] = B_DESC and torch.cuda.get_device_capability()[0] >= 9
    except ImportError:
        pass
    return ctx


def _value(params, name):
    return params[name] if name in params else DEFAULTS[name]


def _inputs(ctx, shape, dtype_name, seed):
    """Random inputs, routing and the float32 reference for one shape, cached per process."""
    key = (shape, dtype_name, seed)
    if key in ctx["inputs"]:
        return ctx["inputs"][key]
    torch = ctx["torch"]
    ctx["inputs"].clear()  # one shape at a time: Mixtral's weights are 2.8 GB
    torch.cuda.empty_cache()
    m, e, n, k, topk = shape
    dtype = getattr(torch, dtype_name)
    g = torch.Generator(device="cuda").manual_seed(seed)
    x = torch.randn(m, k, device="cuda", generator=g).to(dtype)
    w1 = (torch.randn(e, 2 * n, k, device="cuda", generator=g) * k ** -0.5).to(dtype)
    w2 = (torch.randn(e, k, n, device="cuda", generator=g) * n ** -0.5).to(dtype)
    logits = torch.randn(m, e, device="cuda", generator=g)
    probs = torch.softmax(logits, dim=-1)
    wts, ids = torch.topk(probs, topk, dim=-1)
    wts = (wts / wts.sum(dim=-1, keepdim=True)).float()
    ref = torch.zeros(m, k, device="cuda", dtype=torch.float32)
    for ex in range(e):
        rows, slots = (ids == ex).nonzero(as_tuple=True)
        if rows.numel() == 0:
            continue
        h = x[rows].float() @ w1[ex].float().t()
        act = torch.nn.functional.silu(h[:, :n]) * h[:, n:]
        y = act @ w2[ex].float().t()
        ref.index_add_(0, rows, y * wts[rows, slots].unsqueeze(1))
    bufs = {"c1": torch.empty(m * topk, 2 * n, device="cuda", dtype=dtype),
            "c2": torch.empty(m * topk, n, device="cuda", dtype=dtype),
            "c3": torch.empty(m * topk, k, device="cuda", dtype=dtype),
            "out": torch.empty(m, k, device="cuda", dtype=dtype)}
    inp = {"x": x, "w1": w1, "w2": w2, "bufs": bufs, "ids": ids, "ids_list": ids.tolist(),
           "wts": wts.reshape(-1).contiguous(), "ref": ref, "ref_norm": ref.norm().item()}
    ctx["inputs"][key] = inp
    return inp


class Prepared:
    """One tile set on one shape: aligned routing, buffers, compiled kernels, a captured graph."""


def prepare(ctx, params):
    torch, triton = ctx["torch"], ctx["triton"]
    honoured, surface = _surface_honoured(params)
    tiles = moe_algo.effective_tiles(params, honoured)
    shape = tuple(int(_value(params, p)) for p in ("M", "E", "N", "K", "topk"))
    m, e, n, k, topk = shape
    key = (shape, str(_value(params, "dtype")), int(_value(params, "seed")))
    if key not in ctx["inputs"]:
        fsb.take_device()  # 2.8 GB of weights and a float32 reference: device work
    inp = _inputs(ctx, *key)
    sorted_ids, expert_ids, em = moe_algo.align_block_size(inp["ids_list"], e, tiles["BLOCK_SIZE_M"])
    p = Prepared()
    p.tiles, p.surface, p.shape, p.inp = tiles, surface, shape, inp
    p.sorted = torch.tensor(sorted_ids, dtype=torch.int32, device="cuda")
    p.experts = torch.tensor(expert_ids, dtype=torch.int32, device="cuda")
    p.em = em
    # Buffers are shared by every tile set of the shape (graphs replay one at a time).
    p.c1, p.c2, p.c3, p.out = (inp["bufs"][b] for b in ("c1", "c2", "c3", "out"))
    p.smem_limit = int(_value(params, "smem_limit"))
    p.smem_estimate = moe_algo.config_smem(tiles)
    try:
        p.compiled = _pipeline(ctx, p, compile_only=True)  # in parallel with other slots' timing
        torch.cuda.synchronize()
    except Exception as exc:  # noqa: BLE001 - Triton's OutOfResources names no stable base class
        if "OutOfResources" in type(exc).__name__ or "out of resource" in str(exc).lower():
            raise fsb.BenchError("not_implemented", "does not compile for this device: %s: %s"
                                 % (type(exc).__name__, str(exc)[:300]))
        raise
    p.smem_bytes = max(int(c.metadata.shared) for c in p.compiled)
    if p.smem_limit and p.smem_bytes > p.smem_limit:
        raise fsb.BenchError("not_implemented", "tile set needs %d B of shared memory > limit %d B"
                             " (infeasible at compile time)" % (p.smem_bytes, p.smem_limit))
    p.fingerprint = _fingerprint(p.compiled)
    fsb.take_device()  # from here on kernels run: alone on the device (docs/executors.md)
    p.err = _check(ctx, p)
    inner = int(_value(params, "inner"))
    p.graph = _capture(ctx, p, inner if inner > 0 else _auto_inner(ctx, p))
    return p


def _auto_inner(ctx, p):
    """Pipeline calls per graph so that one replay lasts about 1 ms (1..10)."""
    torch = ctx["torch"]
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    _pipeline(ctx, p)
    end.record()
    end.synchronize()
    return max(1, min(10, int(1.0 / max(start.elapsed_time(end), 1e-3)) + 1))


def _compile_or_launch(kern, grid, compile_only, *args, **kwargs):
    """Launches the kernel, or with compile_only only compiles it for these arguments (Triton's
    JITFunction.warmup; a launch where this Triton has no warmup). Returns the compiled kernel."""
    if compile_only and hasattr(kern, "warmup"):
        try:
            return kern.warmup(*args, grid=grid, **kwargs)
        except TypeError:  # an older warmup signature: compile by launching
            pass
    return kern[grid](*args, **kwargs)


def _b_operand(ctx, w, tiles):
    """GEMM B operand: the weights (E, rows, cols) as a TMA tensor descriptor over (E * rows) x
    cols with [BLOCK_SIZE_N, BLOCK_SIZE_K] boxes where ctx["b_desc"] (sm_90 and newer), else the
    tensor itself (pointer loads)."""
    if not ctx.get("b_desc"):
        return w, False
    e, rows, cols = w.shape
    return ctx["TensorDescriptor"](w, [e * rows, cols], [w.stride(1), w.stride(2)],
                                   [tiles["BLOCK_SIZE_N"], tiles["BLOCK_SIZE_K"]]), True


def _stages(ctx, p, compile_only=False):
    """fused_experts on the prepared buffers as its four launches in order, (name, thunk) pairs:
    gemm1 (x by w1: gate and up), silu (silu(gate) * up), gemm2 (by w2, times the top-k weight),
    sum (over each token's top-k rows). A GEMM thunk returns its compiled kernel; compile_only
    GEMM thunks compile without running anything on the device."""
    torch, triton, kern = ctx["torch"], ctx["triton"], ctx["kernel"]
    m, e, n, k, topk = p.shape
    t, inp = p.tiles, p.inp
    launch = dict(BLOCK_SIZE_M=t["BLOCK_SIZE_M"], BLOCK_SIZE_N=t["BLOCK_SIZE_N"],
                  BLOCK_SIZE_K=t["BLOCK_SIZE_K"], GROUP_SIZE_M=t["GROUP_SIZE_M"],
                  num_warps=t["num_warps"], num_stages=t["num_stages"])
    pid_m = p.em // t["BLOCK_SIZE_M"]
    w1, w2, x = inp["w1"], inp["w2"], inp["x"]
    b1, desc = _b_operand(ctx, w1, t)
    b2, _ = _b_operand(ctx, w2, t)

    def gemm1():
        return _compile_or_launch(
            kern, (pid_m * triton.cdiv(2 * n, t["BLOCK_SIZE_N"]),), compile_only,
            x, b1, p.c1, inp["wts"], p.sorted, p.experts, 2 * n, k, p.em, m * topk,
            x.stride(0), x.stride(1), w1.stride(0), w1.stride(1), w1.stride(2), p.c1.stride(0),
            p.c1.stride(1), TOP_K=topk, MUL_WEIGHT=False, EVEN_K=k % t["BLOCK_SIZE_K"] == 0,
            B_DESC=desc, **launch)

    def silu():
        ctx["silu"][(m * topk, triton.cdiv(n, 1024))](p.c1, p.c2, n, p.c1.stride(0),
                                                       p.c2.stride(0), BLOCK=1024)

    def gemm2():
        return _compile_or_launch(
            kern, (pid_m * triton.cdiv(k, t["BLOCK_SIZE_N"]),), compile_only,
            p.c2, b2, p.c3, inp["wts"], p.sorted, p.experts, k, n, p.em, m * topk,
            p.c2.stride(0), p.c2.stride(1), w2.stride(0), w2.stride(1), w2.stride(2),
            p.c3.stride(0), p.c3.stride(1), TOP_K=1, MUL_WEIGHT=True,
            EVEN_K=n % t["BLOCK_SIZE_K"] == 0, B_DESC=desc, **launch)

    def total():
        torch.sum(p.c3.view(m, topk, k), dim=1, out=p.out)

    return [("gemm1", gemm1), ("silu", silu), ("gemm2", gemm2), ("sum", total)]


def _pipeline(ctx, p, compile_only=False):
    """fused_experts on the prepared buffers; returns the two compiled kernels. compile_only:
    compile both GEMMs without running anything on the device."""
    compiled = []
    for name, launch in _stages(ctx, p, compile_only):
        if name.startswith("gemm"):
            compiled.append(launch())
        elif not compile_only:
            launch()
    return tuple(compiled)


def dummy_prepared(torch, tiles, shape, dtype="bfloat16"):
    """A Prepared with the argument types, strides and alignment of `shape` (weights allocated,
    never written; activations one token long), for compiling a tile set without inputs: the
    kernels it compiles are those prepare() launches (EM and num_valid are not specialized)."""
    m, e, n, k, topk = shape
    dt = getattr(torch, dtype)
    p = Prepared()
    p.tiles, p.shape, p.em = tiles, (1, e, n, k, topk), tiles["BLOCK_SIZE_M"]
    p.inp = {"x": torch.empty(1, k, device="cuda", dtype=dt),
             "w1": torch.empty(e, 2 * n, k, device="cuda", dtype=dt),
             "w2": torch.empty(e, k, n, device="cuda", dtype=dt),
             "wts": torch.empty(topk, device="cuda", dtype=torch.float32)}
    p.c1, p.c2, p.c3 = (torch.empty(topk, c, device="cuda", dtype=dt) for c in (2 * n, n, k))
    p.sorted = torch.empty(tiles["BLOCK_SIZE_M"], device="cuda", dtype=torch.int32)
    p.experts = torch.empty(1, device="cuda", dtype=torch.int32)
    return p


def compile_tile_set(ctx, tiles, shape, dtype="bfloat16"):
    """Compiles the two GEMMs of one tile set for `shape` into the Triton cache (no launch)."""
    return _pipeline(ctx, dummy_prepared(ctx["torch"], tiles, shape, dtype), compile_only=True)


def _fingerprint(compiled):
    digest = hashlib.sha256()
    for c in compiled:
        asm = getattr(c, "asm", {}) or {}
        blob = asm.get("cubin") or asm.get("ptx") or getattr(c, "hash", "")
        digest.update(blob if isinstance(blob, bytes) else str(blob).encode())
    return digest.hexdigest()[:16]


def _check(ctx, p):
    torch = ctx["torch"]
    for buf in (p.c1, p.c2, p.c3, p.out):
        buf.fill_(float("nan"))
    _pipeline(ctx, p)
    torch.cuda.synchronize()
    out = p.out.float()
    if not bool(torch.isfinite(out).all()):
        return float("inf")
    return ((out - p.inp["ref"]).norm().item()) / max(p.inp["ref_norm"], 1e-30)


def _capture(ctx, p, inner):
    torch = ctx["torch"]
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        _pipeline(ctx, p)  # warm the launch path on the capture stream
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(inner):
            _pipeline(ctx, p)
    torch.cuda.synchronize()
    return graph, inner


def run(ctx, p, params, out):
    torch = ctx["torch"]
    graph, inner = p.graph
    for _ in range(int(_value(params, "warmup"))):
        graph.replay()
    torch.cuda.synchronize()
    for _ in range(int(_value(params, "reps"))):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        graph.replay()
        end.record()
        end.synchronize()
        out.sample("time_ms", start.elapsed_time(end) / inner)
    out.check(passed=p.err <= TOLERANCE, max_rel_error=p.err, tolerance=TOLERANCE,
              detail="relative Frobenius error vs float32 torch fused_experts")
    out.fingerprint(p.fingerprint)
    m, e, n, k, topk = p.shape
    touched = moe_algo.experts_touched(p.inp["ids_list"])
    out.info("tiles", p.tiles)
    out.info("surface", p.surface)
    out.info("smem_bytes", p.smem_bytes)
    out.info("smem_estimate", p.smem_estimate)
    out.info("shapes", {"M": m, "E": e, "N": n, "K": k, "topk": topk})
    out.info("flops", moe_algo.moe_flops(m, n, k, topk))
    out.info("bytes", moe_algo.moe_bytes(m, n, k, topk, touched))
    out.info("device_name", torch.cuda.get_device_name())


if __name__ == "__main__":
    fsb.serve(run, prepare=prepare, setup=setup)
