# syntax=docker/dockerfile:1
# fleetsweep coordinator image (also carries the `fleetsweep` CLI for keygen/validate/report).
#
# Build from the repository root (the context must be the repo):
#   docker build -f docker/coordinator.Dockerfile -t fleetsweep/coordinator:0.1.0 .
#
# Stage 1 installs the Debian -dev packages a build needs with `scripts/setup.sh --build` (CI's
# list without the test tools) and builds with CMake; stage 2 keeps only the binaries and the Debian runtime libraries they link.
# Built and run by scripts/image-smoke.sh (not in CI: ~30 minutes on its machine); docs/deploy.md.

ARG BUILDER_IMAGE=debian:bookworm
ARG RUNTIME_IMAGE=debian:bookworm-slim

FROM ${BUILDER_IMAGE} AS builder
ENV DEBIAN_FRONTEND=noninteractive
COPY scripts/setup.sh /tmp/setup.sh
RUN bash /tmp/setup.sh --build && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
# The coordinator needs no libtorch; tests are not built into images.
RUN cmake -S . -B /build -G Ninja -DCMAKE_BUILD_TYPE=Release \
        -DFLEETSWEEP_WITH_TORCH=OFF -DFLEETSWEEP_BUILD_TESTS=OFF \
    && ninja -C /build fleetsweep-coordinator fleetsweep \
    && install -D -m 0755 /build/bin/fleetsweep-coordinator /out/bin/fleetsweep-coordinator \
    && install -D -m 0755 /build/bin/fleetsweep /out/bin/fleetsweep

FROM ${RUNTIME_IMAGE} AS runtime
ENV DEBIAN_FRONTEND=noninteractive
# Runtime libraries only (the shared objects of the -dev packages the builder used).
RUN apt-get update \
    && apt-get install -y --no-install-recommends \
        ca-certificates \
        libzmq5 libprotobuf32 libhiredis0.14 libyaml-cpp0.7 libspdlog1.10 libfmt9 libjemalloc2 \
        libprometheus-cpp-core1.0 libprometheus-cpp-pull1.0 \
    && rm -rf /var/lib/apt/lists/*
COPY --from=builder /out/bin/ /usr/local/bin/
# Fail the build, not the pod, when a library is missing.
RUN for b in /usr/local/bin/fleetsweep-coordinator /usr/local/bin/fleetsweep; do \
        if ldd "$b" | grep -q 'not found'; then ldd "$b"; exit 1; fi; \
    done
# Non-root; the chart's securityContext uses the same ids and a read-only root filesystem.
RUN groupadd --system --gid 10001 fleetsweep \
    && useradd --system --uid 10001 --gid 10001 --home-dir /tmp --no-create-home \
        --shell /usr/sbin/nologin fleetsweep
USER 10001:10001
WORKDIR /tmp
EXPOSE 5555 9100
ENTRYPOINT ["/usr/local/bin/fleetsweep-coordinator"]
