#!/usr/bin/env bash
# GSR Studio set-up for a fresh Debian 12 / Ubuntu 24.04 machine.
#   installer/bootstrap.sh        install what is missing, build, run the main job on the sample
#   installer/bootstrap.sh test   install what is missing, build, run the whole test suite,
#                                 then build and check the .deb and .tar.gz (package_check.sh)
#   installer/bootstrap.sh bench  the same set-up plus the benchmarks' baselines, then the benchmarks
#   installer/bootstrap.sh package  build, then the .deb and .tar.gz (build/release/packages/)
# Each is idempotent: a second run reuses the build in build/
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT" # cmake reads the build and test presets from the current folder
MODE=${1:-run}
JOBS=$(nproc 2>/dev/null || echo 2)

PACKAGES=(
  cmake ninja-build g++ pkg-config
  qt6-base-dev qt6-charts-dev libqt6opengl6-dev libgl-dev libegl-dev libimgui-dev
  libsqlite3-dev libeigen3-dev libigraph-dev libmetis-dev nlohmann-json3-dev zlib1g-dev
  # reports: cairo draws the PDF export; poppler-utils' pdftoppm renders it in the tests
  libcairo2-dev poppler-utils
  libgtest-dev libbenchmark-dev
  # localedef and the locale sources: the tests make tr_TR and de_DE locales of their own
  locales
  xvfb xauth yosys
  # packaging (installer/package_check.sh): shlibdeps, desktop file and AppStream validators;
  # rsvg-convert renders the icon PNGs (resources/icons/render_pngs.sh)
  dpkg-dev file desktop-file-utils appstream librsvg2-bin
)

# Baselines that only the benchmarks need.
BENCH_PACKAGES=(python3-torch)

# Each line says how long the script has run (bash's SECONDS), so a log shows what each step took.
say() { printf '\033[1m[gsr]\033[0m +%ds %s\n' "$SECONDS" "$*"; }

# Dear ImGui's OpenGL3 backend, which the window compiles: libimgui-dev ships it as an example
# under /usr/share/doc, which minimal images (Docker's ubuntu, cloud images) leave out.
IMGUI_BACKEND=/usr/share/doc/libimgui-dev/examples/backends/imgui_impl_opengl3.cpp

