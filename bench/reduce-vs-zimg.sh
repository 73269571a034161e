#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# reduce-vs-zimg.sh: 4K -> 1080p RGBA on the CPU (issue 21), the core's
# CPU engine (bench-reduce) beside zimg's spline36 through ffmpeg's zscale
# on the same threads, in one run, and the elements (bench-warp:
# bsplinewarp beside videoscale) for context.
#
#   bench/reduce-vs-zimg.sh [BUILD_DIR] [ROUNDS] > bench/results/MACHINE-DATE-bench-reduce.txt
#
# BUILD_DIR (default build-gst) holds bench/bench-reduce, and, where the
# GStreamer plugin was built, bench/bench-warp and gst/libgstbspline.so.
# Each round runs, for T = 1 and 2 threads (pinned with taskset to the
# first T cores): zscale, bench-reduce --stages, zscale again, then
# bench-warp.  Environment: THREADS (default "1 2"), REPEAT (bench-reduce's
# repetitions, default 15), FRAMES (zscale's frames per run, default 60),
# ZSCALE_RUNS (zscale's runs per line, default 3),
# WARP_FRAMES (bench-warp's, default 20), MACHINE (the machine's name for
# the record, default the CPU model), PHOTO (a picture that ffmpeg
# upscales to 4K and adds grain to; default skimage's coffee.png where
# Debian's python3-skimage has it, else bench-reduce's synthetic frame).
#
# The anchor: ffmpeg reads ONE raw gbrap frame (planar 8-bit R, G, B, A:
# zimg takes no packed RGBA, and ffmpeg would put a swscale conversion in
# front of it) from /dev/shm, the loop filter feeds that frame FRAMES
# times (references to the same buffer: no reading, no copy), zscale
# scales each to 1920x1080 with filter=spline36 into its own output
# buffers, and -f null drops them (wrapped_avframe: no copy).  -benchmark
# gives the wall (rtime) and CPU (utime + stime) time of the run; the same
# command without zscale (loop alone) is run beside it and subtracted, so
# that what is left is zscale's time, divided by FRAMES.  Threads:
# -filter_threads T is the filter graph's slice-thread pool (zscale is
# slice-threaded; the calling thread is one of the T), -threads 1 the
# rawvideo decoder's (it has none), and taskset keeps the whole process on
# T cores, as bench-reduce's pool of T threads is.
set -eu

BUILD=${1:-build-gst}
ROUNDS=${2:-3}
THREADS=${THREADS:-"1 2"}
REPEAT=${REPEAT:-15}
FRAMES=${FRAMES:-60}
ZSCALE_RUNS=${ZSCALE_RUNS:-3}
WARP_FRAMES=${WARP_FRAMES:-20}
COFFEE=/usr/lib/python3/dist-packages/skimage/data/coffee.png
if [ -z "${PHOTO+x}" ] && [ -f "$COFFEE" ]; then
  PHOTO=$COFFEE
fi
PHOTO=${PHOTO:-}
W=3840 H=2160 OW=1920 OH=1080

REDUCE=$BUILD/bench/bench-reduce
WARP=$BUILD/bench/bench-warp
[ -x "$REDUCE" ] || { echo "no $REDUCE: ninja -C $BUILD" >&2; exit 1; }
command -v ffmpeg > /dev/null || { echo "no ffmpeg" >&2; exit 1; }

DIR=$(mktemp -d /dev/shm/bench-reduce.XXXXXX)
trap 'rm -rf "$DIR"' EXIT INT TERM

# the frame: the photo upscaled (lanczos) with grain, or the synthetic one
if [ -n "$PHOTO" ]; then
  ffmpeg -nostdin -hide_banner -loglevel error -i "$PHOTO" \
    -vf "scale=$W:$H:flags=lanczos,noise=alls=6:allf=t" -frames:v 1 \
    -pix_fmt rgba -f rawvideo "$DIR/frame.rgba"
  SOURCE="$(basename "$PHOTO") upscaled to ${W}x$H (lanczos) with grain (ffmpeg noise=alls=6)"
else
  "$REDUCE" --in ${W}x$H --dump "$DIR/frame.rgba"
  SOURCE="bench-reduce's synthetic frame"
fi
ffmpeg -nostdin -hide_banner -loglevel error -f rawvideo -pix_fmt rgba \
  -s ${W}x$H -i "$DIR/frame.rgba" -pix_fmt gbrap -f rawvideo "$DIR/frame.gbrap"

cores () { echo "0-$(($1 - 1))"; }

