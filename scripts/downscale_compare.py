# SPDX-License-Identifier: LGPL-2.1-or-later
"""Downscaling quality against the peers, on real photographs.

Each photograph (RGB, 8 bits) is reduced by every ratio through each
scaler, then every reduction is enlarged back to the original size by one
common spline (scipy.ndimage, order 5, the same pixel-area mapping for
all) and compared with the original: PSNR over RGB, a 16-pixel margin left
out.  The scalers:
  bsplinewarp   this plugin (antialias and order as asked)
  videoscale    GStreamer's, method=lanczos
  zimg          ffmpeg's zscale filter, filter=lanczos (Debian's ffmpeg)
  box           the exact area average, numpy: each output pixel is the
                mean of the input over its area (pixels cut by its edges
                weighted by the part inside), for any ratio
Also the zone plate: the energy that a reduction by 2 and by 3 leaves
where the plate's frequency is beyond the reduced grid's Nyquist frequency
(see aliased_energy), for each scaler.

Used by tests/elements/test_downscale.py (which sets the thresholds) and
by docs/benchmarks.md ("Downscaling quality (least squares)"):
  python3 scripts/downscale_compare.py --plugin-path build/gst \
    --orders 3,5 --antialias least-squares,none --zone --table
"""
import argparse
import os
import subprocess
import sys
import tempfile
import warnings
from concurrent.futures import ThreadPoolExecutor
from math import comb

import numpy as np
from scipy import ndimage, sparse

MARGIN = 16

# bsplinewarp's antialias values as the launch lines spell them: the only
# place to change when the property's values change.  Today antialias is a
# boolean whose true is the least-squares reduction; as an enum (nicks
# none / least-squares / widen) these become "least-squares" and "none"
# ("true" and "false" stay as aliases).  The keys are the names in labels
# and on the command line (--antialias); a value not among the keys is
# passed as it is (e.g. --antialias widen).
ANTIALIAS = {"least-squares": "true", "none": "false"}
LEAST_SQUARES = "least-squares"
NO_ANTIALIAS = "none"


def bsplinewarp_label(aa, order):
    return f"bsplinewarp {aa} order {order}"


PEERS = ("zimg lanczos", "videoscale lanczos", "box")


def photos():
    """Real photographs that Debian's python3-skimage and scipy ship."""
    from skimage import data
    out = {"astronaut": data.astronaut(), "coffee": data.coffee(),
           "chelsea": data.chelsea()}
    try:
        from scipy import misc
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # moved to scipy.datasets (pooch)
            out["face"] = misc.face()
    except Exception:
        pass
    return {k: np.ascontiguousarray(v[..., :3]).astype(np.uint8)
            for k, v in out.items()}


def rgba(img):
    h, w, _ = img.shape
    a = np.full((h, w, 4), 255, np.uint8)
    a[..., :3] = img
    return a


def gst_env(plugin_path, tmp):
    """The environment of gst-launch-1.0: the plugin path, and a registry
    of this run's own (in tmp) unless the caller set one, so that a plugin
    cached from another build is never the one measured."""
    env = dict(os.environ)
    if plugin_path:
        env["GST_PLUGIN_PATH"] = plugin_path
    env.setdefault("GST_REGISTRY", os.path.join(tmp, "registry.bin"))
    return env


def check_gst(plugin_path, tmp):
    """Scans the plugins once (before any run in parallel writes the
    registry) and fails clearly where bsplinewarp is not found."""
    r = subprocess.run(["gst-inspect-1.0", "bsplinewarp"],
                       env=gst_env(plugin_path, tmp), capture_output=True,
                       text=True)
    if r.returncode != 0:
        raise RuntimeError(f"bsplinewarp not found (GST_PLUGIN_PATH="
                           f"{plugin_path}): {r.stderr.strip()}")


def run_gst(img, w, h, element, plugin_path, tmp):
    """img (RGB) through `element` to w x h, as RGB.  tmp: a folder of
    this call's own, inside the run's folder (which holds the registry,
    see gst_env and check_gst)."""
    src = rgba(img)
    ih, iw, _ = src.shape
    fin = os.path.join(tmp, "in.rgba")
    fout = os.path.join(tmp, "out.rgba")
    src.tofile(fin)
    cmd = ["gst-launch-1.0", "-q", "filesrc", f"location={fin}",
           f"blocksize={iw * ih * 4}", "!", "rawvideoparse", "format=rgba",
           f"width={iw}", f"height={ih}", "framerate=1/1", "!"]
    cmd += element.split() + ["!", f"video/x-raw,width={w},height={h}",
                              "!", "filesink", f"location={fout}"]
    env = gst_env(plugin_path, os.path.dirname(tmp))
    subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL)
    out = np.fromfile(fout, np.uint8)
    if out.size != w * h * 4:
        raise RuntimeError(f"{element}: {out.size} bytes, expected "
                           f"{w * h * 4}")
    return out.reshape(h, w, 4)[..., :3]


