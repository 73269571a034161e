#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Charts of the benchmarks' outputs: ours against the anchors.

    python3 bench/plot-benchmarks.py [--results DIR] [--out DIR] [--check]

Reads the text that the benchmark programs print, one run per file in
DIR (default bench/results), and renders into --out (default
docs/pictures):

  benchmarks-gpu.png  gpu-bench's device times beside NPP, torch and cupyx
                      (scripts/run-gpu-bench.sh's output), and bench-warp
                      runs with a `backend=cuda` element;
  benchmarks-cpu.png  the other bench-warp runs (CPU engines), and
                      bench/reduce-vs-zimg.sh's runs (bench-reduce beside
                      zimg's spline36 through ffmpeg's zscale);
  benchmarks-cpu-anchors.png
                      bench/cpu-bench.py's runs (issue 39): per case and
                      format, ours' wall and CPU time over each anchor's,
                      one panel per thread count (drawn where such a run
                      exists).

A file is named MACHINE-YYYY-MM-DD-BENCHMARK.txt; of the files with the
same MACHINE and BENCHMARK only the newest is drawn, so a new run's output
is dropped in beside the old one.  Lines starting with '#' are comments;
'# machine: ...' and '# date: ...' name the machine and the time for the
chart (else the nvidia-smi and `date -u` lines, else the file name).
Every other line must be one the programs print (bench/gpu-bench.c,
bench/npp-anchor.c, bench/gpu-anchors.py, bench/bench-warp.c,
bench/bench-reduce.c, bench/reduce-vs-zimg.sh, bench/cpu-bench.py, whose
own parser reads its rows): a line the parser does not know is an error.
Columns may be missing where a run was recorded without them ('-', or
bench-warp's frames/s or ms/frame alone).

--check parses every file, renders into a temporary directory and fails
unless both PNGs (and the third, where a cpu-bench run is recorded) come
out (the `benchmark-charts` test); it exits 77 (skipped) where matplotlib
is missing, after the parse.
"""

import argparse
import importlib.util
import os
import re
import statistics
import sys
import tempfile
import textwrap

NUMBER = r"(-|[0-9]+(?:\.[0-9]+)?)"
FILE_NAME = re.compile(r"^(?P<machine>.+?)-(?P<date>\d{4}-\d\d-\d\d)-"
                       r"(?P<bench>[^.]+)\.txt$")
# scripts/run-gpu-bench.sh: nvidia-smi --query-gpu=name,driver_version
NVIDIA_SMI = re.compile(r"^(?P<gpu>NVIDIA [^,]+), (?P<driver>[0-9.]+)$")
DATE_U = re.compile(r"^\w{3} \w{3} +\d+ [0-9:]+ UTC \d{4}$")
# bench/gpu-bench.c
GPU_DEVICE = re.compile(r"^device: (?P<gpu>[^;]+); median of .*$")
# (its accuracy columns, max |err| and differ, since 2026-11-27)
GPU_HEADER = re.compile(r"^work\s+time \(us\)\s+x 4K copy\s+path"
                        r"(?:\s+max \|err\|\s+differ)?$")
GPU_ROW = re.compile(r"^(?P<work>.+?)\s+" + NUMBER + r"\s+" + NUMBER +
                     r"(?:\s+(?P<path>[a-z][a-z0-9]*))?"
                     r"(?:\s+(?:[-+0-9.e]+|nan|inf)\s+(?:[0-9.]+|nan)%)?$")
HOST_HEADER = re.compile(r"^host copies of the element's frames.*$")
HOST_ROW = re.compile(r"^(?P<what>.+?)\s+" + NUMBER + r"\s+" + NUMBER +
                      r"\s+" + NUMBER + r"$")
# bench/npp-anchor.c
NPP_ROW = re.compile(r"^npp (?P<case>[a-z0-9-]+) " + NUMBER + r"$")
NPP_MISSING = re.compile(r"^npp: not available on this machine$")
# bench/gpu-anchors.py
ANCHOR_ROW = re.compile(r"^(?P<what>(?:torch|cupyx) .+?)\s+" + NUMBER + r"$")
ANCHOR_MISSING = re.compile(r"^\w+_anchors: not run .*$")
ANCHOR_ACCURACY = re.compile(r"^cupyx accuracy, .* code values$")
# bench/bench-warp.c
WARP_HEADER = re.compile(r"^(?P<format>\w+) (?P<size>\d+x\d+ -> \d+x\d+), "
                         r"(?P<frames>\d+) frames after \d+ warm-up, "
                         r"inputs in (?P<inputs>.+?), (?P<gst>GStreamer .+)$")
# (its CPU time, threads and busy threads, since 2026-11-29)
WARP_ROW = re.compile(r"^(?P<element>.+?)\s+"
                      r"(?:(?P<fps>[0-9.]+) frames/s)?\s*"
                      r"(?:median\s+(?P<ms>[0-9.]+) ms/frame)?\s*"
                      r"(?:best\s+(?P<best>[0-9.]+))?"
                      r"(?:\s+cpu\s+[0-9.]+ ms/frame\s+threads\s+-?\d+,"
                      r"\s+busy\s+\d+)?$")
# bench/bench-reduce.c and bench/reduce-vs-zimg.sh (the zscale anchor)
REDUCE_HEADER = re.compile(r"^(?:bench-reduce (?P<format>\w+) |zscale \w+ )"
                           r"(?P<size>\d+x\d+ -> \d+x\d+), .+$")
REDUCE_ROW = re.compile(r"^(?P<who>ours|anchor) (?P<what>.+?)\s+"
                        r"threads (?P<threads>\d+)\s+"
                        r"(?:median|mean)\s+(?P<ms>[0-9.]+) ms/frame\s+"
                        r"(?:best\s+(?P<best>[0-9.]+)\s+)?"
                        r"cpu\s+(?P<cpu>[0-9.]+)(?:\s+plan\s+[0-9.]+)?$")
WARP_FAILED = re.compile(r"^(?P<element>.+?)\s+(failed to run|proposes no "
                         r"pool)$")


def load_cpu_bench():
    """bench/cpu-bench.py as a module: its cases, formats and row format
    (one source of truth; it imports numpy and cv2 only where it
    measures)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        "cpu-bench.py")
    spec = importlib.util.spec_from_file_location("cpu_bench", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


CPU_BENCH = load_cpu_bench()
# its summary tables, after the line "summary"
CPU_BENCH_SUMMARY = re.compile(r"^(\|.*\||### .+|Did not run \(\d+\):"
                               r"|- .+)$")


class ParseError(Exception):
    pass


def number(text):
    return None if text in (None, "-") else float(text)


def anchor_work(what):
    """The gpu-bench work an anchor's line times (by its own words)."""
    w = what.lower()
    order = re.search(r"order (\d+)", w)
    if "shift" in w and order:
        return ("4608x3456 float shift (0.5, 0.5) reflect, order %s"
                % order.group(1))
    if "rotate" in w and "4k" in w:
        return "4K RGBA8 rotate 10 deg, order 3"
    if "1080p" in w and "4k" in w:
        return "1080p -> 4K RGBA8, order 3"
    return None


def anchor_name(what):
    return {
        "rotate-4k-rgba8-cubic": "NPP cubic warp",
        "resize-1080p-4k-rgba8-cubic": "NPP cubic resize",
        "resize-1080p-4k-rgba8-lanczos": "NPP Lanczos resize",
    }.get(what, what.split(",")[0])


def parse(path):
    """One benchmark output: a dict with the machine, the date, the
    gpu-bench rows and anchors, and the bench-warp runs."""
    m = FILE_NAME.match(os.path.basename(path))
    if not m:
        raise ParseError("%s: not named MACHINE-YYYY-MM-DD-BENCHMARK.txt"
                         % path)
    run = {"path": path, "key": (m.group("machine"), m.group("bench")),
           "file_date": m.group("date"), "machine": None, "date": None,
           "gpu": {}, "anchors": {}, "warp": [], "reduce": [],
           "cpu_bench": []}
    section = None
    with open(path, encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            line = raw.rstrip("\n").rstrip()
            if not line:
                continue
            if line.startswith("#"):
                meta = re.match(r"^#\s*(machine|date):\s*(.+)$", line)
                if meta:
                    run[meta.group(1)] = meta.group(2)
                continue
            if CPU_BENCH.ROW.match(line) or CPU_BENCH.FAILED.match(line):
                section = None
                continue
            if line == "summary":
                section = "cpu-bench summary"
                continue
            if section == "cpu-bench summary" and \
                    CPU_BENCH_SUMMARY.match(line):
                continue
            if NVIDIA_SMI.match(line):
                run["machine"] = run["machine"] or line
                continue
            if DATE_U.match(line):
                run["date"] = run["date"] or line
                continue
            m = GPU_DEVICE.match(line)
            if m:
                run["machine"] = run["machine"] or m.group("gpu")
                continue
            if GPU_HEADER.match(line):
                section = "gpu"
                continue
            if HOST_HEADER.match(line):
                section = "host"
                continue
            m = NPP_ROW.match(line)
            if m:
                run["anchors"].setdefault(anchor_work(m.group("case")), {})[
                    anchor_name(m.group("case"))] = number(m.group(2))
                section = None
                continue
            if NPP_MISSING.match(line) or ANCHOR_MISSING.match(line) \
                    or ANCHOR_ACCURACY.match(line):
                continue
            m = ANCHOR_ROW.match(line)
            if m and anchor_work(m.group("what")):
                run["anchors"].setdefault(anchor_work(m.group("what")), {})[
                    anchor_name(m.group("what"))] = number(m.group(2))
                section = None
                continue
            m = REDUCE_HEADER.match(line)
            if m:
                section = "reduce"
                run["reduce_size"] = m.group("size")
                continue
            m = REDUCE_ROW.match(line)
            if section == "reduce" and m:
                run["reduce"].append(
                    (m.group("who"), m.group("what"),
                     int(m.group("threads")), float(m.group("ms")),
                     float(m.group("cpu"))))
                continue
            m = WARP_HEADER.match(line)
            if m:
                section = "warp"
                run["warp"].append({"header": m.groupdict(), "rows": []})
                continue
            if section == "host" and HOST_ROW.match(line):
                continue
            m = GPU_ROW.match(line)
            if section == "gpu" and m:
                run["gpu"][m.group("work")] = number(m.group(2))
                continue
            if section == "warp" and WARP_FAILED.match(line):
                continue
            m = WARP_ROW.match(line)
            if section == "warp" and m and (m.group("fps") or m.group("ms")):
                run["warp"][-1]["rows"].append(
                    (m.group("element").strip(), number(m.group("fps")),
                     number(m.group("ms")),
                     m.group("fps") or m.group("ms")))
                continue
            raise ParseError("%s:%d: not a line of a benchmark's output: %r"
                             % (path, n, line))
    run["cpu_bench"] = CPU_BENCH.parse_rows(path)[0]
    if not run["gpu"] and not any(r["rows"] for r in run["warp"]) \
            and not run["reduce"] and not run["cpu_bench"]:
        raise ParseError("%s: no gpu-bench, bench-warp, bench-reduce or "
                         "cpu-bench row" % path)
    run["machine"] = run["machine"] or run["key"][0]
    run["date"] = run["date"] or run["file_date"]
    return run


def newest(runs):
    """The newest run of each MACHINE and BENCHMARK."""
    best = {}
    for run in runs:
        k = run["key"]
        if k not in best or run["file_date"] > best[k]["file_date"]:
            best[k] = run
    return sorted(best.values(), key=lambda r: r["path"])


def is_gpu(run):
    return bool(run["gpu"]) or any(
        "backend=cuda" in row[0] for w in run["warp"] for row in w["rows"])


OURS, ANCHOR = "#1f5fa8", "#c0792f"
LIBRARY_COLOURS = {"NPP": "#76b900", "torch": "#ee4c2c", "cupyx": "#8c8c8c"}


def title(run, what):
    return "%s\n%s" % (what, textwrap.fill("%s; %s" % (run["date"],
                                                       run["machine"]), 120))


def draw_gpu_bench(ax, run):
    """Device time of each work that has an anchor: ours and theirs."""
    works = [w for w in run["gpu"] if w in run["anchors"]]
    y, labels, ticks = 0.0, [], []
    drawn = set()
    for w in works:
        bars = [("bsplinewarp (ours)", "ours", run["gpu"][w], OURS)]
        for a, t in run["anchors"][w].items():
            library = a.split()[0]
            if t is not None:
                bars.append((a, library, t,
                             LIBRARY_COLOURS.get(library, ANCHOR)))
        top = y
        for name, key, t, colour in bars:
            ax.barh(y, t, height=0.8, color=colour,
                    label=None if key in drawn else
                    ("bsplinewarp (ours)" if key == "ours" else key))
            drawn.add(key)
            ax.text(t * 1.05, y, "%.1f  %s" % (t, name), va="center",
                    fontsize=8)
            y += 1
        ticks.append((top + y - 1) / 2)
        labels.append(w.replace(" (0.5, 0.5) reflect", ""))
        y += 0.8
    ax.set_xscale("log")
    ax.set_yticks(ticks)
    ax.set_yticklabels(labels, fontsize=9)
    ax.invert_yaxis()
    ax.set_xlabel("device time per frame, us (log scale; shorter is faster)")
    ax.set_xlim(right=ax.get_xlim()[1] * 8)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1))
    ax.set_title(title(run, "GPU device time, bench/gpu-bench and its "
                       "anchors (median of 30 launches)"), fontsize=10)


