"""H23-Comp, H23-Def2.4/Alg1, H23-Def2.5/Alg2 with H23-Def2.6, H23-Def2.7/Alg3, H23-Def2.9/Alg4,
H23-Def2.13/Alg6, H23-Def1.12, H23-Def2.10/Alg5 (readings A7, A8) and the
H23-Lem2.19 construction (Lemma B.1's halting odometer, Algs 14 and 15).

Exact oracles: hand-computed decisions of the sum rules on exact decimals; exact view
distributions by enumeration (H23-Def1.7 checked on the whole view, both orders);
views with shared randomness where the proof claims equality."""

from __future__ import annotations

from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest

from adaptive_dp.filters.basic import BasicFilter, PureDPFilter
from adaptive_dp.filters.from_accumulator import AccumulatorFilter
from adaptive_dp.filters.rdp import RDPFilter
from adaptive_dp.guarantees.definitions import RDP, ZCDP, ApproxDP, PureDP
from adaptive_dp.interactive.concurrent import ConComp, Query, comp_distribution
from adaptive_dp.interactive.filtered import HALTED, FiltCon, FiltNIM, FirstAnswer
from adaptive_dp.interactive.interaction import (
    FunctionAdversary,
    ScriptedAdversary,
    interact,
    view_distribution,
)
from adaptive_dp.interactive.mechanism import (
    LAMBDA,
    PRIVACY_LOSS,
    STARTED,
    GaussianCountIM,
    Launch,
    RandomizedResponseIM,
    Refusal,
)
from adaptive_dp.interactive.odometer import LossReport, OdomCon, OdomNIM
from adaptive_dp.interactive.pim import AddPrivacyLoss, Postprocessed, RemovePrivacyLoss
from adaptive_dp.interactive.privacy import ApproxDPMeasure, RDPMeasure
from adaptive_dp.interactive.truncated import (
    HaltingOdometer,
    truncated_view,
    truncated_view_distribution,
)
from adaptive_dp.odometers.accumulators import BasicAccumulator, RDPAccumulator

RR = RandomizedResponseIM("0.75", 1)  # ln 3 per answer
RR2 = RandomizedResponseIM("0.75", 2)
LN3 = float(mp.log(3))


def _rng() -> np.random.Generator:
    return np.random.default_rng(2024)


def test_alg1_concomp_routes_and_rejects() -> None:
    """H23-Def2.4 / R23-Def2.7 (Alg 1): (j, q) goes to M_j only, which alone changes state;
    anything else is an invalid query."""
    m = ConComp((RR, RR2))
    rng = _rng()
    s, a = m.step((0, 1), LAMBDA, rng)
    assert a is LAMBDA
    s1, a1 = m.step(s, Query(1, 1), rng)
    assert a1 in (0, 1)
    assert s1.states[1] == s.states[1]  # type: ignore[attr-defined]
    assert m.step(s1, Query(3, 0), rng) == (s1, Refusal.INVALID_QUERY)
    assert m.step(s1, "garbage", rng) == (s1, Refusal.INVALID_QUERY)
    assert m.step(s1, Query(1, 1), rng)[1] is Refusal.EXHAUSTED


def test_thm43_concurrent_rdp_composition_exact() -> None:
    """H23-Thm4.3 (Lyu) as a property of Alg 1: an interleaving adaptive adversary's
    exact view of ConComp(RR, RR2) has D_alpha <= the sum of the children's D_alpha."""
    m = ConComp((RR, RR2))

    def policy(h: tuple[object, ...]) -> object:
        script = {1: Query(2, 0), 2: Query(1, 0) if h[-1] == 1 else Query(2, 0)}
        if len(h) == 3 and h[-1] in (0, 1):
            return Query(2, 0) if h[1] == 1 else Query(1, 0)
        return script.get(len(h), Refusal.HALT)

    adv = FunctionAdversary(policy)
    d0 = view_distribution(adv, m, (0,))
    d1 = view_distribution(adv, m, (1,))
    p, q = mp.mpf(3) / 4, mp.mpf(1) / 4
    for alpha in (2, 5):
        one = mp.log(p**alpha * q ** (1 - alpha) + q**alpha * p ** (1 - alpha)) / (alpha - 1)
        assert RDPMeasure(alpha).holds(d0, d1, RDP(alpha, float(3 * one) * (1 + 1e-12)))
    assert ApproxDPMeasure().holds(d0, d1, (Fraction(3 * LN3) + Fraction(1, 10**9), 0))


