"""R23-Thm3: the zCDP ledger (R23-Thm2) and the ex-post ledger (R23-Lem5.2) as two
children of one concurrent compositor. Oracles: the ledgers' conditions recomputed by
hand on exact decimals, and the exact view distributions (enumeration) for the
reconstructed (epsilon + epsilon', delta + delta'' + delta')-DP conclusion."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest

from adaptive_dp.errors import ParameterError
from adaptive_dp.filters.expost import ExPostFilter
from adaptive_dp.filters.zcdp import ZCDPFilter
from adaptive_dp.guarantees.definitions import ZCDP, ApproxDP
from adaptive_dp.guarantees.expost import ExPost
from adaptive_dp.interactive.concurrent import Query
from adaptive_dp.interactive.filtered import HALTED
from adaptive_dp.interactive.interaction import ScriptedAdversary, interact, view_distribution
from adaptive_dp.interactive.mechanism import (
    LAMBDA,
    STARTED,
    Launch,
    RandomizedResponseIM,
    Refusal,
)
from adaptive_dp.interactive.privacy import ApproxDPMeasure
from adaptive_dp.interactive.r23_thm3 import R23MixedFilter


@dataclass(frozen=True)
class CoinThenRR:
    """An ex-post private mechanism: a public fair coin c picks p_c, then randomized
    response with p_c on bit 0; output (c, bit); E((c, bit)) = ln(p_c / (1 - p_c))
    (the loss of that output is +-E, so delta = 0)."""

    p0: Fraction
    p1: Fraction

    def _eps(self, c: int) -> Fraction:
        p = self.p0 if c == 0 else self.p1
        return Fraction(float(mp.log(p / (1 - p)))) * (1 + Fraction(1, 10**12))

    @property
    def guarantee(self) -> ExPost:
        top = max(self._eps(0), self._eps(1))
        return ExPost(top, 0, top)

    def ex_post(self, output: object) -> Fraction:
        assert isinstance(output, tuple)
        return self._eps(int(output[0]))

    def transitions(self, x: object, m: object) -> tuple[tuple[Fraction, object, object], ...]:
        assert isinstance(x, tuple) and m is LAMBDA
        bit = x[0]
        out = []
        for c, p in ((0, self.p0), (1, self.p1)):
            out.append((Fraction(1, 2) * p, "done", (c, bit)))
            out.append((Fraction(1, 2) * (1 - p), "done", (c, 1 - bit)))
        return tuple(out)

    def step(self, x: object, m: object, rng: np.random.Generator) -> tuple[object, object]:
        outs = self.transitions(x, m)
        u = Fraction(float(rng.random()))
        acc = Fraction(0)
        for p, s, y in outs:
            acc += p
            if u < acc:
                return s, y
        return outs[-1][1], outs[-1][2]


EP = CoinThenRR(Fraction(3, 5), Fraction(3, 4))  # E = ln 1.5 or ln 3
RR = RandomizedResponseIM("0.6", 2)  # (2 ln 1.5)-DP, hence (2 ln 1.5)^2 / 2-zCDP


def _zcdp_param() -> ZCDP:
    eps = RR.guarantee.epsilon  # type: ignore[union-attr]
    return ZCDP(eps * eps / 2)


def _zcdp(epsilon: str) -> ZCDPFilter:
    """R23-Thm2 with the paper's delta = delta'' = 0.01."""
    return ZCDPFilter(epsilon, delta="0.02", delta_slack="0.01")


def test_validation_and_conclusion() -> None:
    with pytest.raises(ParameterError):
        R23MixedFilter(ZCDPFilter(1, delta="1e-6"), ExPostFilter(1, delta="0.01"))
    f = R23MixedFilter(
        ZCDPFilter("2", delta="0.011", delta_slack="0.001"), ExPostFilter("1.5", delta="0.02")
    )
    assert f.guarantee == ApproxDP("3.5", "0.031")


