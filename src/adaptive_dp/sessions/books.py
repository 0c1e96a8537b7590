"""The books a session header names (a rule, an odometer or an accumulator of
:mod:`adaptive_dp.filters.named`): built once, resumed from exact stored sums in O(1),
stepped through the certified path, and read as the outcome a session answers.

An outcome is stored and exported as exact text of the floats answered (``Fraction`` of
the float, so the float comes back bit for bit): a rule's ``spent`` guarantee fields
(rounded up) and ``remaining`` primary budget (rounded down); an odometer's ``reading``
(a number, rounded up) or an accumulator's (guarantee fields, rounded up). A value with
no finite text is written ``"inf"``, ``"-inf"`` or ``"nan"``, an exhausted accumulator's
reading ``"exhausted"``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

from adaptive_dp.filters.base import Decision, FilterState, Rule
from adaptive_dp.filters.named import Books, build_odometer, build_rule
from adaptive_dp.guarantees.definitions import Guarantee, upper_fields
from adaptive_dp.guarantees.spends import Spend, kind_of
from adaptive_dp.interchange import InterchangeError
from adaptive_dp.ledger import Tally
from adaptive_dp.numerics import short_exact
from adaptive_dp.odometers.accumulators import Accumulator, AccumulatorState, Exhausted
from adaptive_dp.odometers.w23 import OdometerState
from adaptive_dp.transcript import Header

__all__ = [
    "Outcome",
    "SessionBooks",
    "State",
    "float_text",
    "outcome_floats",
    "text_float",
]

State = FilterState | AccumulatorState | OdometerState
Outcome = dict[str, object]
"""Stored outcome: ``{"spent": {field: text}, "remaining": text}`` (rules) or
``{"reading": text | {field: text}}`` (odometers and accumulators)."""

_NON_FINITE = ("inf", "-inf", "nan")


def float_text(x: float) -> str:
    """A float as exact text (``Fraction(x)``), or ``inf``/``-inf``/``nan``."""
    return short_exact(Fraction(x)) if math.isfinite(x) else repr(x)


def text_float(text: str) -> float:
    """The float written by :func:`float_text` (bit for bit)."""
    return float(text) if text in _NON_FINITE else float(Fraction(text))


def _fields_text(g: Guarantee) -> dict[str, str]:
    return {k: float_text(v) for k, v in upper_fields(g).items()}


@dataclass(frozen=True)
class SessionBooks:
    """The rule, odometer or accumulator of a session header, and its mode."""

    header: Header
    books: Rule | Books

    @staticmethod
    def of(header: Header) -> SessionBooks:
        """Build the books a header names (raises the parameter errors of
        :mod:`adaptive_dp.filters.named`)."""
        if header.books == "rule":
            return SessionBooks(header, build_rule(header.name, header.parameters))
        return SessionBooks(header, build_odometer(header.name, header.parameters))

    @property
    def n_sums(self) -> int:
        """The number of exact running sums."""
        return self.books.N_SUMS

    def check(self, spend: Spend, line: int) -> None:
        """Raise :class:`InterchangeError` (field ``kind``) unless the books take ``spend``."""
        if not self.books.supports(spend):
            raise InterchangeError(line, "kind", f"kind {kind_of(spend)!r} is not supported "
                                   f"by {self.header.name} ({self.books.unsupported(spend)})")

    def resume(self, sums: Sequence[Fraction], count: int, halted: bool) -> State:
        """The state with these exact running sums, admitted count and halted flag (O(1))."""
        tally = Tally(tuple(sums), count)
        books = self.books
        if isinstance(books, Rule):
            return FilterState(books, tally, halted, self.header.terminal)
        if isinstance(books, Accumulator):
            return AccumulatorState(books, tally)
        return OdometerState(books, tally)

    def start(self) -> State:
        """The state before any request."""
        return self.resume((Fraction(0),) * self.n_sums, 0, False)

    def step(self, state: State, spend: Spend) -> tuple[Literal["continue", "halt"], State]:
        """The certified decision on ``spend`` and the state after it (odometers and
        accumulators admit everything)."""
        if isinstance(state, FilterState):
            decision, after = state.spend(spend)
            return ("continue" if decision is Decision.CONTINUE else "halt"), after
        if isinstance(state, AccumulatorState):
            return "continue", state.add(spend)
        return "continue", state.spend(spend)

    @staticmethod
    def outcome(state: State) -> Outcome:
        """What the session answers in ``state``, as exact text of the floats."""
        if isinstance(state, FilterState):
            return {"spent": _fields_text(state.spent()),
                    "remaining": float_text(state.remaining())}
        reading = state.reading()
        if isinstance(reading, Exhausted):
            return {"reading": reading.value}
        if isinstance(reading, float):
            return {"reading": float_text(reading)}
        return {"reading": _fields_text(reading)}


def outcome_floats(outcome: Mapping[str, object]) -> dict[str, object]:
    """A stored outcome with its numbers as floats (``"exhausted"`` kept as text)."""
    def value(v: object) -> object:
        if isinstance(v, dict):
            return {k: text_float(str(x)) for k, x in v.items()}
        assert isinstance(v, str)
        return v if v == Exhausted.EXHAUSTED.value else text_float(v)

    return {k: value(v) for k, v in outcome.items()}
