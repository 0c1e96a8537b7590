"""Claims of validity notions: H23-Lem2.19 (an accumulator gives the filter I(G <= d)),
H23-Thm1.20 ((epsilon, delta)-DP filters and accumulators valid for noninteractive
mechanisms stay valid for interactive ones, concurrently composed) and H23-Thm1.21 (the
same for f-DP).

- ``H23-Lem2.19/random-adaptive`` (equivalence, docs/design.md, Equivalences): five
  accumulators, each with a budget fixed in advance and a grid of three exact spends
  (basic composition at (1, 0.02), zCDP at rho = 1/2, RDP at (4, 1), GDP at mu = 3/2,
  H23-Thm3.8 at (2, 0.05); equality with the budget is reachable on the exact grids).
  Every path draws an adaptive sequence of 8 requests (the next grid index is kept after
  a released output bit 1 and redrawn after a 0 or a refusal, with shared randomness for
  the rule and the oracle); the statistic is the number of requests on which the
  ``AccumulatorFilter`` decision differs from the oracle I(G(admitted, next) <= d),
  G read by a fresh accumulator on the whole list and, where the reading is exact (basic,
  zCDP, RDP, and GDP on perfect squares), compared with d in the lattice. Claimed: 0
  (max-statistic). Decisions are computed once per distinct public prefix (paths grouped
  by an integer code of their admitted indices). Twin ``lookahead-dropped`` (the filter
  compares the reading before the next spend).
- ``H23-Lem2.19/budget-hugging``, ``/stop-at-worst``: the basic-composition accumulator
  (CS2080-BasicComp) through I(G <= (2, 0)) between an adaptive adversary and randomized
  response / Laplace releases (hugging 5/2, or releases of 0.3 until L > 1); max-loss at
  2. Twin ``lookahead-dropped`` (one randomized response of epsilon 3: L = 3 with
  probability 0.95).
- ``H23-Thm1.20/budget-hugging``: H23-Thm3.8's accumulator through I(G <= (2, delta)),
  lifted to concurrently composed interactive randomized-response children (pure-DP mode
  of the batch compositor): 40 interleaved launch/query rounds, each child's epsilon_c
  (1/8 or 1/4 over 3 answers) chosen from the last answer, never stopping;
  hockey-stick at 2 against delta. ``H23-Thm1.20/stop-at-worst``: the basic filter
  (2, 0) on the same children, each path stopping once its loss exceeds 1; max-loss at
  2. Twin ``charge-answered-only`` (:class:`~adaptive_dp.verify.registry.twins.
  interactive.ChargeAnsweredOnly`): the charge comes with each released answer, which is
  exactly the launch charge for noninteractive mechanisms (their answer is the launch)
  and so valid for them; lifted to interactive children without paying at launch, 150
  launches of 0.15 before any query are all admitted.
- ``H23-Thm1.21/budget-hugging``, ``/stop-at-worst``: the mu-GDP (f = G_mu) accumulator
  (EXT-GDPAccumulator through I(G <= 1)) and the GDP filter (EXT-ST22, mu = 1), lifted to
  interleaved interactive Gaussian children, each charged mu_c = sqrt(2 rho_c) at launch
  (:class:`MuCharges`: rounds answers of N(., rounds / (2 rho_c)) are sqrt(2 rho_c)-GDP);
  hockey-stick at epsilon = 1 (quick) / 3.1 (full) against delta_1(epsilon) (EXT-DRS19).
  Twin ``charge-answered-only`` (:class:`~adaptive_dp.verify.registry.twins.validity.
  MuChargeAnsweredOnly`, 12 launches of rho_c = 1/8 before any query: true mu sqrt 3).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

import numpy as np
from numpy.typing import NDArray

from adaptive_dp.filters.base import Decision, Rule
from adaptive_dp.filters.basic import BasicFilter
from adaptive_dp.filters.from_accumulator import AccumulatorFilter
from adaptive_dp.filters.gdp import GDPFilter
from adaptive_dp.guarantees.definitions import GDP, RDP, ZCDP, ApproxDP, Guarantee, PureDP
from adaptive_dp.guarantees.lattice import within
from adaptive_dp.interactive.adversary import GAUSSIAN, LAPLACE, RANDOMIZED_RESPONSE
from adaptive_dp.numerics.floats import inflate_up
from adaptive_dp.odometers.accumulators import (
    Accumulator,
    ApproxDPAccumulator,
    BasicAccumulator,
    Exhausted,
    GDPAccumulator,
    RDPAccumulator,
    ZCDPAccumulator,
)
from adaptive_dp.verify.judge.adversaries import BudgetHugging, Constant, StopAtWorst
from adaptive_dp.verify.judge.batch import BatchChildView, BatchConcurrentFilter, BatchMove
from adaptive_dp.verify.judge.claim import (
    AdversaryExperiment,
    Claim,
    Setup,
    Twin,
    profile_delta,
    samples_for,
)
from adaptive_dp.verify.judge.estimators import Quantity
from adaptive_dp.verify.judge.simulate import FastRule
from adaptive_dp.verify.registry.bounds import GDPComposition
from adaptive_dp.verify.registry.claims.filters import certified_rule
from adaptive_dp.verify.registry.claims.interactive import (
    InterleavedStopAtWorst,
    LaunchAllThenQuery,
    PureLaunchAllThenQuery,
)
from adaptive_dp.verify.registry.twins.filters import LookaheadDroppedAccumulator
from adaptive_dp.verify.registry.twins.interactive import ChargeAnsweredOnly
from adaptive_dp.verify.registry.twins.validity import MuChargeAnsweredOnly

__all__ = ["CLAIMS", "GaussianChildren", "MuCharges", "decision_disagreements"]

Array = NDArray[np.float64]
Interleaving = InterleavedStopAtWorst | LaunchAllThenQuery | PureLaunchAllThenQuery

# -- H23-Lem2.19: the filter I(G <= d) against the accumulator's reading -------------------
_STEPS = 8
_CASES: tuple[tuple[Accumulator, Guarantee, tuple[Guarantee, ...]], ...] = (
    (BasicAccumulator(), ApproxDP(1, "0.02"),
     (ApproxDP("0.1", 0), ApproxDP("0.25", "0.01"), ApproxDP("0.4", 0))),
    (ZCDPAccumulator(), ZCDP("0.5"), (ZCDP("0.05"), ZCDP("0.125"), ZCDP("0.2"))),
    (RDPAccumulator(4), RDP(4, 1), (RDP(4, "0.2"), RDP(4, "0.25"), RDP(4, "0.5"))),
    (GDPAccumulator(), GDP("1.5"), (GDP("0.3"), GDP("0.6"), GDP("0.9"))),
    (ApproxDPAccumulator(delta="0.05"), ApproxDP(2, "0.05"),
     (PureDP("0.3"), PureDP("0.6"), PureDP(1))),
)
RuleOf = Callable[[Accumulator, Guarantee], Rule]


def _oracle(accumulator: Accumulator, budget: Guarantee, spends: Sequence[Guarantee]) -> bool:
    """H23-Lem2.19's indicator I(G(d_1, ..., d_k) <= d), G read on the whole list; an exact
    reading is compared with d in the lattice (exact comparisons), an enclosed one by the
    accumulator's certified comparison."""
    state = accumulator.start()
    for spend in spends:
        state = state.add(spend)
    reading = state.reading()
    if isinstance(reading, Exhausted):
        return False
    if state.reading_ball() is None:
        return within(reading, budget)
    return state.within(budget)


