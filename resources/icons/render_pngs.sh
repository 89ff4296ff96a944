#!/usr/bin/env bash
# Renders the PNG sizes of the application icon from its SVG into the hicolor layout next to
# it. The PNGs are checked in, so a build needs no SVG renderer; run this after editing the SVG.
# Needs rsvg-convert (Debian: librsvg2-bin, in installer/bootstrap.sh's package list).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ID=io.github.gsrstudio.GsrStudio
SVG="$HERE/hicolor/scalable/apps/$ID.svg"
SIZES=(16 24 32 48 64 128 256)

command -v rsvg-convert >/dev/null || {
  echo "render_pngs.sh: rsvg-convert is missing (apt-get install librsvg2-bin)" >&2
  exit 1
}
for n in "${SIZES[@]}"; do
  out="$HERE/hicolor/${n}x${n}/apps/$ID.png"
  mkdir -p "$(dirname "$out")"
  rsvg-convert --width "$n" --height "$n" --format png --output "$out" "$SVG"
  echo "wrote ${out#"$HERE"/}"
done
