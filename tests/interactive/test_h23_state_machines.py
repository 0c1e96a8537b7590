"""H23-Def1.4, H23-Def1.5, H23-Def1.6, H23-Def1.7, H23-Def2.1, H23-Def2.2: state
machines, interaction, views and the generalized distances on exact view distributions.

Oracles: closed forms of randomized response computed here with mpmath (hockey-stick
and Rényi divergence), the definition sup_S P(S) - e^eps Q(S) by brute force over all
subsets S, and sampling frequencies against the enumerated distribution."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adaptive_dp.errors import ParameterError, ParameterTypeError
from adaptive_dp.guarantees.definitions import RDP, ZCDP, ApproxDP, PureDP
from adaptive_dp.guarantees.lattice import within
from adaptive_dp.interactive.interaction import (
    FunctionAdversary,
    ScriptedAdversary,
    View,
    interact,
    view_distribution,
)
from adaptive_dp.interactive.mechanism import (
    LAMBDA,
    STARTED,
    GaussianCountIM,
    RandomizedResponseIM,
    Refusal,
    checked_step,
)
from adaptive_dp.interactive.privacy import (
    ApproxDPMeasure,
    FDPMeasure,
    RDPMeasure,
    ZCDPMeasure,
    hockey_stick,
    renyi_divergence,
    tradeoff_at,
    tradeoff_points,
)


class _EmptyState:
    def step(self, state, message, rng):  # type: ignore[no-untyped-def]
        return LAMBDA, "a"


class _EmptyAnswer:
    def step(self, state, message, rng):  # type: ignore[no-untyped-def]
        return 1, LAMBDA


def test_def14_requirements() -> None:
    """H23-Def1.4 / R23-Def2.6: s' != lambda always; a != lambda except on initialization."""
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="empty state"):
        checked_step(_EmptyState(), 0, "q", rng)
    with pytest.raises(ValueError, match="empty answer"):
        checked_step(_EmptyAnswer(), 0, "q", rng)
    assert checked_step(_EmptyAnswer(), 0, LAMBDA, rng) == (1, LAMBDA)


def test_rr_validation_and_guarantee() -> None:
    with pytest.raises(ParameterError):
        RandomizedResponseIM("0.5")
    with pytest.raises(ParameterError):
        RandomizedResponseIM("0.75", 0)
    m = RandomizedResponseIM("0.75", 3)
    exact_eps = 3 * mp.log(3)
    assert float(m.guarantee.epsilon) >= float(exact_eps)  # type: ignore[union-attr]
    assert float(m.guarantee.epsilon) - float(exact_eps) < 1e-12  # type: ignore[union-attr]
    with pytest.raises(ParameterTypeError):
        m.transitions((0, 2), LAMBDA)


def test_rr_transitions_exact() -> None:
    m = RandomizedResponseIM("0.8", 1)
    ((p, s, a),) = m.transitions((1, 0), LAMBDA)
    assert p == 1 and a == STARTED
    outs = m.transitions(s, 0)
    assert sum(o[0] for o in outs) == 1
    assert {(o[0], o[2]) for o in outs} == {(Fraction(4, 5), 1), (Fraction(1, 5), 0)}
    s2 = outs[0][1]
    assert m.transitions(s2, 0) == ((1, s2, Refusal.EXHAUSTED),)  # type: ignore[comparison-overlap]
    assert m.transitions(s, 5)[0][2] is Refusal.INVALID_QUERY


def test_gaussian_count_im() -> None:
    m = GaussianCountIM("0.5", rounds=2)
    # sigma = sqrt(rounds / (2 rho)) = sqrt(2), rounded up
    assert m.sigma >= float(mp.sqrt(2)) and m.sigma - float(mp.sqrt(2)) < 1e-15
    assert float(m.guarantee.rho) >= 0.5 - 1e-15  # type: ignore[union-attr]
    rng = np.random.default_rng(3)
    s, a = m.step((1, 1, 0), LAMBDA, rng)
    assert a == STARTED
    answers = []
    for _ in range(2):
        s, a = m.step(s, (0, 1), rng)
        answers.append(a)
    assert all(isinstance(v, float) for v in answers)
    assert m.step(s, (0,), rng)[1] is Refusal.EXHAUSTED
    assert m.step(s, (0, 0), rng)[1] is Refusal.EXHAUSTED
    fresh, _ = m.step((1, 1, 0), LAMBDA, rng)
    assert m.step(fresh, (0, 0), rng)[1] is Refusal.INVALID_QUERY


def test_def15_interaction_order_and_halt() -> None:
    """H23-Def1.5: the mechanism moves first with lambda; the loop stops at halt."""
    seen: list[object] = []

    class Recorder:
        def step(self, state, message, rng):  # type: ignore[no-untyped-def]
            seen.append(message)
            return (state, len(seen)), len(seen)

    adv = ScriptedAdversary(("q1", "q2"))
    view = interact(adv, Recorder(), "x", np.random.default_rng(0))
    assert seen[0] is LAMBDA and seen[1:] == ["q1", "q2"]
    assert view == View((None, None, None), (1, 2, 3))
    assert view.items() == (None, 1, None, 2, None, 3)


