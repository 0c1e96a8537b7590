"""Directed rounding to float, toward more privacy loss (docs/design.md, principle 5).

``round_up`` returns the smallest float >= the exact value; ``round_down`` the
largest float <= it. Applied to a ball's endpoints, the float is within one ulp of
the endpoint (so one or two ulps of the exact value when the ball is ulp-tight),
never an absolute fudge. Subnormals are handled; a value beyond the float range
rounds up to +inf and down to the largest finite float.
"""

from __future__ import annotations

import math
from fractions import Fraction

from flint import arb

from adaptive_dp.errors import NonFiniteResultError
from adaptive_dp.numerics.enclosure import arb_of, enclose, exact_lower, exact_upper

__all__ = ["ball_lower", "ball_upper", "round_down", "round_up", "sqrt_down"]

_MAX = Fraction(1.7976931348623157e308)


def round_up(x: Fraction) -> float:
    """The smallest float >= ``x``."""
    if x > _MAX:
        return math.inf
    if x < -_MAX:
        return -1.7976931348623157e308
    f = float(x)  # correctly rounded to nearest
    if Fraction(f) < x:
        f = math.nextafter(f, math.inf)
    return f


def round_down(x: Fraction) -> float:
    """The largest float <= ``x``."""
    return -round_up(-x)


def ball_upper(ball: arb) -> float:
    """The smallest float >= every point of ``ball`` (+inf for an unbounded ball)."""
    if not ball.is_finite():
        if ball.is_nan():
            raise NonFiniteResultError("a certified enclosure is NaN: the inputs are "
                                       "beyond the computable range")
        return math.inf
    return round_up(exact_upper(ball))


def ball_lower(ball: arb) -> float:
    """The largest float <= every point of ``ball`` (-inf for an unbounded ball)."""
    if not ball.is_finite():
        if ball.is_nan():
            raise NonFiniteResultError("a certified enclosure is NaN: the inputs are "
                                       "beyond the computable range")
        return -math.inf
    return round_down(exact_lower(ball))


def sqrt_down(x: Fraction | float) -> float:
    """sqrt(x) rounded down (0 for x <= 0), from a certified enclosure."""
    if x <= 0:
        return 0.0
    return max(0.0, ball_lower(enclose(lambda: arb_of(x).sqrt())))
