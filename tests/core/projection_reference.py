# SPDX-License-Identifier: LGPL-2.1-or-later
"""The projections of ffmpeg's v360, written again in numpy (double) from
their definitions, for test_projection.py: not a translation of
core/include/bspline-projection.h (angles and spherical coordinates here,
where the C code works with ratios of components).

Directions: X right, Y down, Z forward (v360's).  A frame's normalised
position (a, b) is in [-1, 1]^2, a = 2 x / width - 1 with x the pixel
coordinate (pixel i covers [i, i + 1)).

to_dir(name, a, b, fov) -> (x, y, z, valid); from_dir(name, x, y, z, fov,
size) -> (a, b, valid), fov = (h, v) in degrees (pannini: (parameter, -)),
size = (width, height) (EAC's padding is in pixels).
"""
import numpy as np

PI = np.pi
CUBE_FACES = "rludfb"   # v360's default face order
# EAC: face -> (column, row, quarter turns), v360's layout
EAC_LAYOUT = {"r": (2, 0, 0), "l": (0, 0, 0), "f": (1, 0, 0),
              "d": (0, 1, 3), "b": (1, 1, 1), "u": (2, 1, 3)}
RADIAL = ("flat", "fisheye", "equisolid", "sg", "og")


def _face_basis(face):
    """Unit vectors (centre, u direction, v direction) of a cube face:
    the point (uf, vf) of the face is centre + uf * U + vf * V."""
    return {
        "r": ((1, 0, 0), (0, 0, -1), (0, 1, 0)),
        "l": ((-1, 0, 0), (0, 0, 1), (0, 1, 0)),
        "u": ((0, -1, 0), (1, 0, 0), (0, 0, 1)),
        "d": ((0, 1, 0), (1, 0, 0), (0, 0, -1)),
        "f": ((0, 0, 1), (1, 0, 0), (0, 1, 0)),
        "b": ((0, 0, -1), (-1, 0, 0), (0, 1, 0)),
    }[face]


def _radius_of_angle(name, t, fov):
    """The radial projections: radius (normalised by the field of view's)
    of a point at angle t from the axis; NaN where none."""
    h = np.radians(fov)
    with np.errstate(invalid="ignore", divide="ignore"):
        if name == "flat":
            r, scale = np.where(t < PI / 2, np.tan(t), np.nan), np.tan(h / 2)
        elif name in ("fisheye", "dfisheye"):
            r, scale = t, h / 2
        elif name == "equisolid":
            r, scale = np.sin(t / 2), np.sin(h / 4)
        elif name == "sg":
            r, scale = np.where(t < PI, np.tan(t / 2), np.nan), np.tan(h / 4)
        elif name == "og":
            r, scale = np.where(t <= PI / 2, np.sin(t), np.nan), np.sin(h / 2)
    return r, scale


def _angle_of_radius(name, r):
    with np.errstate(invalid="ignore"):
        if name == "flat":
            return np.arctan(r)
        if name in ("fisheye", "dfisheye"):
            return np.where(r <= PI, r, np.nan)
        if name == "equisolid":
            return 2 * np.arcsin(np.where(r <= 1, r, np.nan))
        if name == "sg":
            return 2 * np.arctan(r)
        if name == "og":
            return np.arcsin(np.where(r <= 1, r, np.nan))


def default_fov(name):
    """v360's (ffmpeg 5.1) fields of view where they are given as 0."""
    if name in ("flat", "cylindrical"):
        return (90.0, 45.0)
    if name in ("fisheye", "dfisheye", "equisolid", "sg", "og"):
        return (180.0, 180.0)
    return (360.0, 180.0)


