"""RRUV16-Odometer (adaptive_dp.odometers.rruv16.RRUV16Odometer): readings against an
independent mpmath evaluation of the formula, the delta_g/2 cut-off at equality, the fast
path, validation, and the twins' exact crossing probabilities in their scenarios."""

from __future__ import annotations

import math
from collections.abc import Iterator
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mpmath import mp

from adaptive_dp.errors import DeltaRangeError, ParameterError
from adaptive_dp.guarantees.definitions import ApproxDP, ProbabilisticDP, PureDP
from adaptive_dp.odometers.rruv16 import RRUV16Odometer
from adaptive_dp.odometers.steps import approx_to_pdp
from adaptive_dp.verify.registry.twins.rruv16 import NoDeltaRRUV16Odometer, NoDriftRRUV16Odometer


@pytest.fixture(autouse=True)
def _precision() -> Iterator[None]:
    with mp.workdps(40):
        yield


def _formula(spends: list[tuple[str, str]], n: int, delta_g: str, with_delta: bool = True
             ) -> mp.mpf:
    """U_k of the statement, evaluated in mpmath from the spends (epsilon, delta)."""
    eps = [mp.mpf(e) for e, _ in spends]
    v = sum(e**2 for e in eps)
    drift = sum(e * (mp.exp(e) - 1) / 2 for e in eps)
    total = sum(mp.mpf(d) for _, d in spends)
    conc = mp.sqrt(2 * (v + mp.mpf(1) / n**2) * (1 + mp.log(1 + n**2 * v) / 2)
                   * mp.log(4 * mp.log(n, 2) / mp.mpf(delta_g)))
    return drift + conc + (total if with_delta else 0)


SPENDS = [("0.1", "0"), ("0.5", "0.001"), ("1", "0"), ("0.25", "0.002")]


def test_readings_match_the_formula() -> None:
    odometer = RRUV16Odometer(delta="0.05", n=10)
    state = odometer.start()
    for k, (e, d) in enumerate(SPENDS, start=1):
        state = state.spend(ProbabilisticDP(e, d))
        exact = _formula(SPENDS[:k], 10, "0.05")
        assert state.reading() >= exact
        assert state.reading() - exact < mp.mpf("1e-14")


def test_pure_steps_read_the_recalled_form() -> None:
    """With delta_j = 0 the reading is the recollection (no Delta term)."""
    spends = [("0.1", "0")] * 50 + [("1", "0")] * 3
    state = RRUV16Odometer(delta="0.001", n=100).start()
    for e, _ in spends:
        state = state.spend(PureDP(e))
    exact = _formula(spends, 100, "0.001", with_delta=False)
    assert 0 <= state.reading() - exact < mp.mpf("1e-13")


def test_cutoff_at_equality_and_after() -> None:
    """Delta_k = delta_g/2 exactly keeps a finite reading; one more delta makes it +inf."""
    state = RRUV16Odometer(delta="0.02", n=4).start()
    for _ in range(10):
        state = state.spend(ProbabilisticDP("0.1", "0.001"))
    assert np.isfinite(state.reading())
    assert state.spend(ProbabilisticDP("0.1", "0")).reading() < np.inf
    assert state.spend(ProbabilisticDP("0.1", "1e-30")).reading() == np.inf


def test_fast_path_never_below_certified() -> None:
    odometer = RRUV16Odometer(delta="0.05", n=10)
    state, fast = odometer.start(), odometer.fast(3)
    for e, d in SPENDS:
        state = state.spend(ProbabilisticDP(e, d))
        fast = fast.spend(float(e), float(d))
        assert np.all(fast.reading() >= state.reading())
        assert np.all(fast.reading() <= state.reading() * (1 + 1e-9))


def test_validation_and_supported_spends() -> None:
    for bad in (1, "2.5", 0):
        with pytest.raises(ParameterError):
            RRUV16Odometer(delta="0.05", n=bad)
    with pytest.raises(DeltaRangeError):
        RRUV16Odometer(delta=0, n=10)
    odometer = RRUV16Odometer(delta="0.05", n=10)
    assert not odometer.supports(ApproxDP("0.1", "0.001"))
    assert odometer.supports(ApproxDP("0.1", 0))
    assert odometer.supports(approx_to_pdp(ApproxDP("0.1", "0.001"), "0.1"))


