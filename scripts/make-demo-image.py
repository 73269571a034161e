#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Writes the demo photo: scipy.misc.face(), 1024x768 8-bit RGB, as a PNG.

The photo ships inside Debian's python3-scipy 1.10, so nothing is
downloaded.  The PNG is written with the standard library (zlib, struct)
and numpy only, and the same bytes come out on every run.  Usage:

    /usr/bin/python3 scripts/make-demo-image.py OUTPUT.png
"""
import struct
import sys
import warnings
import zlib

import numpy as np

with warnings.catch_warnings():
    # scipy 1.10 deprecates scipy.misc in favour of scipy.datasets, which
    # downloads; the copy in scipy.misc is the one installed with scipy.
    warnings.simplefilter("ignore", DeprecationWarning)
    import scipy.misc

    face = scipy.misc.face()


def png_chunk(kind, data):
    """One PNG chunk: length, type, data, CRC-32 of type and data."""
    return (struct.pack(">I", len(data)) + kind + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))


def png_bytes(rgb):
    """PNG of an HxWx3 uint8 array: colour type 2 (RGB), 8 bits, every
    scanline with filter type 1 (Sub: each byte minus the byte of the
    pixel to its left, modulo 256; PNG spec 1.2, section 6.3)."""
    height, width, channels = rgb.shape
    assert channels == 3 and rgb.dtype == np.uint8
    sub = rgb.copy()
    sub[:, 1:, :] = rgb[:, 1:, :] - rgb[:, :-1, :]
    rows = np.concatenate(
        [np.ones((height, 1), np.uint8), sub.reshape(height, width * 3)],
        axis=1)
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n"
            + png_chunk(b"IHDR", header)
            + png_chunk(b"IDAT", zlib.compress(rows.tobytes(), 9))
            + png_chunk(b"IEND", b""))


if face.shape != (768, 1024, 3) or face.dtype != np.uint8:
    sys.exit(f"scipy.misc.face() is {face.shape} {face.dtype}, "
             "expected (768, 1024, 3) uint8")
with open(sys.argv[1], "wb") as f:
    f.write(png_bytes(face))
