"""Privacy-loss accumulators (H23 / Lécuyer sense): G(d_1, ..., d_k), valid when the
filter I(G <= d) is valid for every budget d fixed in advance (H23-Lem2.19).

An accumulator is a :class:`~adaptive_dp.ledger.Ledger` whose sums are *read*:
``start()`` gives an immutable :class:`AccumulatorState`, ``add(spend)`` a new state
(O(1), exact rational sums), ``reading()`` the accumulated guarantee (rounded up) or the
singleton :data:`EXHAUSTED`, which is above every budget, and ``within(budget)`` the
certified comparison G <= d. Every accumulator is a filter through H23-Lem2.19
(:class:`adaptive_dp.filters.AccumulatorFilter`), which uses ``_within`` and its float
twin ``_fast_within`` (budget rounded down once, by ``_fast_budget``). An accumulator is
a different protocol from a time-uniform odometer (:mod:`adaptive_dp.odometers.w23`).
"""

from __future__ import annotations

import enum
import itertools
from abc import abstractmethod
from collections.abc import Iterable
from dataclasses import dataclass, field
from fractions import Fraction

from flint import arb

from adaptive_dp.errors import GridError, OrderError, UnsupportedGuaranteeError, iterable
from adaptive_dp.guarantees.bounds import W23Bound
from adaptive_dp.guarantees.definitions import (
    GDP,
    RDP,
    ZCDP,
    ApproxDP,
    Guarantee,
    PureDP,
    RDPCurve,
)
from adaptive_dp.guarantees.lattice import Measure, implies
from adaptive_dp.guarantees.spends import Spend
from adaptive_dp.ledger import Ledger, Sums, Tally, TallyView
from adaptive_dp.numerics import (
    ExactLike,
    arb_of,
    ball_lower,
    ball_upper,
    enclose,
    exact,
    exact_delta_split,
    exact_lower,
    exact_upper,
    round_down,
    round_up,
    sqrt_down,
)
from adaptive_dp.numerics.floats import Flag, Real, both, mul_up

__all__ = [
    "EXHAUSTED",
    "Accumulator",
    "AccumulatorState",
    "ApproxDPAccumulator",
    "BasicAccumulator",
    "Exhausted",
    "GDPAccumulator",
    "RDPAccumulator",
    "RDPCurveAccumulator",
    "ZCDPAccumulator",
]


class Exhausted(enum.Enum):
    """The reading of an accumulator past its budget: above every budget."""

    EXHAUSTED = "exhausted"


EXHAUSTED = Exhausted.EXHAUSTED


class Accumulator(Ledger):
    """Base class of the accumulators (frozen slotted dataclasses): a ledger read by
    ``_reading`` and compared with a budget by ``_within`` (certified) and
    ``_fast_within`` (float, never admitting what ``_within`` refuses)."""

    __slots__ = ()

    @abstractmethod
    def _reading(self, sums: Sums) -> Guarantee | Exhausted: ...

    def _reading_ball(self, sums: Sums) -> arb | None:
        """An enclosure of the primary field of ``_reading``, or None where it is exact
        (or EXHAUSTED)."""
        return None

    def _straddles(self, sums: Sums, budget: Sums) -> bool:
        """Whether the certified ``_within`` is undecided (an enclosure straddles the
        budget; ``_within`` is then False). False for exact comparisons."""
        return False

    @abstractmethod
    def _budget(self, budget: Guarantee) -> Sums | None:
        """The budget's parameters in this accumulator's terms, or None."""

    @abstractmethod
    def _within(self, sums: Sums, budget: Sums) -> bool: ...

    @abstractmethod
    def _fast_within(self, sums: tuple[Real, ...], budget: tuple[float, ...]) -> Flag: ...

    def _fast_budget(self, budget: Sums) -> tuple[float, ...]:
        """The budget's parameters for ``_fast_within``, each rounded down (once)."""
        return tuple(round_down(b) for b in budget)

    def _room(self, sums: Sums, budget: Sums, next_delta: Fraction) -> float | None:
        """A closed-form candidate for the largest next primary parameter with delta
        ``next_delta`` within ``budget`` (rounded down; negative: none), or None to
        search."""
        return None

    def budget_of(self, budget: Guarantee) -> Sums:
        """The exact parameters of a budget; UnsupportedGuaranteeError if it is not a
        budget this accumulator compares with."""
        found = self._budget(budget)
        if found is None:
            raise UnsupportedGuaranteeError(
                f"{type(self).__name__} cannot compare with a {type(budget).__name__} budget"
            )
        return found

    def start(self) -> AccumulatorState:
        """The accumulator before any spend."""
        return AccumulatorState(self, Tally.zero(self.N_SUMS))


