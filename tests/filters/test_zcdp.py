"""R23-Thm2 (approximate-zCDP filter, alias W23-ZCDPFilter) and H23-Thm4.10 (zCDP sum)."""

from __future__ import annotations

import mpmath
import pytest

from adaptive_dp.errors import DeltaRangeError, UnsupportedGuaranteeError
from adaptive_dp.filters.base import Decision
from adaptive_dp.filters.zcdp import ZCDPFilter, ZCDPSumFilter
from adaptive_dp.guarantees.definitions import ZCDP, ApproxDP, ApproxZCDP, PureDP

mpmath.mp.dps = 50


def test_r23_stop_at_2_706_reconstruction_number() -> None:
    """R23 section 7: the rule stops at a sum of squared privacy parameters of roughly
    2.705 for epsilon = 10, delta'' = 1e-6: 2 rho* = 2.706 within 1e-3."""
    state = ZCDPFilter(10, delta="1e-6").start()
    x = state.max_next()
    assert x is not None
    assert abs(2 * x - 2.706) < 1e-3
    # oracle: root of 2 sqrt(c r) + r = 10
    c = mpmath.log(mpmath.mpf(10) ** 6)
    r = (mpmath.sqrt(c + 10) - mpmath.sqrt(c)) ** 2
    assert abs(x - float(r)) < 1e-13 and x <= r


def test_lookahead_and_conclusion() -> None:
    rule = ZCDPFilter(1, delta="2e-6", delta_slack="1e-6")
    state = rule.start()
    d, state = state.spend(ApproxZCDP("0.01", "1e-6"))
    assert d is Decision.CONTINUE
    # the next one would push the delta sum strictly above delta: halts before running
    assert state.decide(ApproxZCDP(0, "1e-12")) is Decision.HALT
    assert state.decide(ZCDP(0)) is Decision.CONTINUE  # equality admitted (strict <)
    spent = state.spent()
    assert isinstance(spent, ApproxDP) and spent.delta == rule.delta
    assert rule.delta == rule.delta_budget + rule.delta_slack


def test_epsilon_part_against_mpmath() -> None:
    rule = ZCDPFilter(1, delta="1e-6")
    state = rule.start()
    n = 0
    while True:
        d, state = state.spend(ZCDP("0.001"))
        if d is Decision.HALT:
            break
        n += 1
    c = mpmath.log(mpmath.mpf(10) ** 6)

    def bound(k: int) -> mpmath.mpf:
        r = k * mpmath.mpf("0.001")
        return 2 * mpmath.sqrt(c * r) + r

    assert bound(n) <= 1 < bound(n + 1)


def test_pure_and_approx_spends_enter_as_eps_sq_over_2() -> None:
    rule = ZCDPFilter(1, delta="2e-6", delta_slack="1e-6")
    s1 = rule.start().spend(ApproxDP("0.2", "1e-7"))[1]
    s2 = rule.start().spend(ApproxZCDP("0.02", "1e-7"))[1]
    assert s1.sums == s2.sums
    assert ZCDPFilter(2, delta="1e-6").start().spend(PureDP("0.2"))[1].sums[0] == ZCDP("0.02").rho


def test_validation() -> None:
    with pytest.raises(DeltaRangeError):
        ZCDPFilter(1, delta=0)  # delta'' > 0 required


def test_zcdp_sum_non_strict_at_equality() -> None:
    state = ZCDPSumFilter("0.5").start()
    for _ in range(5):
        d, state = state.spend(ZCDP("0.1"))
        assert d is Decision.CONTINUE
    assert state.decide(ZCDP("0.0000001")) is Decision.HALT
    assert state.max_next() == 0.0
    assert state.spent() == ZCDP("0.5")
    with pytest.raises(UnsupportedGuaranteeError):
        state.decide(ApproxZCDP("0.1", "1e-6"))


def test_float_spends_are_their_binary_values() -> None:
    # floats 0.1 + 0.9 exceed 1 (safe reading); decimals exhaust it exactly
    s = ZCDPSumFilter(1).start().spend(ZCDP(0.1))[1]
    assert s.decide(ZCDP(0.9)) is Decision.HALT
    s = ZCDPSumFilter(1).start().spend(ZCDP("0.1"))[1]
    assert s.decide(ZCDP("0.9")) is Decision.CONTINUE


def test_lookahead_hook_for_negative_control() -> None:
    """A twin that drops the n+1 look-ahead overrides ``_decision_sums``: it then admits
    the spend that crosses the budget, which the shipped rule refuses."""
    from fractions import Fraction

    class NoLookahead(ZCDPSumFilter):
        def _decision_sums(
            self, before: tuple[Fraction, ...], after: tuple[Fraction, ...]
        ) -> tuple[Fraction, ...]:
            return before

    shipped = ZCDPSumFilter(1).start().spend(ZCDP("0.9"))[1]
    twin = NoLookahead(1).start().spend(ZCDP("0.9"))[1]
    assert shipped.decide(ZCDP("0.5")) is Decision.HALT
    assert twin.decide(ZCDP("0.5")) is Decision.CONTINUE
