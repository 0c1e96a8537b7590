"""Tight certified floats: a searched float, then an enclosure certifying that it is on
the safe side AND that the float two ulps toward the unsafe side is not
(docs/design.md, principle 5; docs/numerics.md, "Tight conversions").

Two shapes of certificate, one home for both:

* :func:`tight_upper` for a closed form at a given point (an epsilon or delta at a given
  order): the smallest float above the ball, checked against the ball's lower end;
* :func:`step_to_tight` for a root (the smallest epsilon, the largest mu): single-ulp
  steps from the searched float, each decided by :func:`certified_at_most`, a bounded
  number of times; ``None`` tells the caller to fall back to a slower search.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction

from flint import arb

from adaptive_dp.numerics.enclosure import (
    DEFAULT_PRECISION,
    MAX_PRECISION,
    arb_of,
    exact_lower,
    working_precision,
)
from adaptive_dp.numerics.rounding import ball_upper

__all__ = ["STEPS", "certified_at_most", "step_to_tight", "tight_upper"]

_HUGE = arb(2) ** 1024  # above every finite float

STEPS = 24
"""Single-ulp moves :func:`step_to_tight` makes before giving up."""


def certified_at_most(evaluate: Callable[[], arb], bound: Fraction) -> bool | None:
    """Whether the value ``evaluate()`` encloses is <= ``bound``: True or False once a
    ball, at precision doubling from 128 bits, lies on one side of the ball of
    ``bound`` (arb comparisons are certain); None if it still overlaps it at
    :data:`MAX_PRECISION` bits. ``evaluate`` builds its balls inside the call (as for
    :func:`enclose`)."""
    bits = DEFAULT_PRECISION
    while True:
        with working_precision(bits):  # compared at the ball's precision, as balls
            ball = evaluate()
            level = arb_of(bound)
            if ball <= level:
                return True
            if ball > level:
                return False
        if bits >= MAX_PRECISION:
            return None
        bits *= 2


def step_to_tight(
    candidate: float,
    holds: Callable[[float], bool | None],
    toward_safe: float,
    steps: int = STEPS,
) -> float | None:
    """From a searched float, the float x with ``holds(x)`` certified True and the float
    one ulp (or, if that is undecided, two ulps) toward the unsafe side certified False.

    ``holds`` is a certificate (True, False or None = undecided) of a condition monotone
    along the floats, True on the ``toward_safe`` side (+inf for a smallest epsilon,
    -inf for a largest mu). Moves one ulp at a time, at most ``steps`` times; None if
    no certified tight float was reached (the caller falls back)."""
    toward_unsafe = -toward_safe
    seen: dict[float, bool | None] = {}

    def verdict(x: float) -> bool | None:
        if x not in seen:
            seen[x] = holds(x)
        return seen[x]

    x = candidate
    for _ in range(steps):
        if not math.isfinite(x):
            return None
        if verdict(x) is not True:
            x = math.nextafter(x, toward_safe)
            continue
        below = math.nextafter(x, toward_unsafe)
        next_verdict = verdict(below)
        if next_verdict is True:
            x = below
            continue
        if next_verdict is False or verdict(math.nextafter(below, toward_unsafe)) is False:
            return x
        return None
    return None


def tight_upper(enclosure: Callable[[int], arb]) -> float:
    """The smallest float >= the ball ``enclosure(bits)``, with the float two ulps below
    it certified below the ball's lower end (so within two ulps of the exact value);
    ``bits`` doubles from 128 until that holds or reaches :data:`MAX_PRECISION`, where
    the (valid) float is returned as it is."""
    bits = DEFAULT_PRECISION
    while True:
        ball = enclosure(bits)
        with working_precision(bits):  # endpoints at the ball's precision, not 53 bits
            if ball.is_finite() and ball.abs_upper() > _HUGE:
                return math.inf  # beyond the float range (and no 2**(2**k) Fraction)
            upper = ball_upper(ball)
            if not (ball.is_finite() and math.isfinite(upper)) or bits >= MAX_PRECISION:
                return upper
            two_below = math.nextafter(math.nextafter(upper, -math.inf), -math.inf)
            if Fraction(two_below) < exact_lower(ball):
                return upper
        bits *= 2
