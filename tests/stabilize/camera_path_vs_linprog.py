#!/usr/bin/python3
"""The L1-optimal camera path (core/camera-path.c) against
scipy.optimize.linprog (HiGHS) on the same linear programs.

Usage: camera_path_vs_linprog.py TEST-CAMERA-PATH

Runs `TEST-CAMERA-PATH --dump FILE`, which writes random windows (camera
path, frame size, zoom, weights, fixed frames) with the C solver's path,
objective and status.  This script builds each window's linear program on
its own, from the equations of docs/notes/l1-camera-path.md in the paper's
own form (all 16 inclusion rows of a frame, generic matrix products for
F_t B_t), and solves it with HiGHS twice:

  - elastic (the crop rows relaxed by s_t >= 0 at the penalty price, the
    problem the C solver solves): the C objective must equal HiGHS's within
    a relative 1e-6, and the C path, evaluated in this script's program
    (|differences| for the slacks, its own largest crop violation for s_t),
    must reach that optimum within the same tolerance and keep the
    proximity bounds;
  - hard (s_t = 0): where the C solver says optimal, HiGHS must find the
    same optimum; where it says infeasible, HiGHS must find the program
    infeasible.

L1 optima are often not unique (a tripod shot: any still framing that fits
is optimal), so the paths themselves are compared for information only.
"""
import os
import subprocess
import sys
import tempfile

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog

REL_TOL = 1e-6


def read_windows(path):
    windows = []
    with open(path) as f:
        lines = [line.split() for line in f if line.strip()]
    i = 0
    while i < len(lines):
        assert lines[i][0] == 'problem', lines[i]
        win = {'name': lines[i][1]}
        size = lines[i + 1]
        win['n'] = int(size[1])
        win['width'], win['height'] = int(size[2]), int(size[3])
        win['params'] = int(size[4])
        win['zoom'] = float(size[5])
        w = [float(x) for x in lines[i + 2][1:]]
        win['w'] = w[0:3]
        win['linear_weight'], win['penalty'] = w[3], w[4]
        win['proximity'] = [float(x) for x in lines[i + 3][1:]]
        win['fixed'] = int(lines[i + 4][1])
        i += 5
        n, k = win['n'], win['fixed']
        win['camera'] = [np.array([float(x) for x in lines[i + t]])
                         for t in range(n)]
        i += n
        win['fixed_b'] = [np.array([float(x) for x in lines[i + t]])
                          for t in range(k)]
        i += k
        res = lines[i]
        win['status'], win['objective'] = int(res[1]), float(res[2])
        win['smoothness'], win['violation'] = float(res[3]), float(res[4])
        win['iterations'] = int(res[5])
        i += 1
        win['b'] = [np.array([float(x) for x in lines[i + t]])
                    for t in range(n)]
        i += n
        assert lines[i][0] == 'end'
        i += 1
        windows.append(win)
    return windows


def homogeneous(m):
    return np.array([[m[0], m[1], m[2]], [m[3], m[4], m[5]], [0, 0, 1.0]])


def centred(m3, cx, cy):
    """x -> M(x + c) - c"""
    s = np.array([[1, 0, cx], [0, 1, cy], [0, 0, 1.0]])
    return np.linalg.inv(s) @ m3 @ s


def basis(n):
    """B(p) = B0 + sum_k p_k E_k (3x3, centred coordinates)."""
    e = []
    if n == 4:
        # [[a, -b, tx], [b, a, ty]]
        e.append(np.array([[0, 0, 1], [0, 0, 0], [0, 0, 0.0]]))
        e.append(np.array([[0, 0, 0], [0, 0, 1], [0, 0, 0.0]]))
        e.append(np.array([[1, 0, 0], [0, 1, 0], [0, 0, 0.0]]))
        e.append(np.array([[0, -1, 0], [1, 0, 0], [0, 0, 0.0]]))
    else:
        # [[a, b, tx], [c, d, ty]]
        e.append(np.array([[0, 0, 1], [0, 0, 0], [0, 0, 0.0]]))
        e.append(np.array([[0, 0, 0], [0, 0, 1], [0, 0, 0.0]]))
        for (r, c) in ((0, 0), (0, 1), (1, 0), (1, 1)):
            m = np.zeros((3, 3))
            m[r, c] = 1.0
            e.append(m)
    b0 = np.zeros((3, 3))
    b0[2, 2] = 1.0
    return b0, e


def params_of(m3, n):
    """The parameters of the map M (its similarity part when n = 4)."""
    if n == 4:
        return np.array([m3[0, 2], m3[1, 2], 0.5 * (m3[0, 0] + m3[1, 1]),
                         0.5 * (m3[1, 0] - m3[0, 1])])
    return np.array([m3[0, 2], m3[1, 2], m3[0, 0], m3[0, 1], m3[1, 0],
                     m3[1, 1]])


