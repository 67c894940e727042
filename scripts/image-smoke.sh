#!/usr/bin/env bash
# Builds both container images from this checkout and runs two real sweeps with them (Redis on
# the host, a coordinator container and a worker container on host networking):
#   1. examples/cpu-demo.yaml: one-shot executions of the matmul benchmark the worker image ships;
#   2. tests/data/image-smoke/sessions.yaml: persistent sessions, 2 slots on one device, of the
#      tests' scripted session benchmark, on a worker image built on a base with Python (as a GPU
#      node's vendor image brings it: WORKER_BASE_IMAGE).
# Not part of CI's default run (it needs a container engine and ~30 minutes on 2 cores);
# docs/deploy.md records its runs.
#
#   bash scripts/image-smoke.sh [OUT_DIR]        (default OUT_DIR: a new folder under /tmp)
#
# What it needs, and what it does when something is missing:
# - the docker CLI and a daemon. With no daemon running, root and Debian's docker.io installed
#   (`apt-get install docker.io`), it starts dockerd itself (vfs storage, no iptables, no bridge:
#   every container here uses the host's network) and stops it at exit.
# - the base images (debian:bookworm, debian:bookworm-slim). When neither a local copy nor a pull
#   works (no registry reachable), it builds a minimal bookworm with debootstrap from Debian's
#   mirror and imports it under both names.
# - redis-server on the host (scripts/setup.sh installs it).
# Images are built by the classic builder (DOCKER_BUILDKIT=0: no BuildKit frontend image to pull),
# so the per-Dockerfile .dockerignore is copied to the context's root. The context is `git ls-files`
# of this checkout (tracked files as they are in the work tree, nothing ignored).
#
# Checks (each failure exits 1 naming it): the builds succeed (their own ldd and --help checks
# run inside); both images run as uid 10001; in each sweep both containers exit 0 with
# --exit-when-finished and results.json is written; then scripts/image_smoke_check.py: sweep 1
# has done configurations and no more ok executions than Redis stored; sweep 2 has all 6
# configurations done, executions at session positions > 1, and the benchmark's own log shows
# every timed section and never two at once.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out=${1:-$(mktemp -d /tmp/fs-image-smoke.XXXXXX)}
mkdir -p "$out"
log() { echo "image-smoke: $*"; }
die() { echo "image-smoke: FAIL: $*" >&2; exit 1; }
cleanup_cmds=()
cleanup() { for c in "${cleanup_cmds[@]}"; do eval "$c" >/dev/null 2>&1 || true; done; }
trap cleanup EXIT

command -v docker >/dev/null || die "no docker CLI (Debian: apt-get install docker.io)"
if ! docker info >/dev/null 2>&1; then
  command -v dockerd >/dev/null || die "no docker daemon reachable and no dockerd to start"
  [ "$(id -u)" -eq 0 ] || die "no docker daemon reachable; starting dockerd needs root"
  log "starting dockerd (log: $out/dockerd.log)"
  dockerd --storage-driver=vfs --iptables=false --bridge=none >"$out/dockerd.log" 2>&1 &
  cleanup_cmds+=("kill $!")
  for _ in $(seq 60); do docker info >/dev/null 2>&1 && break; sleep 0.5; done
  docker info >/dev/null 2>&1 || die "dockerd did not come up (see $out/dockerd.log)"
fi

if ! docker image inspect debian:bookworm >/dev/null 2>&1; then
  if ! docker pull debian:bookworm >/dev/null 2>&1 || ! docker pull debian:bookworm-slim >/dev/null 2>&1; then
    command -v debootstrap >/dev/null || die "no base image, no registry and no debootstrap"
    log "no registry: debootstrap a minimal bookworm as debian:bookworm and debian:bookworm-slim"
    rootfs=$(mktemp -d /tmp/fs-rootfs.XXXXXX)
    cleanup_cmds+=("rm -rf $rootfs")
    debootstrap --variant=minbase bookworm "$rootfs" http://deb.debian.org/debian >"$out/debootstrap.log" 2>&1 ||
      die "debootstrap failed (see $out/debootstrap.log)"
    tar -C "$rootfs" -c . | docker import - debian:bookworm >/dev/null
    docker tag debian:bookworm debian:bookworm-slim
  fi
fi
docker image inspect debian:bookworm-slim >/dev/null 2>&1 || docker tag debian:bookworm debian:bookworm-slim


build() {  # NAME DOCKERFILE [TAG_SUFFIX [docker build args...]]: fleetsweep/NAME:smoke[-SUFFIX]
  local name=$1 file=$2 tag=smoke ctx
  shift 2
  if [ $# -gt 0 ]; then tag=smoke-$1; shift; fi
  ctx=$(mktemp -d /tmp/fs-image-ctx.XXXXXX)
  cleanup_cmds+=("rm -rf $ctx")
  git ls-files -z | xargs -0 cp --parents -t "$ctx"
  cp "$file.dockerignore" "$ctx/.dockerignore"
  log "building fleetsweep/$name:$tag (log: $out/build-$name-$tag.log)"
  local t0=$SECONDS
  DOCKER_BUILDKIT=0 docker build --network host "$@" -f "$file" -t "fleetsweep/$name:$tag" "$ctx" \
    >"$out/build-$name-$tag.log" 2>&1 ||
    die "building fleetsweep/$name:$tag (tail of $out/build-$name-$tag.log:
$(tail -20 "$out/build-$name-$tag.log"))"
  log "built fleetsweep/$name:$tag in $((SECONDS - t0)) s"
}
build coordinator docker/coordinator.Dockerfile
build worker docker/worker.Dockerfile

