"""Tests of H23-Def3.1 (TradeoffFunction), H23-FEpsDelta (ApproxDPTradeoff) and
EXT-GaussianTradeoff (G_mu), guarantees/tradeoff.py: values rounded down, against
mpmath closed forms."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
from hypothesis import given, settings
from hypothesis import strategies as st

from adaptive_dp.guarantees import (
    ApproxDPTradeoff,
    GaussianTradeoff,
    TradeoffFunction,
)
from adaptive_dp.numerics import round_down
from tests.guarantees.gaussian_oracle import (
    DPS,
    mp,
    ulps,
)

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