def test_alg3_launch_accepted_iff_rule_admits() -> None:
    f = FiltCon(PureDPFilter("2.3"))
    rng = _rng()
    s, _ = f.step((0, 1), LAMBDA, rng)
    s, a = f.step(s, Launch(RR, RR.guarantee), rng)
    assert a == STARTED
    s, a = f.step(s, Launch(RR, RR.guarantee), rng)
    assert a == STARTED  # 2 ln 3 = 2.197 <= 2.3
    s2, a = f.step(s, Launch(RR, RR.guarantee), rng)
    assert (s2, a) == (HALTED, Refusal.INSUFFICIENT_BUDGET)
    # after Halt every call returns (Halt, halt) (A6, terminal reading)
    assert f.step(s2, Query(1, 0), rng) == (HALTED, Refusal.HALT)
    # refuse-and-continue: the state comes back unchanged, children stay usable
    g = FiltCon(PureDPFilter("2.3"), terminal=False)
    t, _ = g.step((0, 1), LAMBDA, rng)
    t, _ = g.step(t, Launch(RR, PureDP("1.5")), rng)
    t2, a = g.step(t, Launch(RR, PureDP("1.5")), rng)
    assert t2 == t and a is Refusal.INSUFFICIENT_BUDGET
    small = RandomizedResponseIM("0.6")  # ln 1.5 < 0.8
    t3, a = g.step(t2, Launch(small, PureDP("0.8")), rng)  # 1.5 + 0.8 = 2.3 fits exactly
    assert a == STARTED
    assert g.step(t3, Query(1, 0), rng)[1] in (0, 1)


def test_alg3_equality_admitted_exact_decimals() -> None:
    g = FiltCon(BasicFilter("1", delta="0.1"), terminal=False)
    rng = _rng()
    t, _ = g.step((0,), LAMBDA, rng)
    t, a = g.step(t, Launch(RR, ApproxDP("1.1", "0.05")), rng)
    assert a is Refusal.INSUFFICIENT_BUDGET
    t, a = g.step(t, Launch(RandomizedResponseIM("0.6"), ApproxDP("0.5", "0.05")), rng)
    assert a == STARTED
    t, a = g.step(t, Launch(RandomizedResponseIM("0.6"), ApproxDP("0.5", "0.05")), rng)
    assert a == STARTED  # "0.5" + "0.5" = 1 and "0.05" + "0.05" = 0.1: equality admitted


def test_alg3_cap_divergence_invalid_and_no_budget_check_on_queries() -> None:
    f = FiltCon(PureDPFilter(100), max_mechanisms=1, terminal=False)
    rng = _rng()
    s, _ = f.step((0,), LAMBDA, rng)
    # not declared: RR's ln 3 is not 1-DP
    assert f.step(s, Launch(RR, PureDP(1)), rng) == (s, Refusal.DIVERGENCE_CANNOT_BE_PARSED)
    s, _ = f.step(s, Launch(RR2, RR2.guarantee), rng)
    assert f.step(s, Launch(RR, RR.guarantee), rng)[1] is Refusal.AT_MECHANISM_COUNT_LIMIT
    assert f.step(s, PRIVACY_LOSS, rng) == (s, Refusal.INVALID_QUERY)
    assert f.step(s, Query(2, 0), rng) == (s, Refusal.INVALID_QUERY)
    filt_before = s.filter  # type: ignore[attr-defined]
    s, a = f.step(s, Query(1, 0), rng)
    assert a in (0, 1) and s.filter is filt_before  # type: ignore[attr-defined]
    t = FiltCon(PureDPFilter(100), max_mechanisms=1)
    u, _ = t.step((0,), LAMBDA, rng)
    u, _ = t.step(u, Launch(RR, RR.guarantee), rng)
    assert t.step(u, Launch(RR, RR.guarantee), rng) == (HALTED, Refusal.AT_MECHANISM_COUNT_LIMIT)


