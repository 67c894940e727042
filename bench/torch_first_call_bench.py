#!/usr/bin/env python3
"""The cost of a GEMM shape's first call in a process (docs/gpu-results.md, "Where a
configuration's first execution goes"): bare bf16 torch.bmm calls of the fused-MoE composition's
kind, (nb, BLOCK_SIZE_M, K) x (K, 2N) with the weight broadcast over nb, each shape new to the
process, timed three times (synchronized wall ms). No fleetsweep code involved. GPU node only.

  python3 bench/torch_first_call_bench.py [default] [cublas] [cublaslt]   # BLAS backends, in order
  CUDA_MODULE_LOADING=EAGER python3 bench/torch_first_call_bench.py default

Prints one line per shape: first, second and third call. Not a test.
"""
import sys
import time

import torch

K, N2 = 4096, 28672  # Mixtral-8x7B: K, 2 x N of the first GEMM


def timed(fn):
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - t0) * 1e3


def main():
    if not torch.cuda.is_available():
        sys.exit("torch_first_call_bench: needs a CUDA device")
    backends = sys.argv[1:] or ["default"]
    for b in backends:
        if b not in ("default", "cublas", "cublaslt"):
            sys.exit("torch_first_call_bench: unknown backend %r (default, cublas, cublaslt)" % b)
    torch.manual_seed(0)
    w = torch.randn(K, N2, device="cuda", dtype=torch.bfloat16)
    for b in backends:
        if b != "default":
            torch.backends.cuda.preferred_blas_library(b)
        print("backend", torch.backends.cuda.preferred_blas_library())
        for bm in (16, 32, 64, 128):
            for nb in (16 + bm % 7, 17 + bm % 5):  # block counts not seen before in the process
                a = torch.randn(nb, bm, K, device="cuda", dtype=torch.bfloat16)
                out = torch.empty(nb, bm, N2, device="cuda", dtype=torch.bfloat16)
                f = lambda: torch.bmm(a, w.unsqueeze(0).expand(nb, K, N2), out=out)  # noqa: E731
                print("  BLOCK_SIZE_M=%d nb=%d first %.2f ms, second %.2f, third %.2f"
                      % (bm, nb, timed(f), timed(f), timed(f)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
