#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# test-install.sh BUILD_DIR SOURCE_DIR [MESON]: what `meson install` gives
# an application (suite 'install').
#
#  1. installs the build into a temporary DESTDIR (--no-rebuild: meson
#     test has built it) and checks that the libraries, headers, .pc files
#     and the plugin are there, and that no installed binary still points
#     into the build tree;
#  2. rewrites the prefix of the two installed .pc files to that DESTDIR
#     (a copy; nothing else is changed), so that pkg-config, the linker,
#     the loader (LD_LIBRARY_PATH) and GStreamer (GST_PLUGIN_PATH, a
#     registry of its own) see the installed files only;
#  3. compiles every installed header alone, with only its package's
#     pkg-config flags;
#  4. builds examples/ with its Makefile (cc + pkg-config, nothing of the
#     build tree) and runs core-resample (the GStreamer-free core:
#     bspline-1.0.pc alone) and chain-player, on videotestsrc and on a clip
#     it makes with jpegenc and avimux: exit status 0, one
#     `bsplinestabilize` message and one wobble stage per frame.
#
# Skips (77) only where pkg-config itself is missing.
set -euo pipefail

build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
meson=${3:-meson}

if ! command -v pkg-config >/dev/null 2>&1; then
  echo "SKIP: pkg-config is not installed (Debian: apt-get install pkg-config)"
  exit 77
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/bspline-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
root=$tmp/root

fail () {
  echo "FAIL: $*" >&2
  exit 1
}

run () {
  echo "+ $*"
  "$@"
}

# 1. install
run "$meson" install -C "$build" --no-rebuild --quiet --destdir "$root"

pc_core=$(find "$root" -name bspline-1.0.pc -print -quit)
pc_gst=$(find "$root" -name gstreamer-bspline-1.0.pc -print -quit)
[ -n "$pc_core" ] || fail "no bspline-1.0.pc installed"
[ -n "$pc_gst" ] || fail "no gstreamer-bspline-1.0.pc installed"

# 2. the .pc files, relocated into the DESTDIR
prefix=$(sed -n 's/^prefix=//p' "$pc_core")
mkdir -p "$tmp/pkgconfig"
for pc in "$pc_core" "$pc_gst"; do
  sed "s|^prefix=.*|prefix=$root$prefix|" "$pc" \
    > "$tmp/pkgconfig/$(basename "$pc")"
done
export PKG_CONFIG_PATH=$tmp/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
libdir=$(pkg-config --variable=libdir bspline-1.0)
includedir=$(pkg-config --variable=includedir bspline-1.0)
plugindir=$libdir/gstreamer-1.0
echo "installed: prefix $prefix, libdir $libdir"

for f in "$libdir/libbspline-1.0.so.0" "$libdir/libbspline-1.0.so" \
    "$libdir/libgstbspline-1.0.so.0" "$libdir/libgstbspline-1.0.so" \
    "$plugindir/libgstbspline.so" \
    "$includedir/bspline-1.0/bspline.h" \
    "$includedir/bspline-1.0/bspline-chain.h" \
    "$includedir/gstreamer-1.0/gst/bspline/bspline-chain-meta.h"; do
  [ -e "$f" ] || fail "not installed: ${f#"$root"}"
done
for f in "$libdir/libbspline-1.0.so.0" "$libdir/libgstbspline-1.0.so.0" \
    "$plugindir/libgstbspline.so"; do
  if readelf -d "$f" | grep -E 'RPATH|RUNPATH' | grep -qF "$build"; then
    fail "${f#"$root"} still has the build tree in its run path"
  fi
done

export LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export GST_PLUGIN_PATH=$plugindir
unset GST_PLUGIN_PATH_1_0
export GST_REGISTRY=$tmp/registry.bin
export GST_REGISTRY_1_0=$tmp/registry.bin

ldd "$plugindir/libgstbspline.so" > "$tmp/ldd.txt"
for lib in libbspline-1.0.so.0 libgstbspline-1.0.so.0; do
  grep -F "$lib => $libdir/$lib" "$tmp/ldd.txt" >/dev/null \
    || { cat "$tmp/ldd.txt"; fail "the installed plugin does not load $lib"; }
done

# 3. each installed header on its own
cc=${CC:-cc}
for h in "$includedir"/bspline-1.0/*.h; do
  echo "#include <$(basename "$h")>" > "$tmp/header.c"
  # shellcheck disable=SC2046
  $cc -std=c99 -Wall -Werror -fsyntax-only $(pkg-config --cflags bspline-1.0) \
    "$tmp/header.c" || fail "${h#"$root"} does not compile alone"
done
echo "#include <gst/bspline/bspline-chain-meta.h>" > "$tmp/header.c"
# shellcheck disable=SC2046
$cc -Wall -Werror -fsyntax-only $(pkg-config --cflags gstreamer-bspline-1.0) \
  "$tmp/header.c" || fail "bspline-chain-meta.h does not compile alone"
n_headers=$(find "$includedir/bspline-1.0" -name '*.h' | wc -l)
echo "headers: $n_headers of bspline-1.0 and bspline-chain-meta.h compile alone"

# 4. the examples, with pkg-config only
mkdir -p "$tmp/examples"
run make -s -C "$tmp/examples" -f "$src/examples/Makefile" \
  srcdir="$src/examples" CFLAGS="-O2 -g -Wall -Wextra -Werror"

run "$tmp/examples/core-resample" | tee "$tmp/core.txt"
grep -q '^core-resample: identity exact' "$tmp/core.txt" \
  || fail "core-resample printed no result"

gst-inspect-1.0 bsplinewarp > "$tmp/inspect.txt" \
  || fail "gst-inspect-1.0 does not find the installed bsplinewarp"
grep -F "$plugindir/libgstbspline.so" "$tmp/inspect.txt" >/dev/null \
  || { grep -i filename "$tmp/inspect.txt"
       fail "bsplinewarp is not loaded from the installed plugin"; }

# play_and_check FRAMES ARGS...: chain-player with ARGS must exit 0 after
# one stabilizer message and one wobble per frame
play_and_check () {
  local frames=$1
  shift
  local status=0
  echo "+ chain-player $*"
  "$tmp/examples/chain-player" "$@" > "$tmp/player.txt" 2> "$tmp/player.err" \
    || status=$?
  cat "$tmp/player.err" >&2
  grep -m 3 '^bsplinestabilize: frame' "$tmp/player.txt" || true
  tail -n 1 "$tmp/player.txt"
  [ "$status" -eq 0 ] || fail "chain-player $* exited with status $status"
  # the stabilizer deferred its corrections (it warns where it cannot)
  ! grep -q "resamples:" "$tmp/player.err" \
    || fail "chain-player $*: an element did not defer"
  local messages
  messages=$(grep -c '^bsplinestabilize: frame' "$tmp/player.txt" || true)
  [ "$messages" -eq "$frames" ] \
    || fail "chain-player $*: $messages stabilizer messages for $frames frames"
  local summary="$frames frames wobbled, $frames stabilizer messages, exit 0"
  grep -q "^chain-player: $summary" "$tmp/player.txt" \
    || fail "chain-player $*: not every frame was wobbled"
}

play_and_check 30 --frames 30 --sink fakesink

run gst-launch-1.0 -q videotestsrc pattern=ball num-buffers=20 \
  ! video/x-raw,width=192,height=144,framerate=24/1 ! jpegenc ! avimux \
  ! filesink location="$tmp/clip.avi"
play_and_check 20 --sink fakesink "$tmp/clip.avi"

echo "install: OK"
