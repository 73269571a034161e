#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Writes the photograph the stabilization tests make their clips from.

scipy.misc.face() (1024x768, 8-bit RGB; the demo photo of
scripts/make-demo-image.py) ships inside Debian's python3-scipy 1.10, so
nothing is downloaded.  Usage:

    /usr/bin/python3 make-photo.py OUTPUT.ppm

writes it as a binary PPM (P6, maxval 255), which keeps its values exactly.
"""
import sys
import warnings

import numpy as np

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    import scipy.misc

    face = scipy.misc.face()

if face.dtype != np.uint8 or face.ndim != 3 or face.shape[2] != 3:
    sys.exit("scipy.misc.face() is not an 8-bit RGB image")
height, width, _ = face.shape
with open(sys.argv[1], "wb") as f:
    f.write(b"P6\n%d %d\n255\n" % (width, height))
    f.write(np.ascontiguousarray(face).tobytes())
