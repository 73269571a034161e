#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""bsplinewarp's projection properties in a running pipeline (appsrc !
bsplinewarp ! appsink, GStreamer's Python bindings of the project's
.venv):

 - yaw, pitch, roll and h-fov set between buffers while PLAYING, and yaw
   driven by a GstController (an interpolation control source): each
   output frame is the view of a band-limited sphere (16-bit grey) the
   settings of its own timestamp give, against the closed form (PSNR >=
   50 dB), and not the one of the frame before (the nearest of the
   candidate views is its own);
 - navigation: a pointer event on output points goes upstream as the
   input point the numpy projection (tests/core/projection_reference.py)
   gives, within 1e-6 px;
 - a field of view out of its projection's range: an element error that
   names the range.
Exits 77 without numpy or the bindings."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
REEXEC = "BSPLINE_PROJECTION_ELEMENT_REEXEC"
try:
    import numpy as np
    import gi
    gi.require_version("Gst", "1.0")
    gi.require_version("GstApp", "1.0")
    gi.require_version("GstController", "1.0")
    gi.require_version("GstVideo", "1.0")
    from gi.repository import Gst, GstController, GstVideo  # noqa: F401
except (ImportError, ValueError) as e:
    if not os.environ.get(REEXEC):
        py = os.path.join(ROOT, ".venv", "bin", "python3")
        if os.path.exists(py):
            os.environ[REEXEC] = "1"
            os.execv(py, [py, os.path.abspath(__file__)] + sys.argv[1:])
    print("test_projection (element): %s: skipped" % e)
    sys.exit(77)
sys.path.insert(0, os.path.join(ROOT, "tests", "core"))
import projection_reference as ref  # noqa: E402

W, H, OW, OH = 256, 128, 96, 72


def sphere(d):
    u = d / np.sqrt((d ** 2).sum(0))
    k = np.array([[3.0, -2.0, 4.0], [-5.0, 1.0, 2.0], [1.0, 4.0, -3.0]])
    return sum(np.cos(2 * np.pi * np.tensordot(k[i], u, 1) + i)
               for i in range(3)) / 3


def to16(v):
    return np.rint((v + 1) / 2 * 65535).astype("<u2")


def view(yaw, pitch, roll, hfov, vfov):
    d, _ = ref.output_directions("flat", OW, OH, (hfov, vfov),
                                 (yaw, pitch, roll))
    return sphere(d)


def psnr(a, b):
    return 10 * np.log10(4.0 / np.mean((a - b) ** 2))


def pipeline(extra=""):
    return Gst.parse_launch(
        "appsrc name=src format=time caps=video/x-raw,format=GRAY16_LE,"
        "width=%d,height=%d,framerate=30/1 ! bsplinewarp name=warp "
        "projection-in=equirect projection-out=flat boundary=wrap %s ! "
        "video/x-raw,width=%d,height=%d ! appsink name=sink sync=false"
        % (W, H, extra, OW, OH))


def run(frames, settings, controller=None):
    """Pushes the frame with each settings dict (set just before it);
    returns the output frames."""
    pipe = pipeline()
    src, warp, sink = (pipe.get_by_name(n) for n in ("src", "warp", "sink"))
    if controller:
        controller(warp)
    pipe.set_state(Gst.State.PLAYING)
    outs = []
    data = to16(frames).tobytes()
    for i, s in enumerate(settings):
        for k, v in s.items():
            warp.set_property(k, v)
        buf = Gst.Buffer.new_wrapped(data)
        buf.pts = i * Gst.SECOND // 30
        buf.duration = Gst.SECOND // 30
        src.emit("push-buffer", buf)
        sample = sink.emit("try-pull-sample", 5 * Gst.SECOND)
        if sample is None:
            break
        ok, info = sample.get_buffer().map(Gst.MapFlags.READ)
        outs.append(np.frombuffer(info.data, "<u2").reshape(OH, OW)
                    .astype(float) / 65535 * 2 - 1)
        sample.get_buffer().unmap(info)
    pipe.set_state(Gst.State.NULL)
    return outs, pipe


