"""Budget transcripts, version 1 (docs/design.md, transcripts): what a system was asked,
what it decided and what it reported, in JSON Lines, read exactly.

Line 1 is the header, naming the rule (a key of ``filters.named.RULES``) or the odometer
(``filters.named.ODOMETERS`` / ``ACCUMULATORS``) with its parameters, the mode of a rule
after a refusal, the neighbouring relation and whether children are composed
concurrently (H23-Def2.7, H23-Alg3)::

    {"transcript": 1, "rule": "w23", "parameters": {"epsilon": "1", "delta": "1e-6"},
     "mode": "refuse-and-continue", "neighbours": "add-remove", "concurrent": false,
     "source": "free text: which system, which run"}

Every later line is one request: a spend in the interchange format (any kind) with the
recorded outcome, each optional::

    {"kind": "pure", "epsilon": "0.1", "decision": "continue", "spent": {"epsilon": "0.3"},
     "remaining": "0.7", "id": "request-17"}

``decision`` is ``"continue"`` (admitted) or ``"halt"`` (refused); ``spent`` (rules) and
``reading`` (odometers) are the loss the system reported after the line, a number (the
primary parameter: epsilon, rho or mu) or an object of guarantee fields; ``remaining`` is
the remaining primary budget it reported; ``id`` a request id; ``child`` names the
launched child in a concurrent transcript (required there, forbidden elsewhere). A line
without a recorded outcome is a plain replay. Numbers are read as in the interchange
format (``Decimal``); a bad line raises :class:`~adaptive_dp.interchange.InterchangeError`
naming the line number and the field.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from typing import Literal

from adaptive_dp.guarantees.histories import NEIGHBOURS
from adaptive_dp.guarantees.spends import Spend
from adaptive_dp.interchange import (
    InterchangeError,
    load_object,
    numbered_lines,
    parse_object,
    spend_fields,
)
from adaptive_dp.numerics import short_exact

__all__ = [
    "MODES",
    "VERSION",
    "Entry",
    "Header",
    "Recorded",
    "Transcript",
    "entry_line",
    "header_line",
    "read_transcript",
]

VERSION = 1
MODES = ("refuse-and-continue", "terminal")
_RECORDED = ("decision", "spent", "remaining", "reading", "id", "child")
_HEADER = ("transcript", "rule", "odometer", "parameters", "mode", "neighbours",
           "concurrent", "source")

Recorded = Fraction | Mapping[str, Fraction]
"""A reported loss: the primary parameter, or guarantee fields by name."""


@dataclass(frozen=True)
class Header:
    """The transcript's first line."""

    books: Literal["rule", "odometer"]
    name: str
    parameters: Mapping[str, str]
    mode: Literal["refuse-and-continue", "terminal"] = "refuse-and-continue"
    neighbours: str = "add-remove"
    concurrent: bool = False
    source: str | None = None

    @property
    def terminal(self) -> bool:
        """Whether a refusal halts the rule forever (the papers' stopping time)."""
        return self.mode == "terminal"


@dataclass(frozen=True)
class Entry:
    """One request line: the spend and what the system recorded (None: not recorded)."""

    line: int
    spend: Spend
    decision: Literal["continue", "halt"] | None = None
    spent: Recorded | None = None
    remaining: Fraction | None = None
    reading: Recorded | None = None
    id: str | None = None
    child: str | None = None
    text: Mapping[str, object] = field(default_factory=dict, compare=False, repr=False)
    """The spend's fields as given (for reports)."""

    @property
    def recorded(self) -> bool:
        """Whether the line records an outcome (else it is a plain replay)."""
        return any(v is not None for v in (self.decision, self.spent, self.remaining,
                                           self.reading))


@dataclass(frozen=True)
class Transcript:
    """A header and its request lines, in order."""

    header: Header
    entries: tuple[Entry, ...]


def _text(value: object, line: int, key: str) -> str:
    if isinstance(value, bool) or not isinstance(value, (str, int, Decimal)):
        raise InterchangeError(line, key, f"expected a number or text, got {value!r}")
    return str(value)


def _header(obj: dict[str, object], line: int) -> Header:
    for key in obj:
        if key not in _HEADER:
            raise InterchangeError(line, key, f"not a header field; expected {_HEADER}")
    if obj.get("transcript") != VERSION:
        raise InterchangeError(line, "transcript",
                               f"version {VERSION} expected, got {obj.get('transcript')!r}")
    books: Literal["rule", "odometer"]
    if ("rule" in obj) == ("odometer" in obj):
        raise InterchangeError(line, "rule", "exactly one of 'rule' and 'odometer'")
    books = "rule" if "rule" in obj else "odometer"
    name = obj[books]
    if not isinstance(name, str):
        raise InterchangeError(line, books, f"expected a name, got {name!r}")
    params = obj.get("parameters", {})
    if not isinstance(params, dict):
        raise InterchangeError(line, "parameters", "expected an object of parameters")
    parameters = {str(k): _text(v, line, f"parameters.{k}") for k, v in params.items()}
    mode = obj.get("mode", "refuse-and-continue")
    if mode not in MODES:
        raise InterchangeError(line, "mode", f"one of {MODES}, got {mode!r}")
    neighbours = obj.get("neighbours", "add-remove")
    if neighbours not in NEIGHBOURS:
        raise InterchangeError(line, "neighbours", f"one of {NEIGHBOURS}, got {neighbours!r}")
    concurrent = obj.get("concurrent", False)
    if not isinstance(concurrent, bool):
        raise InterchangeError(line, "concurrent", f"true or false, got {concurrent!r}")
    if concurrent and books != "rule":
        raise InterchangeError(line, "concurrent", "concurrent transcripts name a rule")
    source = obj.get("source")
    if source is not None and not isinstance(source, str):
        raise InterchangeError(line, "source", f"expected text, got {source!r}")
    return Header(books, name, parameters, "terminal" if mode == "terminal" else
                  "refuse-and-continue", str(neighbours), concurrent, source)


