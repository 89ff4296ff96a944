#!/usr/bin/env bash
# Builds the .deb and .tar.gz from an existing build tree and checks what a user would get:
#   installer/package_check.sh [BUILD_DIR]        (default: build/release)
# `installer/bootstrap.sh test` runs it after the test suite. It never rebuilds from scratch:
# cpack installs what BUILD_DIR already holds (building only what is out of date).
#
# Checks, each fatal:
#   - the desktop file, AppStream metainfo and MIME XML validate; the metainfo's newest release
#     is the project's version; every icon PNG has the size its folder names;
#   - both packages build; the .deb depends on qt6-qpa-plugins and on what shlibdeps found;
#   - no CUDA library (libcuda, libcudart, cuBLAS, ...) is packaged or needed at load time;
#     no packaged binary has a run path; every library a binary needs is found;
#   - nothing from the test data (GSR_DATA_DIR, ../shared/data) is inside either package, by
#     path, by file name and by content;
#   - from the .deb unpacked with `dpkg -x` into a scratch root, and from the unpacked tarball,
#     with LD_LIBRARY_PATH unset: `gsr --version`, `gsr info` on the installed sample, and
#     `QT_QPA_PLATFORM=offscreen gsr-studio --smoke` exit 0; both programs load the sample
#     installed next to them, not the source tree's.
# Prints the packages' sizes.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=$(cd "${1:-$ROOT/build/release}" && pwd)
APP_ID=io.github.gsrstudio.GsrStudio
ICON_SIZES=(16 24 32 48 64 128 256)
# The driver's libraries and the toolkit's: none may be packaged or needed at load time.
CUDA_LIBS='cuda|cudart|cublas|cublasLt|cusparse|curand|cufft|cusolver|nvrtc|nvJitLink|nvidia'

say() { printf '\033[1m[package]\033[0m %s\n' "$*"; }
fail() { printf '\033[1;31m[package] FAILED:\033[0m %s\n' "$*" >&2; exit 1; }

cache_value() { sed -n "s/^$1:[A-Z]*=//p" "$BUILD/CMakeCache.txt"; }

[ -f "$BUILD/CPackConfig.cmake" ] ||
  fail "$BUILD has no CPackConfig.cmake: configure it first (cmake --preset release)"
for tool in cpack dpkg-deb dpkg-shlibdeps file readelf desktop-file-validate appstreamcli; do
  command -v "$tool" >/dev/null ||
    fail "$tool is missing: run installer/bootstrap.sh deps (or apt-get install it)"
done

VERSION=$(cache_value CMAKE_PROJECT_VERSION)
GUI=$(cache_value GSR_BUILD_GUI)
DATA_DIR=$(cache_value GSR_DATA_DIR)
case "$GUI" in ON | TRUE | 1 | YES) GUI=1 ;; *) GUI=0 ;; esac

SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/gsr-package-check.XXXXXX")
trap 'rm -rf "$SCRATCH"' EXIT

# ---- the desktop files, before packaging ---------------------------------------------------
RES="$ROOT/resources"
say "validating the desktop file, the AppStream metainfo and the MIME type"
desktop-file-validate "$RES/desktop/$APP_ID.desktop" || fail "desktop-file-validate"
appstreamcli validate --no-net "$RES/desktop/$APP_ID.metainfo.xml" || fail "appstreamcli validate"
newest=$(grep -o '<release version="[^"]*"' "$RES/desktop/$APP_ID.metainfo.xml" | head -n 1 |
         cut -d'"' -f2)
[ "$newest" = "$VERSION" ] ||
  fail "$APP_ID.metainfo.xml: newest <release> is '$newest', the project is $VERSION"
if command -v update-mime-database >/dev/null; then
  mkdir -p "$SCRATCH/mime/packages"
  cp "$RES/desktop/$APP_ID.mime.xml" "$SCRATCH/mime/packages/$APP_ID.xml"
  mime_log=$(XDG_DATA_HOME="$SCRATCH" update-mime-database "$SCRATCH/mime" 2>&1) ||
    fail "update-mime-database: $mime_log"
  [ -z "$mime_log" ] || fail "update-mime-database complained: $mime_log"
  grep -qx 'application/x-gsr-studio-project' "$SCRATCH/mime/types" ||
    fail "the MIME type application/x-gsr-studio-project was not registered"
fi
# PNG: width and height are the big-endian 32-bit words at bytes 16 and 20 of the header.
png_size() { od -An -tu1 -j16 -N8 "$1" | awk '{print $1*16777216+$2*65536+$3*256+$4 "x" \
                                                      $5*16777216+$6*65536+$7*256+$8}'; }
for n in "${ICON_SIZES[@]}"; do
  png="$RES/icons/hicolor/${n}x${n}/apps/$APP_ID.png"
  [ -f "$png" ] || fail "missing icon $png (run resources/icons/render_pngs.sh)"
  [ "$(png_size "$png")" = "${n}x${n}" ] || fail "$png is $(png_size "$png"), not ${n}x${n}"
done

