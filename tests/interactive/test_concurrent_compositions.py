"""H23-Thm1.8 / R23-Thm1 (concurrent_approx_dp), H23-Thm4.5 (concurrent_zcdp), and the
oracles and twins of their claims and of H23-Thm4.3, H23-Thm3.4, H23-Thm3.6, H23-Lem4.7
(verify/registry/claims/concurrent.py). Independent oracles: the hockey-stick divergence
of a product of randomized-response pairs by exact enumeration in mpmath (the
noninteractive extremal pair, Kairouz-Oh-Viswanath), and the admitted-children counts
worked out by hand from the rules' budgets."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest

from adaptive_dp.errors import UnsupportedGuaranteeError
from adaptive_dp.filters.gdp import GDPFilter
from adaptive_dp.filters.rdp import RDPFilter
from adaptive_dp.guarantees.composition import compose_kov
from adaptive_dp.guarantees.definitions import ZCDP, ApproxDP, ApproxZCDP, PureDP
from adaptive_dp.interactive.adversary import GAUSSIAN, RANDOMIZED_RESPONSE
from adaptive_dp.interactive.concurrent import concurrent_approx_dp, concurrent_zcdp
from adaptive_dp.loss import gaussian_hockey_stick
from adaptive_dp.verify.judge.estimators import hockey_stick_terms
from adaptive_dp.verify.registry.claims.concurrent import (
    CLAIMS,
    AdaptiveInterleaving,
    Child,
    GDPCharged,
    OneKind,
    RDPCharged,
)
from adaptive_dp.verify.registry.claims.interactive import LaunchAllThenQuery
from adaptive_dp.verify.registry.twins.concurrent import (
    GDPChargeAnsweredOnly,
    RDPChargeAnsweredOnly,
    last_child_dropped,
)


def _rr_product_delta(epsilons: list[Fraction], deltas: list[Fraction], eps: float) -> mp.mpf:
    """1 - prod(1 - delta_i)(1 - HS), HS the hockey-stick at eps of the product of the
    RR_{eps_i} pairs, by enumerating every answer vector (2^k terms)."""
    mp.mp.dps = 40
    hs = mp.mpf(0)
    for bits in itertools.product((0, 1), repeat=len(epsilons)):
        p = q = mp.mpf(1)
        for b, e in zip(bits, epsilons, strict=True):
            w = mp.e ** (mp.mpf(e.numerator) / e.denominator)
            t = w / (1 + w)
            p *= t if b else 1 - t
            q *= 1 - t if b else t
        hs += max(p - mp.e ** mp.mpf(eps) * q, 0)
    kept = mp.mpf(1)
    for d in deltas:
        kept *= 1 - mp.mpf(d.numerator) / d.denominator
    return 1 - kept * (1 - hs)


def test_thm18_optimal_epsilon_is_tight_on_randomized_response() -> None:
    """H23-Thm1.8 / R23-Thm1: at the returned epsilon the RR product (the extremal
    noninteractive composition) has delta <= delta_total, and 1e-9 below it more."""
    eps = [Fraction(1, 2), Fraction(1, 2), Fraction(1), Fraction(3, 2)]
    deltas = [Fraction(1, 100), Fraction(0), Fraction(1, 100), Fraction(0)]
    target = Fraction(1, 20)
    result = concurrent_approx_dp([ApproxDP(e, d) for e, d in zip(eps, deltas, strict=True)],
                                  target)
    assert result.delta == target
    e = float(result.epsilon)
    assert _rr_product_delta(eps, deltas, e) <= float(target)
    assert _rr_product_delta(eps, deltas, e - 1e-9) > float(target)


def test_thm18_homogeneous_case_is_kov() -> None:
    """R23-Thm1's KOV15 case: with equal epsilons the optimum lies in (g - 2 eps, g], g
    EXT-KOV15's grid value (k - 2i) eps (the smallest grid point that suffices)."""
    got = float(concurrent_approx_dp([PureDP(Fraction(1, 2))] * 6, Fraction(1, 20)).epsilon)
    grid = float(compose_kov(PureDP(Fraction(1, 2)), 6, Fraction(1, 20)).epsilon)
    assert grid - 1 < got <= grid


def test_thm45_sum_and_refusal() -> None:
    """H23-Thm4.5: rho adds exactly; approximate zCDP is refused (its concurrent
    composition is open)."""
    assert concurrent_zcdp([ZCDP(Fraction(1, 8)), ZCDP(Fraction(1, 3))]) == ZCDP(Fraction(11, 24))
    assert concurrent_zcdp([]) == ZCDP(0)
    with pytest.raises(UnsupportedGuaranteeError):
        concurrent_zcdp([ZCDP(1), ApproxZCDP(1, Fraction(1, 100))])  # type: ignore[list-item]


