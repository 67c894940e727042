"""The pieces of scripts/triton_tune.py (the Triton tuning jobs of issue 18 on one GPU).

  common.py     the run's clock and log, Collect (a run()'s reports), tile set ids
  compile.py    the compile pool (tile sets compiled into TRITON_CACHE_DIR by spawned processes)
  execution.py  Runner (prepared tile sets of one shape), successive halving, the grid
  parts.py      the roofline floors, the device's shared memory, the cuda / bi-v100 surfaces
  flash.py      flash-attention configs per shape and the exported autotune lists
  output.py     results.json and the vLLM MoE config files

Importing the package puts worker/benches/triton and worker/benches/python on sys.path (the
harnesses and their CPU helpers: fa_algo, moe_algo, tune_report). torch and triton are imported
only inside the functions that use the GPU, so the package imports on a CPU-only machine.
"""
import os
import sys

SRC = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BENCH_DIR = os.path.join(SRC, "worker", "benches", "triton")
for _p in (os.path.join(SRC, "worker", "benches", "python"), BENCH_DIR):
    if _p not in sys.path:
        sys.path.insert(0, _p)
