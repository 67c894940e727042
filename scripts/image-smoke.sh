#!/usr/bin/env bash
# Builds both container images from this checkout and runs a real sweep with them: Redis on the
# host, the coordinator image and the worker image on host networking, examples/cpu-demo.yaml
# (the matmul benchmark the worker image ships). Not part of CI's default run (it needs a
# container engine and ~20-30 minutes on 2 cores); docs/deploy.md records its runs.
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
# Checks (each failure exits 1 naming it): both builds succeed (their own ldd and --help checks
# run inside); both images run as uid 10001; the coordinator exits 0 with --exit-when-finished
# and writes results.json with at least one done configuration; the worker exits 0;
# the stored attempts in Redis are at least the executions results.json counts.
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

build() {  # NAME DOCKERFILE
  local ctx
  ctx=$(mktemp -d /tmp/fs-image-ctx.XXXXXX)
  cleanup_cmds+=("rm -rf $ctx")
  git ls-files -z | xargs -0 cp --parents -t "$ctx"
  cp "$2.dockerignore" "$ctx/.dockerignore"
  log "building fleetsweep/$1:smoke (log: $out/build-$1.log)"
  local t0=$SECONDS
  DOCKER_BUILDKIT=0 docker build --network host -f "$2" -t "fleetsweep/$1:smoke" "$ctx" \
    >"$out/build-$1.log" 2>&1 || die "building the $1 image (tail of $out/build-$1.log:
$(tail -20 "$out/build-$1.log"))"
  log "built fleetsweep/$1:smoke in $((SECONDS - t0)) s"
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
mkdir -p "$out/redis" "$out/results" && chmod 0777 "$out/results"
redis-server --port "$redis_port" --bind 127.0.0.1 --dir "$out/redis" --appendonly yes \
  --daemonize no --save '' >"$out/redis.log" 2>&1 &
cleanup_cmds+=("kill $!")
for _ in $(seq 50); do redis-cli -p "$redis_port" ping >/dev/null 2>&1 && break; sleep 0.1; done

log "sweep: examples/cpu-demo.yaml, coordinator and worker containers, Redis on port $redis_port"
t0=$SECONDS
docker run -d --name fs-smoke-coordinator --network host \
  -v "$root/examples:/spec:ro" -v "$out/results:/out" fleetsweep/coordinator:smoke \
  --spec /spec/cpu-demo.yaml --store "redis://127.0.0.1:$redis_port" \
  --bind "tcp://127.0.0.1:$zmq_port" --out /out --exit-when-finished --insecure >/dev/null
cleanup_cmds+=("docker rm -f fs-smoke-coordinator")
docker run -d --name fs-smoke-worker --network host fleetsweep/worker:smoke \
  --coordinator "tcp://127.0.0.1:$zmq_port" --store "redis://127.0.0.1:$redis_port" \
  --slots 2 --node smoke-node --insecure --allow-exec '/opt/fleetsweep/bin/*' \
  --exit-when-finished >/dev/null
cleanup_cmds+=("docker rm -f fs-smoke-worker")
coord_rc=$(timeout 600 docker wait fs-smoke-coordinator) || die "the coordinator did not finish in 600 s"
worker_rc=$(timeout 60 docker wait fs-smoke-worker) || die "the worker did not exit within 60 s of the coordinator"
docker logs fs-smoke-coordinator >"$out/coordinator.log" 2>&1
docker logs fs-smoke-worker >"$out/worker.log" 2>&1
log "sweep wall $((SECONDS - t0)) s; coordinator exit $coord_rc, worker exit $worker_rc"
[ "$coord_rc" = 0 ] || die "coordinator exit $coord_rc (see $out/coordinator.log)"
[ "$worker_rc" = 0 ] || die "worker exit $worker_rc (see $out/worker.log)"
[ -s "$out/results/results.json" ] || die "no results.json in $out/results"
stored=$(redis-cli -p "$redis_port" HLEN 'fs:{cpu-demo}:attempts')
python3 - "$out/results/results.json" "$stored" <<'EOF' || die "results.json check failed"
import json, sys
r = json.load(open(sys.argv[1]))
stored = int(sys.argv[2])
done = [c for c in r["configurations"] if c["status"] == "done"]
ok = sum(c.get("ok_attempts", 0) for c in r["configurations"])
winner = (r.get("winner") or {}).get("params") or "none (no defensible winner on this machine)"
print("image-smoke: %d configurations done, %d ok executions, %d attempts stored, rank 1 %s,"
      " winner %s" % (len(done), ok, stored, r["configurations"][0]["params"], winner))
assert done, "no configuration done"
assert stored >= ok, "fewer attempts stored (%d) than counted (%d)" % (stored, ok)
EOF
log "PASS (outputs in $out)"
