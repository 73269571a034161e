#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# bench-formats.sh: bsplinewarp's time per input byte in every raw format it
# takes, beside RGBA's in the same run (issue 24: "No format slower per byte
# than RGBA's path by more than 1.5x on either engine").
#
#   bench/bench-formats.sh ENGINE [--mode scale|rotate] [--in WxH] [--out WxH]
#       [--threads N] [--frames N] [--pool] [--formats "F1 F2 ..."]
#       [--bench-warp PATH] [--plugin-dir DIR] [--kit DIR] [--timeout S]
#       [--limit X] > bench/results/formats/MACHINE-DATE-formats-ENGINE-MODE.md
#
# ENGINE is cpu ("bsplinewarp backend=cpu n-threads=N", N = --threads,
# default 2) or cuda ("bsplinewarp backend=cuda"; --pool gives bench-warp's
# inputs from the element's proposed pool, pinned memory).  --mode scale
# (default) is 1920x1080 -> 1280x720; --mode rotate adds rotation=10 at
# 1920x1080 -> 1920x1080; --in/--out override either geometry.
#
# Where things come from (arguments win over the environment):
#   --bench-warp PATH  or BENCH_WARP       the bench-warp program (bench/);
#                                          else bench-warp on PATH
#   --plugin-dir DIR   or GST_PLUGIN_PATH  the directory of libgstbspline.so
#   --kit DIR          or GST_KIT          a bundle of the
#       GStreamer runtime with BENCH_WARP (docs/gpu.md); its env.sh is sourced
#       first, so that a machine without GStreamer (the GPU machines) has
#       gst-inspect-1.0, gst-launch-1.0 and the libraries.  On such a machine:
#         bash bench/bench-formats.sh cuda --kit .gstkit \
#             --bench-warp .devbin/bench-warp --plugin-dir .devbin
#
# What it does:
# - the formats: those of the system-memory structure of bsplinewarp's sink
#   template (gst-inspect-1.0; GST_VIDEO_FORMATS_ALL, 111 in 1.22), unless
#   --formats names some; a note says where videoscale's list differs;
# - bench-warp once per format (--frames, default 30, after its 3 warm-up
#   frames; --timeout S per format, default 300), RGBA first and again last:
#   the anchor is the faster of the two RGBA runs (the stricter reading of
#   the target), and both are reported, their spread being the noise of the
#   run;
# - the input bytes per frame: the size of the buffer that videotestsrc
#   produces for the input caps, read from fakesink's -v "chain" line
#   (gst-launch-1.0 videotestsrc num-buffers=1 ! CAPS ! fakesink silent=false).
#   videotestsrc allocates GstVideoInfo's size for the caps; this needs no
#   compiler and no GStreamer headers, so it runs from the device kit.  On
#   the development machine the 111 sizes at 1920x1080 were checked equal to
#   gst_video_info_set_format ()'s info.size (2026-11-26);
# - per format: frames/s (whole run), median and best ms/frame (bench-warp),
#   ns per input byte = best ms * 1e6 / bytes, and its ratio to RGBA's;
#   beside it the ratio of the best ms/frame to RGBA's (the same pixels);
# - a markdown table on stdout, sorted by the ratio, slowest first, with the
#   machine, the date, the GStreamer version bench-warp ran with, the command
#   line and the load average after each format (a shared machine shows
#   itself there); a format over --limit (default 1.5) is flagged, formats that
#   did not run (failed, crashed, timed out) are listed with the command
#   that reproduces them; bench-warp's raw lines follow the table.
# Progress goes to stderr.  Exit status: 0 when every format ran, 1 when
# some did not (the table is still printed), 2 on a usage error.
set -euo pipefail

usage () {
  sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0" >&2
  exit 2
}

[ $# -ge 1 ] || usage
engine=$1; shift
case $engine in cpu|cuda) ;; *) usage ;; esac

