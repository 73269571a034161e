#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# bsplinestabilize beside Debian ffmpeg's vid.stab (vidstabdetect +
# vidstabtransform), in one run, on the same clips and thread count
# (docs/stabilization.md):
#   1. residual jitter: a 640x360 shaky clip of N frames made from a real
#      photograph with known camera maps (bench/stabilize-tool.c make), through
#      both; each output frame's correction is measured against its shaky
#      frame with the same robust fit for both (stabilize-tool measure);
#   2. speed: the same clip scaled to 1920x1080 (I420, lanczos), wall time of
#      bsplinestabilize (CPU engine) against vid.stab's two passes added;
#   3. camera paths (issue 25): clips with broadband (white-noise) shake of
#      6 px and 0.5 degree standard deviation, 480x270, 90 frames: a steady
#      pan, a pan that stops and starts, a tripod shot; each through
#      bsplinestabilize path=gaussian (smoothing 15 and 30), path=optimal
#      (one pass, 15 frames of look-ahead), optimal in two passes
#      (transforms-mode=write, then read: the whole clip solved at once), and
#      vid.stab's two passes (its default smoothing, 15, and 30; its
#      optalgo=gauss: Debian 12's vid.stab 1.1.0 runs its default
#      optalgo=opt as the Gaussian, its L1 path not being there, and the
#      two rows come out identical); all without zoom and without the
#      previous frame in the border (ours crop=fill, vid.stab crop=black
#      optzoom=0) so that only the path differs; residual jitter against
#      the intended motion and the deviation from the intended camera,
#      measured on the output frames (stabilize-tool measure);
#   4. the horizon: that pan with its roll drifting by 5 degrees (640x360,
#      90 frames), through bsplinestabilize without and with horizon-lock
#      and through vid.stab: how far the photo's horizon is from level in
#      the output frames;
#   5. rolling shutter (issue 41): the rolling-shutter clip of
#      tests/stabilize/rolling-clip.h (480x270, 30 frames, readout 0.5, a
#      pan under a continuous broadband shake), through bsplinestabilize
#      without and with rolling-shutter-readout=0.5 and through vid.stab
#      (which has no rolling-shutter correction): the wobble, the
#      frame-to-frame motion of the second band of rows from the top minus
#      the second from the bottom, measured on the output frames
#      (stabilize-tool wobble).
# Usage: bench/stabilize-vs-vidstab.sh [BUILD-DIR] [THREADS] [FRAMES] [MODE]
# (defaults build, 2, 300, all).  MODE: sines (sections 1 and 2, FRAMES
# frames), paths (section 3), paths-long (section 3, and the same three
# clips at 640x360, 300 frames), horizon (section 4), rolling (section 5),
# all (1 to 5).  With
# PATHS_DIR set, section 3 keeps each run's per-frame camera paths there
# (PATHS_DIR/CLIP-WxH-RUN.txt, stabilize-tool measure's PATHS.txt) for
# bench/plot-stabilize-paths.py.  Needs ffmpeg with vid.stab (Debian's has
# it).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
threads=${2:-2}
frames=${3:-300}
mode=${4:-all}
smoothing=30
case "$mode" in
  sines | paths | paths-long | horizon | rolling | all) ;;
  *) echo "unknown mode $mode (sines, paths, paths-long, horizon, rolling, all)"; exit 2 ;;
esac
work=$(mktemp -d /tmp/stabilize-bench-XXXXXX)
trap 'rm -rf "$work"' EXIT
export GST_PLUGIN_PATH=$PWD/$build/gst GST_REGISTRY=$work/registry.bin

[[ "$(ffmpeg -hide_banner -filters 2>/dev/null)" == *vidstabdetect* ]] || {
  echo "ffmpeg has no vid.stab filters"; exit 1; }
# the core as built (libbspline-1.0)
cc -O2 -std=gnu99 -Icore/include -Icore -Itests/core -Itests/stabilize \
  bench/stabilize-tool.c -L"$build/core" -lbspline-1.0 \
  -Wl,-rpath,"$(realpath "$build/core")" -lm \
  -o "$work/stabilize-tool"
