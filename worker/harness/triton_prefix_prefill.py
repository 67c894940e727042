#!/usr/bin/env python3
"""Prefix-prefill attention in Triton, swept by fleetsweep (examples/triton-prefix-prefill.yaml).

The kernel has the shape of vLLM's prefix_prefill.py `_fwd_kernel`: each program takes BLOCK_M
new query tokens of one (sequence, head), streams the cached prefix K/V in BLOCK_N tiles (no
mask), then the new tokens' own K/V with a causal mask, with an online softmax. BLOCK_M and
BLOCK_N are tl.constexpr and num_warps / num_stages are launch parameters, so every combination
is a separately compiled kernel binary: the parameters really reach what runs.

Protocol (docs/executors.md), one JSON line each on stdout:
  sample time_ms      one per timed repetition (CUDA events around one launch; L2 flushed)
  check               max relative error against a float32 torch reference
  fingerprint         hash of the compiled kernel (CompiledKernel.hash, else a hash of its
                      asm/binary); nothing when neither is available (the audit then warns)
  info                triton/torch versions, device, effective tiles
  error               out_of_memory when the tiles do not fit (Triton OutOfResources)

GPU only. Not run in CI (no GPU there); the lead runs it on the device machine.
"""
import argparse
import hashlib
import json
import sys


def emit(**record):
    print(json.dumps(record), flush=True)


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--block-m", type=int, default=64)
    p.add_argument("--block-n", type=int, default=64)
    p.add_argument("--num-warps", type=int, default=4)
    p.add_argument("--num-stages", type=int, default=1)
    p.add_argument("--batch", type=int, default=4)
    p.add_argument("--heads", type=int, default=32)
    p.add_argument("--head-dim", type=int, default=128)
    p.add_argument("--ctx-len", type=int, default=1024, help="cached prefix tokens per sequence")
    p.add_argument("--query-len", type=int, default=512, help="new tokens per sequence")
    p.add_argument("--dtype", default="fp16", choices=["fp16", "bf16", "fp32"])
    p.add_argument("--reps", type=int, default=20)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--seed", type=int, default=0)
    return p.parse_args()


def main():
    args = parse_args()
    try:
        import torch
        import triton
        import triton.language as tl
    except ImportError as e:
        emit(type="error", **{"class": "not_implemented"}, detail=f"missing module: {e}")
        return 1
    if not torch.cuda.is_available():
        emit(type="error", **{"class": "not_implemented"}, detail="no CUDA device")
        return 1

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
        tl.store(O + q_base + offs_m[:, None] * HEAD_DIM + offs_d[None, :], acc.to(O.dtype.element_ty),
                 mask=offs_m[:, None] < q_len)

    dtype = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32}[args.dtype]
    torch.manual_seed(args.seed)
    B, H, D, C, L = args.batch, args.heads, args.head_dim, args.ctx_len, args.query_len
    dev = "cuda"
    q = torch.randn(B, H, L, D, device=dev, dtype=dtype)
    kn, vn = torch.randn_like(q), torch.randn_like(q)
    kc = torch.randn(B, H, C, D, device=dev, dtype=dtype)
    vc = torch.randn_like(kc)
    o = torch.empty_like(q)
    scale = D ** -0.5
    grid = (triton.cdiv(L, args.block_m), B * H)

    def launch():
        return prefix_prefill_fwd[grid](q, kc, vc, kn, vn, o, scale, C, L, H,
                                        q.stride(0), q.stride(1), kc.stride(0), kc.stride(1),
                                        HEAD_DIM=D, BLOCK_M=args.block_m, BLOCK_N=args.block_n,
                                        num_warps=args.num_warps, num_stages=args.num_stages)

    try:
        compiled = launch()
        torch.cuda.synchronize()
    except Exception as e:  # Triton's OutOfResources (shared memory / registers) and friends
        name = type(e).__name__
        cls = "out_of_memory" if "OutOfResources" in name or "out of resource" in str(e) else "exit"
        emit(type="error", **{"class": cls}, detail=f"{name}: {str(e)[:300]}")
        return 1

    # Correctness against a float32 reference.
    k_all = torch.cat([kc, kn], dim=2).float()
    v_all = torch.cat([vc, vn], dim=2).float()
    s = torch.matmul(q.float(), k_all.transpose(-1, -2)) * scale
    causal = torch.ones(L, L, device=dev, dtype=torch.bool).tril()
    mask = torch.cat([torch.ones(L, C, device=dev, dtype=torch.bool), causal], dim=1)
    s = s.masked_fill(~mask, float("-inf"))
    ref = torch.matmul(torch.softmax(s, dim=-1), v_all)
    err = ((o.float() - ref).abs().max() / ref.abs().max()).item()
    tol = 2e-2 if dtype != torch.float32 else 1e-4
    emit(type="check", passed=bool(err <= tol), max_rel_error=err, tolerance=tol,
         detail="vs float32 torch softmax(QK^T)V with prefix + causal mask")

    # Timing: CUDA events around single launches, L2 flushed before each (256 MB write).
    flush = torch.empty(256 * 1024 * 1024 // 4, dtype=torch.int32, device=dev)
    for _ in range(args.warmup):
        launch()
    torch.cuda.synchronize()
    for _ in range(args.reps):
        flush.zero_()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        launch()
        end.record()
        torch.cuda.synchronize()
        emit(type="sample", metric="time_ms", value=start.elapsed_time(end))

    # Fingerprint: what was compiled, never the requested parameters.
    fp = None
    h = getattr(compiled, "hash", None)
    if isinstance(h, str) and h:
        fp = h
    else:
        asm = getattr(compiled, "asm", None)
        if isinstance(asm, dict) and asm:
            digest = hashlib.sha256()
            for key in sorted(asm):
                val = asm[key]
                digest.update(val if isinstance(val, bytes) else str(val).encode())
            fp = digest.hexdigest()[:16]
    if fp:
        emit(type="fingerprint", value=str(fp)[:32])
    else:
        emit(type="info", key="fingerprint", value="unavailable in this Triton version")
    emit(type="info", key="triton", value=triton.__version__)
    emit(type="info", key="torch", value=torch.__version__)
    emit(type="info", key="device", value=torch.cuda.get_device_name())
    emit(type="info", key="ran",
         value=f"prefix_prefill_fwd;BLOCK_M={args.block_m};BLOCK_N={args.block_n};"
               f"num_warps={args.num_warps};num_stages={args.num_stages};B={B};H={H};D={D};"
               f"ctx={C};q={L};{args.dtype}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
