# syntax=docker/dockerfile:1
# fleetsweep worker image.
#
# Build from the repository root:
#   docker build -f docker/worker.Dockerfile -t fleetsweep/worker:0.1.0 .
# On Iluvatar BI-V100 nodes, run on the vendor's CoreX image so the benchmarks the worker runs
# (vLLM, ixformer, Triton) find the CoreX runtime:
#   docker build -f docker/worker.Dockerfile \
#       --build-arg WORKER_BASE_IMAGE=<your CoreX image> -t fleetsweep/worker:0.1.0-bi100 .
#
# The runtime stage does not use the base image's package manager (a vendor image may be of any
# distribution): docker/bundle.sh installs the build (binaries, benchmark programs, platform
# surfaces) into /opt/fleetsweep with every shared library the binaries link except glibc's own,
# found through their RUNPATH, plus Debian's static tini as the init (tests/build/bundle_test.py
# runs the same script on every CI run). The base image's glibc must be at least the builder's
# (bookworm: 2.36); for an older base, build with BUILDER_IMAGE of the same distribution release
# (scripts/setup.sh needs apt). Built and run by scripts/image-smoke.sh (not in CI):
# see docs/deploy.md.

ARG BUILDER_IMAGE=debian:bookworm
ARG WORKER_BASE_IMAGE=debian:bookworm-slim

FROM ${BUILDER_IMAGE} AS builder
ENV DEBIAN_FRONTEND=noninteractive
# ON also builds fleetsweep-torch-bench against Debian's libtorch: CPU only, and ~700 MB of
# libraries (Qt, ffmpeg, ...) in the bundle. GPU nodes build it against their own torch instead
# (scripts/gpu-build.sh builds it against pip torch); the Python benchmarks ship either way.
ARG FLEETSWEEP_WITH_TORCH=OFF
COPY scripts/setup.sh /tmp/setup.sh
RUN bash /tmp/setup.sh --build $([ "$FLEETSWEEP_WITH_TORCH" = ON ] && echo --torch) \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN cmake -S . -B /build -G Ninja -DCMAKE_BUILD_TYPE=Release \
        -DFLEETSWEEP_WITH_TORCH=${FLEETSWEEP_WITH_TORCH} -DFLEETSWEEP_BUILD_TESTS=OFF \
    && ninja -C /build \
    && bash docker/bundle.sh /build /out
# The benchmark programs (Python harnesses, the fleetsweep_bench helper) are in
# /out/bin/benches, where specs name them: {FLEETSWEEP_BIN}/benches/...

FROM ${WORKER_BASE_IMAGE} AS runtime
COPY --from=builder /out/ /opt/fleetsweep/
# Fail the build, not the pod, when the base image lacks a library (or its glibc is too old).
RUN for b in /opt/fleetsweep/bin/*; do \
        [ -f "$b" ] || continue; \
        case "$(head -c 4 "$b" | od -An -c | tr -d ' ')" in 177ELF) ;; *) continue ;; esac; \
        if ldd "$b" 2>&1 | grep -Eq 'not found|version .GLIBC'; then ldd "$b"; exit 1; fi; \
        "$b" --help >/dev/null; \
    done && /opt/fleetsweep/sbin/tini --version
ENV PATH=/opt/fleetsweep/bin:${PATH}
# tini as PID 1 (static, from the bundle): it forwards signals to the worker and reaps what
# reaches it. The worker is itself a child subreaper and kills and reaps what escapes an
# execution's process group (worker/executors/descendants.h); tini covers the rest.
# Non-root (uid/gid 10001, as the chart's securityContext). GPU device nodes may need a group:
# add it with the chart's worker.podSecurityContext.supplementalGroups.
RUN (command -v groupadd >/dev/null && groupadd --system --gid 10001 fleetsweep \
        && useradd --system --uid 10001 --gid 10001 --home-dir /tmp --no-create-home fleetsweep) \
    || (echo 'fleetsweep:x:10001:10001::/tmp:/usr/sbin/nologin' >> /etc/passwd \
        && echo 'fleetsweep:x:10001:' >> /etc/group)
USER 10001:10001
WORKDIR /tmp
ENV HOME=/tmp
EXPOSE 9101
ENTRYPOINT ["/opt/fleetsweep/sbin/tini", "--", "/opt/fleetsweep/bin/fleetsweep-worker"]
