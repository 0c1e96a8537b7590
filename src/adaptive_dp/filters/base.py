"""The continuation-rule protocol (docs/design.md, principle 2) shared by every filter.

A *rule* is an immutable value holding the budget and the constants of one theorem.
``rule.start()`` gives the empty :class:`FilterState`; a state answers

* ``decide(next)``: a pure query, CONTINUE or HALT for the proposed next spend;
* ``spend(next) -> (Decision, FilterState)``: on CONTINUE the spend is charged; on HALT
  nothing is charged and, in the default refuse-and-continue mode, the same state comes
  back (the refusal depends only on public parameters, so it is post-processing: each
  proof file says so); in terminal mode (``rule.start(terminal=True)``) the returned
  state is halted forever, reproducing the papers' stopping time literally;
* ``max_next(next_delta=0)``: the largest admissible next spend of the rule's primary
  parameter (epsilon, rho, mu), rounded DOWN and certified admitted, or ``None``;
* ``spent()`` (the certified bound of what was admitted, rounded UP) and ``remaining()``.

Running sums are exact ``Fraction`` values where the summed quantity is rational
(epsilon, epsilon^2, rho, mu^2, delta), and sums of exact rational UPPER bounds of
certified enclosures where it is not (RRUV16's drift). Each update is O(1).

Every rule also has a vectorised float fast path, :class:`FastFilterState`, working on
numpy arrays of spends, one entry per path. Its sums are rounded upward (error-free
transformations: an inexact float sum or product is moved one ulp up), its bounds use
certified float constants and a relative inflation, and it compares with the budget
rounded down, so a spend it admits is admitted by the certified path (a Hypothesis
property in ``tests/filters/test_fast_path.py``); it may refuse a little earlier.
"""

from __future__ import annotations

import enum
import math
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Protocol

import numpy as np
from numpy.typing import ArrayLike, NDArray

from adaptive_dp.errors import UnsupportedGuaranteeError
from adaptive_dp.guarantees.definitions import Guarantee
from adaptive_dp.odometers._fastmath import add_up, inflate_up, mul_up

__all__ = [
    "BoolArray",
    "ContinuationRule",
    "Decision",
    "FastFilterState",
    "FilterState",
    "FloatArray",
    "Rule",
    "add_up",
    "inflate_up",
    "mul_up",
    "shrink_until",
    "sqrt_down",
]

FloatArray = NDArray[np.float64]
BoolArray = NDArray[np.bool_]


class Decision(enum.Enum):
    """The answer of a continuation rule: continue (1) or halt (0)."""

    CONTINUE = "continue"
    HALT = "halt"

    def __bool__(self) -> bool:
        return self is Decision.CONTINUE


class ContinuationRule(Protocol):
    """What every filter (continuation rule) offers (docs/design.md, principle 9)."""

    SPEC: str

    def start(self, *, terminal: bool = False) -> FilterState: ...

    def fast(self, paths: int, *, terminal: bool = False) -> FastFilterState: ...


class Rule(ABC):
    """Base class of the continuation rules: the theorem-specific parts.

    Subclasses are frozen slotted dataclasses. ``_increments`` maps one spend to the
    increments of the running sums (exact rationals, or rational upper bounds);
    ``_admits`` is the certified condition on the sums *including* the proposed spend
    (the n+1 look-ahead of every theorem here); ``_decision_sums`` is a private hook
    choosing which sums the condition sees (a negative control that drops the
    look-ahead overrides it in ``verify/twins/``).
    """

    __slots__ = ()
    SPEC: str = ""
    N_SUMS: int = 1

    # -- certified path -------------------------------------------------------------
    @abstractmethod
    def _increments(self, spend: object) -> tuple[Fraction, ...]: ...

    @abstractmethod
    def _admits(self, sums: tuple[Fraction, ...]) -> bool: ...

    @abstractmethod
    def _max_next(self, sums: tuple[Fraction, ...], next_delta: Fraction) -> float | None: ...

    @abstractmethod
    def _spent(self, sums: tuple[Fraction, ...]) -> Guarantee: ...

    @abstractmethod
    def _remaining(self, sums: tuple[Fraction, ...]) -> float: ...

    def _primary_spend(self, value: float, next_delta: Fraction) -> object:
        """The spend whose primary parameter is ``value`` (used by ``max_next``)."""
        return value

    def _decision_sums(
        self, before: tuple[Fraction, ...], after: tuple[Fraction, ...]
    ) -> tuple[Fraction, ...]:
        """The sums the condition is evaluated on: those including the next spend."""
        return after

    # -- fast path --------------------------------------------------------------------
    @abstractmethod
    def _fast_increments(
        self, primary: FloatArray, delta: FloatArray
    ) -> tuple[FloatArray, ...]: ...

    @abstractmethod
    def _fast_admits(self, sums: tuple[FloatArray, ...]) -> BoolArray: ...

    # -- construction -----------------------------------------------------------------
    def start(self, *, terminal: bool = False) -> FilterState:
        """The state before any spend."""
        zero = (Fraction(0),) * self.N_SUMS
        return FilterState(self, zero, 0, False, terminal)

    def fast(self, paths: int, *, terminal: bool = False) -> FastFilterState:
        """The vectorised float fast path for ``paths`` independent sessions."""
        zero = tuple(np.zeros(paths) for _ in range(self.N_SUMS))
        return FastFilterState(self, zero, np.zeros(paths, dtype=bool), terminal)

    def _unsupported(self, spend: object) -> UnsupportedGuaranteeError:
        return UnsupportedGuaranteeError(
            f"{type(self).__name__} ({self.SPEC}) does not accept {type(spend).__name__} spends"
        )