photo=$build/tests/stabilize/face.ppm
[ -f "$photo" ] || /usr/bin/python3 tests/stabilize/make-photo.py "$photo"

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "ffmpeg: $(ffmpeg -version | head -1)"
echo "load: $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min averages, at the start)"
echo "command: bench/stabilize-vs-vidstab.sh $build $threads $frames $mode"

# seconds of wall time of a command
wall () {
  local t0 t1
  t0=$(date +%s.%N)
  "$@" >/dev/null 2>&1
  t1=$(date +%s.%N)
  echo "$t1 - $t0" | bc -l
}

sines_and_speed () {
echo "threads: $threads, frames: $frames, smoothing: $smoothing (both)"
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
}

# the figures of one `stabilize-tool measure` line as table columns
columns () {
  sed -E 's/^residual jitter ([0-9.]+) px RMS, ([0-9.]+) deg RMS; deviation ([0-9.]+) px RMS, ([0-9.]+) px max;.*; ([0-9]+) frames unmeasured.*/\1 \2 \3 \4 \5/'
}

# one row: clip, method, then the measured output; keeps the paths file
row () {
  local clip=$1 size=$2 name=$3 out=$4 w=${2%x*} h=${2#*x} paths=()
  [ -n "${PATHS_DIR:-}" ] && paths=("$PATHS_DIR/$clip-$size-$name.txt")
  printf "%-11s %-8s %-24s %9s %9s %9s %9s %6s\n" "$clip" "$size" "$name" \
    $("$work/stabilize-tool" measure "$w" "$h" "$work/p-maps.txt" \
      "$work/p-shaky.rgb" "$out" "${paths[@]}" | columns)
}

paths_section () {
  local w=$1 h=$2 n=$3 size=$1x$2 kind px py seed
  local parse=(filesrc location="$work/p-shaky.rgb" ! rawvideoparse format=rgb
    width="$w" height="$h" framerate=30/1)
  local ours=(crop=fill backend=cpu n-threads="$threads")
  local raw=(-f rawvideo -pix_fmt rgb24 -s "${w}x$h" -r 30
    -i "$work/p-shaky.rgb")
  echo
  echo "== camera paths, ${w}x$h, $n frames, broadband shake 6 px 0.5 deg (standard deviations), $threads threads"
  echo "clip make:  stabilize-tool make face.ppm $w $h $n SEED shaky.rgb maps.txt 1 PX PY KIND"
  echo "            (pan: seed 1, 0.8 0.25 broadband; stop-start: seed 2, 1.2 0.3 stop-start; tripod: seed 3, 0 0 tripod)"
  echo "ours:       gst-launch-1.0 filesrc ! rawvideoparse format=rgb ! bsplinestabilize ${ours[*]} PROPS ! filesink"
  echo "            gauss-15: path=gaussian; gauss-30: path=gaussian smoothing=30; optimal: (defaults: path=optimal smoothing=15);"
  echo "            optimal-2pass: transforms-mode=write transforms-location=T ! fakesink, then transforms-mode=read transforms-location=T"
  echo "vid.stab:   ffmpeg -vf format=yuv420p,vidstabdetect=shakiness=10:accuracy=15:result=T, then"
  echo "            -vf format=yuv420p,vidstabtransform=input=T:OPTS:crop=black:optzoom=0:interpol=bicubic,format=rgb24"
  echo "            vidstab-15: OPTS empty (defaults: optalgo=opt smoothing=15); vidstab-30: smoothing=30; vidstab-gauss-15: optalgo=gauss"
  echo "measure:    stabilize-tool measure $w $h maps.txt shaky.rgb OUT.rgb (jitter: RMS of the output's frame-to-frame motion"
  echo "            less the intended; deviation: RMS and max distance of the output framing from the intended camera, mean offset removed)"
  printf "%-11s %-8s %-24s %9s %9s %9s %9s %6s\n" clip size method "jitter-px" \
    "jitter-deg" "dev-px" "devmax-px" unmeas
  for kind in broadband stop-start tripod; do
    case $kind in
      broadband) seed=1 px=0.8 py=0.25 clip=pan ;;
      stop-start) seed=2 px=1.2 py=0.3 clip=stop-start ;;
      tripod) seed=3 px=0 py=0 clip=tripod ;;
    esac
    "$work/stabilize-tool" make "$photo" "$w" "$h" "$n" "$seed" \
      "$work/p-shaky.rgb" "$work/p-maps.txt" 1 "$px" "$py" "$kind"
    row "$clip" "$size" shaky "$work/p-shaky.rgb"
    gst-launch-1.0 -q "${parse[@]}" ! bsplinestabilize path=gaussian \
      "${ours[@]}" ! filesink location="$work/p-out.rgb"
    row "$clip" "$size" gauss-15 "$work/p-out.rgb"
    gst-launch-1.0 -q "${parse[@]}" ! bsplinestabilize path=gaussian \
      smoothing=30 "${ours[@]}" ! filesink location="$work/p-out.rgb"
    row "$clip" "$size" gauss-30 "$work/p-out.rgb"
    gst-launch-1.0 -q "${parse[@]}" ! bsplinestabilize "${ours[@]}" ! \
      filesink location="$work/p-out.rgb"
    row "$clip" "$size" optimal "$work/p-out.rgb"
    rm -f "$work/p-t.txt"
    gst-launch-1.0 -q "${parse[@]}" ! bsplinestabilize transforms-mode=write \
      transforms-location="$work/p-t.txt" "${ours[@]}" ! fakesink
    gst-launch-1.0 -q "${parse[@]}" ! bsplinestabilize transforms-mode=read \
      transforms-location="$work/p-t.txt" "${ours[@]}" ! \
      filesink location="$work/p-out.rgb"
    row "$clip" "$size" optimal-2pass "$work/p-out.rgb"
    ffmpeg -hide_banner -loglevel error -threads "$threads" "${raw[@]}" \
      -vf format=yuv420p,vidstabdetect=shakiness=10:accuracy=15:result="$work/p.trf" \
      -f null -
    for opts in vidstab-15: vidstab-30:smoothing=30: \
      vidstab-gauss-15:optalgo=gauss:; do
      ffmpeg -hide_banner -loglevel error -threads "$threads" "${raw[@]}" \
        -vf format=yuv420p,vidstabtransform=input="$work/p.trf":${opts#*:}crop=black:optzoom=0:interpol=bicubic,format=rgb24 \
        -f rawvideo -pix_fmt rgb24 -y "$work/p-out.rgb"
      row "$clip" "$size" "${opts%%:*}" "$work/p-out.rgb"
    done
  done
}

