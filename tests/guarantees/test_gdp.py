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
from tests.guarantees.gaussian_oracle import (
    DPS,
    deltas,
    gaussian_delta_closed_form,
    gaussian_delta_lower,
    gaussian_exact_epsilon,
    mp,
)
from tests.guarantees.gaussian_oracle import (
    ulps as _ulps,
)

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