def test_alg2_filt_nim() -> None:
    f = FiltNIM(PureDPFilter("2.3"))
    rng = _rng()
    s, _ = f.step((1, 0), LAMBDA, rng)
    nim = FirstAnswer(RR, 0)
    s, a = f.step(s, Launch(nim, nim.guarantee), rng)
    assert a in (0, 1)
    assert f.step(s, Query(1, 0), rng)[1] is Refusal.INVALID_QUERY
    s, _ = f.step(s, Launch(nim, nim.guarantee), rng)
    assert f.step(s, Launch(nim, nim.guarantee), rng)[1] is Refusal.INSUFFICIENT_BUDGET


def _adaptive_filter_adversary() -> FunctionAdversary:
    """Launches RR children and interleaves queries; the second launch's parameter
    depends on the first answer (an adaptive choice of privacy parameter)."""
    big = RandomizedResponseIM("0.9", 1)  # ln 9

    def policy(h: tuple[object, ...]) -> object:
        n = len(h)
        if n == 1:
            return Launch(RR2, RR2.guarantee)
        if n == 2:
            return Query(1, 0)
        if n == 3:
            return Launch(big, big.guarantee) if h[-1] == 1 else Launch(RR, RR.guarantee)
        if n == 4:
            return Query(2, 0) if h[-1] == STARTED else Query(1, 0)
        if n == 5:
            return Query(1, 0)
        if n == 6:
            return Launch(RR, RR.guarantee)
        if n == 7:
            return Query(3, 0) if h[-1] == STARTED else Refusal.HALT
        return Refusal.HALT

    return FunctionAdversary(policy)


@pytest.mark.parametrize("terminal", [True, False])
def test_alg3_exact_view_within_budget(terminal: bool) -> None:
    """H23-Def2.7 / H23-Def2.8 + Cor 3.5 on an exact example: the whole view of an adaptive,
    interleaving adversary against the pure-DP sum filter with budget 3.5 is
    (3.5, 0)-DP, and not (3 ln 3 - 0.01, 0)-DP (the test has power)."""
    f = FiltCon(PureDPFilter("3.5"), terminal=terminal)
    adv = _adaptive_filter_adversary()
    d0 = view_distribution(adv, f, (0,))
    d1 = view_distribution(adv, f, (1,))
    measure = ApproxDPMeasure()
    assert measure.holds(d0, d1, (Fraction("3.5"), 0))
    assert not measure.holds(d0, d1, (Fraction(3 * LN3) - Fraction(1, 100), 0))


def test_alg6_privacy_loss_state_preserving_and_constant_between_launches() -> None:
    o = OdomCon(BasicAccumulator())
    rng = _rng()
    s, _ = o.step((0, 1), LAMBDA, rng)
    s1, r1 = o.step(s, PRIVACY_LOSS, rng)
    assert s1 is s and isinstance(r1, LossReport) and r1.reading() == ApproxDP(0, 0)
    s, a = o.step(s, Launch(RR2, PureDP("2.5")), rng)
    assert a == STARTED
    r2 = o.step(s, PRIVACY_LOSS, rng)[1]
    s, _ = o.step(s, Query(1, 0), rng)
    s, _ = o.step(s, Query(1, 1), rng)
    assert o.step(s, PRIVACY_LOSS, rng)[1] == r2
    assert r2.reading() == ApproxDP("2.5", 0)  # type: ignore[attr-defined]
    # never refuses for budget; refuses an undeclared parameter
    s, a = o.step(s, Launch(RR, PureDP(1000)), rng)
    assert a == STARTED
    assert o.step(s, Launch(RR, PureDP(1)), rng) == (s, Refusal.DIVERGENCE_CANNOT_BE_PARSED)
    assert o.step(s, "?", rng) == (s, Refusal.INVALID_QUERY)


