"""Tests of EXT-DRS19 (the exact (epsilon, delta) curve of mu-GDP and the way back) and
EXT-GDPComposition, guarantees/gdp.py.

Oracles: the Gaussian exact curve, computed independently, and mpmath bisection.

The Gaussian mechanism with sensitivity/sigma = mu is exactly (mu^2/2)-zCDP, mu-GDP and
(alpha, alpha mu^2/2)-RDP, so its exact privacy profile

    delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2)

(Dong-Roth-Su; Balle-Wang 2018) is a lower bound on the delta of any valid conversion
at the same eps. It is computed here from the closed form in mpmath at 60 digits, and
also by the loss oracle ``adaptive_dp.loss.gaussian.gaussian_hockey_stick_mp``.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adaptive_dp.guarantees import (
    GDP,
    ApproxDP,
    compose_gdp,
    gdp_delta,
    gdp_mu_for,
    gdp_to_dp,
)
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


def mp_minimise(f: object, lo: float, hi: float) -> mpmath.mpf:
    """min of f over alpha in [lo, hi] (log grid, then golden refinement), at 60 digits."""
    assert callable(f)
    with mpmath.workdps(DPS):
        grid = [mpmath.mpf(lo) * (mpmath.mpf(hi) / lo) ** (mpmath.mpf(i) / 200)
                for i in range(201)]
        values = [f(a) for a in grid]
        i = min(range(len(grid)), key=lambda j: values[j])
        a, b = grid[max(i - 1, 0)], grid[min(i + 1, 200)]
        g = (mpmath.sqrt(5) - 1) / 2
        c, d = b - g * (b - a), a + g * (b - a)
        fc, fd = f(c), f(d)
        for _ in range(130):
            if fc <= fd:
                b, d, fd = d, c, fc
                c = b - g * (b - a)
                fc = f(c)
            else:
                a, c, fc = c, d, fd
                d = a + g * (b - a)
                fd = f(d)
        return min(fc, fd, values[i])



rhos = st.one_of(
    st.sampled_from([1e-8, 0.005, 0.5, 1.35301, 10.0]),
    st.floats(min_value=1e-6, max_value=50.0),
)
deltas = st.one_of(
    st.sampled_from([1e-12, 1e-6, 1e-3, 0.3]),
    st.floats(min_value=1e-12, max_value=0.4),
)


def _ulps(f: float, ref: mpmath.mpf) -> mpmath.mpf:
    return abs(mp(f) - ref) / math.ulp(f)


# ----------------------------------------------------------------- GDP (EXT-DRS19)

mus = st.one_of(st.sampled_from([1e-3, 0.5, 1.0, 3.0]), st.floats(min_value=1e-3, max_value=8.0))


@settings(max_examples=40)
@given(mus, st.floats(min_value=0.0, max_value=40.0))
def test_gdp_delta_encloses_the_exact_curve(mu: float, eps: float) -> None:
    ours = gdp_delta(GDP(mu), eps)
    with mpmath.workdps(DPS):
        ref = gaussian_delta_lower(mu, eps)
        assert mp(ours) >= ref
        if ref > mpmath.mpf(1e-300):
            assert _ulps(ours, ref) <= 2
        else:
            assert ours <= 1e-300


@settings(max_examples=25)
@given(mus, deltas)
def test_gdp_to_dp_is_safe_and_tight(mu: float, d: float) -> None:
    eps = float(gdp_to_dp(GDP(mu), d).epsilon)
    with mpmath.workdps(DPS):
        assert gaussian_delta_lower(mu, eps) <= mp(d)
        exact_eps = gaussian_exact_epsilon(mu, d)
        assert mp(eps) >= exact_eps
        assert mp(eps) - exact_eps <= mpmath.mpf(1e-12) * max(exact_eps, mpmath.mpf(1))


@settings(max_examples=25)
@given(st.floats(min_value=0.0, max_value=20.0), deltas)
def test_gdp_mu_for_is_the_largest_safe_mu(eps: float, d: float) -> None:
    mu = float(gdp_mu_for(eps, d).mu)
    assert mu > 0
    with mpmath.workdps(DPS):
        assert gaussian_delta_lower(mu, eps) <= mp(d)
        assert gaussian_delta_closed_form(mp(mu) * (1 + mpmath.mpf(1e-12)), eps) > mp(d)
    back = gdp_to_dp(GDP(mu), d).epsilon
    assert back <= Fraction(eps) * (1 + Fraction(1, 10**12)) + Fraction(1, 10**300)


@settings(max_examples=25)
@given(mus, st.floats(min_value=1.0001, max_value=3.0), deltas)
def test_gdp_to_dp_is_monotone_in_mu(mu: float, factor: float, d: float) -> None:
    assert gdp_to_dp(GDP(mu), d).epsilon <= gdp_to_dp(GDP(mu * factor), d).epsilon


def test_gdp_edge_cases() -> None:
    assert gdp_delta(GDP(0), 1) == 0.0
    assert gdp_to_dp(GDP(0), "1e-6") == ApproxDP(0, "1e-6")
    assert gdp_mu_for(1, 0) == GDP(0)
    assert gdp_delta(GDP("1e-3"), 1) == 5e-324  # far tail: the smallest positive float
    assert gdp_delta(GDP(40), "0.5") <= 1.0


def test_compose_gdp() -> None:
    assert compose_gdp([GDP(3), GDP(4)]) == GDP(5)  # exact square
    assert compose_gdp([]) == GDP(0)
    mu = compose_gdp([GDP(1), GDP(1)]).mu
    with mpmath.workdps(DPS):
        assert mp(mu) >= mpmath.sqrt(2)
        assert _ulps(float(mu), mpmath.sqrt(2)) <= 2


@pytest.mark.parametrize("delta", [5e-324, 1e-300, 1 - 2**-53])
@pytest.mark.parametrize("mu", [1e-8, 1.0, 30.0])
def test_gdp_to_dp_extreme_deltas(mu: float, delta: float) -> None:
    """EXT-DRS19 at extreme deltas: the certified epsilon keeps delta_mu(eps) <= delta."""
    eps = float(gdp_to_dp(GDP(mu), delta).epsilon)
    with mpmath.workdps(DPS):
        assert gaussian_delta_closed_form(mu, eps) <= mp(delta)
        assert mp(eps) >= gaussian_exact_epsilon(mu, delta)
