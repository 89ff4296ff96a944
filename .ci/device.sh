#!/usr/bin/env bash
# Runs ON the GPU machine (through the device tool), from the repository root:
#   builds the headless targets (no Qt, no sqlite3.h there), runs the unit and gpu tests and
#   the benchmarks, and writes every log under $OUT. Carry .deps (see .ci/device-deps.sh).
# Usage: bash .ci/device.sh [quick]
set -uo pipefail
OUT=${OUT:-/tmp/gsr-device-out}
mkdir -p "$OUT"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
{
  echo "date: $(date -u +%FT%TZ)"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
  nvcc --version | tail -2; cmake --version | head -1; g++ --version | head -1
} > "$OUT/machine.txt" 2>&1
cat "$OUT/machine.txt"

status=0
step() { # name, command...
  local name=$1; shift
  echo "== $name"
  if ! "$@" > "$OUT/$name.log" 2>&1; then
    echo "FAILED: $name (see $name.log)"; tail -40 "$OUT/$name.log"; status=1
  else
    tail -5 "$OUT/$name.log"
  fi
}
data=()
[ -d .deps/data ] && data=(-DGSR_DATA_DIR="$PWD/.deps/data")
step configure cmake -S . -B build/device -G Ninja -DCMAKE_BUILD_TYPE=Release "${data[@]}" \
  -DGSR_BUILD_GUI=OFF -DGSR_WITH_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES="90-real;80-virtual"
step build cmake --build build/device -j "$(nproc)"
step unit-tests ctest --test-dir build/device -L unit -j "$(nproc)" --output-on-failure
step gpu-tests ctest --test-dir build/device -L gpu --output-on-failure --no-tests=ignore
if [ "${1:-}" != quick ]; then
  step bench-parse build/device/bin/gsr_bench_parse --sizes 10,100 --no-yosys
fi
exit $status
