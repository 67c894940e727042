"""Flash attention: every candidate config per shape, the best set exported as a triton.Config
list (also under 48 and 32 KiB of shared memory), and that list autotuned against the best single
config of each shape."""
import os

import fa_algo
import tune_report as tr

from .common import check_ok, log
from .compile import compile_pool
from .execution import Runner


def flash_attention(fa_bench, runs, args):
    import torch
    import triton
    shapes = fa_algo.SHAPES[:args.fa_shapes]
    cands = fa_algo.candidates()
    items = [(c, s[3], s[4]) for c in cands for s in {(x[3], x[4]): x for x in shapes}.values()]
    out = {"compile_s": compile_pool("fa", items, None, args.jobs), "shapes": {}}
    ctx = fa_bench.setup({})
    results = {}
    for shape in shapes:
        name = fa_algo.shape_name(shape)
        b, h, s, d, causal = shape
        rows = []
        runner = Runner(fa_bench, ctx, runs)
        for c in cands:
            params = dict(c, B=b, H=h, S=s, D=d, causal=causal, reps=20, warmup=3)
            col = runner.execute("fa", name + ":" + str(fa_algo.config_key(c)), params, {"shape": name})
            ok = col is not None and check_ok(col)
            smem = getattr(runner.prepared.get(name + ":" + str(fa_algo.config_key(c))), "smem_bytes", None)
            rows.append((c, tr.median(col.samples) if ok else None, smem,
                         runner.failed.get(name + ":" + str(fa_algo.config_key(c)))))
            runner.drop()
        results[name] = [(r[0], r[1]) for r in rows]
        out["shapes"][name] = {"rows": [{"config": r[0], "median": r[1], "smem": r[2], "failed": r[3]} for r in rows]}
        log("fa %s: %d configs, best %s" % (name, len(rows), min((r for r in rows if r[1]), key=lambda r: r[1])[:2]))
    chosen = fa_algo.best_set(results)
    text = fa_algo.export_config_list(chosen)
    open(os.path.join(args.out, "flash_attn_configs.py"), "w").write(text)
    out["export"] = text
    # The pasted list, autotuned, against the best single config of each shape (same timer); the
    # same for the lists chosen among configs that fit 48 and 32 KiB of shared memory.
    for name, t in time_autotuned(fa_bench, ctx, shapes, chosen, results).items():
        out["shapes"][name].update(t)
    out["limited"] = {}
    smem = {name: {fa_algo.config_key(r["config"]): r["smem"] for r in out["shapes"][name]["rows"]}
            for name in results}
    for limit in (48 * 1024, 32 * 1024):
        fit = {name: [(c, m) for c, m in rows
                      if (b := smem[name].get(fa_algo.config_key(c))) is not None and b <= limit]
               for name, rows in results.items()}
        chosen_l = fa_algo.best_set(fit)
        if not chosen_l:
            continue
        text = fa_algo.export_config_list(chosen_l, name="configs_smem%dk" % (limit // 1024))
        open(os.path.join(args.out, "flash_attn_configs_smem%dk.py" % (limit // 1024)), "w").write(text)
        out["limited"][str(limit)] = {"export": text,
                                      "shapes": time_autotuned(fa_bench, ctx, shapes, chosen_l, fit)}
    return out


def time_autotuned(fa_bench, ctx, shapes, chosen, results):
    """Per shape: the chosen list as a @triton.autotune set against the best single config of
    `results` (same timer, 30 samples of 10 launches). Returns {shape name: figures}."""
    import torch
    import triton
    configs = [triton.Config({"BLOCK_M": c["BLOCK_M"], "BLOCK_N": c["BLOCK_N"]}, num_warps=c["num_warps"],
                             num_stages=c["num_stages"]) for c, _ in chosen]
    tuned = fa_bench.make_autotuned(configs)
    single = fa_bench.make_kernel()
    figures = {}
    for shape in shapes:
        name = fa_algo.shape_name(shape)
        rows = [r for r in results.get(name, []) if r[1] is not None]
        if not rows:
            continue
        inp = fa_bench.inputs(ctx, shape)
        best_c = min(rows, key=lambda r: r[1])[0]
        fa_bench.launch(ctx, tuned, inp, shape)  # autotunes on first call
        torch.cuda.synchronize()
        t_auto = tr.median(fa_bench.time_launches(ctx, lambda: fa_bench.launch(ctx, tuned, inp, shape), 30, 3, 10))
        t_best = tr.median(fa_bench.time_launches(ctx, lambda: fa_bench.launch(ctx, single, inp, shape, best_c), 30, 3, 10))
        picked = getattr(tuned, "best_config", None)
        figures[name] = dict(autotuned_ms=t_auto, best_single_ms=t_best, best_single=best_c,
                             autotune_picked=str(picked), list_size=len(configs))
        log("fa %s (%d configs): autotuned %.4f ms vs best single %.4f ms (ratio %.3f), picked %s"
            % (name, len(configs), t_auto, t_best, t_auto / t_best, picked))
    return figures
