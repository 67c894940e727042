#!/bin/sh
# A fake benchmark for the exec executor tests: `fake_bench.sh MODE [ARGS...]`.
# Each mode exercises one outcome the executor must recognise (see exec_executor_test.cc).
mode="$1"
shift
sample() { echo '{"type":"sample","metric":"time_ms","value":1.5}'; }
case "$mode" in
  ok)
    echo "warming up"
    echo '{"type":"sample","metric":"time_ms","values":[1.25,1.5]}'
    echo '{"type":"fingerprint","value":"abc123"}'
    echo '{"type":"check","passed":true,"max_rel_error":1e-7,"tolerance":0.001}'
    echo '{"type":"info","key":"shell","value":"sh"}'
    ;;
  args)  # args OUTFILE ARG...: one argument per line into OUTFILE
    out="$1"
    shift
    for a in "$@"; do printf '%s\n' "$a"; done > "$out"
    sample
    ;;
  env)  # env OUTFILE: the environment into OUTFILE
    env > "$1"
    sample
    ;;
  cat)  # cat FILE: FILE's contents into ./seen (relative to the workdir), then a sample
    cat "$1" > seen
    sample
    ;;
  grandchild)  # grandchild PIDFILE: a background sleep in the same group, then hang
    sleep 1000 &
    echo $! > "$1"
    sleep 1000
    ;;
  leftover)  # leftover PIDFILE: exit 0 while a background sleep still holds stdout
    sleep 1000 &
    echo $! > "$1"
    sample
    exit 0
    ;;
  hang)
    sleep 1000
    ;;
  segv)
    sample
    kill -SEGV $$
    ;;
  exit3)
    sample
    echo "something went wrong" >&2
    exit 3
    ;;
  notimpl)
    echo "Traceback (most recent call last):" >&2
    echo "  File \"bench.py\", line 3, in <module>" >&2
    echo "NotImplementedError" >&2
    exit 1
    ;;
  protoerr)
    echo '{"type":"error","class":"not_implemented","detail":"paged attention V2"}'
    ;;
  oom)
    echo "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB" >&2
    exit 1
    ;;
  wrong)
    sample
    echo '{"type":"check","passed":false,"max_rel_error":0.5,"tolerance":0.001}'
    ;;
  garbage)
    echo "hello, I am not a benchmark"
    echo '{"type":"sample","metric":"time_ms","value":"fast"}'
    ;;
  flood_line)  # ~200 MB on one line, then a sample
    head -c 200000000 /dev/zero | tr '\0' 'x'
    echo
    sample
    ;;
  flood_lines)  # ~50 MB of short lines on stdout and stderr, then a sample
    yes "line of output" | head -c 50000000
    echo
    yes "line of error" | head -c 20000000 >&2
    sample
    ;;
  marker)  # marker FILE: creates FILE (proves the program ran)
    touch "$1"
    sample
    ;;
  quiet)  # exits 0 having printed nothing
    ;;
  resultfile)  # writes protocol lines to ./result.jsonl, nothing on stdout
    echo '{"type":"sample","metric":"time_ms","value":2.5}' > result.jsonl
    echo '{"type":"fingerprint","value":"fromfile"}' >> result.jsonl
    ;;
  *)
    echo "unknown mode $mode" >&2
    exit 2
    ;;
esac