# ---- the packages --------------------------------------------------------------------------
OUT="$BUILD/packages"
rm -rf "$OUT"
say "building the packages (cpack DEB + TGZ) from $BUILD"
if ! (cd "$BUILD" && cpack --config CPackConfig.cmake -G "DEB;TGZ" -B "$OUT") \
     >"$SCRATCH/cpack.log" 2>&1; then
  cat "$SCRATCH/cpack.log" >&2
  fail "cpack"
fi
shopt -s nullglob
debs=("$OUT"/*.deb)
tgzs=("$OUT"/*.tar.gz)
shopt -u nullglob
[ ${#debs[@]} -eq 1 ] || fail "expected one .deb in $OUT, found ${#debs[@]}"
[ ${#tgzs[@]} -eq 1 ] || fail "expected one .tar.gz in $OUT, found ${#tgzs[@]}"
DEB=${debs[0]}
TGZ=${tgzs[0]}

depends=$(dpkg-deb -f "$DEB" Depends)
say "Depends: $depends"
echo "$depends" | grep -q 'libc6' || fail "no shlibdeps dependencies in the .deb (libc6 missing)"
if [ "$GUI" = 1 ]; then
  echo "$depends" | grep -q 'qt6-qpa-plugins' || fail "the .deb does not depend on qt6-qpa-plugins"
  echo "$depends" | grep -q 'libqt6widgets6' || fail "shlibdeps did not find Qt Widgets"
fi
if echo "$depends" | grep -Eq 'libcuda|nvidia'; then
  fail "the .deb depends on the NVIDIA driver"
fi

# ---- what is inside ------------------------------------------------------------------------
DEB_ROOT="$SCRATCH/deb-root"
TGZ_ROOT="$SCRATCH/tgz-root"
dpkg-deb --fsys-tarfile "$DEB" | tar -t >"$SCRATCH/deb.list"
tar -tzf "$TGZ" >"$SCRATCH/tgz.list"
dpkg -x "$DEB" "$DEB_ROOT"
mkdir -p "$TGZ_ROOT"
tar -xzf "$TGZ" -C "$TGZ_ROOT"
TGZ_PREFIX=$(find "$TGZ_ROOT" -mindepth 1 -maxdepth 1 -type d | head -n 1)
[ -x "$TGZ_PREFIX/bin/gsr" ] || fail "the tarball has no bin/gsr under one top folder"

for list in "$SCRATCH/deb.list" "$SCRATCH/tgz.list"; do
  if grep -Eq "(^|/)lib($CUDA_LIBS)[^/]*\.so" "$list"; then
    fail "a CUDA or driver library is packaged: $(grep -E "lib($CUDA_LIBS)" "$list")"
  fi
  if grep -Eq 'shared/data|/netlists/' "$list"; then
    fail "test data is packaged: $(grep -E 'shared/data|/netlists/' "$list" | head -n 3)"
  fi
done
expected=(usr/bin/gsr usr/share/gsr-studio/samples/alu8.v usr/share/doc/gsr-studio/copyright)
# The kernel lab's worker, where the build has the GPU backend: a regressed install rule left
# the packages without it, and every check below still passed.
[ -x "$BUILD/bin/gsr-kernel-worker" ] && expected+=(usr/libexec/gsr-studio/gsr-kernel-worker)
if [ "$GUI" = 1 ]; then
  expected+=(usr/bin/gsr-studio "usr/share/applications/$APP_ID.desktop"
             "usr/share/metainfo/$APP_ID.metainfo.xml" "usr/share/mime/packages/$APP_ID.xml"
             "usr/share/icons/hicolor/scalable/apps/$APP_ID.svg")
  for n in "${ICON_SIZES[@]}"; do
    expected+=("usr/share/icons/hicolor/${n}x${n}/apps/$APP_ID.png")
  done
fi
for f in "${expected[@]}"; do
  [ -e "$DEB_ROOT/$f" ] || fail "the .deb lacks /$f"
  [ -e "$TGZ_PREFIX/${f#usr/}" ] || fail "the tarball lacks ${f#usr/}"
done

# Test data, by name and by content: hash only the package files whose size equals that of a
# data file, so this stays fast whatever the size of the data.
if [ -d "$DATA_DIR" ]; then
  # size TAB name TAB path: names may hold spaces.
  find "$DATA_DIR" -type f -printf '%s\t%f\t%p\n' >"$SCRATCH/data.index"
  find "$DEB_ROOT" "$TGZ_ROOT" -type f -printf '%s\t%f\t%p\n' >"$SCRATCH/pkg.index"
  # Generic names (README.md, COPYING.txt, ...) are left to the content check.
  clash=$(awk -F'\t' 'NR == FNR { if ($2 !~ /^(README|LICENSE|COPYING|MANIFEST|PROVENANCE)/)
                                   name[$2] = 1; next }
                     ($2 in name) { print $3 }' "$SCRATCH/data.index" "$SCRATCH/pkg.index")
  [ -z "$clash" ] || fail "packaged files named like test data: $clash"
  awk -F'\t' 'NR == FNR { size[$1] = 1; next } ($1 in size) { print $3 }' \
      "$SCRATCH/data.index" "$SCRATCH/pkg.index" >"$SCRATCH/same-size"
  if [ -s "$SCRATCH/same-size" ]; then
    awk -F'\t' '{ print $3 }' "$SCRATCH/data.index" | xargs -d '\n' sha256sum |
      awk '{ print $1 }' | sort -u >"$SCRATCH/data.sha"
    while IFS= read -r f; do
      if grep -qx "$(sha256sum "$f" | awk '{ print $1 }')" "$SCRATCH/data.sha"; then
        fail "packaged file ${f#"$SCRATCH"/} is a copy of a test data file"
      fi
    done <"$SCRATCH/same-size"
  fi
  say "no test data inside ($(wc -l <"$SCRATCH/data.index") data files compared)"
else
  say "note: test data directory $DATA_DIR not found; checked the file lists only"
fi

# Binaries: no CUDA or driver library needed (the toolkit's are static, libcuda is dlopened),
# no run path pointing back at this machine, every library found.
bins=("$DEB_ROOT/usr/bin/gsr")
[ "$GUI" = 1 ] && bins+=("$DEB_ROOT/usr/bin/gsr-studio")
# The kernel lab's worker, where the build has the GPU backend.
worker="$DEB_ROOT/usr/libexec/gsr-studio/gsr-kernel-worker"
[ -e "$worker" ] && bins+=("$worker")
for b in "${bins[@]}"; do
  dyn=$(readelf -d "$b")
  if echo "$dyn" | grep -E "NEEDED.*\[lib($CUDA_LIBS)[^]]*\.so"; then
    fail "$(basename "$b") needs a CUDA library at load time (link it statically)"
  fi
  if echo "$dyn" | grep -E 'R(UN)?PATH'; then fail "$(basename "$b") carries a run path"; fi
  missing=$(env -u LD_LIBRARY_PATH ldd "$b" | grep 'not found' || true)
  [ -z "$missing" ] || fail "$(basename "$b"): $missing"
done

# ---- run it from the scratch roots ----------------------------------------------------------
# Only the system's libraries and the installed tree: no LD_LIBRARY_PATH, no sample override.
mkdir -m 700 "$SCRATCH/runtime" # Qt wants a private XDG_RUNTIME_DIR; CI may have none
clean_env=(env -u LD_LIBRARY_PATH -u GSR_SAMPLE -u QT_PLUGIN_PATH -u QT_QPA_PLATFORM_PLUGIN_PATH
           XDG_RUNTIME_DIR="$SCRATCH/runtime")
run_from() { # PREFIX: the folder holding bin/ and share/
  local prefix=$1
  local v
  v=$("${clean_env[@]}" "$prefix/bin/gsr" --version) || fail "$prefix/bin/gsr --version"
  echo "  $v"
  echo "$v" | grep -q "$VERSION" || fail "gsr --version says '$v', expected $VERSION"
  local sample
  sample=$("${clean_env[@]}" "$prefix/bin/gsr" info --json --quiet |
           sed -n 's/^  "file": "\(.*\)",$/\1/p') || fail "gsr info on the installed sample"
  [ "$sample" = "$(cd "$prefix/share/gsr-studio/samples" && pwd -P)/alu8.v" ] ||
    fail "gsr loaded the sample '$sample', not the one installed under $prefix"
  if [ "$GUI" = 1 ]; then
    local line
    line=$("${clean_env[@]}" QT_QPA_PLATFORM=offscreen "$prefix/bin/gsr-studio" --smoke) ||
      fail "gsr-studio --smoke from $prefix"
    echo "  gsr-studio --smoke: $line"
  fi
}
say "running from the .deb unpacked into a scratch root (dpkg -x)"
run_from "$DEB_ROOT/usr"
say "running from the unpacked tarball"
run_from "$TGZ_PREFIX"
if [ "$GUI" = 1 ]; then
  # gsr-studio prints no path: give its installed sample different content and see it load.
  printf 'module pkgcheck (a, y);\n  input a;\n  output y;\n  assign y = a;\nendmodule\n' \
    >"$TGZ_PREFIX/share/gsr-studio/samples/alu8.v"
  line=$("${clean_env[@]}" QT_QPA_PLATFORM=offscreen "$TGZ_PREFIX/bin/gsr-studio" --smoke) ||
    fail "gsr-studio --smoke on the replaced sample"
  echo "$line" | grep -q 'top pkgcheck' ||
    fail "gsr-studio did not load the sample installed next to it: $line"
  say "gsr-studio loads the sample installed next to it"
  desktop-file-validate "$DEB_ROOT/usr/share/applications/$APP_ID.desktop" ||
    fail "desktop-file-validate on the installed desktop file"
fi

# ---- sizes ---------------------------------------------------------------------------------
say "packages:"
for p in "$DEB" "$TGZ"; do
  printf '  %-48s %9s bytes (%s)\n' "$(basename "$p")" "$(stat -c %s "$p")" \
         "$(du -h "$p" | cut -f1)"
done
printf '  %-48s %9s KiB\n' "installed size (.deb)" "$(dpkg-deb -f "$DEB" Installed-Size)"
say "all package checks passed"