def to_dir(name, a, b, fov=(90.0, 45.0), size=(1, 1)):
    a = np.asarray(a, float)
    b = np.asarray(b, float)
    lon = lat = None
    if name == "equirect":
        lon, lat = a * np.radians(fov[0]) / 2, b * np.radians(fov[1]) / 2
    elif name == "hequirect":
        lon, lat = a * PI / 2, b * PI / 2
    elif name == "cylindrical":
        lon = a * np.radians(fov[0]) / 2
        lat = np.arctan(b * np.tan(np.radians(fov[1]) / 2))
    elif name == "mercator":
        lon = a * PI
        lat = np.arcsin(np.tanh(b * PI))   # the Gudermannian of b pi
    elif name == "pannini":
        # v360's pannini: a = S sin(lon), b = S tan(lat),
        # S = (d + 1) / (d + cos lon); solved for lon by bisection (an
        # independent route to v360's closed form)
        d = fov[0]
        lo = np.full(a.shape, -PI / 2)
        hi = np.full(a.shape, PI / 2)
        for _ in range(80):
            mid = (lo + hi) / 2
            f = (d + 1) * np.sin(mid) / (d + np.cos(mid)) - a
            lo = np.where(f < 0, mid, lo)
            hi = np.where(f < 0, hi, mid)
        lon = (lo + hi) / 2
        S = (d + 1) / (d + np.cos(lon))
        lat = np.arctan(b / S)
    if lon is not None:
        return (np.cos(lat) * np.sin(lon), np.sin(lat),
                np.cos(lat) * np.cos(lon), np.ones(a.shape, bool))
    if name in ("c3x2", "c6x1", "c1x6", "eac"):
        return _cube_to_dir(name, a, b, size)
    if name == "dfisheye":
        front = a >= 0
        al = np.where(front, 2 * a - 1, -(2 * a + 1))
        x, y, z, ok = to_dir("fisheye", al, b, fov)
        return x, y, np.where(front, z, -z), ok
    # radial
    _, sx = _radius_of_angle(name, np.zeros(1), fov[0])
    _, sy = _radius_of_angle(name, np.zeros(1), fov[1])
    px, py = a * sx, b * sy
    r = np.hypot(px, py)
    t = _angle_of_radius(name, r)
    az = np.arctan2(py, px)
    ok = np.isfinite(t)
    return (np.sin(t) * np.cos(az), np.sin(t) * np.sin(az), np.cos(t), ok)


def _cube_slot(name, face):
    k = CUBE_FACES.index(face)
    if name == "c3x2":
        return k % 3, k // 3, 0, 3, 2
    if name == "c6x1":
        return k, 0, 0, 6, 1
    if name == "c1x6":
        return 0, k, 0, 1, 6
    c, r, q = EAC_LAYOUT[face]
    return c, r, q, 3, 2


def _turn(u, v, q):
    """v360's rotate_cube_face: q quarter turns of (u, v)."""
    for _ in range(q):
        u, v = -v, u
    return u, v


def _cube_to_dir(name, a, b, size):
    x = np.full(a.shape, np.nan)
    y = x.copy()
    z = x.copy()
    A, B = (a + 1) / 2, (b + 1) / 2
    for face in CUBE_FACES:
        col, row, q, cols, rows = _cube_slot(name, face)
        if name == "eac":
            pu, pv = 2.0 / size[0], 2.0 / size[1]
            U = (A - pu) * 3 / (1 - 2 * pu)
            V = (B - pv - 0.5 * row) / (0.5 - 2 * pv)
            inside = (np.clip(np.floor(U), 0, 2) == col) & \
                ((B >= 0.5) == (row == 1))
            uf = np.tan((U - col - 0.5) * PI / 2)
            vf = np.tan((V - 0.5) * PI / 2)
        else:
            U, V = A * cols - col, B * rows - row
            inside = (np.clip(np.floor(A * cols), 0, cols - 1) == col) & \
                (np.clip(np.floor(B * rows), 0, rows - 1) == row)
            uf, vf = 2 * U - 1, 2 * V - 1
        # undo the slot's turn
        uf, vf = _turn(uf, vf, (4 - q) % 4)
        c, U3, V3 = (np.array(v, float) for v in _face_basis(face))
        p = c[:, None] + np.outer(U3, uf.ravel()) + np.outer(V3, vf.ravel())
        for arr, comp in zip((x, y, z), p):
            arr[inside] = comp.reshape(a.shape)[inside]
    return x, y, z, np.isfinite(x)


