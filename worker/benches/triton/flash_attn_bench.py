#!/usr/bin/env python3
"""Flash-attention forward in Triton, written by the project; one `triton.Config` per execution.

The kernel is the classic FlashAttention-2 forward: one program per (BLOCK_M query rows, batch x
head), K/V streamed in BLOCK_N tiles with an online softmax, optional causal mask. BLOCK_M and
BLOCK_N are tl.constexpr, num_warps / num_stages launch options: one config = one binary. The
sweep over configs is how fleetsweep tunes an autotune set; fa_algo.export_config_list turns the
per-shape winners into the `triton.Config` list a user pastes into `@triton.autotune`, and
`make_autotuned(configs)` is that pasted kernel (scripts/triton_tune.py times it to show the set
reaches the best single config's time).

Parameters: BLOCK_M BLOCK_N num_warps num_stages (the config); B H S D causal (shape, default
4 x 32 x 2048 x 128, non-causal); smem_limit (bytes, 0 = the device's); reps warmup.
Protocol: time_ms samples (CUDA events around 10 back-to-back launches, / 10), check vs float32 torch attention,
fingerprint = sha256 of the compiled cubin, info smem_bytes / flops.
"""
import hashlib
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
for _d in (os.path.join(HERE, "..", "python"), HERE, os.environ.get("FLEETSWEEP_BIN", "")):
    if _d and _d not in sys.path:
        sys.path.insert(0, _d)

import fa_algo  # noqa: E402
import fleetsweep_bench as fsb  # noqa: E402

try:  # GPU nodes only; the CPU tests use the *_algo modules
    import triton
    import triton.language as tl
except ImportError:  # pragma: no cover
    triton = tl = None

DEFAULTS = {"B": 4, "H": 32, "S": 2048, "D": 128, "causal": False, "smem_limit": 0, "reps": 20,
            "warmup": 3, "seed": 0}
TOLERANCE = 2e-2


def _raw_kernel():
    def attn_fwd(Q, K, V, O, sm_scale, S, HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr,
                 BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr):
        start_m = tl.program_id(0)
        base = tl.program_id(1).to(tl.int64) * S * HEAD_DIM  # (batch, head) plane, contiguous
        offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_n = tl.arange(0, BLOCK_N)
        offs_d = tl.arange(0, HEAD_DIM)
        q = tl.load(Q + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :], mask=offs_m[:, None] < S,
                    other=0.0)
        m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
        l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
        acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
        qk_scale = sm_scale * 1.44269504  # exp2
        if CAUSAL:
            end_n = tl.minimum((start_m + 1) * BLOCK_M, S)
        else:
            end_n = S
        for start_n in range(0, end_n, BLOCK_N):
            n = start_n + offs_n
            k = tl.load(K + base + n[None, :] * HEAD_DIM + offs_d[:, None], mask=n[None, :] < S, other=0.0)
            s = tl.dot(q, k) * qk_scale
            valid = n[None, :] < S
            if CAUSAL:
                valid = valid & (n[None, :] <= offs_m[:, None])
            s = tl.where(valid, s, float("-inf"))
            m_new = tl.maximum(m_i, tl.max(s, 1))
            p = tl.math.exp2(s - m_new[:, None])
            alpha = tl.math.exp2(m_i - m_new)
            l_i = l_i * alpha + tl.sum(p, 1)
            v = tl.load(V + base + n[:, None] * HEAD_DIM + offs_d[None, :], mask=n[:, None] < S, other=0.0)
            acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
            m_i = m_new
        acc = acc / l_i[:, None]
        tl.store(O + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :], acc.to(O.dtype.element_ty),
                 mask=offs_m[:, None] < S)

    return attn_fwd


def make_kernel():
    return triton.jit(_raw_kernel(), do_not_specialize=["S"])


def make_autotuned(configs):
    """The kernel as a user would write it with the exported list: @triton.autotune over
    `configs` (triton.Config objects), keyed by the shape."""
    return triton.autotune(configs=configs, key=["S", "HEAD_DIM", "CAUSAL"])(
        triton.jit(_raw_kernel(), do_not_specialize=["S"]))


def setup(session):
    try:
        import torch
    except ImportError:
        raise fsb.BenchError("not_implemented", "torch is not installed on this node")
    if triton is None:
        raise fsb.BenchError("not_implemented", "triton is not installed")
    if not torch.cuda.is_available():
        raise fsb.BenchError("not_implemented", "no CUDA device")
    return {"torch": torch, "triton": triton, "kernel": make_kernel(), "inputs": {}}


def _value(params, name):
    return params[name] if name in params else DEFAULTS[name]


def shape_of(params):
    return (int(_value(params, "B")), int(_value(params, "H")), int(_value(params, "S")),
            int(_value(params, "D")), bool(_value(params, "causal")))


