"""Exact text of rationals: ``format_exact`` and ``short_exact`` read back exactly."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from adaptive_dp.numerics import format_exact, short_exact


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_short_and_format_exact_keep_every_digit_of_a_float(x: float) -> None:
    """Both texts read back as the float's exact binary value (the Decimal context's 28
    digits must not round them: 0.5306521769756932 has 54 significant digits)."""
    value = Fraction(x)
    assert Fraction(short_exact(value)) == value
    assert Fraction(format_exact(value)) == value


def test_non_terminating_rationals_are_p_over_q() -> None:
    assert short_exact(Fraction(1, 3)) == format_exact(Fraction(1, 3)) == "1/3"
    assert short_exact(Fraction(1, 10**400)) == "1e-400"
