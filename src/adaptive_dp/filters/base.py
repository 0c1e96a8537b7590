"""The continuation-rule protocol (docs/design.md, principle 2), built on the ledger kernel.

A *rule* is an immutable :class:`~adaptive_dp.ledger.Ledger` holding the budget and the
constants of one theorem: a predicate ``_admits`` on the ledger's running sums.
``rule.start()`` gives the empty :class:`FilterState`, which answers

* ``decide(next)``: a pure query, CONTINUE or HALT for the proposed next spend;
* ``spend(next) -> (Decision, FilterState)``: on CONTINUE the spend is charged; on HALT
  nothing is charged and, in the default refuse-and-continue mode, the same state comes
  back (the refusal depends only on public parameters, so it is post-processing: each
  proof file says so); in terminal mode (``rule.start(terminal=True)``) the returned
  state is halted forever, reproducing the papers' stopping time literally;
* ``max_next(next_delta=0)``: the largest admissible next spend of the rule's primary
  parameter (epsilon, rho, mu), rounded DOWN and certified admitted, or ``None``;
* ``spent()`` (the certified bound of what was admitted, rounded UP) and ``remaining()``.

A spend the rule does not support raises ``UnsupportedGuaranteeError``; ask
``rule.supports(spend)`` first to avoid it. Running sums are exact ``Fraction`` values
where the summed quantity is rational, and sums of exact rational UPPER bounds of
certified enclosures where it is not (RRUV16's drift). Each update is O(1).

The float fast path takes the primary parameter and delta of each request as floats:
``rule.fast(paths)`` (:class:`FastFilterState`, numpy arrays, one entry per path) and
``rule.float_session()`` (:class:`FloatFilterState`, one session in Python floats, the
scalar route). Both run the same rule hooks (``_fast_increments``, ``_fast_admits``,
with the rule's constants certified once at construction) through :func:`_float_step`:
sums rounded up, bounds rounded up, budgets rounded down, so a request it admits is
admitted by the certified path; requests with NaN, infinite or negative values (or a
delta outside [0, 1)) are refused and reported in ``invalid``, never charged.
"""

from __future__ import annotations

import enum
import math
from abc import abstractmethod
from dataclasses import dataclass
from fractions import Fraction
from typing import NamedTuple, Protocol, cast

import numpy as np
from flint import arb
from numpy.typing import ArrayLike

from adaptive_dp.guarantees.definitions import Guarantee
from adaptive_dp.guarantees.spends import Spend
from adaptive_dp.ledger import FastTally, Ledger, Sums, Tally, TallyView
from adaptive_dp.numerics import ExactLike, exact_delta
from adaptive_dp.numerics.floats import (
    BoolArray,
    Flag,
    FloatArray,
    Real,
    both,
    negate,
)
from adaptive_dp.numerics.search import shrink_until

__all__ = [
    "ContinuationRule",
    "Decision",
    "FastFilterState",
    "FilterState",
    "FloatFilterState",
    "Rule",
]


class Decision(enum.Enum):
    """The answer of a continuation rule: continue (1) or halt (0)."""

    CONTINUE = "continue"
    HALT = "halt"

    def __bool__(self) -> bool:
        return self is Decision.CONTINUE


class ContinuationRule(Protocol):
    """What every filter (continuation rule) offers (docs/design.md, principle 9)."""

    SPEC: str

    def supports(self, spend: Spend) -> bool: ...

    def start(self, *, terminal: bool = False) -> FilterState: ...

    def fast(self, paths: int, *, terminal: bool = False) -> FastFilterState: ...

    def float_session(self, *, terminal: bool = False) -> FloatFilterState: ...


