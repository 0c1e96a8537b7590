"""W23-StitchedOdometer-Corrected and W23-MixtureOdometer-Corrected (W23-OdometerDef):
regression values (docs/derivations.md, section 2.10, recomputed here with mpmath),
monotone readings, the delta'' cut-off at equality, the fast path never below the
certified reading, an exact time-uniform crossing probability."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adaptive_dp.errors import UnsupportedGuaranteeError
from adaptive_dp.guarantees.definitions import ApproxDP, ProbabilisticDP, PureDP
from adaptive_dp.odometers.w23 import W23MixtureOdometer, W23StitchedOdometer, mixture_rho_for

mpmath.mp.dps = 50
M = mpmath.mpf


def stitched_poster(v: mpmath.mpf, m: mpmath.mpf, dp: str) -> mpmath.mpf:
    g = M("1.7") * mpmath.sqrt(
        v * (mpmath.log(mpmath.log(2 * v / m)) + M("0.72") * mpmath.log(M("5.2") / M(dp)))
    )
    return g + v / 2


def stitched_exact(
    v: mpmath.mpf, m: mpmath.mpf, dp: str, eta: int = 2, s: str = "1.4"
) -> mpmath.mpf:
    e, ss = M(eta), M(s)
    k1 = (e ** M("0.25") + e ** M("-0.25")) / mpmath.sqrt(2)
    ell = ss * mpmath.log(mpmath.log(e * v / m)) + mpmath.log(
        mpmath.zeta(ss) / (mpmath.log(e) ** ss * M(dp))
    )
    return k1 * mpmath.sqrt(v * ell) + v / 2


def mixture(v: mpmath.mpf, rho: str, dp: str, sides: str) -> mpmath.mpf:
    r = M(rho)
    ratio = mpmath.sqrt((v + r) / r)
    inner = mpmath.log(ratio / (2 * M(dp)) + 1) if sides == "one" else mpmath.log(ratio / M(dp))
    return mpmath.sqrt(2 * (v + r) * inner) + v / 2


@pytest.mark.parametrize("n", [1, 10, 100, 1000])
def test_readings_against_mpmath_and_notes(n: int) -> None:
    v, m = n * M("0.01"), M("0.01")
    odos = {
        "poster": W23StitchedOdometer(delta="1e-5"),
        "exact": W23StitchedOdometer(delta="1e-5", form="exact"),
        "one": W23MixtureOdometer(delta="1e-5", rho=1),
        "two": W23MixtureOdometer(delta="1e-5", rho="0.037974", sides="two"),
    }
    oracle = {
        "poster": stitched_poster(v, m, "1e-5"),
        "exact": stitched_exact(v, m, "1e-5"),
        "one": mixture(v, "1", "1e-5", "one"),
        "two": mixture(v, "0.037974", "1e-5", "two"),
    }
    notes = {1: (0.518102, 0.515484, 4.681114), 100: (6.174978, 6.150398, 7.183223)}
    for key, odo in odos.items():
        s = odo.start()
        for _ in range(n):
            s = s.spend(PureDP("0.1"))
        r = s.reading()
        assert r >= oracle[key] and r - oracle[key] < 1e-13
        if n in notes and key in ("poster", "exact", "one"):
            expected = notes[n][("poster", "exact", "one").index(key)]
            assert abs(r - expected) < 1e-6


@pytest.mark.parametrize("spend", [PureDP("0.1"), ProbabilisticDP("0.25", "1e-6")])
def test_spend_each_is_spend_repeated(spend: PureDP | ProbabilisticDP) -> None:
    odo = W23StitchedOdometer(delta="1.2e-5", delta_slack="1e-5")
    start = odo.start().spend(PureDP("0.3"))
    each = list(start.spend_each(spend, 5))
    state = start
    for got in each:
        state = state.spend(spend)
        assert got == state and got.reading() == state.reading()
    assert len(each) == 5 and each[-1].count == 6
    assert list(start.spend_each(spend, 0)) == []
    with pytest.raises(UnsupportedGuaranteeError):
        next(start.spend_each(ApproxDP("0.1", "1e-9"), 3))


def test_cutoff_non_strict() -> None:
    odo = W23StitchedOdometer(delta="1.2e-5", delta_slack="1e-5")
    s = odo.start().spend(ProbabilisticDP("0.1", "1e-6")).spend(ProbabilisticDP("0.1", "1e-6"))
    assert math.isfinite(s.reading())
    # Delta_n enters the drift
    base = odo.start().spend(PureDP("0.1")).spend(PureDP("0.1")).reading()
    assert s.reading() - base == pytest.approx(2e-6, abs=1e-12)
    assert s.spend(ProbabilisticDP(0, "1e-20")).reading() == math.inf
    with pytest.raises(UnsupportedGuaranteeError):
        s.spend(ApproxDP("0.1", "1e-9"))


def test_drift_hook_exists_for_printed_twins() -> None:
    """The printed poster forms drop the drift: a twin overrides ``_drift``; with the
    drift the reading exceeds the printed form by V/2."""
    assert "_drift" in W23StitchedOdometer.__mro__[1].__dict__
    assert "_level" in W23StitchedOdometer.__mro__[1].__dict__


def test_mixture_rho_for_matches_notes() -> None:
    assert mixture_rho_for(1, 1e-5) == pytest.approx(0.04017, rel=1e-3)
    assert mixture_rho_for(1, 1e-5, "two") == pytest.approx(0.03797, rel=1e-3)


eps_lists = st.lists(st.floats(0, 0.5, allow_subnormal=False), min_size=1, max_size=40)


@settings(max_examples=25)
@given(eps_lists, st.sampled_from(["poster", "exact", "one", "two"]))
def test_monotone_and_fast_path_above(epsilons: list[float], key: str) -> None:
    odo = {
        "poster": W23StitchedOdometer(delta=1e-3),
        "exact": W23StitchedOdometer(delta=1e-3, form="exact", eta="1.5", s=2),
        "one": W23MixtureOdometer(delta=1e-3, rho=0.3),
        "two": W23MixtureOdometer(delta=1e-3, rho=0.3, sides="two"),
    }[key]
    s = odo.start()
    f = odo.fast(1)
    last = 0.0
    for e in epsilons:
        s = s.spend(PureDP(e))
        f = f.spend(np.array([e]))
        r = s.reading()
        assert r >= last
        last = r
        assert f.reading()[0] >= r


def test_private_hooks_reproduce_the_printed_forms() -> None:
    """Negative controls (registered later in verify/twins/) override one private hook;
    with the drift dropped the stitched reading is the poster's printed P8 (5.6750 at
    n = 100, delta' = 1e-5, docs/derivations.md, section 2.10), and the printed P9 uses the total
    delta in the logarithm."""
    from flint import arb

    class PrintedStitched(W23StitchedOdometer):
        def _drift(self, v: object, d: object) -> arb:
            return arb(0)

    s = PrintedStitched(delta="1e-5").start()
    for _ in range(100):
        s = s.spend(PureDP("0.1"))
    assert abs(s.reading() - 5.6750) < 1e-4

    class PrintedMixture(W23MixtureOdometer):
        def _level(self) -> Fraction:
            return self.delta

    m = PrintedMixture(delta="2e-5", rho=1, delta_slack="1e-5").start().spend(PureDP("0.1"))
    ok = W23MixtureOdometer(delta="2e-5", rho=1, delta_slack="1e-5").start().spend(PureDP("0.1"))
    assert m.reading() < ok.reading()


def test_time_uniform_crossing_exact_for_randomized_response() -> None:
    """W23-OdometerDef / H23-Def1.17: P(exists n <= 400: L_n > U_n) <= delta for 400
    randomized-response answers of epsilon = 0.5 on one differing bit (L_n = epsilon
    (2 S_n - n), S_n ~ Bin(n, e^eps / (1 + e^eps))), computed exactly by dynamic
    programming over S_n with absorption at the first crossing; the same bound without
    the drift V_n / 2 is crossed with probability above 1/2 (the check has power)."""
    eps, n_max, delta = 0.5, 400, 0.2
    p = math.exp(eps) / (1 + math.exp(eps))
    state = W23StitchedOdometer(delta=str(delta)).start()
    alive = np.array([1.0])  # P(S_n = k, not yet crossed), k = 0..n
    alive_nodrift = alive.copy()
    crossed = crossed_nodrift = 0.0
    for n in range(1, n_max + 1):
        state = state.spend(PureDP(str(eps)))
        bound = state.reading()
        loss = eps * (2 * np.arange(n + 1) - n)
        for name in ("drift", "nodrift"):
            prev = alive if name == "drift" else alive_nodrift
            now = np.zeros(n + 1)
            now[:-1] += prev * (1 - p)
            now[1:] += prev * p
            over = loss > (bound if name == "drift" else bound - n * eps * eps / 2)
            if name == "drift":
                crossed += float(now[over].sum())
                alive = np.where(over, 0.0, now)
            else:
                crossed_nodrift += float(now[over].sum())
                alive_nodrift = np.where(over, 0.0, now)
    assert crossed <= delta
    assert crossed_nodrift > 0.5