mode=scale in_size= out_size= threads=2 frames=30 pool= formats=
timeout_s=300 limit=1.5
bench_warp=${BENCH_WARP:-} plugin_dir=${GST_PLUGIN_PATH:-} kit=${GST_KIT:-}
# Words quoted for a POSIX shell where they need it, for the record.
shell_words () {
  local word out=
  for word in "$@"; do
    case $word in
      *[!A-Za-z0-9_./=:,+@%-]*|'') word="'${word//\'/\'\\\'\'}'" ;;
    esac
    out="$out${out:+ }$word"
  done
  printf '%s' "$out"
}
command_line=$(shell_words bench/bench-formats.sh "$engine" "$@")
while [ $# -gt 0 ]; do
  case $1 in
    --pool) pool=--pool; shift; continue ;;
  esac
  [ $# -ge 2 ] || usage
  case $1 in
    --mode) mode=$2 ;;
    --in) in_size=$2 ;;
    --out) out_size=$2 ;;
    --threads) threads=$2 ;;
    --frames) frames=$2 ;;
    --formats) formats=$2 ;;
    --bench-warp) bench_warp=$2 ;;
    --plugin-dir) plugin_dir=$2 ;;
    --kit) kit=$2 ;;
    --timeout) timeout_s=$2 ;;
    --limit) limit=$2 ;;
    *) usage ;;
  esac
  shift 2
done

case $mode in
  scale) geometry= ; : "${in_size:=1920x1080}" "${out_size:=1280x720}" ;;
  rotate) geometry=" rotation=10" ; : "${in_size:=1920x1080}" "${out_size:=1920x1080}" ;;
  *) usage ;;
esac
if [ "$engine" = cpu ]; then
  element="bsplinewarp backend=cpu n-threads=$threads$geometry"
else
  element="bsplinewarp backend=cuda$geometry"
fi

if [ -n "$kit" ]; then
  # shellcheck disable=SC1091
  . "$kit/env.sh"
fi
if [ -n "$plugin_dir" ]; then
  export GST_PLUGIN_PATH=$plugin_dir
fi
[ -n "$bench_warp" ] || bench_warp=$(command -v bench-warp || true)
if [ -z "$bench_warp" ] || [ ! -x "$bench_warp" ]; then
  echo "bench-warp not found: pass --bench-warp PATH or set BENCH_WARP" >&2
  exit 2
fi
for tool in gst-inspect-1.0 gst-launch-1.0; do
  command -v $tool >/dev/null || {
    echo "$tool not found: install GStreamer's tools or pass --kit DIR" \
      "(a GStreamer bundle: docs/gpu.md)" >&2
    exit 2
  }
done
gst-inspect-1.0 bsplinewarp >/dev/null 2>&1 || {
  echo "bsplinewarp not found: pass --plugin-dir DIR (the directory of" \
    "libgstbspline.so) or set GST_PLUGIN_PATH" >&2
  exit 2
}
run_limited () {
  if command -v timeout >/dev/null; then
    timeout "$timeout_s" "$@"
  else
    "$@"
  fi
}

# The pipelines below read their input to the end (no exit, no head):
# under pipefail a writer killed by SIGPIPE would fail the script.

# The format list of the first structure without caps features (system
# memory) of an element's sink template.
template_formats () {
  gst-inspect-1.0 "$1" 2>/dev/null | awk '
    /SINK template/ { sink = 1; next }
    /SRC template/ { sink = 0 }
    sink && /^ *video\/x-raw$/ { raw = 1; next }
    sink && raw && /format:/ && !done { print; done = 1 }' |
    grep -o '(string)[A-Za-z0-9_]*' | sed 's/(string)//'
}

formats_note=
if [ -z "$formats" ]; then
  formats=$(template_formats bsplinewarp | tr '\n' ' ')
  scale_formats=$(template_formats videoscale | sort | tr '\n' ' ')
  ours=$(echo "$formats" | tr ' ' '\n' | sed '/^$/d' | sort | tr '\n' ' ')
  if [ -z "$scale_formats" ]; then
    formats_note="videoscale not found: its list was not compared"
  elif [ "$ours" != "$scale_formats" ]; then
    only_ours=$(comm -23 <(echo "$ours" | tr ' ' '\n' | sed '/^$/d') \
      <(echo "$scale_formats" | tr ' ' '\n' | sed '/^$/d') | tr '\n' ' ')
    only_scale=$(comm -13 <(echo "$ours" | tr ' ' '\n' | sed '/^$/d') \
      <(echo "$scale_formats" | tr ' ' '\n' | sed '/^$/d') | tr '\n' ' ')
    formats_note="differs from videoscale's: only bsplinewarp: ${only_ours:-none}; only videoscale: ${only_scale:-none}"
  else
    formats_note="the same as videoscale's"
  fi
