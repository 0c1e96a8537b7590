"""Tests of CS2080-GroupPrivacy, R23-Lem2.1, R23-Lem2.2, CS2080-GaussianSigma,
H23-FEpsDelta and EXT-DRS19 trade-off functions.

Oracles: exact rationals, closed forms in mpmath at 60 digits, scipy's normal
distribution, and the Gaussian mechanism's exact privacy profile.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from adaptive_dp.errors import CalibrationRangeError, DeltaRangeError
from adaptive_dp.guarantees import (
    ApproxDP,
    ApproxDPTradeoff,
    GaussianTradeoff,
    PureDP,
    TradeoffFunction,
    gaussian_sigma_cs2080,
    gaussian_sigma_zcdp,
    group_privacy,
    laplace_scale,
)
from adaptive_dp.loss.gaussian import gaussian_hockey_stick_mp
from adaptive_dp.numerics import round_down

DPS = 60


def mp(x: object) -> mpmath.mpf:
    if isinstance(x, Fraction):
        return mpmath.mpf(x.numerator) / x.denominator
    return mpmath.mpf(x)


def ulps(f: float, ref: mpmath.mpf) -> mpmath.mpf:
    return abs(mp(f) - ref) / math.ulp(f)


def gaussian_delta(mu: object, eps: object) -> mpmath.mpf:
    with mpmath.workdps(DPS):
        m, e = mp(mu), mp(eps)
        return mpmath.ncdf(-e / m + m / 2) - mpmath.exp(e) * mpmath.ncdf(-e / m - m / 2)


# ----------------------------------------------------------------- group privacy


def test_group_privacy_pure_is_exact() -> None:
    assert group_privacy(PureDP("0.1"), 3) == PureDP("0.3")
    assert group_privacy(ApproxDP("0.1", 0), 4) == ApproxDP("0.4", 0)


@settings(max_examples=40)
@given(st.floats(min_value=0.0, max_value=2.0), st.integers(1, 20),
       st.floats(min_value=1e-300, max_value=1e-6))
def test_group_privacy_approx_encloses_closed_form(eps: float, k: int, delta: float) -> None:
    assume(k * math.exp((k - 1) * eps) * delta < 0.5)
    out = group_privacy(ApproxDP(eps, delta), k)
    assert isinstance(out, ApproxDP)
    assert out.epsilon == k * Fraction(eps)
    with mpmath.workdps(DPS):
        ref = k * mpmath.exp((k - 1) * mp(eps)) * mp(delta)
        got = float(out.delta)
        assert mp(got) >= ref
        assert ulps(got, ref) <= 2


def test_group_privacy_refuses_a_vacuous_delta() -> None:
    with pytest.raises(DeltaRangeError):
        group_privacy(ApproxDP(1, "0.1"), 5)


# ----------------------------------------------------------------- calibration


@settings(max_examples=40)
@given(st.fractions(min_value=0, max_value=100, max_denominator=1000),
       st.fractions(min_value=Fraction(1, 1000), max_value=100, max_denominator=1000))
def test_laplace_scale_is_the_rounded_up_ratio(s: Fraction, e: Fraction) -> None:
    scale = laplace_scale(s, e)
    assert Fraction(scale) >= s / e
    assert Fraction(math.nextafter(scale, -math.inf)) < s / e


@settings(max_examples=40)
@given(st.floats(min_value=1e-3, max_value=1e3), st.floats(min_value=1e-8, max_value=1e3))
def test_gaussian_sigma_zcdp_is_safe(sensitivity: float, rho: float) -> None:
    sigma = gaussian_sigma_zcdp(sensitivity, rho)
    # R23-Lem2.2: the mechanism is Delta^2/(2 sigma^2)-zCDP; with sigma rounded up that is <= rho
    assert Fraction(sensitivity) ** 2 / (2 * Fraction(sigma) ** 2) <= Fraction(rho)
    with mpmath.workdps(DPS):
        ref = mp(sensitivity) / mpmath.sqrt(2 * mp(rho))
        assert ulps(sigma, ref) <= 2


@pytest.mark.parametrize("eps", ["0.01", "0.1", "0.5", "1"])
@pytest.mark.parametrize("delta", ["1e-3", "1e-5", "1e-9"])
def test_gaussian_sigma_cs2080_is_valid_in_its_range(eps: str, delta: str) -> None:
    sigma = gaussian_sigma_cs2080(1, eps, delta)
    with mpmath.workdps(DPS):
        ref = mpmath.sqrt(2 * mpmath.log(2 / mp(Fraction(delta)))) / mp(Fraction(eps))
        assert mp(sigma) >= ref and ulps(sigma, ref) <= 2
        mu = 1 / mp(sigma)
        assert gaussian_delta(mu, Fraction(eps)) <= mp(Fraction(delta))
        mu_x = Fraction(1) / Fraction(sigma)
        assert gaussian_hockey_stick_mp(mu_x, Fraction(eps)) <= mp(Fraction(delta))


def test_gaussian_sigma_cs2080_refuses_large_epsilon() -> None:
    """Why the range: at eps = 10, delta = 1e-5 the slide's sigma is not (eps, delta)-DP."""
    with mpmath.workdps(DPS):
        sigma = mpmath.sqrt(2 * mpmath.log(2 / mpmath.mpf("1e-5"))) / 10
        assert gaussian_delta(1 / sigma, 10) > mpmath.mpf("1e-5")
    with pytest.raises(CalibrationRangeError):
        gaussian_sigma_cs2080(1, 10, "1e-5")
    with pytest.raises(CalibrationRangeError):
        gaussian_sigma_cs2080(1, "1.0000001", "1e-5")