def decision_disagreements(rule_of: RuleOf, paths: int, rng: np.random.Generator
                           ) -> NDArray[np.int64]:
    """Per path, the number of requests on which ``rule_of(G, d)``'s certified decision
    differs from I(G(admitted, next) <= d), over the five accumulators of the module
    docstring (random adaptive sequences, refuse-and-continue)."""
    out = np.zeros(paths, dtype=np.int64)
    for accumulator, budget, grid in _CASES:
        rule = rule_of(accumulator, budget)
        states = {0: rule.start()}
        admitted: dict[int, tuple[int, ...]] = {0: ()}
        code = np.zeros(paths, dtype=np.int64)  # base-4 code of the admitted indices
        index = rng.integers(0, len(grid), paths)
        for _ in range(_STEPS):
            pairs, back = np.unique(np.stack([code, index]), axis=1, return_inverse=True)
            agree = np.ones(pairs.shape[1], dtype=bool)
            takes = np.zeros(pairs.shape[1], dtype=bool)
            for j, (c, i) in enumerate(pairs.T.tolist()):
                decision, after = states[c].spend(grid[i])
                takes[j] = decision is Decision.CONTINUE
                agree[j] = takes[j] == _oracle(accumulator, budget,
                                               [grid[k] for k in (*admitted[c], i)])
                if takes[j]:
                    states.setdefault(4 * c + i + 1, after)
                    admitted.setdefault(4 * c + i + 1, (*admitted[c], i))
            took = takes[back.ravel()]
            out += ~agree[back.ravel()]
            code = np.where(took, 4 * code + index + 1, code)
            bit = took & (rng.random(paths) < 0.75)
            index = np.where(bit, index, rng.integers(0, len(grid), paths))
    return out