def test_alg4_odom_nim() -> None:
    o = OdomNIM(BasicAccumulator())
    rng = _rng()
    s, _ = o.step((1,), LAMBDA, rng)
    nim = FirstAnswer(RR, 0)
    s, a = o.step(s, Launch(nim, nim.guarantee), rng)
    assert a in (0, 1)
    assert o.step(s, Query(1, 0), rng)[1] is Refusal.INVALID_QUERY
    assert o.step(s, PRIVACY_LOSS, rng)[1].count == 1  # type: ignore[attr-defined]


def _launcher(eps: list[str]) -> ScriptedAdversary:
    return ScriptedAdversary(tuple(Launch(RandomizedResponseIM("0.55"), PureDP(e)) for e in eps))


def test_alg5_reading_a8() -> None:
    """Reference suggestion: G = sum, d = 1, launches 0.4, 0.4, 0.4: only the answers of
    the first two launches are kept."""
    o = OdomCon(BasicAccumulator())
    view = truncated_view(_launcher(["0.4", "0.4", "0.4"]), o, (0,), PureDP(1), _rng())
    assert view.messages == (LAMBDA, STARTED, STARTED)


def test_alg5_reading_a7_boundary() -> None:
    """A loss exactly equal to d is kept (Alg 5's "not <="), not cut (Def 1.13's ">=")."""
    o = OdomCon(BasicAccumulator())
    view = truncated_view(_launcher(["0.5", "0.5", "0.3"]), o, (0,), PureDP(1), _rng())
    assert view.messages == (LAMBDA, STARTED, STARTED)
    view = truncated_view(_launcher(["0.5", "0.5"]), o, (0,), PureDP("0.9999"), _rng())
    assert view.messages == (LAMBDA, STARTED)


def _odometer_adversary() -> FunctionAdversary:
    big = RandomizedResponseIM("0.9", 1)

    def policy(h: tuple[object, ...]) -> object:
        n = len(h)
        if n == 1:
            return Launch(RR, RR.guarantee)
        if n == 2:
            return PRIVACY_LOSS
        if n == 3:
            return Launch(big, big.guarantee)
        if n == 4:
            return Query(1, 0)
        if n == 5:
            return Query(2, 0) if h[-1] == 1 else Launch(RR, RR.guarantee)
        if n == 6:
            return PRIVACY_LOSS
        if n == 7:
            return Launch(RR, RR.guarantee)
        if n == 8:
            return Query(1, 0)
        return Refusal.HALT

    return FunctionAdversary(policy)


def _strip_refusal(view: tuple[object, ...]) -> tuple[object, ...]:
    """The view up to its stopping point: cut at the first halt (the halting odometer)
    or insufficient-budget refusal (the filter), which mark the same request."""
    for i, m in enumerate(view):
        if m in (Refusal.HALT, Refusal.INSUFFICIENT_BUDGET):
            return tuple(view[:i])
    return tuple(view)


@pytest.mark.parametrize("budget", ["1.2", "3.4", "4.5", "100"])
def test_lem219_views_coincide_with_shared_randomness(budget: str) -> None:
    """H23-Alg14 (AddPrivacyLoss) and H23-Alg15 (RemovePrivacyLoss), H23-Lem2.19: Lemma B.1: View(A
    <-> M(x)) = Trunc_d(View(A <-> G-OdomCon)) for the halting
    odometer M; M's view equals (P14 o F(.; d)-FiltCon)'s view (Alg 14), and
    P15 o M's view equals F(.; d)-FiltCon's view (Alg 15), up to the closing refusal
    message (M says halt where the filter says insufficient budget)."""
    acc = BasicAccumulator()
    d = PureDP(budget)
    odo = OdomCon(acc)
    adv = _odometer_adversary()
    filt = FiltCon(AccumulatorFilter(acc, d))
    for seed in (1, 2, 3, 4):
        trunc = truncated_view(adv, odo, (0,), d, np.random.default_rng(seed)).messages
        halting = interact(adv, HaltingOdometer(odo, d), (0,), np.random.default_rng(seed))
        assert _strip_refusal(halting.messages) == trunc
        p14 = interact(adv, Postprocessed(AddPrivacyLoss(acc), filt), (0,),
                       np.random.default_rng(seed))
        assert _strip_refusal(p14.messages) == trunc
        p15 = interact(adv, Postprocessed(RemovePrivacyLoss(), HaltingOdometer(odo, d)), (0,),
                       np.random.default_rng(seed))
        plain = interact(adv, filt, (0,), np.random.default_rng(seed))
        assert _strip_refusal(p15.messages) == _strip_refusal(plain.messages)