# 4. the horizon: the broadband-shake pan with its roll drifting by 5
# degrees, through bsplinestabilize without and with horizon-lock
# (horizon-angle the first frame's true roll, from the maps file: the photo
# level) and through vid.stab (no horizon lock); how far the photo's
# horizon is from level in each output frame, measured on the frames.
horizon_section () {
  local w=640 h=360 n=90 roll0
  local parse=(filesrc location="$work/p-shaky.rgb" ! rawvideoparse format=rgb
    width="$w" height="$h" framerate=30/1)
  local ours=(crop=fill backend=cpu n-threads="$threads")
  local raw=(-f rawvideo -pix_fmt rgb24 -s "${w}x$h" -r 30
    -i "$work/p-shaky.rgb")
  echo
  echo "== horizon, ${w}x$h, $n frames, broadband shake 6 px 0.5 deg and 5 degrees of roll drift, $threads threads"
  echo "clip make:  stabilize-tool make face.ppm $w $h $n 4 shaky.rgb maps.txt 1 0.8 0.25 roll-drift"
  "$work/stabilize-tool" make "$photo" "$w" "$h" "$n" 4 "$work/p-shaky.rgb" \
    "$work/p-maps.txt" 1 0.8 0.25 roll-drift
  # the roll of G_0 (degrees clockwise), as bspline_affine_decompose
  roll0=$(awk 'NR == 2 { printf "%.12f", atan2($4 - $2, $1 + $5) * 45 / atan2(1, 1) }' \
    "$work/p-maps.txt")
  echo "first frame's roll: $roll0 deg"
  measure () {
    printf "%-26s " "$1"
    "$work/stabilize-tool" measure "$w" "$h" "$work/p-maps.txt" \
      "$work/p-shaky.rgb" "$2" | sed -E 's/; mean motion.*unmeasured; fit residual [0-9.]+ grey levels//'
  }
  measure shaky "$work/p-shaky.rgb"
  gst-launch-1.0 -q "${parse[@]}" ! bsplinestabilize "${ours[@]}" ! \
    filesink location="$work/p-out.rgb"
  measure optimal "$work/p-out.rgb"
  gst-launch-1.0 -q "${parse[@]}" ! bsplinestabilize horizon-lock=true \
    horizon-angle="$roll0" "${ours[@]}" ! filesink location="$work/p-out.rgb"
  measure optimal-horizon-lock "$work/p-out.rgb"
  gst-launch-1.0 -q "${parse[@]}" ! bsplinestabilize path=gaussian \
    horizon-lock=true horizon-angle="$roll0" "${ours[@]}" ! \
    filesink location="$work/p-out.rgb"
  measure gauss-15-horizon-lock "$work/p-out.rgb"
  ffmpeg -hide_banner -loglevel error -threads "$threads" "${raw[@]}" \
    -vf format=yuv420p,vidstabdetect=shakiness=10:accuracy=15:result="$work/p.trf" \
    -f null -
  ffmpeg -hide_banner -loglevel error -threads "$threads" "${raw[@]}" \
    -vf format=yuv420p,vidstabtransform=input="$work/p.trf":crop=black:optzoom=0:interpol=bicubic,format=rgb24 \
    -f rawvideo -pix_fmt rgb24 -y "$work/p-out.rgb"
  measure vidstab-15 "$work/p-out.rgb"
}

