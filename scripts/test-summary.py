# SPDX-License-Identifier: LGPL-2.1-or-later
"""Prints the closing line of the test runs: N passed, N failed, N skipped.

Arguments: meson's testlog JSON files (one result per line), and the JSON
lines scripts/test.sh writes for the passes that are not meson tests.  A
file that is missing counts as one failure (its pass did not run)."""
import json
import sys

passed = failed = skipped = 0
for path in sys.argv[1:]:
    try:
        log = open(path)
    except OSError:
        print(f"test-summary: no {path}: counted as a failure")
        failed += 1
        continue
    with log:
        for line in log:
            if not line.strip():
                continue
            result = json.loads(line)["result"]
            if result in ("OK", "EXPECTEDFAIL"):
                passed += 1
            elif result == "SKIP":
                skipped += 1
            else:
                failed += 1
print(f"{passed} passed, {failed} failed, {skipped} skipped")
sys.exit(1 if failed or passed == 0 else 0)
