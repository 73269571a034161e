#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Issue 42's target, measured: the reframing of a band-limited sphere
(equirect 3840x1920 -> flat 1920x1080, 90 degrees horizontal field of
view) by the projection stage (order 3, double, projection-tool) and by
ffmpeg's v360 (lanczos, linear) on the same 16-bit input, PSNR against
the closed form; then the CPU time (user + sys of the process, all its
threads) of one frame at one thread, bsplinewarp (float, the element's
default precision) in gst-launch against v360 in ffmpeg on 8-bit grey
frames, both reading raw frames into a fakesink / null output, each the
difference between a run of FRAMES + 2 frames and one of 2 (start-up left
out), the runs of the two tools interleaved; and the CPU engine alone
(bench/bench-projection: the median of single frames).  CPU time, not wall
time: the development machine's two cores are shared with other jobs.

Usage: bench/projection-vs-v360.py BUILD_DIR [FRAMES [REPEATS]]
(run under the project's .venv: numpy).  REPEATS (default 3): runs of each
length; the smallest CPU time of each is taken."""
import os
import resource
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "tests", "core"))
import projection_reference as ref  # noqa: E402
import test_projection as tp  # noqa: E402


def main():
    build = sys.argv[1]
    frames = int(sys.argv[2]) if len(sys.argv) > 2 else 30
    repeats = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    W, H, ow, oh = 3840, 1920, 1920, 1080
    hfov = 90.0
    vfov = float(np.degrees(2 * np.arctan(np.tan(np.radians(45)) * oh / ow)))
    rng = np.random.default_rng(42)
    waves = tp.plane_waves(rng, 12, 0.3 * W / (2 * np.pi))
    src = np.rint(tp.to16(tp.equirect_image(waves, W, H)))
    ypr = (20.0, 10.0, 5.0)
    d, _ = ref.output_directions("flat", ow, oh, (hfov, vfov), ypr)
    truth = tp.sphere_values(waves, d)
    with tempfile.TemporaryDirectory() as tmp:
        tool = tp.Tool(os.path.join(build, "tests", "core",
                                    "projection-tool"), tmp)
        ours = tp.from16(tool.run("equirect", "flat", (W, H), (ow, oh),
                                  (hfov, vfov), (0, 0), ypr,
                                  want=("result",), image=src,
                                  extra=("boundary=wrap",))["result"][..., 0])
        opts = tp.v360_opts("equirect", "flat", (hfov, vfov), (360, 180), ypr)
        print("reframing %dx%d -> %dx%d, band-limited sphere (0.3 "
              "cycles/px): PSNR ours (order 3) %.2f dB, v360 lanczos "
              "%.2f dB, v360 linear %.2f dB" % (
                  W, H, ow, oh, tp.psnr(ours, truth),
                  tp.psnr(tp.from16(tp.v360(src, (ow, oh), opts,
                                            "lanczos")), truth),
                  tp.psnr(tp.from16(tp.v360(src, (ow, oh), opts, "linear")),
                          truth)))
        # speed: raw 8-bit grey frames through each tool, one thread
        raw = os.path.join(tmp, "in.gray")
        frame = np.clip((src / 257), 0, 255).astype(np.uint8).tobytes()
        env = dict(os.environ, GST_PLUGIN_PATH=os.path.join(build, "gst"))
        gst = ["gst-launch-1.0", "-q", "filesrc", "location=" + raw, "!",
               "rawvideoparse", "format=gray8", "width=%d" % W,
               "height=%d" % H, "framerate=30/1", "!", "bsplinewarp",
               "n-threads=1", "projection-in=equirect", "projection-out=flat",
               "h-fov=%r" % hfov, "v-fov=%r" % vfov, "yaw=20", "pitch=10",
               "roll=5", "!",
               "video/x-raw,width=%d,height=%d" % (ow, oh), "!", "fakesink"]
        ff = ["ffmpeg", "-v", "error", "-threads", "1", "-filter_threads",
              "1", "-f", "rawvideo", "-pix_fmt", "gray", "-s",
              "%dx%d" % (W, H), "-i", raw, "-vf",
              "v360=%s:interp=lanczos:w=%d:h=%d" % (opts, ow, oh), "-f",
              "null", "-"]
        tools = (("bsplinewarp (float, order 3)", gst),
                 ("v360 lanczos", ff))
        cpu = {}
        for n in (2, frames + 2):
            with open(raw, "wb") as f:
                for _ in range(n):
                    f.write(frame)
            for _ in range(repeats):
                for name, cmd in tools:
                    before = resource.getrusage(resource.RUSAGE_CHILDREN)
                    subprocess.run(cmd, check=True, env=env)
                    after = resource.getrusage(resource.RUSAGE_CHILDREN)
                    t = (after.ru_utime - before.ru_utime
                         + after.ru_stime - before.ru_stime)
                    cpu[name, n] = min(cpu.get((name, n), t), t)
        print("load average %.1f %.1f %.1f" % os.getloadavg())
        for name, _ in tools:
            print("%s: %.1f ms CPU per frame at one thread (%d frames "
                  "%.2f s less 2 frames %.2f s, user + sys, least of %d)"
                  % (name, 1e3 * (cpu[name, frames + 2] - cpu[name, 2])
                     / frames, frames + 2, cpu[name, frames + 2],
                     cpu[name, 2], repeats))
        engine = os.path.join(build, "bench", "bench-projection")
        for fmt in ("gray8", "rgba8"):
            out = subprocess.run([engine, "--format", fmt, "--threads", "1"],
                                 check=True, capture_output=True, text=True)
            print("CPU engine alone: " + out.stdout.strip())


if __name__ == "__main__":
    main()
