#!/usr/bin/env bash
# Runs ON the GPU machine (through the device tool), from the repository root: builds the
# headless targets (no Qt, no sqlite3.h there), runs the gpu tests, compute-sanitizer and the
# benchmarks, and writes every log under $OUT. Carry .deps (see .ci/device-deps.sh).
# Usage: bash .ci/device.sh [STAGE...]   stages: tests sanitize kernels train pyg commrand
#        quality warmup seeds lab apply unit profile (default: tests sanitize kernels train
#        pyg). SEEDS="7 8 9", SEED_MODELS="rev gsr:8" and SEED_JOBS=6 set the seeds stage.
#        PYG_LAYERS=8,32 limits the depths of the PyG comparison; GSR_BENCH_EXTRA adds flags
#        to gsr_bench_gpu in the kernels and pyg stages (e.g. --gemm-baseline);
#        PROFILE_MODELS="rev gsr" and PROFILE_LAYERS=8 pick the profiled steps (nsys, or ncu
#        when there is no nsys).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1 # every path below is the repository's
OUT=${OUT:-/tmp/gsr-device-out}
mkdir -p "$OUT"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
stages=${*:-tests sanitize kernels train pyg}
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
  local t0=$SECONDS
  if ! "$@" > "$OUT/$name.log" 2>&1; then
    echo "FAILED: $name (see $name.log)"; tail -60 "$OUT/$name.log"; status=1
  else
    tail -8 "$OUT/$name.log"
  fi
  echo "   ($name: $((SECONDS - t0)) s)"
}
has() { [[ " $stages " == *" $1 "* ]]; }
data=()
[ -d .deps/data ] && data=(-DGSR_DATA_DIR="$PWD/.deps/data")
[ -f .deps/lib/libsqlite3.a ] && data+=(-DSQLite3_INCLUDE_DIR="$PWD/.deps/sqlite" \
  -DSQLite3_LIBRARY="$PWD/.deps/lib/libsqlite3.a")
step configure cmake -S . -B build/device -G Ninja -DCMAKE_BUILD_TYPE=Release "${data[@]}" \
  -DGSR_BUILD_GUI=OFF -DGSR_WITH_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES="90a-real;80-virtual"
targets=(gsr gsr-kernel-worker test_gpu gsr_bench_gpu gsr_bench_commrand)
has unit && targets=(all)
step build cmake --build build/device -j "$(nproc)" --target "${targets[@]}"
# The machine keeps build/ between calls: after a failed configure or build, the stages
# below would run the last commit's binaries and write logs that look like this one's.
if [ "$status" -ne 0 ]; then
  echo "FAILED: the build; no stage runs"
  exit 1
fi
bin=build/device/bin
if has unit; then
  step unit-tests ctest --test-dir build/device -L unit -j "$(nproc)" --output-on-failure
fi
if has tests; then
  step gpu-tests "$bin/test_gpu"
fi
if has sanitize; then
  filter='CudaOps.*:CudaOpsFloat64.*:CudaConv.*:*CudaConvMma.*:TunedKernels.*:*gsr_union_f32*'
  filter+=':*rev_directed_f32*'
  filter+=':GpuRuntime.Installed*:GpuOffload.*'
  step memcheck compute-sanitizer --tool memcheck --leak-check full --error-exitcode 1 \
    "$bin/test_gpu" --gtest_filter="$filter"
  step racecheck compute-sanitizer --tool racecheck --error-exitcode 1 \
    "$bin/test_gpu" --gtest_filter='CudaOps*:CudaConv.*:*CudaConvMma.*:TunedKernels.*'
  step synccheck compute-sanitizer --tool synccheck --error-exitcode 1 \
    "$bin/test_gpu" --gtest_filter='CudaOps.*:CudaConv.*'
  # The kernel lab's worker (NVRTC-loaded candidate, vendor baseline, L2 flush, calibration),
  # sanitized through the CLI that starts it: an honest kernel must come back clean.
  step memcheck-worker compute-sanitizer --tool memcheck --leak-check full --error-exitcode 1 \
    --target-processes all "$bin/gsr" kernels verify tests/kernels/planted/honest_elementwise.cu \
    --problem ew_bias_gelu_residual --timeout 300
  step memcheck-baseline compute-sanitizer --tool memcheck --error-exitcode 1 \
    --target-processes all "$bin/gsr" kernels tune spmm_w64 --strategy grid --budget 2 \
    --timeout 300
fi
if has kernels; then
  step kernels "$bin/gsr_bench_gpu" --kernels --models "" ${GSR_BENCH_EXTRA:-}
fi
if has train; then
  # The CLI end to end on the GPU, and the same run on the CPU for the time ratio.
  c=.deps/data/netlists/itc99/b14.bench
  for dev in gpu cpu; do
    step "train-$dev" "$bin/gsr" train "$c" --test .deps/data/netlists/itc99/b10.bench \
      --db "$OUT/runs-$dev.db" --model gsr --layers 32 --hidden 128 --groups 2 --topk 16 \
      --epochs 20 --patience 0 --device "$dev" --json
  done
  step "train-auto" "$bin/gsr" train "$c" --test .deps/data/netlists/itc99/b10.bench \
    --db "$OUT/runs-auto.db" --model rev --layers 8 --epochs 2 --device auto