# seconds (wall, cpu) of one ffmpeg run over the frame: $1 threads, $2 the
# filters after the loop
ffmpeg_run () {
  taskset -c "$(cores "$1")" ffmpeg -nostdin -hide_banner -benchmark \
    -threads 1 -filter_threads "$1" -f rawvideo -pix_fmt gbrap \
    -s ${W}x$H -i "$DIR/frame.gbrap" \
    -vf "loop=loop=$((FRAMES - 1)):size=1:start=0$2" -f null - 2>&1 |
    sed -n 's/^bench: utime=\([0-9.]*\)s stime=\([0-9.]*\)s rtime=\([0-9.]*\)s$/\3 \1 \2/p'
}

# one line of zscale's time per frame, less the loop alone: of ZSCALE_RUNS
# runs, the median and the shortest wall time per frame (a run's mean) and
# the median CPU time per frame
zscale_line () {
  base=$(ffmpeg_run "$1" "")
  k=0
  while [ "$k" -lt "$ZSCALE_RUNS" ]; do
    echo "$base $(ffmpeg_run "$1" ",zscale=w=$OW:h=$OH:filter=spline36")"
    k=$((k + 1))
  done | awk -v t="$1" -v n="$FRAMES" '
    function median(a, m,   i, j, x) {
      for (i = 2; i <= m; i++)
        for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
          x = a[j]; a[j] = a[j - 1]; a[j - 1] = x }
      return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2 }
    { m++; wall[m] = ($4 - $1) * 1000 / n; cpu[m] = (($5 + $6) - ($2 + $3)) * 1000 / n }
    END {
      best = wall[1]; for (i = 2; i <= m; i++) if (wall[i] < best) best = wall[i]
      w = median(wall, m); c = median(cpu, m)
      printf "%-44s threads %d  median %8.2f ms/frame  best %8.2f  cpu %8.2f\n",
        "anchor zimg spline36 (ffmpeg zscale)", t, w, best, c }'
}

ZIMG=$(dpkg-query -W -f '${Version}' libzimg2 2>/dev/null || echo unknown)
FFMPEG=$(ffmpeg -version | sed -n '1s/^ffmpeg version \([^ ]*\).*/\1/p')
echo "# command: bench/reduce-vs-zimg.sh $BUILD $ROUNDS (THREADS=\"$THREADS\" REPEAT=$REPEAT FRAMES=$FRAMES ZSCALE_RUNS=$ZSCALE_RUNS WARP_FRAMES=$WARP_FRAMES)"
echo "# date: $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "# machine: ${MACHINE:-$(nproc) cores of $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1)}, Linux $(uname -r)"
echo "# load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# source: $SOURCE"
# the sources the build was configured from (its core is as new as its
# last ninja run)
SRC=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["directories"]["source"])' "$BUILD/meson-info/meson-info.json" 2>/dev/null || dirname "$0")
echo "# tree: $SRC, commit $(git -C "$SRC" rev-parse --short HEAD 2>/dev/null || echo unknown), core/*.[ch] sha1 $(cat "$SRC"/core/*.c "$SRC"/core/*.h | sha1sum | cut -c1-12)"

round=1
while [ "$round" -le "$ROUNDS" ]; do
  echo "# round $round"
  for t in $THREADS; do
    echo "zscale gbrap ${W}x$H -> ${OW}x$OH, ffmpeg $FFMPEG, zimg $ZIMG, $ZSCALE_RUNS runs of one frame looped $FRAMES times, less the loop alone"
    zscale_line "$t"
    taskset -c "$(cores "$t")" "$REDUCE" --in ${W}x$H --out ${OW}x$OH \
      --threads "$t" --repeat "$REPEAT" --input "$DIR/frame.rgba" --stages
    echo "zscale gbrap ${W}x$H -> ${OW}x$OH, ffmpeg $FFMPEG, zimg $ZIMG, $ZSCALE_RUNS runs of one frame looped $FRAMES times, less the loop alone"
    zscale_line "$t"
    if [ -x "$WARP" ] && [ -f "$BUILD/gst/libgstbspline.so" ]; then
      GST_PLUGIN_PATH=$BUILD/gst taskset -c "$(cores "$t")" "$WARP" \
        --format RGBA --in ${W}x$H --out ${OW}x$OH --threads "$t" \
        --frames "$WARP_FRAMES" \
        --element "bsplinewarp n-threads=$t" \
        --element "bsplinewarp antialias=none n-threads=$t" \
        --element "videoscale method=lanczos n-threads=$t" \
        --element "videoscale method=4-tap n-threads=$t"
    fi
  done
  round=$((round + 1))
done
echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