@dataclass(frozen=True, slots=True)
class AccumulatorState(TallyView):
    """Immutable accumulator state: the exact tally (running sums and number of spends)."""

    accumulator: Accumulator
    tally: Tally

    def add(self, spend: Spend) -> AccumulatorState:
        """The state after one more spend (O(1))."""
        return AccumulatorState(
            self.accumulator, self.tally.plus(self.accumulator.after(self.tally, spend))
        )

    def reading(self) -> Guarantee | Exhausted:
        """G(d_1, ..., d_k), rounded up, or EXHAUSTED."""
        return self.accumulator._reading(self.tally.sums)

    def reading_ball(self) -> arb | None:
        """An enclosure of the primary field of :meth:`reading`, or None where it is
        exact (or EXHAUSTED)."""
        return self.accumulator._reading_ball(self.tally.sums)

    def within(self, budget: Guarantee) -> bool:
        """Certified G(d_1, ..., d_k) <= budget (an enclosure straddling it is False)."""
        return self.accumulator._within(self.tally.sums, self.accumulator.budget_of(budget))


class _SumAccumulator(Accumulator):
    """An accumulator of one exact sum with no delta, within a budget iff the sum is
    (H23-Thm4.9, H23-Thm4.11)."""

    __slots__ = ()

    def _within(self, sums: Sums, budget: Sums) -> bool:
        return sums[0] <= budget[0]

    def _fast_within(self, sums: tuple[Real, ...], budget: tuple[float, ...]) -> Flag:
        return sums[0] <= budget[0]

    def _room(self, sums: Sums, budget: Sums, next_delta: Fraction) -> float | None:
        return -1.0 if next_delta != 0 else round_down(budget[0] - sums[0])


def _approx_budget(budget: Guarantee) -> Sums | None:
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
    MEASURE = Measure.APPROX

    def _reading(self, sums: Sums) -> Guarantee | Exhausted:
        if sums[1] >= 1:
            return EXHAUSTED
        return ApproxDP(sums[0], sums[1])

    def _budget(self, budget: Guarantee) -> Sums | None:
        return _approx_budget(budget)

    def _within(self, sums: Sums, budget: Sums) -> bool:
        return sums[0] <= budget[0] and sums[1] <= budget[1]

    def _fast_within(self, sums: tuple[Real, ...], budget: tuple[float, ...]) -> Flag:
        return both(sums[0] <= budget[0], sums[1] <= budget[1])

    def _room(self, sums: Sums, budget: Sums, next_delta: Fraction) -> float | None:
        if sums[1] + next_delta > budget[1]:
            return -1.0
        return round_down(budget[0] - sums[0])


@dataclass(frozen=True, slots=True)
class ZCDPAccumulator(_SumAccumulator):
    """H23-Thm4.11 (Haney et al.): "G(rho_1, rho_2, ...) = sum_i rho_i" is a valid
    privacy-loss accumulator for rho_i-zCDP mechanisms (its filter is H23-Thm4.10)."""

    SPEC = "H23-Thm4.11"
    N_SUMS = 1
    MEASURE = Measure.ZCDP

    def _reading(self, sums: Sums) -> Guarantee | Exhausted:
        return ZCDP(sums[0])

    def _budget(self, budget: Guarantee) -> Sums | None:
        return (budget.rho,) if isinstance(budget, ZCDP) else None



@dataclass(frozen=True, slots=True, init=False)
class RDPAccumulator(_SumAccumulator):
    """H23-Thm4.9 (Haney et al.): at a fixed order alpha > 1,
    "G(epsilon_1, ..., epsilon_K) = sum_{i=1}^K epsilon_i" is a valid privacy-loss
    accumulator for epsilon_i-RDP_alpha mechanisms (its filter is H23-Thm4.6)."""

    alpha: Fraction
    SPEC = "H23-Thm4.9"
    N_SUMS = 1
    MEASURE = Measure.RDP

    def __init__(self, alpha: ExactLike) -> None:
        a = exact(alpha, "alpha")
        if a <= 1:
            raise OrderError("alpha", alpha, "a Rényi order alpha > 1")
        object.__setattr__(self, "alpha", a)

    def _alpha(self) -> Fraction | None:
        return self.alpha

    def _reading(self, sums: Sums) -> Guarantee | Exhausted:
        return RDP(self.alpha, sums[0])

    def _budget(self, budget: Guarantee) -> Sums | None:
        ok = isinstance(budget, RDP) and budget.alpha == self.alpha
        return (budget.epsilon,) if ok and isinstance(budget, RDP) else None



