"""RRUV16-Filter with its mixture parameter H named (default log(1/delta_g))."""

from __future__ import annotations

import mpmath
import pytest

from adaptive_dp.errors import DeltaRangeError
from adaptive_dp.filters.base import Decision
from adaptive_dp.filters.rruv16 import RRUV16Filter
from adaptive_dp.filters.w23 import W23Filter
from adaptive_dp.guarantees.definitions import ApproxDP, PureDP
from adaptive_dp.guarantees.spends import Spend

mpmath.mp.dps = 50


def count(rule: RRUV16Filter | W23Filter, spend: Spend, cap: int = 1000) -> int:
    state = rule.start()
    for n in range(cap):
        d, state = state.spend(spend)
        if d is Decision.HALT:
            return n
    return cap


def rruv_expr(n: int, eps: str, eps_g: str, delta_g: str, num: int) -> mpmath.mpf:
    e, eg, dg = mpmath.mpf(eps), mpmath.mpf(eps_g), mpmath.mpf(delta_g)
    h = eg**2 / (mpmath.mpf("28.04") * mpmath.log(num / dg))
    v = n * e**2
    conc = mpmath.sqrt(2 * (v + h) * (1 + mpmath.log(v / h + 1) / 2) * mpmath.log(2 / dg))
    return conc + n * e * (mpmath.exp(e) - 1) / 2


@pytest.mark.parametrize(
    ("eps", "eps_g", "delta_g", "n1", "n2"),
    [
        ("0.01", "1", "1e-6", 147, 147),
        ("0.01", "1", "1e-5", 175, 174),
        ("0.1", "10", "1e-6", 131, 130),
        ("0.05", "2", "1e-8", 17, 17),
    ],
)
def test_counts(eps: str, eps_g: str, delta_g: str, n1: int, n2: int) -> None:
    for num, expected, h_log in ((1, n1, "1/delta"), (2, n2, "2/delta")):
        assert rruv_expr(expected, eps, eps_g, delta_g, num) <= mpmath.mpf(eps_g)
        assert rruv_expr(expected + 1, eps, eps_g, delta_g, num) > mpmath.mpf(eps_g)
        assert count(RRUV16Filter(eps_g, delta=delta_g, h_log=h_log), PureDP(eps)) == expected  # type: ignore[arg-type]


def test_h_values() -> None:
    assert abs(RRUV16Filter(1, delta="1e-6").H - 0.0025814) < 1e-7
    assert abs(RRUV16Filter(1, delta="1e-6", h_log="2/delta").H - 0.0024581) < 1e-7


def test_never_admits_more_than_w23_with_half_deltas() -> None:
    """The validity argument: RRUV16 halts whenever W23 with delta' = delta'' =
    delta_g/2 halts."""
    for eps in ("0.01", "0.05", "0.2"):
        spend = PureDP(eps)
        w23 = W23Filter(1, delta="1e-6", delta_slack="5e-7")
        assert count(RRUV16Filter(1, delta="1e-6"), spend) <= count(w23, spend)


def test_delta_half_budget_and_validation() -> None:
    state = RRUV16Filter(1, delta="1e-6").start()
    d, state = state.spend(ApproxDP("0.01", "5e-7"))
    assert d is Decision.CONTINUE
    assert state.decide(ApproxDP("0.01", "1e-15")) is Decision.HALT
    with pytest.raises(DeltaRangeError):
        RRUV16Filter(1, delta="0.4")
    x = RRUV16Filter(1, delta="1e-6").start().max_next()
    assert x is not None
    assert RRUV16Filter(1, delta="1e-6").start().decide(PureDP(x)) is Decision.CONTINUE
    assert RRUV16Filter(1, delta="1e-6").start().decide(PureDP(x * (1 + 1e-9))) is Decision.HALT
