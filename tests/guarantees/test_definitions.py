"""Tests of the guarantee values (guarantees/definitions.py): CS2080-PureDP, R23-Def2.1
(ApproxDP, and W23-ConditionalDP), W23-pDP (ProbabilisticDP, and W23-ConditionalPDP),
H23-Def4.4 (ZCDP), R23-Def2.4 (ApproxZCDP), H23-Def1.3 (RDP and RDPCurve), EXT-GDP (GDP):
exact storage, validation at the boundary, immutability."""

from __future__ import annotations

import math
import pickle
from decimal import Decimal
from fractions import Fraction

import pytest

from adaptive_dp.errors import (
    DeltaRangeError,
    GridError,
    NegativeParameterError,
    NonFiniteError,
    OrderError,
    ParameterTypeError,
)
from adaptive_dp.guarantees import (
    GDP,
    RDP,
    ZCDP,
    ApproxDP,
    ApproxZCDP,
    ProbabilisticDP,
    PureDP,
    RDPCurve,
)


@pytest.mark.parametrize("value", ["0.1", Decimal("0.1"), Fraction(1, 10)])
def test_decimal_inputs_are_exact(value: str | Decimal | Fraction) -> None:
    assert PureDP(value).epsilon == Fraction(1, 10)
    assert ZCDP(value).rho == Fraction(1, 10)
    assert GDP(value).mu == Fraction(1, 10)


def test_floats_keep_their_binary_value() -> None:
    assert PureDP(0.1).epsilon == Fraction(0.1) != Fraction(1, 10)


def test_two_parameter_values() -> None:
    assert ApproxDP("1", "1e-7") == ApproxDP(1, Fraction(1, 10**7))
    assert ProbabilisticDP("1", "1e-7").delta == Fraction(1, 10**7)
    assert ApproxZCDP("0.5", 0).delta == 0
    assert RDP(2, "0.3").alpha == 2


@pytest.mark.parametrize(
    ("make", "error"),
    [
        (lambda: PureDP(-1), NegativeParameterError),
        (lambda: PureDP(math.nan), NonFiniteError),
        (lambda: PureDP(True), ParameterTypeError),
        (lambda: ApproxDP(1, 1), DeltaRangeError),
        (lambda: ApproxDP(1, -0.1), DeltaRangeError),
        (lambda: ProbabilisticDP(1, 2), DeltaRangeError),
        (lambda: ZCDP(math.inf), NonFiniteError),
        (lambda: ApproxZCDP(1, "1.0"), DeltaRangeError),
        (lambda: RDP(1, 1), OrderError),
        (lambda: RDP("0.5", 1), OrderError),
        (lambda: RDP(2, -1), NegativeParameterError),
        (lambda: GDP(-0.5), NegativeParameterError),
        (lambda: GDP("x"), ParameterTypeError),
        (lambda: RDPCurve([]), GridError),
        (lambda: RDPCurve([(2, 1), (2, 2)]), GridError),
    ],
)
def test_bad_values_are_refused(make: object, error: type[Exception]) -> None:
    assert callable(make)
    with pytest.raises(error):
        make()


def test_rdp_curve_sorts_orders() -> None:
    curve = RDPCurve([(8, "0.5"), RDP(2, "0.1")])
    assert curve.orders == (Fraction(2), Fraction(8))
    assert isinstance(curve.points, tuple)


def test_values_are_frozen_and_picklable() -> None:
    g = ApproxDP("0.5", "1e-6")
    with pytest.raises(AttributeError):
        g.epsilon = Fraction(1)  # type: ignore[misc]  # frozen on purpose
    assert pickle.loads(pickle.dumps(g)) == g
    assert hash(ZCDP("0.1")) == hash(ZCDP(Fraction(1, 10)))


def test_conditional_dp_and_pdp_of_an_adaptive_pair() -> None:
    """W23-ConditionalDP / W23-ConditionalPDP: two randomized-response answers on one
    differing bit, the second's p chosen from the first answer y1 (3/4 after 0, 9/10
    after 1). Given each prefix y1 (the same on both sides) the second answer is
    ApproxDP(ln(p/(1-p)), 0) and ProbabilisticDP(ln(p/(1-p)), 0): hockey-stick and loss
    tail from the exact conditional pmfs; at epsilon - 0.01 the hockey-stick is > 0."""
    for y1, p in ((0, Fraction(3, 4)), (1, Fraction(9, 10))):
        on_x = {0: p, 1: 1 - p}
        on_x2 = {0: 1 - p, 1: p}
        eps = math.nextafter(math.log(p / (1 - p)), math.inf)  # rounded up
        dp, pdp = ApproxDP(eps, 0), ProbabilisticDP(eps, 0)

        def hockey(e: float, on_x: dict[int, Fraction] = on_x,
                   on_x2: dict[int, Fraction] = on_x2) -> float:
            return sum(max(0.0, float(on_x[y]) - math.exp(e) * float(on_x2[y])) for y in (0, 1))

        assert hockey(float(dp.epsilon)) <= float(dp.delta), y1
        tail = sum(float(on_x[y]) for y in (0, 1)
                   if math.log(on_x[y] / on_x2[y]) > float(pdp.epsilon) * (1 + 1e-12))
        assert tail <= float(pdp.delta), y1
        assert hockey(eps - 0.01) > 0.01 * float(1 - p), y1
