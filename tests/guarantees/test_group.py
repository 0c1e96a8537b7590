"""Tests of CS2080-GroupPrivacy (guarantees/group.py): exact k epsilon, and the
(k epsilon, k e^{(k-1) epsilon} delta) extension against its closed form in mpmath."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from adaptive_dp.errors import DeltaRangeError
from adaptive_dp.guarantees import (
    ApproxDP,
    PureDP,
    group_privacy,
)
from tests.guarantees.gaussian_oracle import (
    DPS,
    mp,
    ulps,
)

# ----------------------------------------------------------------- group privacy


def test_group_privacy_pure_is_exact() -> None:
    assert group_privacy(PureDP("0.1"), 3) == PureDP("0.3")
    assert group_privacy(ApproxDP("0.1", 0), 4) == ApproxDP("0.4", 0)


@settings(max_examples=40)
@given(st.floats(min_value=0.0, max_value=2.0), st.integers(1, 20),
       st.floats(min_value=1e-300, max_value=1e-6))
def test_group_privacy_approx_encloses_closed_form(eps: float, k: int, delta: float) -> None:
    assume(k * math.exp((k - 1) * eps) * delta < 0.5)
    out = group_privacy(ApproxDP(eps, delta), k)
    assert isinstance(out, ApproxDP)
    assert out.epsilon == k * Fraction(eps)
    with mpmath.workdps(DPS):
        ref = k * mpmath.exp((k - 1) * mp(eps)) * mp(delta)
        got = float(out.delta)
        assert mp(got) >= ref
        assert ulps(got, ref) <= 2


def test_group_privacy_refuses_a_vacuous_delta() -> None:
    with pytest.raises(DeltaRangeError):
        group_privacy(ApproxDP(1, "0.1"), 5)


