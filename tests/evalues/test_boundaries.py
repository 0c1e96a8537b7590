"""Ville, normal-mixture (EXT-HRMS21NormalMixture) and stitched (EXT-HRMS21Stitching)
boundaries for the R23-Eq2 e-value products."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adaptive_dp.errors import ParameterError
from adaptive_dp.evalues.boundaries import (
    Boundary,
    HowardStitching,
    NormalMixtureBoundary,
    StitchedBoundary,
    VilleBoundary,
)
from adaptive_dp.numerics import ball_lower, ball_upper
from adaptive_dp.verify.judge.estimators import clopper_pearson

BOUNDARIES: list[Boundary] = [
    VilleBoundary("0.8", delta="0.05"),
    NormalMixtureBoundary("0.5", delta="0.05"),
    NormalMixtureBoundary("0.5", delta="0.05", sides="one", form="exact"),
    StitchedBoundary("0.5", delta="0.05"),
]


def test_normal_mixture_integral_by_quadrature() -> None:
    """EXT-HRMS21NormalMixture: the mixture integral and the boundary b(v) at 1/delta."""
    # int exp(l S - l^2 V/2) N(l; 0, 1/rho) dl = sqrt(rho/(V+rho)) exp(S^2/(2(V+rho)))
    with mpmath.workdps(30):
        s, v, rho = mpmath.mpf("1.7"), mpmath.mpf("2.3"), mpmath.mpf("0.4")
        integral = mpmath.quad(
            lambda lam: mpmath.exp(lam * s - lam**2 * v / 2)
            * mpmath.sqrt(rho / (2 * mpmath.pi)) * mpmath.exp(-rho * lam**2 / 2),
            [-mpmath.inf, 0, mpmath.inf],
        )
        closed = mpmath.sqrt(rho / (v + rho)) * mpmath.exp(s**2 / (2 * (v + rho)))
        assert abs(integral / closed - 1) < mpmath.mpf("1e-20")
        # at S = b(V) the mixture equals 1/delta
        b = NormalMixtureBoundary("0.4", delta="0.05")
        edge = mpmath.mpf(ball_upper(b.threshold(Fraction("2.3"))))
        mix = mpmath.sqrt(rho / (v + rho)) * mpmath.exp(edge**2 / (2 * (v + rho)))
        assert abs(mix * mpmath.mpf("0.05") - 1) < mpmath.mpf("1e-12")


@settings(max_examples=30, deadline=None)
@given(st.floats(0, 1e4), st.floats(0, 1e4))
def test_boundaries_monotone_and_float_rounded_up(a: float, b: float) -> None:
    lo, hi = sorted((a, b))
    for bd in BOUNDARIES:
        if not isinstance(bd, StitchedBoundary):  # stitching is piecewise, not monotone
            assert ball_upper(bd.threshold(Fraction(lo))) <= ball_upper(
                bd.threshold(Fraction(hi))
            )
        ball = bd.threshold(Fraction(hi))
        f = float(bd.threshold_float(hi))
        # rounded up: never below the certified enclosure, and at most 1e-11 above it
        assert ball_lower(ball) <= f <= ball_upper(ball) * (1 + 1e-11)


def test_stitched_validation() -> None:
    with pytest.raises(ParameterError):
        StitchedBoundary(1, delta="0.05", eta=1)
    with pytest.raises(ParameterError):
        StitchedBoundary(1, delta="0.05", s=1)


@pytest.mark.parametrize("bd", BOUNDARIES, ids=["ville", "mixture", "one-sided-exact", "stitched"])
def test_time_uniform_crossing_probability(bd: Boundary) -> None:
    # a Gaussian random walk S_n with variance V_n (so exp(l S - l^2 V/2) is a
    # martingale for every l); P[exists n: S_n >= b(V_n)] <= delta
    rng = np.random.default_rng(5)
    paths, steps = 20_000, 400
    v_inc = rng.uniform(0.001, 0.2, steps)
    s = np.cumsum(rng.normal(0, 1, (paths, steps)) * np.sqrt(v_inc)[None, :], axis=1)
    v = np.cumsum(v_inc)
    crossed = np.any(s >= np.asarray(bd.threshold_float(v))[None, :], axis=1)
    k = int(crossed.sum())
    lower, _ = clopper_pearson(k, paths)
    assert lower <= float(bd.delta)


@pytest.mark.parametrize(("rho", "delta", "v"), [("0.4", "0.05", "2.3"), ("1", "0.2", "0"),
                                                 ("3", "0.001", "500")])
def test_exact_one_sided_mixture_is_the_level_set(rho: str, delta: str, v: str) -> None:
    """EXT-HRMS21NormalMixture, form="exact": at the certified boundary the half-normal
    mixture integral (quadrature) is 1/delta; the boundary is below the closed form with +1,
    and the float path is at or above the certified value, within 1e-11."""
    bd = NormalMixtureBoundary(rho, delta=delta, sides="one", form="exact")
    ball = bd.threshold(Fraction(v))
    with mpmath.workdps(30):
        r, d, vv = mpmath.mpf(rho), mpmath.mpf(delta), mpmath.mpf(v)

        def mixture(s: mpmath.mpf) -> mpmath.mpf:
            prior = 2 * mpmath.sqrt(r / (2 * mpmath.pi))
            return mpmath.quad(lambda lam: mpmath.exp(lam * s - lam**2 * vv / 2 - r * lam**2 / 2)
                               * prior, [0, mpmath.inf])

        for edge in (ball_lower(ball), ball_upper(ball)):
            assert abs(mixture(mpmath.mpf(edge)) * d - 1) < mpmath.mpf("1e-12")
    closed = NormalMixtureBoundary(rho, delta=delta, sides="one")
    assert ball_upper(ball) < ball_lower(closed.threshold(Fraction(v)))
    f = float(bd.threshold_float(float(Fraction(v))))
    assert ball_upper(ball) <= f <= ball_upper(ball) * (1 + 1e-11)
    with pytest.raises(ParameterError):
        NormalMixtureBoundary(rho, delta=delta, sides="one", form="tight")  # type: ignore[arg-type]


def _howard_closed_form(v: mpmath.mpf, m: mpmath.mpf, delta: mpmath.mpf) -> mpmath.mpf:
    """EXT-HRMS21Stitching at eta = 2, s = 1.4, written out independently in mpmath."""
    eta, s = mpmath.mpf(2), mpmath.mpf("1.4")
    k1 = (eta ** mpmath.mpf("0.25") + eta ** mpmath.mpf("-0.25")) / mpmath.sqrt(2)
    ell = s * mpmath.log(mpmath.log(eta * v / m)) + mpmath.log(
        mpmath.zeta(s) / (delta * mpmath.log(eta) ** s))
    return k1 * mpmath.sqrt(v * ell)


@pytest.mark.parametrize("v", ["0.3", "0.7", "5", "1234.5"])
def test_howard_stitching_exact_form(v: str) -> None:
    """EXT-HRMS21Stitching: the certified value encloses k_1 sqrt(V l(V)); the float path is
    at or above it and within 1e-11."""
    bd = HowardStitching(delta="0.05", eta=2, s="1.4", form="exact")
    start = Fraction(3, 10)
    with mpmath.workdps(30):
        expected = _howard_closed_form(mpmath.mpf(v), mpmath.mpf("0.3"), mpmath.mpf("0.05"))
        ball = bd.threshold(Fraction(v), start)
        assert mpmath.mpf(ball_lower(ball)) <= expected <= mpmath.mpf(ball_upper(ball))
        f = float(bd.threshold_float(float(Fraction(v)), 0.3))
        assert expected <= f <= expected * (1 + mpmath.mpf("1e-11"))


def test_howard_stitching_envelopes_the_stitched_lines() -> None:
    """EXT-HRMS21Stitching (proof, steps 4-6): the closed form is at least every epoch's
    Ville line of StitchedBoundary (same m, eta, s, delta), with equality at each epoch's
    start m eta^k."""
    howard = HowardStitching(delta="0.05", eta=2, s="1.4", form="exact")
    lines = StitchedBoundary("0.3", delta="0.05", eta=2, s="1.4")
    for k in range(6):
        for j in range(20):
            v = Fraction(3, 10) * 2**k * (1 + Fraction(j, 20))
            upper = ball_upper(howard.threshold(v, Fraction(3, 10)))
            line = ball_upper(lines.threshold(v))
            assert line <= upper * (1 + 1e-12)
            if j == 0:
                assert line == pytest.approx(upper, rel=1e-12)


def test_howard_stitching_validation() -> None:
    with pytest.raises(ParameterError):
        HowardStitching(delta="0.05", eta=1, form="exact")
    with pytest.raises(ParameterError):
        HowardStitching(delta="0.05", s=1, form="exact")
    with pytest.raises(ParameterError):
        HowardStitching(delta="0.05", eta=3)  # the poster's constants are for eta = 2, s = 1.4
    # scale: k_1 (1.7 for the poster form) rounded up
    assert 1.7 <= HowardStitching(delta="0.05").scale <= 1.7 * (1 + 1e-15)
    two = mpmath.mpf(2)
    k1 = (two ** mpmath.mpf("0.25") + two ** mpmath.mpf("-0.25")) / mpmath.sqrt(2)
    exact = HowardStitching(delta="0.05", form="exact").scale
    assert k1 <= exact <= k1 * (1 + mpmath.mpf("1e-15"))
