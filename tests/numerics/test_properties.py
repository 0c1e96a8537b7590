"""Property tests of the certified numerics (docs/design.md, principles 5 and 6).

Oracles: exact ``Fraction`` arithmetic and mpmath at 80 significant digits, both
independent of flint.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import pytest
from flint import arb, ctx
from hypothesis import given, settings
from hypothesis import strategies as st

from adaptive_dp.numerics import (
    arb_of,
    ball_lower,
    ball_upper,
    enclose,
    exact,
    exact_lower,
    exact_upper,
    round_down,
    round_up,
    working_precision,
)

EXTREMES = [5e-324, 1e-320, 2.2250738585072014e-308, 1e-300, 1e-16, 0.5, 1.0,
            1 - 2**-53, 1 + 2**-52, 3.0, 1e16, 1e300, 1.7976931348623157e308]

positive_floats = st.one_of(
    st.sampled_from(EXTREMES),
    st.floats(min_value=5e-324, max_value=1e300, allow_nan=False, allow_infinity=False),
)
fractions = st.fractions(max_denominator=10**30).filter(lambda f: abs(f) < 10**300)


def _mp_to_fraction(x: mpmath.mpf) -> Fraction:
    sign, man, exp, _ = mpmath.mpf(x)._mpf_
    value = Fraction(int(man)) * Fraction(2) ** int(exp)
    return -value if sign else value


def _ulp_distance(f: float, x: Fraction) -> Fraction:
    """|f - x| measured in ulps of f."""
    return abs(Fraction(f) - x) / Fraction(math.ulp(f))


# ------------------------------------------------------------------- directed rounding


@given(fractions)
def test_round_up_is_smallest_float_above(x: Fraction) -> None:
    up = round_up(x)
    assert Fraction(up) >= x
    below = math.nextafter(up, -math.inf)
    assert Fraction(below) < x


@given(fractions)
def test_round_down_is_largest_float_below(x: Fraction) -> None:
    down = round_down(x)
    assert Fraction(down) <= x
    assert Fraction(math.nextafter(down, math.inf)) > x


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_rounding_is_exact_on_floats(f: float) -> None:
    assert round_up(Fraction(f)) == f
    assert round_down(Fraction(f)) == f


@pytest.mark.parametrize(
    "x",
    [Fraction(1, 10**400), Fraction(1, 2**1075), Fraction(3, 2**1076)],
)
def test_rounding_below_the_smallest_subnormal(x: Fraction) -> None:
    assert round_up(x) == 5e-324
    assert round_down(x) == 0.0


def test_rounding_beyond_the_float_range() -> None:
    huge = Fraction(10) ** 400
    assert round_up(huge) == math.inf
    assert round_down(huge) == 1.7976931348623157e308


def _dyadic_ball(m: int, e: int) -> arb:
    """The exact ball of m 2^e (exact at 4096 bits: |m| < 2^300)."""
    with working_precision(4096):
        return arb(m) * arb(2) ** e


dyadics = st.tuples(
    st.one_of(st.integers(-(2**300), 2**300),
              st.sampled_from([1, -1, 2**53 - 1, 2**53 + 1, -(2**53 + 1), 2**54 - 1,
                               3 * 2**60 + 1, -(3 * 2**60 + 1)])),
    st.one_of(st.integers(-1400, 1100), st.sampled_from([-1074, -1075, -1126, 971, 1023])),
)


@given(dyadics)
def test_ball_endpoints_round_to_the_nearest_floats_outward(me: tuple[int, int]) -> None:
    """ball_upper / ball_lower of an exact ball m 2^e (the integer route in the normal
    range, the rational one near the subnormal and overflow ranges): the smallest float
    >= it and the largest float <= it."""
    m, e = me
    ball = _dyadic_ball(m, e)
    x = Fraction(m) * Fraction(2) ** e
    up, down = ball_upper(ball), ball_lower(ball)
    assert _above(up, x) and not _above(math.nextafter(up, -math.inf), x)
    assert _below(down, x) and not _below(math.nextafter(down, math.inf), x)


def _above(f: float, x: Fraction) -> bool:
    return f == math.inf or (f != -math.inf and Fraction(f) >= x)


def _below(f: float, x: Fraction) -> bool:
    return f == -math.inf or (f != math.inf and Fraction(f) <= x)


# ------------------------------------------------------------------- exact budgets


def test_decimal_budgets_are_exact() -> None:
    assert exact("0.1") + exact("0.9") == 1
    assert exact(0.1) + exact(0.9) > 1  # the floats' exact binary values: the safe reading
    assert exact("1e-7") == Fraction(1, 10**7)


# ------------------------------------------------------------------- certified floats


def _check_enclosure(upper: float, lower: float, exact_value: Fraction) -> None:
    assert Fraction(lower) <= exact_value <= Fraction(upper)
    if exact_value != 0:
        assert _ulp_distance(upper, exact_value) <= 2
        assert _ulp_distance(lower, exact_value) <= 2


@settings(max_examples=40)
@given(positive_floats)
def test_log_is_enclosed_within_two_ulps(x: float) -> None:
    ball = enclose(lambda: arb_of(x).log())
    with mpmath.workdps(80):
        ref = _mp_to_fraction(mpmath.log(mpmath.mpf(x)))
    if x == 1.0:
        assert ball_upper(ball) == 0.0 and ball_lower(ball) == 0.0
        return
    _check_enclosure(ball_upper(ball), ball_lower(ball), ref)


@settings(max_examples=40)
@given(positive_floats)
def test_sqrt_is_enclosed_within_two_ulps(x: float) -> None:
    ball = enclose(lambda: arb_of(x).sqrt())
    with mpmath.workdps(80):
        ref = _mp_to_fraction(mpmath.sqrt(mpmath.mpf(x)))
    _check_enclosure(ball_upper(ball), ball_lower(ball), ref)


@settings(max_examples=40)
@given(st.one_of(st.sampled_from([-745.0, -700.0, -1e-300, 0.0, 1e-300, 700.0, 709.0]),
                 st.floats(min_value=-740, max_value=709)))
def test_exp_is_enclosed_within_two_ulps(x: float) -> None:
    ball = enclose(lambda: arb_of(x).exp())
    with mpmath.workdps(80):
        ref = _mp_to_fraction(mpmath.exp(mpmath.mpf(x)))
    up, down = ball_upper(ball), ball_lower(ball)
    assert Fraction(down) <= ref <= Fraction(up)
    if ref >= Fraction(2.2250738585072014e-308):  # normal range: ulp-tight
        assert _ulp_distance(up, ref) <= 2 and _ulp_distance(down, ref) <= 2
    else:  # subnormal: within one subnormal step
        assert Fraction(up) - Fraction(down) <= 2 * Fraction(5e-324)


@pytest.mark.parametrize("k", [1, 10, 30, 53])
def test_log_of_delta_near_one(k: int) -> None:
    """-log(1 - d) for d = 1 - 2**-k is exactly k log 2: no cancellation loss."""
    d = Fraction(1) - Fraction(1, 2**k)
    ball = enclose(lambda: -(1 - arb_of(d)).log())
    with mpmath.workdps(80):
        ref = _mp_to_fraction(k * mpmath.log(2))
    _check_enclosure(ball_upper(ball), ball_lower(ball), ref)


def test_log_of_one_minus_delta_near_one_from_float() -> None:
    d = 1 - 2**-53  # the float just below 1
    ball = enclose(lambda: (1 - arb_of(d)).log())
    with mpmath.workdps(80):
        ref = _mp_to_fraction(-53 * mpmath.log(2))
    _check_enclosure(ball_upper(ball), ball_lower(ball), ref)


def test_enclose_retries_precision_on_cancellation() -> None:
    """(1 + 10^-100) - 1 cancels about 330 bits: the first attempt at 128 bits is not
    tight, so ``enclose`` must retry at a higher precision and still be ulp-tight."""
    x = 1 + Fraction(1, 10**100)
    precisions: list[int] = []

    def evaluate() -> arb:
        precisions.append(ctx.prec)
        return arb_of(x) - 1

    ball = enclose(evaluate)
    assert len(precisions) > 1 and precisions[-1] > precisions[0]
    ref = Fraction(1, 10**100)
    _check_enclosure(ball_upper(ball), ball_lower(ball), ref)
    assert exact_lower(ball) <= ref <= exact_upper(ball)


def test_enclose_restores_precision() -> None:
    before = ctx.prec
    enclose(lambda: arb_of(Fraction(1, 3)).log())
    assert ctx.prec == before
