"""H23-Lem2.19: a privacy-loss accumulator G gives the filter F(.; d) = I(G(.) <= d)."""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from flint import arb

from adaptive_dp.errors import expect_type
from adaptive_dp.filters.base import Rule
from adaptive_dp.guarantees.definitions import Guarantee
from adaptive_dp.guarantees.lattice import Measure
from adaptive_dp.guarantees.spends import Spend
from adaptive_dp.ledger import Sums
from adaptive_dp.numerics.floats import Flag, Real
from adaptive_dp.numerics.search import bisect_increasing
from adaptive_dp.odometers.accumulators import Accumulator, Exhausted

__all__ = ["AccumulatorFilter", "ApproxBudgetFilter"]


@dataclass(frozen=True, slots=True, init=False)
class AccumulatorFilter(Rule):
    """H23-Lem2.19 (Haney et al., Lemma B.1): "G is a valid privacy-loss accumulator if
    and only if F(.; d) = I(G(.) <= d) is a valid filter" for every budget d fixed in
    advance. The next spend is admitted iff the accumulator's certified reading including
    it is <= ``budget`` (n+1 look-ahead, non-strict). The ledger is the accumulator's:
    its sums, its supported kinds, its increments. ``max_next`` takes the accumulator's
    closed form where it has one, else bisects the primary parameter on the certified
    decision.
    """

    accumulator: Accumulator
    budget: Guarantee
    _params: Sums = field(repr=False, compare=False)
    _fast_params: tuple[float, ...] = field(repr=False, compare=False)
    SPEC = "H23-Lem2.19"

    def __init__(self, accumulator: Accumulator, budget: Guarantee) -> None:
        expect_type(accumulator, Accumulator, "accumulator")
        object.__setattr__(self, "accumulator", accumulator)
        object.__setattr__(self, "budget", budget)
        params = accumulator.budget_of(budget)
        object.__setattr__(self, "_params", params)
        object.__setattr__(self, "_fast_params", accumulator._fast_budget(params))

    @property
    def N_SUMS(self) -> int:  # type: ignore[override]  # the accumulator's arity
        return self.accumulator.N_SUMS

    @property
    def MEASURE(self) -> Measure:  # type: ignore[override]  # the accumulator's measure
        return self.accumulator.MEASURE

    @property
    def DELTA_TOP(self) -> float:  # type: ignore[override]  # the accumulator's
        return self.accumulator.DELTA_TOP

    def _alpha(self) -> Fraction | None:
        return self.accumulator._alpha()

    def _charge(self, spend: Spend) -> Sums | None:
        return self.accumulator._charge(spend)

    def _fast_increments(self, primary: Real, delta: Real) -> tuple[Real, ...]:
        return self.accumulator._fast_increments(primary, delta)

    def _admits(self, sums: Sums) -> bool:
        return self.accumulator._within(sums, self._params)

    def _max_next(self, sums: Sums, next_delta: Fraction) -> float | None:
        room = self.accumulator._room(sums, self._params, next_delta)
        if room is not None:
            return room

        def refused(x: float) -> float:
            spend = self.primary(x, next_delta)
            if spend is None:
                return 1.0
            after = self._combine(sums, self.increments(spend))
            return 0.0 if self._admits(after) else 1.0

        if refused(0.0) > 0:
            return None
        hi = 1.0
        while refused(hi) == 0.0 and hi < 2.0**60:
            hi *= 2
        return bisect_increasing(refused, 0.0, hi, 0.5, iterations=80)

    def _spent(self, sums: Sums) -> Guarantee:
        reading = self.accumulator._reading(sums)
        if isinstance(reading, Exhausted):  # pragma: no cover - never admitted
            raise ValueError("the accumulator is exhausted")
        return reading

    def _remaining(self, sums: Sums) -> float:
        return self._max_next(sums, Fraction(0)) or 0.0

    def _fast_admits(self, sums: tuple[Real, ...]) -> Flag:
        return self.accumulator._fast_within(sums, self._fast_params)

    def _straddles(self, sums: Sums) -> bool:
        return self.accumulator._straddles(sums, self._params)

    def _spent_ball(self, sums: Sums) -> arb | None:
        return self.accumulator._reading_ball(sums)


class ApproxBudgetFilter(AccumulatorFilter):
    """An H23-Lem2.19 filter whose budget is an (epsilon, delta) guarantee."""

    __slots__ = ()

    @property
    def epsilon(self) -> Fraction:
        """The epsilon budget."""
        return self._params[0]

    @property
    def delta(self) -> Fraction:
        """The delta of the budget: the conclusion's delta."""
        return self._params[1]
