"""Claims of the concurrent filters of interactive mechanisms (H23 sections 2 and 4).

The experiment runs F(.; rho)-FiltCon(IM) with H23-Thm4.10's zCDP sum rule
(``ZCDPSumFilter``) on a batch of paths
(:class:`~adaptive_dp.verify.judge.batch.BatchConcurrentFilter`): the adversary launches
interactive children built from the Gaussian mechanism and from randomized response
(each declared rho_c-zCDP over ``rounds`` answers) and interleaves queries to all of
them. The statistic is the privacy loss of the adversary's whole view at the filter's
stopping time, computed from the densities of the released answers; the claimed
(epsilon, delta) is the budget rho converted by EXT-CKS20 (the filter's view is
rho-zCDP by H23-Thm4.10). Hockey-stick, both orders of the pair.

- ``H23-Thm4.10/budget-hugging``: 12 launch requests of rho_c = 1/8 (Gaussian and
  randomized response alternating, 3 answers each) before any query, budget
  rho = 1/2 (exactly 4 admitted), then round-robin queries over every child until all
  are exhausted; delta = 0.05 (quick) / 1e-3 (full).
- ``H23-Thm4.10/fine-hugging``, ``H23-Thm4.11/fine-hugging``: the budget-hugging scenario
  with children six times finer: 36 launch requests of rho_c = 1/48 (exactly 24
  admitted) before any query, so that a rule admitting a little more than rho is seen in
  steps of 1/48 rather than 1/8 (the harness-mutation sweep's adversary for these rules,
  tests/verify/test_harness_mutation.py).
- ``H23-Thm4.10/stop-at-worst``: launches interleaved with queries, the next child's
  rho_c chosen from the last answer (1/4 after a large answer, else 1/8), and the
  path stops querying once its running loss exceeds 1 (stopping is post-processing of
  the released view).
- ``H23-Thm4.11/budget-hugging``: the same scenario through the zCDP accumulator's
  truncated view (H23-Lem2.19: F(.; rho) = I(G <= rho) with G = sum rho_i), i.e. the
  concurrent zCDP odometer truncated at rho = 1/2.
- ``H23-Cor3.5/budget-hugging``: the W23 (epsilon, delta) filter (H23-ThmB.3) with
  epsilon = 2, delta' = 0.05 (quick) / 1e-3 (full), delta'' = 0, lifted to interactive
  randomized-response children (pure-DP mode of the batch compositor): 150 launch
  requests of eps_c = 0.15 before any query (22 admitted at delta' = 0.05), then every
  child is queried; hockey-stick at epsilon = 2 against delta'. Twin
  ``charge-answered-only`` (all 150 admitted).
- ``H23-Cor3.5/exact-worst``: 60 launch requests of eps_c = 0.1, then every child queried:
  with one epsilon on offer and the filter's decision fixed by the requests, stopping
  early only post-processes this view, so it attains the worst case over adaptive
  strategies (the randomized-response lattice's, worst_case.filter_worst, the claim's
  ``exact_worst``).
- Twin ``charge-answered-only`` (:class:`~adaptive_dp.verify.registry.twins.interactive.
  ChargeAnsweredOnly`): the compositor charges a child only for the queries answered so
  far; in the budget-hugging scenario it admits all 12 children (true rho = 3/2), at
  delta = 0.05.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction

import numpy as np
from numpy.typing import NDArray

from adaptive_dp.filters.base import Rule
from adaptive_dp.filters.from_accumulator import AccumulatorFilter
from adaptive_dp.filters.w23 import W23Filter
from adaptive_dp.filters.zcdp import ZCDPSumFilter
from adaptive_dp.guarantees.definitions import ZCDP
from adaptive_dp.interactive.adversary import GAUSSIAN, RANDOMIZED_RESPONSE
from adaptive_dp.odometers.accumulators import ZCDPAccumulator
from adaptive_dp.verify.judge.batch import BatchChildView, BatchConcurrentFilter, BatchMove
from adaptive_dp.verify.judge.claim import Claim, Setup, Twin, profile_delta, samples_for
from adaptive_dp.verify.judge.estimators import Quantity
from adaptive_dp.verify.registry.bounds import ZCDPComposition
from adaptive_dp.verify.registry.twins.interactive import ChargeAnsweredOnly
from adaptive_dp.verify.registry.worst_case import filter_worst

__all__ = ["CLAIMS", "EXACT", "FINE", "InterleavedStopAtWorst", "LaunchAllThenQuery",
           "PureLaunchAllThenQuery"]

_RHO = Fraction(1, 2)
_CHILD_RHO = 1 / 8
_ROUNDS = 3
_LAUNCHES = 12


def _move(paths: int, launch: bool | NDArray[np.bool_], kind: NDArray[np.int8] | int,
          rho: NDArray[np.float64] | float, child: NDArray[np.int64] | int) -> BatchMove:
    return BatchMove(
        np.broadcast_to(np.asarray(launch, dtype=bool), (paths,)),
        np.broadcast_to(np.asarray(kind, dtype=np.int8), (paths,)),
        np.broadcast_to(np.asarray(rho, dtype=np.float64), (paths,)),
        np.full(paths, _ROUNDS, dtype=np.int64),
        np.broadcast_to(np.asarray(child, dtype=np.int64), (paths,)),
    )


@dataclass(frozen=True, slots=True)
class LaunchAllThenQuery:
    """Launch ``launches`` children first (kinds alternating), then query round-robin."""

    launches: int = _LAUNCHES
    child_rho: float = _CHILD_RHO

    @property
    def horizon(self) -> int:
        return self.launches * (1 + _ROUNDS)

    def choose(self, view: BatchChildView, rng: np.random.Generator) -> BatchMove:
        paths = view.launched.shape[0]
        t = view.step
        if t < self.launches:
            kind = GAUSSIAN if t % 2 == 0 else RANDOMIZED_RESPONSE
            return _move(paths, True, kind, self.child_rho, -1)
        n = np.maximum(view.launched, 1)
        child = np.where(view.launched > 0, (t - self.launches) % n, -1)
        return _move(paths, False, GAUSSIAN, 0.0, child)


FINE = LaunchAllThenQuery(36, 1 / 48)
"""The fine-hugging adversary: 36 launches of rho_c = 1/48 (24 fit in rho = 1/2)."""


@dataclass(frozen=True, slots=True)
class InterleavedStopAtWorst:
    """Launch, query, query, ...: the next child's rho_c is 1/4 after a released answer
    above 1/2, else 1/8; each path stops (no more requests) once its running loss
    exceeds ``threshold``."""

    threshold: float = 1.0
    launches: int = 6

    @property
    def horizon(self) -> int:
        return self.launches * 3 + self.launches * _ROUNDS

    def choose(self, view: BatchChildView, rng: np.random.Generator) -> BatchMove:
        paths = view.launched.shape[0]
        t = view.step
        stop = view.loss > self.threshold
        if t < self.launches * 3 and t % 3 == 0:
            big = np.nan_to_num(view.last, nan=0.0) > 0.5
            rho = np.where(big, 0.25, 0.125)
            kind = np.where((t // 3) % 2 == 0, GAUSSIAN, RANDOMIZED_RESPONSE).astype(np.int8)
            return _move(paths, ~stop, kind, rho, -1)
        n = np.maximum(view.launched, 1)
        child = np.where((view.launched > 0) & ~stop, t % n, -1)
        return _move(paths, False, GAUSSIAN, 0.0, child)


@dataclass(frozen=True, slots=True)
class PureLaunchAllThenQuery:
    """Launch ``launches`` randomized-response children of total epsilon ``epsilon``
    (one answer each) before any query, then query round-robin."""

    launches: int = 150
    epsilon: float = 0.15

    @property
    def horizon(self) -> int:
        return 2 * self.launches

    def choose(self, view: BatchChildView, rng: np.random.Generator) -> BatchMove:
        paths = view.launched.shape[0]
        t = view.step
        one = np.ones(paths, dtype=np.int64)
        if t < self.launches:
            return BatchMove(np.ones(paths, dtype=bool),
                             np.full(paths, RANDOMIZED_RESPONSE, dtype=np.int8),
                             np.full(paths, self.epsilon), one, -one)
        n = np.maximum(view.launched, 1)
        child = np.where(view.launched > 0, (t - self.launches) % n, -1)
        return BatchMove(np.zeros(paths, dtype=bool),
                         np.full(paths, RANDOMIZED_RESPONSE, dtype=np.int8),
                         np.zeros(paths), one, child.astype(np.int64))


@dataclass(frozen=True, slots=True)
class _Experiment:
    compositor: BatchConcurrentFilter
    adversary: LaunchAllThenQuery | InterleavedStopAtWorst | PureLaunchAllThenQuery

    def __call__(self, paths: int, rng: np.random.Generator, under: str) -> NDArray[np.float64]:
        return self.compositor.run(self.adversary, paths, rng, under=under).loss


def _setup(compositor: BatchConcurrentFilter,
           adversary: LaunchAllThenQuery | InterleavedStopAtWorst,
           delta: Fraction, note: str) -> Setup:
    epsilon, claimed = ZCDPComposition((_RHO,), delta).claimed()
    return Setup(Quantity.HOCKEY_STICK, epsilon, claimed, _Experiment(compositor, adversary),
                 samples_for(Quantity.HOCKEY_STICK, claimed), note=note)


def _launch_all(profile: str, adversary: LaunchAllThenQuery, odometer: bool) -> Setup:
    """The zCDP filter (or, ``odometer``, the zCDP odometer truncated at rho = 1/2) under
    ``adversary``'s launches before any query. The rule classes are looked up here, when
    a setup is built (the harness-mutation test patches them in this module)."""
    delta = Fraction(profile_delta(profile, 0.05))
    launches = f"{adversary.launches} launches of rho_c=1/{round(1 / adversary.child_rho)}"
    if odometer:
        rule: Rule = AccumulatorFilter(ZCDPAccumulator(), ZCDP(_RHO))
        note = f"zCDP odometer truncated at rho=1/2; {launches} before any query"
    else:
        rule = ZCDPSumFilter(_RHO)
        note = f"{launches} (Gaussian/RR, 3 answers each) before any query, rho=1/2"
    return _setup(BatchConcurrentFilter(rule, adversary.launches), adversary, delta,
                  f"{note}, delta={float(delta)}")


def _hugging(profile: str) -> Setup:
    return _launch_all(profile, LaunchAllThenQuery(), odometer=False)


def _fine(profile: str) -> Setup:
    return _launch_all(profile, FINE, odometer=False)


def _fine_odometer(profile: str) -> Setup:
    return _launch_all(profile, FINE, odometer=True)


def _stop(profile: str) -> Setup:
    delta = Fraction(profile_delta(profile, 0.05))
    return _setup(BatchConcurrentFilter(ZCDPSumFilter(_RHO), _LAUNCHES),
                  InterleavedStopAtWorst(), delta,
                  f"interleaved launches (rho_c 1/8 or 1/4 by the last answer) and queries, "
                  f"stop when L > 1, rho=1/2, delta={float(delta)}")


def _odometer(profile: str) -> Setup:
    return _launch_all(profile, LaunchAllThenQuery(), odometer=True)


def _odometer_twin(profile: str) -> Setup:
    rule = AccumulatorFilter(ZCDPAccumulator(), ZCDP(_RHO))
    return _setup(ChargeAnsweredOnly(rule, _LAUNCHES), LaunchAllThenQuery(), Fraction(1, 20),
                  "charge-answered-only odometer, 12 launches of rho_c=1/8 before any query "
                  "(all admitted: true rho 3/2), delta=0.05")


def _w23_setup(compositor: BatchConcurrentFilter, delta: Fraction, note: str,
               adversary: PureLaunchAllThenQuery = PureLaunchAllThenQuery()) -> Setup:
    claimed = float(delta)
    experiment = _Experiment(compositor, adversary)
    return Setup(Quantity.HOCKEY_STICK, 2.0, claimed, experiment,
                 samples_for(Quantity.HOCKEY_STICK, claimed), note=note)


def _w23(profile: str) -> Setup:
    delta = Fraction(profile_delta(profile, 0.05))
    rule = W23Filter(2, delta=delta)
    return _w23_setup(BatchConcurrentFilter(rule, 150, "epsilon"), delta,
                      f"W23 filter eps=2, delta'={float(delta)}: 150 RR launches of eps_c=0.15 "
                      f"before any query, then every child queried")


EXACT = PureLaunchAllThenQuery(60, 0.1)
"""The exact-worst adversary of H23-Cor3.5: 60 launches of eps_c = 0.1."""


def _w23_exact(profile: str) -> Setup:
    delta = Fraction(profile_delta(profile, 0.05))
    rule = W23Filter(2, delta=delta)
    worst = filter_worst(rule, (EXACT.epsilon,), EXACT.launches, Fraction(2)).upper()
    return replace(_w23_setup(BatchConcurrentFilter(rule, EXACT.launches, "epsilon"), delta,
                              f"W23 filter eps=2, delta'={float(delta)}: 60 RR launches of "
                              f"eps_c=0.1 before any query, then every child queried",
                              EXACT), exact_worst=worst)


def _w23_twin(profile: str) -> Setup:
    rule = W23Filter(2, delta=Fraction(1, 20))
    return _w23_setup(ChargeAnsweredOnly(rule, 150, "epsilon"), Fraction(1, 20),
                      "charge-answered-only compositor, W23 eps=2, delta'=0.05, 150 RR "
                      "launches of eps_c=0.15 before any query (all admitted)")


def _twin(profile: str) -> Setup:
    return _setup(ChargeAnsweredOnly(ZCDPSumFilter(_RHO), _LAUNCHES), LaunchAllThenQuery(),
                  Fraction(1, 20), "charge-answered-only compositor, 12 launches of "
                  "rho_c=1/8 before any query (all admitted: true rho 3/2), delta=0.05")


_CHARGE_ANSWERED = Twin("charge-answered-only",
                        "a child is charged only for the queries answered so far", _twin,
                        "H23-Thm4.10")

_ODOMETER_CHARGE_ANSWERED = Twin("charge-answered-only",
                                 "a child is charged only for the queries answered so far",
                                 _odometer_twin, "H23-Thm4.11")

_W23_CHARGE_ANSWERED = Twin("charge-answered-only",
                            "a child is charged only for the queries answered so far",
                            _w23_twin, "H23-Cor3.5")

CLAIMS: tuple[Claim, ...] = (
    Claim("H23-Thm4.10", "budget-hugging", Quantity.HOCKEY_STICK,
          "concurrent zCDP filter: the whole view of interleaved Gaussian and RR children "
          "is rho-zCDP", _hugging, (_CHARGE_ANSWERED,)),
    Claim("H23-Thm4.10", "stop-at-worst", Quantity.HOCKEY_STICK,
          "concurrent zCDP filter under adaptive parameters and stopping at the worst moment",
          _stop, (_CHARGE_ANSWERED,)),
    Claim("H23-Thm4.11", "budget-hugging", Quantity.HOCKEY_STICK,
          "concurrent zCDP odometer: the view truncated at rho is rho-zCDP",
          _odometer, (_ODOMETER_CHARGE_ANSWERED,)),
    Claim("H23-Cor3.5", "budget-hugging", Quantity.HOCKEY_STICK,
          "the W23 (epsilon, delta) filter lifted to concurrently composed interactive "
          "randomized-response children", _w23, (_W23_CHARGE_ANSWERED,)),
    Claim("H23-Thm4.10", "fine-hugging", Quantity.HOCKEY_STICK,
          "concurrent zCDP filter hugged by children of rho/24", _fine, (_CHARGE_ANSWERED,)),
    Claim("H23-Thm4.11", "fine-hugging", Quantity.HOCKEY_STICK,
          "concurrent zCDP odometer hugged by children of rho/24", _fine_odometer,
          (_ODOMETER_CHARGE_ANSWERED,)),
    Claim("H23-Cor3.5", "exact-worst", Quantity.HOCKEY_STICK,
          "the W23 filter lifted to interactive randomized-response children, against the "
          "exact worst-case launches", _w23_exact, (_W23_CHARGE_ANSWERED,)),
)
