#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The L1-optimal camera path (core/stabilize/camera-path.c) against
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

Windows with data_weight > 0 are the quadratic program (the fidelity term
of camera-path.h: data_weight / 2 times the mean squared distance by which
B_t moves the frame's corners, built here from those corners and the
generic E_k).  HiGHS (in scipy) solves no quadratic program, so for these:

  - the C objective must equal this script's evaluation of the quadratic
    objective at the C path within REL_TOL;
  - optimality certificate: a convex program's point z* (the C path's p,
    e = |term values|, s = each frame's largest violation) is optimal iff
    it minimises the linearised objective (c + grad f(z*))^T z over the
    same feasible set.  HiGHS solves that linear program (in the shift
    z - z*); the drop of its optimum below (c + grad)^T z* bounds the C
    objective's excess over the optimum and must be within QP_CERT_TOL
    of the objective (see there why not REL_TOL);
  - the hard program's feasibility does not depend on the objective: C's
    optimal / infeasible must match HiGHS's feasible / infeasible as above
    (its optimum is compared only for the linear program);
  - on the first DIRECT_WINDOWS windows of at most DIRECT_FRAMES free
    frames, the quadratic program solved as it stands by
    scipy.optimize.minimize (trust-constr) must reach the C objective
    within DIRECT_TOL (an independent check of the certificate).
"""
import os
import subprocess
import sys
import tempfile
import warnings

import numpy as np
import scipy.sparse as sp
from scipy.optimize import Bounds, LinearConstraint, linprog, minimize

REL_TOL = 1e-6
# HiGHS's own feasibility tolerances (default 1e-7) let its optimum dip
# below the true one by 1e-7 times the rows' prices (up to w * 100 per
# parameter, the crop penalty per pixel): 1.7e-6 relative seen on one
# window (seed 1794707082540316368, random-tripod-affine-n29-z1.030-k1,
# HiGHS's own point costing more than C's when evaluated exactly).  1e-9
# removes that; at 1e-10 HiGHS itself sometimes fails (status 4 or
# "Unknown"), so a failure is retried at its defaults (highs()).
HIGHS_TIGHT = {'primal_feasibility_tolerance': 1e-9,
               'dual_feasibility_tolerance': 1e-9}
# the quadratic program's certificate: the linearised objective's drop is
# first order in the C iterate's remaining dual residual (the gradient
# error, which grows as the barrier closes while the objective no longer
# moves, times the width of the feasible set), not in its excess
# objective, which is second order: up to 7.3e-6 seen (seed
# 1795227395432860044, qp-pan-similarity-n12-z1.100-k0-d0.749, where
# trust-constr's own optimum is above C's), and 8.8e-7 on a window (seed
# 1794707082540316368, qp-wander-affine-n24-z1.300-k0-d0.18) whether the
# solver's tolerance is 1e-8, 1e-10 or 1e-12
QP_CERT_TOL = 1e-4
# the quadratic program solved directly by trust-constr: on the first
# DIRECT_WINDOWS windows of at most DIRECT_FRAMES free frames, to this
# relative tolerance (a general solver, far less accurate than HiGHS)
DIRECT_TOL = 1e-4
DIRECT_FRAMES = 12
DIRECT_WINDOWS = 3


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
        win['data_weight'] = w[5]
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


def highs(c, **kw):
    """linprog by HiGHS at HIGHS_TIGHT, or at its defaults where that
    fails (a status other than optimal or infeasible)."""
    res = linprog(c, method='highs', options=HIGHS_TIGHT, **kw)
    if res.status not in (0, 2):
        res = linprog(c, method='highs', **kw)
    return res


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
    # the fidelity term of a free frame: data_weight / 2 times the mean over
    # the FRAME's corners of |B q - q|^2; B q - q = J_q (p - p0), J_q's
    # columns E_k q, p0 the parameters of B = I
    q_mat = np.zeros((n, n))
    for (qx, qy) in [(sx * cx, sy * cy) for sx in (-1, 1) for sy in (-1, 1)]:
        jac = np.column_stack([(E[k] @ np.array([qx, qy, 1.0]))[:2]
                               for k in range(n)])
        q_mat += 0.25 * win['data_weight'] * (jac.T @ jac)
    p0 = params_of(np.eye(3), n)
    model = {'terms': terms, 'incl': incl, 'n_p': n_p, 'n_e': n_e,
             'free': free, 'n': n, 'bounds': bounds, 'Q': q_mat, 'p0': p0}
    return c, a_ub, np.array(b_ub), bounds, model


def fidelity(model, p):
    """The fidelity term of the free frames' parameters p, its gradient."""
    n = model['n']
    dev = p.reshape(-1, n) - model['p0']
    grad = dev @ model['Q']
    return 0.5 * float(np.sum(dev * grad)), grad.reshape(-1)