def _add(a: tuple[Fraction, ...], b: tuple[Fraction, ...]) -> tuple[Fraction, ...]:
    return tuple(x + y for x, y in zip(a, b, strict=True))


@dataclass(frozen=True, slots=True)
class FilterState:
    """An immutable filter state: the rule, the exact running sums, the count of
    admitted spends, and whether it is halted (terminal mode only)."""

    rule: Rule
    sums: tuple[Fraction, ...]
    count: int
    halted: bool
    terminal: bool

    def decide(self, next: object) -> Decision:
        """CONTINUE iff the rule admits ``next`` after the spends so far (pure)."""
        if self.halted:
            return Decision.HALT
        after = _add(self.sums, self.rule._increments(next))
        admitted = self.rule._admits(self.rule._decision_sums(self.sums, after))
        return Decision.CONTINUE if admitted else Decision.HALT

    def spend(self, next: object) -> tuple[Decision, FilterState]:
        """Charge ``next`` if admitted; on HALT nothing is charged."""
        if self.halted:
            return Decision.HALT, self
        increments = self.rule._increments(next)
        after = _add(self.sums, increments)
        if self.rule._admits(self.rule._decision_sums(self.sums, after)):
            return Decision.CONTINUE, FilterState(
                self.rule, after, self.count + 1, False, self.terminal
            )
        if self.terminal:
            return Decision.HALT, FilterState(self.rule, self.sums, self.count, True, True)
        return Decision.HALT, self

    def max_next(self, next_delta: object = 0) -> float | None:
        """The largest admissible next primary parameter (rounded down), or None.

        The value returned is checked with ``decide``: it is admitted.
        """
        if self.halted:
            return None
        from adaptive_dp.numerics import exact_delta

        d = exact_delta(next_delta, "next_delta")
        candidate = self.rule._max_next(self.sums, d)
        if candidate is None or candidate < 0 or math.isnan(candidate):
            return None
        return shrink_until(
            candidate, lambda x: bool(self.decide(self.rule._primary_spend(x, d)))
        )

    def spent(self) -> Guarantee:
        """The certified bound of the admitted spends (rounded up)."""
        return self.rule._spent(self.sums)

    def remaining(self) -> float:
        """The remaining primary budget (rounded down)."""
        return self.rule._remaining(self.sums)


def shrink_until(candidate: float, admitted: Callable[[float], bool]) -> float | None:
    """Step ``candidate`` down (a few ulps, then geometrically) until it is admitted."""
    x = candidate
    for step in range(200):
        if x < 0:
            return None
        if admitted(x):
            return x
        if step < 8:
            x = math.nextafter(x, -math.inf)
        else:
            x = x * (1 - 2.0 ** (-52 + step - 8)) if step < 60 else x / 2
    if admitted(0.0):
        return 0.0
    return None


def sqrt_down(x: Fraction | float) -> float:
    """sqrt(x) rounded down (0 for x <= 0), from a certified enclosure."""
    from adaptive_dp.numerics import arb_of, ball_lower, enclose

    if x <= 0:
        return 0.0
    return max(0.0, ball_lower(enclose(lambda: arb_of(x).sqrt())))


@dataclass(frozen=True, slots=True)
class FastFilterState:
    """The vectorised float fast path of a rule: one session per array entry.

    ``spend(primary, delta)`` takes arrays (broadcast to the number of paths) of the
    next primary parameters (epsilon, rho, mu) and deltas, and returns the boolean
    array of admissions and the new state. Refused entries are not charged;
    ``halted`` entries (terminal mode) refuse everything. Never on the unsafe side of
    the certified path: it admits only what :class:`FilterState` would admit.
    """

    rule: Rule
    sums: tuple[FloatArray, ...]
    halted: BoolArray
    terminal: bool

    def decide(self, primary: ArrayLike, delta: ArrayLike = 0.0) -> BoolArray:
        """The admissions, without charging."""
        p, d = self._arrays(primary, delta)
        inc = self.rule._fast_increments(p, d)
        after = tuple(add_up(s, i) for s, i in zip(self.sums, inc, strict=True))
        ok: BoolArray = self.rule._fast_admits(after) & ~self.halted
        return ok

    def spend(
        self, primary: ArrayLike, delta: ArrayLike = 0.0
    ) -> tuple[BoolArray, FastFilterState]:
        """Charge the admitted entries; refuse (and, if terminal, halt) the others."""
        p, d = self._arrays(primary, delta)
        inc = self.rule._fast_increments(p, d)
        after = tuple(add_up(s, i) for s, i in zip(self.sums, inc, strict=True))
        ok: BoolArray = self.rule._fast_admits(after) & ~self.halted
        sums = tuple(np.where(ok, a, s) for a, s in zip(after, self.sums, strict=True))
        halted = self.halted | ~ok if self.terminal else self.halted
        return ok, FastFilterState(self.rule, sums, halted, self.terminal)

    def _arrays(self, primary: ArrayLike, delta: ArrayLike) -> tuple[FloatArray, FloatArray]:
        n = self.halted.shape[0]
        p = np.broadcast_to(np.asarray(primary, dtype=np.float64), (n,))
        d = np.broadcast_to(np.asarray(delta, dtype=np.float64), (n,))
        return p, d

