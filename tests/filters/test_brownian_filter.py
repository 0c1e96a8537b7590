"""R23-Eq3/Lem6.2 (BM filter) and R23-Eq4/Thm6 (unified filter)."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adaptive_dp.errors import ParameterError, UnsupportedGuaranteeError
from adaptive_dp.filters.base import Decision
from adaptive_dp.filters.brownian import (
    BrownianFilter,
    UnifiedFilter,
    fast_bm_spend,
    smallest_time_value,
)
from adaptive_dp.filters.zcdp import ZCDPFilter
from adaptive_dp.guarantees.definitions import ZCDP, ApproxDP, ApproxZCDP
from adaptive_dp.guarantees.spends import BrownianSpend
from adaptive_dp.ledger import FastTally
from adaptive_dp.loss.brownian import bm_release_loss
from adaptive_dp.mechanisms.brownian import BrownianNoiseReduction
from adaptive_dp.verify.judge.estimators import clopper_pearson
from adaptive_dp.verify.registry.claims.expost import _filter_experiment


def _rho_star(eps: float, dpp: float) -> mpmath.mpf:
    with mpmath.workdps(40):
        c = mpmath.log(1 / mpmath.mpf(dpp))
        root = mpmath.findroot(
            lambda r: r + 2 * mpmath.sqrt(r * c) - eps,
            (mpmath.mpf(0), mpmath.mpf(eps)),
            solver="anderson",
        )
        return mpmath.mpf(root)


def test_r23_thm6_reproduces_the_2_705_stop() -> None:
    """R23-Thm6 (UnifiedFilter): the section-7 stop at a squared-parameter sum of about 2.705."""
    # R23 section 7: the interaction stops when the sum of squared privacy parameters
    # exceeds "roughly 2.705"; at epsilon = 10, delta'' = 1e-6, 2 rho* = 2.706 (1e-3).
    rule = UnifiedFilter(10, delta="1e-6")
    state = rule.start()
    step = Fraction(1, 10_000)  # squared privacy parameter of each BM stop: eps^2
    squares = Fraction(0)
    while True:
        t = 1 / step  # t = 1/eps^2, charge 1/(2t) = eps^2/2
        d, state = state.spend(BrownianSpend(1, t, t))
        if d is Decision.HALT:
            break
        squares += step
    assert abs(float(squares) - 2.706) < 1e-3
    assert abs(float(squares) - 2 * float(_rho_star(10, 1e-6))) < 2e-4
    # the same stop with Gaussian (zCDP) rounds: rho = eps^2/2
    zs = rule.start()
    squares_z = Fraction(0)
    while True:
        d, zs = zs.spend(ZCDP(step / 2))
        if d is Decision.HALT:
            break
        squares_z += step
    assert squares_z == squares


def test_r23_eq4_precheck_uses_t_min_and_charge_uses_t_stop() -> None:
    rule = UnifiedFilter(1, delta="0.05")
    rho_star = float(_rho_star(1, 0.05))
    state = rule.start()
    # a grid reaching below the admissible time value is refused, even if it would
    # have stopped early
    t_small = 1 / (2 * rho_star) * 0.99
    assert state.decide(BrownianSpend(1, t_small, 100)) is Decision.HALT
    d, state = state.spend(BrownianSpend(1, 1 / (2 * rho_star) * 1.01, 10))
    assert d is Decision.CONTINUE
    assert state.sums[0] == Fraction(1, 20)  # 1^2/(2 * 10): the realised stop
    # the declared sensitivity is charged, squared
    d, s2 = state.spend(BrownianSpend(Fraction(1, 2), 50, 50))
    assert s2.sums[0] - state.sums[0] == Fraction(1, 400)


def test_r23_eq4_smallest_time_value_is_admitted_and_tight() -> None:
    """R23-Lem6.2 (BrownianFilter, pre-check R23-Eq3) and R23-Thm6 (UnifiedFilter, pre-check
    R23-Eq4): the smallest admissible time value is admitted, and a hair less is refused."""
    for rule in (UnifiedFilter(10, delta="1e-6"), BrownianFilter(1, delta="0.05")):
        state = rule.start()
        _, state = state.spend(BrownianSpend(1, 100, 200))
        t = smallest_time_value(state, 2)
        assert t is not None
        assert state.decide(BrownianSpend(2, t, t)) is Decision.CONTINUE
        assert state.decide(BrownianSpend(2, t * (1 - 1e-12), t)) is Decision.HALT
        # independent value: t = 4 / (2 (rho* - 1/400))
        rs = _rho_star(float(rule.epsilon), float(rule.delta_slack))
        assert abs(t - float(4 / (2 * (rs - mpmath.mpf(1) / 400)))) < 1e-9 * t


def test_r23_thm6_zcdp_rounds_agree_with_r23_thm2() -> None:
    rng = np.random.default_rng(3)
    u = UnifiedFilter(2, delta="1.1e-5", delta_slack="1e-5").start()
    z = ZCDPFilter(2, delta="1.1e-5", delta_slack="1e-5").start()
    for _ in range(60):
        spend = ApproxZCDP(float(rng.uniform(0, 0.05)), float(rng.choice([0, 1e-7])))
        du, u = u.spend(spend)
        dz, z = z.spend(spend)
        assert du is dz
    assert u.sums[:2] == z.sums


def test_r23_lem6_2_kinds_and_validation() -> None:
    """R23-Lem6.2 (BrownianFilter): only BM stops are accepted; bad stops are rejected."""
    state = BrownianFilter(1, delta="0.05").start()
    with pytest.raises(UnsupportedGuaranteeError):
        state.decide(ZCDP("0.01"))
    with pytest.raises(ParameterError):
        BrownianSpend(1, 10, 5)


def test_r23_thm6_fast_bm_path_is_never_looser() -> None:
    rng = np.random.default_rng(9)
    rule = UnifiedFilter(1, delta="0.05")
    state = rule.start()
    fast = rule.fast(1)
    for _ in range(200):
        t_min = float(rng.uniform(1, 60))
        t_stop = t_min * float(rng.uniform(1, 3))
        ok, fast = fast_bm_spend(fast, 1.0, t_min, t_stop)
        d, new = state.spend(BrownianSpend(1, t_min, t_stop))
        if bool(ok[0]):
            assert d is Decision.CONTINUE
            state = new
        else:
            break


def _chained_bms(
    rule: UnifiedFilter, paths: int, rng: np.random.Generator, rounds: int, gaussian_rho: float
) -> np.ndarray:
    """Adaptively chained BMs (and Gaussian rounds) with a stop-at-worst adversary that
    knows the pair (f(x) = 0, f(x') = 1): it stops a BM as soon as the running total loss
    exceeds epsilon.  The loss is computed from the released prefixes' densities."""
    eps = float(rule.epsilon)
    fast = rule.fast(paths)
    total = np.zeros(paths)
    for _ in range(rounds):
        if gaussian_rho > 0:
            ok, fast = fast.spend(gaussian_rho, 0.0)
            sigma = 1 / math.sqrt(2 * gaussian_rho)
            y = rng.normal(0, sigma, paths)
            total += np.where(ok, (y * y - (y - 1) ** 2) / (-2 * sigma * sigma), 0.0)
        room = smallest_time_value_fast(rule, fast.sums[0])
        # the adversary rounds its t_min UP to a lattice 1.05^j (admissible, fewer groups)
        with np.errstate(divide="ignore"):
            lattice = np.where(
                np.isfinite(room), 1.05 ** np.ceil(np.log(room) / np.log(1.05)), np.inf
            )
        t_min = lattice
        active = np.isfinite(t_min)
        for grp in np.unique(t_min[active]):
            idx = np.flatnonzero(t_min == grp)
            grid = tuple(np.geomspace(20 * grp, grp, 30))
            mech = BrownianNoiseReduction(1, grid)
            base = total[idx]

            def stop(ts: np.ndarray, v: np.ndarray, base: np.ndarray = base) -> np.ndarray:
                cur = (v[:, -1, 0] ** 2 - (v[:, -1, 0] - 1) ** 2) / (-2 * ts[-1])
                out: np.ndarray = base + cur > eps
                return out

            rel = mech.release([0.0], stop, rng, paths=idx.size)
            loss = bm_release_loss(mech, rel, [0.0], [1.0])
            sub = type(fast)(
                rule, FastTally(tuple(s[idx] for s in fast.sums)), fast.halted[idx],
                fast.terminal, fast.invalid[idx],
            )
            ok, sub = fast_bm_spend(sub, 1.0, grp, rel.t_stop)
            total[idx] += np.where(ok, loss, 0.0)
            new_sums = tuple(s.copy() for s in fast.sums)
            for s_new, s_sub in zip(new_sums, sub.sums, strict=True):
                s_new[idx] = s_sub
            fast = type(fast)(rule, FastTally(new_sums), fast.halted, fast.terminal, fast.invalid)
    return total


def smallest_time_value_fast(rule: UnifiedFilter, spent: np.ndarray) -> np.ndarray:
    rs = float(_rho_star(float(rule.epsilon), float(rule.delta_slack)))
    room = rs - spent
    with np.errstate(divide="ignore"):
        out: np.ndarray = np.where(room > 1e-6, 1 / (2 * np.maximum(room, 1e-6)), np.inf)
    return out


@pytest.mark.parametrize("gaussian_rho", [0.0, 0.004])
def test_r23_thm6_tail_under_stop_at_worst(gaussian_rho: float) -> None:
    rng = np.random.default_rng(11)
    rule = UnifiedFilter(1, delta="0.05")
    paths = 4000
    loss = _chained_bms(rule, paths, rng, rounds=4, gaussian_rho=gaussian_rho)
    k = int(np.sum(loss > 1.0))
    lower, _ = clopper_pearson(k, paths)
    assert lower <= 0.05


@settings(max_examples=3, deadline=None)
@given(
    mode=st.sampled_from(["worst", "hug", "last"]),
    rounds=st.integers(1, 6),
    share=st.sampled_from([0.0, 0.05, 0.125, 0.3]),
)
def test_r23_thm6_hypothesis_adversaries(mode: str, rounds: int, share: float) -> None:
    # generated adversaries (docs/design.md: at most three per claim in the quick profile)
    rule = UnifiedFilter(1, delta="0.05")
    run = _filter_experiment(rule, mode, rounds=rounds, gaussian_share=share)
    for under in ("x", "x'"):
        loss = run(1500, np.random.default_rng(rounds * 7 + int(share * 100)), under)
        lower, _ = clopper_pearson(int(np.sum(loss > 1.0)), loss.size)
        assert lower <= 0.05


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.floats(0.5, 200), st.floats(1, 4)), min_size=1,
                max_size=15))
def test_r23_thm6_never_charges_past_the_budget(
    steps: list[tuple[bool, float, float]],
) -> None:
    # whatever is requested, the certified bound of what was charged stays <= epsilon,
    # and a refused request leaves the state unchanged
    rule = UnifiedFilter(1, delta="0.05")
    state = rule.start()
    for is_bm, t_min, ratio in steps:
        spend = BrownianSpend(1, t_min, t_min * ratio) if is_bm else ZCDP(1 / (2 * t_min))
        d, new = state.spend(spend)
        if d is Decision.HALT:
            assert new == state
        state = new
        spent = state.spent()
        assert isinstance(spent, ApproxDP) and spent.epsilon <= 1
