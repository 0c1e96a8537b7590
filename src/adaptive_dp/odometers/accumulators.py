"""Privacy-loss accumulators (H23 / Lécuyer sense): G(d_1, ..., d_k), valid when the
filter I(G <= d) is valid for every budget d fixed in advance (H23-Lem2.19).

An accumulator is a different protocol from a time-uniform odometer
(:mod:`adaptive_dp.odometers.w23`): ``start()`` gives an immutable state, ``add(spend)``
a new state (O(1), exact rational sums), ``reading()`` the accumulated guarantee (rounded
up) or the singleton :data:`EXHAUSTED`, which is above every budget, and
``within(budget)`` the certified comparison G <= d used by
:class:`adaptive_dp.filters.from_accumulator.AccumulatorFilter`.
"""

from __future__ import annotations

import enum
from abc import ABC, abstractmethod
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from flint import arb
from numpy.typing import NDArray

from adaptive_dp.errors import DeltaRangeError, OrderError, UnsupportedGuaranteeError
from adaptive_dp.guarantees.definitions import RDP, ZCDP, ApproxDP, Guarantee, PureDP
from adaptive_dp.numerics import (
    ExactLike,
    arb_of,
    ball_upper,
    enclose,
    exact,
    exact_delta,
    exact_nonnegative,
    exact_upper,
    round_down,
)
from adaptive_dp.odometers._coerce import as_approx, as_rdp, as_zcdp
from adaptive_dp.odometers._fastmath import inflate_up, mul_up

__all__ = [
    "EXHAUSTED",
    "Accumulator",
    "AccumulatorState",
    "ApproxDPAccumulator",
    "BasicAccumulator",
    "Exhausted",
    "RDPAccumulator",
    "ZCDPAccumulator",
]

FloatArray = NDArray[np.float64]
BoolArray = NDArray[np.bool_]


class Exhausted(enum.Enum):
    """The reading of an accumulator past its budget: above every budget."""

    EXHAUSTED = "exhausted"


EXHAUSTED = Exhausted.EXHAUSTED


class Accumulator(ABC):
    """Base class of the accumulators (frozen slotted dataclasses)."""

    __slots__ = ()
    SPEC: str = ""
    N_SUMS: int = 1

    @abstractmethod
    def _increments(self, spend: object) -> tuple[Fraction, ...]: ...

    @abstractmethod
    def _reading(self, sums: tuple[Fraction, ...]) -> Guarantee | Exhausted: ...

    @abstractmethod
    def _within(self, sums: tuple[Fraction, ...], budget: object) -> bool: ...

    @abstractmethod
    def _fast_increments(
        self, primary: FloatArray, delta: FloatArray
    ) -> tuple[FloatArray, ...]: ...

    @abstractmethod
    def _fast_within(self, sums: tuple[FloatArray, ...], budget: object) -> BoolArray: ...

    def start(self) -> AccumulatorState:
        """The accumulator before any spend."""
        return AccumulatorState(self, (Fraction(0),) * self.N_SUMS, 0)

    def _bad_budget(self, budget: object) -> UnsupportedGuaranteeError:
        return UnsupportedGuaranteeError(
            f"{type(self).__name__} cannot compare with a {type(budget).__name__} budget"
        )


@dataclass(frozen=True, slots=True)
class AccumulatorState:
    """Immutable accumulator state: exact running sums and the number of spends."""

    accumulator: Accumulator
    sums: tuple[Fraction, ...]
    count: int

    def add(self, spend: object) -> AccumulatorState:
        """The state after one more spend (O(1))."""
        inc = self.accumulator._increments(spend)
        sums = tuple(a + b for a, b in zip(self.sums, inc, strict=True))
        return AccumulatorState(self.accumulator, sums, self.count + 1)

    def reading(self) -> Guarantee | Exhausted:
        """G(d_1, ..., d_k), rounded up, or EXHAUSTED."""
        return self.accumulator._reading(self.sums)

    def within(self, budget: object) -> bool:
        """Certified G(d_1, ..., d_k) <= budget (an enclosure straddling it is False)."""
        return self.accumulator._within(self.sums, budget)


