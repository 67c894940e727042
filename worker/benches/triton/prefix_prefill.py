#!/usr/bin/env python3
"""Prefix-prefill attention in Triton, swept by fleetsweep (examples/triton-prefix-prefill.yaml).

The kernel has the shape of vLLM's prefix_prefill.py `_fwd_kernel`: each program takes BLOCK_M
new query tokens of one (sequence, head), streams the cached prefix K/V in BLOCK_N tiles (no
mask), then the new tokens' own K/V with a causal mask, with an online softmax. BLOCK_M and
BLOCK_N are tl.constexpr and num_warps / num_stages are launch parameters, so every combination
is a separately compiled kernel binary: the parameters really reach what runs.

Served with fleetsweep_bench (one-shot or a persistent session; docs/executors.md):
  setup    imports torch/triton, defines the kernel (once per process)
  prepare  NOT timed: inputs for the shape (cached per shape), compiles the tile set, checks the
           result against a float32 torch reference
  run      timed: `warmup` launches, then `reps` launches, each between CUDA events with L2
           flushed before it; samples time_ms, the check, the fingerprint of the COMPILED kernel
Parameters: BLOCK_M, BLOCK_N, num_warps, num_stages, ctx_len (cached prefix tokens), and
optionally query_len, batch, heads, head_dim, dtype (fp16|bf16|fp32), reps, warmup, seed.
By hand: python3 prefix_prefill.py BLOCK_M=64 BLOCK_N=64 num_warps=4 num_stages=1 ctx_len=1024

GPU only (torch + triton). Not run in CI.
"""
import hashlib
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import fleetsweep_bench as fsb  # noqa: E402

DEFAULTS = dict(query_len=512, batch=4, heads=32, head_dim=128, dtype="fp16", reps=20, warmup=5,
                seed=0, ctx_len=1024, num_stages=1)


