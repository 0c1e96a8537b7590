"""The GDP filter (EXT-ST22, Smith-Thakurta): sum of mu_i^2 <= mu^2."""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from flint import arb

from adaptive_dp.filters.base import Rule
from adaptive_dp.guarantees.definitions import GDP, Guarantee
from adaptive_dp.guarantees.lattice import Measure
from adaptive_dp.ledger import Sums
from adaptive_dp.numerics import (
    ExactLike,
    arb_of,
    ball_upper,
    enclose,
    exact_nonnegative,
    round_down,
    sqrt_down,
)
from adaptive_dp.numerics.floats import Flag, Real, mul_up

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
    _mu2_down: float = field(repr=False, compare=False)
    SPEC = "EXT-ST22"
    N_SUMS = 1
    MEASURE = Measure.GDP

    def __init__(self, mu: ExactLike) -> None:
        object.__setattr__(self, "mu", exact_nonnegative(mu, "mu"))
        object.__setattr__(self, "_mu2_down", round_down(self.mu * self.mu))

    def _increments(self, params: Sums) -> Sums:
        return (params[0] * params[0],)

    def _fast_increments(self, primary: Real, delta: Real) -> tuple[Real, ...]:
        return (mul_up(primary, primary),)

    def _admits(self, sums: Sums) -> bool:
        return sums[0] <= self.mu * self.mu

    def _max_next(self, sums: Sums, next_delta: Fraction) -> float | None:
        if next_delta != 0:
            return None
        room = self.mu * self.mu - sums[0]
        return None if room < 0 else sqrt_down(room)

    def _spent_ball(self, sums: Sums) -> arb:
        s = sums[0]
        return enclose(lambda: arb_of(s).sqrt())

    def _spent(self, sums: Sums) -> Guarantee:
        return GDP(ball_upper(self._spent_ball(sums)))

    def _remaining(self, sums: Sums) -> float:
        return sqrt_down(self.mu * self.mu - sums[0])

    def _fast_admits(self, sums: tuple[Real, ...]) -> Flag:
        return sums[0] <= self._mu2_down