for img in coordinator worker; do
  uid=$(docker run --rm --entrypoint id "fleetsweep/$img:smoke" -u)
  [ "$uid" = 10001 ] || die "the $img image runs as uid $uid, not 10001"
done

ports=$(python3 -c 'import socket
s=[socket.socket() for _ in range(2)]
[x.bind(("127.0.0.1",0)) for x in s]
print(" ".join(str(x.getsockname()[1]) for x in s))')
read -r redis_port zmq_port <<<"$ports"
mkdir -p "$out/redis"
redis-server --port "$redis_port" --bind 127.0.0.1 --dir "$out/redis" --appendonly yes \
  --daemonize no --save '' >"$out/redis.log" 2>&1 &
cleanup_cmds+=("kill $!")
for _ in $(seq 50); do redis-cli -p "$redis_port" ping >/dev/null 2>&1 && break; sleep 0.1; done

# sweep NAME SPEC_DIR SPEC_FILE WORKER_IMAGE [docker run args of the worker...]: a coordinator
# container and a worker container (2 slots on device 0) to the end; results in $out/NAME/results.
sweep() {
  local name=$1 specdir=$2 spec=$3 image=$4 coord_rc worker_rc t0=$SECONDS
  shift 4
  mkdir -p "$out/$name/results" && chmod 0777 "$out/$name/results"
  log "sweep $name: $spec; coordinator and worker ($image) containers; Redis on port $redis_port"
  docker run -d --name "fs-smoke-$name-coordinator" --network host -v "$specdir:/spec:ro" \
    -v "$out/$name/results:/out" fleetsweep/coordinator:smoke --spec "/spec/$spec" \
    --store "redis://127.0.0.1:$redis_port" --bind "tcp://127.0.0.1:$zmq_port" --out /out \
    --exit-when-finished --insecure >/dev/null
  cleanup_cmds+=("docker rm -f fs-smoke-$name-coordinator")
  docker run -d --name "fs-smoke-$name-worker" --network host "$@" "$image" \
    --coordinator "tcp://127.0.0.1:$zmq_port" --store "redis://127.0.0.1:$redis_port" \
    --slots 2 --devices 0 --node smoke-node --insecure --allow-exec '/opt/fleetsweep/bin/*' \
    --exit-when-finished >/dev/null
  cleanup_cmds+=("docker rm -f fs-smoke-$name-worker")
  coord_rc=$(timeout 600 docker wait "fs-smoke-$name-coordinator") ||
    die "$name: the coordinator did not finish in 600 s"
  worker_rc=$(timeout 60 docker wait "fs-smoke-$name-worker") ||
    die "$name: the worker did not exit within 60 s of the coordinator"
  docker logs "fs-smoke-$name-coordinator" >"$out/$name/coordinator.log" 2>&1
  docker logs "fs-smoke-$name-worker" >"$out/$name/worker.log" 2>&1
  log "$name: wall $((SECONDS - t0)) s; coordinator exit $coord_rc, worker exit $worker_rc"
  [ "$coord_rc" = 0 ] || die "$name: coordinator exit $coord_rc (see $out/$name/coordinator.log)"
  [ "$worker_rc" = 0 ] || die "$name: worker exit $worker_rc (see $out/$name/worker.log)"
  [ -s "$out/$name/results/results.json" ] || die "$name: no results.json in $out/$name/results"
}

# 1. One-shot executions: the CPU demo (the C++ matmul benchmark the worker image ships).
sweep cpu-demo "$root/examples" cpu-demo.yaml fleetsweep/worker:smoke
python3 scripts/image_smoke_check.py cpu-demo "$out/cpu-demo/results/results.json" \
  "$(redis-cli -p "$redis_port" HLEN 'fs:{cpu-demo}:attempts')" || die "cpu-demo: check failed"

# 2. Persistent sessions through the Python protocol, 2 slots on one device: the worker image on
# a base that brings Python (as a GPU node's vendor image does), with the scripted session
# benchmark of the tests (tests/data/bench/fake_session_bench.py) mounted among the image's
# benchmarks. Its own log of timed sections shows whether the device's timing gate held.
log "building a Python base (debian:bookworm + python3) for the worker image"
pybase=$(mktemp -d /tmp/fs-image-pybase.XXXXXX)
cleanup_cmds+=("rm -rf $pybase")
printf '%s\n' 'FROM debian:bookworm' \
  'RUN apt-get update && apt-get install -y --no-install-recommends python3 && rm -rf /var/lib/apt/lists/*' \
  >"$pybase/Dockerfile"
DOCKER_BUILDKIT=0 docker build --network host -t fleetsweep-smoke/python-base "$pybase" \
  >"$out/build-python-base.log" 2>&1 || die "building the Python base (see $out/build-python-base.log)"
build worker docker/worker.Dockerfile py --build-arg WORKER_BASE_IMAGE=fleetsweep-smoke/python-base
mkdir -p "$out/sessions/spec" "$out/sessions/timing" && chmod 0777 "$out/sessions/timing"
cp tests/data/image-smoke/sessions.yaml "$out/sessions/spec/"
sweep sessions "$out/sessions/spec" sessions.yaml fleetsweep/worker:smoke-py \
  -v "$root/tests/data/bench/fake_session_bench.py:/opt/fleetsweep/bin/benches/smoke/fake_session_bench.py:ro" \
  -v "$out/sessions/timing:/timing"
python3 scripts/image_smoke_check.py sessions "$out/sessions/results/results.json" \
  "$out/sessions/timing/timing.log" || die "sessions: check failed"
log "PASS (outputs in $out)"