def draw_bench_warp(ax, run):
    """Each element of each run heading: frames/s where every row has
    them, else median ms per frame; rounds of the same heading and
    element become one bar (their median) with a dot per round."""
    rows = [(w["header"], e, fps, ms, text) for w in run["warp"]
            for e, fps, ms, text in w["rows"]]
    use_fps = all(fps is not None for _, _, fps, _, _ in rows)
    groups, texts = {}, {}
    for h, e, fps, ms, text in rows:
        heading = "%s %s, inputs in %s" % (h["format"], h["size"],
                                          h["inputs"])
        groups.setdefault(heading, {}).setdefault(e, []).append(
            fps if use_fps else ms)
        texts[(heading, e)] = text
    y, ticks, labels = 0.0, [], []
    drawn = set()
    for heading, elements in groups.items():
        if len(groups) > 1:
            ax.text(0.005, y, heading, fontsize=8, style="italic",
                    transform=ax.get_yaxis_transform(), va="center")
            y += 1
        for e, values in elements.items():
            ours = e.startswith("bsplinewarp")
            label = "bsplinewarp (ours)" if ours else "anchors"
            v = statistics.median(values)
            ax.barh(y, v, height=0.8, color=OURS if ours else ANCHOR,
                    label=None if label in drawn else label)
            drawn.add(label)
            if len(values) > 1:
                ax.plot(values, [y] * len(values), "k.", markersize=4,
                        label=None if "rounds" in drawn else "each round")
                drawn.add("rounds")
            ax.text(max(values) * 1.02, y, texts[(heading, e)]
                    if len(values) == 1 else "%.2f (median)" % v,
                    va="center", fontsize=8)
            ticks.append(y)
            labels.append(e)
            y += 1
        y += 0.6
    ax.set_yticks(ticks)
    ax.set_yticklabels(labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(right=ax.get_xlim()[1] * 1.15)
    ax.set_xlabel("frames/s (longer is faster)" if use_fps else
                  "median ms per frame (shorter is faster)")
    ax.set_ylim(y - 0.5, -0.7)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1))
    formats = []
    for w in run["warp"]:
        if w["header"]["format"] not in formats:
            formats.append(w["header"]["format"])
    h = run["warp"][0]["header"]
    ax.set_title(title(run, "bench/bench-warp: %s %s (%s)"
                       % (", ".join(formats), h["size"], h["gst"])),
                 fontsize=10)