class Rule(Ledger):
    """W23-FilterDef / R23-Def3.1: base class of the continuation rules (stopping rules).

    ``_admits`` is the certified condition on the sums *including* the proposed spend
    (the n+1 look-ahead of every theorem here); ``_decision_sums`` is a private hook
    choosing which sums the condition sees (a negative control that drops the look-ahead
    overrides it in the twins of the verification registry). ``_fast_admits`` is the
    float condition, never admitting what ``_admits`` refuses; ``_fast_max_next`` and
    ``_fast_remaining`` give closed forms where a rule has them (rounded down), else the
    fast path bisects on its own condition.
    """

    __slots__ = ()

    # -- certified path ---------------------------------------------------------------
    @abstractmethod
    def _admits(self, sums: Sums) -> bool: ...

    @abstractmethod
    def _max_next(self, sums: Sums, next_delta: Fraction) -> float | None: ...

    @abstractmethod
    def _spent(self, sums: Sums) -> Guarantee: ...

    @abstractmethod
    def _remaining(self, sums: Sums) -> float: ...

    def _decision_sums(self, before: Sums, after: Sums) -> Sums:
        """The sums the condition is evaluated on: those including the next spend."""
        return after

    # -- certification (docs/design.md, transcripts) -----------------------------------
    def _straddles(self, sums: Sums) -> bool:
        """Whether the certified check on ``sums`` is undecided: an enclosure straddles
        the budget (``_admits`` then refuses, the safe side). False for exact checks."""
        return False

    def _spent_ball(self, sums: Sums) -> arb | None:
        """An enclosure of the primary field of ``_spent`` (epsilon, rho or mu), or None
        where ``_spent`` is exact."""
        return None

    def _remaining_ball(self, sums: Sums) -> arb | None:
        """An enclosure of the exact remaining budget that ``_remaining`` rounds down,
        or None where ``_remaining`` is the largest admissible next primary parameter
        (``max_next(0)``)."""
        return None

    # -- float path -------------------------------------------------------------------
    @abstractmethod
    def _fast_admits(self, sums: tuple[Real, ...]) -> Flag: ...

    def _fast_max_next(self, sums: tuple[Real, ...], next_delta: Real) -> Real | None:
        """A closed-form candidate for the largest admissible next primary parameter
        (rounded down; checked by the float condition), or None to bisect."""
        return None

    def _fast_remaining(self, sums: tuple[Real, ...]) -> Real | None:
        """The remaining primary budget, rounded down, or None for max_next(0)."""
        return None

    # -- construction -----------------------------------------------------------------
    def start(self, *, terminal: bool = False) -> FilterState:
        """The state before any spend."""
        return FilterState(self, Tally.zero(self.N_SUMS), False, terminal)

    def fast(self, paths: int, *, terminal: bool = False) -> FastFilterState:
        """The vectorised float fast path for ``paths`` independent sessions."""
        none = np.zeros(paths, dtype=bool)
        return FastFilterState(self, FastTally.zero(self.N_SUMS, paths), none, terminal, none)

    def float_session(self, *, terminal: bool = False) -> FloatFilterState:
        """The float fast path for one session, in Python floats (the scalar route)."""
        return FloatFilterState(self, (0.0,) * self.N_SUMS, False, terminal)


@dataclass(frozen=True, slots=True)
class FilterState(TallyView):
    """An immutable filter state: the rule, the exact tally (running sums and count of
    admitted spends), and whether it is halted (terminal mode only)."""

    rule: Rule
    tally: Tally
    halted: bool
    terminal: bool

    def _admitted(self, after: Sums) -> bool:
        return self.rule._admits(self.rule._decision_sums(self.tally.sums, after))

    def decide(self, next: Spend) -> Decision:
        """CONTINUE iff the rule admits ``next`` after the spends so far (pure)."""
        if self.halted:
            return Decision.HALT
        return Decision.CONTINUE if self._admitted(self.rule.after(self.tally, next)) else (
            Decision.HALT
        )

    def spend(self, next: Spend) -> tuple[Decision, FilterState]:
        """Charge ``next`` if admitted; on HALT nothing is charged."""
        if self.halted:
            return Decision.HALT, self
        after = self.rule.after(self.tally, next)
        if self._admitted(after):
            return Decision.CONTINUE, FilterState(
                self.rule, self.tally.plus(after), False, self.terminal
            )
        if self.terminal:
            return Decision.HALT, FilterState(self.rule, self.tally, True, True)
        return Decision.HALT, self

    def max_next(self, next_delta: ExactLike = 0) -> float | None:
        """The largest admissible next primary parameter (rounded down), or None.

        The value returned is checked with ``decide``: it is admitted.
        """
        if self.halted:
            return None
        d = exact_delta(next_delta, "next_delta")
        candidate = self.rule._max_next(self.tally.sums, d)
        if candidate is None or candidate < 0 or math.isnan(candidate):
            return None

        def admitted(x: float) -> bool:
            spend = self.rule.primary(x, d)
            return spend is not None and bool(self.decide(spend))

        return shrink_until(candidate, admitted)

    def spent(self) -> Guarantee:
        """The certified bound of the admitted spends (rounded up)."""
        return self.rule._spent(self.tally.sums)

    def check(self, next: Spend) -> Decision | None:
        """:meth:`decide`, or None where the certified check is undecided (an enclosure
        straddles the budget; :meth:`decide` then says HALT, the safe side)."""
        if self.halted:
            return Decision.HALT
        sums = self.rule._decision_sums(self.tally.sums, self.rule.after(self.tally, next))
        if self.rule._admits(sums):
            return Decision.CONTINUE
        return None if self.rule._straddles(sums) else Decision.HALT

    def charged(self, next: Spend) -> FilterState:
        """The state with ``next`` charged whatever the rule says (a recorded admission
        being certified: the system ran it)."""
        return FilterState(
            self.rule, self.tally.plus(self.rule.after(self.tally, next)), False, self.terminal
        )

    def refused(self) -> FilterState:
        """The state after a refusal: halted forever in terminal mode, else unchanged."""
        return FilterState(self.rule, self.tally, True, True) if self.terminal else self

    def spent_ball(self) -> arb | None:
        """An enclosure of the primary field of :meth:`spent`, or None where it is exact."""
        return self.rule._spent_ball(self.tally.sums)

    def remaining_ball(self) -> arb | None:
        """An enclosure of the exact remaining budget, or None where :meth:`remaining` is
        ``max_next(0)`` (the largest admissible next primary parameter)."""
        return self.rule._remaining_ball(self.tally.sums)

    def remaining(self) -> float:
        """The remaining primary budget (rounded down)."""
        return self.rule._remaining(self.tally.sums)


