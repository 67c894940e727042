"""Executions: Runner (the prepared tile sets of one shape, kept between executions like a warm
session; every execution is a line of runs.jsonl), successive halving over executions and the
round-robin grid it is compared with."""
import json
import time

import tune_report as tr

from .common import Collect, check_ok, cid


class Runner:
    """Prepared tile sets of one shape (kept between executions, like a warm session)."""

    def __init__(self, bench, ctx, out_file):
        self.bench, self.ctx, self.out_file = bench, ctx, out_file
        self.prepared, self.failed = {}, {}
        self.executions = 0

    def execute(self, part, key, params, extra=None):
        """One execution; returns the Collect, or None when the tile set failed (kept failed)."""
        if key in self.failed:
            return None
        record = {"part": part, "key": key, "params": {k: params[k] for k in params}}
        record.update(extra or {})
        t = time.time()
        try:
            if key not in self.prepared:
                self.prepared[key] = self.bench.prepare(self.ctx, self.bench_params(params))
            col = Collect()
            self.bench.run(self.ctx, self.prepared[key], self.bench_params(params), col)
            self.executions += 1
        except Exception as exc:  # noqa: BLE001 - recorded, never retried
            cls = getattr(exc, "cls", type(exc).__name__)
            self.failed[key] = (cls, str(getattr(exc, "detail", "") or exc)[:300])
            record.update(status="failed", failure=self.failed[key])
            self.out_file.write(json.dumps(record) + "\n")
            return None
        record.update(status="ok", samples=col.samples, fingerprint=col.fp,
                      check=col.check_result, info=col.info_map,
                      wall_s=time.time() - t)
        self.out_file.write(json.dumps(record) + "\n")
        return col

    @staticmethod
    def bench_params(params):
        import fleetsweep_bench as fsb
        return fsb.Params({k: str(v).lower() if isinstance(v, bool) else str(v) for k, v in params.items()})

    def drop(self):
        self.prepared.clear()


def halving(runner, part, m, configs, base, eta, finalists, final_execs, first_reps):
    """Successive halving over executions: every tile set one execution, keep the best 1/eta by
    the median of all its samples, repeat until `finalists` remain, then top the finalists up to
    `final_execs` executions. Round 1 takes `first_reps` samples per execution. Returns (winner id, {id: [executions]}, executions, wall s)."""
    t, start_execs = time.time(), runner.executions
    samples = {}
    alive = [cid(c) for c in configs]
    by_id = {cid(c): c for c in configs}
    rnd = 0
    while True:
        rnd += 1
        for i in alive:
            reps = base["reps"] if rnd > 1 else first_reps
            col = runner.execute(part, i, dict(base, M=m, reps=reps, **by_id[i]), {"M": m, "round": rnd})
            if col is not None and check_ok(col):
                samples.setdefault(i, []).append(col.samples)
        alive = [i for i in alive if i in samples]
        scores = {i: tr.median([x for e in samples[i] for x in e]) for i in alive}
        if len(alive) <= finalists:
            break
        alive = tr.halving_keep(scores, eta, finalists)
    for i in alive:
        while len(samples[i]) < final_execs:
            col = runner.execute(part, i, dict(base, M=m, **by_id[i]), {"M": m, "round": "final"})
            if col is None:
                break
            samples[i].append(col.samples)
    scores = {i: tr.median([x for e in samples[i] for x in e]) for i in alive if i in samples}
    winner = min(scores, key=lambda i: scores[i]) if scores else None
    return winner, samples, runner.executions - start_execs, time.time() - t


def grid(runner, part, m, configs, base, execs):
    t, start_execs = time.time(), runner.executions
    samples = {}
    for rep in range(execs):
        for c in configs:  # round-robin: drift hits every tile set alike
            col = runner.execute(part, cid(c), dict(base, M=m, **c), {"M": m, "round": rep + 1})
            if col is not None and check_ok(col):
                samples.setdefault(cid(c), []).append(col.samples)
    return samples, runner.executions - start_execs, time.time() - t
