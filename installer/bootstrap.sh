#!/usr/bin/env bash
# GSR Studio set-up for a fresh Debian 12 / Ubuntu 24.04 machine.
#   installer/bootstrap.sh        install what is missing, build, run the main job on the sample
#   installer/bootstrap.sh test   install what is missing, build, run the whole test suite
#   installer/bootstrap.sh bench  the same set-up plus the benchmarks' baselines, then the benchmarks
# Both are idempotent: a second run reuses the build in build/.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
MODE=${1:-run}
JOBS=$(nproc 2>/dev/null || echo 2)

PACKAGES=(
  cmake ninja-build g++ pkg-config
  qt6-base-dev qt6-charts-dev libqt6opengl6-dev libgl-dev libegl-dev libimgui-dev
  libsqlite3-dev libeigen3-dev libigraph-dev libmetis-dev nlohmann-json3-dev zlib1g-dev
  libgtest-dev libbenchmark-dev
  xvfb xauth yosys
)

# Baselines that only the benchmarks need.
BENCH_PACKAGES=(python3-torch)

say() { printf '\033[1m[gsr]\033[0m %s\n' "$*"; }

install_missing() {
  local missing=()
  for p in "${PACKAGES[@]}" "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -eq 0 ]; then
    say "all packages present"
    return
  fi
  say "installing: ${missing[*]}"
  local sudo=()
  [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get update -qq
  "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

build() {
  local preset=$1
  shift
  say "configuring and building ($preset)"
  cmake --preset "$preset" -S "$ROOT" >/dev/null
  cmake --build --preset "$preset" -j "$JOBS" "$@"
}

has_display() { [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; }

run_main_job() {
  local bin="$ROOT/build/release/bin"
  local sample
  sample=$("$bin/gsr" info --json --quiet | sed -n 's/^  "file": "\(.*\)",$/\1/p')
  if has_display && [ -x "$bin/gsr-studio" ] && [ -z "${CI:-}" ]; then
    say "opening GSR Studio on the sample circuit $sample"
    exec "$bin/gsr-studio" "$sample"
  fi
  say "no display: running the main job headless on the sample circuit $sample"
  "$bin/gsr" info "$sample"
  if [ -x "$bin/gsr-studio" ]; then
    say "GSR Studio window, rendered off-screen: $ROOT/build/release/sample.png"
    QT_QPA_PLATFORM=offscreen "$bin/gsr-studio" --screenshot main "$ROOT/build/release/sample.png" "$sample"
  fi
}

run_tests() {
  build release
  say "running the test suite"
  (cd "$ROOT/build/release" && ctest --output-on-failure -j "$JOBS" --timeout 900)
  # The parsers once more under AddressSanitizer and UndefinedBehaviorSanitizer.
  build asan --target gsr test_cli test_core_netlist test_core_graph test_core_util
  say "running the parser tests under ASan + UBSan"
  (cd "$ROOT/build/asan" && ctest --output-on-failure -j "$JOBS" --timeout 900 -L unit)
}

run_benchmarks() {
  build release
  local bin="$ROOT/build/release/bin"
  say "parser throughput, scaling, memory; yosys side by side"
  "$bin/gsr_bench_parse" --sizes 10,100
  say "community detection against igraph; layout speed"
  "$bin/gsr_bench_community" --runs 5
  "$bin/gsr_bench_layout" --iterations 20
  say "CPU training speed against PyTorch"
  "$ROOT/tests/bench/train_speed_vs_torch.sh" "$ROOT/build/release"
  say "quality on circuits never seen"
  "$ROOT/tests/bench/quality_bench.sh" "$bin"
}

case "$MODE" in
  run) install_missing; build release; run_main_job ;;
  test) install_missing; run_tests ;;
  bench) install_missing "${BENCH_PACKAGES[@]}"; run_benchmarks ;;
  deps) install_missing ;;
  build) install_missing; build release ;;
  *) echo "usage: $0 [run|test|bench|deps|build]" >&2; exit 1 ;;
esac
