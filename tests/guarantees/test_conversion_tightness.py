"""Issue 15, item 2: every conversion returns a value in [exact, exact + 2 ulps].

Exact values are computed here, independently of the code under test, with 60-digit
mpmath: the GDP epsilon by bisection on the closed-form curve (EXT-DRS19), the zCDP
optimum by a grid then golden-section minimisation over t = log(alpha - 1) of the
stated formula (EXT-CKS20), the RDP conversions by the stated formula at each given
order (EXT-Mironov17, EXT-BBGHS20). See docs/numerics.md, "Tight conversions".
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import adaptive_dp.guarantees.gdp as gdp_module
from adaptive_dp.guarantees import (
    GDP,
    RDP,
    ZCDP,
    RDPCurve,
    gdp_to_dp,
    rdp_to_dp,
    zcdp_delta_optimal,
    zcdp_to_dp_optimal,
)
from adaptive_dp.numerics.tight import step_to_tight
from tests.guarantees.gaussian_oracle import golden_refine

DPS = 60
NEAR_ONE = [0.5, 0.7, 1 - 1e-7, 1 - 1e-12]
TINY = [1e-300, 1e-100, 1e-12, 1e-6]


def log_uniform(lo: float, hi: float) -> st.SearchStrategy[float]:
    return st.floats(math.log(lo), math.log(hi)).map(math.exp)


deltas = st.one_of(
    st.sampled_from([*TINY, 0.3, *NEAR_ONE]),
    st.floats(min_value=1e-9, max_value=1 - 1e-9),
    log_uniform(1e-300, 1e-3),
    st.floats(min_value=1e-12, max_value=1e-3).map(lambda x: 1 - x),
)


def mp(x: float | Fraction) -> mpmath.mpf:
    if isinstance(x, Fraction):
        return mpmath.mpf(x.numerator) / x.denominator
    return mpmath.mpf(x)


def assert_tight(ours: float, exact: mpmath.mpf) -> None:
    """exact <= ours <= exact + 2 ulps (of ours)."""
    with mpmath.workdps(DPS):
        assert mp(ours) >= exact, (ours, exact)
        assert mp(ours) - exact <= 2 * mp(math.ulp(ours)), (ours, exact)


# ------------------------------------------------------------ GDP (EXT-DRS19)


def gdp_delta_exact(mu: mpmath.mpf, eps: mpmath.mpf) -> mpmath.mpf:
    """delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2)."""
    return mpmath.ncdf(-eps / mu + mu / 2) - mpmath.exp(eps) * mpmath.ncdf(-eps / mu - mu / 2)


def gdp_epsilon_exact(mu: float, delta: float) -> mpmath.mpf:
    """The smallest eps >= 0 with delta(eps) <= delta: bisection to 1e-45 relative."""
    with mpmath.workdps(DPS):
        m, d = mp(mu), mp(delta)
        if gdp_delta_exact(m, mpmath.mpf(0)) <= d:
            return mpmath.mpf(0)
        lo, hi = mpmath.mpf(0), mpmath.mpf(1)
        while gdp_delta_exact(m, hi) > d:
            lo, hi = hi, 2 * hi
        while hi - lo > mpmath.mpf(10) ** -45 * hi:
            mid = (lo + hi) / 2
            if gdp_delta_exact(m, mid) > d:
                lo = mid
            else:
                hi = mid
        return hi


mus = st.one_of(st.sampled_from([1e-8, 1e-3, 0.5, 1.0, 3.0, 10.0, 30.0]), log_uniform(1e-4, 50))


@settings(max_examples=60, deadline=None)
@given(mus, deltas)
def test_gdp_to_dp_is_within_two_ulps_above_exact(mu: float, delta: float) -> None:
    assert_tight(float(gdp_to_dp(GDP(mu), delta).epsilon), gdp_epsilon_exact(mu, delta))


@pytest.mark.parametrize("delta", [1e-300, 1e-7, 0.5, 0.9, 1 - 1e-7, 1 - 1e-12])
@pytest.mark.parametrize("mu", [30.0, 50.0])
def test_gdp_to_dp_flat_curves_near_one(mu: float, delta: float) -> None:
    """Where main was up to 6.7e7 ulps loose (a flat curve, delta near 1)."""
    eps = float(gdp_to_dp(GDP(mu), delta).epsilon)
    assert eps > 0
    assert_tight(eps, gdp_epsilon_exact(mu, delta))


def test_gdp_fallback_is_tight_when_the_float_search_is_far_off(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A float search 1e6 ulps off: single-ulp steps give up, the mpmath bisection
    takes over, and the result is still certified tight."""
    exact = gdp_epsilon_exact(1.0, 1e-6)
    monkeypatch.setattr(gdp_module, "_float_epsilon", lambda mu, d: float(exact) * (1 + 1e-10))
    assert_tight(float(gdp_to_dp(GDP(1), 1e-6).epsilon), exact)