def nearest_similarity(m3):
    al = 0.5 * (m3[0, 0] + m3[1, 1])
    be = 0.5 * (m3[1, 0] - m3[0, 1])
    r = m3.copy()
    r[0, 0], r[0, 1], r[1, 0], r[1, 1] = al, -be, be, al
    return r


def build_lp(win):
    """The elastic program: variables (p of the free frames, e, s); returns
    c, A_ub, b_ub, bounds, and what evaluating a path needs."""
    n, N, K = win['params'], win['n'], win['fixed']
    W, H, zoom = win['width'], win['height'], win['zoom']
    cx, cy = 0.5 * W, 0.5 * H
    b0, E = basis(n)
    F = [None]
    for t in range(1, N):
        f = np.linalg.inv(homogeneous(win['camera'][t - 1])) @ \
            homogeneous(win['camera'][t])
        f = centred(f, cx, cy)
        if n == 4:
            f = nearest_similarity(f)
        F.append(f)
    # r_u = T_(u+1) p_(u+1) + phi_(u+1) - p_u  (params of F B - B)
    T = [None] + [np.column_stack([params_of(F[t] @ E[k], n)
                                   for k in range(n)]) for t in range(1, N)]
    phi = [None] + [params_of(F[t] @ b0, n) for t in range(1, N)]
    fixed_p = [params_of(centred(homogeneous(b), cx, cy), n)
               for b in win['fixed_b']]
    free = N - K
    n_p = free * n

    # each r_u as (dense row block over the free p: n x n_p, constant n)
    def r_affine(u):
        g = np.zeros((n, n_p))
        c = phi[u + 1].copy()
        if u + 1 >= K:
            g[:, (u + 1 - K) * n:(u + 2 - K) * n] += T[u + 1]
        else:
            c += T[u + 1] @ fixed_p[u + 1]
        if u >= K:
            g[:, (u - K) * n:(u + 1 - K) * n] -= np.eye(n)
        else:
            c -= fixed_p[u]
        return g, c

    r = [r_affine(u) for u in range(N - 1)]
    stencils = ([1.0], [-1.0, 1.0], [1.0, -2.0, 1.0])
    terms = []  # (gradient row over p, constant, weight)
    for m, st in enumerate(stencils):
        for u in range(N - len(st)):
            if u + len(st) - 1 < K - 1:
                continue  # only fixed frames
            g = sum(cf * r[u + i][0] for i, cf in enumerate(st))
            c = sum(cf * r[u + i][1] for i, cf in enumerate(st))
            for k in range(n):
                wk = 1.0 if k < 2 else win['linear_weight']
                terms.append((g[k], c[k], win['w'][m] * wk))
    n_e = len(terms)
    n_var = n_p + n_e + free
    rows, cols, vals, b_ub = [], [], [], []

    def add_row(entries, bound):
        i = len(b_ub)
        for (j, v) in entries:
            if v != 0.0:
                rows.append(i)
                cols.append(j)
                vals.append(v)
        b_ub.append(bound)

    for j, (g, c, _) in enumerate(terms):
        nz = np.nonzero(g)[0]
        # v - e <= 0 and -v - e <= 0, v = g p + c
        add_row([(int(q), g[q]) for q in nz] + [(n_p + j, -1.0)], -c)
        add_row([(int(q), -g[q]) for q in nz] + [(n_p + j, -1.0)], c)
    # inclusion: every corner, both sides, both coordinates
    corners = [(sx * cx / zoom, sy * cy / zoom) for sx in (-1, 1)
               for sy in (-1, 1)]
    incl = []
    for (qx, qy) in corners:
        q = np.array([qx, qy, 1.0])
        for coord, half in ((0, cx), (1, cy)):
            a = np.array([(E[k] @ q)[coord] for k in range(n)])
            incl.append((a, half))
    for f in range(free):
        for (a, half) in incl:
            for sign in (1.0, -1.0):
                add_row([(f * n + k, sign * a[k]) for k in range(n)]
                        + [(n_p + n_e + f, -1.0)], half)
    # proximity
    ms, mr, mk, ma = win['proximity']
    bounds = [(None, None)] * n_p + [(0, None)] * n_e + [(0, None)] * free
    for f in range(free):
        o = f * n
        if n == 4:
            bounds[o + 2] = (1 - ms, 1 + ms)
            bounds[o + 3] = (-mr, mr)
        else:
            bounds[o + 2] = (1 - ms, 1 + ms)
            bounds[o + 5] = (1 - ms, 1 + ms)
            bounds[o + 3] = (-mr, mr)
            bounds[o + 4] = (-mr, mr)
            add_row([(o + 3, 1.0), (o + 4, 1.0)], mk)
            add_row([(o + 3, -1.0), (o + 4, -1.0)], mk)
            add_row([(o + 2, 1.0), (o + 5, -1.0)], ma)
            add_row([(o + 2, -1.0), (o + 5, 1.0)], ma)
    c = np.zeros(n_var)
    c[n_p:n_p + n_e] = [t[2] for t in terms]
    c[n_p + n_e:] = win['penalty']
    a_ub = sp.csr_matrix((vals, (rows, cols)), shape=(len(b_ub), n_var))
    model = {'terms': terms, 'incl': incl, 'n_p': n_p, 'n_e': n_e,
             'free': free, 'n': n, 'bounds': bounds}
    return c, a_ub, np.array(b_ub), bounds, model


