#!/usr/bin/env bash
# Screenshots of every panel, made by the application itself, into docs/images/ (the README
# shows them). Runs under Xvfb so the OpenGL canvas renders too.
#   docs/screenshots.sh [BIN_DIR]      (default build/release/bin)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bin=${1:-build/release/bin}
data=${GSR_DATA_DIR:-../shared/data}
sample=resources/samples/alu8.v
out=docs/images
mkdir -p "$out"
# The training panel needs a test circuit other than the training one.
export GSR_SCREENSHOT_TEST=${GSR_SCREENSHOT_TEST:-$data/netlists/iscas85/bench/c432.bench}
shot() { # panel
  xvfb-run -a -s "-screen 0 1600x1200x24" "$bin/gsr-studio" --screenshot "$1" "$out/$1.png" "$sample"
  echo "$out/$1.png"
}
for panel in main canvas communities training memory runs console profiling; do shot "$panel"; done
