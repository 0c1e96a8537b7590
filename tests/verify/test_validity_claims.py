"""The validity claims (verify/registry/claims/validity.py): H23-Lem2.19, H23-Thm1.20,
H23-Thm1.21. Checked here, not by rerunning the claims: the Lem2.19 oracle and filter at
exact-decimal equality with the budget (hand sums), the twins' admissions against the
valid compositors' in the twin scenarios (the counts the proofs' exceedance computations
assume), the GDP charge of a Gaussian child, and the Gaussian-children adapter."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from adaptive_dp.filters.base import Decision
from adaptive_dp.filters.basic import BasicFilter
from adaptive_dp.filters.from_accumulator import AccumulatorFilter
from adaptive_dp.filters.gdp import GDPFilter
from adaptive_dp.guarantees.definitions import GDP, ApproxDP, Guarantee
from adaptive_dp.interactive.adversary import GAUSSIAN, RANDOMIZED_RESPONSE
from adaptive_dp.odometers.accumulators import Accumulator, BasicAccumulator, GDPAccumulator
from adaptive_dp.verify.judge.batch import BatchChildView, BatchConcurrentFilter
from adaptive_dp.verify.registry.claims.interactive import (
    LaunchAllThenQuery,
    PureLaunchAllThenQuery,
)
from adaptive_dp.verify.registry.claims.validity import (
    GaussianChildren,
    MuCharges,
    decision_disagreements,
)
from adaptive_dp.verify.registry.twins.filters import LookaheadDroppedAccumulator
from adaptive_dp.verify.registry.twins.interactive import ChargeAnsweredOnly
from adaptive_dp.verify.registry.twins.validity import MuChargeAnsweredOnly

_EQUAL = [
    # sum eps = 0.1 + 0.4 + 0.25 + 0.25 = 1 and sum delta = 0.02: the budget (1, 0.02) exactly
    (BasicAccumulator(), ApproxDP(1, "0.02"),
     [ApproxDP("0.1", 0), ApproxDP("0.4", 0), ApproxDP("0.25", "0.01"),
      ApproxDP("0.25", "0.01")], ApproxDP("0.1", 0)),
    # sum mu^2 = 0.81 + 0.81 + 0.36 + 3 * 0.09 = 2.25 = 1.5^2 exactly
    (GDPAccumulator(), GDP("1.5"),
     [GDP("0.9"), GDP("0.9"), GDP("0.6"), GDP("0.3"), GDP("0.3"), GDP("0.3")], GDP("0.3")),
]


@pytest.mark.parametrize(("acc", "budget", "spends", "extra"), _EQUAL, ids=["basic", "gdp"])
def test_lem219_filter_at_equality(acc: Accumulator, budget: Guarantee, spends: list[Guarantee],
                                   extra: Guarantee) -> None:
    """H23-Lem2.19: I(G <= d) admits every spend of a list whose reading reaches d exactly
    (non-strict), refuses one more, and the look-ahead-dropped twin admits that one."""
    state = AccumulatorFilter(acc, budget).start()
    for spend in spends:
        decision, state = state.spend(spend)
        assert decision is Decision.CONTINUE
    assert state.decide(extra) is Decision.HALT
    twin = LookaheadDroppedAccumulator(acc, budget).start()
    for spend in spends:
        _, twin = twin.spend(spend)
    assert twin.decide(extra) is Decision.CONTINUE


def test_lem219_disagreements_small_run() -> None:
    """The statistic on 64 paths: 0 for the filter; the twin disagrees on some path."""
    rng = np.random.default_rng(3)
    assert not decision_disagreements(AccumulatorFilter, 64, rng).any()
    assert decision_disagreements(LookaheadDroppedAccumulator, 64, rng).any()


def test_thm120_twin_admits_every_launch() -> None:
    """H23-Thm1.20: 40 RR launches of eps_c = 1/2 before any query: the basic filter (2, 0)
    admits 4 (sum 2, equality kept), the charge-answered-only twin all 40 (proof step 6)."""
    adversary = PureLaunchAllThenQuery(40, 0.5)
    rng = np.random.default_rng(5)
    valid = BatchConcurrentFilter(BasicFilter(2), 40, "epsilon").run(adversary, 200, rng)
    twin = ChargeAnsweredOnly(BasicFilter(2), 40, "epsilon").run(adversary, 200, rng)
    assert (valid.launched == 4).all() and (twin.launched == 40).all()
    assert (twin.answers == 40).all()


def test_thm121_charges_and_twin() -> None:
    """H23-Thm1.21: a Gaussian child of rho_c over r answers is charged mu_c >= sqrt(2 rho_c)
    at launch (rounded up, within 1e-9); the twin's per-answer charges square-sum to at
    least 2 rho_c. With 12 launches of rho_c = 1/8 before any query the GDP filter at
    mu = 1 admits 3 (four would be exactly 1: the rounded-up charge refuses the fourth),
    the twin all 12 (true mu sqrt 3, proof step 5)."""
    rho = np.array([0.125, 0.25, 0.3])
    rounds = np.array([3.0, 3.0, 5.0])
    mu, per = MuCharges(GDPFilter(1))._charges(rho, rounds)
    assert (mu >= np.sqrt(2 * rho)).all() and np.allclose(mu, np.sqrt(2 * rho), rtol=1e-9)
    assert not per.any()
    zero, answer = MuChargeAnsweredOnly(GDPFilter(1))._charges(rho, rounds)
    assert not zero.any() and (rounds * answer**2 >= 2 * rho).all()
    adversary = GaussianChildren(LaunchAllThenQuery())
    rng = np.random.default_rng(7)
    valid = MuCharges(GDPFilter(1), 12).run(adversary, 100, rng)
    twin = MuChargeAnsweredOnly(GDPFilter(1), 12).run(adversary, 100, rng)
    assert (valid.launched == 3).all() and (twin.launched == 12).all()
    assert (valid.declared == Fraction(3, 8)).all()


def test_gaussian_children_adapter() -> None:
    """Every launched kind becomes Gaussian; the other fields and the horizon are kept."""
    inner = LaunchAllThenQuery()
    view = BatchChildView(1, np.zeros(4, dtype=np.int64), np.zeros((4, 1), dtype=np.int64),
                          np.full(4, np.nan), np.zeros(4, dtype=bool), np.zeros(4))
    rng = np.random.default_rng(0)
    plain = inner.choose(view, rng)
    move = GaussianChildren(inner).choose(view, rng)
    assert (plain.kind == RANDOMIZED_RESPONSE).all() and (move.kind == GAUSSIAN).all()
    assert np.array_equal(move.rho, plain.rho) and np.array_equal(move.launch, plain.launch)
    assert GaussianChildren(inner).horizon == inner.horizon