fi
# RGBA is the anchor: it runs first and last, not in between.
formats=$(echo "$formats" | tr ' ' '\n' | sed '/^$/d;/^RGBA$/d' | tr '\n' ' ')
n_formats=$(echo "$formats" | wc -w)
[ "$n_formats" -gt 0 ] || { echo "no formats to run" >&2; exit 1; }

in_w=${in_size%x*} in_h=${in_size#*x}

# Bytes of one input frame in FORMAT, or nothing where videotestsrc cannot
# make it.
frame_bytes () {
  gst-launch-1.0 -v videotestsrc num-buffers=1 \
    ! "video/x-raw,format=$1,width=$in_w,height=$in_h,framerate=30/1,pixel-aspect-ratio=1/1" \
    ! fakesink silent=false 2>&1 |
    awk 'match($0, /\(fakesink[0-9]*:sink\) \([0-9]+ bytes/) && !n {
      n = substr($0, RSTART, RLENGTH); sub(/.*\(/, "", n); sub(/ .*/, "", n)
      print n }' 
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
raw=$work/raw rows=$work/rows failures=$work/failures
: > "$raw"; : > "$rows"; : > "$failures"
gst_version=

# Runs bench-warp for FORMAT; appends "LABEL fps median best bytes load" to
# rows (load: the 1-minute load average after the run, ours included),
# or a line to failures.
bench_format () {
  local format=$1 label=$2 out rc line fps median best bytes cmd
  cmd=("$bench_warp" --format "$format" --in "$in_size" --out "$out_size"
    --frames "$frames")
  [ -n "$pool" ] && cmd+=("$pool")
  cmd+=(--element "$element")
  echo "[$((++done_count))/$((n_formats + 2))] $label" >&2
  rc=0
  out=$(run_limited "${cmd[@]}" 2>&1) || rc=$?
  printf '%s\n' "$out" >> "$raw"
  [ -n "$gst_version" ] || gst_version=$(printf '%s\n' "$out" |
    sed -n 's/.*, GStreamer \([0-9.]*\)$/\1/p')
  line=$(printf '%s\n' "$out" | awk '/frames\/s/ && !n++')
  if [ "$rc" -ne 0 ] || [ -z "$line" ]; then
    local why
    if [ "$rc" -eq 124 ]; then why="timed out after ${timeout_s} s"
    elif [ "$rc" -gt 128 ]; then why="crashed (signal $((rc - 128)))"
    elif [[ $out == *"failed to run"* ]]; then
      why="failed to run (exit $rc)"
    else why="exit $rc, no result"
    fi
    printf '%s\t%s\t%s\n' "$label" "$why" \
      "GST_PLUGIN_PATH=${GST_PLUGIN_PATH:-} $(shell_words "${cmd[@]}")" >> "$failures"
    printf '%s\n' "$out" | grep -v 'frames after' | sed '/^ *$/d' | tail -n 3 \
      > "$failures.detail.$label" || true
    return
  fi
  fps=$(echo "$line" | sed 's/.* \([0-9.]*\) frames\/s.*/\1/')
  median=$(echo "$line" | sed 's/.*median *\([0-9.]*\) ms\/frame.*/\1/')
  best=$(echo "$line" | sed 's/.*best *\([0-9.]*\).*/\1/')
  bytes=$(frame_bytes "$format")
  [ -n "$bytes" ] || bytes=-
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$label" "$fps" "$median" "$best" "$bytes" \
    "$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo -)" >> "$rows"
}

date_start=$(date -u '+%Y-%m-%d %H:%M UTC')
load_start=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "?")
done_count=0
bench_format RGBA "RGBA (first)"
for format in $formats; do
  bench_format "$format" "$format"
done
bench_format RGBA "RGBA (last)"

# The anchor: the lower ns/byte of the two RGBA runs.
anchor=$(awk -F'\t' '$1 ~ /^RGBA / && $5 != "-" {
    v = $4 * 1e6 / $5; if (a == "" || v < a) a = v } END { print a }' "$rows")

# Beside it, the frame time of the faster RGBA run: per byte, a format
# with fewer bytes a pixel (4:2:0, 8-bit grey) must also take less time a
# frame than RGBA to pass; "x RGBA time" shows how far it is per frame.
anchor_ms=$(awk -F'\t' '$1 ~ /^RGBA / {
    if (a == "" || $4 < a) a = $4 } END { print a }' "$rows")