@dataclass(frozen=True, slots=True, init=False)
class RDPCurveAccumulator(Accumulator):
    """EXT-Lecuyer21 (the every-order rule, proved in proofs/EXT-Lecuyer21.md): on a fixed
    finite grid of orders alpha_j > 1, G = (sum_i epsilon_i(alpha_j))_j, one exact sum per
    order, read as the RDPCurve of the sums; G <= a budget curve on the same grid iff
    every order's sum is within that order's budget. A spend is supported iff it implies
    RDP at every order of the grid (lattice: an RDPCurve with every grid order, RDP on a
    one-order grid, zCDP as rho alpha, pure DP through zCDP). The primary parameter of
    ``max_next`` and of the float path is a zCDP rho (increments rho alpha_j, rounded up).
    """

    alphas: tuple[Fraction, ...]
    _fast_alphas: tuple[float, ...] = field(repr=False, compare=False)
    SPEC = "EXT-Lecuyer21"
    MEASURE = Measure.ZCDP  # the primary parameter's measure (rho), not the books'

    def __init__(self, alphas: Iterable[ExactLike]) -> None:
        orders = sorted(exact(a, "alpha") for a in iterable(alphas, "alphas"))
        if not orders:
            raise GridError("alphas", (), "at least one Rényi order")
        for a, b in itertools.pairwise(orders):
            if a == b:
                raise GridError("alphas", b, "distinct Rényi orders")
        if orders[0] <= 1:
            raise OrderError("alpha", orders[0], "a Rényi order alpha > 1")
        object.__setattr__(self, "alphas", tuple(orders))
        object.__setattr__(self, "_fast_alphas", tuple(round_up(a) for a in orders))

    @property
    def N_SUMS(self) -> int:  # type: ignore[override]  # one sum per order
        return len(self.alphas)

    def _charge(self, spend: Spend) -> Sums | None:
        found = [implies(spend, Measure.RDP, a) for a in self.alphas]
        return tuple(f[0] for f in found if f is not None) if all(found) else None

    def unsupported(self, spend: Spend) -> str:
        orders = ", ".join(str(a) for a in self.alphas)
        return (
            f"{type(self).__name__} ({self.SPEC}) keeps its books in RDP at every order of "
            f"({orders}); a {type(spend).__name__} spend implies no RDP guarantee at each"
        )

    def _fast_increments(self, primary: Real, delta: Real) -> tuple[Real, ...]:
        return tuple(mul_up(primary, a) for a in self._fast_alphas)

    def _reading(self, sums: Sums) -> Guarantee | Exhausted:
        return RDPCurve(zip(self.alphas, sums, strict=True))

    def _budget(self, budget: Guarantee) -> Sums | None:
        curve = RDPCurve([budget]) if isinstance(budget, RDP) else budget
        if not isinstance(curve, RDPCurve) or curve.orders != self.alphas:
            return None
        return tuple(p.epsilon for p in curve.points)

    def _within(self, sums: Sums, budget: Sums) -> bool:
        return all(s <= b for s, b in zip(sums, budget, strict=True))

    def _fast_within(self, sums: tuple[Real, ...], budget: tuple[float, ...]) -> Flag:
        ok: Flag = True
        for s, b in zip(sums, budget, strict=True):
            ok = both(ok, s <= b)
        return ok

    def _room(self, sums: Sums, budget: Sums, next_delta: Fraction) -> float | None:
        # the largest next rho: rho alpha_j <= budget_j - sum_j at every order
        if next_delta != 0:
            return -1.0
        return round_down(min((b - s) / a for a, s, b in zip(self.alphas, sums, budget,
                                                                strict=True)))


