#!/usr/bin/env python3
"""The per-M table of docs/gpu-results.md from `fleetsweep run` outputs of the Triton fused-MoE
sweeps (scripts/gpu-tune.sh with FLEETSWEEP=1; untar its fs-runs.tgz first).

  RUNS='dir1' python3 scripts/triton_fs_table.py     # RUNS: a glob of dirs holding fs/triton-moe-m*

Per M: configurations / executions, the sweep's wall time (span of the worker log), the best
median with its CI, the verdict, the rank-1 tile set, the floor (read from the direct-driver table
in docs/gpu-results.md, or with FLOORS=results.json of scripts/triton_tune.py from the same
device call: its measured copy GB/s and matmul TFLOP/s, moe_algo.roofline_ms with all 8 experts
touched, for M >= 64) and the ratio. Standard library only.
"""
import datetime
import glob
import json
import os
import re
import sys
floors = {}
DOC = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'docs', 'gpu-results.md')
for line in open(DOC):
    m = re.match(r'\| (\d+) \| [0-9/]+ \| [0-9.]+ \| \[[^]]*\] \| ([0-9.]+) \|', line)
    if m: floors[int(m.group(1))] = float(m.group(2))
if os.environ.get('FLOORS'):
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'worker', 'benches', 'triton'))
    import moe_algo
    try:
        measured = json.load(open(os.environ['FLOORS']))['floors']
        tflops, gbps = measured['matmul_TFLOPs'], measured['copy_GBps']
    except (OSError, ValueError, KeyError, TypeError) as exc:
        sys.exit("FLOORS=%s: not a scripts/triton_tune.py results.json with floors (%s: %s)"
                 % (os.environ['FLOORS'], type(exc).__name__, exc))
    for M in moe_algo.TUNED_BATCH_SIZES:
        if M >= 64:  # top-2 random routing of >= 128 slots touches all 8 experts
            floors[M] = moe_algo.roofline_ms(M, 14336, 4096, 2, 8, tflops, gbps)
rows = []
dirs = glob.glob(os.environ.get('RUNS', 'c*') + '/fs/triton-moe-m*')
if not dirs:
    sys.exit("no fs/triton-moe-m* run directories under RUNS=%r (untar fs-runs.tgz first)"
             % os.environ.get('RUNS', 'c*'))
for d in dirs:
    M = int(d.rsplit('m', 1)[1])
    r = json.load(open(d + '/results.json'))
    s = r['summary']
    ts = []
    logs = glob.glob(d + '/logs/*.log')
    if not logs:
        sys.exit("%s: no worker log under logs/ (needed for the wall time)" % d)
    for line in open(logs[0]):
        t = re.match(r'\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+)\]', line)
        if t: ts.append(datetime.datetime.strptime(t.group(1), '%Y-%m-%d %H:%M:%S.%f'))
    wall = (ts[-1] - ts[0]).total_seconds()
    cfgs = sorted([c for c in r['configurations'] if c.get('rank')], key=lambda c: c['rank'])
    best = cfgs[0]
    if r.get('winner'):
        verdict = 'winner'
    else:
        verdict = 'tied: %d' % len(r.get('tied') or [])
    p = best['params']
    tile = '/'.join(p[k] for k in ['BLOCK_SIZE_M','BLOCK_SIZE_N','BLOCK_SIZE_K','GROUP_SIZE_M','num_warps','num_stages'])
    fl = floors.get(M)
    rows.append((M, '%d / %d' % (s['configurations'], s['attempts']), wall, '%.4f [%.4f, %.4f]' % (best['median'], best['ci_low'], best['ci_high']), verdict, tile, fl, best['median'] / fl if fl else None, len(r.get('warnings') or [])))
rows.sort()
print('| M | configurations / executions | wall s | best median ms [95% CI] | verdict | rank-1 tile set BM/BN/BK/GROUP/warps/stages | floor ms | ratio |')
print('|---:|---|---:|---|---|---|---:|---:|')
tot = 0
for M, ce, wall, med, v, tile, fl, ratio, nw in rows:
    tot += wall
    print('| %d | %s | %.0f | %s | %s | %s | %s | %s |%s' % (
        M, ce, wall, med, v, tile, '%.4f' % fl if fl else '-', '%.2f' % ratio if ratio else '-',
        ' (drift warning)' if nw else ''))
print('total wall', tot)
