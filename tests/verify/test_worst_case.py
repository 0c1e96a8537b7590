"""The exact worst cases of issue 16 (adaptive_dp.verify.registry.worst_case) against
independent computations: every deterministic strategy tree enumerated for tiny menus,
the k-fold randomized-response law, a Monte Carlo run of the optimal policy
(LatticePolicy) through the simulator, numerical integrals of the Gaussian law and of the
first-passage density; and every exact worst case a claim reports is at most its claim
(H23-ThmB.3, RRUV16-Filter, H23-Thm3.8, CS2080-AdvComp, CS2080-BasicComp,
CS2080-PureDPFilter, R23-Lem2.4, EXT-ST22, EXT-GDPAccumulator, R23-Lem6.2, R23-Thm6,
EXT-KOV15, EXT-GDPComposition, EXT-MV16)."""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from itertools import permutations

import mpmath
import numpy as np
import pytest

from adaptive_dp.filters.basic import PureDPFilter
from adaptive_dp.filters.from_accumulator import AccumulatorFilter
from adaptive_dp.filters.rruv16 import RRUV16Filter
from adaptive_dp.filters.w23 import W23Filter
from adaptive_dp.guarantees.definitions import ApproxDP, PureDP
from adaptive_dp.loss.discrete import compose_discrete
from adaptive_dp.loss.randomized_response import rr_composed_pld, rr_pld
from adaptive_dp.odometers.accumulators import ApproxDPAccumulator
from adaptive_dp.verify.judge.simulate import simulate
from adaptive_dp.verify.registry import REGISTRY
from adaptive_dp.verify.registry.claims.filters import W23_RANDOM_WORST
from adaptive_dp.verify.registry.worst_case import (
    Payoff,
    brownian_first_passage,
    filter_worst,
    gaussian_budget_worst,
    hockey_stick_payoff,
    largest_loss,
    rr_lattice_worst,
    rule_admits,
    tail_payoff,
)

MENU = (0.5, 1.0)


def _budget(counts: tuple[int, ...], j: int) -> bool:
    """Admit while the epsilons spent, the next one included, stay <= 1.5."""
    return sum(c * e for c, e in zip(counts, MENU, strict=True)) + MENU[j] <= 1.5


def _tree_values(counts: tuple[int, ...], loss: float, horizon: int,
                 payoff: Callable[[float], float]) -> list[float]:
    """E_x[payoff(L)] of every deterministic strategy tree from this state (stop, or
    any admitted epsilon followed by any tree on each of its two outputs)."""
    values = [payoff(loss)]
    if sum(counts) == horizon:
        return values
    for j, e in enumerate(MENU):
        if not _budget(counts, j):
            continue
        after = tuple(c + (i == j) for i, c in enumerate(counts))
        p = math.exp(e) / (1 + math.exp(e))
        ups = _tree_values(after, loss + e, horizon, payoff)
        downs = _tree_values(after, loss - e, horizon, payoff)
        values += [p * u + (1 - p) * d for u in ups for d in downs]
    return values


@pytest.mark.parametrize("payoff, exact", [
    (lambda x: max(0.0, 1 - math.exp(1 - x)), hockey_stick_payoff(Fraction(1))),
    (lambda x: float(x > 0.5 + 1e-12), tail_payoff(Fraction(1, 2))),
])
def test_lattice_equals_the_best_of_every_strategy_tree(payoff: Callable[[float], float],
                                                       exact: Payoff) -> None:
    worst = rr_lattice_worst(MENU, 3, _budget, exact)
    trees = _tree_values((0, 0), 0.0, 3, payoff)
    assert len(trees) > 20
    assert worst.upper() == pytest.approx(max(trees), rel=1e-12, abs=1e-15)
    assert max(trees) > 0


def test_fixed_composition_is_the_k_fold_randomized_response() -> None:
    worst = rr_lattice_worst((0.25,), 16, lambda counts, j: True, hockey_stick_payoff(Fraction(1)))
    assert worst.upper() == pytest.approx(rr_composed_pld(0.25, 16).hockey_stick(1.0), rel=1e-9)


