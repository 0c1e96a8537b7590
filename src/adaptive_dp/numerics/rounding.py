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
from adaptive_dp.numerics.enclosure import arb_of, dyadic_lower, dyadic_upper, enclose

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


def _dyadic_up(m: int, e: int) -> float:
    """``round_up(m 2^e)``, the smallest float >= m 2^e, in integers where the result is
    a normal float (performance only: no Fraction is built): m rounded up (toward +inf)
    to 53 significant bits is a float's significand at the exponent of m 2^e, and
    ldexp of it is exact. Near the subnormal and overflow ranges, :func:`round_up`."""
    if m == 0:
        return 0.0
    size = m.bit_length()  # of |m|: m 2^e lies in [2^(e + size - 1), 2^(e + size))
    if not -1021 <= e + size <= 1023:
        return round_up(Fraction(m * 2**e) if e >= 0 else Fraction(m, 2**-e))
    shift = size - 53
    if shift > 0:
        q = m >> shift  # floor
        if q << shift != m:
            q += 1  # the ceiling: rounded up
        m, e = q, e + shift
    return math.ldexp(m, e)


def ball_upper(ball: arb) -> float:
    """The smallest float >= every point of ``ball`` (+inf for an unbounded ball)."""
    if not ball.is_finite():
        if ball.is_nan():
            raise NonFiniteResultError("a certified enclosure is NaN: the inputs are "
                                       "beyond the computable range")
        return math.inf
    return _dyadic_up(*dyadic_upper(ball))


def ball_lower(ball: arb) -> float:
    """The largest float <= every point of ``ball`` (-inf for an unbounded ball)."""
    if not ball.is_finite():
        if ball.is_nan():
            raise NonFiniteResultError("a certified enclosure is NaN: the inputs are "
                                       "beyond the computable range")
        return -math.inf
    m, e = dyadic_lower(ball)
    return -_dyadic_up(-m, e)  # round_down(x) = -round_up(-x)


def sqrt_down(x: Fraction | float) -> float:
    """sqrt(x) rounded down (0 for x <= 0), from a certified enclosure."""
    if x <= 0:
        return 0.0
    return max(0.0, ball_lower(enclose(lambda: arb_of(x).sqrt())))
