"""Cross-checks of the conversions against peer libraries (docs/design.md, testing layers).

- OpenDP's optimal zCDP -> (epsilon, delta) conversion (``make_zCDP_to_approxDP``,
  ``make_fix_delta``; the same CKS20 method): agrees with ours within a few ulps, and
  both are >= the exact value (the Gaussian mechanism's exact epsilon at delta).
- dp_accounting's ``RdpAccountant`` (its default orders) on a ``GaussianDpEvent``: a
  grid of orders is a looser method, so its epsilon is >= ours.
- dp_accounting's PLD accountant for k Gaussians: agrees with our GDP composition and
  conversion within its discretisation, and is >= the exact value.

The peers extra is installed in CI: these imports must not be skipped.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import opendp.prelude as dp
import pytest
from dp_accounting import dp_event
from dp_accounting.pld import pld_privacy_accountant
from dp_accounting.rdp import rdp_privacy_accountant

from adaptive_dp.guarantees import (
    GDP,
    ZCDP,
    compose_gdp,
    gdp_to_dp,
    zcdp_delta_optimal,
    zcdp_to_dp_optimal,
)
from adaptive_dp.loss.gaussian import gaussian_hockey_stick_mp

pytestmark = pytest.mark.peers

dp.enable_features("contrib")


def _map(measurement: object, d_in: float) -> object:
    """OpenDP's ``Measurement.map`` is untyped: call it through one typed helper."""
    result: object = measurement.map(d_in)  # type: ignore[attr-defined]
    return result

DPS = 60


def _exact_gaussian_epsilon(mu: Fraction, delta: float) -> mpmath.mpf:
    """The smallest eps with delta_mu(eps) <= delta (bisection on the loss oracle, which
    is checked against the closed form in tests/loss/)."""
    with mpmath.workdps(DPS):
        d = mpmath.mpf(delta)
        if gaussian_hockey_stick_mp(mu, 0) <= d:
            return mpmath.mpf(0)
        lo, hi = Fraction(0), Fraction(1)
        while gaussian_hockey_stick_mp(mu, hi) > d:
            lo, hi = hi, 2 * hi
        for _ in range(80):
            mid = (lo + hi) / 2
            if gaussian_hockey_stick_mp(mu, mid) > d:
                lo = mid
            else:
                hi = mid
        return mpmath.mpf(lo.numerator) / lo.denominator


SCALES = [0.5, 1.0, 3.0, 10.0, 100.0]
DELTAS = [1e-3, 1e-6, 1e-10]


@pytest.mark.parametrize("scale", SCALES)
@pytest.mark.parametrize("delta", DELTAS)
def test_opendp_zcdp_to_approxdp_agrees(scale: float, delta: float) -> None:
    gaussian = dp.m.make_gaussian(
        dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), scale=scale
    )
    rho = _map(gaussian, 1.0)  # OpenDP's rho for sensitivity 1, rounded up by OpenDP
    assert isinstance(rho, float) and rho >= 1 / (2 * scale**2)
    converted = dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(gaussian), delta)
    pair = _map(converted, 1.0)
    assert isinstance(pair, tuple)
    theirs, their_delta = float(pair[0]), float(pair[1])
    assert their_delta == delta
    ours = float(zcdp_to_dp_optimal(ZCDP(rho), delta).epsilon)
    assert abs(ours - theirs) <= 4 * math.ulp(max(ours, theirs))
    exact = _exact_gaussian_epsilon(Fraction(1) / Fraction(scale), delta)
    assert mpmath.mpf(ours) >= exact
    assert mpmath.mpf(theirs) >= exact  # a peer below the exact value would be a finding


@pytest.mark.parametrize("scale", [1.0, 3.0])
@pytest.mark.parametrize("epsilon", [0.5, 1.0, 4.0])
def test_opendp_privacy_profile_delta_agrees(scale: float, epsilon: float) -> None:
    gaussian = dp.m.make_gaussian(
        dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), scale=scale
    )
    rho = _map(gaussian, 1.0)
    assert isinstance(rho, float)
    profile = _map(dp.c.make_zCDP_to_approxDP(gaussian), 1.0)
    theirs = float(profile.delta(epsilon))  # type: ignore[attr-defined]
    ours = zcdp_delta_optimal(ZCDP(rho), epsilon)
    assert abs(ours - theirs) <= 1e-9 * max(ours, theirs)
    with mpmath.workdps(DPS):
        exact = gaussian_hockey_stick_mp(Fraction(1) / Fraction(scale), epsilon)
        assert mpmath.mpf(ours) >= exact and mpmath.mpf(theirs) >= exact


@pytest.mark.parametrize("sigma", [0.7, 1.0, 2.0, 5.0])
@pytest.mark.parametrize("delta", DELTAS)
def test_dp_accounting_rdp_is_no_tighter_than_ours(sigma: float, delta: float) -> None:
    accountant = rdp_privacy_accountant.RdpAccountant()  # its default orders
    accountant.compose(dp_event.GaussianDpEvent(noise_multiplier=sigma))
    theirs = accountant.get_epsilon(delta)
    rho = Fraction(1) / (2 * Fraction(sigma) ** 2)
    ours = float(zcdp_to_dp_optimal(ZCDP(rho), delta).epsilon)
    assert theirs >= ours - 4 * math.ulp(ours)
    exact = _exact_gaussian_epsilon(Fraction(1) / Fraction(sigma), delta)
    assert mpmath.mpf(theirs) >= exact


@pytest.mark.parametrize(("sigma", "k"), [(2.0, 10), (5.0, 50), (10.0, 100)])
@pytest.mark.parametrize("delta", [1e-5, 1e-8])
def test_dp_accounting_pld_agrees_on_gaussian_composition(sigma: float, k: int,
                                                          delta: float) -> None:
    accountant = pld_privacy_accountant.PLDAccountant(value_discretization_interval=1e-4)
    accountant.compose(dp_event.GaussianDpEvent(noise_multiplier=sigma), count=k)
    theirs = accountant.get_epsilon(delta)
    mu = compose_gdp([GDP(Fraction(1) / Fraction(sigma))] * k)
    ours = float(gdp_to_dp(mu, delta).epsilon)
    assert abs(theirs - ours) <= 1e-2 * ours + 1e-3  # PLD discretisation
    exact = _exact_gaussian_epsilon(mu.mu, delta)
    assert mpmath.mpf(ours) >= exact
    assert mpmath.mpf(theirs) >= exact  # PLD is pessimistic; below would be a finding
