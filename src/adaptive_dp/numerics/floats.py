"""Directed-rounding float arithmetic for the fast paths, on a float or a float array.

Every function takes either Python floats (one session: the scalar route) or numpy
arrays (one entry per path) and returns the same kind, so a rule writes its float bound
once for both. An inexact sum or product is moved one ulp up (error-free
transformations: TwoSum, Dekker's TwoProduct); a short chain of correctly or faithfully
rounded library functions (sqrt, log, log1p, expm1) is pushed up by :func:`inflate_up`,
a relative 2^-40 far above their accumulated error, and one more ulp. Nothing here knows
privacy (docs/design.md, import direction).
"""

from __future__ import annotations

import math
from typing import TypeAlias

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "BoolArray",
    "Flag",
    "FloatArray",
    "Real",
    "add_up",
    "both",
    "expm1",
    "finite_at_least",
    "inflate_up",
    "log",
    "log1p",
    "mul_up",
    "negate",
    "select",
    "sqrt",
    "sub_down",
]

FloatArray = NDArray[np.float64]
BoolArray = NDArray[np.bool_]
Real: TypeAlias = float | FloatArray
"""A float (one session) or a float array (one entry per path)."""
Flag: TypeAlias = bool | BoolArray

_SPLIT = 134217729.0  # 2^27 + 1, Dekker's splitter
_INFLATE = 1.0 + 2.0**-40
_TINY = 2.2250738585072014e-308  # the smallest normal float


def add_up(a: Real, b: Real) -> Real:
    """a + b rounded up: the float sum, one ulp higher where it was inexact (TwoSum)."""
    s = a + b
    bb = s - a
    err = (a - (s - bb)) + (b - bb)
    if isinstance(s, float):
        return math.nextafter(s, math.inf) if err > 0 else s
    return _up_where(s, err > 0)


def sub_down(a: Real, b: Real) -> Real:
    """a - b rounded down."""
    return -add_up(-a, b)


def mul_up(a: Real, b: Real) -> Real:
    """a * b rounded up for finite non-negative inputs (Dekker TwoProduct); a nonzero
    product below the smallest normal float (where TwoProduct's error term is no longer
    exact) is moved one ulp up, which bounds a round-to-nearest result from above."""
    if isinstance(a, float) and isinstance(b, float):
        p, err = _two_product(a, b)
        tiny = p < _TINY and a != 0 and b != 0
        return math.nextafter(p, math.inf) if err > 0 or tiny else p
    with np.errstate(over="ignore", invalid="ignore"):  # huge inputs: p = inf, kept
        pa, erra = _two_product(a, b)
        up = (erra > 0) | ((pa < _TINY) & (a != 0) & (b != 0))
    return _up_where(pa, up)


def _up_where(fresh: Real, up: Flag | BoolArray) -> FloatArray:
    """``fresh`` (a result just computed, referenced nowhere else) one ulp up where
    ``up``: in place for an array (performance only), else as a new 0-d array."""
    if isinstance(fresh, np.ndarray) and fresh.ndim > 0:
        np.nextafter(fresh, np.inf, out=fresh, where=up)
        return fresh
    out: FloatArray = np.where(up, np.nextafter(fresh, np.inf), fresh)
    return out


def _two_product(a: Real, b: Real) -> tuple[Real, Real]:
    """Dekker's TwoProduct: the float product and its rounding error."""
    p = a * b
    ca = _SPLIT * a
    ahi = ca - (ca - a)
    alo = a - ahi
    cb = _SPLIT * b
    bhi = cb - (cb - b)
    blo = b - bhi
    return p, ((ahi * bhi - p) + ahi * blo + alo * bhi) + alo * blo


def inflate_up(x: Real) -> Real:
    """A float result of a few correctly or faithfully rounded operations, pushed up by a
    relative 2^-40 (far above their accumulated rounding error) and one more ulp."""
    if isinstance(x, float):
        return math.nextafter(x * _INFLATE, math.inf)
    pushed = np.asarray(x, dtype=np.float64) * _INFLATE
    if isinstance(pushed, np.ndarray) and pushed.ndim > 0:
        return _up_where(pushed, True)
    out: FloatArray = np.nextafter(pushed, np.inf)
    return out


def sqrt(x: Real) -> Real:
    """sqrt, nearest (a float route and an array route)."""
    return math.sqrt(x) if isinstance(x, float) else np.sqrt(x)


def log(x: Real) -> Real:
    """log, nearest; -inf at 0."""
    if isinstance(x, float):
        return math.log(x) if x > 0 else -math.inf
    return np.log(x)


def log1p(x: Real) -> Real:
    """log1p, nearest."""
    return math.log1p(x) if isinstance(x, float) else np.log1p(x)


def expm1(x: Real) -> Real:
    """expm1, nearest (+inf on overflow)."""
    if isinstance(x, float):
        try:
            return math.expm1(x)
        except OverflowError:
            return math.inf
    with np.errstate(over="ignore"):
        return np.expm1(x)


def finite_at_least(x: Real, low: float, below: float = math.inf) -> Flag:
    """Where ``low <= x < below`` (NaN and infinities are False)."""
    if isinstance(x, float):
        return low <= x < below and x < math.inf  # NaN compares False
    with np.errstate(invalid="ignore"):
        out: BoolArray = np.isfinite(x) & (x >= low) & (x < below)
    return out


def both(a: Flag, b: Flag) -> Flag:
    """Elementwise and."""
    if isinstance(a, bool) and isinstance(b, bool):
        return a and b
    out: BoolArray = np.logical_and(a, b)
    return out


def negate(a: Flag) -> Flag:
    """Elementwise not."""
    if isinstance(a, bool):
        return not a
    out: BoolArray = np.logical_not(a)
    return out


def select(condition: Flag, a: Real, b: Real) -> Real:
    """``a`` where ``condition`` holds, else ``b``."""
    if isinstance(condition, bool):
        return a if condition else b
    out: FloatArray = np.where(condition, a, b)
    return out
