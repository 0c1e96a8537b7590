"""EXT-Lecuyer21: the RDP accumulator on a grid of orders and its filter (every order
within its budget). Expectations are Fractions computed here from the spends."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from adaptive_dp.errors import GridError, OrderError, UnsupportedGuaranteeError
from adaptive_dp.filters import Decision, RDPCurveFilter
from adaptive_dp.guarantees.definitions import RDP, ZCDP, ApproxDP, PureDP, RDPCurve
from adaptive_dp.guarantees.spends import Spend
from adaptive_dp.odometers import RDPCurveAccumulator

GRID = (Fraction(2), Fraction(4), Fraction(8))
BUDGET = RDPCurve([(2, 1), (4, 2), (8, 16)])


def test_sums_are_exact_per_order() -> None:
    acc = RDPCurveAccumulator([8, 2, 4])
    assert acc.alphas == GRID
    spends: list[Spend] = [ZCDP(Fraction(1, 7)), PureDP(Fraction(1, 3)),
              RDPCurve([(2, Fraction(1, 5)), (3, 9), (4, Fraction(2, 5)), (8, Fraction(9, 10))])]
    state = acc.start()
    for s in spends:
        state = state.add(s)
    rho = Fraction(1, 7) + Fraction(1, 3) ** 2 / 2
    expected = (rho * 2 + Fraction(1, 5), rho * 4 + Fraction(2, 5), rho * 8 + Fraction(9, 10))
    assert state.sums == expected
    assert state.count == 3
    assert state.reading() == RDPCurve(list(zip(GRID, expected, strict=True)))


def test_supported_kinds() -> None:
    acc = RDPCurveAccumulator(GRID)
    assert acc.supports(ZCDP(1)) and acc.supports(PureDP(1))
    assert acc.supports(RDPCurve([(2, 1), (4, 1), (8, 1)]))
    assert not acc.supports(RDPCurve([(2, 1), (8, 1)]))  # order 4 missing
    assert not acc.supports(RDP(2, 1))  # one order of three
    assert not acc.supports(ApproxDP(1, Fraction(1, 10)))
    assert RDPCurveAccumulator([3]).supports(RDP(3, 1))
    with pytest.raises(UnsupportedGuaranteeError, match="every order"):
        acc.start().add(RDP(2, 1))


def test_within_needs_every_order() -> None:
    acc = RDPCurveAccumulator(GRID)
    # rho = 1/2: (1, 2, 4) against (1, 2, 16): within (equal at 2 and 4: non-strict)
    state = acc.start().add(ZCDP(Fraction(1, 2)))
    assert state.within(BUDGET)
    # one more at order 8 only: (1, 2, 4 + 13) over 16 at order 8 alone
    over = state.add(RDPCurve([(2, 0), (4, 0), (8, 13)]))
    assert over.sums == (Fraction(1), Fraction(2), Fraction(17))
    assert not over.within(BUDGET)
    with pytest.raises(UnsupportedGuaranteeError):
        state.within(RDPCurve([(2, 1), (4, 2)]))  # a different grid


def test_filter_refuses_when_any_order_would_exceed() -> None:
    rule = RDPCurveFilter(BUDGET)
    assert rule.alphas == GRID
    state = rule.start()
    # largest next rho: min over orders of budget/alpha = min(1/2, 1/2, 2)
    assert state.max_next() == 0.5
    decision, state = state.spend(ZCDP(Fraction(1, 4)))
    assert decision is Decision.CONTINUE
    # order 8 has room 16 - 2 = 14, order 2 only 1 - 1/2: a spend (0.6, 0, 0) is refused
    assert state.decide(RDPCurve([(2, Fraction(3, 5)), (4, 0), (8, 0)])) is Decision.HALT
    assert state.decide(RDPCurve([(2, Fraction(1, 2)), (4, 0), (8, 14)])) is Decision.CONTINUE
    decision, same = state.spend(ZCDP(Fraction(1, 3)))
    assert decision is Decision.HALT and same.sums == (Fraction(1, 2), Fraction(1), Fraction(2))
    assert state.spent() == RDPCurve([(2, Fraction(1, 2)), (4, Fraction(1)), (8, Fraction(2))])
    assert state.max_next() == 0.25


def test_fast_path_never_admits_what_the_exact_rule_refuses() -> None:
    rule = RDPCurveFilter(BUDGET)
    rhos = np.array([0.1, 0.5, np.nextafter(0.5, 1.0), 0.7, -1.0, np.nan])
    admitted, fast = rule.fast(len(rhos)).spend(rhos)
    exact = [r >= 0 and bool(rule.start().decide(ZCDP(Fraction(float(r))))) for r in rhos]
    assert admitted.tolist() == exact == [True, True, False, False, False, False]
    assert fast.invalid.tolist() == [False] * 4 + [True] * 2
    assert fast.sums[2][1] == 4.0  # rho alpha at alpha = 8


def test_errors() -> None:
    with pytest.raises(GridError):
        RDPCurveAccumulator([])
    with pytest.raises(GridError):
        RDPCurveAccumulator([2, 2])
    with pytest.raises(OrderError):
        RDPCurveAccumulator([1, 2])
