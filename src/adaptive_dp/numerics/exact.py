"""Exact budgets (docs/design.md, principle 6).

Spends given as text (command line, JSON, ``str``, ``Decimal``, ``Fraction``) are
exact decimals; a Python ``float`` is its exact binary value. Sums and comparisons of
these rational quantities are exact, so "0.1" then "0.9" exhausts a budget of "1",
while the floats 0.1 + 0.9 exceed 1 and the second spend is refused: the safe reading.
"""

from __future__ import annotations

import math
from decimal import Decimal, InvalidOperation, localcontext
from fractions import Fraction
from typing import TypeAlias

from adaptive_dp.errors import (
    DeltaRangeError,
    NegativeParameterError,
    NonFiniteError,
    ParameterTypeError,
)

__all__ = [
    "ExactLike",
    "exact",
    "exact_delta",
    "exact_delta_split",
    "exact_nonnegative",
    "exact_positive",
    "format_exact",
    "short_exact",
]

ExactLike: TypeAlias = int | float | str | Decimal | Fraction
"""Anything accepted as an exact number: ints, floats (their binary value),
decimal strings, ``Decimal`` and ``Fraction``."""


def exact(value: object, name: str = "value") -> Fraction:
    """Return ``value`` as an exact ``Fraction``, rejecting NaN, infinities and bools.

    Strings are parsed as decimals ("0.1" is exactly 1/10, "1e-7" is 10**-7); floats
    keep their exact binary value (0.1 is 3602879701896397/2**55).
    """
    if isinstance(value, bool):
        raise ParameterTypeError(name, value, "a number, not a bool")
    if isinstance(value, Fraction):
        return value
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise NonFiniteError(name, value, "a finite number")
        return Fraction(value)
    if isinstance(value, str):
        try:
            value = Decimal(value.strip())
        except InvalidOperation:
            raise ParameterTypeError(name, value, "a decimal number") from None
    if isinstance(value, Decimal):
        if not value.is_finite():
            raise NonFiniteError(name, value, "a finite number")
        return Fraction(value)
    raise ParameterTypeError(name, value, "int, float, str, Decimal or Fraction")


def exact_nonnegative(value: object, name: str) -> Fraction:
    """``exact`` with the check ``value >= 0``."""
    x = exact(value, name)
    if x < 0:
        raise NegativeParameterError(name, value, "a number >= 0")
    return x


def exact_positive(value: object, name: str) -> Fraction:
    """``exact`` with the check ``value > 0``."""
    x = exact(value, name)
    if x <= 0:
        raise NegativeParameterError(name, value, "a number > 0")
    return x


def exact_delta(value: object, name: str = "delta", *, allow_zero: bool = True) -> Fraction:
    """``exact`` with the check ``0 <= value < 1`` (``0 < value < 1`` without zero)."""
    x = exact(value, name)
    if x >= 1 or x < 0 or (x == 0 and not allow_zero):
        raise DeltaRangeError(name, value, "0 <= delta < 1" if allow_zero else "0 < delta < 1")
    return x


def exact_delta_split(
    delta: object, delta_slack: object | None = None, *, slack_zero: bool = False
) -> tuple[Fraction, Fraction]:
    """(delta, delta_slack): a total delta in [0, 1) and its slack part, 0 < slack <=
    delta (0 <= slack with ``slack_zero``); the slack defaults to the whole delta. The
    rest, delta - delta_slack, is what the spends' own deltas may use."""
    total = exact_delta(delta, "delta")
    slack = total if delta_slack is None else exact_delta(delta_slack, "delta_slack")
    if delta_slack is None and total == 0 and not slack_zero:
        raise DeltaRangeError("delta", delta, "0 < delta < 1 (all of it is the slack)")
    if slack > total or (slack == 0 and not slack_zero):
        low = "0 <=" if slack_zero else "0 <"
        raise DeltaRangeError(
            "delta_slack", delta_slack, f"{low} delta_slack <= delta = {format_exact(total)}"
        )
    return total, slack


def short_exact(x: Fraction) -> str:
    """:func:`format_exact`, or scientific notation (``1e-400``) when that is shorter."""
    text = format_exact(x)
    if "/" in text or len(text) <= 12:
        return text
    with localcontext() as ctx:  # normalize() rounds to the context: keep every digit
        ctx.prec = len(text)
        sign, digits, exponent = Decimal(text).normalize().as_tuple()
    assert isinstance(exponent, int)
    mantissa = "".join(map(str, digits))
    power = exponent + len(mantissa) - 1
    body = mantissa[0] + ("." + mantissa[1:] if len(mantissa) > 1 else "")
    scientific = f"{'-' if sign else ''}{body}e{power}"
    return scientific if len(scientific) < len(text) else text


def format_exact(x: Fraction) -> str:
    """Shortest exact decimal text of ``x`` when it has one, else ``p/q``."""
    d = x.denominator
    twos = fives = 0
    while d % 2 == 0:
        d //= 2
        twos += 1
    while d % 5 == 0:
        d //= 5
        fives += 1
    if d != 1:
        return f"{x.numerator}/{x.denominator}"
    scale = max(twos, fives)
    # Decimal's tuple form is exact (scaleb and normalize round to the context precision)
    digits = abs(x.numerator) * 10**scale // x.denominator
    number = Decimal((int(x < 0), tuple(map(int, str(digits))), -scale))
    text = format(number, "f")
    return text.rstrip("0").rstrip(".") if "." in text else text