def run_zimg(img, w, h, tmp, filt="lanczos"):
    ih, iw, _ = img.shape
    fin = os.path.join(tmp, "in.rgb")
    fout = os.path.join(tmp, "out.rgb")
    img.tofile(fin)
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "rawvideo",
                    "-pix_fmt", "rgb24", "-s", f"{iw}x{ih}", "-i", fin,
                    "-vf", f"zscale=w={w}:h={h}:filter={filt}",
                    "-f", "rawvideo", "-pix_fmt", "rgb24", fout],
                   check=True)
    return np.fromfile(fout, np.uint8).reshape(h, w, 3)


def area_matrix(n, m):
    """m x n weights of the exact area average of n pixels onto m: output
    pixel j covers [j, j + 1) n / m of the input."""
    s = n / m
    lo = np.arange(m)[:, None] * s
    i = np.arange(n)[None, :]
    overlap = np.minimum(lo + s, i + 1) - np.maximum(lo, i)
    return np.clip(overlap, 0, None) / s


def box(img, w, h):
    """The exact area average of img on a w x h grid (8 bits, rounded)."""
    ih, iw, _ = img.shape
    ay, ax = area_matrix(ih, h), area_matrix(iw, w)
    out = np.einsum("yi,ijc,xj->yxc", ay, img.astype(np.float64), ax,
                    optimize=True)
    return np.clip(np.rint(out), 0, 255).astype(np.uint8)


def _quintic(x):
    """The centred B-spline of degree 5."""
    s = np.zeros_like(x)
    for k in range(7):
        s += (-1) ** k * comb(6, k) * np.maximum(x + 3 - k, 0) ** 5
    return s / 120