def _equivalence(rule_of: RuleOf, profile: str, note: str) -> Setup:
    delta_min = profile_delta(profile, 0.02)

    def run(paths: int, rng: np.random.Generator, under: str) -> Array:
        return decision_disagreements(rule_of, paths, rng).astype(np.float64)

    return Setup(Quantity.MAX_LOSS, 0.0, 0.0, run, samples_for(Quantity.MAX_LOSS, 0.0, delta_min),
                 orders=("x",), delta_min=delta_min, note=note)


_EQ_NOTE = ("5 accumulators (basic, zCDP, RDP_4, GDP, H23-Thm3.8) at fixed budgets, 8 adaptive "
            "requests from exact grids; disagreements with I(G(admitted, next) <= d)")


# -- H23-Lem2.19: privacy of the resulting filter -----------------------------------------
_BASIC_BUDGET = PureDP(2)


def _same(kind: NDArray[np.int8], param: Array) -> Array:
    return param


def _pure_spend(kind: int, param: float) -> object:
    return PureDP(param)


def _max_loss(adversary: Any, rule: Any, delta_min: float, note: str) -> Setup:
    return Setup(Quantity.MAX_LOSS, 2.0, 2.0, AdversaryExperiment(adversary, rule),
                 samples_for(Quantity.MAX_LOSS, 2.0, delta_min), delta_min=delta_min,
                 note=note)


def _lem219(adversary: Any, what: str) -> Callable[[str], Setup]:
    def build(profile: str) -> Setup:
        rule = FastRule(AccumulatorFilter(BasicAccumulator(), _BASIC_BUDGET), _same)
        return _max_loss(adversary, rule, profile_delta(profile, 0.02),
                         f"basic accumulator through I(G <= (2, 0)): {what}")
    return build


def _lem219_twin(profile: str) -> Setup:
    rule = certified_rule(LookaheadDroppedAccumulator(BasicAccumulator(), _BASIC_BUDGET),
                          _pure_spend)
    return _max_loss(Constant((RANDOMIZED_RESPONSE,), 3.0, 1), rule, 0.02,
                     "look-ahead dropped, basic accumulator at (2, 0): one RR of eps=3")


# -- H23-Thm1.20 and H23-Thm1.21: lifted to interleaved interactive children ---------------
@dataclass(frozen=True, slots=True)
class MuCharges(BatchConcurrentFilter):
    """The batch compositor charging a Gaussian child mu_c = sqrt(2 rho_c) at launch
    (rounded up): its ``rounds`` answers of N(., rounds / (2 rho_c)) are mu_c-GDP."""

    def _charges(self, declared: Array, rounds: Array) -> tuple[Array, Array]:
        mu: Array = np.asarray(inflate_up(np.sqrt(2 * declared)))
        return mu, np.zeros_like(declared)


