#!/usr/bin/env python3
"""The long-running binaries allocate with jemalloc when the build found it (CMakeLists.txt,
FLEETSWEEP_JEMALLOC; docs/performance.md "The allocator"): each of fleetsweep,
fleetsweep-coordinator and fleetsweep-worker, run with MALLOC_CONF=stats_print:true, must print
jemalloc's statistics at exit, which only jemalloc as the process's malloc does (a library that
is linked but not used for malloc prints nothing). A binary that is not one of them (the tiny
bench) must not: the check can fail.

  allocator_test.py BIN_DIR ON|OFF     # OFF (jemalloc not found at configure time): skipped, 77
"""
import os
import subprocess
import sys

MARK = "jemalloc statistics"


def prints_jemalloc_stats(path):
    env = dict(os.environ, MALLOC_CONF="stats_print:true")
    p = subprocess.run([path, "--help"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, timeout=30)
    return MARK in p.stderr


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: allocator_test.py BIN_DIR ON|OFF")
    bin_dir, found = sys.argv[1], sys.argv[2]
    if found != "ON":
        print("SKIP: the build did not find jemalloc (install libjemalloc-dev)")
        return 77
    failures = []
    for name in ("fleetsweep", "fleetsweep-coordinator", "fleetsweep-worker"):
        if not prints_jemalloc_stats(os.path.join(bin_dir, name)):
            failures.append("%s does not allocate with jemalloc" % name)
    if prints_jemalloc_stats(os.path.join(bin_dir, "fleetsweep-tiny-bench")):
        failures.append("fleetsweep-tiny-bench allocates with jemalloc: the check cannot tell")
    for f in failures:
        print("FAIL:", f)
    if failures:
        return 1
    print("ok: fleetsweep, fleetsweep-coordinator and fleetsweep-worker allocate with jemalloc")
    return 0


if __name__ == "__main__":
    sys.exit(main())