def test_def16_randomized_adversary_coins_recorded() -> None:
    class Coin:
        deterministic = False

        def step(self, state, message, coins):  # type: ignore[no-untyped-def]
            return state, Refusal.HALT if coins is not None and coins % 2 else 0

    view = interact(Coin(), RandomizedResponseIM("0.75", 5), (0,), np.random.default_rng(1))
    assert all(isinstance(c, int) for c in view.coins)


def _two_queries_adversary() -> FunctionAdversary:
    # adaptive: asks bit 0, then bit 0 again if the answer was 1 else bit 1
    def policy(history: tuple[object, ...]) -> object:
        n = len(history)
        if n == 1:
            return 0
        if n == 2:
            return 0 if history[-1] == 1 else 1
        return Refusal.HALT

    return FunctionAdversary(policy)


def test_view_distribution_matches_sampling() -> None:
    m = RandomizedResponseIM("0.75", 2)
    adv = _two_queries_adversary()
    dist = view_distribution(adv, m, (1, 0))
    assert sum(dist.values()) == 1
    rng = np.random.default_rng(12)
    n = 4000
    counts: dict[tuple[object, ...], int] = {}
    for _ in range(n):
        v = interact(adv, m, (1, 0), rng).messages
        counts[v] = counts.get(v, 0) + 1
    for v, p in dist.items():
        # 5 sigma binomial band
        sd = float(np.sqrt(float(p) * (1 - float(p)) / n))
        assert abs(counts.get(v, 0) / n - float(p)) <= 5 * sd + 1e-12


def _brute_hockey(
    p: dict[tuple[object, ...], Fraction], q: dict[tuple[object, ...], Fraction], eps: float
) -> float:
    """sup over every subset S of P(S) - e^eps Q(S) (the definition, by brute force)."""
    keys = sorted(set(p) | set(q), key=repr)
    e = mp.e ** mp.mpf(eps)
    best = mp.mpf(0)
    for r in range(len(keys) + 1):
        for subset in itertools.combinations(keys, r):
            ps = sum(p.get(k, Fraction(0)) for k in subset)
            qs = sum(q.get(k, Fraction(0)) for k in subset)
            val = mp.mpf(ps.numerator) / ps.denominator - e * mp.mpf(qs.numerator) / qs.denominator
            best = max(best, val)
    return float(best)


def test_def17_rr_exact_view_dp() -> None:
    """H23-Def1.7 with the exact view distributions: two adaptive RR answers on one
    differing bit are (2 ln 3, 0)-DP and no better (both orders of the pair)."""
    m = RandomizedResponseIM("0.75", 2)
    adv = FunctionAdversary(lambda h: 0 if len(h) < 3 else Refusal.HALT)
    d0 = view_distribution(adv, m, (0,))
    d1 = view_distribution(adv, m, (1,))
    measure = ApproxDPMeasure()
    eps = 2 * float(mp.log(3))
    assert measure.holds(d0, d1, (Fraction(eps) + Fraction(1, 10**9), 0))
    assert not measure.holds(d0, d1, (Fraction(eps) - Fraction(1, 100), 0))
    for e in (0.0, 0.5, 1.5):
        hs = hockey_stick(d0, d1, e)
        assert hs >= _brute_hockey(dict(d0.items()), dict(d1.items()), e) - 1e-15
        assert hs - _brute_hockey(dict(d0.items()), dict(d1.items()), e) < 1e-12


def test_renyi_closed_form_rr() -> None:
    """R23-RenyiDivergence (renyi_divergence): D_alpha of finite distributions against the closed
    form. D_alpha of one RR answer: 1/(alpha-1) log(p^a q^(1-a) + q^a p^(1-a))."""
    m = RandomizedResponseIM("0.75", 1)
    adv = FunctionAdversary(lambda h: 0 if len(h) < 2 else Refusal.HALT)
    d0 = view_distribution(adv, m, (0,))
    d1 = view_distribution(adv, m, (1,))
    mp.mp.dps = 40
    p, q = mp.mpf(3) / 4, mp.mpf(1) / 4
    for alpha in ("1.5", "2", "7"):
        a = mp.mpf(alpha)
        ref = mp.log(p**a * q ** (1 - a) + q**a * p ** (1 - a)) / (a - 1)
        got = renyi_divergence(d0, d1, Fraction(alpha))
        assert got >= float(ref) - 1e-15 and got - float(ref) < 1e-12
    assert RDPMeasure(7).holds(d0, d1, RDP(7, got + 1e-9))
    assert not RDPMeasure(7).holds(d0, d1, RDP(7, got - 1e-6))
    assert renyi_divergence({"a": Fraction(1)}, {"b": Fraction(1)}, 2) == float("inf")
    # pure eps-DP implies (eps^2/2)-zCDP (R23-Lem2.3): the grid check passes
    eps = mp.log(3)
    assert ZCDPMeasure().holds(d0, d1, ZCDP(Fraction(float(eps**2 / 2)) * (1 + Fraction(1, 10**9))))