def evaluate(win, model):
    """This program's objective at the C path, its worst proximity excess."""
    n, K = model['n'], win['fixed']
    cx, cy = 0.5 * win['width'], 0.5 * win['height']
    p = np.concatenate([params_of(centred(homogeneous(b), cx, cy), n)
                        for b in win['b'][K:]]) if model['free'] else \
        np.zeros(0)
    smooth = sum(w * abs(g @ p + c) for (g, c, w) in model['terms'])
    crop = 0.0
    for f in range(model['free']):
        pf = p[f * n:(f + 1) * n]
        worst = max(0.0, max(abs(a @ pf) - half
                             for (a, half) in model['incl']))
        crop += worst
    prox = 0.0
    for q, (lo, hi) in enumerate(model['bounds'][:model['n_p']]):
        if lo is not None:
            prox = max(prox, lo - p[q], p[q] - hi)
    if n == 6:
        ms, mr, mk, ma = win['proximity']
        for f in range(model['free']):
            a, b, c, d = p[f * 6 + 2:f * 6 + 6]
            prox = max(prox, abs(b + c) - mk, abs(a - d) - ma)
    return smooth + win['penalty'] * crop, prox, p


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, 'windows.txt')
        out = subprocess.run([sys.argv[1], '--dump', path],
                             capture_output=True, text=True)
        print(out.stdout.strip())
        if out.returncode != 0:
            print(out.stderr)
            print('FAIL: the dump did not run')
            return 1
        windows = read_windows(path)
    failures = 0
    worst_obj = worst_eval = 0.0
    n_opt = n_inf = 0
    for win in windows:
        c, a_ub, b_ub, bounds, model = build_lp(win)
        elastic = linprog(c, A_ub=a_ub, b_ub=b_ub, bounds=bounds,
                          method='highs')
        hard_bounds = list(bounds)
        for f in range(model['free']):
            hard_bounds[model['n_p'] + model['n_e'] + f] = (0, 0)
        hard = linprog(c, A_ub=a_ub, b_ub=b_ub, bounds=hard_bounds,
                       method='highs')
        problems = []
        if elastic.status != 0:
            problems.append('HiGHS failed on the elastic program: %s'
                            % elastic.message)
        else:
            opt = elastic.fun
            scale = max(1.0, abs(opt))
            rel = abs(win['objective'] - opt) / scale
            value, prox, p = evaluate(win, model)
            rel_eval = (value - opt) / scale
            worst_obj = max(worst_obj, rel)
            worst_eval = max(worst_eval, abs(rel_eval))
            if rel > REL_TOL:
                problems.append('objective %.12g, HiGHS %.12g (rel %.2g)'
                                % (win['objective'], opt, rel))
            if abs(rel_eval) > REL_TOL:
                problems.append('the path costs %.12g here, optimum %.12g '
                                '(rel %.2g)' % (value, opt, rel_eval))
            if prox > 1e-7:
                problems.append('proximity bounds left by %.3g' % prox)
            # for information: how far the two optimal paths are apart
            x = elastic.x[:model['n_p']]
            apart = float(np.max(np.abs(x - p))) if len(p) else 0.0
        if win['status'] == 0:
            n_opt += 1
            if hard.status != 0:
                problems.append('C says optimal, HiGHS says the crop '
                                'cannot stay inside (%s)' % hard.message)
            elif abs(hard.fun - win['objective']) > \
                    REL_TOL * max(1.0, abs(hard.fun)):
                problems.append('hard optimum %.12g, C %.12g'
                                % (hard.fun, win['objective']))
        elif win['status'] == 1:
            n_inf += 1
            if hard.status != 2:
                problems.append('C says infeasible, HiGHS status %d (%s)'
                                % (hard.status, hard.message))
        else:
            problems.append('C stopped at the iteration limit')
        print('%-48s %s obj %.10g HiGHS %.10g it %d params apart %.2g%s'
              % (win['name'], ['optimal', 'infeasible', 'limit'][
                  win['status']], win['objective'],
                 elastic.fun if elastic.status == 0 else float('nan'),
                 win['iterations'], apart if elastic.status == 0 else 0,
                 '' if not problems else '  FAIL: ' + '; '.join(problems)))
        failures += bool(problems)
    print('camera-path-vs-linprog: %s: %d windows (%d optimal, %d '
          'infeasible), objective within %.2g of HiGHS, the C paths within '
          '%.2g (relative; tolerance %g)'
          % ('FAILED' if failures else 'ok', len(windows), n_opt, n_inf,
             worst_obj, worst_eval, REL_TOL))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
