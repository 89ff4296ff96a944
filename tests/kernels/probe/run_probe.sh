#!/usr/bin/env bash
# Reduction probes against the DSL's tuned best, same call, same GPU.
set -u
bin=$1; out=$2
mkdir -p "$out"
"$bin/gsr" kernels calibrate --json > "$out/cal.json"
cal=(--calibration "$out/cal.json")
for r in 1 2 4; do for ld in plain cs; do
  f=tests/kernels/probe/rows_r${r}_${ld}.cu
  echo "== $f"; "$bin/gsr" kernels verify "$f" --problem reduce_rows --block 256 \
    --grid "ceil(rows / $((8 * r)))" "${cal[@]}" 2>&1 | tail -1
done; done
for s in 4 8 16; do
  f=tests/kernels/probe/wide_s$s.cu
  echo "== $f"; "$bin/gsr" kernels verify "$f" --problem reduce_mean_wide --block 256 \
    --grid "rows * $s" "${cal[@]}" 2>&1 | tail -1
done
for p in reduce_rows reduce_mean_wide; do
  echo "== tune $p"
  "$bin/gsr" kernels tune $p --strategy sol --budget 400 --seed 1 "${cal[@]}" > "$out/tune_$p.log" 2>&1
  head -3 "$out/tune_$p.log" | tail -2; tail -2 "$out/tune_$p.log"
done
