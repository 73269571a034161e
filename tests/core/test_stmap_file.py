#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""bspline_stmap_read (core/stmap/stmap-file.c) against OpenCV 4.10, the
outside writer (and, for the lossy EXR compressions, the outside reader).

Usage: test_stmap_file.py LIBBSPLINE_CORE.so

OpenCV is opencv-python-headless 4.10 in the tests' own environment:
BSPLINE_CV_PYTHON names its interpreter; unset, the project's venv
<repo root>/.venv/bin/python3 is used where it exists.  The script
re-executes itself under that interpreter; with none (or no cv2), it runs
the checks that need no OpenCV and exits 77 (skipped) with a message.

Checked:
 - maps written by OpenCV, of odd sizes (37x23, 1x1, 640x360) and known
   random values, read back exactly: OpenEXR float and half (values that
   are halves, so that no rounding is involved), RGB and RGBA, in every
   compression OpenCV writes readably (all but DWAA and DWAB), on smooth
   maps so that each compressor compresses, the lossy ones (PXR24 on
   floats, B44 and B44A on halves) against cv2.imread of the same file;
   PNG 16-bit RGB and RGBA (v / 65535 exactly); TIFF 16-bit and 32-bit
   float, RGB and RGBA, uncompressed, LZW and deflate.  R is s and G is
   t: OpenCV writes BGR(A), so R is channel index 2.  OpenCV writes no
   tiled EXR nor tiled or planar TIFF: test-stmap-file.c writes those;
 - refusals, each with its status and a message: a missing file, a
   directory, an empty file, a text file, a JPEG, 8-bit PNG and TIFF,
   palette and grey PNG, grey TIFF, OpenCV's LogLuv float TIFF, an EXR
   without R and G, a data window unlike the display window, sides of 0
   and beyond BSPLINE_MAX_SIDE, a map over 2^22 samples, NaN and infinities
   in EXR data (the message names the sample);
 - every valid file truncated at about 30 offsets (0, 1, the boundaries
   of its header's structures, len - 1 and random ones): an error with a
   message;
 - 200 seeded random single-byte corruptions of every valid file (half in
   its first 512 bytes, where the headers are): either an error with a
   message, or success with a size of 1 .. BSPLINE_MAX_SIDE and finite
   values.  BSPLINE_TEST_SEED repeats a run.
"""
import ctypes
import os
import shutil
import struct
import sys
import tempfile
import time
import zlib

# the reference interpreter, found as the lens-fit test finds it
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_lens_fit import reference_opencv  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
REEXEC = "BSPLINE_STMAP_FILE_REEXEC"
SKIP = 77
MAX_SIDE = 1 << 24
N_TRUNCATIONS = 30
N_CORRUPTIONS = 200

OK = 0
INVALID_ARGUMENT = 1
NO_MEMORY = 3


class Core:
    def __init__(self, path, np):
        self.np = np
        lib = ctypes.CDLL(path)
        f = lib.bspline_stmap_read
        f.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_int),
                      ctypes.POINTER(ctypes.c_int),
                      ctypes.POINTER(ctypes.POINTER(ctypes.c_double)),
                      ctypes.c_char_p, ctypes.c_size_t]
        f.restype = ctypes.c_int
        self.f = f
        # the process's free: the sanitizer's where it is preloaded
        self.free = ctypes.CDLL(None).free
        self.free.argtypes = [ctypes.c_void_p]
        self.free.restype = None

    def read(self, path):
        """(status, width, height, s and t as an h x w x 2 array (or None),
        message)"""
        w, h = ctypes.c_int(-1), ctypes.c_int(-1)
        st = ctypes.POINTER(ctypes.c_double)()
        msg = ctypes.create_string_buffer(1024)
        status = self.f(path.encode(), ctypes.byref(w), ctypes.byref(h),
                        ctypes.byref(st), msg, len(msg))
        values = None
        if st:
            n = 2 * w.value * h.value if status == OK else 0
            if self.np is not None:
                values = self.np.ctypeslib.as_array(st, shape=(n,)).reshape(
                    h.value, w.value, 2).copy() if n else []
            else:
                values = st[:n]
            self.free(st)
        return status, w.value, h.value, values, msg.value.decode(
            errors="replace")


# ---- the structure of the three formats, for the truncation offsets ----

def exr_boundaries(data):
    """Ends of the magic, version, each attribute, the header and the
    offset table (single-part, scanline or tiled)."""
    out = [4, 8]
    pos = 8
    try:
        while data[pos] != 0:
            name_end = data.index(b"\0", pos)
            type_end = data.index(b"\0", name_end + 1)
            size = struct.unpack_from("<i", data, type_end + 1)[0]
            pos = type_end + 5 + size
            out += [name_end + 1, type_end + 1, pos]
        pos += 1
        out.append(pos)
        first = struct.unpack_from("<Q", data, pos)[0]
        out += [pos + 8, first, first + 4, first + 8]
    except (ValueError, IndexError, struct.error):
        pass
    return out


def png_boundaries(data):
    """Ends of the signature and of each chunk's length, type, data, CRC."""
    out = [8]
    pos = 8
    while pos + 8 <= len(data):
        length = struct.unpack_from(">I", data, pos)[0]
        out += [pos + 4, pos + 8, pos + 8 + length, pos + 12 + length]
        pos += 12 + length
    return out


def tiff_boundaries(data):
    """Ends of the header, the first IFD's count, entries and next offset."""
    out = [2, 4, 8]
    try:
        order = "<" if data[:2] == b"II" else ">"
        ifd = struct.unpack_from(order + "I", data, 4)[0]
        n = struct.unpack_from(order + "H", data, ifd)[0]
        out += [ifd, ifd + 2, ifd + 2 + 12 * n, ifd + 6 + 12 * n]
        out += [ifd + 2 + 12 * i for i in range(0, n, 3)]
    except (IndexError, struct.error):
        pass
    return out


def truncation_offsets(data, rng):
    n = len(data)
    if data[:4] == b"v/1\x01":
        fixed = exr_boundaries(data)
    elif data[:4] == b"\x89PNG":
        fixed = png_boundaries(data)
    else:
        fixed = tiff_boundaries(data)
    fixed = [o for o in fixed if 0 <= o < n]
    offsets = {0, 1, n - 1, n - 2, n // 2}
    offsets.update(fixed[:N_TRUNCATIONS - 10])
    while len(offsets) < min(N_TRUNCATIONS, n):
        offsets.add(int(rng.integers(0, n)))
    return sorted(offsets)


# ---- the maps OpenCV writes ----

class Case:
    def __init__(self, name, path, s, t):
        self.name, self.path, self.s, self.t = name, path, s, t


def smooth_map(np, w, h, rng):
    """A plausible STMap: the identity (Nuke's convention, t up) with a
    gentle barrel and a little noise, so that compressors have something
    to compress."""
    x = (np.arange(w) + 0.5) / w
    y = (np.arange(h) + 0.5) / h
    s, t = np.meshgrid(x, 1. - y)
    r2 = (s - 0.5) ** 2 + (t - 0.5) ** 2
    s = 0.5 + (s - 0.5) * (1 + 0.1 * r2) + rng.normal(0, 1e-4, s.shape)
    t = 0.5 + (t - 0.5) * (1 + 0.1 * r2) + rng.normal(0, 1e-4, t.shape)
    return s, t


def write_cases(cv2, np, rng, tmp, skipped):
    cases = []

    def bgr(s, t, channels, dtype, junk):
        h, w = s.shape
        img = np.empty((h, w, channels), dtype)
        img[..., 0] = junk(h, w)
        img[..., 1] = t
        img[..., 2] = s
        if channels == 4:
            img[..., 3] = junk(h, w)
        return img

    def exr(name, w, h, half, channels=3, compression=None, smooth=False):
        if smooth:
            s, t = smooth_map(np, w, h, rng)
        else:
            s = rng.uniform(-0.25, 1.25, (h, w))
            t = rng.uniform(-0.25, 1.25, (h, w))
        # halves: values a half holds, so that the writer does not round
        dtype = np.float16 if half else np.float32
        s = s.astype(dtype).astype(np.float32)
        t = t.astype(dtype).astype(np.float32)
        img = bgr(s, t, channels, np.float32,
                  lambda h, w: rng.uniform(0, 1, (h, w)).astype(dtype))
        params = [cv2.IMWRITE_EXR_TYPE, cv2.IMWRITE_EXR_TYPE_HALF if half
                  else cv2.IMWRITE_EXR_TYPE_FLOAT]
        if compression is not None:
            params += [cv2.IMWRITE_EXR_COMPRESSION, compression]
        path = os.path.join(tmp, name + ".exr")
        if not cv2.imwrite(path, img, params):
            raise RuntimeError("cv2.imwrite %s failed" % path)
        back = cv2.imread(path, cv2.IMREAD_UNCHANGED)
        if back is None:
            skipped.append("%s: cv2 wrote it but cannot read it back" % name)
            return
        lossy = not (np.array_equal(back[..., 2], s)
                     and np.array_equal(back[..., 1], t))
        if lossy:
            # the compression is lossy on this type: OpenCV's own decode
            # is the reference (the same algorithm, bit for bit)
            s, t = back[..., 2], back[..., 1]
            name += " (lossy: against cv2.imread)"
        cases.append(Case(name, path, s.astype(np.float64),
                          t.astype(np.float64)))

    def integer(ext, name, w, h, channels, params=()):
        s = rng.integers(0, 65536, (h, w))
        t = rng.integers(0, 65536, (h, w))
        # the extremes appear in every map that is large enough
        s.flat[0], t.flat[-1] = 0, 65535
        img = bgr(s, t, channels, np.uint16,
                  lambda h, w: rng.integers(0, 65536, (h, w)))
        path = os.path.join(tmp, name + ext)
        if not cv2.imwrite(path, img, list(params)):
            raise RuntimeError("cv2.imwrite %s failed" % path)
        cases.append(Case(name, path, s / 65535., t / 65535.))

    def tiff_float(name, w, h, channels, params=()):
        s = rng.uniform(-0.25, 1.25, (h, w)).astype(np.float32)
        t = rng.uniform(-0.25, 1.25, (h, w)).astype(np.float32)
        img = bgr(s, t, channels, np.float32,
                  lambda h, w: rng.uniform(0, 1, (h, w)))
        path = os.path.join(tmp, name + ".tiff")
        if not cv2.imwrite(path, img, list(params)):
            raise RuntimeError("cv2.imwrite %s failed" % path)
        cases.append(Case(name, path, s.astype(np.float64),
                          t.astype(np.float64)))

    exr("exr-float-37x23", 37, 23, False)
    exr("exr-half-37x23", 37, 23, True)
    exr("exr-float-rgba-37x23", 37, 23, False, channels=4)
    exr("exr-half-1x1", 1, 1, True)
    exr("exr-float-1x1", 1, 1, False)
    exr("exr-float-640x360", 640, 360, False)
    compressions = ["NO", "RLE", "ZIPS", "ZIP", "PIZ", "PXR24", "B44",
                    "B44A"]
    for c in compressions:
        for half in (False, True):
            exr("exr-%s-%s-64x40" % ("half" if half else "float", c.lower()),
                64, 40, half,
                compression=getattr(cv2, "IMWRITE_EXR_COMPRESSION_" + c),
                smooth=True)
    skipped.append("tiled EXR: cv2.imwrite writes scanline files only "
                   "(test-stmap-file.c writes tiled ones)")
    skipped.append("DWAA and DWAB EXR: OpenCV 4.10 writes files that "
                   "neither it nor OpenEXR 3.1 can read back, and "
                   "OpenEXRCore 3.1 decodes neither compression")

    integer(".png", "png16-rgb-37x23", 37, 23, 3)
    integer(".png", "png16-rgba-37x23", 37, 23, 4)
    integer(".png", "png16-rgb-1x1", 1, 1, 3)
    integer(".png", "png16-rgba-640x360", 640, 360, 4)
    integer(".tiff", "tiff16-rgb-37x23", 37, 23, 3)
    integer(".tiff", "tiff16-rgba-37x23", 37, 23, 4)
    integer(".tiff", "tiff16-rgb-1x1", 1, 1, 3)
    integer(".tiff", "tiff16-rgb-lzw-640x360", 640, 360, 3,
            (cv2.IMWRITE_TIFF_COMPRESSION, cv2.IMWRITE_TIFF_COMPRESSION_LZW))
    # uncompressed: OpenCV's default for 3-channel float is LogLuv, lossy
    # (refused: check_refusals)
    tiff_float("tiff32f-rgb-37x23", 37, 23, 3,
               (cv2.IMWRITE_TIFF_COMPRESSION,
                cv2.IMWRITE_TIFF_COMPRESSION_NONE))
    tiff_float("tiff32f-rgba-37x23", 37, 23, 4)
    tiff_float("tiff32f-rgb-deflate-640x360", 640, 360, 3,
               (cv2.IMWRITE_TIFF_COMPRESSION,
                cv2.IMWRITE_TIFF_COMPRESSION_ADOBE_DEFLATE))
    skipped.append("tiled and planar TIFF: cv2.imwrite writes contiguous "
                   "strips only (test-stmap-file.c writes both)")
    return cases


def check_valid(core, np, cases, failures):
    """The number of maps read back exactly."""
    n_exact = 0
    for case in cases:
        status, w, h, values, msg = core.read(case.path)
        ok = False
        if status != OK:
            failures.append("%s: status %d: %s" % (case.name, status, msg))
        elif (w, h) != (case.s.shape[1], case.s.shape[0]):
            failures.append("%s: size %dx%d, written %dx%d" % (
                case.name, w, h, case.s.shape[1], case.s.shape[0]))
        else:
            got = values
            bad = np.argwhere((got[..., 0] != case.s) |
                              (got[..., 1] != case.t))
            if len(bad):
                y, x = bad[0]
                failures.append("%s: %d samples differ, the first at "
                                "column %d, row %d: read (%r, %r), written "
                                "(%r, %r)" % (case.name, len(bad), x, y,
                                              got[y, x, 0], got[y, x, 1],
                                              case.s[y, x], case.t[y, x]))
            else:
                ok = True
                n_exact += 1
        print("valid %-44s %4dx%-4d %s" % (case.name, w, h,
                                           "exact" if ok else "FAILED"))
    return n_exact


# ---- refusals ----

def png_chunk(kind, payload):
    return (struct.pack(">I", len(payload)) + kind + payload +
            struct.pack(">I", zlib.crc32(kind + payload) & 0xffffffff))


def png_header_only(w, h, depth=16, color=2):
    """A PNG whose IHDR declares w x h (valid CRC), a one-colour palette
    where the colour type has one, and one empty IDAT."""
    palette = png_chunk(b"PLTE", b"\0\0\0") if color == 3 else b""
    return (b"\x89PNG\r\n\x1a\n" +
            png_chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, depth, color,
                                           0, 0, 0)) + palette +
            png_chunk(b"IDAT", zlib.compress(b"")) + png_chunk(b"IEND", b""))


