#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""libbspline-1.0's exported symbols against the committed list.

Usage: test_exported_symbols.py LIBRARY LIST

The library is built with hidden visibility: it exports the functions that
the installed headers declare with BSPLINE_API (core/include/) and the few
internals that cuda/, the tests and the benchmarks call, marked
BSPLINE_INTERNAL_API in the private headers.  LIST
(tests/core/exported-symbols.txt) names each of them once: the API first,
then, after the line "[internal]", the internals.  Every symbol that the
library defines in its dynamic symbol table (nm -D --defined-only:
functions and data) must be in the list and every listed one in the
library, so that the API changes only on purpose.  The sanitizer builds
(-Db_sanitize=address,undefined) export the same symbols: their runtimes
are shared libraries of their own.
"""
import shutil
import subprocess
import sys


def exported(library):
    nm = shutil.which("nm")
    if not nm:
        print("test_exported_symbols: no nm on PATH")
        sys.exit(77)
    out = subprocess.run([nm, "-D", "--defined-only", library],
                         capture_output=True, text=True, check=True)
    names = set()
    for line in out.stdout.splitlines():
        fields = line.split()
        # "address type name"; a versioned name ends in @VERSION
        if len(fields) == 3:
            names.add(fields[2].split("@")[0])
    return names


def listed(path):
    api, internal, section = set(), set(), None
    for line in open(path):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line == "[internal]":
            section = internal
            continue
        (section if section is not None else api).add(line)
    return api, internal


def main():
    library, list_path = sys.argv[1:3]
    have = exported(library)
    api, internal = listed(list_path)
    both = api & internal
    appeared = sorted(have - api - internal)
    vanished = sorted((api | internal) - have)
    if not (appeared or vanished or both):
        print(f"test_exported_symbols: {len(api)} API symbols and "
              f"{len(internal)} internal ones, as listed in {list_path}")
        return
    for name in sorted(both):
        print(f"listed twice (API and [internal]): {name}")
    for name in appeared:
        print(f"appeared (exported, not listed): {name}")
    for name in vanished:
        print(f"vanished (listed, not exported): {name}")
    sys.exit(f"test_exported_symbols: {library} exports {len(appeared)} "
             f"symbols that {list_path} does not list and lacks "
             f"{len(vanished)} that it lists.  Where the change is on "
             f"purpose, update the list (sorted): a function of the API is "
             f"declared with BSPLINE_API in core/include/ and listed before "
             f"the line [internal]; one that only cuda/, the tests or the "
             f"benchmarks call is declared with BSPLINE_INTERNAL_API in a "
             f"private header and listed after it.  Where it is not, a "
             f"function that vanished has lost its mark and one that "
             f"appeared has a mark (or a declaration) it should not have.")


if __name__ == "__main__":
    main()
