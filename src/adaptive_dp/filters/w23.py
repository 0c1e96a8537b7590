"""The W23 (epsilon, delta) privacy filter (primary id H23-ThmB.3).

Aliases: H23-Thm3.7 (printed with the inequality reversed; the printed form is the
refuted item H23-Thm3.7-Printed, reproduced only by a negative control overriding the
private hook ``_epsilon_ok``) and W23-Filter (the poster's P7).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from flint import arb

from adaptive_dp.errors import DeltaRangeError
from adaptive_dp.filters.base import (
    BoolArray,
    FloatArray,
    Rule,
    inflate_up,
    mul_up,
    sqrt_down,
)
from adaptive_dp.guarantees.definitions import ApproxDP, Guarantee
from adaptive_dp.numerics import (
    ExactLike,
    arb_of,
    ball_lower,
    ball_upper,
    enclose,
    exact_delta,
    exact_positive,
    exact_upper,
    round_down,
)
from adaptive_dp.odometers._coerce import as_approx

__all__ = ["W23Filter", "w23_bound"]


def w23_bound(sum_sq: Fraction, delta_prime: Fraction) -> arb:
    """Enclosure of sqrt(2 log(1/delta') V) + V/2 with V = sum of epsilon_m^2."""
    if sum_sq == 0:
        return arb(0)
    return enclose(
        lambda: (2 * (1 / arb_of(delta_prime)).log() * arb_of(sum_sq)).sqrt()
        + arb_of(sum_sq) / 2
    )


@dataclass(frozen=True, slots=True, init=False)
class W23Filter(Rule):
    """H23-ThmB.3 (Whitehouse-Ramdas-Rogers-Wu 2023, restated by Haney et al.): the
    (epsilon, delta) filter for conditionally (epsilon_m, delta_m)-DP mechanisms.

    With delta = delta' + delta'', delta' > 0, delta'' >= 0, the stopping time is
    "N := inf{k : epsilon < sqrt(2 log(1/delta') sum_{m<=k+1} epsilon_m^2)
    + 1/2 sum_{m<=k+1} epsilon_m^2  or  delta'' < sum_{m<=k+1} delta_m}", and
    Comp(M_1, ..., M_N) is (epsilon, delta)-DP. So the next mechanism is admitted iff
    "sqrt(2 log(1/delta') V_{k+1}) + V_{k+1}/2 <= epsilon and sum_{m<=k+1} delta_m <=
    delta''" (equality admitted; the corrected direction of H23-Thm3.7, ambiguity A30).
    The epsilon test is certified: an enclosure straddling the budget halts.
    """

    epsilon: Fraction
    delta_prime: Fraction
    delta_double_prime: Fraction
    SPEC = "H23-ThmB.3"
    N_SUMS = 2

    def __init__(
        self, epsilon: ExactLike, delta_prime: ExactLike, delta_double_prime: ExactLike = 0
    ) -> None:
        object.__setattr__(self, "epsilon", exact_positive(epsilon, "epsilon"))
        dp = exact_delta(delta_prime, "delta_prime", allow_zero=False)
        dpp = exact_delta(delta_double_prime, "delta_double_prime")
        if dp + dpp >= 1:
            raise DeltaRangeError("delta_prime + delta_double_prime", dp + dpp, "< 1")
        object.__setattr__(self, "delta_prime", dp)
        object.__setattr__(self, "delta_double_prime", dpp)

    @property
    def delta(self) -> Fraction:
        """The total delta = delta' + delta'' of the conclusion."""
        return self.delta_prime + self.delta_double_prime

    def _increments(self, spend: object) -> tuple[Fraction, ...]:
        eps, delta = as_approx(spend, "W23Filter")
        return (eps * eps, delta)

    def _epsilon_ok(self, bound: arb) -> bool:
        """Certified "bound <= epsilon" (private hook: the printed H23-Thm3.7 twin
        reverses it)."""
        return exact_upper(bound) <= self.epsilon

    def _admits(self, sums: tuple[Fraction, ...]) -> bool:
        if sums[1] > self.delta_double_prime:
            return False
        return self._epsilon_ok(w23_bound(sums[0], self.delta_prime))

    def _primary_spend(self, value: float, next_delta: Fraction) -> object:
        return (value, next_delta)

    def _max_next(self, sums: tuple[Fraction, ...], next_delta: Fraction) -> float | None:
        if sums[1] + next_delta > self.delta_double_prime:
            return None
        # V* solves sqrt(2 c V) + V/2 = epsilon, c = log(1/delta'):
        # sqrt(V*) = sqrt(2 c + 2 epsilon) - sqrt(2 c).
        dp, eps, v = self.delta_prime, self.epsilon, sums[0]

        def room() -> arb:
            c2 = 2 * (1 / arb_of(dp)).log()
            root = (c2 + 2 * arb_of(eps)).sqrt() - c2.sqrt()
            return root * root - arb_of(v)

        ball = enclose(room)
        low = ball_lower(ball)
        if low < 0:
            return None
        return sqrt_down(low)

    def _spent(self, sums: tuple[Fraction, ...]) -> Guarantee:
        return ApproxDP(ball_upper(w23_bound(sums[0], self.delta_prime)), self.delta)

    def _remaining(self, sums: tuple[Fraction, ...]) -> float:
        bound = w23_bound(sums[0], self.delta_prime)
        eps = self.epsilon
        return ball_lower(enclose(lambda: arb_of(eps) - bound))

    def _fast_increments(self, primary: FloatArray, delta: FloatArray) -> tuple[FloatArray, ...]:
        return (mul_up(primary, primary), delta)

    def _fast_admits(self, sums: tuple[FloatArray, ...]) -> BoolArray:
        dp = self.delta_prime
        c2 = ball_upper(enclose(lambda: 2 * (1 / arb_of(dp)).log()))
        v = sums[0]
        bound = inflate_up(np.sqrt(c2 * v) + v / 2)
        ok: BoolArray = (bound <= round_down(self.epsilon)) & (
            sums[1] <= round_down(self.delta_double_prime)
        )
        return ok

