"""W23-PureStepMean, W23-ClippedPDPStep and W23-ApproxToPDP (adaptive_dp.odometers.steps):
exact values from independent mpmath computations, the claims' oracles, and the twins'
true exceedance in their scenarios."""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction

import numpy as np
import pytest
from mpmath import mp

from adaptive_dp.errors import DeltaRangeError, NegativeParameterError
from adaptive_dp.guarantees.definitions import ApproxDP
from adaptive_dp.odometers.steps import (
    approx_to_pdp,
    clipped_pdp_step_mean_bound,
    pure_step_mean_bound,
)
from adaptive_dp.verify.registry.claims.w23_steps import (
    attaining_pdp_pair,
    clipped_means,
    two_point_pair,
)
from adaptive_dp.verify.registry.twins.w23_steps import (
    half_prefactor_mean_bound,
    no_delta_clipped_mean_bound,
    undivided_approx_to_pdp,
)


@pytest.fixture(autouse=True)
def _precision() -> Iterator[None]:
    with mp.workdps(40):
        yield


def _rr_kl(eps: str) -> mp.mpf:
    e = mp.mpf(eps)
    hi, lo = mp.exp(e) / (1 + mp.exp(e)), 1 / (1 + mp.exp(e))
    return hi * mp.log(hi / lo) + lo * mp.log(lo / hi)


@pytest.mark.parametrize("eps", ["0.001", "0.1", "1", "2.5"])
def test_pure_bound_is_randomized_response_kl_rounded_up(eps: str) -> None:
    """W23-PureStepMean: equality for RR (KL from the two probabilities), rounded up,
    and below eps^2/2."""
    bound = pure_step_mean_bound(eps)
    kl = _rr_kl(eps)
    assert bound >= kl
    assert bound - kl <= 4 * np.spacing(float(kl))
    assert bound <= float(mp.mpf(eps) ** 2 / 2)


@pytest.mark.parametrize("eps", ["0.1", "1", "2"])
def test_pure_bound_above_laplace_kl(eps: str) -> None:
    """W23-PureStepMean: Laplace(0, 1/eps) vs Laplace(1, 1/eps), KL by quadrature of the
    densities, is strictly below the bound."""
    e = mp.mpf(eps)

    def integrand(y: mp.mpf) -> mp.mpf:
        p = e / 2 * mp.exp(-e * abs(y))
        return p * e * (abs(y - 1) - abs(y))

    kl = mp.quad(integrand, [-mp.inf, 0, 1, mp.inf])
    assert abs(kl - (e + mp.exp(-e) - 1)) < mp.mpf("1e-30")
    assert kl < pure_step_mean_bound(eps)


def test_zero_epsilon_and_validation() -> None:
    assert pure_step_mean_bound(0) == 0.0
    assert clipped_pdp_step_mean_bound(0, "0.5") == 0.0
    with pytest.raises(NegativeParameterError):
        pure_step_mean_bound("-0.1")
    with pytest.raises(DeltaRangeError):
        clipped_pdp_step_mean_bound("0.1", 1)


@pytest.mark.parametrize(("eps", "delta"), [("0.1", "0.01"), ("0.5", "0.2"), ("1", "0.001")])
def test_clipped_bound_attained_exactly(eps: str, delta: str) -> None:
    """W23-ClippedPDPStep: the attaining pair (mpmath) is (eps, delta)-pDP in both orders
    and its clipped mean is the bound."""
    e, d = mp.mpf(eps), mp.mpf(delta)
    p = (mp.exp(e) + d - 1) / (mp.exp(e) - mp.exp(-e))
    big_p = [p, 1 - p, mp.mpf(0)]
    big_q = [p * mp.exp(-e), (1 - p) * mp.exp(e), d]
    assert abs(sum(big_q) - 1) < mp.mpf("1e-35") and 0 <= p <= 1
    loss = [mp.log(a / b) for a, b in zip(big_p[:2], big_q[:2], strict=True)]
    assert max(abs(x) for x in loss) - e < mp.mpf("1e-35")  # P(l > eps) = 0; Q's atom 3: -inf
    mean = sum(a * x for a, x in zip(big_p[:2], loss, strict=True))
    bound = clipped_pdp_step_mean_bound(eps, delta)
    assert bound >= mean and bound - mean < mp.mpf("1e-15")