@dataclass(frozen=True, slots=True)
class GaussianChildren:
    """``inner``'s moves with every launched child Gaussian (f-DP claims: G_mu children)."""

    inner: Interleaving

    @property
    def horizon(self) -> int:
        return self.inner.horizon

    def choose(self, view: BatchChildView, rng: np.random.Generator) -> BatchMove:
        move = self.inner.choose(view, rng)
        return replace(move, kind=np.full_like(move.kind, GAUSSIAN))


@dataclass(frozen=True, slots=True)
class _Experiment:
    compositor: BatchConcurrentFilter
    adversary: Interleaving | GaussianChildren

    def __call__(self, paths: int, rng: np.random.Generator, under: str) -> Array:
        return self.compositor.run(self.adversary, paths, rng, under=under).loss


_LAUNCHES = 40
_TWIN_LAUNCHES = 40
_TWIN_ADVERSARY = PureLaunchAllThenQuery(_TWIN_LAUNCHES, 0.5)


def _hockey(compositor: BatchConcurrentFilter, adversary: Interleaving | GaussianChildren,
            epsilon: float, claimed: float, note: str) -> Setup:
    return Setup(Quantity.HOCKEY_STICK, epsilon, claimed, _Experiment(compositor, adversary),
                 samples_for(Quantity.HOCKEY_STICK, claimed), note=note)


def _acc38(delta: Fraction) -> AccumulatorFilter:
    return AccumulatorFilter(ApproxDPAccumulator(delta=delta), ApproxDP(2, delta))


def _thm120_hugging(profile: str) -> Setup:
    delta = Fraction(profile_delta(profile, 0.1))
    return _hockey(BatchConcurrentFilter(_acc38(delta), _LAUNCHES, "epsilon"),
                   InterleavedStopAtWorst(float("inf"), _LAUNCHES), 2.0, float(delta),
                   f"H23-Thm3.8 accumulator through I(G <= (2, {float(delta)})), interleaved "
                   f"RR children (eps_c 1/8 or 1/4 by the last answer, 3 answers each)")


def _thm120_stop(profile: str) -> Setup:
    delta_min = profile_delta(profile, 0.02)
    compositor = BatchConcurrentFilter(BasicFilter(2), _LAUNCHES, "epsilon")
    return Setup(Quantity.MAX_LOSS, 2.0, 2.0,
                 _Experiment(compositor, InterleavedStopAtWorst(1.0, _LAUNCHES)),
                 samples_for(Quantity.MAX_LOSS, 2.0, delta_min), delta_min=delta_min,
                 note="basic filter (2, 0), interleaved RR children, stop when L > 1")


def _thm120_stop_twin(profile: str) -> Setup:
    compositor = ChargeAnsweredOnly(BasicFilter(2), _TWIN_LAUNCHES, "epsilon")
    return Setup(Quantity.MAX_LOSS, 2.0, 2.0, _Experiment(compositor, _TWIN_ADVERSARY),
                 samples_for(Quantity.MAX_LOSS, 2.0, 0.02), delta_min=0.02,
                 note="charge-answered-only, basic filter (2, 0): 40 RR launches of "
                 "eps_c=1/2 before any query (all admitted)")


def _thm120_twin(profile: str) -> Setup:
    delta = Fraction(1, 10)
    return _hockey(ChargeAnsweredOnly(_acc38(delta), _TWIN_LAUNCHES, "epsilon"),
                   _TWIN_ADVERSARY, 2.0, float(delta), "charge-answered-only, H23-Thm3.8 "
                   "accumulator at (2, 0.1): 40 RR launches of eps_c=1/2 before any query "
                   "(all admitted)")


_GDP_MU = Fraction(1)


def _gdp_eps(profile: str) -> Fraction:
    return Fraction(1) if profile_delta(profile, 0.05) > 1e-3 else Fraction("3.1")


def _thm121(rule: Rule, threshold: float, what: str) -> Callable[[str], Setup]:
    def build(profile: str) -> Setup:
        eps, claimed = GDPComposition((_GDP_MU,), _gdp_eps(profile)).claimed()
        return _hockey(MuCharges(rule, 8), GaussianChildren(InterleavedStopAtWorst(threshold, 8)),
                       eps, claimed, f"{what}, interleaved Gaussian children (rho_c 1/8 or 1/4 "
                       f"by the last answer), threshold {threshold}; delta_1(eps) at eps={eps}")
    return build