@settings(max_examples=25)
@given(
    st.lists(st.integers(1, 20), min_size=3, max_size=3),
    st.lists(st.integers(1, 20), min_size=3, max_size=3),
    st.lists(st.lists(st.integers(0, 5), min_size=2, max_size=2), min_size=3, max_size=3),
)
def test_def21_postprocessing_never_increases(
    pw: list[int], qw: list[int], kernel: list[list[int]]
) -> None:
    """H23-Def2.1 (3): a stochastic map g never increases the hockey-stick or D_alpha."""
    p = {i: Fraction(w, sum(pw)) for i, w in enumerate(pw)}
    q = {i: Fraction(w, sum(qw)) for i, w in enumerate(qw)}
    rows = [[Fraction(c + 1, sum(r) + 2) for c in r] for r in kernel]

    def push(d: dict[int, Fraction]) -> dict[int, Fraction]:
        return {j: sum((d[i] * rows[i][j] for i in d), Fraction(0)) for j in range(2)}

    gp, gq = push(p), push(q)
    for e in (0, Fraction(1, 2)):
        assert hockey_stick(gp, gq, e) <= hockey_stick(p, q, e) + 1e-15
    assert renyi_divergence(gp, gq, 3) <= renyi_divergence(p, q, 3) + 1e-12


def test_declared_within_through_the_lattice() -> None:
    assert within(PureDP(1), PureDP(1))
    assert not within(PureDP(1), PureDP("0.9"))
    assert within(PureDP(1), ApproxDP(1, "0.1"))
    assert within(PureDP(1), ZCDP("0.5"))
    assert not within(PureDP(1), ZCDP("0.49"))
    assert within(PureDP(1), RDP(2, 1))
    assert not within(PureDP(1), RDP(3, "1.49"))
    assert within(ZCDP("0.1"), RDP(3, "0.3"))
    assert not within(ZCDP("0.1"), RDP(3, "0.29"))
    assert not within(ZCDP("0.1"), PureDP(5))
    assert not within(RDP(2, 1), RDP(3, 1))


def test_measures_poset() -> None:
    """H23-RDPPoset ([0, inf], <=) and H23-FDPPoset (f1 <= f2 iff f1 >= f2 pointwise: a
    larger trade-off function is less loss; f_{1, 0} >= f_{2, 0})."""
    fdp = FDPMeasure()
    assert fdp.leq(_f_eps_delta(1.0, 0.0), _f_eps_delta(2.0, 0.0))
    assert not fdp.leq(_f_eps_delta(2.0, 0.0), _f_eps_delta(1.0, 0.0))
    assert fdp.leq(_f_eps_delta(1.0, 0.0), _f_eps_delta(1.0, 0.1))
    m = ApproxDPMeasure()
    assert m.leq((1, 0), (1, 0)) and not m.leq((1, "0.1"), (2, 0))
    assert RDPMeasure(2).leq(1, 2) and not RDPMeasure(2).leq(3, 2)
    assert ZCDPMeasure().leq(ZCDP(1), 1)


def _f_eps_delta(eps: float, delta: float) -> Callable[[float], float]:
    """H23-FEpsDelta, typed here from the seed: max{0, 1-delta-e^eps a, e^-eps (1-delta-a)}."""
    e = float(mp.e ** eps)

    def f(a: float) -> float:
        return max(0.0, 1 - delta - e * a, (1 - delta - a) / e)

    return f


def test_def31_def32_tradeoff_of_rr_is_f_eps_0() -> None:
    """H23-Def3.1 / H23-Def3.2: one RR answer with p = 3/4 has T = f_{ln 3, 0} exactly
    (breakpoints (0, 1), (1/4, 1/4), (1, 0)); FDPMeasure accepts f_{ln 3, 0} and refuses
    f_{ln 3 - 0.01, 0}; T(P, P)(alpha) = 1 - alpha."""
    m = RandomizedResponseIM("0.75", 1)
    adv = FunctionAdversary(lambda h: 0 if len(h) < 2 else Refusal.HALT)
    d0 = view_distribution(adv, m, (0,))
    d1 = view_distribution(adv, m, (1,))
    pts = tradeoff_points(d0, d1)
    assert pts == ((Fraction(0), Fraction(1)), (Fraction(1, 4), Fraction(1, 4)),
                   (Fraction(1), Fraction(0)))
    ln3 = float(mp.log(3))
    f = _f_eps_delta(ln3, 0.0)
    for a in (0.0, 0.1, 0.25, 0.6, 1.0):
        assert abs(float(tradeoff_at(pts, Fraction(a))) - f(a)) < 1e-12
    fdp = FDPMeasure()
    assert fdp.holds(d0, d1, f)
    assert not fdp.holds(d0, d1, _f_eps_delta(ln3 - 0.01, 0.0))
    same = tradeoff_points(d0, d0)
    assert all(abs(float(tradeoff_at(same, Fraction(a))) - (1 - a)) < 1e-15
               for a in (0.0, 0.3, 0.75, 1.0))
    assert fdp.leq(_f_eps_delta(0.5, 0.0), _f_eps_delta(1.0, 0.0))
    assert not fdp.leq(_f_eps_delta(1.0, 0.0), _f_eps_delta(0.5, 0.0))
