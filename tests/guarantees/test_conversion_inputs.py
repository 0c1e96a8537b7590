"""Bad input to every conversion raises the documented error and changes nothing
(docs/design.md, principle 4): NaN, infinities, negatives, delta outside its range, bools and
wrong types, wrong guarantee kinds."""

from __future__ import annotations

import copy
import math
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import pytest

from adaptive_dp.errors import (
    AdaptiveDPError,
    CalibrationRangeError,
    DeltaRangeError,
    NegativeParameterError,
    NonFiniteError,
    OrderError,
    ParameterError,
    ParameterTypeError,
    UnsupportedGuaranteeError,
)
from adaptive_dp.guarantees import (
    GDP,
    RDP,
    ZCDP,
    ApproxDP,
    ApproxDPTradeoff,
    ApproxZCDP,
    GaussianTradeoff,
    PureDP,
    compose_advanced,
    compose_basic,
    compose_gdp,
    compose_kov,
    compose_rdp,
    compose_zcdp,
    gaussian_rdp,
    gaussian_sigma_cs2080,
    gaussian_sigma_zcdp,
    gdp_delta,
    gdp_mu_for,
    gdp_to_dp,
    group_privacy,
    laplace_scale,
    pure_to_zcdp,
    rdp_to_dp,
    zcdp_delta_optimal,
    zcdp_rdp_curve,
    zcdp_to_dp_bun_steinke,
    zcdp_to_dp_optimal,
)

BAD_DELTAS: list[tuple[object, type[Exception]]] = [
    (math.nan, NonFiniteError),
    (math.inf, NonFiniteError),
    (Decimal("NaN"), NonFiniteError),
    ("nan", NonFiniteError),
    (-1e-9, DeltaRangeError),
    (0, DeltaRangeError),
    (1, DeltaRangeError),
    ("1", DeltaRangeError),
    (1.5, DeltaRangeError),
    (True, ParameterTypeError),
    (None, ParameterTypeError),
    ([0.1], ParameterTypeError),
    ("abc", ParameterTypeError),
]

DELTA_CALLS: list[tuple[str, Callable[[Any], object]]] = [
    ("bun-steinke", lambda d: zcdp_to_dp_bun_steinke(ZCDP("0.1"), d)),
    ("cks20", lambda d: zcdp_to_dp_optimal(ZCDP("0.1"), d)),
    ("rdp", lambda d: rdp_to_dp(RDP(2, "0.1"), d)),
    ("gdp", lambda d: gdp_to_dp(GDP(1), d)),
    ("advanced", lambda d: compose_advanced(ApproxDP("0.1", 0), 10, d)),
    ("cs2080-sigma", lambda d: gaussian_sigma_cs2080(1, "0.5", d)),
]


@pytest.mark.parametrize(("value", "error"), BAD_DELTAS)
@pytest.mark.parametrize(("name", "call"), DELTA_CALLS)
def test_bad_deltas_raise(name: str, call: Callable[[Any], object], value: object,
                          error: type[Exception]) -> None:
    with pytest.raises(error):
        call(value)


BAD_NUMBERS: list[tuple[object, type[Exception]]] = [
    (math.nan, NonFiniteError),
    (-math.inf, NonFiniteError),
    (math.inf, NonFiniteError),
    (-0.5, NegativeParameterError),
    (False, ParameterTypeError),
    (object(), ParameterTypeError),
]

NUMBER_CALLS: list[tuple[str, Callable[[Any], object]]] = [
    ("zcdp-delta eps", lambda x: zcdp_delta_optimal(ZCDP("0.1"), x)),
    ("gdp-delta eps", lambda x: gdp_delta(GDP(1), x)),
    ("gdp-mu eps", lambda x: gdp_mu_for(x, "1e-6")),
    ("laplace eps", lambda x: laplace_scale(1, x)),
    ("laplace sens", lambda x: laplace_scale(x, 1)),
    ("sigma rho", lambda x: gaussian_sigma_zcdp(1, x)),
    ("gaussian rdp sigma", lambda x: gaussian_rdp(1, x, 2)),
    ("gaussian rdp sens", lambda x: gaussian_rdp(x, 1, 2)),
    ("cs2080 eps", lambda x: gaussian_sigma_cs2080(1, x, "1e-6")),
    ("tradeoff mu", lambda x: GaussianTradeoff(x)),
    ("tradeoff eps", lambda x: ApproxDPTradeoff(x, 0)),
]


@pytest.mark.parametrize(("value", "error"), BAD_NUMBERS)
@pytest.mark.parametrize(("name", "call"), NUMBER_CALLS)
def test_bad_numbers_raise(name: str, call: Callable[[Any], object], value: object,
                           error: type[Exception]) -> None:
    with pytest.raises(error):
        call(value)


def test_zero_where_positive_is_required() -> None:
    with pytest.raises(NegativeParameterError):
        laplace_scale(1, 0)
    with pytest.raises(NegativeParameterError):
        gaussian_sigma_zcdp(1, 0)
    with pytest.raises(NegativeParameterError):
        gaussian_rdp(1, 0, 2)


