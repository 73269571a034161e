#!/usr/bin/env bash
# Installs what is missing, builds, runs the whole test suite and ends with
# one line "N passed, N failed, N skipped".
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh || { echo "0 passed, 1 failed"; exit 1; }
bash scripts/build.sh || { echo "0 passed, 1 failed"; exit 1; }
meson test -C build --print-errorlogs --num-processes "$(nproc)" "$@"
status=$?
/usr/bin/python3 scripts/test-summary.py build/meson-logs/testlog.json || status=1
exit $status
