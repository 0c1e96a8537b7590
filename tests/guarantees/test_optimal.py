"""EXT-MV16 (guarantees/optimal.py): the exact optimal composition, against independent
50-digit mpmath computations written here (the binomial sum of KOV15 for equal epsilons,
and the sum over all 2^k subsets of the hockey-stick divergence of the product of
randomized-response pairs), never against the module's own arithmetic.

``compose_optimal`` must lie in [exact, exact + 2 ulps]: the exact optimum is the root of
a decreasing function, so it is checked by evaluating that function (at 50 digits) at the
returned float (<= delta_total) and at the float two below it (> delta_total).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from fractions import Fraction

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adaptive_dp.errors import DeltaRangeError, ParameterError
from adaptive_dp.guarantees.composition import compose_kov
from adaptive_dp.guarantees.definitions import ApproxDP, PureDP
from adaptive_dp.guarantees.optimal import MAX_TERMS, compose_optimal, optimal_delta

mpmath.mp.dps = 50


def _mp(x: Fraction | float) -> mpmath.mpf:
    if isinstance(x, Fraction):
        return mpmath.mpf(x.numerator) / x.denominator
    return mpmath.mpf(x)  # floats are exact


def _kov_delta(eps: Fraction, k: int, x: float) -> mpmath.mpf:
    """Pure eps-DP, k-fold: sum over j disagreements of C(k, j)(e^{(k-j)e} - e^x e^{je})_+
    / (1 + e^e)^k (KOV15's homogeneous form, 50 digits)."""
    with mpmath.workdps(50):
        w = mpmath.exp(_mp(eps))
        total = mpmath.fsum(
            mpmath.binomial(k, j) * max(mpmath.mpf(0), w ** (k - j) - mpmath.exp(_mp(x)) * w**j)
            for j in range(k + 1)
        )
        return total / (1 + w) ** k


class _BruteForce:
    """The hockey-stick at x of the product of the (eps_i, delta_i) randomized responses,
    by the subset formula summed over all 2^k subsets at 50 digits."""

    def __init__(self, pairs: Sequence[tuple[Fraction, Fraction]]) -> None:
        with mpmath.workdps(50):
            exps = [mpmath.exp(_mp(e)) for e, _ in pairs]
            norm = mpmath.fprod(1 + w for w in exps)
            self.terms = []
            for subset in itertools.product((False, True), repeat=len(pairs)):
                inside = mpmath.fprod(w for w, s in zip(exps, subset, strict=True) if s)
                outside = mpmath.fprod(w for w, s in zip(exps, subset, strict=True) if not s)
                self.terms.append((outside / norm, inside / norm))
            self.kept = mpmath.fprod(1 - _mp(d) for _, d in pairs)

    def delta(self, x: float) -> mpmath.mpf:
        with mpmath.workdps(50):
            ex = mpmath.exp(_mp(x))
            pure = mpmath.fsum(max(mpmath.mpf(0), a - ex * b) for a, b in self.terms)
            return 1 - self.kept * (1 - pure)


def _guarantee(eps: Fraction, delta: Fraction) -> PureDP | ApproxDP:
    return ApproxDP(eps, delta) if delta else PureDP(eps)


def _below(x: float, steps: int) -> float:
    for _ in range(steps):
        x = math.nextafter(x, -math.inf)
    return x


def test_hundred_tenths_at_1e_5_is_the_exact_optimum_within_2_ulps() -> None:
    eps, k, target = Fraction(1, 10), 100, Fraction(1, 10**5)
    result = compose_optimal([PureDP(eps)] * k, target)
    answer = float(result.epsilon)
    assert result.delta == target
    # the exact optimum, independently: root of the KOV15 sum at 50 digits
    with mpmath.workdps(50):
        exact = mpmath.findroot(lambda x: _kov_delta(eps, k, x) - _mp(target), (4.3, 4.31),
                                solver="anderson")
    assert mpmath.nstr(exact, 12) == "4.30679137252"
    assert _kov_delta(eps, k, answer) <= _mp(target) < _kov_delta(eps, k, _below(answer, 2))
    ulps = 0
    while _below(answer, ulps + 1) >= exact:
        ulps += 1
    assert exact <= answer and ulps <= 1  # answer - exact < 2 ulps; here within 1
    assert answer < float(compose_kov(PureDP(eps), k, target).epsilon) == 4.4


_MENU = (Fraction(1, 10), Fraction(1, 4), Fraction(1, 2), Fraction(1), Fraction(3, 2))
_EPSILON = st.one_of(
    st.sampled_from(_MENU),
    st.fractions(min_value=Fraction(1, 1000), max_value=Fraction(2), max_denominator=1000),
)
_DELTA = st.sampled_from((Fraction(0), Fraction(0), Fraction(1, 10**7), Fraction(1, 10**4)))


@settings(max_examples=40)
@given(
    st.lists(st.tuples(_EPSILON, _DELTA), min_size=1, max_size=12),
    st.sampled_from((Fraction(1, 10**6), Fraction(1, 10**3), Fraction(1, 20), Fraction(3, 10))),
    st.floats(min_value=0.0, max_value=1.0),
)
def test_heterogeneous_against_all_subsets(
    pairs: list[tuple[Fraction, Fraction]], slack: Fraction, where: float
) -> None:
    guarantees = [_guarantee(e, d) for e, d in pairs]
    brute = _BruteForce(pairs)
    # optimal_delta: an upper bound, within a relative 1e-12
    x = where * float(sum(e for e, _ in pairs))
    exact = brute.delta(x)
    found = optimal_delta(guarantees, x)
    assert found >= exact * (1 - mpmath.mpf(10) ** -40)
    assert found <= exact * (1 + mpmath.mpf(10) ** -12) + mpmath.mpf(10) ** -300
    # compose_optimal: in [exact, exact + 2 ulps]; the total target leaves delta' = slack
    basic = 1 - math.prod((1 - d for _, d in pairs), start=Fraction(1))
    target = basic + slack
    answer = float(compose_optimal(guarantees, target).epsilon)
    assert brute.delta(answer) <= _mp(target)
    if answer > 0:
        assert brute.delta(_below(answer, 2)) > _mp(target)
    else:
        assert brute.delta(0.0) <= _mp(target)


@settings(max_examples=30)
@given(
    st.fractions(min_value=Fraction(1, 100), max_value=Fraction(1), max_denominator=100),
    st.integers(1, 60),
    st.sampled_from((Fraction(1, 10**8), Fraction(1, 10**5), Fraction(1, 100), Fraction(1, 5))),
)
def test_between_the_exact_value_and_the_kov_grid(eps: Fraction, k: int, target: Fraction) -> None:
    answer = float(compose_optimal([PureDP(eps)] * k, target).epsilon)
    assert answer <= compose_kov(PureDP(eps), k, target).epsilon
    # never below the exact optimum: the KOV15 sum at the answer is within the target
    assert _kov_delta(eps, k, answer) <= _mp(target)
    if answer > 0:
        assert _kov_delta(eps, k, _below(answer, 2)) > _mp(target)


def test_grid_points_are_kov15_values() -> None:
    """At a grid point (k - 2i) eps the optimum is KOV15's: 4 randomized responses of
    eps = 1 at delta_1 = (e^4 - e^2)/(1 + e)^4, so eps_g = 2 (within 2 ulps)."""
    with mpmath.workdps(50):
        e = mpmath.e
        d1 = (e**4 - e**2) / (1 + e) ** 4
    target = Fraction(mpmath.nstr(d1, 40))
    answer = float(compose_optimal([PureDP(1)] * 4, target).epsilon)
    assert 2.0 - 2 * math.ulp(2.0) <= answer <= 2.0 + 2 * math.ulp(2.0)


def test_basic_and_trivial_cases() -> None:
    # delta_total 0 with pure mechanisms: basic composition's sum (exact float)
    assert compose_optimal([PureDP("0.5"), PureDP("0.25")], 0).epsilon == Fraction(3, 4)
    # delta_total at least the total variation distance: epsilon 0
    assert compose_optimal([PureDP("0.1")], "0.5").epsilon == 0
    # an epsilon-0 mechanism adds nothing
    with_zero = compose_optimal([PureDP("0.3")] * 5 + [PureDP(0)], "1e-3")
    assert with_zero.epsilon == compose_optimal([PureDP("0.3")] * 5, "1e-3").epsilon
    assert optimal_delta([PureDP(1)], 1) == 0.0
    assert optimal_delta([ApproxDP(1, "0.25")], 5) == 0.25
    # TV distance of one randomized response: (e - 1)/(e + 1)
    expected = (math.e - 1) / (math.e + 1)
    assert optimal_delta([PureDP(1)], 0) == pytest.approx(expected, rel=1e-15)


def test_refusals() -> None:
    with pytest.raises(DeltaRangeError, match="delta_total"):
        compose_optimal([ApproxDP("0.1", "1e-5")] * 3, "2e-5")  # below 1 - (1 - 1e-5)^3
    distinct = [PureDP(Fraction(1, n)) for n in range(1, 18)]  # 2^17 > MAX_TERMS
    with pytest.raises(ParameterError, match=f"MAX_TERMS = {MAX_TERMS}"):
        compose_optimal(distinct, "1e-5")
    with pytest.raises(ParameterError, match="MAX_TERMS"):
        optimal_delta([PureDP("0.1")] * MAX_TERMS, 1)
    with pytest.raises(ParameterError):
        optimal_delta([PureDP("0.1")], -1)
