#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Bytes moved and bandwidth of every kernel of gpu-bench's cases.

Runs bench/gpu-bench once for the 4K device-to-device copy (the floor)
and, for each case, under Nsight Compute (ncu) with three metrics per
kernel launch: its duration, and the bytes it read from and wrote to the
GPU's memory (DRAM). For each kernel of a case it prints the median over
its launches of the time, MB read and written, the bandwidth they make,
and that bandwidth as a percentage of the copy's (the floor: the copy
moves the frame's bytes twice, read and written, in its time).

ncu replays each kernel with the caches flushed, so the bytes are those of
a cold L2 (an upper bound on what the kernel moves in a pipeline) and its
time is ncu's, not the time of the uninstrumented launches gpu-bench
prints. Usage (on the GPU machine, docs/gpu.md):

    python3 bench/kernel-traffic.py BUILD/bench/gpu-bench [--ncu PATH]
        [--only SUBSTRING ...]
"""

import argparse
import csv
import io
import re
import statistics
import subprocess
import sys

CASES = [
    "4K RGBA8 rotate 10 deg, order 3",
    "4K RGBA8 rotate 10 deg, order 3 compact",
    "4K RGBA8 rotate 10 deg, order 3 fast",
    "4K RGBA8 perspective (keystone), order 3",
    "1080p -> 4K RGBA8, order 3",
    "1080p -> 4K RGBA8, order 3 fast",
    "4K -> 1080p RGBA8, order 3 (least squares)",
    "4K RGBA8 fisheye undistortion, order 3",
    "4K RGBA8 fisheye to 0.6 f, order 3 (antialiased)",
]
FRAME_4K = 3840 * 2160 * 4
METRICS = "gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum"


def copy_floor(bench):
    """The copy's time in us from gpu-bench's own line."""
    out = subprocess.run([bench, "--only", "no case", "--repeat", "30"],
                         capture_output=True, text=True, check=True).stdout
    m = re.search(r"device-to-device copy \(floor\)\s+([0-9.]+)", out)
    if not m:
        sys.exit("kernel-traffic: no copy line in gpu-bench's output")
    return float(m.group(1))


def to_unit(value, unit):
    scale = {"byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9,
             "B": 1, "KB": 1e3, "MB": 1e6, "GB": 1e9,
             "nsecond": 1e-3, "usecond": 1.0, "msecond": 1e3,
             "second": 1e6, "ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}
    if unit not in scale:
        sys.exit("kernel-traffic: unknown unit %r from ncu" % unit)
    return float(value.replace(",", "")) * scale[unit]


def profile(ncu, bench, case):
    """Per kernel (in order of first launch): lists of (us, read, write)."""
    cmd = [ncu, "--csv", "--metrics", METRICS, bench, "--only", case,
           "--exact", "--repeat", "3", "--no-accuracy"]
    run = subprocess.run(cmd, capture_output=True, text=True)
    lines = run.stdout.splitlines()
    start = next((i for i, l in enumerate(lines)
                  if l.startswith('"ID"')), None)
    if start is None:
        sys.exit("kernel-traffic: ncu gave no table for %s:\n%s"
                 % (case, run.stdout[-2000:] + run.stderr[-2000:]))
    kernels = {}
    launch = {}
    for row in csv.DictReader(io.StringIO("\n".join(lines[start:]))):
        k = re.sub(r"\(.*", "", row["Kernel Name"]).strip()
        key = (row["ID"], k)
        value = to_unit(row["Metric Value"], row["Metric Unit"])
        launch.setdefault(key, {})[row["Metric Name"]] = value
    for (_, k), v in launch.items():
        if len(v) == 3:
            kernels.setdefault(k, []).append(
                (v["gpu__time_duration.sum"], v["dram__bytes_read.sum"],
                 v["dram__bytes_write.sum"]))
    return kernels


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bench")
    ap.add_argument("--ncu", default="ncu")
    ap.add_argument("--only", action="append")
    a = ap.parse_args()
    floor_us = copy_floor(a.bench)
    floor_bw = 2 * FRAME_4K / floor_us / 1e3        # GB/s
    print("4K RGBA8 device-to-device copy: %.1f us, %.0f GB/s (the floor, "
          "100 %%)" % (floor_us, floor_bw))
    print("%-48s %-34s %9s %9s %9s %8s %7s" % (
        "case", "kernel", "time (us)", "read (MB)", "write (MB)", "GB/s",
        "floor"))
    for case in CASES:
        if a.only and not any(s in case for s in a.only):
            continue
        total = [0.0, 0.0, 0.0]
        for k, launches in profile(a.ncu, a.bench, case).items():
            t = statistics.median(x[0] for x in launches)
            r = statistics.median(x[1] for x in launches)
            w = statistics.median(x[2] for x in launches)
            bw = (r + w) / t / 1e3
            total = [total[0] + t, total[1] + r, total[2] + w]
            print("%-48s %-34s %9.1f %9.1f %9.1f %8.0f %6.0f%%" % (
                case[:48], k[:34], t, r / 1e6, w / 1e6, bw,
                100 * bw / floor_bw))
        if total[0] > 0:
            bw = (total[1] + total[2]) / total[0] / 1e3
            print("%-48s %-34s %9.1f %9.1f %9.1f %8.0f %6.0f%%" % (
                case[:48], "(all kernels)", total[0], total[1] / 1e6,
                total[2] / 1e6, bw, 100 * bw / floor_bw))


if __name__ == "__main__":
    main()
