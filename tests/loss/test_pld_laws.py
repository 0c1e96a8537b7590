"""R23-Def2.3 laws shared by every privacy-loss distribution built by ``pld`` (and
R23-Sensitivity: the worst-case pair is the declared sensitivity apart): the
hockey-stick is non-increasing in epsilon with values in [0, 1), delta(0) is the total
variation distance, ``swap()`` is the pair in the other order, ``tail`` agrees with
Monte Carlo on the losses of sampled outputs, and ``rvs`` follows ``cdf``."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, stats

from adaptive_dp.errors import NonFiniteError, ParameterTypeError
from adaptive_dp.loss import PrivacyLossDistribution, pld, privacy_loss
from adaptive_dp.mechanisms import (
    GaussianMechanism,
    LaplaceMechanism,
    Mechanism,
    RandomizedResponse,
)

MECHANISMS: list[Mechanism] = [
    GaussianMechanism(1, "0.8"),
    GaussianMechanism(3, 10),
    LaplaceMechanism(1, "0.5"),
    LaplaceMechanism(2, 5),
    RandomizedResponse("0.9"),
    RandomizedResponse(3),
]
IDS = ["gauss-1.25", "gauss-0.3", "lap-2", "lap-0.4", "rr-0.9", "rr-3"]


def _divergence(mech: Mechanism, a: float, b: float, t: float, absolute: bool = False) -> float:
    """int (p_a - e^t p_b)_+ (or int |p_a - p_b| / 2 when ``absolute``) over outputs,
    by summation (randomized response) or quadrature (continuous mechanisms)."""

    def g(y: float) -> float:
        pa = math.exp(float(mech.logpdf(y, a)))
        pb = math.exp(float(mech.logpdf(y, b)))
        return abs(pa - pb) / 2 if absolute else max(0.0, pa - math.exp(t) * pb)

    if isinstance(mech, RandomizedResponse):
        return g(0.0) + g(1.0)
    width = 60 * float(getattr(mech, "sigma", getattr(mech, "scale", 1)))
    lo, hi = min(a, b) - width, max(a, b) + width
    pts = sorted({min(a, b), max(a, b), (a + b) / 2})
    edges = [lo, *pts, hi]
    return sum(
        integrate.quad(g, x0, x1, epsabs=1e-14, epsrel=1e-12, limit=200)[0]
        for x0, x1 in itertools.pairwise(edges)
        if x1 > x0
    )


@pytest.mark.parametrize("mech", MECHANISMS, ids=IDS)
def test_delta_zero_is_total_variation(mech: Mechanism) -> None:
    """The "random row" check: delta(0) = sup_T P(T) - Q(T) = TV(P, Q)."""
    tv = _divergence(mech, 0.0, float(mech.sensitivity), 0.0, absolute=True)
    assert pld(mech).hockey_stick(0.0) == pytest.approx(tv, abs=1e-10)


@pytest.mark.parametrize("mech", MECHANISMS, ids=IDS)
def test_swap_is_the_other_order(mech: Mechanism) -> None:
    sens = float(mech.sensitivity)
    forward, backward = pld(mech), pld(mech, sens, 0.0)
    swapped = forward.swap()
    for t in [-0.5, 0.0, 0.3, 1.0]:
        want = _divergence(mech, sens, 0.0, t)
        assert swapped.hockey_stick(t) == pytest.approx(want, abs=1e-10)
        assert backward.hockey_stick(t) == pytest.approx(want, abs=1e-10)
        # symmetric mechanisms: the swapped law equals the original
        assert swapped.hockey_stick(t) == pytest.approx(forward.hockey_stick(t), abs=1e-13)
    grid = np.linspace(-3, 3, 13)
    np.testing.assert_allclose(swapped.cdf(grid), forward.cdf(grid), atol=1e-13)


@pytest.mark.parametrize("mech", MECHANISMS, ids=IDS)
@settings(max_examples=25)
@given(st.floats(min_value=-4, max_value=6), st.floats(min_value=0, max_value=3))
def test_hockey_stick_monotone_in_unit_interval(
    mech: Mechanism, eps: float, step: float
) -> None:
    p = pld(mech)
    d1, d2 = p.hockey_stick(eps), p.hockey_stick(eps + step)
    # float evaluation: monotone up to a relative 1e-12 (steps below that are noise)
    assert 0.0 <= d2 <= d1 * (1 + 1e-12) and d1 < 1.0
    assert p.tail(eps + step) <= p.tail(eps) * (1 + 1e-12)
    # Markov-type bound: delta(eps) <= P[L > eps]
    assert d1 <= p.tail(eps) + 1e-15


@pytest.mark.parametrize("mech", MECHANISMS, ids=IDS)
def test_hockey_stick_equals_integral(mech: Mechanism) -> None:
    """EXT-HockeyStick: delta(epsilon) of every PLD equals int (p - e^epsilon q)_+ from the
    densities."""
    p = pld(mech)
    for t in [-1.0, 0.2, 0.7, 1.5]:
        assert p.hockey_stick(t) == pytest.approx(
            _divergence(mech, 0.0, float(mech.sensitivity), t), abs=1e-10
        )


@pytest.mark.parametrize("mech", MECHANISMS, ids=IDS)
def test_tail_against_monte_carlo(mech: Mechanism) -> None:
    """P[L > eps] inside a Clopper-Pearson interval at 1 - 1e-6, from the losses of
    outputs sampled from the mechanism (evaluation points off the atoms)."""
    n = 40_000
    sens = float(mech.sensitivity)
    loss = privacy_loss(mech, mech.sample(np.zeros(n), np.random.default_rng(50)), 0.0, sens)
    p = pld(mech)
    for t in [-0.123, 0.0917, 0.61]:
        count = int(np.sum(loss > t))
        ci = stats.binomtest(count, n).proportion_ci(confidence_level=1 - 1e-6)
        assert ci.low <= p.tail(t) <= ci.high


@pytest.mark.parametrize("mech", MECHANISMS, ids=IDS)
def test_rvs_matches_cdf(mech: Mechanism) -> None:
    """KS for the continuous Gaussian law; the DKW band (valid with atoms) otherwise."""
    n = 20_000
    p = pld(mech)
    x = p.rvs(n, np.random.default_rng(51))
    if isinstance(mech, GaussianMechanism):
        assert stats.kstest(x, p.cdf).pvalue > 1e-3  # type: ignore[arg-type]  # cdf is vectorised; the stub wants float -> float
    grid = np.linspace(-4, 4, 161)
    emp = np.mean(x[:, None] <= grid[None, :], axis=0)
    assert np.max(np.abs(emp - p.cdf(grid))) < math.sqrt(math.log(2 / 1e-6) / (2 * n))


@pytest.mark.parametrize("mech", MECHANISMS, ids=IDS)
def test_exponential_moment_is_one(mech: Mechanism) -> None:
    """E_P[e^{-L}] = Q(everything) = 1, from the rvs draws (Monte Carlo, 6 sigma)."""
    x = pld(mech).rvs(200_000, np.random.default_rng(52))
    w = np.exp(-x)
    assert abs(float(w.mean()) - 1.0) < 6 * float(w.std()) / math.sqrt(x.size)


def test_cdf_plus_sf_is_one() -> None:
    grid = np.linspace(-5, 5, 101)
    for mech in MECHANISMS:
        p = pld(mech)
        np.testing.assert_allclose(p.cdf(grid) + p.sf(grid), 1.0, atol=1e-14)


def test_pld_validation() -> None:
    class Other:
        sensitivity = 1

    with pytest.raises(ParameterTypeError):
        pld(Other())  # type: ignore[arg-type]  # not a supported mechanism
    with pytest.raises(NonFiniteError):
        pld(GaussianMechanism(1, 1), math.nan)
    p: PrivacyLossDistribution = pld(LaplaceMechanism(1, 1))
    with pytest.raises(NonFiniteError):
        p.tail(math.inf)
    with pytest.raises(ParameterTypeError):
        p.hockey_stick(True)


@pytest.mark.parametrize("mech", MECHANISMS[:4], ids=IDS[:4])
def test_worst_case_pair_is_the_sensitivity(mech: Mechanism) -> None:
    """R23-Sensitivity: with |f(x) - f(x')| <= Delta, the pair (0, Delta) has the largest
    hockey-stick among pairs (0, d), 0 <= d <= Delta, and the largest tail at t >= 0
    (below 0 the zero loss of d = 0 exceeds t surely)."""
    sens = float(mech.sensitivity)
    worst = pld(mech)
    for d in [0.0, 0.25 * sens, 0.9 * sens]:
        other = pld(mech, 0.0, d)
        for t in [-0.3, 0.0, 0.4, 1.0]:
            assert other.hockey_stick(t) <= worst.hockey_stick(t) + 1e-15
            if t >= 0:
                assert other.tail(t) <= worst.tail(t) + 1e-15
