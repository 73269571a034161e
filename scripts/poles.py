# SPDX-License-Identifier: LGPL-2.1-or-later
"""Computes the poles of the B-spline prefilters of degrees 2-23 to 22 digits.

The poles of order n are the roots inside the unit circle of
sum_k beta^n(k) z^k (Unser 1999), with beta^n(k) the centred B-spline at
the integers, computed here as exact rationals from the explicit formula
beta^n(x) = 1/n! sum_{k=0}^{n+1} (-1)^k C(n+1, k) (x + (n+1)/2 - k)_+^n.
Degrees 2-11 are the interpolation prefilters of orders 2-11; degrees
13-23 (odd) are the Gram filters 1 / b^(2n+1) of the least-squares
reduction of orders 6-11 (core/resample/reduce.c).  The output is the table of
core/include/bspline-math.h (bspline_pole).
Run with Debian's python3 and python3-mpmath:  python3 scripts/poles.py
"""
from fractions import Fraction
from math import comb, factorial

import mpmath as mp

mp.mp.dps = 50


def sampled_bspline(n):
    def beta(x):
        s = Fraction(0)
        for k in range(n + 2):
            y = x + Fraction(n + 1, 2) - k
            if y > 0:
                s += (-1) ** k * comb(n + 1, k) * y ** n
        return s / factorial(n)

    m = n // 2
    return [beta(Fraction(k)) for k in range(-m, m + 1)]


for n in list(range(2, 12)) + list(range(13, 24, 2)):
    coeffs = [mp.mpf(c.numerator) / c.denominator for c in sampled_bspline(n)]
    roots = mp.polyroots(coeffs[::-1], maxsteps=200, extraprec=200)
    poles = sorted(r.real for r in roots if abs(r) < 1)
    for i, z in enumerate(poles):
        print(f"    case {n} * 16 + {i}: return {mp.nstr(z, 22)};")
