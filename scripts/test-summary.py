"""Prints the closing line of a meson test run: N passed, N failed, N skipped."""
import json
import sys

passed = failed = skipped = 0
with open(sys.argv[1]) as log:
    for line in log:
        result = json.loads(line)["result"]
        if result in ("OK", "EXPECTEDFAIL"):
            passed += 1
        elif result == "SKIP":
            skipped += 1
        else:
            failed += 1
print(f"{passed} passed, {failed} failed, {skipped} skipped")
sys.exit(1 if failed or passed == 0 else 0)
