"""The JSON-lines interchange format (docs/design.md): one spend per line, read exactly.

Each line is a JSON object with a ``kind``; numbers are parsed as ``Decimal`` (and
strings are read as exact decimals), so a session recorded by any system replays
exactly. A bad line raises :class:`InterchangeError`, naming the line number and field.
This module only reads JSON: what a spend is lives in :mod:`adaptive_dp.guarantees.spends`. ::

    {"kind": "pure", "epsilon": "0.1"}
    {"kind": "approx", "epsilon": 0.1, "delta": 1e-7}
    {"kind": "pdp", "epsilon": 0.1, "delta": 1e-7}
    {"kind": "zcdp", "rho": 0.005}            (optional "delta": approximate zCDP)
    {"kind": "rdp", "alpha": 8, "epsilon": 0.2}   (or "curve": [[alpha, epsilon], ...])
    {"kind": "gdp", "mu": 0.3}
    {"kind": "expost", "max_epsilon": 0.5, "epsilon": 0.35, "delta": 0}
    {"kind": "bm", "sensitivity": 1, "t_min": 10.0, "t_stop": 12.5}

Audit histories (:func:`read_history`) also take mechanism steps, each with a ``count``
(default 1), and an optional first line naming the neighbouring relation and the regime::

    {"kind": "history", "neighbours": "add-remove", "adaptive": false}
    {"kind": "subsampled-gaussian", "noise_multiplier": 1.1, "sampling_rate": 0.01,
     "count": 1000, "sampling": "poisson"}
    {"kind": "subsampled-laplace", "noise_multiplier": 2, "sampling_rate": 0.05, "count": 10}
    {"kind": "gaussian", "noise_multiplier": 3}
    {"kind": "laplace", "noise_multiplier": 1}
    {"kind": "rr", "epsilon": 1, "count": 5}
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Iterator
from decimal import Decimal
from fractions import Fraction

from adaptive_dp.errors import AdaptiveDPError, ParameterError, ParameterTypeError
from adaptive_dp.guarantees.definitions import (
    GDP,
    RDP,
    ZCDP,
    ApproxDP,
    ApproxZCDP,
    ProbabilisticDP,
    PureDP,
    RDPCurve,
)
from adaptive_dp.guarantees.expost import ExPost
from adaptive_dp.guarantees.histories import (
    NEIGHBOURS,
    STEP_KINDS,
    GaussianStep,
    History,
    LaplaceStep,
    RandomizedResponseStep,
    Step,
    SubsampledGaussianStep,
    SubsampledLaplaceStep,
)
from adaptive_dp.guarantees.spends import KINDS, BrownianSpend, Spend, kind_of
from adaptive_dp.numerics import short_exact

__all__ = [
    "InterchangeError",
    "load_object",
    "numbered_lines",
    "parse_line",
    "parse_object",
    "read_history",
    "read_spends",
    "spend_fields",
]


class InterchangeError(AdaptiveDPError, ValueError):
    """A bad interchange line: names the line number and the field."""

    def __init__(self, line: int, field: str, message: str) -> None:
        self.line = line
        self.field = field
        super().__init__(f"line {line}, field {field!r}: {message}")


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
        return ExPost(num("epsilon"), num("delta"), num("max_epsilon"))
    return BrownianSpend(num("sensitivity"), num("t_min"), num("t_stop"))


def load_object(text: str, line: int = 1) -> dict[str, object]:
    """One JSON-lines line as an object, numbers exact (``Decimal`` and ``int``)."""
    try:
        obj = json.loads(text, parse_float=Decimal, parse_int=int)
    except json.JSONDecodeError as error:
        raise InterchangeError(line, "<json>", f"not valid JSON ({error.msg})") from None
    if not isinstance(obj, dict):
        raise InterchangeError(line, "<json>", "expected a JSON object")
    return obj


def parse_line(text: str, line: int = 1) -> Spend:
    """One interchange line as a spend value (numbers exact)."""
    return parse_object(load_object(text, line), line)


def parse_object(obj: dict[str, object], line: int = 1) -> Spend:
    """One decoded interchange object (numbers ``Decimal``, ``int`` or text) as a spend."""
    try:
        return _build(obj, line)
    except InterchangeError:
        raise
    except (ParameterError, ParameterTypeError) as error:
        raise InterchangeError(line, error.name, str(error)) from None


def spend_fields(spend: Spend) -> dict[str, object]:
    """The interchange object of a spend, every number as exact text (the inverse of
    :func:`parse_object`)."""
    kind = kind_of(spend)
    if isinstance(spend, RDPCurve):
        curve = [[short_exact(p.alpha), short_exact(p.epsilon)] for p in spend.points]
        return {"kind": kind, "curve": curve}
    out: dict[str, object] = {"kind": kind}
    for f in dataclasses.fields(spend):
        value = getattr(spend, f.name)
        if isinstance(value, Fraction):
            out[f.name] = short_exact(value)
    return out


def numbered_lines(lines: Iterable[str]) -> Iterator[tuple[int, str]]:
    """(line number, text) from 1, with bytes that are not UTF-8 reported as an
    :class:`InterchangeError` naming the line (instead of a decoding traceback)."""
    number = 0
    iterator = iter(lines)
    while True:
        try:
            text = next(iterator)
        except StopIteration:
            return
        except UnicodeDecodeError:
            raise InterchangeError(number + 1, "text", "not UTF-8 text") from None
        number += 1
        yield number, text


def read_spends(lines: Iterable[str]) -> Iterator[tuple[int, Spend]]:
    """(line number, spend) for every non-blank line; numbering starts at 1."""
    for number, text in numbered_lines(lines):
        if text.strip():
            yield number, parse_line(text, number)


_STEP_FIELDS = {
    "gaussian": {"noise_multiplier", "count"},
    "laplace": {"noise_multiplier", "count"},
    "rr": {"epsilon", "count"},
    "subsampled-gaussian": {"noise_multiplier", "sampling_rate", "count", "sampling"},
    "subsampled-laplace": {"noise_multiplier", "sampling_rate", "count"},
}


def _step(obj: dict[str, object], line: int) -> Step:
    kind = obj["kind"]
    assert isinstance(kind, str)
    for key in obj:
        if key != "kind" and key not in _STEP_FIELDS[kind]:
            raise InterchangeError(line, key, f"not a field of kind {kind!r}")

    def num(key: str) -> float:
        value = _number(obj, key, line)
        try:
            return float(value)
        except ValueError:
            raise InterchangeError(line, key, f"expected a number, got {value!r}") from None

    count = obj.get("count", 1)
    if isinstance(count, bool) or not isinstance(count, int):
        raise InterchangeError(line, "count", f"expected an integer >= 1, got {count!r}")
    try:
        if kind == "gaussian":
            return GaussianStep(num("noise_multiplier"), count)
        if kind == "laplace":
            return LaplaceStep(num("noise_multiplier"), count)
        if kind == "rr":
            return RandomizedResponseStep(num("epsilon"), count)
        if kind == "subsampled-laplace":
            return SubsampledLaplaceStep(num("noise_multiplier"), num("sampling_rate"), count)
        sampling = obj.get("sampling", "poisson")
        if sampling not in ("poisson", "without-replacement"):
            raise InterchangeError(line, "sampling",
                                   f"'poisson' or 'without-replacement', got {sampling!r}")
        return SubsampledGaussianStep(num("noise_multiplier"), num("sampling_rate"), count,
                                      "poisson" if sampling == "poisson"
                                      else "without-replacement")
    except (ParameterError, ParameterTypeError) as error:
        raise InterchangeError(line, error.name, str(error)) from None


def read_history(lines: Iterable[str], neighbours: str | None = None,
                 adaptive: bool | None = None) -> History | list[Spend]:
    """An audit history: mechanism steps (a :class:`History`) or guarantee spends (a list).

    ``neighbours`` and ``adaptive`` override the optional ``{"kind": "history", ...}``
    header line; the defaults are add/remove neighbours and fixed parameters.
    """
    steps: list[Step] = []
    spends: list[Spend] = []
    header: dict[str, object] = {}
    for number, text in numbered_lines(lines):
        if not text.strip():
            continue
        obj = load_object(text, number)
        kind = obj.get("kind")
        if kind == "history":
            if steps or spends or header:
                raise InterchangeError(number, "kind", "the history header must be line 1")
            for key in obj:
                if key not in ("kind", "neighbours", "adaptive"):
                    raise InterchangeError(number, key, "not a field of the history header")
            header = dict(obj)
            header.setdefault("neighbours", "add-remove")
            continue
        if kind in STEP_KINDS:
            steps.append(_step(obj, number))
        else:
            spends.append(_build(obj, number))
    if steps and spends:
        raise InterchangeError(0, "kind", "a history holds mechanism steps or guarantee "
                               "spends, not both")
    if not steps and not spends:
        raise InterchangeError(0, "<file>", "no steps or spends")
    chosen = neighbours if neighbours is not None else header.get("neighbours", "add-remove")
    if chosen not in NEIGHBOURS:
        raise InterchangeError(1, "neighbours", f"one of {NEIGHBOURS}, got {chosen!r}")
    regime = adaptive if adaptive is not None else header.get("adaptive", False)
    if not isinstance(regime, bool):
        raise InterchangeError(1, "adaptive", f"true or false, got {regime!r}")
    if spends:
        return spends
    try:
        return History(tuple(steps), "add-remove" if chosen == "add-remove" else "substitute",
                       regime)
    except ParameterError as error:
        raise InterchangeError(0, error.name, str(error)) from None