def draw_reduce(ax, run):
    """bench-reduce's whole frames (not its stages) beside the zscale
    anchor, per thread count: the median over the rounds of each row's
    wall time per frame, a dot per round, and the CPU time in the label."""
    groups = {}
    for who, what, threads, ms, cpu in run["reduce"]:
        if " / " in what:
            continue
        groups.setdefault((threads, who, what), []).append((ms, cpu))
    y, ticks, labels = 0.0, [], []
    drawn = set()
    for threads in sorted({k[0] for k in groups}):
        for key in [k for k in groups if k[0] == threads]:
            _, who, what = key
            values = [v for v, _ in groups[key]]
            ms = statistics.median(values)
            cpu = statistics.median(c for _, c in groups[key])
            label = "bsplinewarp core (ours)" if who == "ours" else \
                "zimg spline36 (ffmpeg zscale)"
            ax.barh(y, ms, height=0.8, color=OURS if who == "ours"
                    else ANCHOR, label=None if label in drawn else label)
            drawn.add(label)
            if len(values) > 1:
                ax.plot(values, [y] * len(values), "k.", markersize=4,
                        label=None if "rounds" in drawn else "each round")
                drawn.add("rounds")
            ax.text(max(values) * 1.02, y, "%.1f ms (cpu %.1f)" % (ms, cpu),
                    va="center", fontsize=8)
            ticks.append(y)
            labels.append("%s, %d thread%s" % (what, threads,
                                               "s" if threads > 1 else ""))
            y += 1
        y += 0.6
    ax.set_yticks(ticks)
    ax.set_yticklabels(labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(right=ax.get_xlim()[1] * 1.2)
    ax.set_xlabel("wall ms per frame, median of the rounds "
                  "(shorter is faster)")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1))
    ax.set_title(title(run, "bench/reduce-vs-zimg.sh: RGBA %s on the CPU, "
                       "the core beside zimg" % run.get("reduce_size", "")),
                 fontsize=10)