class Ctx:
    """What a process keeps between executions: modules, the kernel, inputs per shape."""

    def __init__(self):
        import torch
        import triton
        import triton.language as tl
        if not torch.cuda.is_available():
            raise fsb.BenchError("not_implemented", "no CUDA device")
        self.torch, self.triton = torch, triton
        self.kernel = _define_kernel(triton, tl)
        self.inputs = {}  # shape key -> tensors and the reference
        self.flush = torch.empty(256 * 1024 * 1024 // 4, dtype=torch.int32, device="cuda")


def _define_kernel(triton, tl):
    @triton.jit
    def prefix_prefill_fwd(Q, KC, VC, KN, VN, O, sm_scale, ctx_len, q_len, heads,
                           stride_b, stride_h, stride_cb, stride_ch,
                           HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
        start_m = tl.program_id(0)
        bh = tl.program_id(1)
        b = bh // heads
        h = bh % heads
        offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_n = tl.arange(0, BLOCK_N)
        offs_d = tl.arange(0, HEAD_DIM)
        q_base = b * stride_b + h * stride_h
        c_base = b * stride_cb + h * stride_ch
        q = tl.load(Q + q_base + offs_m[:, None] * HEAD_DIM + offs_d[None, :],
                    mask=offs_m[:, None] < q_len, other=0.0)
        m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
        l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
        acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
        # 1) the cached prefix: every query token sees all of it.
        for start_n in range(0, ctx_len, BLOCK_N):
            n = start_n + offs_n
            k = tl.load(KC + c_base + n[None, :] * HEAD_DIM + offs_d[:, None],
                        mask=n[None, :] < ctx_len, other=0.0)
            s = tl.dot(q, k) * sm_scale
            s = tl.where(n[None, :] < ctx_len, s, float("-inf"))
            m_new = tl.maximum(m_i, tl.max(s, 1))
            p = tl.exp(s - m_new[:, None])
            alpha = tl.exp(m_i - m_new)
            l_i = l_i * alpha + tl.sum(p, 1)
            v = tl.load(VC + c_base + n[:, None] * HEAD_DIM + offs_d[None, :],
                        mask=n[:, None] < ctx_len, other=0.0)
            acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
            m_i = m_new
        # 2) the new tokens: causal.
        end_n = tl.minimum((start_m + 1) * BLOCK_M, q_len)
        for start_n in range(0, end_n, BLOCK_N):
            n = start_n + offs_n
            k = tl.load(KN + q_base + n[None, :] * HEAD_DIM + offs_d[:, None],
                        mask=n[None, :] < q_len, other=0.0)
            s = tl.dot(q, k) * sm_scale
            s = tl.where((n[None, :] <= offs_m[:, None]) & (n[None, :] < q_len), s, float("-inf"))
            m_new = tl.maximum(m_i, tl.max(s, 1))
            p = tl.exp(s - m_new[:, None])
            alpha = tl.exp(m_i - m_new)
            l_i = l_i * alpha + tl.sum(p, 1)
            v = tl.load(VN + q_base + n[:, None] * HEAD_DIM + offs_d[None, :],
                        mask=n[:, None] < q_len, other=0.0)
            acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
            m_i = m_new
        acc = acc / l_i[:, None]
        tl.store(O + q_base + offs_m[:, None] * HEAD_DIM + offs_d[None, :],
                 acc.to(O.dtype.element_ty), mask=offs_m[:, None] < q_len)

    return prefix_prefill_fwd


def _param(params, name):
    return params.get(name, DEFAULTS.get(name))


def _inputs(ctx, p):
    torch = ctx.torch
    key = (p["batch"], p["heads"], p["head_dim"], p["ctx_len"], p["query_len"], p["dtype"],
           p["seed"])
    if key in ctx.inputs:
        return ctx.inputs[key]
    dtype = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32}[p["dtype"]]
    torch.manual_seed(p["seed"])
    B, H, D, C, L = p["batch"], p["heads"], p["head_dim"], p["ctx_len"], p["query_len"]
    q = torch.randn(B, H, L, D, device="cuda", dtype=dtype)
    kn, vn = torch.randn_like(q), torch.randn_like(q)
    kc = torch.randn(B, H, C, D, device="cuda", dtype=dtype)
    vc = torch.randn_like(kc)
    k_all = torch.cat([kc, kn], dim=2).float()
    v_all = torch.cat([vc, vn], dim=2).float()
    scale = D ** -0.5
    s = torch.matmul(q.float(), k_all.transpose(-1, -2)) * scale
    causal = torch.ones(L, L, device="cuda", dtype=torch.bool).tril()
    mask = torch.cat([torch.ones(L, C, device="cuda", dtype=torch.bool), causal], dim=1)
    ref = torch.matmul(torch.softmax(s.masked_fill(~mask, float("-inf")), dim=-1), v_all)
    del s, k_all, v_all
    ctx.inputs = {key: dict(q=q, kn=kn, vn=vn, kc=kc, vc=vc, ref=ref, scale=scale, dtype=dtype)}
    return ctx.inputs[key]


def setup(session):
    return Ctx()


def prepare(ctx, params):
    """Inputs, compilation and the correctness check: everything that must not be timed."""
    p = {k: _param(params, k) for k in list(DEFAULTS) + ["BLOCK_M", "BLOCK_N", "num_warps"]}
    x = _inputs(ctx, p)
    q = x["q"]
    o = ctx.torch.empty_like(q)
    grid = (ctx.triton.cdiv(p["query_len"], p["BLOCK_M"]), p["batch"] * p["heads"])

    def launch():
        return ctx.kernel[grid](q, x["kc"], x["vc"], x["kn"], x["vn"], o, x["scale"],
                                p["ctx_len"], p["query_len"], p["heads"], q.stride(0),
                                q.stride(1), x["kc"].stride(0), x["kc"].stride(1),
                                HEAD_DIM=p["head_dim"], BLOCK_M=p["BLOCK_M"],
                                BLOCK_N=p["BLOCK_N"], num_warps=p["num_warps"],
                                num_stages=p["num_stages"])

    try:
        compiled = launch()
        ctx.torch.cuda.synchronize()
    except Exception as e:  # Triton's OutOfResources (shared memory / registers) and friends
        name = type(e).__name__
        if "OutOfResources" in name or "out of resource" in str(e):
            raise fsb.BenchError("out_of_memory", "%s: %s" % (name, str(e)[:300]))
        raise
    err = ((o.float() - x["ref"]).abs().max() / x["ref"].abs().max()).item()
    tol = 2e-2 if x["dtype"] != ctx.torch.float32 else 1e-4
    return dict(launch=launch, compiled=compiled, err=err, tol=tol, p=p)


def _fingerprint(compiled):
    h = getattr(compiled, "hash", None)
    if isinstance(h, str) and h:
        return h[:32]
    asm = getattr(compiled, "asm", None)
    if isinstance(asm, dict) and asm:
        digest = hashlib.sha256()
        for key in sorted(asm):
            val = asm[key]
            digest.update(val if isinstance(val, bytes) else str(val).encode())
        return digest.hexdigest()[:16]
    return None


def run(ctx, prep, params, out):
    """The timed part: CUDA events around single launches, L2 flushed before each."""
    torch, p, launch = ctx.torch, prep["p"], prep["launch"]
    for _ in range(p["warmup"]):
        launch()
    torch.cuda.synchronize()
    times = []
    for _ in range(p["reps"]):
        ctx.flush.zero_()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        launch()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end))
    out.sample("time_ms", values=times)
    out.check(prep["err"] <= prep["tol"], max_rel_error=prep["err"], tolerance=prep["tol"],
              detail="vs float32 torch softmax(QK^T)V with prefix + causal mask")
    fp = _fingerprint(prep["compiled"])
    if fp:
        out.fingerprint(fp)
    else:
        out.info("fingerprint", "unavailable in this Triton version")
    out.info("triton", ctx.triton.__version__)
    out.info("torch", torch.__version__)
    out.info("device", torch.cuda.get_device_name())
    out.info("ran", "prefix_prefill_fwd;BLOCK_M=%s;BLOCK_N=%s;num_warps=%s;num_stages=%s;B=%s;"
             "H=%s;D=%s;ctx=%s;q=%s;%s" % (p["BLOCK_M"], p["BLOCK_N"], p["num_warps"],
                                          p["num_stages"], p["batch"], p["heads"], p["head_dim"],
                                          p["ctx_len"], p["query_len"], p["dtype"]))
    return sum(times)


if __name__ == "__main__":
    fsb.serve(run, prepare=prepare, setup=setup)
