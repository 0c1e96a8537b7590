"""Upward-rounded float arithmetic for the vectorised fast paths (filters, odometers).

An inexact float sum or product is moved one ulp up (error-free transformations), and
a short chain of library functions (sqrt, log, log1p, expm1) is inflated by a relative
2^-40, far above its accumulated rounding error, then one more ulp.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

__all__ = ["add_up", "inflate_up", "mul_up"]

FloatArray = NDArray[np.float64]

_SPLIT = 134217729.0  # 2^27 + 1, Dekker's splitter


def add_up(a: FloatArray, b: FloatArray) -> FloatArray:
    """a + b rounded up: the float sum, one ulp higher where it was inexact (TwoSum)."""
    s = a + b
    bb = s - a
    err = (a - (s - bb)) + (b - bb)
    return np.where(err > 0, np.nextafter(s, np.inf), s)


def mul_up(a: FloatArray, b: FloatArray) -> FloatArray:
    """a * b rounded up for finite non-negative moderate inputs (Dekker TwoProduct)."""
    p = a * b
    ca = _SPLIT * a
    ahi = ca - (ca - a)
    alo = a - ahi
    cb = _SPLIT * b
    bhi = cb - (cb - b)
    blo = b - bhi
    err = ((ahi * bhi - p) + ahi * blo + alo * bhi) + alo * blo
    return np.where(err > 0, np.nextafter(p, np.inf), p)


_INFLATE = 1.0 + 2.0**-40


def inflate_up(x: FloatArray) -> FloatArray:
    """A float result of a few correctly-or-faithfully rounded operations, pushed up by
    a relative 2^-40 (far above their accumulated rounding error) and one more ulp."""
    return np.nextafter(np.asarray(x, dtype=np.float64) * _INFLATE, np.inf)


