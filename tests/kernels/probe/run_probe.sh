#!/usr/bin/env bash
# Reduction probes (docs/BENCHMARKS.md, "The same suite on an H100"): hand-written variants of
# the two reduction problems, generated from rows.cu.in (a warp per RPW rows, every float4
# loaded before summing; plain or streaming loads) and wide.cu.in (a row over S blocks, the
# last block of a row adding the partials), verified and timed like any candidate, beside the
# DSL's SOL-guided best in the same call.
# Usage: tests/kernels/probe/run_probe.sh BIN_DIR OUTDIR
set -u
bin=$1 out=$2
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
"$bin/gsr" kernels calibrate --json > "$out/cal.json"
cal=(--calibration "$out/cal.json")
for r in 1 2 4; do
  for ld in plain cs; do
    load=$([ "$ld" = cs ] && echo "__ldcs" || echo "*")
    f="$out/rows_r${r}_$ld.cu"
    sed -e "s/@RPW@/$r/" -e "s/GSR_LOAD(\(.*\));/$load(\1);/" "$here/rows.cu.in" > "$f"
    "$bin/gsr" kernels verify "$f" --problem reduce_rows --block 256 \
      --grid "ceil(rows / $((8 * r)))" "${cal[@]}" 2>&1 | tail -1
  done
done
for s in 4 8 16; do
  f="$out/wide_s$s.cu"
  sed "s/@S@/$s/" "$here/wide.cu.in" > "$f"
  "$bin/gsr" kernels verify "$f" --problem reduce_mean_wide --block 256 --grid "rows * $s" \
    "${cal[@]}" 2>&1 | tail -1
done
for p in reduce_rows reduce_mean_wide; do
  "$bin/gsr" kernels tune "$p" --strategy sol --budget 400 --seed 1 "${cal[@]}" \
    > "$out/tune_$p.log" 2>&1
  tail -1 "$out/tune_$p.log"
done