def _readings(odometer: RRUV16Odometer, spend: PureDP | ProbabilisticDP, k: int
              ) -> list[float]:
    state, out = odometer.start(), []
    for _ in range(k):
        state = state.spend(spend)
        out.append(state.reading())
    return out


def test_drift_removed_twin_is_crossed_with_probability_near_one() -> None:
    """Exact crossing probability of the drift-removed twin (RR, epsilon = 1, n = 2,
    delta_g = 0.05, 500 steps) by dynamic programming over the number of truthful
    answers: L_k = 2 S_k - k. It is far above twice its claim 0.05; the valid odometer is
    never crossed there (its drift alone, (e - 1)/2 per step, exceeds the largest loss)."""
    twin = _readings(NoDriftRRUV16Odometer(delta=Fraction(1, 20), n=2), PureDP(1), 500)
    valid = _readings(RRUV16Odometer(delta=Fraction(1, 20), n=2), PureDP(1), 500)
    assert all(u > k for k, u in enumerate(valid, start=1))
    p = float(mp.e / (1 + mp.e))
    alive = np.array([1.0])  # P(S_k = s, not crossed yet), s = 0..k
    for k in range(1, 501):
        nxt = np.zeros(k + 1)
        nxt[:-1] += alive * (1 - p)
        nxt[1:] += alive * p
        loss = 2 * np.arange(k + 1) - k
        alive = np.where(loss > twin[k - 1], 0.0, nxt)
    assert 1 - alive.sum() > 0.99


def test_delta_term_dropped_twin_is_crossed_surely() -> None:
    """The pdp-steps scenario (attaining pair, epsilon = 1e-3, delta = 0.2/222, 111 steps,
    n = 1000, delta_g = 0.2): under x the loss is +-epsilon per step, so the valid reading
    (>= k epsilon at every k) is never crossed, while the twin without Delta_k reads below
    the loss's mean 0.10006 at the last step: it is crossed with probability > 1 - 1e-9."""
    spend = ProbabilisticDP("0.001", Fraction(2, 10) / 222)
    valid = _readings(RRUV16Odometer(delta="0.2", n=1000), spend, 111)
    twin = _readings(NoDeltaRRUV16Odometer(delta="0.2", n=1000), spend, 111)
    assert all(u > k * 0.001 for k, u in enumerate(valid, start=1))
    assert twin[-1] < 0.064
    # the twin is missed only if L_111 <= 0.064, i.e. at most 87 of 111 steps are +epsilon
    e, d = mp.mpf("0.001"), mp.mpf("0.2") / 222
    p = (mp.exp(e) + d - 1) / (mp.exp(e) - mp.exp(-e))
    below = mp.mpf(0)  # P(L_111 <= 0.064): fewer than (111 + 64) / 2 up-steps
    for s in range(0, 88):
        below += mp.binomial(111, s) * p**s * (1 - p) ** (111 - s)
    assert below < mp.mpf("1e-9")


@settings(max_examples=30, deadline=None)
@given(seq=st.lists(st.tuples(st.one_of(st.floats(0, 2), st.sampled_from(
    [math.nan, math.inf, -math.inf, -0.1, -1e-300])),
    st.sampled_from([0.0, 1e-4, 2e-3, math.nan, -1e-4])), min_size=1, max_size=25))
def test_fast_readings_never_below_the_certified_ones(seq: list[tuple[float, float]]) -> None:
    """The fast path flags invalid spends (then reads +inf) and never reads below the
    certified path."""
    odometer = RRUV16Odometer(delta="0.01", n=7)
    state, fast, flagged = odometer.start(), odometer.fast(1), False
    for epsilon, delta in seq:
        valid = 0 <= epsilon < math.inf and 0 <= delta < 1
        fast = fast.spend(epsilon, delta)
        flagged |= not valid
        assert bool(fast.invalid[0]) == flagged
        if valid:
            state = state.spend(ProbabilisticDP(epsilon, delta))
        reading = float(fast.reading()[0])
        assert reading >= state.reading()
        if flagged:
            assert reading == math.inf