def test_claim_oracles_match_exact_values() -> None:
    """The claims' float helpers against the exact values."""
    eps, delta = np.array([0.1, 0.5]), np.array([0.01, 0.2])
    p, q = attaining_pdp_pair(eps, delta)
    assert np.allclose(q.sum(axis=1), 1.0, rtol=0, atol=1e-15)
    means = clipped_means(p, q, eps)
    for m, e, d in zip(means, eps, delta, strict=True):
        assert m == pytest.approx(clipped_pdp_step_mean_bound(e, d), rel=1e-12)
    # the P-only atom (+inf loss) is clipped to eps, the Q-only atom adds nothing
    p2, q2 = np.array([[0.5, 0.5, 0.0]]), np.array([[0.5, 0.0, 0.5]])
    assert clipped_means(p2, q2, np.array([0.3]))[0] == pytest.approx(0.15)


def test_twins_exceed_twice_their_claims() -> None:
    """The twins' true values in their scenarios: RR mean = 2 x half-prefactor; the
    attaining pair with delta >= cosh(eps) - 1 has clipped mean >= 2 x eps tanh(eps/2)."""
    for eps in ("0.01", "1", "2"):
        assert float(_rr_kl(eps)) / half_prefactor_mean_bound(eps) == pytest.approx(2, rel=1e-12)
    for e in (0.05, 0.5, 1.0):
        d = float(mp.cosh(e) - 1)
        p, q = attaining_pdp_pair(np.array([e]), np.array([d]))
        mean = clipped_means(p, q, np.array([e]))[0]
        assert mean / no_delta_clipped_mean_bound(e, d) >= 2 - 1e-12


def test_approx_to_pdp_exact_delta() -> None:
    """W23-ApproxToPDP: (eps + t, delta / (1 - e^-t)), the delta an exact rational just
    above the true value; delta 0 stays 0; a vacuous conversion is refused."""
    out = approx_to_pdp(ApproxDP("0.1", "0.001"), "0.01")
    assert out.epsilon == Fraction(11, 100)
    true = mp.mpf("0.001") / (1 - mp.exp(-mp.mpf("0.01")))
    assert isinstance(out.delta, Fraction)
    assert 0 <= mp.mpf(out.delta.numerator) / out.delta.denominator - true < mp.mpf("1e-30")
    assert approx_to_pdp(ApproxDP(1, 0), 1).delta == 0
    with pytest.raises(DeltaRangeError):
        approx_to_pdp(ApproxDP("0.1", "0.5"), "0.1")
    with pytest.raises(NegativeParameterError):
        approx_to_pdp(ApproxDP("0.1", "0.01"), 0)


def test_two_point_pair_is_dp_and_exceeds_the_undivided_twin() -> None:
    """The claim's pair is (0.5, delta)-DP in both orders (hockey-stick over both atoms)
    and its tail P(l > eps + t) is within the conversion but 10x the twin's delta."""
    delta = 0.05 * -np.expm1(-0.1)
    a, b = two_point_pair(delta)
    e = np.exp(0.5)
    pq = max(a - e * b, 0) + max((1 - a) - e * (1 - b), 0)
    qp = max(b - e * a, 0) + max((1 - b) - e * (1 - a), 0)
    assert pq <= delta * (1 + 1e-12) and qp == 0
    assert np.log(a / b) > 0.6
    converted = approx_to_pdp(ApproxDP("0.5", delta), Fraction(1, 10))
    assert a <= float(converted.delta)
    twin = undivided_approx_to_pdp(ApproxDP("0.5", delta), Fraction(1, 10))
    assert a / float(twin.delta) > 10
