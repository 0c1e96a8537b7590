"""Exception types, one per kind of misuse (docs/design.md, principle 4).

Every message names the parameter, the value given and the allowed range, so a
caller can fix the input without reading the source. Nothing is clamped silently.
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal
from fractions import Fraction

__all__ = [
    "AdaptiveDPError",
    "CalibrationRangeError",
    "DatasetError",
    "DeltaRangeError",
    "GridError",
    "InsufficientBudgetError",
    "MissingParameterError",
    "NegativeParameterError",
    "NonFiniteError",
    "NonFiniteResultError",
    "OrderError",
    "ParameterError",
    "ParameterTypeError",
    "UnsupportedGuaranteeError",
    "UnvettedMechanismError",
    "expect_type",
    "iterable",
    "shown",
]


class AdaptiveDPError(Exception):
    """Base class of every error raised by adaptive_dp."""


def shown(value: object, limit: int = 40) -> str:
    """A value as a message shows it: exact numbers as plain text (``NaN``, ``2/3``,
    ``1E+400``), never a Python repr such as ``Decimal('NaN')``; anything longer than
    ``limit`` characters is cut, saying how long it was."""
    text = str(value) if isinstance(value, (Decimal, Fraction)) else repr(value)
    if len(text) > limit:
        text = f"{text[: limit - 10]}... ({len(text)} characters)"
    return text


class ParameterError(AdaptiveDPError, ValueError):
    """A parameter has a value outside its allowed range."""

    def __init__(self, name: str, value: object, allowed: str) -> None:
        self.name = name
        self.value = value
        self.allowed = allowed
        super().__init__(f"{name}={shown(value)} is not allowed: expected {allowed}")


class NonFiniteError(ParameterError):
    """NaN, or an infinity where an infinite value is meaningless."""


class NegativeParameterError(ParameterError):
    """A budget, scale or sensitivity below zero (or zero where it must be positive)."""


class DeltaRangeError(ParameterError):
    """A delta outside [0, 1) (or outside (0, 1) where zero is meaningless)."""


class OrderError(ParameterError):
    """A Rényi order outside (1, inf)."""


class GridError(ParameterError):
    """A time grid that is empty or not strictly decreasing and positive."""


class CalibrationRangeError(ParameterError):
    """A calibration formula used outside the range where it is valid."""


class ParameterTypeError(AdaptiveDPError, TypeError):
    """A parameter of the wrong type (for instance a bool where a number is expected)."""

    def __init__(self, name: str, value: object, allowed: str) -> None:
        self.name = name
        self.value = value
        self.allowed = allowed
        super().__init__(
            f"{name}={shown(value)} has type {type(value).__name__}: expected {allowed}"
        )


def expect_type(value: object, kind: type | tuple[type, ...], name: str) -> None:
    """Raise :class:`ParameterTypeError` naming ``name`` unless ``value`` is a ``kind``."""
    if not isinstance(value, kind):
        kinds = kind if isinstance(kind, tuple) else (kind,)
        raise ParameterTypeError(name, value, " or ".join(k.__name__ for k in kinds))


def iterable(value: object, name: str) -> Iterable[object]:
    """``value`` if it is a list, tuple or other non-text iterable, else
    :class:`ParameterTypeError` naming ``name``."""
    if isinstance(value, (str, bytes, dict)) or not isinstance(value, Iterable):
        raise ParameterTypeError(name, value, "a sequence")
    return value


class NonFiniteResultError(AdaptiveDPError, ArithmeticError):
    """A certified computation has no finite answer for these inputs (an enclosure that
    is NaN, or a value beyond the float range): the inputs are outside what can be
    computed, reported instead of a wrong or missing bound."""


class DatasetError(ParameterTypeError):
    """A dataset of the wrong type or shape. The message names its type and size, never
    its contents: error text reaches analysts, and the data is private."""

    def __init__(self, name: str, data: object, allowed: str) -> None:
        size = f" of {len(data)} items" if hasattr(data, "__len__") else ""
        shape = f"a {type(data).__name__}{size}"
        AdaptiveDPError.__init__(self, f"{name} is {shape}: expected {allowed}")
        self.name, self.value, self.allowed = name, shape, allowed


class UnsupportedGuaranteeError(AdaptiveDPError, TypeError):
    """A rule or conversion was handed a guarantee kind it does not support."""


class UnvettedMechanismError(AdaptiveDPError, TypeError):
    """A shell was asked to launch a mechanism class outside its allow-list: the filters
    trust a mechanism's declared guarantee, so an unvetted class could release anything."""

    def __init__(self, mechanism: object, vetted: tuple[type, ...]) -> None:
        names = ", ".join(v.__name__ for v in vetted)
        super().__init__(
            f"{type(mechanism).__name__} is not a vetted mechanism (vetted: {names}); "
            "a curator who trusts its declared guarantee opts out with allow_unvetted=True"
        )


class InsufficientBudgetError(AdaptiveDPError, ValueError):
    """A request that does not fit in the remaining budget (shell objects raise it)."""

    def __init__(self, requested: object, remaining: object) -> None:
        self.requested = requested
        self.remaining = remaining
        super().__init__(
            f"requested {requested} exceeds the remaining budget {remaining}"
        )


class MissingParameterError(AdaptiveDPError, ValueError):
    """A required parameter of a named rule, odometer or transcript header is missing."""

    def __init__(self, what: str, name: str) -> None:
        self.what = what
        self.name = name
        super().__init__(f"{what} needs the parameter {name!r}")
