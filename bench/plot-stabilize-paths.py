#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
r"""Camera paths of bsplinestabilize over a real shaky clip:
docs/pictures/stabilize-paths.png (docs/stabilization.md, issue 25).

The clip is one of bench/stabilize-vs-vidstab.sh's camera-path clips, made
from the test photograph (tests/stabilize/make-photo.py) with white-noise
shake of 6 px and 0.5 degree standard deviation: by default the pan that
stops and starts (1.2, 0.3 px per frame for the first and last thirds of 90
frames, 480x270).  For each frame the picture shows where the camera looks
(the photo point at the centre of the frame, pixels) for

  - the shaky camera (the clip's known maps),
  - bsplinestabilize path=gaussian and path=optimal (the default), one pass,
    15 frames of look-ahead each, and optimal in two passes (the whole clip
    solved at once),
  - vid.stab's two passes (ffmpeg, its defaults),
  - the intended camera (the pan without the shake),

the stabilizers' paths measured on their output frames (stabilize-tool
measure: a robust fit of each output frame to its shaky frame, the same for
every stabilizer).  Top: x and y over the frames; bottom: the same less the
intended camera, where the shake and what each path keeps of it show.

Regenerate (from the repository root, a build with the plugin in build-h5):

  PATHS_DIR=/tmp/stabilize-paths \
    bench/stabilize-vs-vidstab.sh build-h5 2 300 paths
  /usr/bin/python3 bench/plot-stabilize-paths.py /tmp/stabilize-paths

Usage: plot-stabilize-paths.py PATHS_DIR [CLIP [OUT.png]]
  CLIP: stop-start (default), pan or tripod, the 480x270 clips;
  OUT.png: default docs/pictures/stabilize-paths.png.
"""
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

# run name in the bench script: label, colour, line width, style
RUNS = [
    ("gauss-15", "bsplinestabilize path=gaussian (smoothing 15)",
     "tab:orange", 2.0, "-"),
    ("vidstab-15", "vid.stab, two passes (smoothing 15)", "tab:purple", 1.6,
     "-"),
    ("optimal", "bsplinestabilize path=optimal (default, one pass)",
     "tab:blue", 2.6, "-"),
    ("optimal-2pass", "bsplinestabilize path=optimal, two passes",
     "tab:green", 1.8, "--"),
]
TITLES = {
    "stop-start": "a pan that stops and starts",
    "pan": "a steady pan",
    "tripod": "a tripod shot",
}


def load(directory, clip, run):
    """Columns k, intended x y, shaky x y, output x y of one run."""
    return np.loadtxt(os.path.join(directory, "%s-480x270-%s.txt"
                                   % (clip, run)))


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    directory = sys.argv[1]
    clip = sys.argv[2] if len(sys.argv) > 2 else "stop-start"
    out = sys.argv[3] if len(sys.argv) > 3 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "docs", "pictures",
        "stabilize-paths.png")
    shaky = load(directory, clip, "shaky")
    frames = shaky[:, 0]
    # positions relative to the intended camera's first frame
    origin = shaky[0, 1:3]
    intended = shaky[:, 1:3] - origin
    camera = shaky[:, 3:5] - origin
    runs = [(load(directory, clip, name)[:, 5:7] - origin, label, colour,
             width, style) for name, label, colour, width, style in RUNS]

    fig, axes = plt.subplots(2, 2, figsize=(12, 7), dpi=100, sharex=True)
    for col, axis_name in enumerate("xy"):
        top, bottom = axes[0, col], axes[1, col]
        for ax, less in ((top, 0.0), (bottom, intended[:, col])):
            if clip == "stop-start":
                n = len(frames)
                ax.axvspan(n // 3, 2 * n // 3, color="0.92", lw=0,
                           label="intended camera stopped")
            ax.plot(frames, camera[:, col] - less, color="0.6", lw=0.8,
                    marker="o", ms=2.2, label="shaky camera (the clip)")
            for path, label, colour, width, style in runs:
                ax.plot(frames, path[:, col] - less, color=colour, lw=width,
                        ls=style, label=label)
            ax.plot(frames, intended[:, col] - less, color="black", lw=1.4,
                    ls=":", label="intended camera (no shake)")
            ax.grid(True, alpha=0.3)
        top.set_title("%s: where the camera looks" % axis_name)
        top.set_ylabel("%s (pixels)" % axis_name)
        bottom.set_title("%s less the intended camera" % axis_name)
        bottom.set_ylabel("%s - intended %s (pixels)" % (axis_name, axis_name))
        bottom.set_xlabel("frame")
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=3, frameon=False,
               fontsize=10)
    fig.suptitle("Camera paths over %s with hand-held shake\n"
                 "(480x270, 90 frames from a photograph, white-noise shake "
                 "of 6 px and 0.5 degree s.d.)" % TITLES.get(clip, clip),
                 fontsize=13)
    fig.tight_layout(rect=(0, 0.09, 1, 0.95))
    fig.savefig(out)
    print("wrote", os.path.normpath(out))


if __name__ == "__main__":
    main()