@dataclass(frozen=True, slots=True, init=False)
class ApproxDPAccumulator(Accumulator):
    """H23-Thm3.8 (= H23-ThmB.4; Whitehouse et al. via Haney et al.): with
    delta = delta' + delta'', delta' > 0, delta'' >= 0,
    "G((epsilon_1, delta_1), ..., (epsilon_k, delta_k)) =
    (sqrt(2 log(1/delta') sum_{m<=k} epsilon_m^2) + 1/2 sum_{m<=k} epsilon_m^2, delta)
    if delta' + sum_{m<=k} delta_m <= delta, and (inf, inf) otherwise" is a valid
    approximate-DP privacy-loss accumulator (truncated-view sense; ambiguity A31: the
    second coordinate is the target delta). The epsilon reading is rounded up;
    (inf, inf) is EXHAUSTED. The bound is :class:`~adaptive_dp.guarantees.bounds.W23Bound`.
    """

    delta: Fraction
    delta_slack: Fraction
    bound: W23Bound = field(repr=False, compare=False)
    SPEC = "H23-Thm3.8"
    N_SUMS = 2
    MEASURE = Measure.APPROX

    def __init__(self, *, delta: ExactLike, delta_slack: ExactLike | None = None) -> None:
        """``delta`` is the target delta = delta' + delta''; ``delta_slack`` is delta'
        (default: all of ``delta``)."""
        total, slack = exact_delta_split(delta, delta_slack)
        object.__setattr__(self, "delta", total)
        object.__setattr__(self, "delta_slack", slack)
        object.__setattr__(self, "bound", W23Bound(slack))

    def _increments(self, params: Sums) -> Sums:
        return (params[0] * params[0], params[1])

    def _fast_increments(self, primary: Real, delta: Real) -> tuple[Real, ...]:
        return (mul_up(primary, primary), delta)

    def _reading(self, sums: Sums) -> Guarantee | Exhausted:
        if self.delta_slack + sums[1] > self.delta:
            return EXHAUSTED
        return ApproxDP(ball_upper(self.bound.ball(sums[0])), self.delta)

    def _reading_ball(self, sums: Sums) -> arb | None:
        if self.delta_slack + sums[1] > self.delta:
            return None
        return self.bound.ball(sums[0])

    def _straddles(self, sums: Sums, budget: Sums) -> bool:
        if self.delta_slack + sums[1] > self.delta or self.delta > budget[1]:
            return False
        return exact_lower(self.bound.ball(sums[0])) <= budget[0]

    def _budget(self, budget: Guarantee) -> Sums | None:
        return _approx_budget(budget)

    def _epsilon_ok(self, v: Fraction, epsilon: Fraction) -> bool:
        """Certified "bound(V) <= epsilon" (private hook: the printed H23-Thm3.7 twin
        reverses it)."""
        return exact_upper(self.bound.ball(v)) <= epsilon

    def _within(self, sums: Sums, budget: Sums) -> bool:
        if self.delta_slack + sums[1] > self.delta or self.delta > budget[1]:
            return False
        return self._epsilon_ok(sums[0], budget[0])

    def _fast_budget(self, budget: Sums) -> tuple[float, ...]:
        fits = self.delta <= budget[1]
        return (round_down(budget[0]), round_down(self.delta - self.delta_slack) if fits else -1.0)

    def _fast_within(self, sums: tuple[Real, ...], budget: tuple[float, ...]) -> Flag:
        return both(self.bound.upper(sums[0]) <= budget[0], sums[1] <= budget[1])

    def _room(self, sums: Sums, budget: Sums, next_delta: Fraction) -> float | None:
        # V* solves bound(V*) = epsilon; the next epsilon is at most sqrt(V* - V)
        if self.delta_slack + sums[1] + next_delta > self.delta or self.delta > budget[1]:
            return -1.0
        v, eps = sums[0], budget[0]
        low = ball_lower(enclose(lambda: self.bound.room(eps) - arb_of(v)))
        return -1.0 if low < 0 else sqrt_down(low)


# -- EXT-GDPAccumulator (the GDP accumulator) -----------------------------------------------
@dataclass(frozen=True, slots=True)
class GDPAccumulator(_SumAccumulator):
    """EXT-GDPAccumulator: "G(mu_1, ..., mu_k) = sqrt(sum_i mu_i^2)" is a valid privacy-loss
    accumulator for mechanisms mu_i-GDP conditionally on the past (H23-Lem2.19 applied to
    the GDP filter EXT-ST22, which is its filter). The books are the exact sum of mu_i^2;
    a budget mu-GDP enters as mu^2, so G <= mu iff sum_i mu_i^2 <= mu^2 (exact). The
    reading sqrt(sum) is rounded up from an enclosure."""

    SPEC = "EXT-GDPAccumulator"
    N_SUMS = 1
    MEASURE = Measure.GDP

    def _increments(self, params: Sums) -> Sums:
        return (params[0] * params[0],)

    def _fast_increments(self, primary: Real, delta: Real) -> tuple[Real, ...]:
        return (mul_up(primary, primary),)

    def _reading_ball(self, sums: Sums) -> arb:
        s = sums[0]
        return enclose(lambda: arb_of(s).sqrt())

    def _reading(self, sums: Sums) -> Guarantee | Exhausted:
        return GDP(ball_upper(self._reading_ball(sums)))

    def _budget(self, budget: Guarantee) -> Sums | None:
        return (budget.mu * budget.mu,) if isinstance(budget, GDP) else None

    def _room(self, sums: Sums, budget: Sums, next_delta: Fraction) -> float | None:
        room = budget[0] - sums[0]
        return -1.0 if next_delta != 0 or room < 0 else sqrt_down(room)
