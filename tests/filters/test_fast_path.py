"""The float fast path is a first-class citizen: it validates exactly as the certified
path (NaN, infinite and negative values, and deltas outside [0, 1), are refused per path
and flagged ``invalid``, never admitted), and it never admits what the certified path
refuses, for every rule and odometer, over Hypothesis-generated sequences that include
hostile values. Ids: every rule's (CS2080-PureDPFilter, CS2080-BasicComp, H23-ThmB.3,
R23-Thm2, H23-Thm4.10, H23-Thm4.6, EXT-ST22, RRUV16-Filter, H23-Lem2.19, R23-Lem5.2,
R23-Thm6, R23-Lem6.2) and W23-StitchedOdometer-Corrected, W23-MixtureOdometer-Corrected."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adaptive_dp.errors import AdaptiveDPError
from adaptive_dp.filters import (
    AccumulatorFilter,
    BasicFilter,
    BrownianFilter,
    Decision,
    ExPostFilter,
    FilterState,
    GDPFilter,
    PureDPFilter,
    RDPFilter,
    RRUV16Filter,
    Rule,
    UnifiedFilter,
    W23Filter,
    ZCDPFilter,
    ZCDPSumFilter,
)
from adaptive_dp.filters.brownian import fast_bm_spend, fast_zcdp_spend
from adaptive_dp.filters.expost import fast_expost_spend
from adaptive_dp.guarantees import GDP, RDP, ZCDP, ApproxDP, ApproxZCDP, PureDP
from adaptive_dp.guarantees.expost import ExPost
from adaptive_dp.guarantees.spends import BrownianSpend, Spend
from adaptive_dp.odometers import (
    ApproxDPAccumulator,
    W23MixtureOdometer,
    W23StitchedOdometer,
)

HOSTILE = [math.nan, math.inf, -math.inf, -0.1, -1e-300, 1.0, 2.0, 1e308]


def test_issue_defects_are_refused() -> None:
    """The calls of the issue (old positional form in the comments): every one is now
    refused and flagged, and the sums never go down."""
    # ZCDPFilter(1, "0.001", "0.05").fast(1): rho = 0.07, then -0.07, then 0.07
    fast = ZCDPFilter(1, delta="0.051", delta_slack="0.05").fast(1)
    ok, fast = fast.spend(0.07)
    assert ok[0]
    before = fast.sums[0].copy()
    ok, fast = fast.spend(-0.07)
    assert not ok[0] and fast.invalid[0] and fast.sums[0][0] == before[0]
    # .spend(0.0, delta=-0.5): refused, the delta sum stays 0
    ok, fast = fast.spend(0.0, -0.5)
    assert not ok[0] and fast.invalid[0] and fast.sums[1][0] == 0.0
    # W23Filter(1, "0.05", "0.001").fast(1).spend(0.1, -1.0)
    ok, w23 = W23Filter(1, delta="0.051", delta_slack="0.05").fast(1).spend(0.1, -1.0)
    assert not ok[0] and w23.invalid[0]
    # the certified path refuses the same spends at construction
    with pytest.raises(ValueError):
        ZCDP(-0.07)
    with pytest.raises(ValueError):
        ApproxDP(0.1, -1.0)


@pytest.mark.parametrize("value", HOSTILE)
def test_hostile_values_are_refused_on_both_float_routes(value: float) -> None:
    rule = ZCDPFilter(1, delta="0.051", delta_slack="0.05")
    for primary, delta in ((value, 0.0), (0.01, value)):
        fast_ok, fast = rule.fast(3).spend(np.array([primary, 0.01, primary]),
                                          np.array([delta, 0.0, delta]))
        scalar_ok, scalar = rule.float_session().spend(primary, delta)
        valid = 0 <= primary < math.inf and 0 <= delta < 1
        admitted_by_certified = valid and bool(
            rule.start().decide(ApproxZCDP(primary, delta))
        )
        assert bool(fast_ok[0]) == bool(fast_ok[2]) <= admitted_by_certified
        assert scalar_ok <= admitted_by_certified
        assert fast_ok[1]  # the valid path beside it is unaffected
        assert bool(fast.invalid[0]) == (not valid) == scalar.invalid


def _rules() -> list[tuple[str, Rule, Callable[[float, float], Spend]]]:
    return [
        ("pure", PureDPFilter(1), lambda e, d: PureDP(e)),
        ("basic", BasicFilter(1, delta="1e-6"), ApproxDP),
        ("w23", W23Filter(1, delta="2e-6", delta_slack="1e-6"), ApproxDP),
        ("zcdp", ZCDPFilter(1, delta="2e-6", delta_slack="1e-6"), ApproxZCDP),
        ("zcdp-sum", ZCDPSumFilter("0.5"), lambda e, d: ZCDP(e)),
        ("rdp", RDPFilter(4, 1), lambda e, d: RDP(4, e)),
        ("gdp", GDPFilter(1), lambda e, d: GDP(e)),
        ("rruv16", RRUV16Filter(1, delta="1e-6"), ApproxDP),
        ("accumulator",
         AccumulatorFilter(ApproxDPAccumulator(delta="2e-6", delta_slack="1e-6"),
                           ApproxDP(1, "2e-6")), ApproxDP),
        ("expost", ExPostFilter(1, delta="1e-6"), lambda e, d: ExPost(e, d)),
        ("unified", UnifiedFilter(1, delta="2e-6", delta_slack="1e-6"), ApproxZCDP),
    ]


DELTA_FREE = {"pure", "zcdp-sum", "rdp", "gdp"}
values = st.one_of(st.floats(0, 0.4), st.sampled_from(HOSTILE))
deltas = st.one_of(st.sampled_from([0.0, 1e-7, 5e-7]), st.sampled_from(HOSTILE))
requests = st.lists(st.tuples(values, deltas), min_size=1, max_size=30)


@pytest.mark.parametrize(("name", "rule", "spend_of"), _rules(), ids=[r[0] for r in _rules()])
@settings(max_examples=40, deadline=None)
@given(seq=requests)
def test_fast_routes_never_admit_what_the_certified_path_refuses(
    name: str, rule: Rule, spend_of: Callable[[float, float], Spend],
    seq: list[tuple[float, float]],
) -> None:
    state = rule.start()
    fast = rule.fast(1)
    scalar = rule.float_session()
    for primary, delta in seq:
        if name in DELTA_FREE and delta == 1e-7:
            delta = 0.0  # mostly delta-free requests, some hostile ones
        valid = 0 <= primary < math.inf and 0 <= delta < 1 and (
            delta == 0 or name not in DELTA_FREE)
        certified = valid and _certified_admits(state, spend_of(primary, delta))
        ok, fast = fast.spend(primary, delta)
        sok, scalar = scalar.spend(primary, delta)
        assert bool(ok[0]) <= certified and sok <= certified, (name, primary, delta)
        assert bool(fast.invalid[0]) == (not valid) == scalar.invalid
        assert bool(ok[0]) == sok  # the two float routes run the same hooks
        if ok[0]:
            decision, state = state.spend(spend_of(primary, delta))
            assert decision is Decision.CONTINUE
        elif certified:
            break  # the float path refused earlier (allowed); histories now differ


def _certified_admits(state: FilterState, spend: Spend) -> bool:
    """The certified decision; a spend it cannot even enclose (RRUV16's drift at
    epsilon = 1e308) is a usage error, which refuses."""
    try:
        return bool(state.decide(spend))
    except AdaptiveDPError:
        return False


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([1.0, 3.0, 10.0, math.inf, math.nan, -1.0, 0.0]),
                          st.sampled_from([1.0, 1.5, 0.5, math.inf, math.nan])),
                min_size=1, max_size=12))
def test_bm_and_zcdp_rounds_of_the_unified_filter(seq: list[tuple[float, float]]) -> None:
    for rule in (UnifiedFilter(1, delta="0.05"), BrownianFilter(1, delta="0.05")):
        state = rule.start()
        fast = rule.fast(1)
        for t_min, ratio in seq:
            t_stop = t_min * ratio
            valid = 0 < t_min < math.inf and 0 < t_stop < math.inf and t_stop >= t_min
            ok, fast = fast_bm_spend(fast, 1.0, t_min, t_stop)
            assert bool(fast.invalid[0]) == (not valid)
            if ok[0]:
                decision, state = state.spend(BrownianSpend(1, t_min, t_stop))
                assert decision is Decision.CONTINUE
        if isinstance(rule, BrownianFilter):
            continue
        for rho in (0.01, math.nan, -0.01, 0.5):
            ok, fast = fast_zcdp_spend(fast, rho)
            valid = 0 <= rho < math.inf
            assert bool(fast.invalid[0]) == (not valid)
            if ok[0]:
                decision, state = state.spend(ZCDP(rho))
                assert decision is Decision.CONTINUE


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.one_of(st.floats(0, 0.5), st.sampled_from(HOSTILE)),
                          st.floats(0, 1)), min_size=1, max_size=15))
def test_expost_rounds_refuse_hostile_requests(seq: list[tuple[float, float]]) -> None:
    rule = ExPostFilter(2)
    state = rule.start()
    fast = rule.fast(1)
    for top, fraction in seq:
        eps = top * fraction if math.isfinite(top) else top
        ok, fast = fast_expost_spend(fast, top, eps)
        valid = 0 <= eps <= top < math.inf
        assert bool(fast.invalid[0]) == (not valid)
        if ok[0]:
            decision, state = state.spend(ExPost(eps, 0, top))
            assert decision is Decision.CONTINUE


ODOMETERS = [
    W23StitchedOdometer(delta="2e-3", delta_slack="1e-3"),
    W23StitchedOdometer(delta="1e-3", form="exact", eta="1.5", s=2),
    W23MixtureOdometer(delta="2e-3", rho="0.3", delta_slack="1e-3"),
    W23MixtureOdometer(delta="1e-3", rho="0.3", sides="two"),
]


@pytest.mark.parametrize("odometer", ODOMETERS, ids=["poster", "exact", "one", "two"])
@settings(max_examples=30, deadline=None)
@given(seq=st.lists(st.tuples(values, st.sampled_from([0.0, 1e-4, 2e-3, math.nan, -1e-4])),
                    min_size=1, max_size=25))
def test_odometer_fast_readings_never_below_the_certified_ones(
    odometer: W23StitchedOdometer | W23MixtureOdometer, seq: list[tuple[float, float]]
) -> None:
    state = odometer.start()
    fast = odometer.fast(1)
    flagged = False
    for epsilon, delta in seq:
        valid = 0 <= epsilon < math.inf and 0 <= delta < 1
        fast = fast.spend(epsilon, delta)
        flagged |= not valid
        assert bool(fast.invalid[0]) == flagged
        if valid:
            state = state.spend(ApproxDP(epsilon, 0) if delta == 0 else _pdp(epsilon, delta))
        reading = float(fast.reading()[0])
        assert reading >= state.reading()
        if flagged:
            assert reading == math.inf  # a path that took an invalid spend has no bound


def _pdp(epsilon: float, delta: float) -> Spend:
    from adaptive_dp.guarantees import ProbabilisticDP

    return ProbabilisticDP(epsilon, delta)


def test_max_next_and_remaining_per_path_are_admitted() -> None:
    rule = W23Filter(1, delta="1e-6")
    _, fast = rule.fast(3).spend(np.array([0.1, 0.3, 0.0]))
    best = fast.max_next()
    assert np.all(fast.decide(best)) and not np.any(fast.decide(np.nextafter(best, 2) * 1.001))
    remaining = fast.remaining()
    state = rule.start().spend(PureDP(0.3))[1]
    assert remaining[1] <= state.remaining()
    assert fast.active.all()
    terminal = rule.fast(2, terminal=True)
    _, terminal = terminal.spend(np.array([5.0, 0.1]))
    assert terminal.active.tolist() == [False, True]
    assert math.isnan(terminal.max_next()[0])
