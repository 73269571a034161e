#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The adversarial sweep of docs/reliability.md: hostile inputs through
real gst-launch-1.0 pipelines, each in its own process with a time limit,
and a count of what each kind of input got.

    python3 scripts/hostile-sweep.py [--backend cpu|cuda] [--seed N]
                                     [--cases N] [--plugin-path DIR]

Kinds of input:
  transforms-contents  a valid transforms file (written by a first pass)
                       mutated: bytes flipped, cut short, values replaced by
                       nan/inf/1e300/1e-300/0/huge sizes, lines dropped or
                       doubled, NUL bytes, binary garbage; read by pass 2
  transforms-contents-v3  the same with a version 3 file (both passes with
                       rolling-shutter-readout=0.5: each record carries
                       the bands' motion)
  transforms-paths     a FIFO, /dev/zero, /dev/full, /dev/null, a directory,
                       a missing folder, a link to /dev/zero; read and write
  warp-geometry        bsplinewarp with random matrices (singular, NaN,
                       horizons across the frame, 1e300 entries), huge
                       translations, zooms, every boundary and order, tiny
                       and odd sizes in random formats
  stabilize-props      bsplinestabilize with random smoothing, zoom, crop,
                       tripod, model, n-threads, order and boundary on
                       random content (snow, black, a ball, bars) and sizes
                       from 1x1

Outcomes: "ran" (EOS, exit 0); "ran, warned" (a property value refused
with GLib's warning, the element ran with the value it had); "error naming
it" (an element error whose text names the file; for the kinds without a
file, any element error); "error" (an element error that does not name
the file); "crash" (killed by a signal); "hang" (no end within the limit);
"source crash/hang" (the same source into fakesink alone crashes or hangs
too: GStreamer's videotestsrc does on some tiny frames).  A crash or a
hang of our elements is a defect: the exit status is then 1.  The seed is
printed; --seed repeats a run.
"""

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile

FORMATS = ["GRAY8", "GRAY16_LE", "RGBA", "BGRA", "ARGB", "ABGR", "RGBx",
           "BGRx", "xRGB", "xBGR", "RGB", "BGR", "I420", "YV12", "NV12",
           "NV21", "Y42B", "Y444", "I420_10LE", "I422_10LE", "P010_10LE",
           "Y444_16LE", "GBR", "GBRA"]
STAB_FORMATS = ["RGBA", "BGRx", "RGB", "I420", "NV12", "Y444", "GRAY8"]
LIMIT = 30
# videotestsrc's patterns but the zone plates (14, 16), which divide by zero in
# videotestsrc itself on 1-pixel-wide frames (GStreamer 1.22, SIGFPE with
# fakesink alone): the sweep is about our elements
PATTERNS = [p for p in range(25) if p not in (14, 16)]


def run(pipeline, env):
    """(outcome, stderr) of one gst-launch-1.0 run."""
    try:
        p = subprocess.run(["gst-launch-1.0", "-q"] + pipeline.split(),
                           env=env, capture_output=True, text=True,
                           errors="replace", timeout=LIMIT)
    except subprocess.TimeoutExpired:
        return "hang", ""
    if p.returncode < 0:
        return "crash", p.stderr
    if p.returncode == 0 and "ERROR" not in p.stderr:
        return "ran, warned" if "WARNING" in p.stderr else "ran", p.stderr
    return "error", p.stderr


def first_pass(path, backend, env, rolling=""):
    out, err = run("videotestsrc num-buffers=40 pattern=ball motion=sweep "
                   "! video/x-raw,width=160,height=128,framerate=30/1 "
                   "! bsplinestabilize smoothing=4 backend=%s %s "
                   "transforms-location=%s ! fakesink"
                   % (backend, rolling, path), env)
    if out != "ran":
        sys.exit("the first pass failed: %s %s" % (out, err))
    with open(path) as f:
        return f.read()


def mutate(text, rng):
    lines = text.split("\n")
    kind = rng.randrange(9)
    if kind == 0:
        data = bytearray(text.encode())
        for _ in range(rng.randint(1, 10)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        return bytes(data)
    if kind == 1:
        return text.encode()[:rng.randrange(len(text))]
    if kind in (2, 3, 4):
        bad = rng.choice(["nan", "inf", "-inf", "1e300", "-1e300", "1e-300",
                          "0", "99999999999", "-1", "x", "0x10", "1e308e"])
        k = rng.randrange(len(lines))
        words = lines[k].split()
        if words:
            words[rng.randrange(len(words))] = bad
            lines[k] = " ".join(words)
        return "\n".join(lines).encode()
    if kind == 5:
        k = rng.randrange(len(lines))
        del lines[k]
        return "\n".join(lines).encode()
    if kind == 6:
        k = rng.randrange(len(lines))
        lines.insert(k, lines[rng.randrange(len(lines))])
        return "\n".join(lines).encode()
    if kind == 7:
        data = bytearray(text.encode())
        data.insert(rng.randrange(len(data)), 0)
        return bytes(data)
    return bytes(rng.randrange(256) for _ in range(rng.randint(0, 4096)))


def count(table, kind, outcome):
    table.setdefault(kind, {})
    table[kind][outcome] = table[kind].get(outcome, 0) + 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--cases", type=int, default=100)
    ap.add_argument("--plugin-path", default=None)
    args = ap.parse_args()
    seed = args.seed if args.seed is not None else random.randrange(2**32)
    rng = random.Random(seed)
    print("hostile-sweep: seed %d (--seed %d repeats it), backend=%s"
          % (seed, seed, args.backend), flush=True)
    env = dict(os.environ)
    if args.plugin_path:
        env["GST_PLUGIN_PATH"] = args.plugin_path
    tmp = tempfile.mkdtemp(prefix="bspline-sweep-")
    table, defects = {}, []
    b = args.backend

    def record(kind, case, outcome, err, path=None):
        if outcome == "error" and (path is None or path in err):
            outcome = "error naming it"
        if outcome in ("crash", "hang"):
            # the control: the same source into fakesink, without our
            # element (videotestsrc itself crashes on some tiny frames)
            control = case[:case.index("! bspline")] + "! fakesink"
            if run(control, env)[0] in ("crash", "hang"):
                outcome = "source " + outcome
        count(table, kind, outcome)
        if outcome in ("crash", "hang"):
            defects.append((kind, case, outcome, err[-400:]))

    # (128 rows: the rolling shutter's 8 bands of at least 16)
    for kind, rolling in (("transforms-contents", ""),
                          ("transforms-contents-v3",
                           "rolling-shutter-readout=0.5")):
        good = first_pass(os.path.join(tmp, "good.txt"), b, env, rolling)
        for i in range(args.cases * 3):
            path = os.path.join(tmp, "mutated-%d.txt" % i)
            with open(path, "wb") as f:
                f.write(mutate(good, rng))
            case = ("videotestsrc num-buffers=40 pattern=ball motion=sweep "
                    "! video/x-raw,width=160,height=128,framerate=30/1 ! "
                    "bsplinestabilize smoothing=4 backend=%s %s "
                    "transforms-mode=read transforms-location=%s ! fakesink"
                    % (b, rolling, path))
            outcome, err = run(case, env)
            record(kind, case, outcome, err, path)
            os.unlink(path)

    fifo = os.path.join(tmp, "fifo")
    os.mkfifo(fifo)
    link = os.path.join(tmp, "zero-link")
    os.symlink("/dev/zero", link)
    for path in [fifo, "/dev/zero", "/dev/full", "/dev/null", tmp,
                 os.path.join(tmp, "missing", "t.txt"), link]:
        for mode in ("read", "write"):
            case = ("videotestsrc num-buffers=10 ! video/x-raw,width=64,"
                    "height=48 ! bsplinestabilize backend=%s "
                    "transforms-mode=%s transforms-location=%s ! fakesink"
                    % (b, mode, path))
            outcome, err = run(case, env)
            record("transforms-paths", case, outcome, err, path)

    for i in range(args.cases * 2):
        fmt = rng.choice(FORMATS)
        w, h = rng.choice([1, 2, 3, 7, 16, 33, 160]), rng.choice(
            [1, 2, 3, 5, 16, 31, 120])
        ow, oh = rng.choice([1, 2, 5, 64, 333]), rng.choice([1, 3, 48, 250])
        m = [rng.choice([0.0, 1.0, -1.0, 1e-9, 1e300, -1e300, 0.002, 3.7,
                         float("nan")]) if rng.random() < 0.3
             else rng.uniform(-2, 2) for _ in range(9)]
        geometry = rng.choice([
            "matrix=<%s>" % ",".join(repr(v) for v in m),
            "rotation=%r zoom=%r" % (rng.uniform(-1e6, 1e6),
                                     rng.choice([1e-4, 0.01, 1, 50, 1e4])),
            "translate-x=%r translate-y=%r" % (rng.choice([1e15, -1e300, 0.5]),
                                               rng.uniform(-1e9, 1e9)),
            "pivot-x=%r pivot-y=%r rotation=33" % (rng.random(), rng.random()),
        ])
        case = ("videotestsrc num-buffers=3 pattern=%d ! video/x-raw,format=%s,"
                "width=%d,height=%d ! bsplinewarp backend=%s order=%d "
                "boundary=%d antialias=%s precision=%d %s ! video/x-raw,"
                "width=%d,height=%d ! fakesink"
                % (rng.choice(PATTERNS), fmt, w, h, b, rng.randrange(12),
                   rng.randrange(5), rng.choice(["true", "false"]),
                   rng.randrange(3), geometry, ow, oh))
        outcome, err = run(case, env)
        record("warp-geometry", case, outcome, err)

    for i in range(args.cases):
        fmt = rng.choice(STAB_FORMATS)
        w, h = rng.choice([1, 2, 17, 64, 320]), rng.choice([1, 3, 48, 240])
        case = ("videotestsrc num-buffers=%d pattern=%s ! video/x-raw,"
                "format=%s,width=%d,height=%d,framerate=30/1 ! "
                "bsplinestabilize backend=%s smoothing=%d zoom=%r crop=%s "
                "tripod=%s motion-model=%s n-threads=%d order=%d boundary=%d "
                "auto-zoom=%s ! fakesink"
                % (rng.randint(1, 40), rng.choice(["snow", "black", "ball",
                                                  "smpte", "circular"]),
                   fmt, w, h, b, rng.choice([0, 1, 5, 50]),
                   rng.uniform(-50, 100), rng.choice(["fill", "keep-border"]),
                   rng.choice(["true", "false"]),
                   rng.choice(["similarity", "affine"]),
                   rng.choice([0, 1, 3, 1024]), rng.randrange(12),
                   rng.randrange(5), rng.choice(["true", "false"])))
        outcome, err = run(case, env)
        record("stabilize-props", case, outcome, err)

    shutil.rmtree(tmp, ignore_errors=True)
    print("| input | runs | ran | ran, a value refused with a warning | "
          "element error (naming the file where there is one) | "
          "element error (not naming it) | crash | hang | the source's "
          "own crash or hang |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for kind, outcomes in table.items():
        print("| %s | %d | %d | %d | %d | %d | %d | %d | %d |"
              % (kind, sum(outcomes.values()), outcomes.get("ran", 0),
                 outcomes.get("ran, warned", 0),
                 outcomes.get("error naming it", 0), outcomes.get("error", 0),
                 outcomes.get("crash", 0), outcomes.get("hang", 0),
                 outcomes.get("source crash", 0)
                 + outcomes.get("source hang", 0)))
    for kind, case, outcome, err in defects:
        print("DEFECT %s (%s): %s\n  %s" % (outcome, kind, case, err))
    return 1 if defects else 0


if __name__ == "__main__":
    sys.exit(main())
