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


def check_ok(col):
    return bool(col.check_result and col.check_result[0])