def test_fixed_order_worst_is_the_composed_randomized_response() -> None:
    """EXT-MV16's scenario (epsilons in a fixed order): the composed PLD's hockey-stick."""
    setup = REGISTRY["EXT-MV16/doubling-rr"].build("quick")
    composed = compose_discrete(rr_pld(e) for e in (0.125, 0.25, 0.5, 1.0, 1.0, 1.0))
    assert setup.exact_worst == pytest.approx(composed.hockey_stick(setup.epsilon), rel=1e-9)


def test_largest_loss_through_a_pure_filter() -> None:
    # 3 x 0.3 fit in 1, a fourth does not; 0.6 + 4 x 0.1 reaches 1 exactly (in binary)
    pure = PureDPFilter(Fraction(1))
    assert largest_loss((0.3,), 6, rule_admits(pure, (0.3,))) == 3 * Fraction(0.3)
    menu = (0.1, 0.35, 0.6)
    assert largest_loss(menu, 12, rule_admits(pure, menu)) == Fraction(0.6) + 4 * Fraction(0.1)


def test_rule_admits_does_not_depend_on_the_order_of_spends() -> None:
    rule = W23Filter(Fraction(2), delta=Fraction(1, 20))
    spends = (0.45, 0.2, 0.2, 0.05)
    decisions = set()
    for order in permutations(spends):
        state = rule.start()
        for e in order:
            _, state = state.spend(PureDP(e))
        decisions.add(tuple(bool(state.decide(PureDP(e))) for e in (0.05, 0.2, 0.45)))
    admits = rule_admits(rule, (0.05, 0.2, 0.45))
    assert decisions == {tuple(admits((1, 2, 1), j) for j in range(3))}


def test_optimal_policy_simulated_within_its_confidence_interval() -> None:
    """The tail at 1 of up to 10 randomized responses of 1/2: stopping at the first
    passage matters; the policy run by the simulator reaches the exact value in the
    order it was solved for (x, x'), and stays below it in the other."""
    worst = rr_lattice_worst((0.5,), 10, lambda counts, j: True, tail_payoff(Fraction(1)))
    exact = worst.upper()
    rng = np.random.default_rng(20261125)
    sigma = math.sqrt(exact * (1 - exact) / 20_000)
    tail = float(np.mean(simulate(worst.policy, 20_000, rng).loss > 1 + 1e-9))
    assert abs(tail - exact) < 5 * sigma
    other = float(np.mean(simulate(worst.policy, 20_000, rng, under="x'").loss > 1 + 1e-9))
    assert other < exact - 5 * sigma
    # against the same 10 releases without stopping: adaptivity is worth something
    assert exact > rr_composed_pld(0.5, 10).tail(1.0 + 1e-9) + 0.05


def test_gaussian_budget_worst_is_the_hockey_stick_of_the_whole_budget() -> None:
    mu, eps = mpmath.mpf(1.5), mpmath.mpf(2)
    with mpmath.workdps(30):
        integral = mpmath.quad(
            lambda x: mpmath.npdf(x, mu**2 / 2, mu) * (1 - mpmath.exp(eps - x)), [eps, mpmath.inf])
    value = gaussian_budget_worst(Fraction(3, 2), Fraction(2))
    assert value >= float(integral) and value == pytest.approx(float(integral), rel=1e-12)


def test_first_passage_integrates_the_inverse_gaussian_density() -> None:
    spend, eps = Fraction(1, 2), Fraction(2)
    with mpmath.workdps(30):
        a, s = mpmath.mpf(2), mpmath.mpf(0.5)
        density = mpmath.quad(lambda t: a / mpmath.sqrt(2 * mpmath.pi * t**3)
                              * mpmath.exp(-(a - t / 2) ** 2 / (2 * t)), [0, s])
    value = brownian_first_passage(spend, eps)
    assert value >= float(density) and value == pytest.approx(float(density), rel=1e-12)
    # small randomized responses stopped at the first passage approach it from below
    lattice = rr_lattice_worst((0.1,), 50, lambda counts, j: True, tail_payoff(eps)).upper()
    assert 0.5 * value < lattice < value


