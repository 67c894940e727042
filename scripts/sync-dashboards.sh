#!/usr/bin/env bash
# Copies the files the Helm chart ships but does not own into the chart, since Helm reads only
# files inside the chart:
#   dashboards/*.json        -> helm/fleetsweep/dashboards/   (the Grafana dashboards ConfigMap)
#   worker/platforms/*.yaml  -> helm/fleetsweep/platforms/    (worker.platformSurface.file)
# Stale copies (no longer at the top level) are removed.
#
# Usage: scripts/sync-dashboards.sh [--check] [--chart DIR]
#   --check      change nothing; exit 1 (listing the differences) when the chart's copies are
#                not identical to the top-level files. The chart test runs this.
#   --chart DIR  sync into DIR instead of helm/fleetsweep (the chart test syncs a copy).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CHART="$ROOT/helm/fleetsweep"
CHECK=0
while [ $# -gt 0 ]; do
  case "$1" in
    --check) CHECK=1 ;;
    --chart) CHART="$2"; shift ;;
    *) echo "usage: $0 [--check] [--chart DIR]" >&2; exit 2 ;;
  esac
  shift
done

status=0
# sync SRC_DIR PATTERN DEST_DIR
sync() {
  local src="$1" pattern="$2" dest="$3" f name
  mkdir -p "$dest"
  shopt -s nullglob
  for f in "$src"/$pattern; do
    name="$(basename "$f")"
    if ! cmp -s "$f" "$dest/$name"; then
      if [ "$CHECK" = 1 ]; then
        echo "out of date: ${dest#"$ROOT"/}/$name (from ${f#"$ROOT"/})"; status=1
      else
        cp "$f" "$dest/$name"; echo "copied ${f#"$ROOT"/} -> ${dest#"$ROOT"/}/"
      fi
    fi
  done
  for f in "$dest"/$pattern; do
    name="$(basename "$f")"
    if [ ! -e "$src/$name" ]; then
      if [ "$CHECK" = 1 ]; then
        echo "stale: ${f#"$ROOT"/} (no ${src#"$ROOT"/}/$name)"; status=1
      else
        rm -f "$f"; echo "removed stale ${f#"$ROOT"/}"
      fi
    fi
  done
  shopt -u nullglob
}

sync "$ROOT/dashboards" "*.json" "$CHART/dashboards"
sync "$ROOT/worker/platforms" "*.yaml" "$CHART/platforms"
if [ "$CHECK" = 1 ] && [ "$status" -ne 0 ]; then
  echo "run scripts/sync-dashboards.sh to update the chart's copies" >&2
fi
exit "$status"
