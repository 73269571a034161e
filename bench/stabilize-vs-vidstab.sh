#!/usr/bin/env bash
# bsplinestabilize beside Debian ffmpeg's vid.stab (vidstabdetect +
# vidstabtransform), in one run, on the same clips and thread count
# (docs/stabilization.md):
#   1. residual jitter: a 640x360 shaky clip of N frames made from a real
#      photograph with known camera maps (bench/stabilize-tool.c make), through
#      both; each output frame's correction is measured against its shaky
#      frame with the same robust fit for both (stabilize-tool measure);
#   2. speed: the same clip scaled to 1920x1080 (I420, lanczos), wall time of
#      bsplinestabilize (CPU engine) against vid.stab's two passes added.
# Usage: bench/stabilize-vs-vidstab.sh [BUILD-DIR] [THREADS] [FRAMES]
# (defaults build, 2, 300).  Needs ffmpeg with vid.stab (Debian's has it).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
threads=${2:-2}
frames=${3:-300}
smoothing=30
work=$(mktemp -d /tmp/stabilize-bench-XXXXXX)
trap 'rm -rf "$work"' EXIT
export GST_PLUGIN_PATH=$PWD/$build/gst GST_REGISTRY=$work/registry.bin

[[ "$(ffmpeg -hide_banner -filters 2>/dev/null)" == *vidstabdetect* ]] || {
  echo "ffmpeg has no vid.stab filters"; exit 1; }
cc -O2 -std=gnu99 -Icore -Itests/core -Itests/stabilize \
  bench/stabilize-tool.c "$build/core/libbspline-core.a" -lm -lpthread \
  -o "$work/stabilize-tool"
photo=$build/tests/stabilize/face.ppm
[ -f "$photo" ] || /usr/bin/python3 tests/stabilize/make-photo.py "$photo"

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "ffmpeg: $(ffmpeg -version | head -1)"
echo "threads: $threads, frames: $frames, smoothing: $smoothing (both)"

# seconds of wall time of a command
wall () {
  local t0 t1
  t0=$(date +%s.%N)
  "$@" >/dev/null 2>&1
  t1=$(date +%s.%N)
  echo "$t1 - $t0" | bc -l
}

"$work/stabilize-tool" make "$photo" 640 360 "$frames" 1 "$work/shaky.rgb" \
  "$work/maps.txt"
raw360=(-f rawvideo -pix_fmt rgb24 -s 640x360 -r 30 -i "$work/shaky.rgb")

echo "== residual jitter, 640x360"
echo -n "shaky clip:        "
"$work/stabilize-tool" measure 640 360 "$work/maps.txt" "$work/shaky.rgb" \
  "$work/shaky.rgb" | sed 's/;.*//'
gst-launch-1.0 -q filesrc location="$work/shaky.rgb" ! \
  rawvideoparse format=rgb width=640 height=360 framerate=30/1 ! \
  bsplinestabilize smoothing=$smoothing crop=fill backend=cpu \
    n-threads="$threads" ! \
  filesink location="$work/ours.rgb"
echo -n "bsplinestabilize:  "
"$work/stabilize-tool" measure 640 360 "$work/maps.txt" "$work/shaky.rgb" \
  "$work/ours.rgb"
ffmpeg -hide_banner -loglevel error -threads "$threads" "${raw360[@]}" \
  -vf format=yuv420p,vidstabdetect=shakiness=10:accuracy=15:result="$work/t.trf" -f null -
ffmpeg -hide_banner -loglevel error -threads "$threads" "${raw360[@]}" \
  -vf format=yuv420p,vidstabtransform=input="$work/t.trf":smoothing=$smoothing:crop=black:optzoom=0:interpol=bicubic,format=rgb24 \
  -f rawvideo -pix_fmt rgb24 -y "$work/vidstab.rgb"
echo -n "vid.stab:          "
"$work/stabilize-tool" measure 640 360 "$work/maps.txt" "$work/shaky.rgb" \
  "$work/vidstab.rgb"

echo "== speed, 1920x1080 I420, $threads threads"
ffmpeg -hide_banner -loglevel error "${raw360[@]}" \
  -vf scale=1920:1080:flags=lanczos -pix_fmt yuv420p -f rawvideo \
  -y "$work/big.yuv"
cat "$work/big.yuv" > /dev/null
raw1080=(-f rawvideo -pix_fmt yuv420p -s 1920x1080 -r 30 -i "$work/big.yuv")
t_ours=$(wall gst-launch-1.0 -q filesrc location="$work/big.yuv" ! \
  rawvideoparse format=i420 width=1920 height=1080 framerate=30/1 ! \
  bsplinestabilize smoothing=$smoothing crop=fill backend=cpu \
    n-threads="$threads" ! fakesink)
t_read=$(wall gst-launch-1.0 -q filesrc location="$work/big.yuv" ! \
  rawvideoparse format=i420 width=1920 height=1080 framerate=30/1 ! fakesink)
t_detect=$(wall ffmpeg -hide_banner -threads "$threads" \
  -filter_threads "$threads" "${raw1080[@]}" \
  -vf vidstabdetect=shakiness=10:accuracy=15:result="$work/t2.trf" -f null -)
t_transform=$(wall ffmpeg -hide_banner -threads "$threads" \
  -filter_threads "$threads" "${raw1080[@]}" \
  -vf vidstabtransform=input="$work/t2.trf":smoothing=$smoothing:crop=black:optzoom=0:interpol=bicubic \
  -f null -)
t_null=$(wall ffmpeg -hide_banner -threads "$threads" "${raw1080[@]}" -f null -)
printf "bsplinestabilize:  %.2f s, %.1f frames/s (reading the file alone %.2f s)\n" \
  "$t_ours" "$(echo "$frames / $t_ours" | bc -l)" "$t_read"
printf "vid.stab:          %.2f s (detect %.2f s + transform %.2f s), %.1f frames/s (ffmpeg reading alone %.2f s)\n" \
  "$(echo "$t_detect + $t_transform" | bc -l)" "$t_detect" "$t_transform" \
  "$(echo "$frames / ($t_detect + $t_transform)" | bc -l)" "$t_null"
