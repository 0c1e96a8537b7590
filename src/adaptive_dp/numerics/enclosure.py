"""Rigorous enclosures with python-flint ``arb`` balls (docs/design.md, principle 5).

A certified quantity is computed as a ball that provably contains the exact value,
then rounded to float in the safe direction by :mod:`adaptive_dp.numerics.rounding`.
flint's working precision is process-global, so every evaluation holds a lock while
it sets the precision; :func:`enclose` retries at doubled precision until the ball is
narrow enough for an ulp-tight float.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextlib import AbstractContextManager
from fractions import Fraction

from flint import arb, ctx, fmpq

__all__ = [
    "DEFAULT_PRECISION",
    "MAX_PRECISION",
    "arb_of",
    "dyadic_lower",
    "dyadic_upper",
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


class _Precision:
    """The context of :func:`working_precision` (a plain class: entered some 10^5 times
    per run, where a generator-based context manager costs several times more)."""

    __slots__ = ("bits", "saved")

    def __init__(self, bits: int) -> None:
        self.bits = bits
        self.saved = 0

    def __enter__(self) -> None:
        _LOCK.acquire()
        try:
            self.saved = ctx.prec
            ctx.prec = self.bits
        except BaseException:
            _LOCK.release()
            raise

    def __exit__(self, *exc: object) -> None:
        ctx.prec = self.saved
        _LOCK.release()


def working_precision(bits: int = DEFAULT_PRECISION) -> AbstractContextManager[None]:
    """Hold the flint lock and evaluate at ``bits`` of precision."""
    return _Precision(bits)


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


def _dyadic(ball: arb, upper: bool) -> tuple[int, int]:
    """(m, e) with the ball's upper (``upper``) or lower endpoint = m 2^e exactly."""
    if not ball.is_finite():
        raise ValueError(f"ball {ball} is not finite")
    with working_precision(MAX_PRECISION):  # the endpoint rounds outward at this precision
        man, exp = (ball.upper() if upper else ball.lower()).man_exp()
    return int(man), int(exp)


def _fraction(m: int, e: int) -> Fraction:
    return Fraction(m * 2**e) if e >= 0 else Fraction(m, 2**-e)


def dyadic_upper(ball: arb) -> tuple[int, int]:
    """(m, e) with m 2^e the exact upper endpoint of a finite ball (rounded up at
    ``MAX_PRECISION`` bits, not at the caller's precision: 53 bits would add an ulp)."""
    return _dyadic(ball, True)


def dyadic_lower(ball: arb) -> tuple[int, int]:
    """(m, e) with m 2^e the exact lower endpoint of a finite ball."""
    return _dyadic(ball, False)


def exact_upper(ball: arb) -> Fraction:
    """The exact rational upper endpoint of a finite ball (:func:`dyadic_upper`)."""
    return _fraction(*_dyadic(ball, True))


def exact_lower(ball: arb) -> Fraction:
    """The exact rational lower endpoint of a finite ball."""
    return _fraction(*_dyadic(ball, False))
