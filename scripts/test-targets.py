#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""test-targets.py BUILD-DIR SETUP: prints the ninja targets that the tests
of `meson test --setup SETUP` need (their programs, the programs and files
among their arguments, their `depends`), one a line.  scripts/test.sh
builds these alone in a pass's build folder, so that a pass compiles what
it runs and nothing else.  `meson test --list` names the tests the setup
runs (its exclude_suites applied), `meson introspect` what each needs."""
import json
import os
import subprocess
import sys


def meson(*args):
    return subprocess.run(['meson', *args], check=True, text=True,
                          stdout=subprocess.PIPE).stdout


def main():
    build, setup = sys.argv[1:3]
    listed = meson('test', '-C', build, '--setup', setup, '--no-rebuild',
                   '--list').splitlines()
    names = {line.split(' / ', 1)[1] for line in listed if ' / ' in line}
    files = {target['id']: target['filename']
             for target in json.loads(meson('introspect', build, '--targets'))}
    needed = set()
    for test in json.loads(meson('introspect', build, '--tests')):
        if test['name'] in names:
            for target_id in test['depends']:
                needed.update(os.path.relpath(f, build)
                              for f in files[target_id])
    print('\n'.join(sorted(needed)))


if __name__ == '__main__':
    main()