# ----------------------------------------------------------------- trade-off functions


@settings(max_examples=40)
@given(st.floats(min_value=0.0, max_value=6.0), st.floats(min_value=1e-12, max_value=1 - 1e-12))
def test_gaussian_tradeoff_is_rounded_down(mu: float, alpha: float) -> None:
    f = GaussianTradeoff(mu)
    assert isinstance(f, TradeoffFunction)
    got = f(alpha)
    with mpmath.workdps(DPS):
        z = -mpmath.sqrt(2) * mpmath.erfinv(2 * (mp(alpha)) - 1)  # Phi^{-1}(1 - alpha)
        ref = mpmath.ncdf(z - mp(mu))
        assert mp(got) <= ref
        if ref > mpmath.mpf(1e-300):
            assert ulps(got, ref) <= 2 or ref - mp(got) <= mpmath.mpf(1e-300)


def test_gaussian_tradeoff_endpoints_and_mu_zero() -> None:
    f = GaussianTradeoff(1)
    assert f(0.0) == 1.0 and f(1.0) == 0.0
    g = GaussianTradeoff(0)
    assert g(0.25) <= 0.75 and 0.75 - g(0.25) <= 2 * math.ulp(0.75)


@settings(max_examples=40)
@given(st.floats(min_value=0.0, max_value=5.0), st.floats(min_value=0.0, max_value=0.5),
       st.floats(min_value=0.0, max_value=1.0))
def test_approx_dp_tradeoff_is_rounded_down(eps: float, delta: float, alpha: float) -> None:
    got = ApproxDPTradeoff(eps, delta)(alpha)
    with mpmath.workdps(DPS):
        e, d, a = mpmath.exp(mp(eps)), mp(delta), mp(alpha)
        ref = max(mpmath.mpf(0), 1 - d - e * a, (1 - d - a) / e)
        assert mp(got) <= ref
        if ref > mpmath.mpf(1e-300):
            assert ulps(got, ref) <= 2


def test_approx_dp_tradeoff_h23_shape() -> None:
    f = ApproxDPTradeoff("0.5", "0.1")
    assert f(0.0) == round_down(Fraction(9, 10))  # 1 - delta, rounded down: 0.8999999999999999
    assert f(0.9) == 0.0
    assert ApproxDPTradeoff(0, "0.25")(0.25) == 0.5
