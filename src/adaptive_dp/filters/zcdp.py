"""zCDP filters: R23-Thm2 (the W23 approximate-zCDP filter, CLI rule ``zcdp``) and
H23-Thm4.10 (the zCDP sum rule, CLI rule ``zcdp-sum``, the filter of the H23-Thm4.11
accumulator through H23-Lem2.19)."""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from flint import arb

from adaptive_dp.filters.base import Rule
from adaptive_dp.filters.from_accumulator import AccumulatorFilter
from adaptive_dp.guarantees.bounds import BunSteinkeBound
from adaptive_dp.guarantees.definitions import ZCDP, ApproxDP, Guarantee
from adaptive_dp.guarantees.lattice import Measure
from adaptive_dp.ledger import Sums
from adaptive_dp.numerics import (
    ExactLike,
    arb_of,
    ball_lower,
    ball_upper,
    enclose,
    exact_delta_split,
    exact_lower,
    exact_positive,
    exact_upper,
    round_down,
)
from adaptive_dp.numerics.floats import Flag, Real, both, select, sub_down
from adaptive_dp.odometers.accumulators import ZCDPAccumulator

__all__ = ["ZCDPFilter", "ZCDPSumFilter"]


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
    Pure and approximate DP spends enter as epsilon^2/2 (R23-Lem2.3 (i)). The bound is
    :class:`~adaptive_dp.guarantees.bounds.BunSteinkeBound`.
    """

    epsilon: Fraction
    delta: Fraction
    delta_slack: Fraction
    delta_budget: Fraction = field(repr=False, compare=False)
    bound: BunSteinkeBound = field(repr=False, compare=False)
    _fast: tuple[float, float, float] = field(repr=False, compare=False)
    SPEC = "R23-Thm2"
    N_SUMS = 2
    MEASURE = Measure.APPROX_ZCDP

    def __init__(
        self, epsilon: ExactLike, *, delta: ExactLike, delta_slack: ExactLike | None = None
    ) -> None:
        """``delta`` is the conclusion's delta + delta''; ``delta_slack`` is delta''
        (default: all of ``delta``), and the paper's delta = delta - delta_slack caps the
        sum of the mechanisms' deltas (``delta_budget``)."""
        object.__setattr__(self, "epsilon", exact_positive(epsilon, "epsilon"))
        total, slack = exact_delta_split(delta, delta_slack)
        object.__setattr__(self, "delta", total)
        object.__setattr__(self, "delta_slack", slack)
        object.__setattr__(self, "delta_budget", total - slack)
        object.__setattr__(self, "bound", BunSteinkeBound(slack))
        eps = self.epsilon
        rho_star = ball_lower(self.bound.room(eps))
        object.__setattr__(
            self, "_fast", (round_down(eps), round_down(self.delta_budget), rho_star)
        )

    def _admits(self, sums: Sums) -> bool:
        if sums[1] > self.delta_budget:
            return False
        return exact_upper(self.bound.ball(sums[0])) <= self.epsilon

    def _max_next(self, sums: Sums, next_delta: Fraction) -> float | None:
        if sums[1] + next_delta > self.delta_budget:
            return None
        eps, r = self.epsilon, sums[0]
        low = ball_lower(enclose(lambda: self.bound.room(eps) - arb_of(r)))
        return None if low < 0 else low

    def _straddles(self, sums: Sums) -> bool:
        return sums[1] <= self.delta_budget and exact_lower(
            self.bound.ball(sums[0])) <= self.epsilon

    def _spent_ball(self, sums: Sums) -> arb:
        return self.bound.ball(sums[0])

    def _spent(self, sums: Sums) -> Guarantee:
        return ApproxDP(ball_upper(self._spent_ball(sums)), self.delta)

    def _remaining_ball(self, sums: Sums) -> arb:
        bound = self.bound.ball(sums[0])
        eps = self.epsilon
        return enclose(lambda: arb_of(eps) - bound)

    def _remaining(self, sums: Sums) -> float:
        return ball_lower(self._remaining_ball(sums))

    def _fast_admits(self, sums: tuple[Real, ...]) -> Flag:
        eps, delta, _ = self._fast
        return both(self.bound.upper(sums[0]) <= eps, sums[1] <= delta)

    def _fast_max_next(self, sums: tuple[Real, ...], next_delta: Real) -> Real | None:
        _, delta, rho_star = self._fast
        room = sub_down(rho_star, sums[0])
        return select(sums[1] + next_delta <= delta, room, -1.0)

    def _fast_remaining(self, sums: tuple[Real, ...]) -> Real | None:
        return sub_down(self._fast[0], self.bound.upper(sums[0]))


@dataclass(frozen=True, slots=True, init=False)
class ZCDPSumFilter(AccumulatorFilter):
    """H23-Thm4.10 (Haney et al. 2023): the zCDP filter
    "F(rho_1, rho_2, ...; rho) = I(sum_i rho_i <= rho)" is a valid rho-zCDP filter
    (for concurrent composition of zCDP interactive mechanisms; a fortiori for
    noninteractive ones): the filter of H23-Thm4.11's accumulator (H23-Lem2.19).
    Non-strict, exact rational sums.
    """

    SPEC = "H23-Thm4.10"

    def __init__(self, rho: ExactLike) -> None:
        AccumulatorFilter.__init__(self, ZCDPAccumulator(), ZCDP(rho))

    @property
    def rho(self) -> Fraction:
        """The rho budget."""
        return self._params[0]
