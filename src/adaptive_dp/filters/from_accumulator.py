"""H23-Lem2.19: a privacy-loss accumulator G gives the filter F(.; d) = I(G(.) <= d)."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from adaptive_dp.filters.base import BoolArray, FloatArray, Rule
from adaptive_dp.guarantees.definitions import Guarantee
from adaptive_dp.numerics.search import bisect_increasing
from adaptive_dp.odometers.accumulators import Accumulator, Exhausted

__all__ = ["AccumulatorFilter"]


@dataclass(frozen=True, slots=True)
class AccumulatorFilter(Rule):
    """H23-Lem2.19 (Haney et al., Lemma B.1): "G is a valid privacy-loss accumulator if
    and only if F(.; d) = I(G(.) <= d) is a valid filter" for every budget d fixed in
    advance. The next spend is admitted iff the accumulator's certified reading including
    it is <= ``budget`` (n+1 look-ahead, non-strict). ``max_next`` searches the primary
    parameter by bisection on the certified decision.
    """

    accumulator: Accumulator
    budget: object
    SPEC = "H23-Lem2.19"

    @property
    def N_SUMS(self) -> int:  # type: ignore[override]  # the accumulator's arity
        return self.accumulator.N_SUMS

    def _increments(self, spend: object) -> tuple[Fraction, ...]:
        return self.accumulator._increments(spend)

    def _admits(self, sums: tuple[Fraction, ...]) -> bool:
        return self.accumulator._within(sums, self.budget)

    def _primary_spend(self, value: float, next_delta: Fraction) -> object:
        return (value, next_delta) if self.accumulator.N_SUMS == 2 else value

    def _max_next(self, sums: tuple[Fraction, ...], next_delta: Fraction) -> float | None:
        def refused(x: float) -> float:
            inc = self._increments(self._primary_spend(x, next_delta))
            after = tuple(a + b for a, b in zip(sums, inc, strict=True))
            return 0.0 if self._admits(after) else 1.0

        if refused(0.0) > 0:
            return None
        hi = 1.0
        while refused(hi) == 0.0 and hi < 2.0**60:
            hi *= 2
        return bisect_increasing(refused, 0.0, hi, 0.5, iterations=80)

    def _spent(self, sums: tuple[Fraction, ...]) -> Guarantee:
        reading = self.accumulator._reading(sums)
        if isinstance(reading, Exhausted):  # pragma: no cover - never admitted
            raise ValueError("the accumulator is exhausted")
        return reading

    def _remaining(self, sums: tuple[Fraction, ...]) -> float:
        return self._max_next(sums, Fraction(0)) or 0.0

    def _fast_increments(self, primary: FloatArray, delta: FloatArray) -> tuple[FloatArray, ...]:
        return self.accumulator._fast_increments(primary, delta)

    def _fast_admits(self, sums: tuple[FloatArray, ...]) -> BoolArray:
        return self.accumulator._fast_within(sums, self.budget)
