"""mpmath helpers for searches and reference values (docs/design.md, principle 5).

Searches (an optimal order, a root) run in floats or mpmath; the bound they find is
then certified by an enclosure. Nothing returned here is a certified bound.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from fractions import Fraction

import mpmath

__all__ = [
    "bisect_increasing",
    "golden_minimize",
    "last_true",
    "log_float",
    "mp_precision",
    "shrink_until",
]


@contextmanager
def mp_precision(dps: int = 50) -> Iterator[None]:
    """Evaluate mpmath expressions with ``dps`` decimal digits."""
    with mpmath.workdps(dps):
        yield


def log_float(x: Fraction) -> float:
    """log of a positive rational in floats, also below the float range (searches only)."""
    f = float(x)
    if 1e-300 <= f < math.inf:
        return math.log(f)
    return math.log(x.numerator) - math.log(x.denominator)


def bisect_increasing(
    f: Callable[[float], float], lo: float, hi: float, target: float, iterations: int = 200
) -> float:
    """The largest ``x`` in [lo, hi] found with ``f(x) <= target`` for increasing ``f``.

    Returns ``lo`` when even ``f(lo) > target``; the caller certifies the result.
    """
    if f(hi) <= target:
        return hi
    for _ in range(iterations):
        mid = lo + (hi - lo) / 2
        if mid in (lo, hi):
            break
        if f(mid) <= target:
            lo = mid
        else:
            hi = mid
    return lo


def golden_minimize(
    f: Callable[[float], float], lo: float, hi: float, iterations: int = 200
) -> float:
    """A minimiser of a unimodal ``f`` on [lo, hi] by golden-section search."""
    ratio = (5**0.5 - 1) / 2
    a, b = lo, hi
    c, d = b - ratio * (b - a), a + ratio * (b - a)
    fc, fd = f(c), f(d)
    for _ in range(iterations):
        if abs(b - a) <= 1e-15 * max(1.0, abs(a), abs(b)):
            break
        if fc <= fd:
            b, d, fd = d, c, fc
            c = b - ratio * (b - a)
            fc = f(c)
        else:
            a, c, fc = c, d, fd
            d = a + ratio * (b - a)
            fd = f(d)
    return (a + b) / 2


def shrink_until(candidate: float, admitted: Callable[[float], bool]) -> float | None:
    """Step ``candidate`` down (a few ulps, then geometrically) until it is admitted;
    the largest value found, or None if not even 0 is."""
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


def last_true(holds: Callable[[int], bool], lo: int, hi: int) -> int:
    """The largest integer i in [lo, hi) with ``holds(i)``, for a predicate that holds at
    ``lo``, fails at ``hi`` and changes once (bisection, O(log(hi - lo)) calls)."""
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if holds(mid):
            lo = mid
        else:
            hi = mid
    return lo