def _float_step(
    rule: Rule, tally: FastTally, halted: Flag, primary: Real, delta: Real
) -> tuple[Flag, Flag, tuple[Real, ...]]:
    """(admitted, invalid, sums after) of one float request per session: the one place
    where the fast paths validate, add and decide."""
    with np.errstate(all="ignore"):  # invalid entries compute NaN or inf, then are refused
        valid, after = rule.fast_after(tally.sums, primary, delta)
        ok = both(both(valid, rule._fast_admits(after)), negate(halted))
    return ok, negate(valid), after


@dataclass(frozen=True, slots=True)
class FastFilterState:
    """The vectorised float fast path of a rule: one session per array entry.

    ``spend(primary, delta)`` takes arrays (broadcast to the number of paths) of the
    next primary parameters (epsilon, rho, mu) and deltas, and returns the boolean
    array of admissions and the new state. Refused entries are not charged; invalid ones
    (NaN, infinite, negative, delta outside [0, 1)) are refused and flagged in
    ``invalid``; ``halted`` entries (terminal mode) refuse everything and are not
    ``active``. Never on the unsafe side of the certified path: it admits only what
    :class:`FilterState` would admit.
    """

    rule: Rule
    tally: FastTally
    halted: BoolArray
    terminal: bool
    invalid: BoolArray

    @property
    def sums(self) -> tuple[FloatArray, ...]:
        """The float running sums per path (rounded up)."""
        return cast(tuple[FloatArray, ...], self.tally.sums)

    @property
    def active(self) -> BoolArray:
        """The paths that can still be charged (not halted)."""
        return ~self.halted

    def per_path(self, *values: ArrayLike) -> tuple[FloatArray, ...]:
        """Each value as a float array with one entry per path (broadcast)."""
        n = self.halted.shape[0]
        return tuple(np.broadcast_to(np.asarray(v, dtype=np.float64), (n,)) for v in values)

    def decide(self, primary: ArrayLike, delta: ArrayLike = 0.0) -> BoolArray:
        """The admissions, without charging."""
        p, d = self.per_path(primary, delta)
        return cast(BoolArray, _float_step(self.rule, self.tally, self.halted, p, d)[0])

    def spend(
        self, primary: ArrayLike, delta: ArrayLike = 0.0
    ) -> tuple[BoolArray, FastFilterState]:
        """Charge the admitted entries; refuse (and, if terminal, halt) the others."""
        p, d = self.per_path(primary, delta)
        ok, invalid, after = _float_step(self.rule, self.tally, self.halted, p, d)
        return self.commit(cast(BoolArray, ok), ~cast(BoolArray, invalid), after)

    def commit(
        self, admits: BoolArray, valid: BoolArray, after: tuple[Real, ...]
    ) -> tuple[BoolArray, FastFilterState]:
        """Charge ``after`` where the request is valid, admitted and the path not halted;
        elsewhere refuse (and, if terminal, halt); flag the invalid requests."""
        ok: BoolArray = admits & valid & ~self.halted
        halted = self.halted | ~ok if self.terminal else self.halted
        return ok, FastFilterState(
            self.rule, self.tally.keep(ok, after), halted, self.terminal, ~valid
        )

    def max_next(self, next_delta: ArrayLike = 0.0) -> FloatArray:
        """Per path, the largest admissible next primary parameter, rounded down and
        admitted by :meth:`decide` (NaN where nothing is admitted)."""
        n = self.halted.shape[0]
        (d,) = self.per_path(next_delta)
        candidate = self.rule._fast_max_next(self.tally.sums, d)
        best = np.full(n, np.nan)
        if candidate is not None:
            c = np.maximum(np.asarray(candidate, dtype=np.float64), 0.0)
            best = np.where(self.decide(c, d), c, np.nan)
        todo = np.isnan(best) & self.decide(0.0, d)
        if todo.any():
            best = np.where(todo, self._bisect(d), best)
        return best

    def _bisect(self, delta: FloatArray) -> FloatArray:
        n = self.halted.shape[0]
        lo, hi = np.zeros(n), np.ones(n)
        for _ in range(1100):  # doubling: up to the float range
            grow = self.decide(hi, delta) & np.isfinite(hi)
            if not grow.any():
                break
            lo = np.where(grow, hi, lo)
            hi = np.where(grow, hi * 2, hi)
        for _ in range(64):
            mid = lo + (hi - lo) / 2
            ok = self.decide(mid, delta)
            lo, hi = np.where(ok, mid, lo), np.where(ok, hi, mid)
        return lo

    def remaining(self) -> FloatArray:
        """Per path, the remaining primary budget, rounded down."""
        found = self.rule._fast_remaining(self.tally.sums)
        if found is None:
            return np.nan_to_num(self.max_next(0.0), nan=0.0)
        return np.maximum(np.broadcast_to(np.asarray(found, dtype=np.float64),
                                          self.halted.shape), 0.0)


