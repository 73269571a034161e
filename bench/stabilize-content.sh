#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# bsplinestabilize's speed on every kind of content against a textured
# shaky clip of the same size, in the same run (issue 25: no content more
# than 1.5x slower per frame than the textured clip).
#
# Clips, all W x H I420, FRAMES frames:
#   textured  a shaky pan over a real photograph (bench/stabilize-tool.c
#             make; the photo magnified when the frame is larger than it)
#   still     the textured clip's first frame, repeated
#   black     videotestsrc pattern=black
#   noise     independent random bytes in every frame
#   ball      videotestsrc pattern=ball (one object moving on black)
#   snow      videotestsrc pattern=snow
#   smpte     videotestsrc pattern=smpte (still bars, a patch of noise)
# For each: the wall time per frame of
#   filesrc ! rawvideoparse ! bsplinestabilize backend=cpu crop=fill ! fakesink
# (median of 3 runs, the clip read once first so that it is in the page
# cache), its ratio to the textured clip's, and the motion estimation alone
# (stabilize-tool analyse: ms per frame, frames reliable, Gauss-Newton steps
# per frame).  With a CUDA build and a GPU, the same with backend=cuda and
# the GPU motion alone.
#
# Usage: bench/stabilize-content.sh [BUILD-DIR] [W H FRAMES]
#   (defaults build, 640 360 150).  Needs gst-launch-1.0 and the plugin in
#   BUILD-DIR/gst; BUILD-DIR/tests/stabilize/face.ppm (made by the build).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
case $build in /*) ;; *) build=$PWD/$build ;; esac
w=${2:-640}
h=${3:-360}
frames=${4:-150}
threads=$(nproc)
work=$(mktemp -d /tmp/stabilize-content-XXXXXX)
trap 'rm -rf "$work"' EXIT
export GST_PLUGIN_PATH=$build/gst GST_REGISTRY=$work/registry.bin

photo=$build/tests/stabilize/face.ppm
[ -f "$photo" ] || /usr/bin/python3 tests/stabilize/make-photo.py "$photo"
# the tool: meson builds it with the CUDA engine; otherwise build it here
tool=$build/bench/stabilize-tool
if [ ! -x "$tool" ]; then
  tool=$work/stabilize-tool
  cc -O2 -std=gnu99 -Icore -Itests/core -Itests/stabilize \
    bench/stabilize-tool.c -L"$build/core" -lbspline-1.0 \
    -Wl,-rpath,"$(realpath "$build/core")" -lm \
    -o "$tool"
fi
gpu=0
# (the element's description read whole: grep -q would end the pipe early)
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1 \
    && [[ "$(gst-inspect-1.0 bsplinestabilize 2>/dev/null)" == *cuda* ]]; then
  gpu=1
fi

echo "machine: $threads cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
[ $gpu = 1 ] && echo "gpu: $(nvidia-smi -L | head -1)"
echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "command: bench/stabilize-content.sh ${1:-build} $w $h $frames"
echo "clips: ${w}x${h} I420, $frames frames; element: bsplinestabilize crop=fill, defaults otherwise"

size=$((w * h * 3 / 2))
# photo pixels per frame pixel: the clip stays inside the photo
scale=$(awk -v w="$w" -v h="$h" 'BEGIN { s = w / 640; if (h / 360 > s) s = h / 360; print (s > 1 ? s : 1) }')
"$tool" make "$photo" "$w" "$h" "$frames" 1 "$work/textured.yuv" \
  "$work/maps.txt" "$scale" >/dev/null
head -c "$size" "$work/textured.yuv" > "$work/frame.yuv"
for k in $(seq "$frames"); do cat "$work/frame.yuv"; done > "$work/still.yuv"
head -c $((size * frames)) /dev/urandom > "$work/noise.yuv"
for p in black ball snow smpte; do
  gst-launch-1.0 -q videotestsrc num-buffers="$frames" pattern=$p ! \
    video/x-raw,format=I420,width="$w",height="$h",framerate=30/1 ! \
    filesink location="$work/$p.yuv"
done
contents="textured still black noise ball snow smpte"

# milliseconds per frame of the element on a clip, median of 3 runs
element_ms () {
  local clip=$1 backend=$2 r t0 t1 times=()
  cat "$clip" > /dev/null
  for r in 1 2 3; do
    t0=$(date +%s.%N)
    gst-launch-1.0 -q filesrc location="$clip" ! \
      rawvideoparse format=i420 width="$w" height="$h" framerate=30/1 ! \
      bsplinestabilize backend="$backend" crop=fill ! fakesink
    t1=$(date +%s.%N)
    times+=("$(awk -v a="$t0" -v b="$t1" -v n="$frames" \
      'BEGIN { print (b - a) * 1000 / n }')")
  done
  printf '%s\n' "${times[@]}" | sort -g | sed -n 2p
}

table () {
  local backend=$1 c ms base="" ratio motion
  printf '%-9s %10s %7s   %s\n' content "ms/frame" "x text" \
    "motion alone (stabilize-tool analyse)"
  for c in $contents; do
    ms=$(element_ms "$work/$c.yuv" "$backend")
    [ -z "$base" ] && base=$ms
    ratio=$(awk -v a="$ms" -v b="$base" 'BEGIN { print a / b }')
    if [ "$backend" = cuda ]; then
      motion=$("$tool" analyse "$w" "$h" "$work/$c.yuv" "$threads" gpu \
        | sed -n 's/^motion of [0-9]* frames of [0-9x]* on the GPU: //p' \
        | sed 's/; GPU against CPU.*//')
    else
      motion=$("$tool" analyse "$w" "$h" "$work/$c.yuv" "$threads" \
        | sed 's/^motion of [0-9]* frames of [0-9x]*, //')
    fi
    printf '%-9s %10.3f %7.2f   %s\n' "$c" "$ms" "$ratio" "$motion"
  done
}

echo "== backend=cpu ($threads threads)"
table cpu
if [ $gpu = 1 ]; then
  echo "== backend=cuda"
  table cuda
fi