def test_interleaving_oracle_matches_the_rr_product() -> None:
    """The claim's experiment: single-answer RR children with leaks have exactly the RR
    product's hockey-stick (the interleaving changes nothing for fixed children)."""
    eps = [Fraction(1, 2), Fraction(1), Fraction(3, 2)]
    deltas = [Fraction(1, 20), Fraction(0), Fraction(0)]
    children = tuple(Child(RANDOMIZED_RESPONSE, float(e), 1, float(d))
                     for e, d in zip(eps, deltas, strict=True))
    loss = AdaptiveInterleaving(children)(200_000, np.random.default_rng(3), "x'")
    exact = float(_rr_product_delta(eps, deltas, 1.0))
    assert abs(hockey_stick_terms(loss, 1.0).mean() - exact) < 5e-3


def test_interleaving_gaussian_loss_mean() -> None:
    """A Gaussian child of sigma over r answers has loss mean r / (2 sigma^2)."""
    children = (Child(GAUSSIAN, 2.0, 3), Child(GAUSSIAN, 1.0, 1))
    loss = AdaptiveInterleaving(children)(100_000, np.random.default_rng(4), "x")
    assert abs(loss.mean() - (3 / 8 + 1 / 2)) < 0.02


def test_thm18_twin_true_delta() -> None:
    """H23-Thm1.8's twin ``last-child-dropped``: the true delta at its epsilon (quick
    scenario, RR product with leaks) is at least twice the claimed 0.05."""
    eps = [Fraction(1, 2), Fraction(1, 2), Fraction(1), Fraction(3, 2)]
    deltas = [Fraction(1, 100), Fraction(0), Fraction(1, 100), Fraction(0)]
    twin = last_child_dropped([ApproxDP(e, d) for e, d in zip(eps, deltas, strict=True)],
                              Fraction(1, 20))
    # the first child answers twice (eps 1/4 each): a product of five RR pairs
    split = [Fraction(1, 4), Fraction(1, 4), *eps[1:]]
    assert _rr_product_delta(split, deltas, float(twin.epsilon)) >= 0.1


def _admitted(compositor: GDPCharged | RDPCharged | GDPChargeAnsweredOnly
              | RDPChargeAnsweredOnly, gaussian: bool) -> np.ndarray:
    adversary = OneKind(LaunchAllThenQuery()) if gaussian else LaunchAllThenQuery()
    return compositor.run(adversary, 64, np.random.default_rng(0)).launched


def test_charged_compositors_admit_what_the_budget_allows() -> None:
    """H23-Thm3.4 (GDP filter mu = 1, children mu_c = 1/2: 4 admitted) and H23-Lem4.7
    (RDP_4 budget 2, children 4 x 1/8 = 1/2: 4 admitted; capped at K = 3: 3); their
    charge-answered-only twins admit all 12 launch requests."""
    assert np.all(_admitted(GDPCharged(GDPFilter(1), 12), True) == 4)
    assert np.all(_admitted(RDPCharged(RDPFilter(4, 2), 12), False) == 4)
    assert np.all(_admitted(RDPCharged(RDPFilter(4, 2), 3), False) == 3)
    assert np.all(_admitted(GDPChargeAnsweredOnly(GDPFilter(1), 12), True) == 12)
    assert np.all(_admitted(RDPChargeAnsweredOnly(RDPFilter(4, 2), 12), False) == 12)


def test_gaussian_children_view_is_exactly_gdp() -> None:
    """H23-Thm3.4's budget-hugging view: four Gaussian children of mu_c = 1/2, all answers
    released, is N(1/2, 1) vs N(-1/2, 1) in loss: mean 1/2, variance 1."""
    loss = GDPCharged(GDPFilter(1), 12).run(OneKind(LaunchAllThenQuery()), 50_000,
                                            np.random.default_rng(2)).loss
    assert abs(loss.mean() - 0.5) < 0.03
    assert abs(loss.var() - 1.0) < 0.05


def test_gaussian_twins_true_delta_and_thm34_tightness() -> None:
    """Exact witnesses from the Gaussian loss oracle (the views' losses are N(mu^2/2, mu^2)):
    H23-Thm4.3's max-not-sum twin (total rho 1/2, mu = 1) and H23-Thm3.4's
    charge-answered-only twin (12 children of mu_c = 1/2, mu = sqrt 3) have true delta at
    least twice 0.05 at their epsilon; H23-Thm3.4's valid claim (mu = 1) is exact."""
    by_id = {c.id: c for c in CLAIMS}
    thm43_twin = by_id["H23-Thm4.3/adaptive-interleaving"].twins[0].build("quick")
    assert gaussian_hockey_stick(1.0, thm43_twin.epsilon) >= 2 * thm43_twin.claimed
    thm34 = by_id["H23-Thm3.4/budget-hugging"]
    twin = thm34.twins[0].build("quick")
    assert gaussian_hockey_stick(math.sqrt(3), twin.epsilon) >= 2 * twin.claimed
    valid = thm34.build("quick")
    assert abs(gaussian_hockey_stick(1.0, valid.epsilon) - valid.claimed) < 1e-9