REPORTED = (
    "CS2080-PureDPFilter/stop-at-worst", "CS2080-PureDPFilter/generated-random",
    "CS2080-BasicComp/budget-hugging", "CS2080-BasicComp/stop-at-worst",
    "CS2080-AdvComp/budget-hugging", "CS2080-AdvComp/stop-at-worst",
    "CS2080-AdvComp/exact-worst", "H23-ThmB.3/stop-at-worst", "H23-ThmB.3/generated-random",
    "H23-ThmB.3/exact-worst", "RRUV16-Filter/stop-at-worst", "RRUV16-Filter/exact-worst",
    "H23-Thm3.8/stop-at-worst", "H23-Thm3.8/exact-worst", "R23-Lem2.4/budget-hugging",
    "R23-Lem2.4/stop-at-worst", "EXT-ST22/budget-hugging", "EXT-ST22/stop-at-worst",
    "EXT-ST22/generated-doubling", "EXT-GDPAccumulator/budget-hugging",
    "EXT-GDPAccumulator/stop-at-worst", "R23-Lem6.2/budget-hugging", "R23-Lem6.2/stop-at-worst",
    "R23-Thm6/budget-hugging", "R23-Thm6/stop-at-worst", "R23-Lem6.2/boundary-probe",
    "R23-Thm6/boundary-probe", "EXT-KOV15/budget-hugging",
    "EXT-KOV15/stop-at-worst", "EXT-KOV15/generated-output-threshold",
    "EXT-KOV15/generated-random", "EXT-KOV15/exact-worst", "EXT-GDPComposition/budget-hugging",
    "EXT-GDPComposition/stop-at-worst", "EXT-MV16/doubling-rr", "EXT-MV16/doubling-adaptive-kind",
)


@pytest.mark.parametrize("claim_id", REPORTED)
def test_reported_exact_worst_is_at_most_the_claim(claim_id: str) -> None:
    for profile in ("quick", "full"):
        setup = REGISTRY[claim_id].build(profile)
        assert setup.exact_worst is not None
        assert 0 <= setup.exact_worst <= setup.claimed, profile


@pytest.mark.parametrize("delta", [Fraction(1, 20), Fraction(1, 1000)])
def test_fast_path_programme_matches_the_certified_one(delta: Fraction) -> None:
    """On valid rules the programme through the fast path (the exact-worst claims' policy)
    gives the certified path's value: the fast path refuses nothing more on this menu."""
    for rule in (W23Filter(2, delta=delta), RRUV16Filter(2, delta=delta),
                 AccumulatorFilter(ApproxDPAccumulator(delta=delta), ApproxDP(2, delta))):
        certified = filter_worst(rule, (0.1,), 60, Fraction(2))
        fast = filter_worst(rule, (0.1,), 60, Fraction(2), fast=True)
        assert fast.upper() == certified.upper(), rule


@pytest.mark.slow
@pytest.mark.parametrize("profile", ["quick", "full"])
def test_pinned_w23_random_worst(profile: str) -> None:
    delta = Fraction(1, 20) if profile == "quick" else Fraction(1, 1000)
    worst = filter_worst(W23Filter(Fraction(2), delta=delta), (0.05, 0.2, 0.45), 12, Fraction(2))
    assert worst.upper() == W23_RANDOM_WORST[profile]


@pytest.mark.slow
@pytest.mark.parametrize("claim_id", ["H23-ThmB.3/exact-worst", "H23-Thm3.8/exact-worst"])
def test_exact_worst_claim_policy_reaches_its_value(claim_id: str) -> None:
    """200,000 paths of the claim's own experiment (the policy through the filter's fast
    path) in the order the policy was solved for: the mean payoff is the exact value."""
    setup = REGISTRY[claim_id].build("quick")
    assert setup.exact_worst is not None
    rng = np.random.default_rng(7)
    loss = np.concatenate([np.asarray(setup.experiment(50_000, rng, "x")) for _ in range(4)])
    payoff = np.maximum(0.0, 1 - np.exp(setup.epsilon - loss))
    sigma = float(payoff.std()) / math.sqrt(loss.size)
    assert abs(float(payoff.mean()) - setup.exact_worst) < 5 * sigma