def _number(value: object, line: int, key: str) -> Fraction:
    if isinstance(value, bool) or not isinstance(value, (str, int, Decimal)):
        raise InterchangeError(line, key, f"expected a number, got {value!r}")
    try:  # decimal text, an exponent, or p/q: all exact
        return Fraction(value) if not isinstance(value, str) else Fraction(value.strip())
    except (ValueError, ZeroDivisionError):
        raise InterchangeError(line, key, f"expected a finite number, got {value!r}") from None


def _loss(value: object, line: int, key: str) -> Recorded:
    if isinstance(value, dict):
        return {str(k): _number(v, line, f"{key}.{k}") for k, v in value.items()}
    return _number(value, line, key)


def _entry(obj: dict[str, object], line: int, header: Header) -> Entry:
    spend_part = {k: v for k, v in obj.items() if k not in _RECORDED}
    spend = parse_object(spend_part, line)
    decision = obj.get("decision")
    if decision is not None and decision not in ("continue", "halt"):
        raise InterchangeError(line, "decision", f"'continue' or 'halt', got {decision!r}")
    if header.books == "odometer":
        for key in ("decision", "spent", "remaining"):
            if key in obj:
                raise InterchangeError(line, key, "an odometer transcript records 'reading'")
    elif "reading" in obj:
        raise InterchangeError(line, "reading", "a rule's transcript records 'spent'")
    child = obj.get("child")
    if header.concurrent != (child is not None):
        need = "required in" if header.concurrent else "only allowed in"
        raise InterchangeError(line, "child", f"{need} a concurrent transcript")
    for key in ("id", "child"):
        if key in obj and not isinstance(obj[key], str):
            raise InterchangeError(line, key, f"expected text, got {obj[key]!r}")
    return Entry(
        line,
        spend,
        "continue" if decision == "continue" else "halt" if decision == "halt" else None,
        _loss(obj["spent"], line, "spent") if "spent" in obj else None,
        _number(obj["remaining"], line, "remaining") if "remaining" in obj else None,
        _loss(obj["reading"], line, "reading") if "reading" in obj else None,
        str(obj["id"]) if "id" in obj else None,
        str(child) if child is not None else None,
        spend_part,
    )


def read_transcript(lines: Iterable[str]) -> Transcript:
    """A transcript from its lines (blank lines skipped; numbering starts at 1)."""
    header: Header | None = None
    entries: list[Entry] = []
    for number, text in numbered_lines(lines):
        if not text.strip():
            continue
        obj = load_object(text, number)
        if header is None:
            if "transcript" not in obj:
                raise InterchangeError(number, "transcript",
                                       "the first line must be the transcript header")
            header = _header(obj, number)
        else:
            entries.append(_entry(obj, number, header))
    if header is None:
        raise InterchangeError(0, "<file>", "empty transcript: no header line")
    return Transcript(header, tuple(entries))


def header_line(header: Header) -> str:
    """The header as one JSON line (keys in a fixed order)."""
    obj: dict[str, object] = {"transcript": VERSION, header.books: header.name,
                              "parameters": dict(header.parameters), "mode": header.mode,
                              "neighbours": header.neighbours,
                              "concurrent": header.concurrent}
    if header.source is not None:
        obj["source"] = header.source
    return json.dumps(obj)


def entry_line(
    spend: Spend | Mapping[str, object],
    *,
    decision: str | None = None,
    spent: Recorded | None = None,
    remaining: Fraction | None = None,
    reading: Recorded | None = None,
    id: str | None = None,
    child: str | None = None,
) -> str:
    """One request line: the spend (a value, written exactly, or its interchange fields
    as given) and the recorded outcome; numbers as exact text (a decimal, or p/q)."""
    obj: dict[str, object] = dict(spend_fields(spend) if not isinstance(spend, Mapping)
                                  else spend)

    def loss(value: Recorded) -> object:
        if isinstance(value, Fraction):
            return short_exact(value)
        return {k: short_exact(v) for k, v in value.items()}

    if decision is not None:
        obj["decision"] = decision
    if spent is not None:
        obj["spent"] = loss(spent)
    if remaining is not None:
        obj["remaining"] = short_exact(remaining)
    if reading is not None:
        obj["reading"] = loss(reading)
    if id is not None:
        obj["id"] = id
    if child is not None:
        obj["child"] = child
    return json.dumps(obj)