def test_routing_and_realised_charges() -> None:
    f = R23MixedFilter(_zcdp("3"), ExPostFilter("1.2", delta="0.01"), terminal=False)
    rng = np.random.default_rng(4)
    s, _ = f.step((1,), LAMBDA, rng)
    s, a = f.step(s, Launch(EP, EP.guarantee), rng)  # worst case ln 3 = 1.099 <= 1.2
    assert isinstance(a, tuple)
    realised = EP.ex_post(a)
    s, a2 = f.step(s, Launch(RR, _zcdp_param()), rng)
    assert a2 == STARTED
    assert f.step(s, Query(1, 0), rng)[1] is Refusal.INVALID_QUERY  # ex-post: noninteractive
    assert f.step(s, Query(2, 0), rng)[1] in (0, 1)
    # the ex-post ledger was charged the realised E: a second launch fits iff
    # realised + ln 3 <= 1.2, i.e. never (ln 1.5 + ln 3 > 1.2): refused, state unchanged
    s3, a3 = f.step(s, Launch(EP, EP.guarantee), rng)
    assert a3 is Refusal.INSUFFICIENT_BUDGET and s3 == s
    assert realised in (EP.ex_post((0, 0)), EP.ex_post((1, 0)))
    small = CoinThenRR(Fraction(51, 100), Fraction(52, 100))  # E < 0.08
    room = Fraction("1.2") - realised
    _, a4 = f.step(s, Launch(small, small.guarantee), rng)
    assert (a4 is not Refusal.INSUFFICIENT_BUDGET) == (small.guarantee.max_epsilon <= room)


def test_terminal_min_rule() -> None:
    """N = min(N_zCDP, N_post): the first refusal of either ledger halts everything."""
    f = R23MixedFilter(_zcdp("3"), ExPostFilter("0.5", delta="0.01"), terminal=True)
    rng = np.random.default_rng(5)
    s, _ = f.step((0,), LAMBDA, rng)
    s, a = f.step(s, Launch(RR, _zcdp_param()), rng)
    assert a == STARTED
    s, a = f.step(s, Launch(EP, EP.guarantee), rng)  # ln 3 > 0.5: the ex-post ledger halts
    assert (s, a) == (HALTED, Refusal.INSUFFICIENT_BUDGET)
    assert f.step(s, Query(1, 0), rng) == (HALTED, Refusal.HALT)


def test_zcdp_ledger_condition() -> None:
    """R23-Thm2's test on the zCDP side: admit iff 2 sqrt(log(1/delta'') R) + R <= eps."""
    f = R23MixedFilter(_zcdp("1"), ExPostFilter("1", delta="0.01"), terminal=False)
    rng = np.random.default_rng(6)
    s, _ = f.step((0,), LAMBDA, rng)
    rho = _zcdp_param().rho
    admitted = 0
    for _ in range(6):
        s, a = f.step(s, Launch(RR, _zcdp_param()), rng)
        if a == STARTED:
            admitted += 1
    r = mp.mpf(rho.numerator) / rho.denominator
    expect = max(k for k in range(7)
                 if k == 0 or 2 * mp.sqrt(mp.log(100) * k * r) + k * r <= 1)
    assert admitted == expect


def test_exact_view_within_reconstructed_conclusion() -> None:
    """Exact: an interleaving adversary's view is within (eps + eps', delta + delta'' +
    delta') and its loss really uses both systems (not within eps alone). The sequence
    mixes approximate-zCDP and ex-post launches (R23-Def5.1); the zCDP system's view is
    that of an R23-Def3.1 filter."""
    f = R23MixedFilter(_zcdp("3"), ExPostFilter("1.2", delta="0.01"), terminal=False)
    script = (Launch(RR, _zcdp_param()), Launch(EP, EP.guarantee), Query(1, 0),
              Launch(EP, EP.guarantee), Query(1, 0))
    adv = ScriptedAdversary(script)
    d0 = view_distribution(adv, f, (0,))
    d1 = view_distribution(adv, f, (1,))
    g = f.guarantee
    assert ApproxDPMeasure().holds(d0, d1, (g.epsilon, g.delta))
    two_ln15 = 2 * float(mp.log(1.5))
    assert not ApproxDPMeasure().holds(d0, d1, (Fraction(two_ln15), 0))
    view = interact(adv, f, (0,), np.random.default_rng(1))
    assert view.messages[0] is LAMBDA
