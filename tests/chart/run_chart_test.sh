#!/usr/bin/env bash
# Chart test: renders helm/fleetsweep with tests/chart/render (an offline stand-in for
# `helm template`) for the default values and the value files here, validates every object
# against the Kubernetes schemas (kubernetes-models, strict about unknown fields) and the chart's
# own facts (validate.js), and checks that the chart's guards refuse the values in invalid/.
#
# Usage: tests/chart/run_chart_test.sh [BUILD_DIR]   (default: build/chart-test)
# Exit: 0 all passed; 1 something failed; 77 skipped because go or node/npm is missing
# (scripts/setup.sh installs them; ctest reports 77 as skipped).
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
BUILD="${1:-$ROOT/build/chart-test}"
CHART="$ROOT/helm/fleetsweep"
GOPATH_DEBIAN=/usr/share/gocode

skip() { echo "chart test SKIPPED: $*"; exit 77; }
command -v go >/dev/null || skip "no 'go' (apt-get install golang-go golang-github-masterminds-sprig-dev golang-gopkg-yaml.v3-dev)"
[ -d "$GOPATH_DEBIAN/src/github.com/Masterminds/sprig" ] && [ -d "$GOPATH_DEBIAN/src/gopkg.in/yaml.v3" ] ||
  skip "Go packages missing (apt-get install golang-github-masterminds-sprig-dev golang-gopkg-yaml.v3-dev)"
command -v node >/dev/null && command -v npm >/dev/null || skip "no 'node'/'npm' (install nodejs and npm)"

passed=0
failed=0
pass() { echo "PASS $*"; passed=$((passed + 1)); }
fail() { echo "FAIL $*"; failed=$((failed + 1)); }
finish() {
  echo "chart test: $passed passed, $failed failed"
  [ "$failed" -eq 0 ]
  exit $?
}
mkdir -p "$BUILD" && BUILD="$(cd "$BUILD" && pwd)"

# 1. The renderer: Debian's Go packages in GOPATH mode, no module download (works offline).
RENDER="$BUILD/render"
if ! (cd "$HERE" && GO111MODULE=off GOPATH="$GOPATH_DEBIAN" GOFLAGS= GOCACHE="$BUILD/gocache" \
    go build -o "$RENDER" ./render) >"$BUILD/go-build.log" 2>&1; then
  cat "$BUILD/go-build.log"
  fail "go build tests/chart/render"
  finish
fi
pass "go build tests/chart/render"

# 2. The validator's npm packages, pinned by package-lock.json; reinstalled only when it changes.
STAMP="$HERE/node_modules/.fleetsweep-lock.sha256"
LOCKSUM="$(sha256sum "$HERE/package-lock.json" | cut -d' ' -f1)"
if [ "$(cat "$STAMP" 2>/dev/null)" != "$LOCKSUM" ]; then
  if (cd "$HERE" && npm ci --no-audit --no-fund --prefer-offline --loglevel=error) >"$BUILD/npm.log" 2>&1; then
    echo "$LOCKSUM" >"$STAMP"
  else
    cat "$BUILD/npm.log"
    fail "npm ci in tests/chart (needs the npm registry once)"
    finish
  fi
fi
pass "npm packages (kubernetes-models) installed"

# 3. The chart ships up-to-date copies of the top-level dashboards and platform surfaces.
if "$ROOT/scripts/sync-dashboards.sh" --check; then
  pass "chart copies of dashboards/ and worker/platforms/ are current"
else
  fail "chart copies are stale: run scripts/sync-dashboards.sh"
fi

# 4. A chart copy with fixtures, so the dashboards ConfigMap and platform files are exercised
#    whatever the top-level folders hold.
COPY="$BUILD/chart-copy/fleetsweep"
rm -rf "$BUILD/chart-copy" && mkdir -p "$BUILD/chart-copy" && cp -r "$CHART" "$COPY"
cp "$HERE/fixtures/fixture-dashboard.json" "$COPY/dashboards/"
cp "$HERE/fixtures/chart-test-platform.yaml" "$COPY/platforms/"
count_json() { find "$1/dashboards" -maxdepth 1 -name '*.json' | wc -l; }

# 5. Render the value sets. Each case: NAME CHART_DIR RELEASE NAMESPACE [VALUES_FILE].
cases=()
render_case() {
  local name="$1" chart="$2" release="$3" ns="$4" values="${5:-}" out="$BUILD/out/$1"
  local args=(-chart "$chart" -release "$release" -namespace "$ns" -out "$out")
  [ -n "$values" ] && args+=(-f "$values")
  rm -rf "$out"
  if "$RENDER" "${args[@]}"; then
    pass "render $name"
    cases+=("$name:$out:$release:$ns:$(count_json "$chart")")
  else
    fail "render $name"
  fi
}
render_case default "$CHART" sweep default
render_case external-redis "$CHART" fleetrel sweeps "$HERE/values-external-redis.yaml"
render_case statefulset-insecure "$COPY" fleetrel sweeps "$HERE/values-statefulset-insecure.yaml"

# 6. Schema + chart facts.
if [ "${#cases[@]}" -gt 0 ]; then
  if (cd "$HERE" && node validate.js "${cases[@]}"); then
    pass "validate ${#cases[@]} rendered value sets"
  else
    fail "validate rendered value sets"
  fi
fi

# 7. The chart's guards refuse bad values with their message.
for f in "$HERE"/invalid/*.yaml; do
  want="$(sed -n 's/^# expect-error: //p' "$f" | head -1)"
  if [ -n "$want" ] && "$RENDER" -chart "$CHART" -f "$f" -expect-error "$want" >/dev/null 2>"$BUILD/expect.log"; then
    pass "refuses invalid/$(basename "$f")"
  else
    cat "$BUILD/expect.log"
    fail "refuses invalid/$(basename "$f")"
  fi
done

finish
