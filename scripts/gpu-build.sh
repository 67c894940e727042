# Sourced by the GPU scripts (scripts/gpu-sessions.sh, scripts/gpu-torch-sessions.sh): the device
# environment, the GPU's name and clocks into $OUT/nvidia-smi.txt, and a Release build into $BUILD
# (outside the carried tree) of the given targets. Usage, after OUT, BUILD and step() are set:
#   gpu_build ON|OFF TARGET...      # ON|OFF: FLEETSWEEP_WITH_TORCH
# Exits the calling script (1) when configuring or building fails, with the errors shown.
gpu_build() {
  local torch=$1
  shift
  # shellcheck disable=SC1091
  source scripts/device-env.sh .devdeps
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv | tee "$OUT/nvidia-smi.txt"
  cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DFLEETSWEEP_BUILD_TESTS=OFF \
    -DFLEETSWEEP_WITH_TORCH="$torch" "-DCMAKE_PREFIX_PATH=$CMAKE_PREFIX_PATH" > "$OUT/cmake.log" 2>&1 \
    || { tail -30 "$OUT/cmake.log"; exit 1; }
  timeout 300 cmake --build "$BUILD" --target "$@" -j "$(nproc)" > "$OUT/build.log" 2>&1 \
    || { grep -m 20 -E "error|Error" "$OUT/build.log"; exit 1; }
}
