#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The x86 kernels against the plain C loops, bit for bit.

Usage: test_kernels.py PRINT_OUTPUTS PRINT_OUTPUTS_... [N_CASES]

The programs are print-outputs.c linked with different builds of the core:
the first as built (on x86-64 with GCC: AVX-512 or AVX2 kernels and vector
clones chosen at run time), the others with BSPLINE_NO_AVX512 (the AVX2
kernels where the machine has AVX-512), BSPLINE_NO_WARP_FAST (the general
path without its fast rows) and BSPLINE_NO_X86_DISPATCH (the C loops only,
compiled for baseline x86-64).  All run the same random plans
(one seed, printed; BSPLINE_TEST_SEED repeats it) and print a hash of
every output; every line must match the last program's (the C loops), and
none may report outputs that differ between 1 and 3 threads.  On a machine
without AVX-512 (or AVX2) the first programs take the C loops too, and the
test still checks the thread counts.
"""
import os
import subprocess
import sys
import time


def run(exe, seed, n_cases):
    env = dict(os.environ, BSPLINE_TEST_SEED=str(seed))
    out = subprocess.run([exe, str(n_cases)], env=env, capture_output=True,
                         text=True, timeout=500)
    if out.returncode != 0:
        print(out.stdout + out.stderr)
        sys.exit(f"{exe} failed with status {out.returncode} "
                 f"(BSPLINE_TEST_SEED={seed})")
    return [l for l in out.stdout.splitlines() if l.startswith("case ")]


def main():
    args = sys.argv[1:]
    n_cases = int(args.pop()) if args[-1].isdigit() else 60
    seed = int(os.environ.get("BSPLINE_TEST_SEED") or
               (time.time_ns() ^ os.getpid()) % (1 << 63))
    print(f"test_kernels: seed {seed} (BSPLINE_TEST_SEED={seed} repeats "
          f"this run), {n_cases} plans, {len(args)} builds")
    outputs = [run(exe, seed, n_cases) for exe in args]
    reference = outputs[-1]
    failures = 0
    for exe, lines in zip(args, outputs):
        if len(lines) != n_cases:
            print(f"FAIL: {exe} printed {len(lines)} cases, {n_cases} asked")
            failures += 1
        for x, y in zip(lines, reference):
            if "THREADS DIFFER" in x:
                print(f"FAIL ({exe}: 1 and 3 threads differ): {x}")
                failures += 1
            elif x != y:
                print(f"FAIL ({exe} against the C loops):\n  {x}\n  {y}")
                failures += 1
    if failures:
        sys.exit(f"test_kernels: {failures} failures "
                 f"(BSPLINE_TEST_SEED={seed})")
    print(f"test_kernels: {n_cases} plans, {len(args)} builds bit-identical")


if __name__ == "__main__":
    main()