def test_lem219_truncated_distribution_and_validity() -> None:
    """Exact: the truncated views of the basic-composition odometer at d = (3, 0) are
    (3, 0)-DP (H23-Def2.11; G-OdomCon is valid, H23-Def2.14), and equal in distribution
    to the filter's views."""
    acc = BasicAccumulator()
    d = PureDP(3)
    adv = _odometer_adversary()
    t0 = truncated_view_distribution(adv, OdomCon(acc), (0,), d)
    t1 = truncated_view_distribution(adv, OdomCon(acc), (1,), d)
    assert sum(t0.values()) == 1
    assert ApproxDPMeasure().holds(t0, t1, (Fraction(3), 0))
    h0 = view_distribution(adv, Postprocessed(AddPrivacyLoss(acc), FiltCon(
        AccumulatorFilter(acc, d))), (0,))
    stripped: dict[tuple[object, ...], Fraction] = {}
    for v, p in h0.items():
        k = _strip_refusal(v)
        stripped[k] = stripped.get(k, Fraction(0)) + p
    assert stripped == dict(t0)


def test_rdp_odometer_truncation_exact() -> None:
    """H23-Thm4.9 through its truncated view: D_alpha of the exact truncated views <= d."""
    alpha = 2
    acc = RDPAccumulator(alpha)
    p, q = mp.mpf(3) / 4, mp.mpf(1) / 4
    one = float(mp.log(p**alpha * q ** (1 - alpha) + q**alpha * p ** (1 - alpha)) / (alpha - 1))
    child = RandomizedResponseIM("0.75", 1)
    par = RDP(alpha, Fraction(one) * (1 + Fraction(1, 10**9)))

    class Declared:
        guarantee = par

        def transitions(self, s, m):  # type: ignore[no-untyped-def]
            return child.transitions(s, m)

        def step(self, s, m, rng):  # type: ignore[no-untyped-def]
            return child.step(s, m, rng)

    mech = Declared()

    def policy(h: tuple[object, ...]) -> object:
        n = len(h)
        if n % 2 == 1 and n < 9:
            return Launch(mech, par)
        if n < 9:
            return Query((n // 2), 0)
        return Refusal.HALT

    adv = FunctionAdversary(policy)
    budget = RDP(alpha, Fraction(2 * one) * (1 + Fraction(1, 10**6)))
    t0 = truncated_view_distribution(adv, OdomCon(acc), (0,), budget)
    t1 = truncated_view_distribution(adv, OdomCon(acc), (1,), budget)
    assert RDPMeasure(alpha).holds(t0, t1, budget)
    assert not RDPMeasure(alpha).holds(t0, t1, RDP(alpha, Fraction(2 * one) * Fraction(99, 100)))


def test_gaussian_children_run() -> None:
    f = FiltCon(RDPFilter(2, 1), terminal=False)
    rng = _rng()
    s, _ = f.step((1, 0, 1), LAMBDA, rng)
    g = GaussianCountIM("0.25", rounds=3)
    s, a = f.step(s, Launch(g, RDP(2, "0.5")), rng)
    assert a == STARTED
    s, a = f.step(s, Launch(g, ZCDP("0.25")), rng)  # zCDP spends enter as rho alpha
    assert a == STARTED
    s, a = f.step(s, Launch(g, RDP(2, "0.5")), rng)
    assert a is Refusal.INSUFFICIENT_BUDGET
    s, a = f.step(s, Query(2, (0, 2)), rng)
    assert isinstance(a, float)


def test_comp_is_the_product_and_basic_composition_holds() -> None:
    """H23-Comp: Comp(M_1, M_2)(x) is the product of the outputs' laws (hand-computed
    here), equal to the answers of the non-adaptive Alg 2 run launching M_1 then M_2, and
    (ln 3 + ln 2, 0)-DP but not (ln 3 + ln 2 - 0.01, 0)-DP."""
    m1, m2 = FirstAnswer(RR, 0), FirstAnswer(RandomizedResponseIM(Fraction(2, 3)), 0)
    d0 = comp_distribution((m1, m2), (0,))
    d1 = comp_distribution((m1, m2), (1,))
    q = {0: Fraction(3, 4), 1: Fraction(1, 4)}
    r = {0: Fraction(2, 3), 1: Fraction(1, 3)}
    assert d0 == {(a, b): q[a] * r[b] for a in (0, 1) for b in (0, 1)}
    adv = ScriptedAdversary((Launch(m1, m1.guarantee), Launch(m2, m2.guarantee)))
    views = view_distribution(adv, FiltNIM(PureDPFilter(10)), (0,))
    answers: dict[tuple[object, ...], Fraction] = {}
    for v, p in views.items():
        answers[tuple(v[-2:])] = answers.get(tuple(v[-2:]), Fraction(0)) + p
    assert answers == d0
    eps = Fraction(float(mp.log(6)))
    assert ApproxDPMeasure().holds(d0, d1, (eps + Fraction(1, 10**9), 0))
    assert not ApproxDPMeasure().holds(d0, d1, (eps - Fraction(1, 100), 0))


def _nim_adversary() -> FunctionAdversary:
    """Launches noninteractive RR answers; the second parameter depends on the first
    answer (ln 9 after a 1, ln 3 after a 0), then a third ln 3 launch."""
    small, big = FirstAnswer(RR, 0), FirstAnswer(RandomizedResponseIM("0.9", 1), 0)

    def policy(h: tuple[object, ...]) -> object:
        n = len(h)
        if n == 1:
            return Launch(small, small.guarantee)
        if n == 2:
            return Launch(big, big.guarantee) if h[-1] == 1 else Launch(small, small.guarantee)
        if n == 3:
            return Launch(small, small.guarantee)
        return Refusal.HALT

    return FunctionAdversary(policy)


def test_filt_nim_valid_filter_exact() -> None:
    """H23-Def2.6: F(.; d)-Filt(NIM) of the pure-DP sum filter at d = (3.5, 0) is d-DP
    on the exact views of an adaptive adversary, and not (3 ln 3 - 0.01, 0)-DP (power)."""
    f = FiltNIM(PureDPFilter("3.5"))
    d0 = view_distribution(_nim_adversary(), f, (0,))
    d1 = view_distribution(_nim_adversary(), f, (1,))
    assert ApproxDPMeasure().holds(d0, d1, (Fraction("3.5"), 0))
    assert not ApproxDPMeasure().holds(d0, d1, (Fraction(3 * LN3) - Fraction(1, 100), 0))


def test_odom_nim_valid_accumulator_exact() -> None:
    """H23-Def2.12: the basic-composition accumulator's G-Odom(NIM) is a valid odometer:
    its truncated views (H23-Def2.11) at d = (3.5, 0) are d-DP, and not
    (3 ln 3 - 0.01, 0)-DP."""
    d = PureDP("3.5")
    t0 = truncated_view_distribution(_nim_adversary(), OdomNIM(BasicAccumulator()), (0,), d)
    t1 = truncated_view_distribution(_nim_adversary(), OdomNIM(BasicAccumulator()), (1,), d)
    assert ApproxDPMeasure().holds(t0, t1, (Fraction("3.5"), 0))
    assert not ApproxDPMeasure().holds(t0, t1, (Fraction(3 * LN3) - Fraction(1, 100), 0))