_float_state = tuple.__new__  # builds a FloatFilterState from its five fields, no defaults


class FloatFilterState(NamedTuple):
    """The scalar route of the float fast path: one session in Python floats, with the
    rule's certified constants and float bounds (the same hooks as
    :class:`FastFilterState`), for single-session speed. A ``NamedTuple``, the cheapest
    immutable value in CPython: a step allocates one tuple."""

    rule: Rule
    sums: tuple[Real, ...]
    halted: bool = False
    terminal: bool = False
    invalid: bool = False

    def decide(self, primary: float, delta: float = 0.0) -> bool:
        """Whether the request (Python floats) would be admitted (pure)."""
        if self.halted:
            return False
        after = self.rule.scalar_after(self.sums, primary, delta)
        return after is not None and bool(self.rule._fast_admits(after))

    def spend(self, primary: float, delta: float = 0.0) -> tuple[bool, FloatFilterState]:
        """Charge the request (Python floats) if admitted; refuse (and, if terminal,
        halt) otherwise."""
        if self.halted:
            return False, self
        rule = self.rule
        after = rule.scalar_after(self.sums, primary, delta)
        if after is not None and rule._fast_admits(after):
            return True, _float_state(FloatFilterState, (rule, after, False, self.terminal, False))
        return False, FloatFilterState(
            rule, self.sums, self.terminal, self.terminal, after is None
        )

    def max_next(self, next_delta: float = 0.0) -> float | None:
        """The largest admissible next primary parameter, rounded down (None if none)."""
        if self.halted:
            return None
        paths = FastFilterState(
            self.rule,
            FastTally(tuple(np.array([s]) for s in self.sums)),
            np.zeros(1, dtype=bool),
            self.terminal,
            np.zeros(1, dtype=bool),
        )
        value = float(paths.max_next(next_delta)[0])
        return None if math.isnan(value) else value

    def remaining(self) -> float:
        """The remaining primary budget, rounded down."""
        found = self.rule._fast_remaining(self.sums)
        if found is None:
            return self.max_next(0.0) or 0.0
        return max(float(found), 0.0)
