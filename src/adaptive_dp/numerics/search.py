"""mpmath helpers for searches and reference values (docs/design.md, principle 5).

Searches (an optimal order, a root) run in floats or mpmath; the bound they find is
then certified by an enclosure. Nothing returned here is a certified bound.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

import mpmath

__all__ = ["bisect_increasing", "golden_minimize", "mp_precision"]


@contextmanager
def mp_precision(dps: int = 50) -> Iterator[None]:
    """Evaluate mpmath expressions with ``dps`` decimal digits."""
    with mpmath.workdps(dps):
        yield


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
