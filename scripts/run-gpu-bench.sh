#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The GPU benchmark of issue 5 in one run on the GPU machine: our engine's
# device time (bench/gpu-bench), NVIDIA NPP on the same work
# (bench/npp-anchor.c, compiled here with the machine's nvcc: NPP is not
# on the development machine) and the torch / cupyx anchors
# (bench/gpu-anchors.py, the machine's python3), then the bytes and
# bandwidth of each kernel (bench/kernel-traffic.py, where ncu is), from
# .devbin/ (docs/gpu.md).
set -u
here=$(cd "$(dirname "$0")" && pwd)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
date -u
"$here/gpu-bench" --repeat 30
if nvcc -O2 -o /tmp/npp-anchor "$here/bench/npp-anchor.c" -lnppig -lnppc; then
  /tmp/npp-anchor --repeat 30
else
  echo "npp: not available on this machine"
fi
PYTHONUNBUFFERED=1 python3 "$here/bench/gpu-anchors.py"
if command -v ncu > /dev/null; then
  PYTHONUNBUFFERED=1 python3 "$here/bench/kernel-traffic.py" "$here/gpu-bench"
else
  echo "kernel traffic: no ncu on this machine"
fi