# the anchors of a cpu-bench chart: colour and marker
CPU_BENCH_ANCHORS = {
    "videoscale method=lanczos": ("#c0792f", "o"),
    "videoscale method=4-tap": ("#e0b070", "o"),
    "zimg spline36": ("#2f8f4f", "s"),
    "zimg lanczos": ("#8fcf9f", "s"),
    "swscale lanczos": ("#7f4fbf", "D"),
    "cv2.resize INTER_CUBIC": ("#c03030", "^"),
    "cv2.resize INTER_LANCZOS4": ("#f08080", "^"),
    "cv2.resize INTER_AREA": ("#808080", "v"),
    "cv2.warpAffine INTER_CUBIC": ("#c03030", "P"),
    "cv2.warpPerspective INTER_CUBIC": ("#c03030", "X"),
}


def cpu_bench_runs(runs):
    """The cpu-bench runs to draw: the full-mode ones (a name without
    "quick"), or the quick ones where no full run is recorded."""
    runs = [r for r in runs if r["cpu_bench"]]
    full = [r for r in runs if "quick" not in r["key"][1]]
    return full or runs


def draw_cpu_bench(ax, run, threads):
    """Ours (default properties) over each anchor, one row per case and
    format, at one thread count: the ratio of the wall times per frame
    (filled marker) and of the CPU times (hollow; the steadier on a
    shared machine)."""
    rows = [r for r in run["cpu_bench"] if r["threads"] == threads]
    times = {(r["case"], r["format"],
              re.sub(r" \(on \w+\)$", "", r["tool"])): r for r in rows}
    keys = [(c, f) for c in CPU_BENCH.CASES for f in CPU_BENCH.FORMATS
            if (c, f, "bsplinewarp") in times]
    drawn = set()
    for y, (c, f) in enumerate(keys):
        ours = times[(c, f, "bsplinewarp")]
        for a, (colour, marker) in CPU_BENCH_ANCHORS.items():
            r = times.get((c, f, a))
            if r is None or r["wall"] <= 0 or r["cpu"] <= 0:
                continue
            ax.plot(ours["wall"] / r["wall"], y, marker, color=colour,
                    markersize=6, linestyle="none", alpha=0.85,
                    label=None if a in drawn else a)
            ax.plot(ours["cpu"] / r["cpu"], y, marker, color=colour,
                    markerfacecolor="none", markersize=6, linestyle="none",
                    alpha=0.85)
            drawn.add(a)
        ax.text(1.02, y, "%.1f ms (cpu %.1f)" % (ours["wall"], ours["cpu"]),
                fontsize=7, va="center", transform=ax.get_yaxis_transform())
    ax.axvline(1, color="k", linewidth=0.8)
    ax.set_xscale("log")
    ax.set_yticks(range(len(keys)))
    ax.set_yticklabels(["%s %s" % k for k in keys], fontsize=7)
    ax.set_ylim(len(keys) - 0.5, -0.5)
    ax.set_xlabel("ours / anchor per frame, filled: wall time, hollow: CPU "
                  "time\n(log; right of 1: ours slower)")
    ax.set_title("%d thread%s" % (threads, "s" if threads > 1 else ""),
                 fontsize=10)
    ax.grid(axis="x", alpha=0.3, which="both")
    return drawn