def path_point(win, model, p):
    """z = (p, e, s) of the path p: each e_j its term's |value|, each s_t
    its frame's largest crop violation."""
    n = model['n']
    e = np.array([abs(g @ p + c) for (g, c, _) in model['terms']])
    s = np.array([max(0.0, max(abs(a @ p[f * n:(f + 1) * n]) - half
                               for (a, half) in model['incl']))
                  for f in range(model['free'])])
    return np.concatenate([p, e, s])


def evaluate(win, model):
    """This program's objective at the C path (with the fidelity term), its
    worst proximity excess, the path's parameters."""
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
    return smooth + win['penalty'] * crop + fidelity(model, p)[0], prox, p


def certify_qp(win, model, c, a_ub, b_ub, bounds, p):
    """The convex program's optimality certificate: z* = the C path is
    optimal iff it minimises the linearised objective (c + grad f(z*))^T z
    over the feasible set.  Solved by HiGHS in the shift dz = z - z*, so
    that its optimum is directly (c + grad)^T (z_lin - z*), <= 0, without
    the cancellation of the large (c + grad)^T z* terms; by convexity
    -that is an upper bound on objective(z*) - optimum.  Returns (the gap,
    HiGHS's result)."""
    z = path_point(win, model, p)
    cost = c.copy()
    cost[:model['n_p']] += fidelity(model, p)[1]
    shifted = [(None if lo is None else lo - zk,
                None if hi is None else hi - zk)
               for (lo, hi), zk in zip(bounds, z)]
    res = highs(cost, A_ub=a_ub, b_ub=b_ub - a_ub @ z, bounds=shifted)
    return (-res.fun if res.status == 0 else float('nan')), res


