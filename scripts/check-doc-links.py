#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Checks that every relative link and picture of README.md,
CONTRIBUTING.md and docs/**/*.md resolves to a file of the tree, and that
a link's #anchor names a heading of its target (GitHub's anchors: lower
case, punctuation dropped, spaces as '-').

    python3 scripts/check-doc-links.py [SOURCE_ROOT]

Prints each broken link with its file and line; exits 1 if there is one
(the `doc-links` test, suite docs)."""

import os
import re
import sys

LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def anchors(path):
    found = set()
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"^#+\s+(.*?)\s*$", line)
            if m:
                a = re.sub(r"[^\w\- ]", "", m.group(1).lower()).replace(" ",
                                                                         "-")
                found.add(a)
    return found


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                           os.path.join(os.path.dirname(__file__), ".."))
    pages = [os.path.join(root, p) for p in ("README.md", "CONTRIBUTING.md")]
    for d, _, files in os.walk(os.path.join(root, "docs")):
        pages += [os.path.join(d, f) for f in files if f.endswith(".md")]
    broken, checked = 0, 0
    for page in sorted(pages):
        if not os.path.exists(page):
            print("missing page: %s" % os.path.relpath(page, root))
            broken += 1
            continue
        with open(page, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                for target in LINK.findall(line):
                    if re.match(r"^[a-z]+:", target):
                        continue  # http:, https:, mailto:
                    checked += 1
                    path, _, anchor = target.partition("#")
                    full = (os.path.normpath(os.path.join(
                        os.path.dirname(page), path)) if path else page)
                    where = "%s:%d" % (os.path.relpath(page, root), n)
                    if not os.path.exists(full):
                        print("%s: %s does not exist" % (where, target))
                        broken += 1
                    elif anchor and full.endswith(".md") and \
                            anchor not in anchors(full):
                        print("%s: %s has no heading #%s"
                              % (where, path or "this page", anchor))
                        broken += 1
    print("%d links checked, %d broken" % (checked, broken))
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