def render_cpu_bench(runs, path, plt):
    """benchmarks-cpu-anchors.png: a row of panels (one per thread count)
    per cpu-bench run; False where there is none."""
    runs = cpu_bench_runs(runs)
    if not runs:
        return False
    threads = [sorted({r["threads"] for r in run["cpu_bench"]})
               for run in runs]
    n_rows = max(len({(r["case"], r["format"]) for r in run["cpu_bench"]})
                 for run in runs)
    fig, axes = plt.subplots(len(runs), max(len(t) for t in threads),
                             squeeze=False, sharey="row",
                             figsize=(14, len(runs) * (1.8 + 0.2 * n_rows)))
    for run, ts, row in zip(runs, threads, axes):
        drawn = set()
        for t, ax in zip(ts, row):
            drawn |= draw_cpu_bench(ax, run, t)
        for ax in row[len(ts):]:
            ax.set_visible(False)
        first = row[0].get_title()
        row[0].set_title("")
        row[0].set_title(textwrap.fill("%s; %s; %s" % (
            os.path.basename(run["path"]), run["date"], run["machine"]),
            90) + "\n" + first, fontsize=9, loc="left")
        handles, labels = row[0].get_legend_handles_labels()
        for ax in row[1:len(ts)]:
            for h, label in zip(*ax.get_legend_handles_labels()):
                if label not in labels:
                    handles.append(h)
                    labels.append(label)
        row[len(ts) - 1].legend(handles, labels, fontsize=7,
                                loc="upper left", bbox_to_anchor=(1.3, 1))
    fig.suptitle("gst-bspline: bsplinewarp (default properties) on the CPU "
                 "over each anchor, same frames, same run "
                 "(bench/cpu-bench.py)", fontsize=11, fontweight="bold")
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return True


