"""zCDP filters: R23-Thm2 (the W23 approximate-zCDP filter, CLI rule ``zcdp``) and
H23-Thm4.10 (the zCDP sum rule, CLI rule ``zcdp-sum``)."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from flint import arb

from adaptive_dp.filters.base import (
    BoolArray,
    FloatArray,
    Rule,
    inflate_up,
)
from adaptive_dp.guarantees.definitions import ZCDP, ApproxDP, Guarantee
from adaptive_dp.numerics import (
    ExactLike,
    arb_of,
    ball_lower,
    ball_upper,
    enclose,
    exact_delta,
    exact_nonnegative,
    exact_positive,
    exact_upper,
    round_down,
)
from adaptive_dp.odometers._coerce import as_zcdp

__all__ = ["ZCDPFilter", "ZCDPSumFilter", "zcdp_filter_bound"]


def zcdp_filter_bound(rho_sum: Fraction, delta_double_prime: Fraction) -> arb:
    """Enclosure of 2 sqrt(log(1/delta'') R) + R, R the sum of the rho_m."""
    if rho_sum == 0:
        return arb(0)
    return enclose(
        lambda: 2 * ((1 / arb_of(delta_double_prime)).log() * arb_of(rho_sum)).sqrt()
        + arb_of(rho_sum)
    )


@dataclass(frozen=True, slots=True, init=False)
class ZCDPFilter(Rule):
    """R23-Thm2 (Whitehouse et al. 2023, as restated in seed 000; alias W23-ZCDPFilter):
    the approximate-zCDP privacy filter.

    For A_n conditionally delta_n-approximate rho_n-zCDP, epsilon > 0, delta >= 0,
    delta'' > 0: "N := inf{n : epsilon < 2 sqrt(log(1/delta'') sum_{m<=n+1} rho_m)
    + sum_{m<=n+1} rho_m  or  delta < sum_{m<=n+1} delta_m}", and A_{1:N} is
    (epsilon, delta + delta'')-DP. Strict inequalities, n+1 look-ahead: the next mechanism
    is admitted iff "2 sqrt(log(1/delta'') R_{n+1}) + R_{n+1} <= epsilon and
    D_{n+1} <= delta". The conclusion carries delta + delta'' (seed 000 also says
    "(epsilon, delta)-privacy filter", an inconsistency noted in the ambiguities list).
    Pure and approximate DP spends enter as epsilon^2/2 (R23-Lem2.3 (i)).
    """

    epsilon: Fraction
    delta: Fraction
    delta_double_prime: Fraction
    SPEC = "R23-Thm2"
    N_SUMS = 2

    def __init__(
        self, epsilon: ExactLike, delta: ExactLike, delta_double_prime: ExactLike
    ) -> None:
        object.__setattr__(self, "epsilon", exact_positive(epsilon, "epsilon"))
        object.__setattr__(self, "delta", exact_delta(delta, "delta"))
        object.__setattr__(
            self,
            "delta_double_prime",
            exact_delta(delta_double_prime, "delta_double_prime", allow_zero=False),
        )

    def _increments(self, spend: object) -> tuple[Fraction, ...]:
        return as_zcdp(spend, "ZCDPFilter", approximate=True)

    def _admits(self, sums: tuple[Fraction, ...]) -> bool:
        if sums[1] > self.delta:
            return False
        return exact_upper(zcdp_filter_bound(sums[0], self.delta_double_prime)) <= self.epsilon

    def _primary_spend(self, value: float, next_delta: Fraction) -> object:
        from adaptive_dp.guarantees.definitions import ApproxZCDP

        return ApproxZCDP(value, next_delta)

    def _max_next(self, sums: tuple[Fraction, ...], next_delta: Fraction) -> float | None:
        if sums[1] + next_delta > self.delta:
            return None
        # R* solves 2 sqrt(c R) + R = epsilon, c = log(1/delta''):
        # sqrt(R*) = sqrt(c + epsilon) - sqrt(c).
        dpp, eps, r = self.delta_double_prime, self.epsilon, sums[0]

        def room() -> arb:
            c = (1 / arb_of(dpp)).log()
            root = (c + arb_of(eps)).sqrt() - c.sqrt()
            return root * root - arb_of(r)

        low = ball_lower(enclose(room))
        return None if low < 0 else low

    def _spent(self, sums: tuple[Fraction, ...]) -> Guarantee:
        bound = ball_upper(zcdp_filter_bound(sums[0], self.delta_double_prime))
        return ApproxDP(bound, self.delta + self.delta_double_prime)

    def _remaining(self, sums: tuple[Fraction, ...]) -> float:
        bound = zcdp_filter_bound(sums[0], self.delta_double_prime)
        eps = self.epsilon
        return ball_lower(enclose(lambda: arb_of(eps) - bound))

    def _fast_increments(self, primary: FloatArray, delta: FloatArray) -> tuple[FloatArray, ...]:
        return (primary, delta)

    def _fast_admits(self, sums: tuple[FloatArray, ...]) -> BoolArray:
        dpp = self.delta_double_prime
        c = ball_upper(enclose(lambda: (1 / arb_of(dpp)).log()))
        r = sums[0]
        bound = inflate_up(2 * np.sqrt(c * r) + r)
        ok: BoolArray = (bound <= round_down(self.epsilon)) & (sums[1] <= round_down(self.delta))
        return ok


@dataclass(frozen=True, slots=True, init=False)
class ZCDPSumFilter(Rule):
    """H23-Thm4.10 (Haney et al. 2023): the zCDP filter
    "F(rho_1, rho_2, ...; rho) = I(sum_i rho_i <= rho)" is a valid rho-zCDP filter
    (for concurrent composition of zCDP interactive mechanisms; a fortiori for
    noninteractive ones). Non-strict, exact rational sums.
    """

    rho: Fraction
    SPEC = "H23-Thm4.10"
    N_SUMS = 1

    def __init__(self, rho: ExactLike) -> None:
        object.__setattr__(self, "rho", exact_nonnegative(rho, "rho"))

    def _increments(self, spend: object) -> tuple[Fraction, ...]:
        return (as_zcdp(spend, "ZCDPSumFilter", approximate=False)[0],)

    def _admits(self, sums: tuple[Fraction, ...]) -> bool:
        return sums[0] <= self.rho

    def _max_next(self, sums: tuple[Fraction, ...], next_delta: Fraction) -> float | None:
        return None if next_delta != 0 else round_down(self.rho - sums[0])

    def _spent(self, sums: tuple[Fraction, ...]) -> Guarantee:
        return ZCDP(sums[0])

    def _remaining(self, sums: tuple[Fraction, ...]) -> float:
        return round_down(self.rho - sums[0])

    def _fast_increments(self, primary: FloatArray, delta: FloatArray) -> tuple[FloatArray, ...]:
        return (primary,)

    def _fast_admits(self, sums: tuple[FloatArray, ...]) -> BoolArray:
        ok: BoolArray = sums[0] <= round_down(self.rho)
        return ok


