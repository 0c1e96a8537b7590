"""Independent Gaussian oracles for the conversion tests (EXT-DRS19 closed form, mpmath).

The Gaussian mechanism with sensitivity/sigma = mu is exactly (mu^2/2)-zCDP, mu-GDP and
(alpha, alpha mu^2/2)-RDP, so its exact privacy profile

    delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2)

(Dong-Roth-Su; Balle-Wang 2018) is a lower bound on the delta of any valid conversion at
the same eps. It is computed here from the closed form in mpmath at 60 digits and checked
against the loss oracle ``adaptive_dp.loss.gaussian.gaussian_hockey_stick_mp``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction

import mpmath
from hypothesis import strategies as st

from adaptive_dp.loss.gaussian import gaussian_hockey_stick_mp

DPS = 60


def mp(x: object) -> mpmath.mpf:
    """An exact number (float, int, str, Fraction) as an mpf at the current precision."""
    if isinstance(x, Fraction):
        return mpmath.mpf(x.numerator) / x.denominator
    return mpmath.mpf(x)


def gaussian_delta_closed_form(mu: object, eps: object) -> mpmath.mpf:
    """delta(eps) of the Gaussian with sensitivity/sigma = mu, at 60+ digits."""
    for dps in (DPS, 4 * DPS, 16 * DPS):
        with mpmath.workdps(dps):
            m, e = mp(mu), mp(eps)
            if m == 0:
                return mpmath.mpf(0)
            a = mpmath.ncdf(-e / m + m / 2)
            d = a - mpmath.exp(e) * mpmath.ncdf(-e / m - m / 2)
            if d > 0 and a / d < mpmath.mpf(10) ** (dps - DPS):
                return d
    return d


def to_fraction(x: object) -> object:
    """mpf values as exact Fractions (the loss oracle reads its inputs exactly)."""
    if isinstance(x, mpmath.mpf):
        sign, man, exp, _ = x._mpf_
        value = Fraction(int(man)) * Fraction(2) ** int(exp)
        return -value if sign else value
    return x


def gaussian_delta_lower(mu: object, eps: object) -> mpmath.mpf:
    """The larger of the two independent oracles (they must agree to 1e-30 relative)."""
    ours = gaussian_delta_closed_form(mu, eps)
    theirs = gaussian_hockey_stick_mp(to_fraction(mu), to_fraction(eps))
    with mpmath.workdps(DPS):
        assert abs(ours - theirs) <= mpmath.mpf(10) ** -30 * max(abs(ours), mpmath.mpf(10) ** -300)
        return max(ours, theirs)


def gaussian_exact_epsilon(mu: object, delta: object) -> mpmath.mpf:
    """The smallest eps with delta(eps) <= delta for the Gaussian (mpmath bisection)."""
    with mpmath.workdps(DPS):
        d = mp(delta)
        if gaussian_delta_closed_form(mu, 0) <= d:
            return mpmath.mpf(0)
        lo, hi = mpmath.mpf(0), mpmath.mpf(1)
        while gaussian_delta_closed_form(mu, hi) > d:
            lo, hi = hi, 2 * hi
        for _ in range(130):
            mid = (lo + hi) / 2
            if gaussian_delta_closed_form(mu, mid) > d:
                lo = mid
            else:
                hi = mid
        return hi


def golden_refine(f: Callable[[mpmath.mpf], mpmath.mpf], grid: list[mpmath.mpf],
                  iterations: int) -> mpmath.mpf:
    """min of f over ``grid`` (increasing), refined by golden section between the grid
    neighbours of the best point (at the caller's precision)."""
    values = [f(x) for x in grid]
    i = min(range(len(grid)), key=lambda j: values[j])
    a, b = grid[max(i - 1, 0)], grid[min(i + 1, len(grid) - 1)]
    g = (mpmath.sqrt(5) - 1) / 2
    c, d = b - g * (b - a), a + g * (b - a)
    fc, fd = f(c), f(d)
    for _ in range(iterations):
        if fc <= fd:
            b, d, fd = d, c, fc
            c = b - g * (b - a)
            fc = f(c)
        else:
            a, c, fc = c, d, fd
            d = a + g * (b - a)
            fd = f(d)
    return min(fc, fd, values[i])


def mp_minimise(f: object, lo: float, hi: float) -> mpmath.mpf:
    """min of f over alpha in [lo, hi] (log grid, then golden refinement), at 60 digits."""
    assert callable(f)
    with mpmath.workdps(DPS):
        grid = [mpmath.mpf(lo) * (mpmath.mpf(hi) / lo) ** (mpmath.mpf(i) / 200)
                for i in range(201)]
        return golden_refine(f, grid, 130)


rhos = st.one_of(
    st.sampled_from([1e-8, 0.005, 0.5, 1.35301, 10.0]),
    st.floats(min_value=1e-6, max_value=50.0),
)
deltas = st.one_of(
    st.sampled_from([1e-12, 1e-6, 1e-3, 0.3]),
    st.floats(min_value=1e-12, max_value=0.4),
)


def ulps(f: float, ref: mpmath.mpf) -> mpmath.mpf:
    return abs(mp(f) - ref) / math.ulp(f)
