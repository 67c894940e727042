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
# distribution): the worker's binaries are copied with every shared library they link except
# glibc's own, into /opt/fleetsweep, found through the binaries' RUNPATH. The base image's glibc
# must be at least the builder's (bookworm: 2.36); for an older base, build with BUILDER_IMAGE of
# the same distribution release (scripts/setup.sh needs apt). Not built in this repository's CI
# (no container engine there): see docs/deploy.md.

ARG BUILDER_IMAGE=debian:bookworm
ARG WORKER_BASE_IMAGE=debian:bookworm-slim

FROM ${BUILDER_IMAGE} AS builder
ENV DEBIAN_FRONTEND=noninteractive
COPY scripts/setup.sh /tmp/setup.sh
RUN bash /tmp/setup.sh && apt-get install -y --no-install-recommends patchelf \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
# ON builds the libtorch kernel executor (CPU libtorch from Debian; see the device notes).
ARG FLEETSWEEP_WITH_TORCH=ON
ARG WORKER_TARGETS="fleetsweep-worker fleetsweep"
RUN cmake -S . -B /build -G Ninja -DCMAKE_BUILD_TYPE=Release \
        -DFLEETSWEEP_WITH_TORCH=${FLEETSWEEP_WITH_TORCH} -DFLEETSWEEP_BUILD_TESTS=OFF \
    && ninja -C /build ${WORKER_TARGETS}
# Bundle: binaries in /out/bin, their non-glibc libraries in /out/lib, RUNPATH pointing there.
RUN set -eu; mkdir -p /out/bin /out/lib; \
    for t in ${WORKER_TARGETS}; do install -m 0755 "/build/bin/$t" /out/bin/; done; \
    for b in /out/bin/*; do \
        ldd "$b" | awk '/=> \// {print $3}' | while read -r lib; do \
            case "$(basename "$lib")" in \
                libc.so.*|libm.so.*|libpthread.so.*|libdl.so.*|librt.so.*|libresolv.so.*|ld-linux*) ;; \
                *) cp -nL "$lib" /out/lib/ ;; \
            esac; \
        done; \
        patchelf --set-rpath '$ORIGIN/../lib' "$b"; \
    done; \
    for l in /out/lib/*; do patchelf --set-rpath '$ORIGIN' "$l"; done; \
    cp -r /build/bin/benches /out/bin/benches
# The benchmark programs (Python harnesses, the fleetsweep_bench helper) ship beside the
# binaries, where specs name them: {FLEETSWEEP_BIN}/benches/...

FROM ${WORKER_BASE_IMAGE} AS runtime
COPY --from=builder /out/ /opt/fleetsweep/
# Fail the build, not the pod, when the base image lacks a library (or its glibc is too old).
RUN for b in /opt/fleetsweep/bin/*; do \
        [ -f "$b" ] || continue; \
        if ldd "$b" 2>&1 | grep -Eq 'not found|version .GLIBC'; then ldd "$b"; exit 1; fi; \
        "$b" --help >/dev/null; \
    done
ENV PATH=/opt/fleetsweep/bin:${PATH}
# An init as PID 1 (tini, from the distribution): it forwards signals to the worker and reaps
# what reaches it. The worker is itself a child subreaper and kills and reaps what escapes an
# execution's process group (worker/executors/descendants.h); tini covers the rest.
RUN apt-get update && apt-get install -y --no-install-recommends tini \
    && rm -rf /var/lib/apt/lists/* && /usr/bin/tini --version
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
ENTRYPOINT ["/usr/bin/tini", "--", "/opt/fleetsweep/bin/fleetsweep-worker"]
