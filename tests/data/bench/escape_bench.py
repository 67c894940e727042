#!/usr/bin/python3
"""A benchmark whose grandchild leaves the execution's process group (setsid) and would live on:
`sleep DURATION` (argv[1]; tests pass a unique duration to find it). Prints one sample of
time_ms and exits at once, so the sleep is re-parented."""
import json
import subprocess
import sys

subprocess.Popen(["sleep", sys.argv[1]], start_new_session=True, stdin=subprocess.DEVNULL,
                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(json.dumps({"type": "sample", "metric": "time_ms", "value": 1.0}), flush=True)
