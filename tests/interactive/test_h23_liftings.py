"""H23-Thm3.4, H23-Cor3.5, H23-Thm3.6, H23-Thm4.6 with H23-Lem4.7, H23-Thm4.9,
H23-Thm4.10, H23-Thm4.11 (liftings to concurrently composed interactive mechanisms),
H23-F2 (the two-mechanism RDP filter) and H23-Def2.2 / H23-Lem2.3 (is_d_dp over a family
of deterministic adversaries; at delta = 0 CS2080-InteractiveDP). W23-FilterDef: the W23
filter's stopped release is (epsilon, delta)-DP (test_cor35_w23_filter_exact). Oracles:
Rényi divergences and hockey-sticks of the exact view distributions, against the
theorem's budget."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from fractions import Fraction

import mpmath as mp
import pytest

from adaptive_dp.errors import UnsupportedGuaranteeError
from adaptive_dp.filters.basic import BasicFilter, PureDPFilter
from adaptive_dp.filters.from_accumulator import AccumulatorFilter
from adaptive_dp.filters.gdp import GDPFilter
from adaptive_dp.filters.w23 import W23Filter
from adaptive_dp.filters.zcdp import ZCDPFilter
from adaptive_dp.guarantees.definitions import RDP, ZCDP, PureDP
from adaptive_dp.guarantees.spends import Spend
from adaptive_dp.interactive.concurrent import Query
from adaptive_dp.interactive.filtered import FiltCon
from adaptive_dp.interactive.interaction import FunctionAdversary
from adaptive_dp.interactive.liftings import (
    concurrent_approx_filter,
    concurrent_fdp_filter,
    concurrent_fdp_odometer,
    concurrent_rdp_filter,
    concurrent_rdp_odometer,
    concurrent_zcdp_filter,
    concurrent_zcdp_odometer,
)
from adaptive_dp.interactive.mechanism import Launch, RandomizedResponseIM, Refusal
from adaptive_dp.interactive.odometer import OdomCon
from adaptive_dp.interactive.privacy import (
    ApproxDPMeasure,
    FDPMeasure,
    RDPMeasure,
    ZCDPMeasure,
    is_d_dp,
)
from adaptive_dp.odometers.accumulators import (
    ApproxDPAccumulator,
    BasicAccumulator,
    RDPAccumulator,
    ZCDPAccumulator,
)


def test_liftings_check_the_measure() -> None:
    assert isinstance(concurrent_approx_filter(PureDPFilter(1)), FiltCon)
    assert isinstance(concurrent_approx_filter(W23Filter(1, delta="1e-6")), FiltCon)
    acc_filter = AccumulatorFilter(ApproxDPAccumulator(delta="1e-5", delta_slack="1e-6"), PureDP(1))
    assert isinstance(concurrent_approx_filter(acc_filter), FiltCon)
    assert isinstance(concurrent_fdp_filter(GDPFilter(1)), FiltCon)
    assert isinstance(concurrent_fdp_filter(BasicFilter(1, delta="0.1")), FiltCon)
    with pytest.raises(UnsupportedGuaranteeError):
        concurrent_approx_filter(GDPFilter(1))  # GDP is f-DP, not an (eps, delta) rule
    with pytest.raises(UnsupportedGuaranteeError):
        concurrent_fdp_filter(ZCDPFilter(1, delta="1e-6"))  # approximate zCDP: open (H23 sec. 4)
    with pytest.raises(UnsupportedGuaranteeError):
        concurrent_fdp_filter(AccumulatorFilter(ZCDPAccumulator(), ZCDP(1)))
    with pytest.raises(UnsupportedGuaranteeError):
        concurrent_fdp_odometer(RDPAccumulator(2))
    assert isinstance(concurrent_fdp_odometer(BasicAccumulator()), OdomCon)
    assert isinstance(concurrent_rdp_odometer(3), OdomCon)
    assert isinstance(concurrent_zcdp_odometer(), OdomCon)
    assert isinstance(concurrent_zcdp_filter("0.5").rule, type(concurrent_zcdp_filter(1).rule))


def _declared_rr(p: Fraction, rounds: int, guarantee: Spend) -> object:
    base = RandomizedResponseIM(p, rounds)

    class Declared:
        def __init__(self) -> None:
            self.guarantee = guarantee

        def transitions(self, s: object, m: object) -> object:
            return base.transitions(s, m)

        def step(self, s: object, m: object, rng: object) -> object:
            return base.step(s, m, rng)  # type: ignore[arg-type]

    return Declared()


def _rr_renyi(p: Fraction, alpha: int) -> float:
    mp.mp.dps = 40
    pp = mp.mpf(p.numerator) / p.denominator
    qq = 1 - pp
    return float(mp.log(pp**alpha * qq ** (1 - alpha) + qq**alpha * pp ** (1 - alpha))
                 / (alpha - 1))


def _adversaries(children: Sequence[tuple[object, Spend]]) -> list[FunctionAdversary]:
    """Deterministic adaptive adversaries, one per order of the three children: launch,
    query twice, launch the next child chosen from the last answer, interleave queries
    to both, launch the remaining child and query it."""
    advs = []
    for order in itertools.permutations(range(len(children))):
        def policy(h: tuple[object, ...], order: tuple[int, ...] = order) -> object:
            def launch(i: int) -> Launch:
                mech, par = children[order[i]]
                return Launch(mech, par)

            n = len(h)
            if n == 1:
                return launch(0)
            if n in (2, 3):
                return Query(1, 0)
            if n == 4:
                return launch(1 if h[-1] == 1 else 2)
            if n == 5:
                return Query(2, 0)
            if n == 6:
                return Query(1, 0) if h[-1] == 1 else Query(2, 0)
            if n == 7:
                return Query(2, 0)
            if n == 8:
                return launch(2 if h[3] == 1 else 1)
            if n in (9, 10):
                return Query(3, 0)
            return Refusal.HALT
        advs.append(FunctionAdversary(policy))
    return advs


def test_thm46_lem47_rdp_filter_exact() -> None:
    """H23-Thm4.6 / Lem 4.7 and H23-F2: the exact views of adaptive, interleaving
    adversaries against the capped RDP filter are within the budget at order alpha."""
    alpha = 3
    p1, p2 = Fraction(3, 4), Fraction(2, 3)
    e1, e2 = _rr_renyi(p1, alpha), _rr_renyi(p2, alpha)
    r1 = RDP(alpha, Fraction(2 * e1) * (1 + Fraction(1, 10**9)))
    r2 = RDP(alpha, Fraction(2 * e2) * (1 + Fraction(1, 10**9)))
    children = [(_declared_rr(p1, 2, r1), r1), (_declared_rr(p2, 2, r2), r2),
                (_declared_rr(p2, 2, r2), r2)]
    budget = r1.epsilon + r2.epsilon
    for k in (2, None):
        f = concurrent_rdp_filter(alpha, budget, max_mechanisms=k)
        assert is_d_dp(RDPMeasure(alpha), f, _adversaries(children), [((0,), (1,))],
                       RDP(alpha, budget))
    # power: the same view is not within the budget of a single child
    f = concurrent_rdp_filter(alpha, budget)
    assert not is_d_dp(RDPMeasure(alpha), f, _adversaries(children)[:1], [((0,), (1,))],
                       RDP(alpha, r1.epsilon))


def test_thm410_zcdp_filter_exact_grid() -> None:
    """H23-Thm4.10 on exact views (orders on a grid, a necessary check)."""
    eps = float(mp.log(3))
    rho_child = Fraction(eps * eps / 2) * (1 + Fraction(1, 10**9))
    children = [(RandomizedResponseIM("0.75", 1), ZCDP(rho_child))] * 3
    f = concurrent_zcdp_filter(2 * rho_child)
    assert is_d_dp(ZCDPMeasure(), f, _adversaries(children)[:2], [((0,), (1,))],
                   ZCDP(2 * rho_child))
    assert not is_d_dp(ZCDPMeasure(), f, _adversaries(children)[:1], [((0,), (1,))],
                       ZCDP(rho_child))


def test_cor35_w23_filter_exact() -> None:
    """H23-Cor3.5 (H23-Thm1.20, NIM => IM) with the W23 filter (H23-ThmB.3, delta' = 0.1,
    budget 3.3: two of the three children fit): exact views within (3.3, 0.1), and not
    within (1.5, 0)."""
    rule = W23Filter("3.3", delta="0.1")
    children = [(RandomizedResponseIM("0.7", 1), PureDP("0.85")),
                (RandomizedResponseIM("0.6", 2), PureDP("0.82")),
                (RandomizedResponseIM("0.75", 1), PureDP("1.1"))]
    f = concurrent_approx_filter(rule)
    advs = _adversaries(children)
    assert is_d_dp(ApproxDPMeasure(), f, advs, [((0,), (1,))], (Fraction("3.3"), Fraction("0.1")))
    assert not is_d_dp(ApproxDPMeasure(), f, advs, [((0,), (1,))], (Fraction("1.5"), 0))


def test_thm34_fdp_view_exact() -> None:
    """H23-Thm3.4 (H23-Thm1.21, NIM => IM) read in f-DP (H23-Def3.2): the exact views of
    the lifted W23 filter have trade-off curves >= f_{3.3, 0.1} (H23-FEpsDelta), and not
    >= f_{1.5, 0}."""
    def f_eps_delta(eps: float, delta: float) -> object:
        e = float(mp.e ** eps)
        return lambda a: max(0.0, 1 - delta - e * a, (1 - delta - a) / e)

    children = [(RandomizedResponseIM("0.7", 1), PureDP("0.85")),
                (RandomizedResponseIM("0.6", 2), PureDP("0.82")),
                (RandomizedResponseIM("0.75", 1), PureDP("1.1"))]
    f = concurrent_fdp_filter(W23Filter("3.3", delta="0.1"))
    advs = _adversaries(children)
    assert is_d_dp(FDPMeasure(), f, advs, [((0,), (1,))], f_eps_delta(3.3, 0.1))
    assert not is_d_dp(FDPMeasure(), f, advs, [((0,), (1,))], f_eps_delta(1.5, 0.0))
