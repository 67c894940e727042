#!/usr/bin/env bash
# Checks that every tracked C++ file (*.cc, *.h; generated code excluded) is formatted as the
# repository's .clang-format says. Prints each unformatted file and exits 1; exits 0 when all are
# formatted, 2 when clang-format is missing. Fix with: bash scripts/check-format.sh --fix
# CLANG_FORMAT picks the binary (default: clang-format-14, Debian bookworm's, else clang-format);
# another major version may format differently.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${CLANG_FORMAT:-}" ]; then
  CLANG_FORMAT=clang-format
  if command -v clang-format-14 >/dev/null 2>&1; then CLANG_FORMAT=clang-format-14; fi
fi
if ! command -v "$CLANG_FORMAT" >/dev/null 2>&1; then
  echo "check-format: $CLANG_FORMAT not found (scripts/setup.sh installs clang-format)" >&2
  exit 2
fi
# Generated code (protoc output lives in the build tree; *.pb.* are excluded should any be added).
mapfile -t files < <(git ls-files -- '*.cc' '*.h' ':!:*.pb.cc' ':!:*.pb.h')
if [ "${1:-}" = "--fix" ]; then
  "$CLANG_FORMAT" -i "${files[@]}"
  exit 0
fi
bad=()
for f in "${files[@]}"; do
  if ! "$CLANG_FORMAT" --dry-run --Werror "$f" >/dev/null 2>&1; then bad+=("$f"); fi
done
if [ "${#bad[@]}" -gt 0 ]; then
  echo "check-format: ${#bad[@]} file(s) not formatted ($("$CLANG_FORMAT" --version | head -1)):" >&2
  printf '  %s\n' "${bad[@]}" >&2
  echo "fix with: bash scripts/check-format.sh --fix   (or $CLANG_FORMAT -i FILE)" >&2
  exit 1
fi
echo "check-format: ${#files[@]} files formatted"
