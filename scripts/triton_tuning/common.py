"""The run's clock and log, Collect (what a harness's run() reports) and tile set ids."""
import time

import moe_algo

T0 = time.time()


def log(msg):
    print("[%6.1fs] %s" % (time.time() - T0, msg), flush=True)


class Collect:
    """Stands in for fleetsweep_bench.Emitter: keeps what run() reports."""

    def __init__(self):
        self.samples, self.info_map, self.fp, self.check_result, self.err = [], {}, None, None, None

    def sample(self, metric, value=None, values=None):
        self.samples.extend(values if values is not None else [value])

    def fingerprint(self, value):
        self.fp = value

    def check(self, passed, max_rel_error=None, tolerance=None, detail=None):
        self.check_result = (bool(passed), max_rel_error)

    def info(self, key, value):
        self.info_map[key] = value

    def error(self, cls, detail=""):
        self.err = (cls, detail)


cid = moe_algo.tile_set_id


def timed(torch, fn, reps):
    """Median ms of `reps` calls of fn, each between two CUDA events, after 3 untimed calls."""
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(reps):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        e.synchronize()
        ts.append(s.elapsed_time(e))
    ts.sort()
    n = len(ts)
    return ts[n // 2] if n % 2 else (ts[n // 2 - 1] + ts[n // 2]) / 2


def check_ok(col):
    return bool(col.check_result and col.check_result[0])
