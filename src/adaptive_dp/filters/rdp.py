"""The RDP filter at a fixed order: H23-Thm4.6 with H23-Lem4.7 (Feldman-Zrnic)."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from adaptive_dp.errors import OrderError
from adaptive_dp.filters.base import BoolArray, FloatArray, Rule
from adaptive_dp.guarantees.definitions import RDP, Guarantee
from adaptive_dp.numerics import ExactLike, exact, exact_nonnegative, round_down
from adaptive_dp.odometers._coerce import as_rdp

__all__ = ["RDPFilter"]


@dataclass(frozen=True, slots=True, init=False)
class RDPFilter(Rule):
    """H23-Thm4.6 (= H23-Thm1.22; Feldman-Zrnic), via H23-Lem4.7: at a fixed order
    alpha > 1, "F(epsilon_1, epsilon_2, ...; epsilon) = I(sum_i epsilon_i <= epsilon)" is a
    valid RDP_alpha filter. The next (alpha, epsilon_{k+1})-RDP mechanism is admitted iff
    "sum_{i <= k+1} epsilon_i <= epsilon" (non-strict, exact sums). Lem 4.7's truncation
    F_K (halt after K mechanisms) is the finite step of the proof; the rule shipped is
    its K -> infinity limit (Lem 4.8). zCDP spends enter as rho alpha (H23-Def4.4).
    """

    alpha: Fraction
    epsilon: Fraction
    SPEC = "H23-Thm4.6"
    N_SUMS = 1

    def __init__(self, alpha: ExactLike, epsilon: ExactLike) -> None:
        a = exact(alpha, "alpha")
        if a <= 1:
            raise OrderError("alpha", alpha, "a Rényi order alpha > 1")
        object.__setattr__(self, "alpha", a)
        object.__setattr__(self, "epsilon", exact_nonnegative(epsilon, "epsilon"))

    def _increments(self, spend: object) -> tuple[Fraction, ...]:
        return (as_rdp(spend, self.alpha, "RDPFilter"),)

    def _admits(self, sums: tuple[Fraction, ...]) -> bool:
        return sums[0] <= self.epsilon

    def _max_next(self, sums: tuple[Fraction, ...], next_delta: Fraction) -> float | None:
        return None if next_delta != 0 else round_down(self.epsilon - sums[0])

    def _spent(self, sums: tuple[Fraction, ...]) -> Guarantee:
        return RDP(self.alpha, sums[0])

    def _remaining(self, sums: tuple[Fraction, ...]) -> float:
        return round_down(self.epsilon - sums[0])

    def _fast_increments(self, primary: FloatArray, delta: FloatArray) -> tuple[FloatArray, ...]:
        return (primary,)

    def _fast_admits(self, sums: tuple[FloatArray, ...]) -> BoolArray:
        ok: BoolArray = sums[0] <= round_down(self.epsilon)
        return ok
