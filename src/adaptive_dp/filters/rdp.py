"""The RDP filter at a fixed order: H23-Thm4.6 with H23-Lem4.7 (Feldman-Zrnic)."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from adaptive_dp.filters.from_accumulator import AccumulatorFilter
from adaptive_dp.guarantees.definitions import RDP
from adaptive_dp.numerics import ExactLike
from adaptive_dp.odometers.accumulators import RDPAccumulator

__all__ = ["RDPFilter"]


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