# 5. rolling shutter: the rolling-shutter clip through bsplinestabilize
# (crop=fill) without and with rolling-shutter-readout=0.5 and through
# vid.stab (crop=black optzoom=0); the wobble measured on the frames.
rolling_section () {
  local w=480 h=270 seed=${ROLLING_SEED:-1}
  local parse=(filesrc location="$work/r-clip.rgb" ! rawvideoparse format=rgb
    width="$w" height="$h" framerate=30/1)
  local ours=(crop=fill backend=cpu n-threads="$threads")
  local raw=(-f rawvideo -pix_fmt rgb24 -s "${w}x$h" -r 30
    -i "$work/r-clip.rgb")
  echo
  echo "== rolling shutter, ${w}x$h, 30 frames, readout 0.5, continuous broadband shake 5 px, seed $seed, $threads threads"
  "$work/stabilize-tool" rolling "$photo" "$seed" "$work/r-clip.rgb"
  printf "%-34s " input
  "$work/stabilize-tool" wobble "$work/r-clip.rgb"
  gst-launch-1.0 -q "${parse[@]}" ! bsplinestabilize "${ours[@]}" ! \
    filesink location="$work/r-out.rgb"
  printf "%-34s " optimal
  "$work/stabilize-tool" wobble "$work/r-out.rgb"
  gst-launch-1.0 -q "${parse[@]}" ! bsplinestabilize \
    rolling-shutter-readout=0.5 "${ours[@]}" ! \
    filesink location="$work/r-out.rgb"
  printf "%-34s " optimal-rolling-shutter-readout-0.5
  "$work/stabilize-tool" wobble "$work/r-out.rgb"
  ffmpeg -hide_banner -loglevel error -threads "$threads" "${raw[@]}" \
    -vf format=yuv420p,vidstabdetect=shakiness=10:accuracy=15:result="$work/r.trf" \
    -f null -
  ffmpeg -hide_banner -loglevel error -threads "$threads" "${raw[@]}" \
    -vf format=yuv420p,vidstabtransform=input="$work/r.trf":crop=black:optzoom=0:interpol=bicubic,format=rgb24 \
    -f rawvideo -pix_fmt rgb24 -y "$work/r-out.rgb"
  printf "%-34s " vidstab-15
  "$work/stabilize-tool" wobble "$work/r-out.rgb"
}

[ -n "${PATHS_DIR:-}" ] && mkdir -p "$PATHS_DIR"
case "$mode" in
  sines) sines_and_speed ;;
  paths) paths_section 480 270 90 ;;
  paths-long) paths_section 480 270 90; paths_section 640 360 300 ;;
  horizon) horizon_section ;;
  rolling) rolling_section ;;
  all) sines_and_speed; paths_section 480 270 90; horizon_section; rolling_section ;;
esac
echo
echo "load: $(cut -d' ' -f1-3 /proc/loadavg) (at the end)"
