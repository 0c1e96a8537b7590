"""The JSON-lines interchange format (docs/design.md): one spend per line, read exactly.

Each line is a JSON object with a ``kind``; numbers are parsed as ``Decimal`` (and
strings are read as exact decimals), so a session recorded by any system replays
exactly. A bad line raises :class:`InterchangeError`, naming the line number and field.

    {"kind": "pure", "epsilon": "0.1"}
    {"kind": "approx", "epsilon": 0.1, "delta": 1e-7}
    {"kind": "pdp", "epsilon": 0.1, "delta": 1e-7}
    {"kind": "zcdp", "rho": 0.005}            (optional "delta": approximate zCDP)
    {"kind": "rdp", "alpha": 8, "epsilon": 0.2}   (or "curve": [[alpha, epsilon], ...])
    {"kind": "gdp", "mu": 0.3}
    {"kind": "expost", "max_epsilon": 0.5, "epsilon": 0.35, "delta": 0}
    {"kind": "bm", "sensitivity": 1, "t_min": 10.0, "t_stop": 12.5}
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import TypeAlias

from adaptive_dp.errors import AdaptiveDPError, ParameterError, ParameterTypeError
from adaptive_dp.guarantees.definitions import (
    GDP,
    RDP,
    ZCDP,
    ApproxDP,
    ApproxZCDP,
    Guarantee,
    ProbabilisticDP,
    PureDP,
    RDPCurve,
)
from adaptive_dp.numerics import exact_delta, exact_nonnegative, exact_positive

__all__ = [
    "KINDS",
    "BrownianSpend",
    "ExPostSpend",
    "InterchangeError",
    "Spend",
    "kind_of",
    "parse_line",
    "read_spends",
]


class InterchangeError(AdaptiveDPError, ValueError):
    """A bad interchange line: names the line number and the field."""

    def __init__(self, line: int, field: str, message: str) -> None:
        self.line = line
        self.field = field
        super().__init__(f"line {line}, field {field!r}: {message}")


@dataclass(frozen=True, slots=True)
class ExPostSpend:
    """An ex-post private mechanism: worst case before it runs, realised E(y), delta."""

    max_epsilon: Fraction
    epsilon: Fraction
    delta: Fraction


@dataclass(frozen=True, slots=True)
class BrownianSpend:
    """A Brownian mechanism: l2 sensitivity, the grid's smallest time value, the stop."""

    sensitivity: Fraction
    t_min: Fraction
    t_stop: Fraction


Spend: TypeAlias = Guarantee | ExPostSpend | BrownianSpend

KINDS = ("pure", "approx", "pdp", "zcdp", "rdp", "gdp", "expost", "bm")


def _number(obj: dict[str, object], key: str, line: int) -> Decimal | int | str:
    if key not in obj:
        raise InterchangeError(line, key, "missing")
    value = obj[key]
    if isinstance(value, bool) or not isinstance(value, (Decimal, int, str)):
        raise InterchangeError(line, key, f"expected a number, got {value!r}")
    return value


def _build(obj: dict[str, object], line: int) -> Spend:
    kind = obj.get("kind")
    if not isinstance(kind, str):
        raise InterchangeError(line, "kind", f"missing or not a string: {kind!r}")
    known = {
        "pure": {"epsilon"},
        "approx": {"epsilon", "delta"},
        "pdp": {"epsilon", "delta"},
        "zcdp": {"rho", "delta"},
        "rdp": {"alpha", "epsilon", "curve"},
        "gdp": {"mu"},
        "expost": {"max_epsilon", "epsilon", "delta"},
        "bm": {"sensitivity", "t_min", "t_stop"},
    }
    if kind not in known:
        raise InterchangeError(line, "kind", f"unknown kind {kind!r}; expected one of {KINDS}")
    for key in obj:
        if key != "kind" and key not in known[kind]:
            raise InterchangeError(line, key, f"not a field of kind {kind!r}")

    def num(key: str) -> Decimal | int | str:
        return _number(obj, key, line)

    if kind == "pure":
        return PureDP(num("epsilon"))
    if kind == "approx":
        return ApproxDP(num("epsilon"), num("delta"))
    if kind == "pdp":
        return ProbabilisticDP(num("epsilon"), num("delta"))
    if kind == "zcdp":
        if "delta" in obj:
            return ApproxZCDP(num("rho"), num("delta"))
        return ZCDP(num("rho"))
    if kind == "rdp":
        if "curve" in obj:
            curve = obj["curve"]
            if not isinstance(curve, list) or not all(
                isinstance(p, list) and len(p) == 2 for p in curve
            ):
                raise InterchangeError(line, "curve", "expected [[alpha, epsilon], ...]")
            return RDPCurve([(p[0], p[1]) for p in curve])
        return RDP(num("alpha"), num("epsilon"))
    if kind == "gdp":
        return GDP(num("mu"))
    if kind == "expost":
        max_eps = exact_nonnegative(num("max_epsilon"), "max_epsilon")
        eps = exact_nonnegative(num("epsilon"), "epsilon")
        if eps > max_eps:
            raise InterchangeError(line, "epsilon", "the realised E(y) exceeds max_epsilon")
        return ExPostSpend(max_eps, eps, exact_delta(num("delta"), "delta"))
    t_min = exact_positive(num("t_min"), "t_min")
    t_stop = exact_positive(num("t_stop"), "t_stop")
    if t_stop < t_min:
        raise InterchangeError(line, "t_stop", "must be >= t_min (time values decrease)")
    return BrownianSpend(exact_nonnegative(num("sensitivity"), "sensitivity"), t_min, t_stop)


_KIND_OF = {
    PureDP: "pure",
    ApproxDP: "approx",
    ProbabilisticDP: "pdp",
    ZCDP: "zcdp",
    ApproxZCDP: "zcdp",
    RDP: "rdp",
    RDPCurve: "rdp",
    GDP: "gdp",
    ExPostSpend: "expost",
    BrownianSpend: "bm",
}


def kind_of(spend: object) -> str:
    """The interchange kind of a spend value (its type name if it has none)."""
    return _KIND_OF.get(type(spend), type(spend).__name__)


def parse_line(text: str, line: int = 1) -> Spend:
    """One interchange line as a spend value (numbers exact)."""
    try:
        obj = json.loads(text, parse_float=Decimal, parse_int=int)
    except json.JSONDecodeError as error:
        raise InterchangeError(line, "<json>", f"not valid JSON ({error.msg})") from None
    if not isinstance(obj, dict):
        raise InterchangeError(line, "<json>", "expected a JSON object")
    try:
        return _build(obj, line)
    except InterchangeError:
        raise
    except (ParameterError, ParameterTypeError) as error:
        raise InterchangeError(line, error.name, str(error)) from None


def read_spends(lines: Iterable[str]) -> Iterator[tuple[int, Spend]]:
    """(line number, spend) for every non-blank line; numbering starts at 1."""
    for number, text in enumerate(lines, start=1):
        if text.strip():
            yield number, parse_line(text, number)