def render(runs, out_dir):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    written = []
    for name, chosen in (("benchmarks-gpu.png", [r for r in runs
                                                  if is_gpu(r)]),
                         ("benchmarks-cpu.png", [r for r in runs
                                                  if not is_gpu(r)])):
        panels = []
        for r in sorted(chosen, key=lambda r: not r["gpu"]):
            # (a gpu-bench run draws the works that have an anchor)
            if any(w in r["anchors"] for w in r["gpu"]):
                panels.append((draw_gpu_bench, r, 1 + sum(
                    1 + len(r["anchors"][w]) for w in r["gpu"]
                    if w in r["anchors"])))
            if r["reduce"]:
                panels.append((draw_reduce, r, 3 + len({
                    (t, who, what) for who, what, t, _, _ in r["reduce"]
                    if " / " not in what}) + 1.6))
            if any(w["rows"] for w in r["warp"]):
                headings = {(w["header"]["format"], w["header"]["size"],
                             w["header"]["inputs"]) for w in r["warp"]}
                bars = {(w["header"]["format"], w["header"]["size"],
                         w["header"]["inputs"], e)
                        for w in r["warp"] for e, _, _, _ in w["rows"]}
                panels.append((draw_bench_warp, r, 3 + len(bars) +
                               (1.6 * len(headings) if len(headings) > 1
                                else 0)))
        if not panels:
            continue
        heights = [h for _, _, h in panels]
        fig, axes = plt.subplots(len(panels), 1, squeeze=False,
                                 figsize=(11, 1.2 + 0.3 * sum(heights)),
                                 gridspec_kw={"height_ratios": heights})
        for (draw, r, _), ax in zip(panels, axes[:, 0]):
            draw(ax, r)
            ax.grid(axis="x", alpha=0.3)
        fig.suptitle("gst-bspline: %s, ours against the anchors "
                     "(bench/results, bench/plot-benchmarks.py)"
                     % ("GPU machine" if "gpu" in name else "CPU"),
                     fontsize=11, fontweight="bold")
        fig.tight_layout()
        path = os.path.join(out_dir, name)
        fig.savefig(path, dpi=90)
        plt.close(fig)
        written.append(path)
    path = os.path.join(out_dir, "benchmarks-cpu-anchors.png")
    if render_cpu_bench(runs, path, plt):
        written.append(path)
    return written


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--results", default=os.path.join(here, "results"))
    ap.add_argument("--out", default=os.path.join(here, "..", "docs",
                                                  "pictures"))
    ap.add_argument("--check", action="store_true",
                    help="render into a temporary directory; fail unless "
                    "the PNGs come out")
    args = ap.parse_args()

    files = sorted(os.path.join(args.results, f)
                   for f in os.listdir(args.results) if f.endswith(".txt"))
    if not files:
        print("no benchmark outputs (*.txt) in %s" % args.results)
        return 1
    try:
        runs = [parse(f) for f in files]
    except ParseError as e:
        print(e)
        return 1
    for r in runs:
        print("parsed %s: %d gpu-bench rows, %d anchors, %d bench-warp "
              "rows, %d bench-reduce rows, %d cpu-bench rows"
              % (r["path"], len(r["gpu"]),
                 sum(len(a) for a in r["anchors"].values()),
                 sum(len(w["rows"]) for w in r["warp"]), len(r["reduce"]),
                 len(r["cpu_bench"])))
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print("matplotlib is missing (Debian: python3-matplotlib, "
              "scripts/install-deps.sh): no charts")
        return 77 if args.check else 1
    chosen = newest(runs)
    if not args.check:
        for path in render(chosen, args.out):
            print("wrote", path)
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        written = render(chosen, tmp)
        names = ["benchmarks-gpu.png", "benchmarks-cpu.png"]
        if cpu_bench_runs(chosen):
            names.append("benchmarks-cpu-anchors.png")
        for name in names:
            path = os.path.join(tmp, name)
            if not os.path.exists(path):
                print("FAIL: %s was not written" % name)
                return 1
            with open(path, "rb") as f:
                if f.read(8) != b"\x89PNG\r\n\x1a\n":
                    print("FAIL: %s is not a PNG" % name)
                    return 1
            print("ok: %s, %d bytes" % (name, os.path.getsize(path)))
        print("%d charts from %d runs" % (len(written), len(chosen)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
