#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# build.sh [TARGET...]: configures (once) and builds gst-bspline into
# build/: the ninja targets given (scripts/demo.sh names the plugin), else
# everything.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f build/build.ninja ]; then
  meson setup build
fi
ninja -C build "$@"