def _budget_approx(budget: object) -> tuple[Fraction, Fraction] | None:
    if isinstance(budget, PureDP):
        return budget.epsilon, Fraction(0)
    if isinstance(budget, ApproxDP):
        return budget.epsilon, budget.delta
    return None


@dataclass(frozen=True, slots=True)
class BasicAccumulator(Accumulator):
    """CS2080-BasicComp as an accumulator: G = (sum epsilon_i, sum delta_i), reading
    ApproxDP (EXHAUSTED once sum delta_i >= 1); G <= (epsilon, delta) iff both sums are
    within (exact)."""

    SPEC = "CS2080-BasicComp"
    N_SUMS = 2

    def _increments(self, spend: object) -> tuple[Fraction, ...]:
        return as_approx(spend, "BasicAccumulator")

    def _reading(self, sums: tuple[Fraction, ...]) -> Guarantee | Exhausted:
        if sums[1] >= 1:
            return EXHAUSTED
        return ApproxDP(sums[0], sums[1])

    def _within(self, sums: tuple[Fraction, ...], budget: object) -> bool:
        b = _budget_approx(budget)
        if b is None:
            raise self._bad_budget(budget)
        return sums[0] <= b[0] and sums[1] <= b[1]

    def _fast_increments(self, primary: FloatArray, delta: FloatArray) -> tuple[FloatArray, ...]:
        return (primary, delta)

    def _fast_within(self, sums: tuple[FloatArray, ...], budget: object) -> BoolArray:
        b = _budget_approx(budget)
        if b is None:
            raise self._bad_budget(budget)
        ok: BoolArray = (sums[0] <= round_down(b[0])) & (sums[1] <= round_down(b[1]))
        return ok


@dataclass(frozen=True, slots=True)
class ZCDPAccumulator(Accumulator):
    """H23-Thm4.11 (Haney et al.): "G(rho_1, rho_2, ...) = sum_i rho_i" is a valid
    privacy-loss accumulator for rho_i-zCDP mechanisms (its filter is H23-Thm4.10)."""

    SPEC = "H23-Thm4.11"
    N_SUMS = 1

    def _increments(self, spend: object) -> tuple[Fraction, ...]:
        return (as_zcdp(spend, "ZCDPAccumulator", approximate=False)[0],)

    def _reading(self, sums: tuple[Fraction, ...]) -> Guarantee | Exhausted:
        return ZCDP(sums[0])

    def _rho(self, budget: object) -> Fraction:
        if isinstance(budget, ZCDP):
            return budget.rho
        if isinstance(budget, (int, float, str, Fraction)) and not isinstance(budget, bool):
            return exact_nonnegative(budget, "rho")
        raise self._bad_budget(budget)

    def _within(self, sums: tuple[Fraction, ...], budget: object) -> bool:
        return sums[0] <= self._rho(budget)

    def _fast_increments(self, primary: FloatArray, delta: FloatArray) -> tuple[FloatArray, ...]:
        return (primary,)

    def _fast_within(self, sums: tuple[FloatArray, ...], budget: object) -> BoolArray:
        ok: BoolArray = sums[0] <= round_down(self._rho(budget))
        return ok


@dataclass(frozen=True, slots=True, init=False)
class RDPAccumulator(Accumulator):
    """H23-Thm4.9 (Haney et al.): at a fixed order alpha > 1,
    "G(epsilon_1, ..., epsilon_K) = sum_{i=1}^K epsilon_i" is a valid privacy-loss
    accumulator for epsilon_i-RDP_alpha mechanisms (its filter is H23-Thm4.6)."""

    alpha: Fraction
    SPEC = "H23-Thm4.9"
    N_SUMS = 1

    def __init__(self, alpha: ExactLike) -> None:
        a = exact(alpha, "alpha")
        if a <= 1:
            raise OrderError("alpha", alpha, "a Rényi order alpha > 1")
        object.__setattr__(self, "alpha", a)

    def _increments(self, spend: object) -> tuple[Fraction, ...]:
        return (as_rdp(spend, self.alpha, "RDPAccumulator"),)

    def _reading(self, sums: tuple[Fraction, ...]) -> Guarantee | Exhausted:
        return RDP(self.alpha, sums[0])

    def _eps(self, budget: object) -> Fraction:
        if isinstance(budget, RDP):
            if budget.alpha != self.alpha:
                raise self._bad_budget(budget)
            return budget.epsilon
        if isinstance(budget, (int, float, str, Fraction)) and not isinstance(budget, bool):
            return exact_nonnegative(budget, "epsilon")
        raise self._bad_budget(budget)

    def _within(self, sums: tuple[Fraction, ...], budget: object) -> bool:
        return sums[0] <= self._eps(budget)

    def _fast_increments(self, primary: FloatArray, delta: FloatArray) -> tuple[FloatArray, ...]:
        return (primary,)

    def _fast_within(self, sums: tuple[FloatArray, ...], budget: object) -> BoolArray:
        ok: BoolArray = sums[0] <= round_down(self._eps(budget))
        return ok


