"""Rigorous enclosures with python-flint ``arb`` balls (docs/design.md, principle 5).

A certified quantity is computed as a ball that provably contains the exact value,
then rounded to float in the safe direction by :mod:`adaptive_dp.numerics.rounding`.
flint's working precision is process-global, so every evaluation holds a lock while
it sets the precision; :func:`enclose` retries at doubled precision until the ball is
narrow enough for an ulp-tight float.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from fractions import Fraction

from flint import arb, ctx, fmpq

__all__ = [
    "DEFAULT_PRECISION",
    "MAX_PRECISION",
    "arb_of",
    "enclose",
    "exact_lower",
    "exact_upper",
    "working_precision",
]

DEFAULT_PRECISION = 128
"""Bits of working precision for certified evaluations."""

MAX_PRECISION = 4096
"""Precision at which :func:`enclose` stops doubling and returns the ball it has."""

_TARGET_BITS = 64  # relative accuracy needed for a float within one ulp of the ball
_LOCK = threading.RLock()


@contextmanager
def working_precision(bits: int = DEFAULT_PRECISION) -> Iterator[None]:
    """Hold the flint lock and evaluate at ``bits`` of precision."""
    with _LOCK:
        saved = ctx.prec
        ctx.prec = bits
        try:
            yield
        finally:
            ctx.prec = saved


def arb_of(x: Fraction | int | float) -> arb:
    """The ball of an exact rational or float (exact when the value is dyadic)."""
    if isinstance(x, Fraction):
        if x.denominator == 1:
            return arb(x.numerator)
        return arb(fmpq(x.numerator, x.denominator))
    return arb(x)


def enclose(
    evaluate: Callable[[], arb], precision: int = DEFAULT_PRECISION
) -> arb:
    """Evaluate ``evaluate()`` at rising precision until the ball is ulp-tight.

    ``evaluate`` must build every ball from its exact inputs (via :func:`arb_of`)
    inside the call, so that it sees the current precision. A ball that is still
    wide at :data:`MAX_PRECISION` (an infinite or ill-conditioned quantity) is
    returned as it is: it is still a rigorous enclosure, only a loose one.
    """
    bits = precision
    while True:
        with working_precision(bits):
            ball = evaluate()
        if not ball.is_finite() or ball.is_exact() or ball.rel_accuracy_bits() >= _TARGET_BITS:
            return ball
        if bits >= MAX_PRECISION:
            return ball
        bits *= 2


def _point_to_fraction(point: arb) -> Fraction:
    man, exp = point.man_exp()
    m, e = int(man), int(exp)
    return Fraction(m * 2**e) if e >= 0 else Fraction(m, 2**-e)


def exact_upper(ball: arb) -> Fraction:
    """The exact rational upper endpoint of a finite ball (rounded up at
    ``MAX_PRECISION`` bits, not at the caller's precision: 53 bits would add an ulp)."""
    if not ball.is_finite():
        raise ValueError(f"ball {ball} is not finite")
    with working_precision(MAX_PRECISION):  # the endpoint rounds outward at this precision
        return _point_to_fraction(ball.upper())


def exact_lower(ball: arb) -> Fraction:
    """The exact rational lower endpoint of a finite ball."""
    if not ball.is_finite():
        raise ValueError(f"ball {ball} is not finite")
    with working_precision(MAX_PRECISION):
        return _point_to_fraction(ball.lower())
