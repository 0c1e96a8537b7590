"""Tests of R23-Lem2.1 (Laplace scale), R23-Lem2.2 (Gaussian sigma for rho-zCDP) and
CS2080-GaussianSigma (the slide's sigma, restricted to 0 < epsilon <= 1), guarantees/
calibration.py. Oracles: exact rationals, mpmath closed forms, the Gaussian exact curve."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adaptive_dp.errors import CalibrationRangeError
from adaptive_dp.guarantees import (
    gaussian_sigma_cs2080,
    gaussian_sigma_zcdp,
    laplace_scale,
)
from adaptive_dp.loss.gaussian import gaussian_hockey_stick_mp
from tests.guarantees.gaussian_oracle import (
    DPS,
    mp,
    ulps,
)
from tests.guarantees.gaussian_oracle import (
    gaussian_delta_closed_form as gaussian_delta,
)

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