def test_step_to_tight_moves_by_single_ulps_a_bounded_number_of_times() -> None:
    root = Fraction(1, 3)

    def holds(x: float) -> bool:
        return Fraction(x) >= root

    nearest = float(root)
    smallest = math.nextafter(nearest, math.inf) if Fraction(nearest) < root else nearest
    below = math.nextafter(smallest, 0.0)
    assert step_to_tight(below, holds, math.inf) == smallest
    assert step_to_tight(math.nextafter(smallest, math.inf), holds, math.inf) == smallest
    far = smallest
    for _ in range(100):
        far = math.nextafter(far, math.inf)
    assert step_to_tight(far, holds, math.inf, steps=24) is None


# --------------------------------------------------------- zCDP (EXT-CKS20)


def golden_min(f: Callable[[mpmath.mpf], mpmath.mpf], lo: float, hi: float) -> mpmath.mpf:
    """min of f on a grid of t in [lo, hi] (step 1/2), refined by golden section."""
    ts = [mpmath.mpf(lo) + mpmath.mpf(i) / 2 for i in range(int(2 * (hi - lo)) + 1)]
    return golden_refine(f, ts, 230)


def zcdp_epsilon_exact(rho: float, delta: float) -> mpmath.mpf:
    """max(0, inf_alpha alpha rho + (log(1/delta) + (alpha-1) log(1-1/alpha) - log alpha)
    / (alpha-1)), in t = log(alpha - 1)."""
    with mpmath.workdps(DPS):
        r, dl = mp(rho), mp(delta)

        def f(t: mpmath.mpf) -> mpmath.mpf:
            am1 = mpmath.exp(t)
            log_alpha = mpmath.log1p(am1)
            return (1 + am1) * r + (-mpmath.log(dl) + am1 * (t - log_alpha) - log_alpha) / am1

        return max(golden_min(f, -60, 200), mpmath.mpf(0))


def zcdp_delta_exact(rho: float, eps: float) -> mpmath.mpf:
    """min(1, inf_alpha exp((alpha-1)(alpha rho - eps)) / (alpha-1) (1-1/alpha)^alpha)."""
    with mpmath.workdps(DPS):
        r, e = mp(rho), mp(eps)

        def f(t: mpmath.mpf) -> mpmath.mpf:
            am1 = mpmath.exp(t)
            log_alpha = mpmath.log1p(am1)
            return mpmath.exp(am1 * ((1 + am1) * r - e) - t + (1 + am1) * (t - log_alpha))

        return min(golden_min(f, -60, 200), mpmath.mpf(1))


rhos = st.one_of(st.sampled_from([1e-6, 0.005, 0.5, 1.35301, 10.0, 1000.0]),
                 log_uniform(1e-6, 1e3))


@settings(max_examples=30, deadline=None)
@given(rhos, deltas)
def test_zcdp_to_dp_optimal_is_within_two_ulps_above_exact(rho: float, delta: float) -> None:
    assert_tight(float(zcdp_to_dp_optimal(ZCDP(rho), delta).epsilon),
                 zcdp_epsilon_exact(rho, delta))


@settings(max_examples=25, deadline=None)
@given(rhos, st.one_of(st.sampled_from([0.0, 0.1, 1.0, 10.0]), st.floats(0, 60)))
def test_zcdp_delta_optimal_is_within_two_ulps_above_exact(rho: float, eps: float) -> None:
    ours = zcdp_delta_optimal(ZCDP(rho), eps)
    exact = zcdp_delta_exact(rho, eps)
    if exact < mpmath.mpf(2) ** -1074:
        assert ours == math.ulp(0.0)  # the smallest float above an underflowing delta
    else:
        assert_tight(ours, exact)


# ------------------------------------------- RDP (EXT-Mironov17, EXT-BBGHS20)


def rdp_epsilon_exact(points: list[tuple[float, float]], delta: float, method: str) -> mpmath.mpf:
    with mpmath.workdps(DPS):
        d = mp(delta)
        values = []
        for alpha_f, eps_f in points:
            a, e = mp(alpha_f), mp(eps_f)
            if method == "mironov17":
                values.append(e + mpmath.log(1 / d) / (a - 1))
            else:
                log_ratio = mpmath.log((a - 1) / a)
                values.append(e + log_ratio - (mpmath.log(d) + mpmath.log(a)) / (a - 1))
        return max(min(values), mpmath.mpf(0))


orders = st.lists(
    st.tuples(st.floats(min_value=1.01, max_value=256.0), st.floats(min_value=0, max_value=50)),
    min_size=1, max_size=6, unique_by=lambda p: p[0],
)


@settings(max_examples=30, deadline=None)
@given(orders, deltas, st.sampled_from(["bbghs20", "mironov17", "cks20"]))
def test_rdp_to_dp_is_within_two_ulps_above_exact(
    points: list[tuple[float, float]], delta: float, method: str
) -> None:
    curve = RDPCurve(RDP(a, e) for a, e in points)
    ours = float(rdp_to_dp(curve, delta, method=method).epsilon)  # type: ignore[arg-type]
    assert_tight(ours, rdp_epsilon_exact(points, delta, method))
