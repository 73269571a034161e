# SPDX-License-Identifier: LGPL-2.1-or-later
"""Anchors for bench/gpu-bench: the same work through torch and cupyx on
the same GPU, timed with CUDA events (median after warm-up, random data,
several inputs in rotation).  Run with the GPU machine's python3, which has
torch and cupy:  python3 bench/gpu-anchors.py
"""
import math
import statistics
import sys


def median_us(fn, inputs, start, stop, sync, repeat=30, warmup=5):
    times = []
    for i in range(-warmup, repeat):
        x = inputs[i % len(inputs)]
        start.record()
        fn(x)
        stop.record()
        sync(stop)
        if i >= 0:
            times.append(start.elapsed_time(stop))
    return statistics.median(times) * 1000.0


def torch_anchors():
    import torch
    import torch.nn.functional as F
    dev = torch.device("cuda")
    ev = lambda: torch.cuda.Event(enable_timing=True)
    start, stop = ev(), ev()
    sync = lambda e: e.synchronize()
    frames = [torch.randint(0, 256, (1, 4, 2160, 3840), dtype=torch.uint8,
                            device=dev) for _ in range(4)]
    a = math.radians(10.0)
    theta = torch.tensor([[[math.cos(a), math.sin(a), 0.0],
                           [-math.sin(a), math.cos(a), 0.0]]], device=dev)
    grid = F.affine_grid(theta, (1, 4, 2160, 3840), align_corners=False)

    def rotate(x):
        return F.grid_sample(x.float(), grid, mode="bicubic",
                             align_corners=False).clamp(0, 255).to(torch.uint8)

    print("%-52s %10.1f" % ("torch grid_sample bicubic, 4K RGBA8 rotate",
                            median_us(rotate, frames, start, stop, sync)))
    small = [torch.randint(0, 256, (1, 4, 1080, 1920), dtype=torch.uint8,
                           device=dev) for _ in range(4)]

    def upscale(x):
        return F.interpolate(x.float(), size=(2160, 3840), mode="bicubic",
                             align_corners=False).clamp(0, 255).to(torch.uint8)

    print("%-52s %10.1f" % ("torch interpolate bicubic, 1080p -> 4K RGBA8",
                            median_us(upscale, small, start, stop, sync)))


def cupyx_anchors():
    import cupy as cp
    import cupyx.scipy.ndimage as nd
    start, stop = cp.cuda.Event(), cp.cuda.Event()

    def run(fn, inputs, repeat=10, warmup=2):
        times = []
        for i in range(-warmup, repeat):
            x = inputs[i % len(inputs)]
            start.record()
            fn(x)
            stop.record()
            stop.synchronize()
            if i >= 0:
                times.append(cp.cuda.get_elapsed_time(start, stop))
        return statistics.median(times) * 1000.0

    frames = [cp.random.randint(0, 256, (2160, 3840, 4)).astype(cp.uint8)
              for _ in range(2)]
    a = math.radians(10.0)
    c, s = math.cos(a), math.sin(a)
    m = cp.array([[c, -s, 0, 0], [s, c, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]])

    def rotate(x):
        return nd.affine_transform(x, m[:3, :3], order=3, mode="reflect")

    print("%-52s %10.1f" % ("cupyx affine_transform order 3, 4K RGBA8 rotate",
                            run(rotate, frames, repeat=5)))
    small = [cp.random.randint(0, 256, (1080, 1920, 4)).astype(cp.uint8)
             for _ in range(2)]
    print("%-52s %10.1f" % ("cupyx zoom order 3, 1080p -> 4K RGBA8",
                            run(lambda x: nd.zoom(x, (2, 2, 1), order=3),
                                small, repeat=5)))
    # accuracy: an 8-bit input is interpolated in float32 (cupyx promotes
    # it so), here written out unrounded; the reference is cupyx's float64
    # path on the same frame (code values, before rounding)
    for what, fn, x in (
            ("4K RGBA8 rotate", lambda x, o: nd.affine_transform(
                x, m[:3, :3], order=3, mode="reflect", output=o), frames[0]),
            ("1080p -> 4K RGBA8", lambda x, o: nd.zoom(
                x, (2, 2, 1), order=3, output=o), small[0])):
        got = fn(x, cp.float32).astype(cp.float64)
        ref = fn(x.astype(cp.float64), cp.float64)
        print("cupyx accuracy, %-36s max |float32 - float64| %.3g code values"
              % (what, float(cp.abs(got - ref).max())))
    big = [cp.random.random((3456, 4608)).astype(cp.float32) * 255
           for _ in range(2)]
    for order in (3, 5):
        print("%-52s %10.1f" % (
            "cupyx shift order %d, 4608x3456 float" % order,
            run(lambda x: nd.shift(x, (0.5, 0.5), order=order,
                                   mode="reflect"), big, repeat=5)))


if __name__ == "__main__":
    for anchors in (torch_anchors, cupyx_anchors):
        try:
            anchors()
        except Exception as e:  # a missing package is a missing anchor
            print("%s: not run (%s)" % (anchors.__name__, e), file=sys.stderr)