def from_dir(name, x, y, z, fov=(90.0, 45.0), size=(1, 1)):
    x, y, z = (np.asarray(v, float) for v in (x, y, z))
    n = np.sqrt(x * x + y * y + z * z)
    x, y, z = x / n, y / n, z / n
    lon = np.arctan2(x, z)
    lat = np.arcsin(np.clip(y, -1, 1))
    ok = np.ones(x.shape, bool)
    if name == "equirect":
        return lon / (np.radians(fov[0]) / 2), lat / (np.radians(fov[1]) / 2), ok
    if name == "hequirect":
        return lon / (PI / 2), lat / (PI / 2), np.abs(lon) <= PI / 2
    if name == "cylindrical":
        return (lon / (np.radians(fov[0]) / 2),
                np.tan(lat) / np.tan(np.radians(fov[1]) / 2), ok)
    if name == "mercator":
        return lon / PI, np.arctanh(np.sin(lat)) / PI, ok
    if name == "pannini":
        d = fov[0]
        S = (d + 1) / (d + np.cos(lon))
        return S * np.sin(lon), S * np.tan(lat), z >= 0
    if name in ("c3x2", "c6x1", "c1x6", "eac"):
        return _dir_to_cube(name, x, y, z, size)
    if name == "dfisheye":
        front = z >= 0
        a, b, ok = from_dir("fisheye", x, y, np.abs(z), fov)
        ok = ok & (np.abs(a) <= 1)   # past its half: outside its lens
        return np.where(front, a / 2 + 0.5, -a / 2 - 0.5), b, ok
    t = np.arctan2(np.hypot(x, y), z)   # arccos(z) loses bits near 0
    az = np.arctan2(y, x)
    r, sx = _radius_of_angle(name, t, fov[0])
    _, sy = _radius_of_angle(name, t, fov[1])
    a = r * np.cos(az) / sx
    b = r * np.sin(az) / sy
    return a, b, np.isfinite(a) & np.isfinite(b)


def _dir_to_cube(name, x, y, z, size):
    ax, ay, az = np.abs(x), np.abs(y), np.abs(z)
    face = np.where((az >= ax) & (az >= ay), np.where(z > 0, "f", "b"),
                    np.where(ax >= ay, np.where(x > 0, "r", "l"),
                             np.where(y > 0, "d", "u")))
    a = np.full(x.shape, np.nan)
    b = a.copy()
    P = np.stack([x, y, z])
    for f in CUBE_FACES:
        m = face == f
        c, U3, V3 = (np.array(v, float) for v in _face_basis(f))
        # the ray through the face plane c . p = 1
        t = np.tensordot(c, P, 1)
        uf = np.tensordot(U3, P, 1) / t
        vf = np.tensordot(V3, P, 1) / t
        col, row, q, cols, rows = _cube_slot(name, f)
        uf, vf = _turn(uf, vf, q)
        if name == "eac":
            pu, pv = 2.0 / size[0], 2.0 / size[1]
            U = (2 / PI * np.arctan(uf) + 0.5 + col) * (1 - 2 * pu) / 3 + pu
            V = (2 / PI * np.arctan(vf) + 0.5) * (0.5 - 2 * pv) + pv \
                + 0.5 * row
        else:
            U = (col + (uf + 1) / 2) / cols
            V = (row + (vf + 1) / 2) / rows
        a[m] = (2 * U - 1)[m]
        b[m] = (2 * V - 1)[m]
    return a, b, np.isfinite(a)


def rotation(yaw, pitch, roll):
    """Input direction = R @ output direction: v360's yaw (about Y),
    pitch (about X), roll (about Z), in its default order ypr."""
    cy, sy = np.cos(np.radians(yaw)), np.sin(np.radians(yaw))
    cp, sp = np.cos(np.radians(pitch)), np.sin(np.radians(pitch))
    cr, sr = np.cos(np.radians(roll)), np.sin(np.radians(roll))
    Y = np.array([[cy, 0, sy], [0, 1, 0], [-sy, 0, cy]])
    P = np.array([[1, 0, 0], [0, cp, -sp], [0, sp, cp]])
    R = np.array([[cr, -sr, 0], [sr, cr, 0], [0, 0, 1]])
    return Y @ P @ R


def output_directions(out, w, h, fov, ypr):
    """The input-side direction of every output pixel centre (h x w)."""
    j, i = np.meshgrid(np.arange(w), np.arange(h))
    a = 2 * (j + 0.5) / w - 1
    b = 2 * (i + 0.5) / h - 1
    x, y, z, ok = to_dir(out, a, b, fov, (w, h))
    d = rotation(*ypr) @ np.stack([x.ravel(), y.ravel(), z.ravel()])
    return d.reshape(3, h, w), ok


def projection_map(inp, out, src, dst, fov, ifov, ypr):
    """Input pixel coordinates (x, y) of each output pixel centre; NaN
    where none."""
    d, ok = output_directions(out, dst[0], dst[1], fov, ypr)
    a, b, ok2 = from_dir(inp, d[0], d[1], d[2], ifov, src)
    ok = ok & ok2
    x = np.where(ok, (a + 1) / 2 * src[0], np.nan)
    y = np.where(ok, (b + 1) / 2 * src[1], np.nan)
    return x, y
