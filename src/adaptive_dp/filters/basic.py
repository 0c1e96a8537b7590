"""Filters whose condition is a sum of rational parameters against the budget.

CS2080-PureDPFilter (a reconstruction: the slide's algorithm box is an image) and the
basic approximate-DP filter (CS2080-BasicComp read as a continuation rule). Both keep
exact rational running sums and compare exactly, so "0.1" then "0.9" exhausts "1".
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from adaptive_dp.filters.base import BoolArray, FloatArray, Rule
from adaptive_dp.guarantees.definitions import ApproxDP, Guarantee, PureDP
from adaptive_dp.numerics import ExactLike, exact_delta, exact_nonnegative, round_down
from adaptive_dp.odometers._coerce import as_approx, as_pure

__all__ = ["BasicFilter", "PureDPFilter"]


@dataclass(frozen=True, slots=True, init=False)
class PureDPFilter(Rule):
    """CS2080-PureDPFilter (reconstruction): the pure-DP budget filter.

    Condition implemented (non-strict, n+1 look-ahead): admit the next
    epsilon_{k+1}-DP mechanism iff "sum_{i <= k+1} epsilon_i <= epsilon". The stopped
    composition is epsilon-DP (proof: proofs/CS2080-PureDPFilter.md). Refuse-and-continue
    is post-processing: the refusal depends only on public parameters.
    """

    epsilon: Fraction
    SPEC = "CS2080-PureDPFilter"
    N_SUMS = 1

    def __init__(self, epsilon: ExactLike) -> None:
        object.__setattr__(self, "epsilon", exact_nonnegative(epsilon, "epsilon"))

    def _increments(self, spend: object) -> tuple[Fraction, ...]:
        return (as_pure(spend, "PureDPFilter"),)

    def _admits(self, sums: tuple[Fraction, ...]) -> bool:
        return sums[0] <= self.epsilon

    def _max_next(self, sums: tuple[Fraction, ...], next_delta: Fraction) -> float | None:
        if next_delta != 0:
            return None
        return round_down(self.epsilon - sums[0])

    def _spent(self, sums: tuple[Fraction, ...]) -> Guarantee:
        return PureDP(sums[0])

    def _remaining(self, sums: tuple[Fraction, ...]) -> float:
        return round_down(self.epsilon - sums[0])

    def _fast_increments(self, primary: FloatArray, delta: FloatArray) -> tuple[FloatArray, ...]:
        if np.any(delta != 0):
            raise ValueError("PureDPFilter takes pure spends: every delta must be 0")
        return (primary,)

    def _fast_admits(self, sums: tuple[FloatArray, ...]) -> BoolArray:
        ok: BoolArray = sums[0] <= round_down(self.epsilon)
        return ok


@dataclass(frozen=True, slots=True, init=False)
class BasicFilter(Rule):
    """CS2080-BasicComp / RRUV16-BasicFilter as a continuation rule: the basic approximate-DP
    filter.

    Condition implemented (non-strict, n+1 look-ahead): admit the next
    (epsilon_{k+1}, delta_{k+1})-DP mechanism iff "sum_{i <= k+1} epsilon_i <= epsilon and
    sum_{i <= k+1} delta_i <= delta". The stopped composition is (epsilon, delta)-DP with
    adaptively chosen parameters (RRUV16's basic filter; proof:
    proofs/CS2080-PureDPFilter.md, step 4).
    """

    epsilon: Fraction
    delta: Fraction
    SPEC = "CS2080-BasicComp"
    N_SUMS = 2

    def __init__(self, epsilon: ExactLike, delta: ExactLike = 0) -> None:
        object.__setattr__(self, "epsilon", exact_nonnegative(epsilon, "epsilon"))
        object.__setattr__(self, "delta", exact_delta(delta, "delta"))

    def _increments(self, spend: object) -> tuple[Fraction, ...]:
        return as_approx(spend, "BasicFilter")

    def _admits(self, sums: tuple[Fraction, ...]) -> bool:
        return sums[0] <= self.epsilon and sums[1] <= self.delta

    def _primary_spend(self, value: float, next_delta: Fraction) -> object:
        return (value, next_delta)

    def _max_next(self, sums: tuple[Fraction, ...], next_delta: Fraction) -> float | None:
        if sums[1] + next_delta > self.delta:
            return None
        return round_down(self.epsilon - sums[0])

    def _spent(self, sums: tuple[Fraction, ...]) -> Guarantee:
        return ApproxDP(sums[0], sums[1])

    def _remaining(self, sums: tuple[Fraction, ...]) -> float:
        return round_down(self.epsilon - sums[0])

    def _fast_increments(self, primary: FloatArray, delta: FloatArray) -> tuple[FloatArray, ...]:
        return (primary, delta)

    def _fast_admits(self, sums: tuple[FloatArray, ...]) -> BoolArray:
        ok: BoolArray = (sums[0] <= round_down(self.epsilon)) & (
            sums[1] <= round_down(self.delta)
        )
        return ok