@dataclass(frozen=True, slots=True, init=False)
class ApproxDPAccumulator(Accumulator):
    """H23-Thm3.8 (= H23-ThmB.4; Whitehouse et al. via Haney et al.): with
    delta = delta' + delta'', delta' > 0, delta'' >= 0,
    "G((epsilon_1, delta_1), ..., (epsilon_k, delta_k)) =
    (sqrt(2 log(1/delta') sum_{m<=k} epsilon_m^2) + 1/2 sum_{m<=k} epsilon_m^2, delta)
    if delta' + sum_{m<=k} delta_m <= delta, and (inf, inf) otherwise" is a valid
    approximate-DP privacy-loss accumulator (truncated-view sense; ambiguity A31: the
    second coordinate is the target delta). The epsilon reading is rounded up;
    (inf, inf) is EXHAUSTED.
    """

    delta_prime: Fraction
    delta: Fraction
    SPEC = "H23-Thm3.8"
    N_SUMS = 2

    def __init__(self, delta_prime: ExactLike, delta: ExactLike) -> None:
        dp = exact_delta(delta_prime, "delta_prime", allow_zero=False)
        d = exact_delta(delta, "delta")
        if d < dp:
            raise DeltaRangeError("delta", delta, f"delta >= delta_prime = {dp}")
        object.__setattr__(self, "delta_prime", dp)
        object.__setattr__(self, "delta", d)

    def _increments(self, spend: object) -> tuple[Fraction, ...]:
        eps, delta = as_approx(spend, "ApproxDPAccumulator")
        return (eps * eps, delta)

    def _epsilon_ball(self, v: Fraction) -> arb:
        if v == 0:
            return arb(0)
        dp = self.delta_prime
        return enclose(lambda: (2 * (1 / arb_of(dp)).log() * arb_of(v)).sqrt() + arb_of(v) / 2)

    def _reading(self, sums: tuple[Fraction, ...]) -> Guarantee | Exhausted:
        if self.delta_prime + sums[1] > self.delta:
            return EXHAUSTED
        return ApproxDP(ball_upper(self._epsilon_ball(sums[0])), self.delta)

    def _within(self, sums: tuple[Fraction, ...], budget: object) -> bool:
        b = _budget_approx(budget)
        if b is None:
            raise self._bad_budget(budget)
        if self.delta_prime + sums[1] > self.delta or self.delta > b[1]:
            return False
        return exact_upper(self._epsilon_ball(sums[0])) <= b[0]

    def _fast_increments(self, primary: FloatArray, delta: FloatArray) -> tuple[FloatArray, ...]:
        return (mul_up(primary, primary), delta)

    def _fast_within(self, sums: tuple[FloatArray, ...], budget: object) -> BoolArray:
        b = _budget_approx(budget)
        if b is None:
            raise self._bad_budget(budget)
        dp = self.delta_prime
        c2 = ball_upper(enclose(lambda: 2 * (1 / arb_of(dp)).log()))
        v = sums[0]
        bound = inflate_up(np.sqrt(c2 * v) + v / 2)
        ok: BoolArray = (
            (bound <= round_down(b[0]))
            & (sums[1] <= round_down(self.delta - self.delta_prime))
            & (self.delta <= b[1])
        )
        return ok
