"""Filters whose condition is a sum of rational parameters against the budget.

CS2080-PureDPFilter (a reconstruction: the slide's algorithm box is an image) and the
basic approximate-DP filter (CS2080-BasicComp read as a continuation rule, the filter of
its accumulator through H23-Lem2.19). Both keep exact rational running sums and compare
exactly, so "0.1" then "0.9" exhausts "1".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from adaptive_dp.filters.base import Rule
from adaptive_dp.filters.from_accumulator import AccumulatorFilter, ApproxBudgetFilter
from adaptive_dp.guarantees.definitions import ApproxDP, Guarantee, PureDP
from adaptive_dp.guarantees.lattice import Measure
from adaptive_dp.ledger import Sums
from adaptive_dp.numerics import ExactLike, exact_nonnegative, round_down
from adaptive_dp.numerics.floats import Flag, Real, sub_down
from adaptive_dp.odometers.accumulators import BasicAccumulator

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
    _epsilon_down: float = field(repr=False, compare=False)
    SPEC = "CS2080-PureDPFilter"
    N_SUMS = 1
    MEASURE = Measure.PURE

    def __init__(self, epsilon: ExactLike) -> None:
        object.__setattr__(self, "epsilon", exact_nonnegative(epsilon, "epsilon"))
        object.__setattr__(self, "_epsilon_down", round_down(self.epsilon))

    def _admits(self, sums: Sums) -> bool:
        return sums[0] <= self.epsilon

    def _max_next(self, sums: Sums, next_delta: Fraction) -> float | None:
        if next_delta != 0:
            return None
        return round_down(self.epsilon - sums[0])

    def _spent(self, sums: Sums) -> Guarantee:
        return PureDP(sums[0])

    def _remaining(self, sums: Sums) -> float:
        return round_down(self.epsilon - sums[0])

    def _fast_admits(self, sums: tuple[Real, ...]) -> Flag:
        return sums[0] <= self._epsilon_down

    def _fast_remaining(self, sums: tuple[Real, ...]) -> Real | None:
        return sub_down(self._epsilon_down, sums[0])

    def _fast_max_next(self, sums: tuple[Real, ...], next_delta: Real) -> Real | None:
        return sub_down(self._epsilon_down, sums[0])


@dataclass(frozen=True, slots=True, init=False)
class BasicFilter(ApproxBudgetFilter):
    """CS2080-BasicComp / RRUV16-BasicFilter as a continuation rule: the basic approximate-DP
    filter, the filter of :class:`~adaptive_dp.odometers.BasicAccumulator` (H23-Lem2.19).

    Condition implemented (non-strict, n+1 look-ahead): admit the next
    (epsilon_{k+1}, delta_{k+1})-DP mechanism iff "sum_{i <= k+1} epsilon_i <= epsilon and
    sum_{i <= k+1} delta_i <= delta". The stopped composition is (epsilon, delta)-DP with
    adaptively chosen parameters (RRUV16's basic filter; proof:
    proofs/CS2080-PureDPFilter.md, step 4).
    """

    SPEC = "CS2080-BasicComp"

    def __init__(self, epsilon: ExactLike, *, delta: ExactLike = 0) -> None:
        AccumulatorFilter.__init__(self, BasicAccumulator(), ApproxDP(epsilon, delta))