fi
if has commrand; then
  step commrand "$bin/gsr_bench_commrand" --device gpu --epochs 8
fi
if has warmup; then
  # Learning-rate warm-up at depth 112 on the larger quality split, rev and gsr side by side.
  step warmup env GSR_DATA_DIR="$PWD/.deps/data" GSR_TRAIN_FLAGS="--device gpu" \
    GSR_QUALITY_MORE=1 bash tests/bench/quality_warmup.sh "$bin" 100 112 40 \
    "${WARMUPS:-0 20}" "rev gsr" "${WARMUP_SEED:-7}"
fi
if has seeds; then
  # Paired seeds on the quality benchmark's wide split at depth 32 (gsr against rev), several
  # runs on the GPU at once; the run stores' summaries land in $OUT/seeds.
  step seeds env GSR_DATA_DIR="$PWD/.deps/data" GSR_TRAIN_FLAGS="--device gpu" \
    GSR_JOBS="${SEED_JOBS:-6}" GSR_QUALITY_OUT="$OUT/seeds" bash tests/bench/quality_seeds.sh \
    "$bin" "${SEEDS:-7 8 9 10 11}" "${SEED_MODELS:-rev gsr:8 gsr:16}" 200 40 0.003 32
fi
if has quality; then
  # The quality table at a larger scale: four more training circuits, depth 112.
  step quality env GSR_DATA_DIR="$PWD/.deps/data" GSR_TRAIN_FLAGS="--device gpu" \
    GSR_QUALITY_MORE=1 bash tests/bench/quality_bench.sh "$bin" 100 112 40
fi
if has lab; then
  # The kernel lab: calibration, planted corpus via the CLI, tuning against baselines.
  step lab bash tests/bench/kernel_lab.sh "$bin" "$OUT/lab" "${LAB_BUDGET:-40}" \
    "${LAB_EXHAUSTIVE-ew_bias_gelu_residual softmax_1k spmm_w64}"
  # The engine's GEMM at the default model's block width of 16 (hidden 64 in 4 groups): the
  # tiles 8 and 16 wide its space needs, each candidate checked against the CPU reference.
  step lab-narrow-gemm "$bin/gsr" kernels tune engine_gemm_N214591_F16 --model gsr \
    --hidden 64 --groups 4 --topk 4 --nodes 214591 --edges 857340 --strategy grid \
    --budget "${NARROW_BUDGET:-64}" --out "$OUT/lab-narrow-gemm.json"
fi
if has apply; then
  # The kernel lab's Apply end to end: tune the engine's SpMM at hyp's shape (rev, D = 128,
  # C = 2: width 64; the union operator has 857,340 nonzeros), keep the best config in a
  # project, then train with the backend's own SpMM and with the applied one, side by side in
  # one process (gsr_bench_gpu --applied), and once through `gsr train` from the project.
  p="$OUT/apply.gsr"
  rm -f "$p"
  step apply-calibrate "$bin/gsr" kernels calibrate --project "$p"
  step apply-tune "$bin/gsr" kernels tune engine_spmm_N214591_F64 --model rev --hidden 128 \
    --groups 2 --nodes 214591 --edges 857340 --strategy sol --budget "${APPLY_BUDGET:-40}" \
    --project "$p"
  step apply-choose bash -c "'$bin/gsr' kernels apply --project '$p' --json > '$OUT/applied.json'"
  step apply-bench "$bin/gsr_bench_gpu" --kernels --models rev,res \
    --layers "${APPLY_LAYERS:-8,32,112}" --steps 7 --applied "$OUT/applied.json"
  step apply-train "$bin/gsr" train .deps/data/netlists/itc99/b14.bench \
    --test .deps/data/netlists/itc99/b10.bench --db "$p" --model rev --layers 8 \
    --hidden 128 --groups 2 --epochs 2 --patience 0 --device gpu --json
fi
if has profile; then
  # Where a step's time goes: every kernel of rev and gsr steps on hyp, summed by name.
  for m in ${PROFILE_MODELS:-rev}; do
    if command -v nsys > /dev/null; then
      step "profile-$m" nsys profile -t cuda -o "$OUT/prof-$m" --force-overwrite true \
        "$bin/gsr_bench_gpu" --models "$m" --layers "${PROFILE_LAYERS:-8}" --steps 3
      step "kernels-$m" nsys stats -r cuda_gpu_kern_sum -f csv -o "$OUT/kern-$m" \
        "$OUT/prof-$m.nsys-rep"
      rm -f "$OUT/prof-$m.nsys-rep" "$OUT/prof-$m.sqlite"
    else
      step "profile-$m" ncu --metrics gpu__time_duration.sum --print-summary per-kernel \
        "$bin/gsr_bench_gpu" --models "$m" --layers "${PROFILE_LAYERS:-8}" --steps 1
    fi
  done
fi
if has pyg; then
  step pyg bash tests/bench/gpu_vs_pyg.sh "$bin" "$OUT/pyg" "${PYG_LAYERS:-8,32,112,448}" 5
fi
exit $status
