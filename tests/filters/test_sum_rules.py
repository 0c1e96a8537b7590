"""Exact-sum rules at equality: CS2080-PureDPFilter, CS2080-BasicComp (basic filter),
H23-Thm4.6 (RDP filter at a fixed order), EXT-ST22 (GDP filter)."""

from __future__ import annotations

import pytest

from adaptive_dp.errors import OrderError, UnsupportedGuaranteeError
from adaptive_dp.filters.base import Decision
from adaptive_dp.filters.basic import BasicFilter, PureDPFilter
from adaptive_dp.filters.gdp import GDPFilter
from adaptive_dp.filters.rdp import RDPFilter
from adaptive_dp.guarantees.definitions import GDP, RDP, ZCDP, ApproxDP, PureDP, RDPCurve


def test_pure_filter_equality_admitted_then_halt() -> None:
    state = PureDPFilter(1).start()
    for _ in range(10):
        d, state = state.spend(PureDP("0.1"))
        assert d is Decision.CONTINUE
    assert state.spent() == PureDP(1)
    assert state.decide(PureDP("1e-30")) is Decision.HALT
    assert state.decide(PureDP(0)) is Decision.CONTINUE
    assert state.remaining() == 0.0
    with pytest.raises(UnsupportedGuaranteeError):
        state.decide(ApproxDP("0.1", "1e-9"))


def test_basic_filter_both_budgets_at_equality() -> None:
    """RRUV16-BasicFilter: "sum_{j<=k} epsilon_j > epsilon_g or sum_{j<=k} delta_j > delta_g"
    halts; both budgets are admitted at equality."""
    state = BasicFilter(1, delta="1e-6").start()
    d, state = state.spend(ApproxDP("0.5", "5e-7"))
    d, state = state.spend(ApproxDP("0.5", "5e-7"))
    assert d is Decision.CONTINUE and state.spent() == ApproxDP(1, "1e-6")
    assert state.decide(ApproxDP(0, "1e-20")) is Decision.HALT
    assert state.max_next() == 0.0
    assert state.max_next("1e-20") is None


def test_rdp_filter() -> None:
    rule = RDPFilter(8, 1)
    state = rule.start()
    d, state = state.spend(RDP(8, "0.5"))
    d, state = state.spend(RDPCurve([(2, "0.1"), (8, "0.25")]))
    d, state = state.spend(ZCDP("0.03125"))  # 8 * 0.03125 = 0.25
    assert d is Decision.CONTINUE and state.spent() == RDP(8, 1)
    assert state.decide(RDP(8, "1e-9")) is Decision.HALT
    with pytest.raises(UnsupportedGuaranteeError):
        state.decide(RDP(4, "0.1"))
    with pytest.raises(OrderError):
        RDPFilter(1, 1)


def test_gdp_filter_sum_of_squares_at_equality() -> None:
    state = GDPFilter(1).start()
    d, state = state.spend(GDP("0.6"))
    d, state = state.spend(GDP("0.8"))
    assert d is Decision.CONTINUE
    assert state.decide(GDP("1e-9")) is Decision.HALT
    assert state.spent() == GDP(1)
    s = GDPFilter(1).start().spend(GDP("0.6"))[1]
    x = s.max_next()
    assert x is not None and x <= 0.8 and 0.8 - x < 1e-15
    assert s.decide(GDP(x)) is Decision.CONTINUE