def _thm121_twin(rule: Rule, what: str) -> Callable[[str], Setup]:
    def build(profile: str) -> Setup:
        eps, claimed = GDPComposition((_GDP_MU,), Fraction(1)).claimed()
        return _hockey(MuChargeAnsweredOnly(rule, 12), GaussianChildren(LaunchAllThenQuery()),
                       eps, claimed, f"charge-answered-only, {what}: 12 Gaussian launches of "
                       f"rho_c=1/8 before any query (all admitted: true mu sqrt 3)")
    return build


_GDP_ACC = AccumulatorFilter(GDPAccumulator(), GDP(_GDP_MU))


_LOOKAHEAD = "the reading compared without the next spend"
_ANSWERED = "a child is charged with its answers, not at launch (valid for NIMs only)"
_LEM219_LOOKAHEAD = Twin("lookahead-dropped", _LOOKAHEAD, _lem219_twin, "H23-Lem2.19")

CLAIMS: tuple[Claim, ...] = (
    Claim("H23-Lem2.19", "random-adaptive", Quantity.MAX_LOSS,
          "I(G <= d) admits exactly the spends whose accumulated reading stays within d",
          lambda p: _equivalence(AccumulatorFilter, p, _EQ_NOTE),
          (Twin("lookahead-dropped", _LOOKAHEAD,
                lambda p: _equivalence(LookaheadDroppedAccumulator, "quick", _EQ_NOTE),
                "H23-Lem2.19"),)),
    Claim("H23-Lem2.19", "budget-hugging", Quantity.MAX_LOSS,
          "the filter I(G <= (2, 0)) of the basic accumulator is (2, 0)-DP",
          _lem219(BudgetHugging((RANDOMIZED_RESPONSE, LAPLACE), 2.5, 6, "epsilon", 0.2, 0.5),
                  "RR/Laplace requests hugging 5/2"), (_LEM219_LOOKAHEAD,)),
    Claim("H23-Lem2.19", "stop-at-worst", Quantity.MAX_LOSS,
          "the filter I(G <= (2, 0)) under stopping at the worst moment",
          _lem219(StopAtWorst((RANDOMIZED_RESPONSE, LAPLACE), 0.3, 10, 1.0),
                  "releases of 0.3 until L > 1"), (_LEM219_LOOKAHEAD,)),
    Claim("H23-Thm1.20", "budget-hugging", Quantity.HOCKEY_STICK,
          "an (epsilon, delta) NIM accumulator's filter stays valid on interleaved IMs",
          _thm120_hugging,
          (Twin("charge-answered-only", _ANSWERED, _thm120_twin, "H23-Thm1.20"),)),
    Claim("H23-Thm1.20", "stop-at-worst", Quantity.MAX_LOSS,
          "the basic (epsilon, 0) NIM filter stays valid on interleaved IMs",
          _thm120_stop,
          (Twin("charge-answered-only", _ANSWERED, _thm120_stop_twin, "H23-Thm1.20"),)),
    Claim("H23-Thm1.21", "budget-hugging", Quantity.HOCKEY_STICK,
          "the mu-GDP accumulator's filter stays valid (G_mu-DP) on interleaved IMs",
          _thm121(_GDP_ACC, float("inf"), "GDP accumulator through I(G <= 1)"),
          (Twin("charge-answered-only", _ANSWERED,
                _thm121_twin(_GDP_ACC, "GDP accumulator at mu=1"), "H23-Thm1.21"),)),
    Claim("H23-Thm1.21", "stop-at-worst", Quantity.HOCKEY_STICK,
          "the mu-GDP filter stays valid (G_mu-DP) on interleaved IMs, stopping at the worst",
          _thm121(GDPFilter(_GDP_MU), 1.0, "GDP filter mu=1"),
          (Twin("charge-answered-only", _ANSWERED,
                _thm121_twin(GDPFilter(_GDP_MU), "GDP filter mu=1"), "H23-Thm1.21"),)),
)
