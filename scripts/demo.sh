#!/usr/bin/env bash
# The main job on a fresh machine: install, build, and run a real sweep on this machine (the CPU
# demo: a blocked matrix multiply whose block sizes and loop order really change the code that
# runs) with 2 local workers. Results land in out/cpu-demo/ (results.json, results.csv,
# summary.txt). Running it again resumes: finished work is not run again.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
build/bin/fleetsweep run examples/cpu-demo.yaml --workers 2 --out "${OUT_DIR:-out/cpu-demo}"