def test_orders_must_exceed_one() -> None:
    with pytest.raises(OrderError):
        gaussian_rdp(1, 1, 1)
    with pytest.raises(OrderError):
        zcdp_rdp_curve(ZCDP(1), [2, "0.5"])


@pytest.mark.parametrize("k", [0, -3, True, 2.0, "3", None])
def test_bad_counts_raise(k: object) -> None:
    calls: tuple[Callable[[], object], ...] = (
        lambda: compose_advanced(PureDP(1), k, "1e-6"),  # type: ignore[arg-type]  # wrong on purpose
        lambda: compose_kov(PureDP(1), k, "1e-6"),  # type: ignore[arg-type]  # wrong on purpose
        lambda: group_privacy(PureDP(1), k),  # type: ignore[arg-type]  # wrong on purpose
    )
    for call in calls:
        with pytest.raises((ParameterTypeError, NegativeParameterError)):
            call()


WRONG_KINDS: list[Callable[[], object]] = [
    lambda: pure_to_zcdp(ZCDP(1)),  # type: ignore[arg-type]  # wrong on purpose
    lambda: zcdp_to_dp_optimal(ApproxDP(1, 0), "1e-6"),  # type: ignore[arg-type]  # wrong on purpose
    lambda: zcdp_to_dp_bun_steinke(GDP(1), "1e-6"),  # type: ignore[arg-type]  # wrong on purpose
    lambda: zcdp_delta_optimal(RDP(2, 1), 1),  # type: ignore[arg-type]  # wrong on purpose
    lambda: compose_zcdp([ZCDP(1), PureDP(1)]),  # type: ignore[list-item]  # wrong on purpose
    lambda: rdp_to_dp(ZCDP(1), "1e-6"),  # type: ignore[arg-type]  # wrong on purpose
    lambda: compose_rdp([ZCDP(1)]),  # type: ignore[list-item]  # wrong on purpose
    lambda: zcdp_rdp_curve(GDP(1), [2]),  # type: ignore[arg-type]  # wrong on purpose
    lambda: gdp_delta(ZCDP(1), 1),  # type: ignore[arg-type]  # wrong on purpose
    lambda: gdp_to_dp(ZCDP(1), "1e-6"),  # type: ignore[arg-type]  # wrong on purpose
    lambda: compose_gdp([GDP(1), ZCDP(1)]),  # type: ignore[list-item]  # wrong on purpose
    lambda: compose_basic([PureDP(1), ZCDP(1)]),  # type: ignore[list-item]  # wrong on purpose
    lambda: compose_advanced(ZCDP(1), 2, "1e-6"),  # type: ignore[arg-type]  # wrong on purpose
    lambda: group_privacy(ZCDP(1), 2),  # type: ignore[arg-type]  # wrong on purpose
]


@pytest.mark.parametrize("call", WRONG_KINDS)
def test_wrong_guarantee_kinds_raise(call: Callable[[], object]) -> None:
    with pytest.raises(UnsupportedGuaranteeError):
        call()


def test_unknown_rdp_method_raises() -> None:
    with pytest.raises(ParameterError):
        rdp_to_dp(RDP(2, 1), "1e-6", method="bogus")  # type: ignore[arg-type]  # wrong on purpose


def test_out_of_range_results_raise_instead_of_clamping() -> None:
    with pytest.raises(DeltaRangeError):
        zcdp_to_dp_bun_steinke(ApproxZCDP(1, "0.6"), "0.5")
    with pytest.raises(DeltaRangeError):
        compose_advanced(ApproxDP("0.1", "0.2"), 5, "0.1")
    with pytest.raises(CalibrationRangeError):
        gaussian_sigma_cs2080(1, 2, "1e-6")


def test_tradeoff_rejects_bad_type_one_errors() -> None:
    f = GaussianTradeoff(1)
    for bad in (-0.1, 1.1, math.nan, True, "0.5"):
        with pytest.raises((ParameterError, ParameterTypeError)):
            f(bad)  # type: ignore[arg-type]  # wrong on purpose


def test_errors_change_nothing() -> None:
    """A failing call leaves its (immutable) inputs equal to copies taken before."""
    g, a = ZCDP("0.1"), ApproxDP("0.2", "1e-7")
    g0, a0 = copy.deepcopy(g), copy.deepcopy(a)
    calls: tuple[Callable[[], object], ...] = (
        lambda: zcdp_to_dp_optimal(g, 1),
        lambda: compose_kov(a, 10, "1e-7"),
        lambda: compose_advanced(a, 0, "1e-6"),
    )
    for call in calls:
        with pytest.raises(AdaptiveDPError):
            call()
    assert g == g0 and a == a0
    with pytest.raises(AttributeError):
        g.rho = 1  # type: ignore[misc, assignment]  # wrong on purpose
