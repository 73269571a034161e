#!/usr/bin/env bash
# Configures (once) and builds gst-bspline into build/.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f build/build.ninja ]; then
  meson setup build
fi
ninja -C build
