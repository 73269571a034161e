#!/bin/bash
# The GPU benchmark of issue 5 in one run on the GPU machine: our engine's
# device time (bench/gpu-bench) and the torch / cupyx anchors
# (bench/gpu-anchors.py, the machine's python3), from .devbin/ (docs/gpu.md).
set -u
here=$(cd "$(dirname "$0")" && pwd)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
"$here/gpu-bench" --repeat 30
PYTHONUNBUFFERED=1 python3 "$here/bench/gpu-anchors.py"
