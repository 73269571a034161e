#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# bench-chain.sh: a four-stage warp chain (three bsplinewarp elements with
# defer=true, then one that resamples) beside one bsplinewarp that does the
# same kind of map, in the same run (issue 23: "A four-stage chain in CUDA
# memory at 1080p -> 4K costs at most 1.1x one bsplinewarp's device time;
# system-memory rate of the chain at least 90 % of a single element's").
#
#   bench/bench-chain.sh cpu [--frames N] [--threads N]
#   bench/bench-chain.sh cuda [--frames N]
#
# The chain: a brown lens undistorted (1080p camera), a rotation of 3
# degrees, a zoom of 1.1, then the caps scaling 1920x1080 -> 3840x2160; the
# single element: the same lens, rotation and zoom in one element (its
# stages in the element's own order: lens, scaling, rotation and zoom).
# Both resample once per frame with one lens stage; the chain adds three
# elements that append a stage to the buffer's meta.
#
# cpu: bench-warp (system memory, n-threads=THREADS, default 2, FRAMES
# frames, default 20).  cuda: bench-cuda-memory (system memory and
# memory:CUDAMemory, FRAMES frames, default 300, with its `identity` anchor).
# Where things come from: BENCH_WARP / BENCH_CUDA_MEMORY (the programs,
# else build-dir names on PATH) and GST_PLUGIN_PATH; GST_KIT, a bundle of
# this machine's GStreamer runtime (docs/gpu.md) whose env.sh is sourced first (the GPU
# machine has no GStreamer).
# Prints a markdown block (machine, date, command, the programs' lines) on
# stdout.
set -euo pipefail

engine=${1:-}
shift || true
frames=""
threads=2
while [ $# -gt 0 ]; do
  case "$1" in
    --frames) frames=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    *) echo "usage: $0 cpu|cuda [--frames N] [--threads N]" >&2; exit 2 ;;
  esac
done
if [ -n "${GST_KIT:-}" ]; then
  # shellcheck disable=SC1091
  . "$GST_KIT/env.sh"
fi

lens='lens-model=brown camera-matrix="<1400.0,1400.0,959.5,539.5>" distortion="<-0.15,0.03>"'
case "$engine" in
  cpu) be="backend=cpu n-threads=$threads"; frames=${frames:-20} ;;
  cuda) be="backend=cuda"; frames=${frames:-300} ;;
  *) echo "usage: $0 cpu|cuda [--frames N] [--threads N]" >&2; exit 2 ;;
esac
single="bsplinewarp $be $lens rotation=3 zoom=1.1"
chain="bsplinewarp $be defer=true $lens ! bsplinewarp $be defer=true rotation=3 ! bsplinewarp $be defer=true zoom=1.1 ! bsplinewarp $be"

echo "### Warp chain ($engine), $(hostname), $(date -u '+%Y-%m-%d %H:%M UTC')"
echo
echo '```'
echo "$ $0 $engine --frames $frames${engine:+ }$( [ "$engine" = cpu ] && echo "--threads $threads")"
if [ "$engine" = cpu ]; then
  "${BENCH_WARP:-bench-warp}" --in 1920x1080 --out 3840x2160 \
      --frames "$frames" --threads "$threads" \
      --element "$single" --element "$chain"
else
  nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null || true
  "${BENCH_CUDA_MEMORY:-bench-cuda-memory}" --in 1920x1080 --out 3840x2160 \
      --frames "$frames" --element "$single"
  "${BENCH_CUDA_MEMORY:-bench-cuda-memory}" --in 1920x1080 --out 3840x2160 \
      --frames "$frames" --element "$chain"
fi
echo '```'
