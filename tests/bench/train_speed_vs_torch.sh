#!/usr/bin/env bash
# CPU training throughput of our `res` model against the same model in plain PyTorch (CPU),
# on the same graph, features, targets and initial parameters (gsr_bench_train --export), one
# configuration after the other. Prints a Markdown table; ratio = torch ms / ours ms (> 1: we
# are faster; the target is >= 2).
#   tests/bench/train_speed_vs_torch.sh [BIN_DIR]
# Environment: FILE (netlist; default multiplier.blif of the EPFL set), STEPS (timed steps,
# default 7), CONFIGS ("L:D ..." default "8:64 32:64"), THREADS ("1 2"), LAYOUT (coo|csr),
# PYTHON (default /usr/bin/python3: Debian's python3-torch, not a pyenv shim), TORCH_BLAS_DIR
# (a directory put first on torch's LD_LIBRARY_PATH, e.g. /usr/lib/x86_64-linux-gnu/openblas-openmp:
# Debian's torch calls whatever libblas.so.3 the alternatives system points at, by default the
# unoptimised reference BLAS).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
bin="${1:-/work/build-speed}"
exe="$bin/bin/gsr_bench_train"
[[ -x "$exe" ]] || exe="$bin/gsr_bench_train"
[[ -x "$exe" ]] || { echo "gsr_bench_train not found under $bin" >&2; exit 1; }
steps="${STEPS:-7}"
configs="${CONFIGS:-8:64 32:64}"
threads="${THREADS:-1 2}"
layout="${LAYOUT:-coo}"
py="${PYTHON:-/usr/bin/python3}"
file_args=()
[[ -n "${FILE:-}" ]] && file_args=(--file "$FILE")
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

ms() { sed -n 's/^ms\/step median \([0-9.]*\).*/\1/p' "$1"; }

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) CPUs; $("$py" -c 'import torch; print("torch", torch.__version__)')"
rows=()
for cfg in $configs; do
  L="${cfg%%:*}"; D="${cfg##*:}"
  for T in $threads; do
    dir="$tmp/L${L}_D${D}"
    "$exe" "${file_args[@]}" --layers "$L" --hidden "$D" --threads "$T" --steps "$steps" \
      --export "$dir" > "$tmp/ours.txt"
    LD_LIBRARY_PATH="${TORCH_BLAS_DIR:-}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
      "$py" "$here/torch_res_cpu.py" "$dir" --threads "$T" --steps "$steps" --layout "$layout" \
      > "$tmp/torch.txt"
    sed 's/^/  ours:  /' "$tmp/ours.txt" >&2
    sed 's/^/  torch: /' "$tmp/torch.txt" >&2
    o="$(ms "$tmp/ours.txt")"; t="$(ms "$tmp/torch.txt")"
    r="$("$py" -c "print(f'{$t / $o:.2f}')")"
    rows+=("| res L=$L D=$D T=$T | $o | $t | $r |")
  done
done
graph="$(sed -n 's/^res .* on \([^:]*\): \(N=[0-9]* E=[0-9]*\).*/\1, \2/p' "$tmp/ours.txt")"
echo
blas="$(LD_LIBRARY_PATH="${TORCH_BLAS_DIR:-}" ldd "$("$py" -c 'import torch, os; print(os.path.join(os.path.dirname(torch.__file__), "lib", "libtorch_cpu.so"))')" | awk '/libblas/ {print $3}')"
echo "Graph: $graph; $steps timed steps after 2 warm-up (median); torch sparse $layout; torch BLAS $(readlink -f "$blas")"
echo
echo "| config | ours ms/step | torch ms/step | torch/ours |"
echo "|---|---:|---:|---:|"
printf '%s\n' "${rows[@]}"
echo
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
