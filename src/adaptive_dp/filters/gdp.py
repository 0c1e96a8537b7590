"""The GDP filter (EXT-ST22, Smith-Thakurta): sum of mu_i^2 <= mu^2."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from adaptive_dp.filters.base import BoolArray, FloatArray, Rule, mul_up, sqrt_down
from adaptive_dp.guarantees.definitions import GDP, Guarantee
from adaptive_dp.numerics import (
    ExactLike,
    arb_of,
    ball_upper,
    enclose,
    exact_nonnegative,
    round_down,
)
from adaptive_dp.odometers._coerce import as_gdp

__all__ = ["GDPFilter"]


@dataclass(frozen=True, slots=True, init=False)
class GDPFilter(Rule):
    """EXT-ST22 (Smith-Thakurta, fully adaptive GDP composition): for mechanisms that are
    conditionally mu_i-GDP with mu_i chosen adaptively, the rule "continue while
    sum_{i <= k+1} mu_i^2 <= mu^2" gives a mu-GDP stopped composition. Non-strict,
    n+1 look-ahead, exact rational sums of mu_i^2 (EXT: not in a seed; proof file
    proofs/EXT-ST22.md).
    """

    mu: Fraction
    SPEC = "EXT-ST22"
    N_SUMS = 1

    def __init__(self, mu: ExactLike) -> None:
        object.__setattr__(self, "mu", exact_nonnegative(mu, "mu"))

    def _increments(self, spend: object) -> tuple[Fraction, ...]:
        m = as_gdp(spend, "GDPFilter")
        return (m * m,)

    def _admits(self, sums: tuple[Fraction, ...]) -> bool:
        return sums[0] <= self.mu * self.mu

    def _max_next(self, sums: tuple[Fraction, ...], next_delta: Fraction) -> float | None:
        if next_delta != 0:
            return None
        room = self.mu * self.mu - sums[0]
        return None if room < 0 else sqrt_down(room)

    def _spent(self, sums: tuple[Fraction, ...]) -> Guarantee:
        s = sums[0]
        return GDP(ball_upper(enclose(lambda: arb_of(s).sqrt())))

    def _remaining(self, sums: tuple[Fraction, ...]) -> float:
        room = self.mu * self.mu - sums[0]
        return sqrt_down(room)

    def _fast_increments(self, primary: FloatArray, delta: FloatArray) -> tuple[FloatArray, ...]:
        return (mul_up(primary, primary),)

    def _fast_admits(self, sums: tuple[FloatArray, ...]) -> BoolArray:
        ok: BoolArray = sums[0] <= round_down(self.mu * self.mu)
        return ok
