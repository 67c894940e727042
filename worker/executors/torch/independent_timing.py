#!/usr/bin/env python3
"""Independent timing of one fleetsweep-torch-bench configuration.

Re-implements the fused-MoE path of worker/executors/torch/moe.cc (softmax + top-k routing,
moe_align_block_size, per-expert bmm over BLOCK_SIZE_M blocks, SiLU-and-mul, second bmm, weighted
index_add) with the same torch operators in Python, checks it against a dense reference, and
times it with triton.testing.do_bench (device events, L2 flushed before every repetition). The
median is meant to be compared with the median of the bench's own samples for the same
configuration: two different timing methods on the same operators should agree within a few
percent (the bench rotates inputs larger than L2 instead of flushing it).

Prints one JSON object. Usage: independent_timing.py [--M 1024 --K 4096 --N 14336 --E 8
--topk 2 --block-m 64 --dtype bfloat16]
"""
import argparse
import json
import math
import sys

import torch


def moe_align_block_size(topk_ids, num_experts, block_m):
    flat = topk_ids.reshape(-1).to(torch.int64)
    numel = flat.numel()
    counts = torch.bincount(flat, minlength=num_experts)
    blocks = torch.div(counts + (block_m - 1), block_m, rounding_mode="floor")
    padded = blocks * block_m
    pad_start = torch.cumsum(padded, 0) - padded
    raw_start = torch.cumsum(counts, 0) - counts
    order = torch.sort(flat, stable=True).indices
    sorted_expert = flat.index_select(0, order)
    rank = torch.arange(numel, device=flat.device) - raw_start.index_select(0, sorted_expert)
    dest = pad_start.index_select(0, sorted_expert) + rank
    blocks_host = blocks.cpu().tolist()
    total = sum(blocks_host) * block_m
    sorted_ids = torch.full((total,), numel, dtype=torch.int64, device=flat.device)
    sorted_ids.index_copy_(0, dest, order)
    return sorted_ids, blocks_host


def fused_moe(x, logits, w1, w2, topk, block_m):
    M, K = x.shape
    E, two_n, _ = w1.shape
    N = two_n // 2
    probs = torch.softmax(logits, -1)
    topk_w, topk_ids = torch.topk(probs, topk, -1)
    topk_w = topk_w / topk_w.sum(-1, keepdim=True)
    sorted_ids, blocks = moe_align_block_size(topk_ids, E, block_m)
    num_blocks = sum(blocks)
    x_pad = torch.cat([x, torch.zeros(1, K, dtype=x.dtype, device=x.device)], 0)
    w_pad = torch.cat([topk_w.reshape(-1), torch.zeros(1, dtype=topk_w.dtype, device=x.device)], 0)
    tok = torch.div(sorted_ids, topk, rounding_mode="floor")
    a_all = x_pad.index_select(0, tok).view(num_blocks, block_m, K)
    y = torch.empty(num_blocks, block_m, K, dtype=x.dtype, device=x.device)
    blk = 0
    for e in range(E):
        nb = blocks[e]
        if nb == 0:
            continue
        a = a_all.narrow(0, blk, nb)
        h = torch.bmm(a, w1[e].t().unsqueeze(0).expand(nb, K, two_n))
        act = torch.nn.functional.silu(h[..., :N]) * h[..., N:]
        torch.bmm(act, w2[e].t().unsqueeze(0).expand(nb, N, K), out=y.narrow(0, blk, nb))
        blk += nb
    w_sorted = w_pad.index_select(0, sorted_ids).to(x.dtype)
    weighted = y.view(-1, K) * w_sorted.unsqueeze(1)
    out = torch.zeros(M + 1, K, dtype=x.dtype, device=x.device)
    out.index_add_(0, tok, weighted)
    return out[:M]


def reference(x, logits, w1, w2, topk):
    r = torch.float32
    M, K = x.shape
    E, two_n, _ = w1.shape
    N = two_n // 2
    probs = torch.softmax(logits.to(r), -1)
    tw, ids = torch.topk(probs, topk, -1)
    tw = tw / tw.sum(-1, keepdim=True)
    out = torch.zeros(M, K, dtype=r, device=x.device)
    for e in range(E):
        weight = (tw * (ids == e).to(r)).sum(-1)
        rows = torch.nonzero(weight > 0).reshape(-1)
        if rows.numel() == 0:
            continue
        h = x.index_select(0, rows).to(r) @ w1[e].to(r).t()
        act = torch.nn.functional.silu(h[:, :N]) * h[:, N:]
        out.index_add_(0, rows, (act @ w2[e].to(r).t()) * weight[rows].unsqueeze(1))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--M", type=int, default=1024)
    ap.add_argument("--K", type=int, default=4096)
    ap.add_argument("--N", type=int, default=14336)
    ap.add_argument("--E", type=int, default=8)
    ap.add_argument("--topk", type=int, default=2)
    ap.add_argument("--block-m", type=int, default=64)
    ap.add_argument("--dtype", default="bfloat16", choices=["float32", "float16", "bfloat16"])
    args = ap.parse_args()
    if not torch.cuda.is_available():
        print(json.dumps({"error": "no cuda device"}))
        return 1
    import triton.testing  # noqa: E402 (only needed on the GPU machine)

    dt = getattr(torch, args.dtype)
    dev = "cuda"
    torch.manual_seed(1)
    x = torch.randn(args.M, args.K, device=dev).to(dt)
    logits = torch.randn(args.M, args.E, device=dev)
    w1 = (torch.randn(args.E, 2 * args.N, args.K, device=dev) / math.sqrt(args.K)).to(dt)
    w2 = (torch.randn(args.E, args.K, args.N, device=dev) / math.sqrt(args.N)).to(dt)
    got = fused_moe(x, logits, w1, w2, args.topk, args.block_m)
    want = reference(x, logits, w1, w2, args.topk)
    rel = ((got.float() - want).abs().max() / want.abs().max()).item()
    q = triton.testing.do_bench(
        lambda: fused_moe(x, logits, w1, w2, args.topk, args.block_m),
        warmup=50, rep=500, quantiles=[0.5, 0.2, 0.8])
    print(json.dumps({
        "method": "triton.testing.do_bench (cuda events, L2 flushed per rep)",
        "config": vars(args),
        "torch_version": torch.__version__,
        "triton_version": getattr(__import__("triton"), "__version__", "?"),
        "max_rel_error": rel,
        "check_passed": rel <= 2e-2,
        "median_ms": q[0], "p20_ms": q[1], "p80_ms": q[2],
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