def qp_direct(win, model, c, a_ub, b_ub, bounds):
    """The quadratic program solved as it stands by a general solver
    (scipy.optimize.minimize, trust-constr), from B = I, in variables whose
    linear parameters are scaled by half the frame diagonal (pixels at the
    corners, like the translations): its objective and result."""
    n, n_p = model['n'], model['n_p']
    half = 0.5 * np.hypot(win['width'], win['height'])
    d = np.ones(len(c))
    for f in range(model['free']):
        d[f * n + 2:(f + 1) * n] = 1.0 / half
    scaling = sp.diags(d)
    lo = np.array([-np.inf if b[0] is None else b[0] / dk
                   for b, dk in zip(bounds, d)])
    hi = np.array([np.inf if b[1] is None else b[1] / dk
                   for b, dk in zip(bounds, d)])
    z0 = path_point(win, model, np.tile(model['p0'], model['free']))
    z0[n_p:] += 1.0  # strictly inside the slack rows
    q_block = sp.block_diag([model['Q']] * model['free'])
    hess = (scaling @ sp.block_diag(
        [q_block, sp.csr_matrix((len(c) - n_p, len(c) - n_p))])
        @ scaling).tocsr()

    def fun(y):
        z = y * d
        return float(c @ z) + fidelity(model, z[:n_p])[0]

    def jac(y):
        z = y * d
        g = c.copy()
        g[:n_p] += fidelity(model, z[:n_p])[1]
        return g * d

    with warnings.catch_warnings():
        # its projections warn of a singular Jacobian (the bounds of the
        # e and s variables duplicate rows) and fall back to an SVD
        warnings.simplefilter('ignore')
        res = minimize(fun, z0 / d, jac=jac, hess=lambda y: hess,
                       method='trust-constr',
                       constraints=[LinearConstraint((a_ub @ scaling).tocsr(),
                                                     -np.inf, b_ub)],
                       bounds=Bounds(lo, hi),
                       options={'gtol': 1e-11, 'xtol': 1e-10,
                                'maxiter': 1000})
    return fun(res.x), res


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
    worst_gap = worst_qp_eval = worst_direct = 0.0
    n_opt = n_inf = n_qp = n_direct = n_direct_failed = 0
    max_it = max_qp_it = 0
    for win in windows:
        c, a_ub, b_ub, bounds, model = build_lp(win)
        qp = win['data_weight'] > 0.0
        n_qp += qp
        hard_bounds = list(bounds)
        for f in range(model['free']):
            hard_bounds[model['n_p'] + model['n_e'] + f] = (0, 0)
        hard = highs(c, A_ub=a_ub, b_ub=b_ub, bounds=hard_bounds)
        problems = []
        value, prox, p = evaluate(win, model)
        scale = max(1.0, abs(value))
        apart = 0.0
        if prox > 1e-7:
            problems.append('proximity bounds left by %.3g' % prox)
        if not qp:
            max_it = max(max_it, win['iterations'])
            elastic = highs(c, A_ub=a_ub, b_ub=b_ub, bounds=bounds)
            reference = elastic.fun if elastic.status == 0 else float('nan')
            if elastic.status != 0:
                problems.append('HiGHS failed on the elastic program: %s'
                                % elastic.message)
            else:
                opt = elastic.fun
                scale = max(1.0, abs(opt))
                rel = abs(win['objective'] - opt) / scale
                rel_eval = (value - opt) / scale
                worst_obj = max(worst_obj, rel)
                worst_eval = max(worst_eval, abs(rel_eval))
                if rel > REL_TOL:
                    problems.append('objective %.12g, HiGHS %.12g (rel %.2g)'
                                    % (win['objective'], opt, rel))
                if abs(rel_eval) > REL_TOL:
                    problems.append('the path costs %.12g here, optimum '
                                    '%.12g (rel %.2g)'
                                    % (value, opt, rel_eval))
                # for information: how far the two optimal paths are apart
                x = elastic.x[:model['n_p']]
                apart = float(np.max(np.abs(x - p))) if len(p) else 0.0
            detail = 'HiGHS %.10g' % reference
        else:
            max_qp_it = max(max_qp_it, win['iterations'])
            # the C objective is the program's objective at the C path
            rel_eval = abs(win['objective'] - value) / scale
            worst_qp_eval = max(worst_qp_eval, rel_eval)
            if rel_eval > REL_TOL:
                problems.append('objective %.12g, the path costs %.12g here '
                                '(rel %.2g)' % (win['objective'], value,
                                                rel_eval))
            gap, lin = certify_qp(win, model, c, a_ub, b_ub, bounds, p)
            if lin.status != 0:
                problems.append('HiGHS failed on the linearised program: %s'
                                % lin.message)
                rel_gap = float('nan')
            else:
                rel_gap = gap / scale
                worst_gap = max(worst_gap, abs(rel_gap))
                if abs(rel_gap) > QP_CERT_TOL:
                    problems.append('not optimal: the linearised objective '
                                    'drops by %.6g below the path\'s '
                                    '(rel %.2g)' % (gap, rel_gap))
                x = lin.x[:model['n_p']]
                apart = float(np.max(np.abs(x))) if len(x) else 0.0
            detail = 'linearised gap %.2g' % rel_gap
            direct = None
            if model['free'] <= DIRECT_FRAMES and n_direct < DIRECT_WINDOWS:
                try:
                    direct, res = qp_direct(win, model, c, a_ub, b_ub,
                                            bounds)
                except (RuntimeError, ValueError,
                        np.linalg.LinAlgError) as error:
                    # scipy's trust-constr factorises its projections with
                    # SuperLU, which fails on some windows ("Factor is
                    # exactly singular"), and its SVD fallback then raises
                    # too (seed 1796189786521519017: "DLASCL parameter
                    # number 4 had an illegal value"): the reference
                    # failed, not C; the next window of this size takes
                    # its place
                    n_direct_failed += 1
                    detail += ', trust-constr failed (%s)' % error
            if direct is not None:
                n_direct += 1
                rel_direct = (direct - value) / scale
                worst_direct = max(worst_direct, abs(rel_direct))
                detail += ', trust-constr %.10g (rel %.2g, %d it)' % (
                    direct, rel_direct, res.nit)
                if abs(rel_direct) > DIRECT_TOL:
                    problems.append('trust-constr %.12g, C %.12g (rel %.2g)'
                                    % (direct, value, rel_direct))
                if res.constr_violation > 1e-6:
                    problems.append('trust-constr left the constraints by '
                                    '%.2g' % res.constr_violation)
        # the hard program (s_t = 0): its feasibility does not depend on
        # the objective; for the linear program its optimum is C's
        if win['status'] == 0:
            n_opt += 1
            if hard.status != 0:
                problems.append('C says optimal, HiGHS says the crop '
                                'cannot stay inside (%s)' % hard.message)
            elif not qp and abs(hard.fun - win['objective']) > \
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
        print('%-56s %s obj %.10g %s it %d params apart %.2g%s'
              % (win['name'], ['optimal', 'infeasible', 'limit'][
                  win['status']], win['objective'], detail,
                 win['iterations'], apart,
                 '' if not problems else '  FAIL: ' + '; '.join(problems)))
        sys.stdout.flush()
        failures += bool(problems)
    if n_direct == 0 and n_direct_failed:
        print('camera-path-vs-linprog: trust-constr failed on all %d windows '
              'it was given: no independent check of the certificate'
              % n_direct_failed)
        failures += 1
    print('camera-path-vs-linprog: %s: %d windows (%d optimal, %d '
          'infeasible); linear program (%d): objective within %.2g of '
          'HiGHS, the C paths within %.2g, at most %d iterations; quadratic '
          'program (%d): objective within %.2g of its evaluation, '
          'linearised-optimality gap within %.2g, trust-constr within %.2g '
          'on %d windows (%d it failed on), at most %d iterations '
          '(relative; tolerance %g, '
          'certificate %g, trust-constr %g)'
          % ('FAILED' if failures else 'ok', len(windows), n_opt, n_inf,
             len(windows) - n_qp, worst_obj, worst_eval, max_it, n_qp,
             worst_qp_eval, worst_gap, worst_direct, n_direct,
             n_direct_failed, max_qp_it,
             REL_TOL, QP_CERT_TOL, DIRECT_TOL))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