def inputs(ctx, shape, seed=0):
    """q, k, v (B, H, S, D) bf16, an output buffer and the float32 reference; cached per shape."""
    if shape in ctx["inputs"]:
        return ctx["inputs"][shape]
    torch = ctx["torch"]
    ctx["inputs"].clear()
    b, h, s, d, causal = shape
    g = torch.Generator(device="cuda").manual_seed(seed)
    q, k, v = (torch.randn(b, h, s, d, device="cuda", generator=g).to(torch.bfloat16) for _ in range(3))
    ref = torch.nn.functional.scaled_dot_product_attention(q.float(), k.float(), v.float(),
                                                           is_causal=causal)
    inp = {"q": q, "k": k, "v": v, "o": torch.empty_like(q), "ref": ref, "ref_norm": ref.norm().item()}
    ctx["inputs"][shape] = inp
    return inp


def launch(ctx, kernel, inp, shape, config=None):
    """One forward pass; config None = the kernel is autotuned (it picks BLOCK_M itself)."""
    triton = ctx["triton"]
    b, h, s, d, causal = shape
    scale = d ** -0.5
    if config is None:
        grid = lambda meta: (triton.cdiv(s, meta["BLOCK_M"]), b * h)  # noqa: E731
        return kernel[grid](inp["q"], inp["k"], inp["v"], inp["o"], scale, s, HEAD_DIM=d, CAUSAL=causal)
    return kernel[(triton.cdiv(s, config["BLOCK_M"]), b * h)](
        inp["q"], inp["k"], inp["v"], inp["o"], scale, s, HEAD_DIM=d, BLOCK_M=config["BLOCK_M"],
        BLOCK_N=config["BLOCK_N"], CAUSAL=causal, num_warps=config["num_warps"],
        num_stages=config["num_stages"])


def rel_error(ctx, inp):
    torch = ctx["torch"]
    o = inp["o"].float()
    if not bool(torch.isfinite(o).all()):
        return float("inf")
    return (o - inp["ref"]).norm().item() / max(inp["ref_norm"], 1e-30)


def time_launches(ctx, fn, reps, warmup, inner=10):
    """reps samples in ms: CUDA events around `inner` back-to-back launches, divided by inner
    (the launches queue up, so the host's launch cost stays out of the kernel's time)."""
    torch = ctx["torch"]
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(inner):
            fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / inner)
    return times


class Prepared:
    pass


def prepare(ctx, params):
    config = {k: int(params[k]) for k in fa_algo.CONFIG_KEYS}
    shape = shape_of(params)
    inp = inputs(ctx, shape, int(_value(params, "seed")))
    p = Prepared()
    p.config, p.shape, p.inp = config, shape, inp
    inp["o"].fill_(float("nan"))
    try:
        p.compiled = launch(ctx, ctx["kernel"], inp, shape, config)
        ctx["torch"].cuda.synchronize()
    except Exception as exc:  # noqa: BLE001 - OutOfResources has no stable import path
        if "OutOfResources" in type(exc).__name__ or "out of resource" in str(exc).lower():
            raise fsb.BenchError("not_implemented", "does not compile for this device: %s" % str(exc)[:300])
        raise
    p.smem_bytes = int(p.compiled.metadata.shared)
    limit = int(_value(params, "smem_limit"))
    if limit and p.smem_bytes > limit:
        raise fsb.BenchError("not_implemented", "config needs %d B of shared memory > limit %d B"
                             % (p.smem_bytes, limit))
    p.err = rel_error(ctx, inp)
    blob = (p.compiled.asm or {}).get("cubin") or p.compiled.hash
    p.fingerprint = hashlib.sha256(blob if isinstance(blob, bytes) else str(blob).encode()).hexdigest()[:16]
    return p


def run(ctx, p, params, out):
    times = time_launches(ctx, lambda: launch(ctx, ctx["kernel"], p.inp, p.shape, p.config),
                          int(_value(params, "reps")), int(_value(params, "warmup")))
    out.sample("time_ms", values=times)
    out.check(passed=p.err <= TOLERANCE, max_rel_error=p.err, tolerance=TOLERANCE,
              detail="relative Frobenius error vs float32 scaled_dot_product_attention")
    out.fingerprint(p.fingerprint)
    b, h, s, d, causal = p.shape
    out.info("smem_bytes", p.smem_bytes)
    out.info("smem_estimate", fa_algo.smem_bytes(p.config, d))
    out.info("flops", 4 * b * h * s * s * d // (2 if causal else 1))
    out.info("shape", fa_algo.shape_name(p.shape))


if __name__ == "__main__":
    fsb.serve(run, prepare=prepare, setup=setup)