def main():
    Gst.init(None)
    failures = []
    d, _ = ref.output_directions("equirect", W, H, (360.0, 180.0),
                                 (0, 0, 0))
    frame = sphere(d)
    vfov = float(np.degrees(2 * np.arctan(np.tan(np.radians(45)) * OH / OW)))
    views = [(0, 0, 0, 90), (40, 0, 0, 90), (40, 20, 0, 90),
             (40, 20, 30, 90), (40, 20, 30, 70)]
    settings = [dict(yaw=float(y), pitch=float(p), roll=float(r),
                     h_fov=float(f)) for y, p, r, f in views]
    settings = [{k.replace("_", "-"): v for k, v in s.items()}
                for s in settings]
    for s, (y, p, r, f) in zip(settings, views):
        s["v-fov"] = float(np.degrees(2 * np.arctan(
            np.tan(np.radians(f / 2)) * OH / OW)))
    outs, _ = run(frame, settings)
    cands = [view(y, p, r, f, s["v-fov"]) for (y, p, r, f), s in
             zip(views, settings)]
    if len(outs) != len(views):
        failures.append("PLAYING: %d of %d frames came out" % (len(outs),
                                                              len(views)))
    worst = 1e9
    for i, o in enumerate(outs):
        scores = [psnr(o, c) for c in cands]
        worst = min(worst, scores[i])
        if int(np.argmax(scores)) != i or scores[i] < 50:
            failures.append("PLAYING: frame %d (%s) is %.1f dB from its "
                            "view, nearest view %d" % (i, settings[i],
                                                       scores[i],
                                                       int(np.argmax(
                                                           scores))))
    print("PLAYING: %d frames, yaw/pitch/roll/h-fov/v-fov set between "
          "them: each within %.1f dB of its own view" % (len(outs), worst))

    # a GstController: yaw from 0 to 90 degrees over 3 frames (linear)
    def control(warp):
        cs = GstController.InterpolationControlSource()
        cs.set_property("mode", GstController.InterpolationMode.LINEAR)
        binding = GstController.DirectControlBinding.new_absolute(
            warp, "yaw", cs)
        warp.add_control_binding(binding)
        cs.set(0, 0.0)
        cs.set(3 * Gst.SECOND // 30, 90.0)
        control.cs = cs
    outs, _ = run(frame, [{"v-fov": vfov, "h-fov": 90.0}] * 4, control)
    for i, o in enumerate(outs):
        want = view(30.0 * i, 0, 0, 90.0, vfov)
        p = psnr(o, want)
        if p < 50:
            failures.append("controller: frame %d is %.1f dB from yaw %g"
                            % (i, p, 30.0 * i))
    print("GstController: yaw 0, 30, 60, 90 on 4 frames: %s dB"
          % ", ".join("%.1f" % psnr(o, view(30.0 * i, 0, 0, 90.0, vfov))
                      for i, o in enumerate(outs)))

    # navigation: a pointer event goes upstream as the input point
    pipe = pipeline("yaw=25 pitch=-10 roll=5 h-fov=90 v-fov=%r" % vfov)
    src, warp, sink = (pipe.get_by_name(n) for n in ("src", "warp", "sink"))
    got = []

    def probe(pad, info):
        ev = info.get_event()
        if ev.type == Gst.EventType.NAVIGATION:
            ok, x, y = GstVideo.Navigation.event_get_coordinates(ev)
            if ok:
                got.append((x, y))
        return Gst.PadProbeReturn.OK
    src.get_static_pad("src").add_probe(
        Gst.PadProbeType.EVENT_UPSTREAM, probe)
    pipe.set_state(Gst.State.PLAYING)
    buf = Gst.Buffer.new_wrapped(to16(frame).tobytes())
    buf.pts = 0
    buf.duration = Gst.SECOND // 30
    src.emit("push-buffer", buf)
    sink.emit("try-pull-sample", 5 * Gst.SECOND)
    points = [(10.5, 7.25), (48.0, 36.0), (90.0, 70.0)]
    for u, v in points:
        sink.get_static_pad("sink").push_event(
            GstVideo.Navigation.event_new_mouse_move(u, v, 0))
    pipe.set_state(Gst.State.NULL)
    worst = 0.0
    for (u, v), g in zip(points, got):
        a = 2 * u / OW - 1
        b = 2 * v / OH - 1
        dx, dy, dz, _ = ref.to_dir("flat", np.array([a]), np.array([b]),
                                   (90.0, vfov))
        e = ref.rotation(25, -10, 5) @ np.array([dx[0], dy[0], dz[0]])
        A, B, _ = ref.from_dir("equirect", *e, (360.0, 180.0))
        want = ((A + 1) / 2 * W, (B + 1) / 2 * H)
        worst = max(worst, abs(g[0] - want[0]) + abs(g[1] - want[1]))
    if len(got) != len(points) or worst > 1e-6:
        failures.append("navigation: %d of %d events upstream, worst %.3g "
                        "px" % (len(got), len(points), worst))
    print("navigation: %d pointer events mapped through the projection, "
          "worst %.2g px from numpy" % (len(got), worst))

    # a field of view out of range: an element error naming it
    pipe = pipeline("h-fov=200")
    src = pipe.get_by_name("src")
    pipe.set_state(Gst.State.PLAYING)
    buf = Gst.Buffer.new_wrapped(to16(frame).tobytes())
    buf.pts = 0
    src.emit("push-buffer", buf)
    msg = pipe.get_bus().timed_pop_filtered(5 * Gst.SECOND,
                                            Gst.MessageType.ERROR)
    text = msg.parse_error()[0].message if msg else ""
    pipe.set_state(Gst.State.NULL)
    if "(0, 180)" not in text:
        failures.append("h-fov=200 on flat: no error naming the range "
                        "(%r)" % text)
    print("h-fov=200 on flat: %r" % text)
    for f in failures:
        print("FAIL:", f)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
