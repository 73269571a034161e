#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""cpu-bench: bsplinewarp on the CPU beside every CPU anchor, same frames,
same run (issue 39).

    .venv/bin/python bench/cpu-bench.py [--quick] [--build DIR]
        [--bench-warp PATH] [--machine NAME] [--cases C1,C2]
        [--formats F1,F2] [--threads 1,2,all] [--frames N] [--runs N]
        [--variants "antialias=none;order=5"] [--output FILE]
    .venv/bin/python bench/cpu-bench.py --summarize FILE
    .venv/bin/python bench/cpu-bench.py --check-geometry [--build DIR]

Run it from the project venv (OpenCV, numpy, skimage).  --build (default
build) is a meson build directory of this tree: gst/libgstbspline.so and
bench/bench-warp (`ninja -C build bench/bench-warp`); --bench-warp takes
bench-warp from elsewhere (to time another build's plugin, e.g. main's,
with this tree's bench-warp, which has --input).

The work, per case, per format, per thread count T (1, 2 and all online
cores by default; each process pinned to the first T cores with taskset or
sched_setaffinity, and each tool's own thread setting at T):

  cases   down-4k-1080p, down-1080p-720p, down-1080p-360p (by 3),
          up-720p-1080p, up-1080p-4k, rotate-1080p (10 degrees clockwise,
          1080p in and out), keystone-1080p (the homography
          <1,0,0, 0,1,0, 0,0.0002,1> about the centre, 1080p in and out)
  formats I420 NV12 YUY2 Y42B RGBA GBRA I420_10LE P010_10LE: the issue's
          formats and the planar twin of each packed or semi-planar one
          (NV12 -> I420, YUY2 -> Y42B, RGBA -> GBRA, P010_10LE -> I420_10LE)
  tools   ours: bsplinewarp n-threads=T with every other property at its
          default (plus --variants, each "PROP=VALUE ..." appended; the
          full mode adds antialias=none on the downscales, the rotation
          and the keystone);
          videoscale method=lanczos and method=4-tap (n-threads=T): both
          through bench-warp (bench/bench-warp.c, GstHarness, the element's
          own output pool, --input: the frame below);
          zimg: ffmpeg zscale filter=spline36 and filter=lanczos;
          swscale: ffmpeg scale flags=lanczos: both with -filter_threads T
          (zscale and scale are slice-threaded in ffmpeg 5.1);
          OpenCV: cv2.resize INTER_CUBIC, INTER_LANCZOS4 and, on shrinks,
          INTER_AREA; cv2.warpAffine INTER_CUBIC (rotation);
          cv2.warpPerspective INTER_CUBIC (keystone): cv2.setNumThreads(T).

The same job for every tool: the same input bytes, the same input and
output format and size.  The input frame is skimage's coffee.png, cropped
to 16:9 and resized (cv2 INTER_LANCZOS4) to the input size, as RGBA, then
converted once by ffmpeg into each format's raw bytes (GStreamer's layout:
the sizes used here have no row padding; bench-warp refuses a file of
another size than the caps' frame).  Where a tool cannot take a format it
does not run on a conversion: zimg takes planar formats only, so on NV12,
YUY2, RGBA and P010_10LE it runs on the planar twin's bytes (the row says
"on TWIN"); OpenCV runs each plane of a planar or semi-planar format as
one call (NV12's and P010's UV planes as 2-channel images, RGBA as one
4-channel image) and has no row for YUY2 (packed 4:2:2 is not an image
OpenCV can resample as one).  ffmpeg reads and writes the format itself
(`format=` after the filter pins its output; no conversion is inserted).
The warps' homographies are converted to OpenCV's integer pixel centres
and to each plane's subsampling (plane_matrix); --check-geometry checks
that conversion against ours (antialias=none, boundary=mirror, through
gst-launch-1.0): the central 3/5 of every plane to 50 dB PSNR.

Timing, the mean per frame of a run, wall and CPU (user + system, every
thread of the process), the median of --runs runs:
  bench-warp  one process per element: its frames/s (wall) and its CPU
              time over the timed frames, after 3 warm-up frames;
  ffmpeg      its marginal cost per frame: the -benchmark times (rtime,
              utime + stime) of the filter over one raw frame looped
              5 x --frames times (references to one buffer, no reading,
              no copy), less the same command without the filter, divided
              by the frames (bench/reduce-vs-zimg.sh's method); a run in
              which ffmpeg inserts a conversion (its log's auto_scale)
              fails;
  OpenCV      in this process: one warm-up call, then --frames calls into
              preallocated outputs; time.perf_counter and
              time.process_time.
"seen" is the threads of the tool's process: bench-warp's at the end of
its run, ffmpeg's maximum polled from /proc while it runs, this process's
after the OpenCV calls; "busy" those of them that each took at least a
tenth of the process's CPU time over the run (/proc/.../schedstat;
ffmpeg's whole run with the filter, the fewest of the runs): T busy
threads show that the T threads asked for did the work (the kernel
accounts a running thread's time every few ms: a run shorter than that
may show 0).  cpu/wall near T
shows they ran in parallel, which a shared machine hides (other work
takes the cores), and busy does not.

Modes: --quick is 3 frames a run, 1 run (a smoke test; numbers rough);
the default (full) 20 frames, 3 runs.  --cases and --formats choose a
subset.

Output: the rows as they are measured go to --output (default
bench/results/MACHINE-YYYY-MM-DD-cpu-bench[-quick].txt, MACHINE from
--machine, default NCPUcore), after '#' lines with the machine, the date,
the command, the source and the plugin's tree; at the end the summary
tables (markdown) are appended to it and printed: per thread count, ours
and each anchor in ms per frame (wall, CPU) with the ratio ours/anchor,
issue 39's targets (downscales in I420, NV12 and RGBA: at most
videoscale lanczos' time and 1.5x zimg spline36's; upscales: at most
zimg spline36's on planar formats, cv2.resize INTER_CUBIC's on RGBA;
the rotation: at most cv2.warpAffine's), the time per output pixel of
each format against its planar twin, and the thread check.  --summarize
FILE prints the tables of a results file (an interrupted run's rows
included).  bench/plot-benchmarks.py draws the newest full run (else the
newest quick one) into docs/pictures/benchmarks-cpu-anchors.png.
Progress goes to stderr.  Benchmarks are not tests: none of this runs in
the test suite.
"""

import argparse
import datetime
import json
import os
import re
import shlex
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))

# name: (input w, h, output w, h, the element's geometry properties)
KEYSTONE = (1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0002, 1.0)
ROTATION = 10.0
CASES = {
    "down-4k-1080p": (3840, 2160, 1920, 1080, ""),
    "down-1080p-720p": (1920, 1080, 1280, 720, ""),
    "down-1080p-360p": (1920, 1080, 640, 360, ""),
    "up-720p-1080p": (1280, 720, 1920, 1080, ""),
    "up-1080p-4k": (1920, 1080, 3840, 2160, ""),
    "rotate-1080p": (1920, 1080, 1920, 1080, "rotation=%g" % ROTATION),
    "keystone-1080p": (1920, 1080, 1920, 1080, 'matrix="<%s>"'
                       % ",".join("%.4f" % v for v in KEYSTONE)),
}

# GStreamer format: (ffmpeg pix_fmt, planar twin or None, OpenCV planes
# as (horizontal subsampling, vertical, channels) or None, numpy's sample
# type; numpy is imported where it is used, so that
# bench/plot-benchmarks.py reads this file's tables and parser without it)
FORMATS = {
    "I420": ("yuv420p", None, [(1, 1, 1), (2, 2, 1), (2, 2, 1)], "uint8"),
    "NV12": ("nv12", "I420", [(1, 1, 1), (2, 2, 2)], "uint8"),
    "YUY2": ("yuyv422", "Y42B", None, "uint8"),
    "Y42B": ("yuv422p", None, [(1, 1, 1), (2, 1, 1), (2, 1, 1)], "uint8"),
    "RGBA": ("rgba", "GBRA", [(1, 1, 4)], "uint8"),
    "GBRA": ("gbrap", None, [(1, 1, 1)] * 4, "uint8"),
    "I420_10LE": ("yuv420p10le", None, [(1, 1, 1), (2, 2, 1), (2, 2, 1)],
                  "uint16"),
    "P010_10LE": ("p010le", "I420_10LE", [(1, 1, 1), (2, 2, 2)], "uint16"),
}
# the formats zimg (zscale) takes: planar ones
ZIMG_FORMATS = ("I420", "Y42B", "GBRA", "I420_10LE")
PHOTO = "coffee.png"

ROW = re.compile(r"^cpu-bench (?P<case>\S+) (?P<format>\S+) threads "
                 r"(?P<threads>\d+): (?P<tool>.+?)\s+wall\s+(?P<wall>[0-9.-]+)"
                 r" ms\s+cpu\s+(?P<cpu>[0-9.-]+) ms\s+seen\s+(?P<seen>\d+|-)"
                 r"(?:\s+busy\s+(?P<busy>\d+))?"
                 r"(?:\s+runs\s+(?P<runs>\d+))?$")
FAILED = re.compile(r"^cpu-bench (?P<case>\S+) (?P<format>\S+) threads "
                    r"(?P<threads>\d+): (?P<tool>.+?)\s+failed: (?P<why>.*)$")


def log(*args):
    print(*args, file=sys.stderr, flush=True)


def cores(threads):
    return "0-%d" % (threads - 1)


def is_shrink(case):
    w, h, ow, oh, geometry = CASES[case]
    return not geometry and ow * oh < w * h


# ---------------------------------------------------------------- frames

def make_frames(tmp, sizes, formats):
    """The photo at each input size, as raw bytes of each format (and of
    each format's twin); returns {(size, format): path}."""
    import cv2
    import numpy as np
    import skimage
    import skimage.io

    photo = skimage.io.imread(os.path.join(os.path.dirname(skimage.__file__),
                                           "data", PHOTO))[..., :3]
    ph, pw = photo.shape[:2]
    crop_h = pw * 9 // 16
    top = (ph - crop_h) // 2
    photo = np.ascontiguousarray(photo[top:top + crop_h])
    needed = set(formats) | {FORMATS[f][1] for f in formats
                             if FORMATS[f][1]}
    paths = {}
    for w, h in sorted(sizes):
        rgba = cv2.cvtColor(cv2.resize(photo, (w, h),
                                       interpolation=cv2.INTER_LANCZOS4),
                            cv2.COLOR_RGB2RGBA)
        src = os.path.join(tmp, "photo-%dx%d.rgba" % (w, h))
        rgba.tofile(src)
        for f in sorted(needed):
            path = os.path.join(tmp, "photo-%dx%d.%s" % (w, h, f))
            subprocess.run(["ffmpeg", "-nostdin", "-hide_banner", "-loglevel",
                            "error", "-f", "rawvideo", "-pix_fmt", "rgba",
                            "-s", "%dx%d" % (w, h), "-i", src, "-pix_fmt",
                            FORMATS[f][0], "-f", "rawvideo", "-y", path],
                           check=True)
            paths[((w, h), f)] = path
    return paths


# ---------------------------------------------------------------- tools

def thread_ticks(pid="self"):
    """CPU time (nanoseconds on a core) of each thread of a process now, by
    thread id: the first field of /proc/PID/task/TID/schedstat (finer
    than /proc's stat, whose clock ticks miss a short run)."""
    ticks = {}
    try:
        tids = os.listdir("/proc/%s/task" % pid)
    except OSError:
        return ticks
    for tid in tids:
        try:
            with open("/proc/%s/task/%s/schedstat" % (pid, tid)) as f:
                ticks[tid] = int(f.read().split()[0])
        except (OSError, IndexError, ValueError):
            pass
    return ticks


def busy_threads(before, after):
    """The threads that took at least a tenth of the CPU time between two
    thread_ticks snapshots: those that did the work, which wall time on a
    shared machine cannot show."""
    delta = [t - before.get(tid, 0) for tid, t in after.items()]
    total = sum(delta)
    return sum(1 for d in delta if total > 0 and d * 10 >= total)


def run_polled(cmd, env=None):
    """Runs cmd; returns (returncode, stdout + stderr, the most threads the
    process had and how many of them were busy (busy_threads), polled from
    /proc every 20 ms)."""
    with tempfile.TemporaryFile() as out:
        p = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT,
                             env=env)
        seen, ticks = 0, {}
        while p.poll() is None:
            now = thread_ticks(p.pid)
            seen = max(seen, len(now))
            ticks.update(now)
            time.sleep(0.02)
        out.seek(0)
        return (p.returncode, out.read().decode(errors="replace"), seen,
                busy_threads({}, ticks))


def bench_warp(args, case, fmt, threads, element, frames_path):
    """One bench-warp process for one element: (wall ms, cpu ms, seen,
    busy)."""
    w, h, ow, oh, _ = CASES[case]
    env = dict(os.environ, GST_PLUGIN_PATH=args.plugin_dir)
    cmd = ["taskset", "-c", cores(threads), args.bench_warp, "--format", fmt,
           "--in", "%dx%d" % (w, h), "--out", "%dx%d" % (ow, oh),
           "--frames", str(args.frames), "--input", frames_path,
           "--element", element]
    rc, out, _, _ = run_polled(cmd, env)
    m = re.search(r"([0-9.]+) frames/s .* cpu\s+([0-9.]+) ms/frame\s+"
                  r"threads (-?\d+), busy (\d+)", out)
    if rc != 0 or not m:
        raise RuntimeError("%s (exit %d): %s" % (shlex.join(cmd), rc,
                           " / ".join(out.strip().splitlines()[-2:])))
    return (1000.0 / float(m.group(1)), float(m.group(2)), int(m.group(3)),
            int(m.group(4)))


def ffmpeg_times(threads, pix_fmt, size, path, frames, vf):
    cmd = ["taskset", "-c", cores(threads), "ffmpeg", "-nostdin",
           "-hide_banner", "-loglevel", "verbose", "-benchmark", "-threads",
           "1", "-filter_threads",
           str(threads), "-f", "rawvideo", "-pix_fmt", pix_fmt, "-s",
           "%dx%d" % size, "-i", path, "-vf",
           "loop=loop=%d:size=1:start=0%s" % (frames - 1, vf),
           "-f", "null", "-"]
    rc, out, seen, busy = run_polled(cmd)
    m = re.search(r"^bench: utime=([0-9.]+)s stime=([0-9.]+)s "
                  r"rtime=([0-9.]+)s$", out, re.M)
    if rc != 0 or not m:
        raise RuntimeError("%s (exit %d): %s" % (shlex.join(cmd), rc,
                           " / ".join(out.strip().splitlines()[-2:])))
    if "auto_scale" in out:
        raise RuntimeError("%s: ffmpeg inserted a conversion (auto_scale): "
                           "the filter does not take %s" % (shlex.join(cmd),
                                                            pix_fmt))
    return (float(m.group(3)), float(m.group(1)) + float(m.group(2)), seen,
            busy)


def ffmpeg_marginal(args, case, fmt, threads, vf, frames_path):
    """ffmpeg's marginal cost per frame of the filter vf (after the loop),
    output pinned to the input's format: (wall ms, cpu ms, seen, busy of
    the run with the filter)."""
    w, h, ow, oh, _ = CASES[case]
    pix_fmt = FORMATS[fmt][0]
    n = 5 * args.frames
    base_wall, base_cpu, _, _ = ffmpeg_times(threads, pix_fmt, (w, h),
                                             frames_path, n, "")
    wall, cpu, seen, busy = ffmpeg_times(
        threads, pix_fmt, (w, h), frames_path, n,
        ",%s,format=%s" % (vf % (ow, oh), pix_fmt))
    return ((wall - base_wall) * 1000 / n, (cpu - base_cpu) * 1000 / n, seen,
            busy)


def plane_arrays(fmt, w, h, data):
    """Views of the planes of one frame of fmt at w x h in data (bytes)."""
    import numpy as np

    planes, dtype = FORMATS[fmt][2], FORMATS[fmt][3]
    flat = np.frombuffer(data, dtype=dtype)
    views, offset = [], 0
    for sx, sy, ch in planes:
        pw, ph = w // sx, h // sy
        n = pw * ph * ch
        shape = (ph, pw, ch) if ch > 1 else (ph, pw)
        views.append(flat[offset:offset + n].reshape(shape))
        offset += n
    if offset != flat.size:
        raise RuntimeError("%s %dx%d: %d samples, the planes take %d"
                           % (fmt, w, h, flat.size, offset))
    return views


def plane_matrix(case, sx, sy):
    """The 3x3 forward map of the case's geometry in the pixel indices
    (OpenCV's: integer centres) of a plane subsampled by sx, sy: ours maps
    about the centre of the frame in continuous coordinates (pixel i
    covers [i, i+1)), forward from input to output."""
    import numpy as np

    w, h, _, _, _ = CASES[case]
    if case.startswith("rotate"):
        a = np.radians(ROTATION)   # clockwise on screen, y down
        g = np.array([[np.cos(a), -np.sin(a), 0], [np.sin(a), np.cos(a), 0],
                      [0, 0, 1]])
    else:
        g = np.array(KEYSTONE).reshape(3, 3)

    def shift(x, y):
        return np.array([[1, 0, x], [0, 1, y], [0, 0, 1]], dtype=float)
    about_centre = shift(w / 2, h / 2) @ g @ shift(-w / 2, -h / 2)
    scale = np.diag([1 / sx, 1 / sy, 1.0])
    m = shift(-0.5, -0.5) @ scale @ about_centre @ np.linalg.inv(scale) \
        @ shift(0.5, 0.5)
    return m / m[2, 2]


def opencv(args, case, fmt, threads, how, frames_path):
    """OpenCV in this process, each plane one call: (wall, cpu ms, seen,
    busy)."""
    import cv2
    import numpy as np

    w, h, ow, oh, _ = CASES[case]
    with open(frames_path, "rb") as f:
        src = plane_arrays(fmt, w, h, f.read())
    calls = []
    for (sx, sy, _), plane in zip(FORMATS[fmt][2], src):
        size = (ow // sx, oh // sy)
        dst = np.empty((size[1], size[0]) + plane.shape[2:], plane.dtype)
        if how == "warpAffine":
            m = plane_matrix(case, sx, sy)[:2]
            calls.append(lambda p=plane, m=m, s=size, d=dst: cv2.warpAffine(
                p, m, s, dst=d, flags=cv2.INTER_CUBIC,
                borderMode=cv2.BORDER_REFLECT_101))
        elif how == "warpPerspective":
            m = plane_matrix(case, sx, sy)
            calls.append(lambda p=plane, m=m, s=size, d=dst:
                         cv2.warpPerspective(
                             p, m, s, dst=d, flags=cv2.INTER_CUBIC,
                             borderMode=cv2.BORDER_REFLECT_101))
        else:
            interpolation = getattr(cv2, how)
            calls.append(lambda p=plane, s=size, d=dst, i=interpolation:
                         cv2.resize(p, s, dst=d, interpolation=i))
    affinity = os.sched_getaffinity(0)
    os.sched_setaffinity(0, range(threads))
    cv2.setNumThreads(threads)
    try:
        for call in calls:
            call()
        ticks = thread_ticks()
        t0, c0 = time.perf_counter(), time.process_time()
        for _ in range(args.frames):
            for call in calls:
                call()
        wall = (time.perf_counter() - t0) * 1000 / args.frames
        cpu = (time.process_time() - c0) * 1000 / args.frames
        after = thread_ticks()
    finally:
        os.sched_setaffinity(0, affinity)
    return wall, cpu, len(after), busy_threads(ticks, after)


def tools(args, case, fmt, threads):
    """(label, function returning wall, cpu, seen, busy) of every tool that
    runs this case in this format, ours first."""
    _, _, _, _, geometry = CASES[case]
    frame = args.frames_paths[(CASES[case][:2], fmt)]
    twin = FORMATS[fmt][1]
    out = []
    variants = [""] + [" " + v for v in args.variants]
    if args.full and (is_shrink(case) or geometry):
        variants.append(" antialias=none")
    for v in dict.fromkeys(variants):
        element = ("bsplinewarp n-threads=%d%s%s"
                   % (threads, " " + geometry if geometry else "", v))
        out.append(("bsplinewarp" + v, lambda e=element: bench_warp(
            args, case, fmt, threads, e, frame)))
    if geometry == "":
        for method in ("lanczos", "4-tap"):
            element = "videoscale method=%s n-threads=%d" % (method, threads)
            out.append(("videoscale method=" + method,
                        lambda e=element: bench_warp(args, case, fmt,
                                                     threads, e, frame)))
        zimg_fmt = fmt if fmt in ZIMG_FORMATS else twin
        on = "" if zimg_fmt == fmt else " (on %s)" % zimg_fmt
        zimg_frame = args.frames_paths[(CASES[case][:2], zimg_fmt)]
        for f in ("spline36", "lanczos"):
            out.append(("zimg %s%s" % (f, on),
                        lambda f=f, z=zimg_fmt, p=zimg_frame: ffmpeg_marginal(
                            args, case, z, threads,
                            "zscale=w=%%d:h=%%d:filter=%s" % f, p)))
        out.append(("swscale lanczos", lambda: ffmpeg_marginal(
            args, case, fmt, threads, "scale=%d:%d:flags=lanczos", frame)))
    if FORMATS[fmt][2] is None:
        return out
    if geometry == "":
        hows = ["INTER_CUBIC", "INTER_LANCZOS4"]
        if is_shrink(case):
            hows.append("INTER_AREA")
        for how in hows:
            out.append(("cv2.resize " + how, lambda how=how: opencv(
                args, case, fmt, threads, how, frame)))
    elif case.startswith("rotate"):
        out.append(("cv2.warpAffine INTER_CUBIC", lambda: opencv(
            args, case, fmt, threads, "warpAffine", frame)))
    else:
        out.append(("cv2.warpPerspective INTER_CUBIC", lambda: opencv(
            args, case, fmt, threads, "warpPerspective", frame)))
    return out


def check_geometry(args, tmp):
    """The OpenCV warps do ours' job: ours (antialias=none, boundary=mirror
    as OpenCV's BORDER_REFLECT_101) through gst-launch-1.0 beside
    cv2.warpAffine / cv2.warpPerspective INTER_CUBIC with plane_matrix's
    conversion, on the photo in I420; the central 3/5 of each plane must
    agree to 50 dB PSNR (58-62 dB measured; the conversion half a pixel
    off gives 39-46 dB).  Returns True where every plane does."""
    import cv2
    import numpy as np

    ok = True
    for case in ("rotate-1080p", "keystone-1080p"):
        w, h, ow, oh, geometry = CASES[case]
        src = make_frames(tmp, {(w, h)}, ["I420"])[((w, h), "I420")]
        out = os.path.join(tmp, case + ".ours")
        subprocess.run(
            ["gst-launch-1.0", "-q", "filesrc", "location=" + src,
             "blocksize=%d" % os.path.getsize(src), "!", "rawvideoparse",
             "format=i420", "width=%d" % w, "height=%d" % h,
             "framerate=30/1", "!", "bsplinewarp", "antialias=none",
             "boundary=mirror"] + shlex.split(geometry) +
            ["!", "video/x-raw,width=%d,height=%d" % (ow, oh), "!",
             "filesink", "location=" + out],
            check=True, env=dict(os.environ, GST_PLUGIN_PATH=args.plugin_dir))
        with open(src, "rb") as f:
            planes = plane_arrays("I420", w, h, f.read())
        with open(out, "rb") as f:
            ours = plane_arrays("I420", ow, oh, f.read())
        for k, ((sx, sy, _), p, o) in enumerate(zip(FORMATS["I420"][2],
                                                   planes, ours)):
            m = plane_matrix(case, sx, sy)
            size = (ow // sx, oh // sy)
            if case.startswith("rotate"):
                c = cv2.warpAffine(p, m[:2], size, flags=cv2.INTER_CUBIC,
                                   borderMode=cv2.BORDER_REFLECT_101)
            else:
                c = cv2.warpPerspective(p, m, size, flags=cv2.INTER_CUBIC,
                                        borderMode=cv2.BORDER_REFLECT_101)
            mh, mw = size[1] // 5, size[0] // 5
            d = c[mh:-mh, mw:-mw].astype(float) - o[mh:-mh, mw:-mw]
            psnr = 10 * np.log10(255.0 ** 2 / max(np.mean(d ** 2), 1e-12))
            ok &= psnr >= 50
            print("%s plane %d: OpenCV against ours, central 3/5: PSNR "
                  "%.1f dB, mean |difference| %.3f%s" % (
                      case, k, psnr, np.mean(np.abs(d)),
                      "" if psnr >= 50 else "  FAIL (under 50 dB)"))
    return ok


# ---------------------------------------------------------------- summary

def parse_rows(path):
    rows, failed = [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = ROW.match(line.rstrip())
            if m:
                rows.append({"case": m.group("case"),
                             "format": m.group("format"),
                             "threads": int(m.group("threads")),
                             "tool": m.group("tool"),
                             "wall": float(m.group("wall")),
                             "cpu": float(m.group("cpu")),
                             "seen": m.group("seen"),
                             "busy": m.group("busy") or "-"})
                continue
            m = FAILED.match(line.rstrip())
            if m:
                failed.append(m.groupdict())
    return rows, failed


def anchor_columns(rows):
    """The anchors in a fixed order, as they appear (zimg's "(on TWIN)"
    folded into one column)."""
    order = ["videoscale method=lanczos", "videoscale method=4-tap",
             "zimg spline36", "zimg lanczos", "swscale lanczos",
             "cv2.resize INTER_CUBIC", "cv2.resize INTER_LANCZOS4",
             "cv2.resize INTER_AREA", "cv2.warpAffine INTER_CUBIC",
             "cv2.warpPerspective INTER_CUBIC"]
    present = {re.sub(r" \(on \w+\)$", "", r["tool"]) for r in rows}
    return [a for a in order if a in present]


def targets(case, fmt):
    """Issue 39's targets for a case and format: (what, anchor, the most
    ours / anchor may be)."""
    w, h, ow, oh, geometry = CASES[case]
    if is_shrink(case) and fmt in ("I420", "NV12", "RGBA"):
        return [("downscale", "videoscale method=lanczos", 1.0),
                ("downscale", "zimg spline36", 1.5)]
    if not geometry and ow * oh > w * h:
        if fmt == "RGBA":
            return [("upscale", "cv2.resize INTER_CUBIC", 1.0)]
        if fmt in ZIMG_FORMATS:
            return [("upscale", "zimg spline36", 1.0)]
    if case.startswith("rotate"):
        return [("rotation", "cv2.warpAffine INTER_CUBIC", 1.0)]
    return []


def summary(rows, failed):
    lines = []
    by_key = {}
    for r in rows:
        by_key[(r["case"], r["format"], r["threads"],
                re.sub(r" \(on \w+\)$", "", r["tool"]))] = r
    anchors = anchor_columns(rows)
    cases = [c for c in CASES if any(r["case"] == c for r in rows)]
    formats = [f for f in FORMATS if any(r["format"] == f for r in rows)]
    threads_all = sorted({r["threads"] for r in rows})
    short = {"videoscale method=lanczos": "videoscale lanczos",
             "videoscale method=4-tap": "videoscale 4-tap",
             "cv2.resize INTER_CUBIC": "cv2 cubic",
             "cv2.resize INTER_LANCZOS4": "cv2 lanczos4",
             "cv2.resize INTER_AREA": "cv2 area",
             "cv2.warpAffine INTER_CUBIC": "cv2 warpAffine cubic",
             "cv2.warpPerspective INTER_CUBIC": "cv2 warpPerspective cubic"}
    for kind, what in (("wall", "wall"), ("cpu", "CPU (user + system)")):
        for t in threads_all:
            lines.append("")
            lines.append("### %d thread%s: %s ms per frame, ours / anchor"
                         % (t, "s" if t > 1 else "", what))
            lines.append("")
            lines.append("| case | format | ours | ms | " + " | ".join(
                short.get(a, a) for a in anchors) + " |")
            lines.append("| --- | --- | --- | ---: |"
                         + " ---: |" * len(anchors))
            for c in cases:
                for f in formats:
                    ours = [r for r in rows if r["case"] == c
                            and r["format"] == f and r["threads"] == t
                            and r["tool"].startswith("bsplinewarp")]
                    for o in ours:
                        cells = []
                        for a in anchors:
                            r = by_key.get((c, f, t, a))
                            if r is None:
                                cells.append("")
                            elif r[kind] <= 0:
                                cells.append("%.2f" % r[kind])
                            else:
                                on = re.search(r"\(on (\w+)\)$", r["tool"])
                                cells.append("%.2f%s **x%.1f**" % (
                                    r[kind], " (%s)" % on.group(1)
                                    if on else "", o[kind] / r[kind]))
                        variant = o["tool"][len("bsplinewarp"):].strip()
                        lines.append("| %s | %s | %s | %.2f | %s |" % (
                            c, f, variant or "default", o[kind],
                            " | ".join(cells)))
    # issue 39's targets, ours (default properties) over the anchor named
    lines.append("")
    lines.append("### Issue 39's targets: ours (default properties) / "
                 "anchor, equal threads")
    lines.append("")
    lines.append("| target | case | format | threads | anchor | x wall | "
                 "x CPU | limit | met |")
    lines.append("| --- | --- | --- | ---: | --- | ---: | ---: | ---: "
                 "| --- |")
    for c in cases:
        for f in formats:
            for t in threads_all:
                for target, anchor, limit in targets(c, f):
                    o = by_key.get((c, f, t, "bsplinewarp"))
                    r = by_key.get((c, f, t, anchor))
                    if o is None or r is None or r["wall"] <= 0 \
                            or r["cpu"] <= 0:
                        continue
                    rw, rc = o["wall"] / r["wall"], o["cpu"] / r["cpu"]
                    met = "yes" if max(rw, rc) <= limit else \
                        "no" if min(rw, rc) > limit else "wall or CPU only"
                    lines.append("| %s | %s | %s | %d | %s | %.2f | %.2f | "
                                 "%.1f | %s |" % (target, c, f, t,
                                                  r["tool"], rw, rc, limit,
                                                  met))
    # each format against its planar twin, ours, by output pixel
    lines.append("")
    lines.append("### Each format against its planar twin (ours, default "
                 "properties): ns per output pixel, wall and CPU")
    lines.append("")
    lines.append("| case | threads | format | wall ns/px | twin | twin "
                 "wall ns/px | x twin (wall) | x twin (CPU) | over 1.5 |")
    lines.append("| --- | ---: | --- | ---: | --- | ---: | ---: | ---: "
                 "| --- |")
    for c in cases:
        _, _, ow, oh, _ = CASES[c]
        for t in threads_all:
            for f in formats:
                twin = FORMATS[f][1]
                o = by_key.get((c, f, t, "bsplinewarp"))
                p = by_key.get((c, twin, t, "bsplinewarp")) if twin else None
                if o is None or p is None:
                    continue
                rw, rc = o["wall"] / p["wall"], o["cpu"] / p["cpu"]
                lines.append("| %s | %d | %s | %.2f | %s | %.2f | %.2f | "
                             "%.2f | %s |" % (
                                 c, t, f, o["wall"] * 1e6 / (ow * oh), twin,
                                 p["wall"] * 1e6 / (ow * oh), rw, rc,
                                 "**yes**" if min(rw, rc) > 1.5 else ""))
    # the thread check
    lines.append("")
    lines.append("### Thread check: CPU time / wall time (median over the "
                 "rows), the threads the process had, the busy ones")
    lines.append("")
    lines.append("| tool | " + " | ".join("%d thread%s: cpu/wall, seen, "
                                          "busy" % (t, "s" if t > 1 else "")
                                          for t in threads_all) + " |")
    lines.append("| --- |" + " --- |" * len(threads_all))
    tool_names = list(dict.fromkeys(re.sub(r" \(on \w+\)$", "", r["tool"])
                                    for r in rows))
    for tool in tool_names:
        cells = []
        for t in threads_all:
            sel = [r for r in rows if r["threads"] == t and
                   re.sub(r" \(on \w+\)$", "", r["tool"]) == tool
                   and r["wall"] > 0]
            seen = sorted({r["seen"] for r in sel})
            busy = sorted({r["busy"] for r in sel})
            cells.append("%.2f, %s, %s" % (statistics.median(
                r["cpu"] / r["wall"] for r in sel), "/".join(seen),
                "/".join(busy)) if sel else "")
        lines.append("| %s | %s |" % (tool, " | ".join(cells)))
    if failed:
        lines.append("")
        lines.append("Did not run (%d):" % len(failed))
        lines.append("")
        for f in failed:
            lines.append("- %s %s threads %s, %s: %s" % (
                f["case"], f["format"], f["threads"], f["tool"], f["why"]))
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- main

def tree_line(build):
    try:
        with open(os.path.join(build, "meson-info", "meson-info.json")) as f:
            src = json.load(f)["directories"]["source"]
        commit = subprocess.run(["git", "-C", src, "rev-parse", "--short",
                                 "HEAD"], capture_output=True, text=True,
                                check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", src, "status", "--porcelain",
                                "--", "core", "gst"], capture_output=True,
                               text=True).stdout.strip()
        return "%s, commit %s%s" % (src, commit, ", core/ or gst/ modified"
                                    if dirty else "")
    except (OSError, KeyError, ValueError, subprocess.CalledProcessError):
        return "unknown"


def versions():
    import cv2
    import numpy as np

    ffmpeg = subprocess.run(["ffmpeg", "-version"], capture_output=True,
                            text=True).stdout.split("\n")[0].split()[2]
    zimg = subprocess.run(["dpkg-query", "-W", "-f", "${Version}",
                           "libzimg2"], capture_output=True,
                          text=True).stdout or "unknown"
    return "ffmpeg %s, zimg %s, OpenCV %s, numpy %s" % (
        ffmpeg, zimg, cv2.__version__, np.__version__)


def main():
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="\n".join(__doc__.split("\n")[1:]))
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--build", default="build")
    ap.add_argument("--bench-warp")
    ap.add_argument("--machine", default="%dcore" % os.cpu_count())
    ap.add_argument("--cases", default=",".join(CASES))
    ap.add_argument("--formats", default=",".join(FORMATS))
    ap.add_argument("--threads", default="1,2,all")
    ap.add_argument("--frames", type=int)
    ap.add_argument("--runs", type=int)
    ap.add_argument("--variants", default="",
                    help="';'-separated property sets for extra rows of "
                    "ours, e.g. \"order=5;antialias=widen\"")
    ap.add_argument("--output")
    ap.add_argument("--summarize", metavar="FILE")
    ap.add_argument("--check-geometry", action="store_true")
    args = ap.parse_args()

    if args.summarize:
        rows, failed = parse_rows(args.summarize)
        if not rows:
            log("%s: no cpu-bench rows" % args.summarize)
            return 1
        sys.stdout.write(summary(rows, failed))
        return 0

    args.full = not args.quick
    args.frames = args.frames or (3 if args.quick else 20)
    args.runs = args.runs or (1 if args.quick else 3)
    args.variants = [v.strip() for v in args.variants.split(";")
                     if v.strip()]
    cases = [c for c in args.cases.split(",") if c]
    formats = [f for f in args.formats.split(",") if f]
    for c in cases:
        if c not in CASES:
            ap.error("unknown case %s (%s)" % (c, ", ".join(CASES)))
    for f in formats:
        if f not in FORMATS:
            ap.error("unknown format %s (%s)" % (f, ", ".join(FORMATS)))
    threads = []
    for t in args.threads.split(","):
        n = os.cpu_count() if t == "all" else int(t)
        if n < 1 or n > os.cpu_count():
            ap.error("threads %s: 1 to %d" % (t, os.cpu_count()))
        if n not in threads:
            threads.append(n)
    args.plugin_dir = os.path.join(os.path.abspath(args.build), "gst")
    args.bench_warp = args.bench_warp or os.path.join(args.build, "bench",
                                                      "bench-warp")
    for path, hint in ((args.bench_warp, "ninja -C BUILD bench/bench-warp"),
                       (os.path.join(args.plugin_dir, "libgstbspline.so"),
                        "ninja -C BUILD")):
        if not os.path.exists(path):
            log("no %s (%s)" % (path, hint))
            return 2
    if args.check_geometry:
        with tempfile.TemporaryDirectory() as tmp:
            return 0 if check_geometry(args, tmp) else 1
    today = datetime.datetime.now(datetime.timezone.utc)
    args.output = args.output or os.path.join(
        HERE, "results", "%s-%s-cpu-bench%s.txt" % (
            args.machine, today.strftime("%Y-%m-%d"),
            "-quick" if args.quick else ""))
    model = "unknown CPU"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break

    with tempfile.TemporaryDirectory(dir="/dev/shm"
                                     if os.path.isdir("/dev/shm")
                                     else None) as tmp, \
            open(args.output, "w", encoding="utf-8") as out:
        def record(line):
            out.write(line + "\n")
            out.flush()

        record("# cpu-bench (bench/cpu-bench.py), issue 39: ms per frame, "
               "wall and CPU, the median of %d run%s of %d frames"
               % (args.runs, "s" if args.runs > 1 else "", args.frames))
        record("# command: %s" % shlex.join(["bench/cpu-bench.py"]
                                            + sys.argv[1:]))
        record("# date: %s" % today.strftime("%Y-%m-%d %H:%M UTC"))
        record("# machine: %s, %d cores of %s, Linux %s" % (
            args.machine, os.cpu_count(), model, os.uname().release))
        record("# load average at start: %s" % " ".join(
            open("/proc/loadavg").read().split()[:3]))
        record("# plugin: %s (tree: %s); bench-warp: %s"
               % (args.plugin_dir, tree_line(args.build), args.bench_warp))
        record("# anchors: %s" % versions())
        record("# source: skimage's %s cropped to 16:9, resized by cv2 "
               "INTER_LANCZOS4 to the input size, converted by ffmpeg "
               "into each format" % PHOTO)
        log("frames ...")
        args.frames_paths = make_frames(
            tmp, {CASES[c][:2] for c in cases}, formats)
        jobs = [(c, f, t) for c in cases for f in formats for t in threads]
        for k, (c, f, t) in enumerate(jobs, 1):
            for label, run in tools(args, c, f, t):
                log("[%d/%d] %s %s threads %d: %s" % (k, len(jobs), c, f, t,
                                                     label))
                try:
                    results = [run() for _ in range(args.runs)]
                except (RuntimeError, subprocess.CalledProcessError,
                        OSError) as e:
                    record("cpu-bench %s %s threads %d: %s  failed: %s"
                           % (c, f, t, label, str(e).replace("\n", " ")))
                    continue
                wall = statistics.median(r[0] for r in results)
                cpu = statistics.median(r[1] for r in results)
                seen = max(r[2] for r in results)
                busy = min(r[3] for r in results)
                record("cpu-bench %s %s threads %d: %s  wall %.3f ms  "
                       "cpu %.3f ms  seen %d  busy %d  runs %d" % (
                           c, f, t, label, wall, cpu, seen, busy,
                           args.runs))
        record("# load average at end: %s" % " ".join(
            open("/proc/loadavg").read().split()[:3]))
        record("# finished: %s" % datetime.datetime.now(
            datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"))
    rows, failed = parse_rows(args.output)
    text = summary(rows, failed)
    with open(args.output, "a", encoding="utf-8") as out:
        out.write("\nsummary\n" + text)
    sys.stdout.write(text)
    log("wrote %s" % args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