install_missing() {
  local missing=()
  for p in "${PACKAGES[@]}" "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  local reinstall_imgui=0
  [ -e "$IMGUI_BACKEND" ] || [[ " ${missing[*]} " == *" libimgui-dev "* ]] || reinstall_imgui=1
  if [ ${#missing[@]} -eq 0 ] && [ "$reinstall_imgui" = 0 ]; then
    say "all packages present"
    return
  fi
  local sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null ||
      { echo "installing packages needs root: run as root, or install sudo" >&2; exit 1; }
    sudo=(sudo)
  fi
  # sudo drops the environment: the front end goes on its command line. A fresh VM's
  # unattended-upgrades may hold the dpkg lock for a while: wait for it rather than fail.
  local apt=(env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600)
  "${sudo[@]}" "${apt[@]}" update -qq
  if [ ${#missing[@]} -gt 0 ]; then
    say "installing: ${missing[*]}"
    "${sudo[@]}" "${apt[@]}" install -y -qq --no-install-recommends "${missing[@]}"
  fi
  if [ ! -e "$IMGUI_BACKEND" ]; then
    say "libimgui-dev's backend sources were left out (/usr/share/doc excluded): reinstalling them"
    "${sudo[@]}" "${apt[@]}" install -y -qq --reinstall --no-install-recommends \
      -o "DPkg::Options::=--path-include=/usr/share/doc/libimgui-dev/*" libimgui-dev
    [ -e "$IMGUI_BACKEND" ] ||
      { echo "$IMGUI_BACKEND is still missing after reinstalling libimgui-dev" >&2; exit 1; }
  fi
}

build() {
  local preset=$1
  shift
  say "configuring and building ($preset)"
  # Of configure's output only the summary of what this build has (GUI, CUDA, store, PDF)
  # and what was not found show; its warnings and errors go to the terminal as they come.
  local log="$ROOT/build/configure-$preset.log"
  mkdir -p "$ROOT/build"
  local data=()
  [ -n "${GSR_DATA_DIR:-}" ] && data=(-DGSR_DATA_DIR="$GSR_DATA_DIR")
  cmake --preset "$preset" -S "$ROOT" "${data[@]}" >"$log"
  grep -iE "^-- (GSR Studio|.*not found)" "$log" || true
  if [ "${1:-}" = main ]; then
    # The main job needs the programs only, not the tests and benchmarks (ten minutes of a
    # two-core machine): gsr, the window where this build has it, the GPU kernel worker.
    local targets=(gsr) tree="$ROOT/build/$preset"
    grep -q '^GSR_BUILD_GUI:BOOL=ON' "$tree/CMakeCache.txt" && targets+=(gsr-studio)
    grep -q 'bin/gsr-kernel-worker:' "$tree/build.ninja" && targets+=(gsr-kernel-worker)
    set -- --target "${targets[@]}"
  fi
  cmake --build --preset "$preset" -j "$JOBS" "$@"
}

# The tests and benchmarks read the public netlists in place: ../shared/data beside the
# checkout, or the folder GSR_DATA_DIR names. Checked before a build that would be in vain.
need_data() {
  local dir="${GSR_DATA_DIR:-$ROOT/../shared/data}"
  if [ ! -f "$dir/netlists/COUNTS.csv" ]; then
    echo "bootstrap: the test data is not at $dir (no netlists/COUNTS.csv): put the shared" \
      "data folder there, or set GSR_DATA_DIR to it" >&2
    exit 1
  fi
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
    say "GSR Studio window (communities coloured, layout settled), rendered under Xvfb: $ROOT/build/release/sample.png"
    if command -v xvfb-run > /dev/null; then
      xvfb-run -a -s "-screen 0 1600x1200x24" \
        "$bin/gsr-studio" --screenshot main "$ROOT/build/release/sample.png" "$sample"
    else
      QT_QPA_PLATFORM=offscreen "$bin/gsr-studio" --screenshot main "$ROOT/build/release/sample.png" "$sample"
    fi
  fi
}

run_tests() {
  build release
  say "running the test suite"
  (cd "$ROOT/build/release" && ctest --output-on-failure --no-tests=error -j "$JOBS" --timeout 900)
  # The parsers once more under AddressSanitizer and UndefinedBehaviorSanitizer.
  build asan --target gsr test_cli test_core_netlist test_core_graph test_core_util test_core_community
  say "running the parser tests under ASan + UBSan"
  # (fontconfig's process-lifetime caches, reached through cairo's PDF text, are not leaks.)
  # (quoted: the sanitizers' option parser splits at spaces, as in a checkout path)
  (cd "$ROOT/build/asan" &&
    LSAN_OPTIONS="suppressions='$ROOT/tests/sanitizers/lsan.supp'${LSAN_OPTIONS:+:$LSAN_OPTIONS}" \
    ctest --output-on-failure --no-tests=error -j "$JOBS" --timeout 900 -L unit)
  # The packages, from the release build above (cpack installs it; nothing is rebuilt).
  "$ROOT/installer/package_check.sh" "$ROOT/build/release"
}

run_benchmarks() {
  build release
  local bin="$ROOT/build/release/bin"
  say "parser throughput, scaling, memory; yosys side by side"
  "$bin/gsr_bench_parse" --sizes 10,100
  say "community detection against igraph; layout speed"
  "$bin/gsr_bench_community" --runs 5
  "$bin/gsr_bench_layout" --iterations 20
  say "canvas frame time at hyp size (Xvfb, Mesa llvmpipe); opening a netlist in the window"
  xvfb-run -a -s "-screen 0 1600x1200x24" "$bin/gsr_bench_canvas" --iterations 30
  QT_QPA_PLATFORM=offscreen "$bin/gsr_bench_window_load" --runs 5
  say "the kernel lab's search on synthetic landscapes; NLDM arrival times on GSCLib"
  "$bin/test_core_tune" --gtest_filter='Search.*'
  "$bin/test_core_labels" --gtest_filter='ArrivalNldm.IwlsNetlistsOnGscLib'
  say "COMM-RAND against random batching; SymGraph against the GNNs"
  "$bin/gsr_bench_commrand" --epochs 8
  "$bin/gsr_bench_symgraph"
  say "CPU training speed against PyTorch"
  "$ROOT/tests/bench/train_speed_vs_torch.sh" "$ROOT/build/release"
  say "quality on circuits never seen"
  "$ROOT/tests/bench/quality_bench.sh" "$bin"
}

case "$MODE" in
  run) install_missing; build release main; run_main_job ;;
  test) need_data; install_missing; run_tests; say "the test suite passed" ;;
  bench) need_data; install_missing "${BENCH_PACKAGES[@]}"; run_benchmarks ;;
  deps) install_missing ;;
  build) install_missing; build release ;;
  package) install_missing; build release; "$ROOT/installer/package_check.sh" ;;
  *) echo "usage: $0 [run|test|bench|deps|build|package]" >&2; exit 1 ;;
esac
