"""The RDP filter at a fixed order: H23-Thm4.6 with H23-Lem4.7 (Feldman-Zrnic); and on a
grid of orders, every order within its budget (EXT-Lecuyer21)."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from adaptive_dp.errors import expect_type
from adaptive_dp.filters.from_accumulator import AccumulatorFilter
from adaptive_dp.guarantees.definitions import RDP, RDPCurve
from adaptive_dp.numerics import ExactLike
from adaptive_dp.odometers.accumulators import RDPAccumulator, RDPCurveAccumulator

__all__ = ["RDPCurveFilter", "RDPFilter"]


@dataclass(frozen=True, slots=True, init=False)
class RDPFilter(AccumulatorFilter):
    """H23-Thm4.6 (= H23-Thm1.22; Feldman-Zrnic), via H23-Lem4.7: at a fixed order
    alpha > 1, "F(epsilon_1, epsilon_2, ...; epsilon) = I(sum_i epsilon_i <= epsilon)" is a
    valid RDP_alpha filter. The next (alpha, epsilon_{k+1})-RDP mechanism is admitted iff
    "sum_{i <= k+1} epsilon_i <= epsilon" (non-strict, exact sums): the filter of the
    H23-Thm4.9 accumulator (H23-Lem2.19). Lem 4.7's truncation F_K (halt after K
    mechanisms) is the finite step of the proof; the rule shipped is its K -> infinity
    limit (Lem 4.8). zCDP spends (and pure DP through zCDP) enter as rho alpha
    (H23-Def4.4).
    """

    SPEC = "H23-Thm4.6"

    def __init__(self, alpha: ExactLike, epsilon: ExactLike) -> None:
        accumulator = RDPAccumulator(alpha)
        AccumulatorFilter.__init__(self, accumulator, RDP(accumulator.alpha, epsilon))

    @property
    def alpha(self) -> Fraction:
        """The Rényi order."""
        acc = self.accumulator
        assert isinstance(acc, RDPAccumulator)
        return acc.alpha

    @property
    def epsilon(self) -> Fraction:
        """The RDP budget at ``alpha``."""
        return self._params[0]


@dataclass(frozen=True, slots=True, init=False)
class RDPCurveFilter(AccumulatorFilter):
    """EXT-Lecuyer21 (every-order rule): the H23-Lem2.19 filter of the
    :class:`~adaptive_dp.odometers.accumulators.RDPCurveAccumulator` on the grid of
    ``budget``'s orders. The next spend is admitted iff at EVERY order alpha_j of the grid
    "sum_{i <= k+1} epsilon_i(alpha_j) <= epsilon(alpha_j)" (non-strict, exact sums); the
    stopped interaction is (alpha_j, epsilon(alpha_j))-RDP at every order, hence
    ``rdp_to_dp(budget, delta)`` (the best order) for every delta. The rule that admits
    while SOME order is within its budget is not this one (see the proof file).
    ``max_next`` is in zCDP rho.
    """

    SPEC = "EXT-Lecuyer21"

    def __init__(self, budget: RDPCurve) -> None:
        expect_type(budget, RDPCurve, "budget")
        AccumulatorFilter.__init__(self, RDPCurveAccumulator(budget.orders), budget)

    @property
    def alphas(self) -> tuple[Fraction, ...]:
        """The grid of orders, increasing."""
        acc = self.accumulator
        assert isinstance(acc, RDPCurveAccumulator)
        return acc.alphas