if [ "$engine" = cuda ] && command -v nvidia-smi >/dev/null; then
  device=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader |
    awk '!n++')
else
  device=
fi
cpu_model=$(awk -F': *' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || true)
cores=$(nproc 2>/dev/null || echo "?")

if [ -n "$pool" ]; then
  inputs="the element's proposed pool"
else
  inputs="system memory"
fi
echo "# bsplinewarp per format, $engine engine, $mode: ns per input byte beside RGBA"
echo
echo "- machine: ${cpu_model:-unknown CPU}, $cores cores online${device:+; GPU: $device}"
echo "- date: $date_start to $(date -u '+%H:%M UTC'); load average (1, 5, 15 min) at the start $load_start, at the end $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "?")"
echo "- GStreamer: ${gst_version:-unknown} (as bench-warp reports it)"
echo "- command: \`$command_line\`"
echo "- each format: \`bench-warp --format F --in $in_size --out $out_size --frames $frames${pool:+ $pool} --element \"$element\"\` ($frames frames after 3 warm-up, inputs in $inputs)"
echo "- formats: $n_formats + RGBA twice; the list: bsplinewarp's sink template (system memory)${formats_note:+, $formats_note}"
echo "- bytes: input frame size (videotestsrc's buffer for the input caps = GstVideoInfo size); ns/byte = best ms/frame * 1e6 / bytes"
echo "- x RGBA time: best ms/frame / the faster RGBA run's best ms/frame (the same pixels, whatever the bytes)"
echo "- load: the 1-minute load average after each format's run (bench-warp's own threads included): well above the threads used means other work shared the cores, and that row is suspect"
awk -F'\t' -v anchor="$anchor" '$1 ~ /^RGBA / && $5 != "-" {
    printf "- %s: best %s ms, %.4f ns/byte\n", $1, $4, $4 * 1e6 / $5 }
  END { printf "- anchor: %.4f ns/byte (the faster RGBA run); ratio = ns/byte / anchor\n", anchor }' "$rows"
echo
echo "| format | frames/s | median ms | best ms | bytes/frame | ns/byte | x RGBA | over $limit | x RGBA time | load |"
echo "|---|---:|---:|---:|---:|---:|---:|---|---:|---:|"
awk -F'\t' -v anchor="$anchor" -v anchor_ms="$anchor_ms" 'BEGIN { OFS = "\t" }
  { if ($5 == "-" || anchor == "") { nsb = "-"; ratio = -1 }
    else { nsb = $4 * 1e6 / $5; ratio = nsb / anchor }
    time = anchor_ms == "" ? "-" : sprintf("%.2f", $4 / anchor_ms)
    print ratio, $1, $2, $3, $4, $5, nsb, $6, time }' "$rows" |
  sort -t "$(printf '\t')" -k1,1gr |
  awk -F'\t' -v limit="$limit" '{
    if ($1 < 0) { r = "-"; n = "-"; flag = "" }
    else { r = sprintf("%.2f", $1); n = sprintf("%.4f", $7)
           flag = ($2 ~ /^RGBA /) ? "anchor" : ($1 > limit) ? sprintf("**yes, %.2fx**", $1) : "" }
    printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
      $2, $3, $4, $5, $6, n, r, flag, $9, $8 }'
echo
over=$(awk -F'\t' -v anchor="$anchor" -v limit="$limit" '$1 !~ /^RGBA / && $5 != "-" && anchor != "" && $4 * 1e6 / $5 / anchor > limit { n++ } END { print n + 0 }' "$rows")
echo "Over ${limit}x RGBA's ns/byte: $over of the $(grep -vc '^RGBA ' "$rows") formats besides RGBA that ran."
if [ -s "$failures" ]; then
  echo
  echo "Did not run ($(wc -l < "$failures")):"
  echo
  while IFS=$'\t' read -r label why cmd; do
    echo "- $label: $why"
    echo "  \`$cmd\`"
    if [ -s "$failures.detail.$label" ]; then
      echo '  ```'
      sed 's/^/  /' "$failures.detail.$label"
      echo '  ```'
    fi
  done < "$failures"
fi
echo
echo "<details><summary>bench-warp's output</summary>"
echo
echo '```'
cat "$raw"
echo '```'
echo
echo "</details>"
[ ! -s "$failures" ]
