"""Hypothesis laws for every continuation rule: no admitted sequence whose bound
(recomputed independently with mpmath from the whole admitted list) exceeds the budget;
decisions monotone in each spend; incremental state equal to batch; the float fast path
never on the unsafe side of the certified path. Ids: CS2080-PureDPFilter,
CS2080-BasicComp, H23-ThmB.3, R23-Thm2, H23-Thm4.10, H23-Thm4.6, RRUV16-Filter, EXT-ST22,
H23-Lem2.19; W23-FilterDef / R23-Def3.1 (a rule is a stopping rule: its decisions are a
function of the admitted parameters, incremental equal to batch)."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adaptive_dp.filters.base import Decision, Rule
from adaptive_dp.filters.basic import BasicFilter, PureDPFilter
from adaptive_dp.filters.from_accumulator import AccumulatorFilter
from adaptive_dp.filters.gdp import GDPFilter
from adaptive_dp.filters.rdp import RDPFilter
from adaptive_dp.filters.rruv16 import RRUV16Filter
from adaptive_dp.filters.w23 import W23Filter
from adaptive_dp.filters.zcdp import ZCDPFilter, ZCDPSumFilter
from adaptive_dp.guarantees.definitions import ApproxDP
from adaptive_dp.guarantees.spends import Spend
from adaptive_dp.odometers.accumulators import ApproxDPAccumulator

mpmath.mp.dps = 50
M = mpmath.mpf

Pair = tuple[float, float]


def _mp(x: float) -> mpmath.mpf:
    return M(Fraction(x).numerator) / M(Fraction(x).denominator)


def w23_ok(eps_b: float, dp: float, dpp: float) -> Callable[[list[Pair]], bool]:
    def ok(spends: list[Pair]) -> bool:
        v = sum((_mp(e) ** 2 for e, _ in spends), M(0))
        d = sum((_mp(x) for _, x in spends), M(0))
        bound = mpmath.sqrt(2 * mpmath.log(1 / _mp(dp)) * v) + v / 2
        return bool(bound <= _mp(eps_b) + M(10) ** -40 and d <= _mp(dpp) + M(10) ** -60)

    return ok


def zcdp_ok(eps_b: float, delta: float, dpp: float) -> Callable[[list[Pair]], bool]:
    def ok(spends: list[Pair]) -> bool:
        r = sum((_mp(e) for e, _ in spends), M(0))
        d = sum((_mp(x) for _, x in spends), M(0))
        bound = 2 * mpmath.sqrt(mpmath.log(1 / _mp(dpp)) * r) + r
        return bool(bound <= _mp(eps_b) + M(10) ** -40 and d <= _mp(delta) + M(10) ** -60)

    return ok


def sum_ok(budget: float, square: bool = False) -> Callable[[list[Pair]], bool]:
    def ok(spends: list[Pair]) -> bool:
        total = sum((Fraction(e) ** (2 if square else 1) for e, _ in spends), Fraction(0))
        return total <= Fraction(budget) ** (2 if square else 1)

    return ok


def rruv_ok(eps_g: float, dg: float) -> Callable[[list[Pair]], bool]:
    def ok(spends: list[Pair]) -> bool:
        h = _mp(eps_g) ** 2 / (M("28.04") * mpmath.log(1 / _mp(dg)))
        v = sum((_mp(e) ** 2 for e, _ in spends), M(0))
        drift = sum((_mp(e) * mpmath.expm1(_mp(e)) / 2 for e, _ in spends), M(0))
        d = sum((_mp(x) for _, x in spends), M(0))
        conc = mpmath.sqrt(2 * (v + h) * (1 + mpmath.log(v / h + 1) / 2) * mpmath.log(2 / _mp(dg)))
        return bool(conc + drift <= _mp(eps_g) + M(10) ** -40 and d <= _mp(dg) / 2)

    return ok


# (rule, uses delta, spend as object, independent oracle)
CASES: list[tuple[str, Rule, bool, Callable[[list[Pair]], bool]]] = [
    ("pure", PureDPFilter(1.0), False, sum_ok(1.0)),
    (
        "basic",
        BasicFilter(1.0, delta=1e-6),
        True,
        lambda s: sum_ok(1.0)(s) and sum_ok(1e-6)([(d, 0) for _, d in s]),
    ),
    ("w23", W23Filter(1.0, delta=2e-6, delta_slack=1e-6), True, w23_ok(1.0, 1e-6, 1e-6)),
    ("zcdp", ZCDPFilter(1.0, delta=2e-6, delta_slack=1e-6), True, zcdp_ok(1.0, 1e-6, 1e-6)),
    ("zcdp-sum", ZCDPSumFilter(0.5), False, sum_ok(0.5)),
    ("rdp", RDPFilter(4, 1.0), False, sum_ok(1.0)),
    ("gdp", GDPFilter(1.0), False, sum_ok(1.0, square=True)),
    ("rruv16", RRUV16Filter(1.0, delta=1e-6), True, rruv_ok(1.0, 1e-6)),
    (
        "from-accumulator",
        AccumulatorFilter(ApproxDPAccumulator(delta=2e-6, delta_slack=1e-6), ApproxDP(1.0, 2e-6)),
        True,
        w23_ok(1.0, 1e-6, 1e-6),
    ),
]


def as_spend(name: str, pair: Pair) -> Spend:
    from adaptive_dp.guarantees.definitions import GDP, RDP, ZCDP, ApproxZCDP, PureDP

    e, d = pair
    if name in ("pure",):
        return PureDP(e)
    if name == "zcdp-sum":
        return ZCDP(e)
    if name == "zcdp":
        return ApproxZCDP(e, d)
    if name == "rdp":
        return RDP(4, e)
    if name == "gdp":
        return GDP(e)
    return ApproxDP(e, d)


spends = st.lists(
    st.tuples(
        st.floats(min_value=0, max_value=0.4, allow_subnormal=False),
        st.sampled_from([0.0, 1e-7, 3e-7, 5e-7]),
    ),
    min_size=1,
    max_size=30,
)


def normalise(uses_delta: bool, seq: list[Pair]) -> list[Pair]:
    return seq if uses_delta else [(e, 0.0) for e, _ in seq]


@pytest.mark.parametrize(("name", "rule", "uses_delta", "oracle"), CASES, ids=[c[0] for c in CASES])
@settings(max_examples=25)
@given(seq=spends)
def test_admitted_never_exceeds_and_incremental_equals_batch(
    name: str, rule: Rule, uses_delta: bool, oracle: Callable[[list[Pair]], bool], seq: list[Pair]
) -> None:
    seq = normalise(uses_delta, seq)
    state = rule.start()
    admitted: list[Pair] = []
    for pair in seq:
        d, state = state.spend(as_spend(name, pair))
        if d is Decision.CONTINUE:
            admitted.append(pair)
            assert oracle(admitted), (name, admitted)
    # incremental equals batch: the same sums as one fresh pass over the admitted list
    batch = rule.start()
    for pair in admitted:
        d, batch = batch.spend(as_spend(name, pair))
        assert d is Decision.CONTINUE
    assert batch.sums == state.sums and batch.count == state.count == len(admitted)


@pytest.mark.parametrize(("name", "rule", "uses_delta", "oracle"), CASES, ids=[c[0] for c in CASES])
@settings(max_examples=20)
@given(seq=spends, data=st.data())
def test_decisions_monotone_in_each_spend(
    name: str, rule: Rule, uses_delta: bool, oracle: object, seq: list[Pair], data: st.DataObject
) -> None:
    seq = normalise(uses_delta, seq)
    state = rule.start()
    for pair in seq[:-1]:
        _, state = state.spend(as_spend(name, pair))
    last = seq[-1]
    smaller = (data.draw(st.floats(0, 1)) * last[0], last[1] if data.draw(st.booleans()) else 0.0)
    if not uses_delta:
        smaller = (smaller[0], 0.0)
    if state.decide(as_spend(name, last)) is Decision.CONTINUE:
        assert state.decide(as_spend(name, smaller)) is Decision.CONTINUE
    # a smaller past spend never turns a continue into a halt
    if len(seq) >= 2:
        i = data.draw(st.integers(0, len(seq) - 2))
        shrunk = [*seq[:i], (seq[i][0] / 2, 0.0 if not uses_delta else seq[i][1]), *seq[i + 1 :]]
        a, b = rule.start(), rule.start()
        for p, q in zip(seq, shrunk, strict=True):
            da = a.decide(as_spend(name, p))
            db = b.decide(as_spend(name, q))
            if da is Decision.CONTINUE and a.sums == b.sums:
                assert db is Decision.CONTINUE
            _, a = a.spend(as_spend(name, p))
            _, b = b.spend(as_spend(name, q))


@pytest.mark.parametrize(("name", "rule", "uses_delta", "oracle"), CASES, ids=[c[0] for c in CASES])
@settings(max_examples=25)
@given(seq=spends)
def test_fast_path_never_unsafe(
    name: str, rule: Rule, uses_delta: bool, oracle: object, seq: list[Pair]
) -> None:
    seq = normalise(uses_delta, seq)
    state = rule.start()
    fast = rule.fast(2)
    for pair in seq:
        ok, fast = fast.spend(np.array([pair[0], pair[0]]), np.array([pair[1], pair[1]]))
        d, state = state.spend(as_spend(name, pair))
        if ok[0]:
            assert d is Decision.CONTINUE, (name, pair)
        elif d is Decision.CONTINUE:
            break  # the fast path refused earlier (allowed); histories now differ


@pytest.mark.parametrize(("name", "rule", "uses_delta", "oracle"), CASES, ids=[c[0] for c in CASES])
def test_max_next_admitted(name: str, rule: Rule, uses_delta: bool, oracle: object) -> None:
    state = rule.start()
    _, state = state.spend(as_spend(name, (0.05, 0.0)))
    x = state.max_next()
    assert x is not None and x > 0
    assert state.decide(as_spend(name, (x, 0.0))) is Decision.CONTINUE
    assert state.decide(as_spend(name, (x * (1 + 1e-6) + 1e-12, 0.0))) is Decision.HALT
