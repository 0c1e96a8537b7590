"""The GDP filter (EXT-ST22, Smith-Thakurta): sum of mu_i^2 <= mu^2, the filter of the
GDP accumulator (EXT-GDPAccumulator) through H23-Lem2.19."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from adaptive_dp.filters.from_accumulator import AccumulatorFilter
from adaptive_dp.guarantees.definitions import GDP
from adaptive_dp.numerics import ExactLike
from adaptive_dp.odometers.accumulators import GDPAccumulator

__all__ = ["GDPFilter"]


@dataclass(frozen=True, slots=True, init=False)
class GDPFilter(AccumulatorFilter):
    """EXT-ST22 (Smith-Thakurta, fully adaptive GDP composition): for mechanisms that are
    conditionally mu_i-GDP with mu_i chosen adaptively, the rule "continue while
    sum_{i <= k+1} mu_i^2 <= mu^2" gives a mu-GDP stopped composition. Non-strict,
    n+1 look-ahead, exact rational sums of mu_i^2 (EXT: not in a seed; proof file
    proofs/EXT-ST22.md). It is I(G <= mu) for the GDP accumulator
    :class:`~adaptive_dp.odometers.accumulators.GDPAccumulator` (EXT-GDPAccumulator).
    """

    SPEC = "EXT-ST22"

    def __init__(self, mu: ExactLike) -> None:
        AccumulatorFilter.__init__(self, GDPAccumulator(), GDP(mu))

    @property
    def mu(self) -> Fraction:
        """The mu budget."""
        budget = self.budget
        assert isinstance(budget, GDP)
        return budget.mu