def _spline_matrix(n_small, n):
    """n x n_small sparse matrix: the order-5 spline with coefficients on
    the n_small grid, evaluated at the n output centres (pixel areas
    aligned), the coefficients extended by half-sample symmetry
    (scipy.ndimage's mode "reflect")."""
    xs = (np.arange(n) + 0.5) * n_small / n - 0.5
    base = np.floor(xs).astype(int)
    rows, cols, vals = [], [], []
    for k in range(-2, 4):
        idx = base + k
        j = np.mod(idx, 2 * n_small)
        j = np.where(j >= n_small, 2 * n_small - 1 - j, j)
        rows.append(np.arange(n))
        cols.append(j)
        vals.append(_quintic(xs - idx))
    return sparse.csr_matrix(
        (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
        shape=(n, n_small))


def enlarge(small, w, h):
    """The common enlargement: order-5 spline, reflect, pixel areas
    aligned (output centre u + 0.5 sits at (u + 0.5) * w_small / w).
    That is scipy.ndimage.map_coordinates(spline_filter(small, 5,
    mode="reflect"), ..., order=5, mode="reflect", prefilter=False),
    computed separably (7 times faster; the same 8-bit result on the
    photos and on noise at every ratio here)."""
    sh, sw, _ = small.shape
    my = _spline_matrix(sh, h)
    mxt = _spline_matrix(sw, w).T.tocsr()
    out = np.empty((h, w, 3))
    for c in range(3):
        coef = ndimage.spline_filter(small[..., c].astype(np.float64), 5,
                                     mode="reflect")
        out[..., c] = (my @ coef) @ mxt
    return np.clip(np.rint(out), 0, 255)


def psnr(a, b):
    m = MARGIN
    d = a[m:-m, m:-m].astype(np.float64) - b[m:-m, m:-m].astype(np.float64)
    return 10 * np.log10(255.0 ** 2 / np.mean(d * d))


RATIOS = {"1/2": (1, 2), "1/3": (1, 3), "1/4": (1, 4), "2/3": (2, 3)}


def reduced_size(img, ratio):
    p, q = RATIOS[ratio]
    h, w, _ = img.shape
    return max(1, round(w * p / q)), max(1, round(h * p / q))


def scalers(orders, aa_values, peers=True):
    """{label: (kind, argument)}: bsplinewarp for each antialias value and
    order, then the peers (PEERS) unless peers is False."""
    out = {}
    for aa in aa_values:
        for n in orders:
            out[bsplinewarp_label(aa, n)] = (
                "gst", f"bsplinewarp order={n} n-threads=1 "
                       f"antialias={ANTIALIAS.get(aa, aa)}")
    if peers:
        out["zimg lanczos"] = ("zimg", "lanczos")
        out["videoscale lanczos"] = ("gst", "videoscale method=lanczos")
        out["box"] = ("box", None)
    return out


def reduce_with(kind, arg, img, w, h, plugin_path, tmp):
    if kind == "gst":
        return run_gst(img, w, h, arg, plugin_path, tmp)
    if kind == "zimg":
        return run_zimg(img, w, h, tmp, arg)
    return box(img, w, h)


def _each(tasks, jobs, tmp):
    """Runs fn(tmpdir) for each (key, fn) of tasks, jobs at a time, each
    in a folder of its own under tmp; {key: result}."""
    def one(i, fn):
        sub = os.path.join(tmp, str(i))
        os.makedirs(sub, exist_ok=True)
        return fn(sub)
    if jobs <= 1:
        return {key: one(i, fn) for i, (key, fn) in enumerate(tasks)}
    with ThreadPoolExecutor(jobs) as pool:
        futures = {key: pool.submit(one, i, fn)
                   for i, (key, fn) in enumerate(tasks)}
        return {key: f.result() for key, f in futures.items()}


def roundtrip_table(plugin_path, orders, aa_values, names=None,
                    ratios=None, jobs=1, peers=True):
    """{(photo, ratio): {scaler: PSNR in dB}}; jobs: reductions run at
    once (the gst-launch-1.0 and ffmpeg processes; bsplinewarp itself on
    one thread each)."""
    sc = scalers(orders, aa_values, peers)
    tasks = []
    for name, img in photos().items():
        if names and name not in names:
            continue
        h0, w0, _ = img.shape
        for ratio in ratios or RATIOS:
            w, h = reduced_size(img, ratio)
            for label, (kind, arg) in sc.items():
                def fn(sub, kind=kind, arg=arg, img=img, w=w, h=h, w0=w0,
                       h0=h0):
                    small = reduce_with(kind, arg, img, w, h, plugin_path,
                                        sub)
                    return psnr(img, enlarge(small, w0, h0))
                tasks.append(((name, ratio, label), fn))
    with tempfile.TemporaryDirectory() as tmp:
        check_gst(plugin_path, tmp)
        results = _each(tasks, jobs, tmp)
    table = {}
    for (name, ratio, label), v in results.items():
        table.setdefault((name, ratio), {})[label] = v
    return table


def zone_plate(n=512):
    """A zone plate of 8-bit grey levels, cos(pi r^2 / n): its frequency
    grows linearly from 0 at the centre to the Nyquist frequency (1/2
    cycle per pixel) at the middle of each edge, along x and y
    separately."""
    y, x = np.mgrid[0:n, 0:n] + 0.5 - n / 2
    r2 = x * x + y * y
    k = np.pi / n
    v = 127.5 + 127.5 * np.cos(k * r2)
    g = np.clip(np.rint(v), 0, 255).astype(np.uint8)
    return np.repeat(g[..., None], 3, axis=2)


def aliased_energy(small, q, band=(0.5, None)):
    """Mean squared deviation from mid-grey (127.5) of the reduced zone
    plate where it should be flat: the energy a reduction by q leaves
    beyond the reduced grid's Nyquist frequency.

    The plate's local frequency at reduced pixel (x, y) from the centre is
    (x, y) q / n cycles per reduced pixel along each axis (n the reduced
    side; x q / (n q) cycles per original pixel).  The reduced grid holds
    frequencies whose two components are both below 1/2 cycle per pixel
    (a separable reduction's square band).  Where either component of the
    plate is above 1/2 (and below q / 2, where the original still holds
    the plate) the ideal reduction is flat, mid-grey: the plate's term
    along that axis is removed, and so is its product with the other
    axis's term.  Whatever the reduction leaves there cannot be shown at
    its true frequency; it is aliased (the moire rings of the pictures in
    docs/pictures.md).

    The region starts right at 1/2 (two reduced pixels of margin), so it
    counts the transition band too: a filter whose response is flat up to
    Nyquist and falls off beyond it (the least-squares spline) leaves
    energy there that a filter already rolling off below Nyquist (lanczos,
    the area average) does not, at the price of that filter's blur of the
    passband, which this measure does not see (the round trip does).
    band=(lo, hi) limits the region to lo < max component < hi (hi None:
    up to q / 2), in cycles per reduced pixel, to look at the transition
    band and beyond it separately."""
    g = small[..., 0].astype(np.float64)
    n = g.shape[0]
    y, x = np.mgrid[0:n, 0:n] + 0.5 - n / 2
    fx, fy = np.abs(x) * q / n, np.abs(y) * q / n
    top = np.maximum(fx, fy)
    lo, hi = band
    hi = q / 2.0 if hi is None else hi
    region = (top > lo + 2.0 / n) & (top < hi - 2.0 / n)
    d = g[region] - 127.5
    return float(np.mean(d * d))


def zone_table(plugin_path, orders, aa_values, bands=((0.5, None),),
               jobs=1):
    """{band: {q: {scaler: aliased energy}}} for the reductions by 2 and 3
    of the 512 x 512 zone plate (to 256 and 171 pixels)."""
    sc = scalers(orders, aa_values)
    img = zone_plate()
    tasks = []
    for q in (2, 3):
        w = h = round(img.shape[0] / q)
        for label, (kind, arg) in sc.items():
            def fn(sub, kind=kind, arg=arg, w=w, h=h, q=q):
                small = reduce_with(kind, arg, img, w, h, plugin_path, sub)
                return [aliased_energy(small, q, b) for b in bands]
            tasks.append(((q, label), fn))
    with tempfile.TemporaryDirectory() as tmp:
        check_gst(plugin_path, tmp)
        results = _each(tasks, jobs, tmp)
    out = {b: {} for b in bands}
    for (q, label), energies in results.items():
        for b, e in zip(bands, energies):
            out[b].setdefault(q, {})[label] = e
    return out


BANDS = ((0.5, None), (0.5, 0.6), (0.6, None))


def band_name(q, band):
    lo, hi = band
    return f"{lo:g} to {q / 2.0 if hi is None else hi:g}"


def markdown(table, zones, orders):
    """The tables of docs/benchmarks.md: PSNR (dB) of the round trip, and
    the zone plate's energy in each band of zones."""
    cols = [bsplinewarp_label(LEAST_SQUARES, n) for n in orders] + \
        [bsplinewarp_label(NO_ANTIALIAS, n) for n in orders] + list(PEERS)
    short = {c: c.replace("bsplinewarp ", "").replace(
        f"{LEAST_SQUARES} order ", "LS ").replace(
        f"{NO_ANTIALIAS} order ", "none ") for c in cols}
    lines = []
    present = [c for c in cols if any(c in r for r in table.values())]
    lines.append("| photo | ratio | " + " | ".join(short[c] for c in present)
                 + " |")
    lines.append("| --- | --- |" + " ---: |" * len(present))
    for (name, ratio), row in table.items():
        lines.append(f"| {name} | {ratio} | " + " | ".join(
            f"{row[c]:.2f}" if c in row else "" for c in present) + " |")
    if zones:
        first = next(iter(zones.values()))
        present = [c for c in cols if any(c in r for r in first.values())]
        lines.append("")
        lines.append("| zone plate | band (cycles / reduced pixel) | "
                     + " | ".join(short[c] for c in present) + " |")
        lines.append("| --- | --- |" + " ---: |" * len(present))
        for q in first:
            for band, rows in zones.items():
                row = rows[q]
                lines.append(f"| /{q} | {band_name(q, band)} | " + " | ".join(
                    f"{row[c]:.0f}" if c in row else "" for c in present)
                    + " |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--plugin-path", default=None,
                    help="GST_PLUGIN_PATH for bsplinewarp (e.g. build/gst)")
    ap.add_argument("--orders", default="3,5")
    ap.add_argument("--antialias", default=LEAST_SQUARES,
                    help="comma-separated: least-squares, none (or a value "
                         "of the property as it is)")
    ap.add_argument("--photos", default=None)
    ap.add_argument("--ratios", default=None)
    ap.add_argument("--zone", action="store_true",
                    help="also the zone plate's aliased energy (with "
                         "--table: split into the transition band and "
                         "beyond)")
    ap.add_argument("--table", action="store_true",
                    help="markdown tables (docs/benchmarks.md)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                    help="reductions run at once (default: the CPUs)")
    args = ap.parse_args()
    orders = [int(o) for o in args.orders.split(",")]
    aa = args.antialias.split(",")
    names = args.photos.split(",") if args.photos else None
    ratios = args.ratios.split(",") if args.ratios else None
    table = roundtrip_table(args.plugin_path, orders, aa, names, ratios,
                            args.jobs)
    zones = None
    if args.zone:
        zones = zone_table(args.plugin_path, orders, aa,
                           BANDS if args.table else BANDS[:1], args.jobs)
    if args.table:
        print(markdown(table, zones, orders))
        return 0
    for (name, ratio), row in table.items():
        print(f"{name} x{ratio}: " + ", ".join(
            f"{k} {v:.2f}" for k, v in row.items()))
    for q, row in (zones or {BANDS[0]: {}})[BANDS[0]].items():
        print(f"zone plate /{q} aliased energy: " + ", ".join(
            f"{k} {v:.2f}" for k, v in row.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
