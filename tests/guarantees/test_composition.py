"""Tests of CS2080-BasicComp, CS2080-AdvComp and EXT-KOV15 (guarantees/composition.py).

Oracles: exact rationals; the DRV10 closed form in mpmath; for KOV15 the exact
hockey-stick divergence of the k-fold product of the worst-case mechanism (binary
randomized response for delta = 0, the four-point KOV mechanism for delta > 0),
enumerated in mpmath at 60 digits, independently of the theorem's formula.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adaptive_dp.errors import DeltaRangeError
from adaptive_dp.guarantees import (
    ApproxDP,
    PureDP,
    compose_advanced,
    compose_basic,
    compose_kov,
)
from adaptive_dp.guarantees.composition import kov_delta_ball
from adaptive_dp.numerics import exact_lower, exact_upper

DPS = 60


def mp(x: object) -> mpmath.mpf:
    if isinstance(x, Fraction):
        return mpmath.mpf(x.numerator) / x.denominator
    return mpmath.mpf(x)


def test_compose_basic_is_exact() -> None:
    assert compose_basic([PureDP("0.1"), PureDP("0.9")]) == PureDP(1)
    assert compose_basic([PureDP("0.1"), ApproxDP("0.2", "1e-7")]) == ApproxDP("0.3", "1e-7")
    assert compose_basic([]) == PureDP(0)
    with pytest.raises(DeltaRangeError):
        compose_basic([ApproxDP(0, "0.6"), ApproxDP(0, "0.4")])


@settings(max_examples=40)
@given(st.floats(min_value=1e-4, max_value=2.0), st.integers(1, 10_000),
       st.floats(min_value=1e-12, max_value=0.1))
def test_compose_advanced_encloses_drv10(eps: float, k: int, slack: float) -> None:
    out = compose_advanced(ApproxDP(eps, 0), k, slack)
    with mpmath.workdps(DPS):
        e = mp(eps)
        ref = e * mpmath.sqrt(2 * k * mpmath.log(1 / mp(slack))) + k * e * mpmath.expm1(e)
        got = float(out.epsilon)
        assert mp(got) >= ref
        assert abs(mp(got) - ref) / math.ulp(got) <= 2
    assert out.delta == Fraction(slack)


@settings(max_examples=30)
@given(st.floats(min_value=1e-4, max_value=1.0), st.integers(1, 5000))
def test_compose_advanced_is_monotone_in_k(eps: float, k: int) -> None:
    g = ApproxDP(eps, "1e-9")
    assert compose_advanced(g, k, "1e-6").epsilon <= compose_advanced(g, k + 1, "1e-6").epsilon


def test_compose_advanced_delta_is_exact_sum() -> None:
    assert compose_advanced(ApproxDP("0.1", "1e-7"), 10, "1e-6").delta == Fraction(2, 10**6)


# ----------------------------------------------------------------- KOV15


def _hockey_stick_rr(eps: Fraction, k: int, target_eps: mpmath.mpf) -> mpmath.mpf:
    """Exact delta(target_eps) of k-fold binary randomized response with parameter eps."""
    e = mpmath.exp(mp(eps))
    p = e / (1 + e)
    total = mpmath.mpf(0)
    for j in range(k + 1):  # j = number of outputs equal to the true bit
        pj = mpmath.binomial(k, j) * p**j * (1 - p) ** (k - j)
        qj = mpmath.binomial(k, j) * (1 - p) ** j * p ** (k - j)
        total += max(mpmath.mpf(0), pj - mpmath.exp(target_eps) * qj)
    return total


def _hockey_stick_kov(eps: Fraction, delta: Fraction, k: int,
                      target_eps: mpmath.mpf) -> mpmath.mpf:
    """Exact delta(target_eps) of the k-fold four-point KOV worst-case mechanism."""
    e, d = mpmath.exp(mp(eps)), mp(delta)
    P = [d, (1 - d) * e / (1 + e), (1 - d) / (1 + e), mpmath.mpf(0)]
    Q = [mpmath.mpf(0), (1 - d) / (1 + e), (1 - d) * e / (1 + e), d]
    total = mpmath.mpf(0)
    for counts in itertools.product(range(k + 1), repeat=4):
        if sum(counts) != k:
            continue
        mult = mpmath.factorial(k)
        for c in counts:
            mult /= mpmath.factorial(c)
        pv = mult * mpmath.fprod(P[i] ** counts[i] for i in range(4))
        qv = mult * mpmath.fprod(Q[i] ** counts[i] for i in range(4))
        total += max(mpmath.mpf(0), pv - mpmath.exp(target_eps) * qv)
    return total


@pytest.mark.parametrize(
    ("eps", "k"), [("0.1", 1), ("0.5", 2), ("0.3", 7), ("1", 12), ("0.05", 40)]
)
def test_kov_terms_equal_randomized_response_exactly(eps: str, k: int) -> None:
    e = Fraction(eps)
    with mpmath.workdps(DPS):
        for i in range(k // 2 + 1):
            ball = kov_delta_ball(e, Fraction(0), k, i)
            ref = _hockey_stick_rr(e, k, (k - 2 * i) * mp(e))
            tol = mpmath.mpf(10) ** -30
            assert mp(exact_lower(ball)) - tol <= ref <= mp(exact_upper(ball)) + tol


@pytest.mark.parametrize(("eps", "delta", "k"), [("0.5", "0.01", 1), ("0.3", "1e-3", 3),
                                                 ("1", "0.05", 5)])
def test_kov_terms_equal_the_worst_case_mechanism(eps: str, delta: str, k: int) -> None:
    e, d = Fraction(eps), Fraction(delta)
    with mpmath.workdps(DPS):
        for i in range(k // 2 + 1):
            ball = kov_delta_ball(e, d, k, i)
            ref = _hockey_stick_kov(e, d, k, (k - 2 * i) * mp(e))
            tol = mpmath.mpf(10) ** -30
            assert mp(exact_lower(ball)) - tol <= ref <= mp(exact_upper(ball)) + tol


def test_kov_k_equal_one_gives_back_the_mechanism() -> None:
    assert compose_kov(ApproxDP("0.5", "0.01"), 1, "0.01") == ApproxDP("0.5", "0.01")
    assert compose_kov(PureDP("0.5"), 1, "1e-9").epsilon == Fraction(1, 2)


@pytest.mark.parametrize(("eps", "k", "target"), [("0.1", 20, "1e-3"), ("0.5", 9, "0.05"),
                                                  ("0.02", 60, "1e-6")])
def test_kov_returns_the_smallest_admissible_grid_point(eps: str, k: int, target: str) -> None:
    e, t = Fraction(eps), Fraction(target)
    out = compose_kov(PureDP(e), k, t)
    with mpmath.workdps(DPS):
        admissible = [i for i in range(k // 2 + 1)
                      if _hockey_stick_rr(e, k, (k - 2 * i) * mp(e)) <= mp(t)]
    assert out.epsilon == (k - 2 * max(admissible)) * e
    assert out.delta == t


@settings(max_examples=20)
@given(st.floats(min_value=1e-3, max_value=1.0), st.integers(1, 300))
def test_kov_is_no_worse_than_basic_or_advanced(eps: float, k: int) -> None:
    g = ApproxDP(eps, "1e-8")
    slack = Fraction(1, 10**6)
    kov = compose_kov(g, k, k * g.delta + slack)
    assert kov.epsilon <= k * g.epsilon
    # KOV is exact on its grid, so it is at most the advanced epsilon rounded up to the grid
    adv = compose_advanced(g, k, slack).epsilon
    assert kov.epsilon <= adv + 2 * g.epsilon


@settings(max_examples=20)
@given(st.floats(min_value=1e-3, max_value=1.0), st.integers(1, 200))
def test_kov_is_monotone_in_k(eps: float, k: int) -> None:
    """Monotone over k of the same parity: the grid (k - 2i) eps changes parity with k,
    so k and k + 1 are not comparable on the grid (e.g. eps = 27/32, k = 46: 44 eps
    versus 43 eps for k = 47)."""
    g = PureDP(eps)
    assert compose_kov(g, k, "1e-6").epsilon <= compose_kov(g, k + 2, "1e-6").epsilon


def test_kov_rejects_a_target_below_basic_delta() -> None:
    with pytest.raises(DeltaRangeError):
        compose_kov(ApproxDP("0.1", "1e-3"), 10, "1e-3")