def tiff_header_only(w, h):
    """A little-endian TIFF, 16-bit RGB, one strip of nothing."""
    entries = [(256, 4, 1, w), (257, 4, 1, h), (258, 3, 1, 16),
               (259, 3, 1, 1), (262, 3, 1, 2), (273, 4, 1, 8),
               (277, 3, 1, 3), (278, 4, 1, h), (279, 4, 1, 0)]
    ifd = struct.pack("<H", len(entries))
    for tag, kind, count, value in entries:
        pad = "<Hxx" if kind == 3 else "<I"
        ifd += struct.pack("<HHI", tag, kind, count) + struct.pack(pad, value)
    return b"II*\0" + struct.pack("<I", 8) + ifd + struct.pack("<I", 0)


def exr_set_window(data, attribute, box):
    key = attribute + b"\0box2i\0" + struct.pack("<i", 16)
    i = data.index(key) + len(key)
    return data[:i] + struct.pack("<4i", *box) + data[i + 16:]


def check_refusals(core, cv2, np, rng, tmp, cases, failures):
    refusals = []

    def write(name, data):
        path = os.path.join(tmp, name)
        with open(path, "wb") as f:
            f.write(data)
        return path

    refusals.append(("missing file", os.path.join(tmp, "no-such-file.exr"),
                     INVALID_ARGUMENT, "No such file"))
    os.mkdir(os.path.join(tmp, "a-directory.exr"))
    refusals.append(("directory", os.path.join(tmp, "a-directory.exr"),
                     INVALID_ARGUMENT, "directory"))
    refusals.append(("empty file", write("empty.exr", b""),
                     INVALID_ARGUMENT, "empty"))
    # issue 43: not "empty"
    refusals.append(("a /proc file (no size, has contents)",
                     "/proc/self/status", INVALID_ARGUMENT,
                     "reports no size but has contents"))
    refusals.append(("text file", write("text.exr", b"s t\n0.5 0.5\n"),
                     INVALID_ARGUMENT, "not an OpenEXR, PNG or TIFF"))
    refusals.append(("3-byte file", write("short.png", b"\x89PN"),
                     INVALID_ARGUMENT, "not an OpenEXR, PNG or TIFF"))
    refusals.append(("PNG width 0", write("w0.png", png_header_only(0, 5)),
                     INVALID_ARGUMENT, ""))
    refusals.append(("PNG width 2^24 + 1", write(
        "wide.png", png_header_only(MAX_SIDE + 1, 1)), INVALID_ARGUMENT,
        "each side must be 1 to 16777216"))
    refusals.append(("PNG 9000x9000 (over 2^22 samples)", write(
        "big.png", png_header_only(9000, 9000)), NO_MEMORY,
        "more than the 4194304 (2^22) an STMap may have"))
    refusals.append(("TIFF width 0", write(
        "w0.tiff", tiff_header_only(0, 5)), INVALID_ARGUMENT, ""))
    refusals.append(("TIFF height 2^24 + 1", write(
        "tall.tiff", tiff_header_only(1, MAX_SIDE + 1)), INVALID_ARGUMENT,
        "each side must be 1 to 16777216"))
    refusals.append(("TIFF 9000x9000 (over 2^22 samples)", write(
        "big.tiff", tiff_header_only(9000, 9000)), NO_MEMORY,
        "more than the 4194304 (2^22) an STMap may have"))
    refusals.append(("8-bit RGB PNG header", write(
        "png8.png", png_header_only(4, 4, depth=8)), INVALID_ARGUMENT,
        "too coarse"))
    refusals.append(("palette PNG header", write(
        "palette.png", png_header_only(4, 4, depth=8, color=3)),
        INVALID_ARGUMENT, "palette"))

    if cv2 is not None:
        img8 = rng.integers(0, 256, (23, 37, 3)).astype(np.uint8)
        img16 = rng.integers(0, 65536, (23, 37)).astype(np.uint16)
        for name, ext, img, words in [
                ("8-bit PNG", ".png", img8, "too coarse"),
                ("8-bit TIFF", ".tiff", img8, "too coarse"),
                ("JPEG", ".jpg", img8, "not an OpenEXR, PNG or TIFF"),
                ("grey 16-bit PNG", ".png", img16, "R and G"),
                ("grey 16-bit TIFF", ".tiff", img16, "two")]:
            path = os.path.join(tmp, name.replace(" ", "-") + ext)
            cv2.imwrite(path, img)
            refusals.append((name, path, INVALID_ARGUMENT, words))
        path = os.path.join(tmp, "logluv.tiff")
        cv2.imwrite(path, rng.uniform(0, 1, (23, 37, 3)).astype(np.float32))
        # issue 43: saying how to write it instead
        refusals.append(("OpenCV's default float RGB TIFF (LogLuv)", path,
                         INVALID_ARGUMENT, "LogLuv is a lossy colour "
                         "encoding, what OpenCV's imwrite gives a 3-channel "
                         "float TIFF by default: write the map with "
                         "cv2.imwrite (path, map, "
                         "[cv2.IMWRITE_TIFF_COMPRESSION, 1])"))
        path = os.path.join(tmp, "grey.exr")
        cv2.imwrite(path, img16.astype(np.float32))
        refusals.append(("EXR of one channel (Y)", path, INVALID_ARGUMENT,
                         "no channel R"))

        base = open([c.path for c in cases
                     if c.name == "exr-float-37x23"][0], "rb").read()
        refusals.append(("EXR data window inside the display window", write(
            "window.exr", exr_set_window(base, b"displayWindow",
                                         (-2, -2, 38, 24))),
            INVALID_ARGUMENT, "must cover the frame"))
        huge = exr_set_window(exr_set_window(base, b"dataWindow",
                                             (0, 0, 8999, 8999)),
                              b"displayWindow", (0, 0, 8999, 8999))
        refusals.append(("EXR 9000x9000 (over 2^22 samples)",
                         write("huge.exr", huge), NO_MEMORY,
                         "more than the 4194304 (2^22) an STMap may have"))

        for name, half, x, y, value in [
                ("NaN in a float EXR", False, 5, 17, float("nan")),
                ("infinity in a half EXR", True, 36, 22, float("inf")),
                ("-infinity in a float EXR", False, 0, 0, -float("inf"))]:
            img = rng.uniform(0, 1, (23, 37, 3)).astype(np.float32)
            img[y, x, 1] = value
            path = os.path.join(tmp, name.replace(" ", "-") + ".exr")
            cv2.imwrite(path, img, [cv2.IMWRITE_EXR_TYPE,
                                    cv2.IMWRITE_EXR_TYPE_HALF if half
                                    else cv2.IMWRITE_EXR_TYPE_FLOAT])
            refusals.append((name, path, INVALID_ARGUMENT,
                             "column %d, row %d" % (x, y)))

    for name, path, want, words in refusals:
        status, w, h, values, msg = core.read(path)
        print("refuse %-40s -> %d: %s" % (name, status, msg))
        # the words must be in what is said of the file, not in its name
        said = msg[len(path) + 2:] if msg.startswith(path + ": ") else ""
        if status != want or not said or words not in said:
            failures.append("%s: status %d, message %r (wanted status %d "
                            "and %r)" % (name, status, msg, want, words))
        if values is not None or (w, h) != (0, 0):
            failures.append("%s: an error that returned a map or a size" %
                            name)
    # a NULL message buffer is accepted
    st = ctypes.POINTER(ctypes.c_double)()
    w, h = ctypes.c_int(), ctypes.c_int()
    if core.f(b"/nonexistent/x.exr", ctypes.byref(w), ctypes.byref(h),
              ctypes.byref(st), None, 0) != INVALID_ARGUMENT or st:
        failures.append("a missing file with msg NULL did not fail cleanly")
    return len(refusals)


