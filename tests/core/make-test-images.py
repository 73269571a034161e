#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Writes the real test images for the C tests of tests/core.

scipy.misc.ascent() (512x512, 8-bit grey) ships inside Debian's
python3-scipy 1.10, so no download is needed.  Usage:

    /usr/bin/python3 make-test-images.py OUTPUT.pgm

writes the image as a binary PGM (P5, maxval 255), which keeps its values
exactly.
"""
import sys
import warnings

import numpy as np

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    import scipy.misc

    ascent = scipy.misc.ascent()

if ascent.min() < 0 or ascent.max() > 255 or np.any(ascent != np.round(ascent)):
    sys.exit("ascent is not an 8-bit image")
height, width = ascent.shape
with open(sys.argv[1], "wb") as f:
    f.write(b"P5\n%d %d\n255\n" % (width, height))
    f.write(ascent.astype(np.uint8).tobytes())
