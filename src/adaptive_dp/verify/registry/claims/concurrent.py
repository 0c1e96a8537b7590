"""Claims of the concurrent compositions of interactive mechanisms (H23 sections 1 to 4,
R23-Thm1) and of H23-Lem2.3.

Fixed-parameter compositions (:class:`AdaptiveInterleaving`): k interactive children on
worst-case neighbours (the queried count is 0 on x, 1 on x'; the order x' swaps them),
each answering ``rounds`` queries; the adversary interleaves them adaptively: after an
answer above 1/2 it queries the child with the most answers left, otherwise the first
child with an answer left. A randomized-response child answers each query by
eps-randomized response; a Gaussian child by N(count, sigma^2); an (epsilon, delta)
child with leak probability delta reveals the count in every answer with probability
delta (drawn once). The statistic is the privacy loss of the whole view, the sum of the
log density ratios of the released answers (+inf for a revealing answer); hockey-stick
at the claimed epsilon against the claimed delta, both orders.

- ``H23-Thm1.8/adaptive-interleaving``: RR children of epsilon 1/2, 1/2, 1, 3/2 (answers
  2, 1, 1, 1, the first and third leaking with delta/5 each), claimed
  ``concurrent_approx_dp`` at delta = 0.05 (quick) / 1e-3 (full). Twin
  ``last-child-dropped`` (true delta about 0.31 at its epsilon, quick).
- ``R23-Thm1/heterogeneous-interleaving``: RR children of epsilon 1/4, 1/2, 3/4, 1, 5/4
  (answers 1, 2, 1, 2, 1; the second and fourth leak with delta/4), the same theorem
  through R23's statement. Twin ``last-child-dropped`` (true delta about 0.14).
- ``H23-Thm4.5/adaptive-interleaving``: four children of rho 1/8 (Gaussian and RR
  alternating, answers 3, 1, 2, 1; each answer of a child with rho_c over r answers is
  rho_c/r-zCDP: sigma = sqrt(r/(2 rho_c)), eps = sqrt(2 rho_c/r)), claimed
  ``concurrent_zcdp`` converted by EXT-CKS20 at delta = 0.05 / 1e-3. Twin
  ``max-not-sum``.
- ``H23-Thm4.3/adaptive-interleaving``: four Gaussian children at order alpha = 4 with
  RDP epsilons alpha rho_c (rho_c 1/8, 1/8, 1/16, 3/16; answers 2, 1, 2, 1), claimed
  ``compose_rdp`` converted by EXT-BBGHS20 at delta = 0.05 / 1e-3. Twin ``max-not-sum``.

Lifted filters (F(.; d)-FiltCon(IM) run by
:class:`~adaptive_dp.verify.judge.batch.BatchConcurrentFilter` with the adversaries of
:mod:`~adaptive_dp.verify.registry.claims.interactive`: 12 launch requests before any
query ("budget-hugging"), or launches
interleaved with queries, rho_c 1/8 or 1/4 by the last answer, stopping once the loss
exceeds 1 ("stop-at-worst")); the rule is the one the lifting returns. Twin
``charge-answered-only`` (a child charged per answered query), in the budget-hugging
scenario, for each:

- ``H23-Thm3.4/{budget-hugging, stop-at-worst}``: ``concurrent_fdp_filter(GDPFilter(1))``,
  Gaussian children of rho_c = 1/8 charged mu_c = sqrt(2 rho_c) (:class:`GDPCharged`);
  claimed EXT-DRS19's (epsilon, delta) of 1-GDP at delta = 0.05 / 1e-3 (exactly the
  hockey-stick of the budget-hugging view).
- ``H23-Thm3.6/{budget-hugging, stop-at-worst}``: the H23-Thm3.8 accumulator returned by
  ``concurrent_fdp_odometer``, truncated at (2, delta) (H23-Lem2.19), randomized-response
  children in the pure-DP mode (60 launches of eps_c = 0.1, 50 admitted; or the
  interleaved adversary's eps_c 1/8 or 1/4 over 3 answers); hockey-stick at 2 against
  delta. The twin runs 40 launches of eps_c = 0.3 (all admitted: true delta about 0.29).
- ``H23-Lem4.7/budget-hugging`` (K = 12, the sum binds) and ``/stop-at-worst`` (K = 3, the
  cap binds): ``concurrent_rdp_filter(4, 2, max_mechanisms=K)``, children of rho_c charged
  their RDP epsilon 4 rho_c (:class:`RDPCharged`); claimed EXT-BBGHS20 of (4, 2)-RDP.

Deterministic adversaries (exact enumeration, :mod:`adaptive_dp.interactive.games`):

- ``H23-Lem2.3/random-games``: one random finite game per path (3 rounds, 2 queries, 2
  answers, every answer distribution under x and x' uniform on the simplex, epsilon
  uniform on [0, 1]); a randomized adversary mixes the best strategy tree with weight
  1 - eta (eta = U^3) with a sparse random mixture (Dirichlet(0.2)) of all 128 trees;
  statistic: its view's hockey-stick minus ``deterministic_max``, claimed <= 1e-9 (an
  exact-enumeration equivalence; n >= 14/delta_min). Twin ``non-adaptive-search``
  (in about 30% of the games the best tree is adaptive and the mixture beats every fixed
  query sequence).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from numpy.typing import NDArray

from adaptive_dp.filters.base import Rule
from adaptive_dp.filters.from_accumulator import AccumulatorFilter
from adaptive_dp.filters.gdp import GDPFilter
from adaptive_dp.guarantees.definitions import GDP, RDP, ZCDP, ApproxDP, PureDP
from adaptive_dp.guarantees.gdp import gdp_to_dp
from adaptive_dp.guarantees.rdp import compose_rdp, rdp_to_dp
from adaptive_dp.guarantees.zcdp import zcdp_to_dp_optimal
from adaptive_dp.interactive.adversary import GAUSSIAN, RANDOMIZED_RESPONSE
from adaptive_dp.interactive.concurrent import concurrent_approx_dp, concurrent_zcdp
from adaptive_dp.interactive.filtered import FiltCon
from adaptive_dp.interactive.games import (
    FiniteGame,
    FloatArray,
    deterministic_max,
    deterministic_values,
    mixture_value,
    random_games,
)
from adaptive_dp.interactive.liftings import (
    concurrent_fdp_filter,
    concurrent_fdp_odometer,
    concurrent_rdp_filter,
)
from adaptive_dp.mechanisms.gaussian import gaussian_logpdf, gaussian_sample
from adaptive_dp.mechanisms.randomized_response import rr_logpmf, rr_sample
from adaptive_dp.odometers.accumulators import ApproxDPAccumulator
from adaptive_dp.verify.judge.batch import (
    BatchChildView,
    BatchConcurrentFilter,
    BatchMove,
)
from adaptive_dp.verify.judge.claim import (
    Claim,
    Experiment,
    Setup,
    Twin,
    profile_delta,
    samples_for,
)
from adaptive_dp.verify.judge.estimators import Quantity
from adaptive_dp.verify.registry.claims.interactive import (
    InterleavedStopAtWorst,
    LaunchAllThenQuery,
    PureLaunchAllThenQuery,
)
from adaptive_dp.verify.registry.twins.concurrent import (
    GDPChargeAnsweredOnly,
    RDPChargeAnsweredOnly,
    last_child_dropped,
    max_not_sum,
    non_adaptive_max,
)
from adaptive_dp.verify.registry.twins.interactive import ChargeAnsweredOnly

__all__ = [
    "CLAIMS",
    "AdaptiveInterleaving",
    "Child",
    "GDPCharged",
    "OneKind",
    "RDPCharged",
]


@dataclass(frozen=True, slots=True)
class Child:
    """An interactive child: ``kind`` (RR or Gaussian), ``per_answer`` (eps of each RR
    answer, sigma of each Gaussian answer), ``rounds`` answers, ``leak`` the probability
    that all its answers reveal the count."""

    kind: int
    per_answer: float
    rounds: int
    leak: float = 0.0


@dataclass(frozen=True, slots=True)
class AdaptiveInterleaving:
    """The loss of the whole view of ConComp(children) under the adaptive interleaving
    (module docstring)."""

    children: tuple[Child, ...]

    def __call__(self, paths: int, rng: np.random.Generator, under: str) -> FloatArray:
        center = 0.0 if under == "x" else 1.0
        rows = np.arange(paths)
        left = np.tile(np.array([c.rounds for c in self.children]), (paths, 1))
        leaked = rng.random((paths, len(self.children))) < np.array(
            [c.leak for c in self.children])
        loss = np.zeros(paths)
        last = np.zeros(paths)
        for _ in range(int(left[0].sum())):
            pick = np.where(last > 0.5, np.argmax(left, axis=1), np.argmax(left > 0, axis=1))
            left[rows, pick] -= 1
            for j, child in enumerate(self.children):
                idx = rows[pick == j]
                if idx.size == 0:
                    continue
                p = np.full(idx.size, child.per_answer)
                if child.kind == GAUSSIAN:
                    y = gaussian_sample(center, p, rng)
                    step = gaussian_logpdf(y, center, p) - gaussian_logpdf(y, 1 - center, p)
                else:
                    y = rr_sample(center, p, rng)
                    step = rr_logpmf(y, center, p) - rr_logpmf(y, 1 - center, p)
                reveal = leaked[idx, j]
                loss[idx] += np.where(reveal, np.inf, step)
                last[idx] = np.where(reveal, center, y)
        return loss


def _hockey(epsilon: float, delta: float, experiment: Experiment, note: str) -> Setup:
    return Setup(Quantity.HOCKEY_STICK, epsilon, delta, experiment,
                 samples_for(Quantity.HOCKEY_STICK, delta), note=note)


def _rr(epsilon: Fraction, rounds: int, leak: float = 0.0) -> Child:
    return Child(RANDOMIZED_RESPONSE, float(epsilon) / rounds, rounds, leak)


_Compose = Callable[[Sequence[PureDP | ApproxDP], Fraction], ApproxDP]


def _approx(compose: _Compose, epsilons: tuple[Fraction, ...], rounds: tuple[int, ...],
            leaks: tuple[Fraction, ...], delta: Fraction, note: str) -> Setup:
    """RR children (epsilon_i over rounds_i answers, leak delta delta * leaks_i), claimed
    ``compose`` of their (epsilon_i, delta_i) at ``delta``."""
    deltas = tuple(delta * w for w in leaks)
    result = compose(tuple(ApproxDP(e, d) for e, d in zip(epsilons, deltas, strict=True)),
                     delta)
    children = tuple(_rr(e, r, float(d)) for e, r, d in zip(epsilons, rounds, deltas,
                                                            strict=True))
    return _hockey(float(result.epsilon), float(result.delta), AdaptiveInterleaving(children),
                   f"{note}, adaptive interleaving, delta={float(delta)}")


def _thm18(compose: _Compose, profile: str) -> Setup:
    delta = Fraction(profile_delta(profile, 0.05))
    half, fifth = Fraction(1, 2), Fraction(1, 5)
    return _approx(compose, (half, half, Fraction(1), Fraction(3, 2)), (2, 1, 1, 1),
                   (fifth, Fraction(0), fifth, Fraction(0)), delta,
                   "RR children eps 1/2,1/2,1,3/2 (answers 2,1,1,1; leaks delta/5 on the "
                   "first and third)")


def _r23(compose: _Compose, profile: str) -> Setup:
    delta = Fraction(profile_delta(profile, 0.05))
    quarter, zero = Fraction(1, 4), Fraction(0)
    return _approx(compose, tuple(quarter * i for i in range(1, 6)), (1, 2, 1, 2, 1),
                   (zero, quarter, zero, quarter, zero), delta,
                   "RR children eps 1/4,1/2,3/4,1,5/4 (answers 1,2,1,2,1; leaks delta/4 on "
                   "the second and fourth)")


_ZCDP_RHO = (Fraction(1, 8),) * 4
_ZCDP_ROUNDS = (3, 1, 2, 1)


def _zcdp_children() -> tuple[Child, ...]:
    out = []
    for i, (rho, r) in enumerate(zip(_ZCDP_RHO, _ZCDP_ROUNDS, strict=True)):
        if i % 2 == 0:
            out.append(Child(GAUSSIAN, float(np.sqrt(r / (2 * float(rho)))), r))
        else:
            out.append(Child(RANDOMIZED_RESPONSE, float(np.sqrt(2 * float(rho) / r)), r))
    return tuple(out)


def _sum_rho(parts: Sequence[Fraction]) -> Fraction:
    return concurrent_zcdp(ZCDP(r) for r in parts).rho


def _thm45(total: Callable[[Sequence[Fraction]], Fraction], profile: str) -> Setup:
    delta = Fraction(profile_delta(profile, 0.05))
    result = zcdp_to_dp_optimal(ZCDP(total(_ZCDP_RHO)), delta)
    return _hockey(float(result.epsilon), float(result.delta),
                   AdaptiveInterleaving(_zcdp_children()),
                   f"Gaussian/RR children rho 1/8 each (answers 3,1,2,1), adaptive "
                   f"interleaving, delta={float(delta)}")


_ALPHA = Fraction(4)
_RDP_RHO = (Fraction(1, 8), Fraction(1, 8), Fraction(1, 16), Fraction(3, 16))
_RDP_ROUNDS = (2, 1, 2, 1)


def _sum_rdp(parts: Sequence[Fraction]) -> Fraction:
    total = compose_rdp(RDP(_ALPHA, e) for e in parts)
    assert isinstance(total, RDP)
    return total.epsilon


def _thm43(total: Callable[[Sequence[Fraction]], Fraction], profile: str) -> Setup:
    delta = Fraction(profile_delta(profile, 0.05))
    result = rdp_to_dp(RDP(_ALPHA, total([_ALPHA * r for r in _RDP_RHO])), delta)
    children = tuple(Child(GAUSSIAN, float(np.sqrt(r / (2 * float(rho)))), r)
                     for rho, r in zip(_RDP_RHO, _RDP_ROUNDS, strict=True))
    return _hockey(float(result.epsilon), float(result.delta), AdaptiveInterleaving(children),
                   f"Gaussian children, RDP at alpha=4 of 4 rho_c (rho_c 1/8,1/8,1/16,3/16; "
                   f"answers 2,1,2,1), adaptive interleaving, delta={float(delta)}")


@dataclass(frozen=True, slots=True)
class GDPCharged(BatchConcurrentFilter):
    """The batch compositor with children declared by rho_c and charged to a GDP rule
    as mu_c = sqrt(2 rho_c) (a Gaussian child of rho_c over r answers is mu_c-GDP)."""

    def _charges(self, declared: FloatArray, rounds: FloatArray
                 ) -> tuple[FloatArray, FloatArray]:
        return np.sqrt(2 * declared), np.zeros_like(declared)


@dataclass(frozen=True, slots=True)
class RDPCharged(BatchConcurrentFilter):
    """The batch compositor charging a child of rho_c its RDP epsilon alpha rho_c at the
    order ``alpha`` (rho-zCDP is RDP_alpha with epsilon alpha rho, H23-Def4.4)."""

    alpha: float = 4.0

    def _charges(self, declared: FloatArray, rounds: FloatArray
                 ) -> tuple[FloatArray, FloatArray]:
        return self.alpha * declared, np.zeros_like(declared)


@dataclass(frozen=True, slots=True)
class OneKind:
    """``inner``'s moves with every launched child of ``kind`` (Gaussian for the GDP
    claims; randomized response for the pure-DP mode, where ``rho`` carries eps_c)."""

    inner: LaunchAllThenQuery | InterleavedStopAtWorst
    kind: int = GAUSSIAN

    @property
    def horizon(self) -> int:
        return self.inner.horizon

    def choose(self, view: BatchChildView, rng: np.random.Generator) -> BatchMove:
        m = self.inner.choose(view, rng)
        return BatchMove(m.launch, np.full_like(m.kind, self.kind), m.rho, m.rounds, m.child)


_Adversary = LaunchAllThenQuery | InterleavedStopAtWorst | PureLaunchAllThenQuery | OneKind


@dataclass(frozen=True, slots=True)
class _Filtered:
    compositor: BatchConcurrentFilter
    adversary: _Adversary

    def __call__(self, paths: int, rng: np.random.Generator, under: str) -> FloatArray:
        return self.compositor.run(self.adversary, paths, rng, under=under).loss


def _rule(lifted: FiltCon) -> Rule:
    """The continuation rule of a lifted F(.; d)-FiltCon(IM) (the object under test)."""
    return lifted.rule


def _gdp(compositor: type[BatchConcurrentFilter],
         inner: LaunchAllThenQuery | InterleavedStopAtWorst, profile: str, note: str) -> Setup:
    delta = Fraction(profile_delta(profile, 0.05))
    rule = _rule(concurrent_fdp_filter(GDPFilter(1)))
    result = gdp_to_dp(GDP(1), delta)
    return _hockey(float(result.epsilon), float(result.delta),
                   _Filtered(compositor(rule, 12), OneKind(inner)),
                   f"GDP filter mu=1 lifted (H23-Thm3.4); Gaussian children of mu_c=1/2 "
                   f"(rho_c=1/8); {note}; delta={float(delta)}")


_RDP_BUDGET = Fraction(2)


def _lem47(compositor: type[RDPCharged | RDPChargeAnsweredOnly], cap: int,
           adversary: LaunchAllThenQuery | InterleavedStopAtWorst, profile: str,
           note: str) -> Setup:
    delta = Fraction(profile_delta(profile, 0.05))
    rule = _rule(concurrent_rdp_filter(_ALPHA, _RDP_BUDGET, max_mechanisms=cap))
    result = rdp_to_dp(RDP(_ALPHA, _RDP_BUDGET), delta)
    return _hockey(float(result.epsilon), float(result.delta),
                   _Filtered(compositor(rule, cap, alpha=float(_ALPHA)), adversary),
                   f"RDP filter F_K at alpha=4, epsilon=2, K={cap}; children charged "
                   f"4 rho_c; {note}; delta={float(delta)}")


def _thm36(compositor: type[BatchConcurrentFilter], adversary: PureLaunchAllThenQuery | OneKind,
           profile: str, note: str) -> Setup:
    delta = Fraction(profile_delta(profile, 0.05))
    accumulator = concurrent_fdp_odometer(ApproxDPAccumulator(delta=delta)).accumulator
    rule = AccumulatorFilter(accumulator, ApproxDP(2, delta))
    return _hockey(2.0, float(delta), _Filtered(compositor(rule, 60, "epsilon"), adversary),
                   f"H23-Thm3.8 accumulator lifted (H23-Thm3.6), truncated at (2, delta): "
                   f"{note}; delta={float(delta)}")


_PURE_HUG = PureLaunchAllThenQuery(launches=60, epsilon=0.1)
_PURE_HUG_NOTE = "60 RR launches of eps_c=0.1 before any query (50 admitted)"
_PURE_TWIN = PureLaunchAllThenQuery(launches=40, epsilon=0.3)
_PURE_TWIN_NOTE = "40 RR launches of eps_c=0.3 before any query (all admitted by the twin)"
_PURE_STOP = OneKind(InterleavedStopAtWorst(launches=12), RANDOMIZED_RESPONSE)
_PURE_STOP_NOTE = ("RR launches interleaved with queries, eps_c 1/8 or 1/4 (3 answers) by the "
                   "last answer, stop when L > 1")


_TOL = 1e-9
"""Largest admissible excess of the randomized value over the deterministic maximum
(float rounding of sums of at most 64 terms in [0, 1])."""
_GAME = (3, 2, 2)


def _lem23_experiment(search: Callable[[FiniteGame, FloatArray], FloatArray]) -> Experiment:
    def run(paths: int, rng: np.random.Generator, under: str) -> NDArray[np.float64]:
        game = random_games(paths, *_GAME, rng)
        if under == "x'":
            game = game.swapped()
        epsilon = rng.uniform(0.0, 1.0, paths)
        values = deterministic_values(game, epsilon)
        trees = values.shape[1]
        eta = rng.uniform(0.0, 1.0, (paths, 1)) ** 3
        best = np.eye(trees)[values.argmax(axis=1)]
        weights = (1 - eta) * best + eta * rng.dirichlet(np.full(trees, 0.2), size=paths)
        out: NDArray[np.float64] = mixture_value(game, weights, epsilon) - search(game, epsilon)
        return out

    return run


def _lem23(search: Callable[[FiniteGame, FloatArray], FloatArray], profile: str) -> Setup:
    delta_min = profile_delta(profile, 0.02)
    return Setup(Quantity.MAX_LOSS, _TOL, _TOL, _lem23_experiment(search),
                 samples_for(Quantity.MAX_LOSS, _TOL, delta_min), delta_min=delta_min,
                 note="random games: 3 rounds, 2 queries, 2 answers; eps ~ U[0, 1]; "
                      "mixture of the best tree (1 - eta) and Dirichlet(0.2) (eta = U^3)")


_CHARGE = "a child is charged only for the queries answered so far"
_HUG = "12 launch requests before any query, then round-robin queries"
_STOP = "launches interleaved with queries, rho_c 1/8 or 1/4 by the last answer, stop when L > 1"

CLAIMS: tuple[Claim, ...] = (
    Claim("H23-Thm3.4", "budget-hugging", Quantity.HOCKEY_STICK,
          "the GDP (f-DP) filter lifted to concurrently composed interactive Gaussian "
          "children: the view is mu-GDP",
          lambda p: _gdp(GDPCharged, LaunchAllThenQuery(), p, _HUG),
          (Twin("charge-answered-only", _CHARGE,
                lambda p: _gdp(GDPChargeAnsweredOnly, LaunchAllThenQuery(), "quick", _HUG)),)),
    Claim("H23-Thm3.4", "stop-at-worst", Quantity.HOCKEY_STICK,
          "the lifted GDP filter under adaptive parameters and stopping at the worst moment",
          lambda p: _gdp(GDPCharged, InterleavedStopAtWorst(), p, _STOP),
          (Twin("charge-answered-only", _CHARGE,
                lambda p: _gdp(GDPChargeAnsweredOnly, LaunchAllThenQuery(), "quick", _HUG)),)),
    Claim("H23-Thm3.6", "budget-hugging", Quantity.HOCKEY_STICK,
          "the H23-Thm3.8 accumulator lifted to interactive RR children: the view truncated "
          "at (epsilon, delta) is (epsilon, delta)-DP",
          lambda p: _thm36(BatchConcurrentFilter, _PURE_HUG, p, _PURE_HUG_NOTE),
          (Twin("charge-answered-only", _CHARGE,
                lambda p: _thm36(ChargeAnsweredOnly, _PURE_TWIN, "quick", _PURE_TWIN_NOTE)),)),
    Claim("H23-Thm3.6", "stop-at-worst", Quantity.HOCKEY_STICK,
          "the lifted H23-Thm3.8 accumulator under adaptive parameters and stopping at the "
          "worst moment",
          lambda p: _thm36(BatchConcurrentFilter, _PURE_STOP, p, _PURE_STOP_NOTE),
          (Twin("charge-answered-only", _CHARGE,
                lambda p: _thm36(ChargeAnsweredOnly, _PURE_TWIN, "quick", _PURE_TWIN_NOTE)),)),
    Claim("H23-Lem4.7", "budget-hugging", Quantity.HOCKEY_STICK,
          "the RDP filter capped at K = 12 (the sum binds) on interleaved Gaussian and RR "
          "children is epsilon-RDP_alpha",
          lambda p: _lem47(RDPCharged, 12, LaunchAllThenQuery(), p, _HUG),
          (Twin("charge-answered-only", _CHARGE,
                lambda p: _lem47(RDPChargeAnsweredOnly, 12, LaunchAllThenQuery(), "quick",
                                 _HUG)),)),
    Claim("H23-Lem4.7", "stop-at-worst", Quantity.HOCKEY_STICK,
          "the RDP filter capped at K = 3 (the cap binds) under adaptive parameters and "
          "stopping at the worst moment",
          lambda p: _lem47(RDPCharged, 3, InterleavedStopAtWorst(), p, _STOP),
          (Twin("charge-answered-only", _CHARGE,
                lambda p: _lem47(RDPChargeAnsweredOnly, 12, LaunchAllThenQuery(), "quick",
                                 _HUG)),)),
    Claim("H23-Thm1.8", "adaptive-interleaving", Quantity.HOCKEY_STICK,
          "ConComp of interactive (eps_i, delta_i)-DP children has the optimal "
          "noninteractive composition's (eps, delta)",
          lambda p: _thm18(concurrent_approx_dp, p),
          (Twin("last-child-dropped", "the last child's guarantee left out of the composition",
                lambda p: _thm18(last_child_dropped, "quick")),)),
    Claim("R23-Thm1", "heterogeneous-interleaving", Quantity.HOCKEY_STICK,
          "COMP of interactive (eps, delta_i)-DP mechanisms has the optimal composition's "
          "(eps, delta)",
          lambda p: _r23(concurrent_approx_dp, p),
          (Twin("last-child-dropped", "the last child's guarantee left out of the composition",
                lambda p: _r23(last_child_dropped, "quick")),)),
    Claim("H23-Thm4.5", "adaptive-interleaving", Quantity.HOCKEY_STICK,
          "ConComp of interactive rho_i-zCDP children is sum rho_i-zCDP",
          lambda p: _thm45(_sum_rho, p),
          (Twin("max-not-sum", "the children's rho composed by their maximum",
                lambda p: _thm45(max_not_sum, "quick")),)),
    Claim("H23-Thm4.3", "adaptive-interleaving", Quantity.HOCKEY_STICK,
          "ConComp of interactive eps_i-RDP_alpha children is sum eps_i-RDP_alpha",
          lambda p: _thm43(_sum_rdp, p),
          (Twin("max-not-sum", "the children's RDP epsilons composed by their maximum",
                lambda p: _thm43(max_not_sum, "quick")),)),
    Claim("H23-Lem2.3", "random-games", Quantity.MAX_LOSS,
          "no randomized adversary's view has a larger hockey-stick divergence than the "
          "best deterministic one (exact enumeration, excess <= 1e-9)",
          lambda p: _lem23(deterministic_max, p),
          (Twin("non-adaptive-search", "the search over deterministic adversaries keeps "
                "fixed query sequences only",
                lambda p: _lem23(non_adaptive_max, "quick")),)),
)