# ---- damaged copies of the valid files ----

def write_new(path, data):
    """A new file: ext4 flushes a file truncated and rewritten to the disk
    when it is closed (auto_da_alloc), a wait per damaged copy."""
    if os.path.exists(path):
        os.unlink(path)
    with open(path, "wb") as f:
        f.write(data)


def check_damage(core, np, rng, tmp, cases, failures):
    n_trunc = n_corrupt = n_corrupt_ok = 0
    path = os.path.join(tmp, "damaged")
    for case in cases:
        data = open(case.path, "rb").read()
        for offset in truncation_offsets(data, rng):
            write_new(path, data[:offset])
            status, w, h, values, msg = core.read(path)
            n_trunc += 1
            if status == OK or not msg or values is not None:
                failures.append("%s truncated to %d of %d bytes: status %d, "
                                "message %r" % (case.name, offset, len(data),
                                                status, msg))
        for i in range(N_CORRUPTIONS):
            damaged = bytearray(data)
            limit = min(len(data), 512) if i % 2 == 0 else len(data)
            where = int(rng.integers(0, limit))
            damaged[where] = (damaged[where] + int(rng.integers(1, 256))) % 256
            write_new(path, damaged)
            status, w, h, values, msg = core.read(path)
            n_corrupt += 1
            what = "%s with byte %d set to 0x%02x (was 0x%02x)" % (
                case.name, where, damaged[where], data[where])
            if status == OK:
                n_corrupt_ok += 1
                if not (1 <= w <= MAX_SIDE and 1 <= h <= MAX_SIDE):
                    failures.append("%s: OK with size %dx%d" % (what, w, h))
                elif not np.isfinite(values).all():
                    failures.append("%s: OK with non-finite values" % what)
            elif not msg or values is not None:
                failures.append("%s: status %d without a message, or with "
                                "a map" % (what, status))
    print("damage: %d truncations, all refused; %d single-byte corruptions, "
          "%d read as a valid map (a byte of pixel data, say), the rest "
          "refused with a message" % (n_trunc, n_corrupt, n_corrupt_ok))
    return n_trunc, n_corrupt


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    # before cv2 is imported: OpenCV reads this once, at load
    os.environ["OPENCV_IO_ENABLE_OPENEXR"] = "1"
    cv2, np, have_cv2, why = reference_opencv(__file__, REEXEC)

    env = os.environ.get("BSPLINE_TEST_SEED")
    seed = int(env, 0) if env else (time.time_ns() ^ os.getpid()) % 2**63
    print("test_stmap_file: seed %d (BSPLINE_TEST_SEED=%d repeats this run)"
          "; %s%s" % (seed, seed, sys.executable,
                      ", cv2 " + cv2.__version__ if have_cv2 else ""))
    sys.stdout.flush()
    rng = np.random.default_rng(seed) if have_cv2 else None
    core = Core(sys.argv[1], np)
    failures = []
    skipped = []
    tmp = tempfile.mkdtemp(prefix="test-stmap-file-")
    try:
        cases = []
        n_exact = 0
        if have_cv2:
            cases = write_cases(cv2, np, rng, tmp, skipped)
            n_exact = check_valid(core, np, cases, failures)
        n_refusals = check_refusals(core, cv2 if have_cv2 else None, np,
                                    rng, tmp, cases, failures)
        n_trunc = n_corrupt = 0
        if have_cv2:
            n_trunc, n_corrupt = check_damage(core, np, rng, tmp, cases,
                                              failures)
    finally:
        shutil.rmtree(tmp)
    for s in skipped:
        print("not checked: %s" % s)
    for f in failures[:60]:
        print("FAIL %s" % f)
    print("test_stmap_file: %s: %d of %d valid maps read exactly, %d "
          "refusals, %d truncations, %d corruptions%s" % (
              "FAILED" if failures else "ok", n_exact, len(cases),
              n_refusals, n_trunc, n_corrupt,
              " [%d failures, seed %d: BSPLINE_TEST_SEED=%d repeats]" % (
                  len(failures), seed, seed) if failures else ""))
    if failures:
        sys.exit(1)
    if not have_cv2:
        print("SKIP: the maps OpenCV writes were not checked: %s; set "
              "BSPLINE_CV_PYTHON to a python with opencv-python-headless "
              "4.10" % why)
        sys.exit(SKIP)


if __name__ == "__main__":
    main()
