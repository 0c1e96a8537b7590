"""R23-Thm5 (ex-post bound of adaptively chained BMs) and W22-Thm3.6 (single BM), with
the fixed-time Gaussian bound as a negative control (not ex-post valid)."""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from adaptive_dp.evalues.boundaries import NormalMixtureBoundary, StitchedBoundary
from adaptive_dp.evalues.expost import (
    brownian_expost,
    brownian_expost_float,
    single_bm_expost,
    single_bm_expost_float,
    single_bm_expost_linear,
    single_bm_expost_mixture,
)
from adaptive_dp.loss.brownian import bm_release_loss
from adaptive_dp.mechanisms.brownian import BrownianNoiseReduction, brownian_forward_sample
from adaptive_dp.verify.judge.estimators import clopper_pearson
from adaptive_dp.verify.registry.twins.w22 import (
    mixture_factor_dropped_expost,
    slope_halved_linear_expost,
)


def test_r23_thm5_certified_value_against_mpmath() -> None:
    bd = NormalMixtureBoundary("0.5", delta="1e-6")
    out = brownian_expost([1, 2], ["0.25", "4"], bd)
    with mpmath.workdps(40):
        v = mpmath.mpf(1) / mpmath.mpf("0.25") + mpmath.mpf(4) / 4
        w = v + mpmath.mpf("0.5")
        ref = v / 2 + mpmath.sqrt(w * (mpmath.log(w / mpmath.mpf("0.5"))
                                        + 2 * mpmath.log(mpmath.mpf(10) ** 6)))
        got = mpmath.mpf(out.epsilon.numerator) / out.epsilon.denominator
        assert got >= ref
        assert (got - ref) / ref < mpmath.mpf("1e-15")
    assert out.delta == Fraction(1, 10**6)
    top = brownian_expost([1, 2], ["0.25", "4"], bd, t_mins=["0.2", "4"])
    assert top.max_epsilon > top.epsilon == out.epsilon
    assert float(brownian_expost_float(5.0, bd)) == pytest.approx(float(out.epsilon), rel=1e-12)


def test_w22_thm3_6_certified_value_against_mpmath() -> None:
    """W22-MixtureExPost (single_bm_expost_mixture): W22-Thm3.6 with the normal-mixture boundary
    against mpmath."""
    out = single_bm_expost_mixture(1, "2.5", "0.05", "3", t_grid=["10", "2.5", "1"])
    with mpmath.workdps(40):
        t, rho, d = mpmath.mpf("2.5"), mpmath.mpf(3), mpmath.mpf("0.05")
        ref = 1 / (2 * t) + 1 / t * mpmath.sqrt(
            2 * (t + rho) * mpmath.log(mpmath.sqrt((t + rho) / rho) / d))
        got = mpmath.mpf(out.epsilon.numerator) / out.epsilon.denominator
        assert got >= ref
        assert (got - ref) / ref < mpmath.mpf("1e-15")
    assert out.max_epsilon > out.epsilon
    assert float(single_bm_expost_float(1.0, 2.5, NormalMixtureBoundary(3, delta="0.05"))) == (
        pytest.approx(float(out.epsilon), rel=1e-12))
    same = single_bm_expost(1, "2.5", NormalMixtureBoundary(3, delta="0.05"))
    assert same.epsilon == out.epsilon


def test_w22_linear_ex_post_against_mpmath() -> None:
    """W22-LinearExPost (single_bm_expost_linear): the linear-boundary ex-post value against
    mpmath."""
    out = single_bm_expost_linear(2, "0.5", "0.01", "0.3")
    with mpmath.workdps(40):
        t, a, d = mpmath.mpf("0.5"), mpmath.mpf("0.3"), mpmath.mpf(2)
        ref = d**2 / (2 * t) + d * a + d * mpmath.log(100) / (2 * a * t)
        got = mpmath.mpf(out.epsilon.numerator) / out.epsilon.denominator
        assert got >= ref and (got - ref) / ref < mpmath.mpf("1e-15")


def _run_rounds(
    rounds: int, paths: int, rng: np.random.Generator,
    bound: Callable[[np.ndarray], np.ndarray],
    grid_range: tuple[float, float, int] = (20.0, 0.2, 40),
) -> np.ndarray:
    """Chained BMs (c = Delta = 1), grid for round n chosen from earlier outputs; the
    adversary (who knows f(x) = 0, f(x') = 1) stops a BM as soon as the running loss
    exceeds the ex-post bound at the current V.  Returns the crossing indicator
    "exists n: sum_{i<=n} L_i > E(V_n)" with L from the released prefixes' densities."""
    total = np.zeros(paths)
    v = np.zeros(paths)
    crossed = np.zeros(paths, dtype=bool)
    for _ in range(rounds):
        # adaptive grid: a larger first time value after a large previous loss
        big = total > np.median(total)
        for flag in (False, True):
            idx = np.flatnonzero(big == flag)
            hi, lo, k = grid_range
            grid = tuple(np.geomspace(2 * hi if flag else hi, lo, k))
            mech = BrownianNoiseReduction(1, grid)
            base_l, base_v = total[idx], v[idx]

            def stop(ts: np.ndarray, vals: np.ndarray, base_l: np.ndarray = base_l,
                     base_v: np.ndarray = base_v) -> np.ndarray:
                y = vals[:, -1, 0]
                cur = (y * y - (y - 1) ** 2) / (-2 * ts[-1])
                out: np.ndarray = base_l + cur > bound(base_v + 1 / ts[-1])
                return out

            rel = mech.release([0.0], stop, rng, paths=idx.size)
            total[idx] += bm_release_loss(mech, rel, [0.0], [1.0])
            v[idx] += 1 / rel.t_stop
        crossed |= total > bound(v)
    return crossed


@pytest.mark.parametrize(
    "boundary",
    [NormalMixtureBoundary("2", delta="0.05"), StitchedBoundary("1", delta="0.05")],
    ids=["mixture", "stitched"],
)
def test_r23_thm5_holds_under_stop_at_worst(boundary: NormalMixtureBoundary) -> None:
    rng = np.random.default_rng(55)
    paths = 3000
    crossed = _run_rounds(4, paths, rng, lambda v: brownian_expost_float(v, boundary))
    lower, _ = clopper_pearson(int(crossed.sum()), paths)
    assert lower <= 0.05


def test_w22_thm3_6_holds_and_fixed_time_gaussian_bound_is_caught() -> None:
    rng = np.random.default_rng(56)
    paths, delta = 3000, 0.05
    ok = _run_rounds(1, paths, rng,
                     lambda v: single_bm_expost_float(1.0, 1 / v,
                                                      NormalMixtureBoundary(2, delta=delta)),
                     grid_range=(1e3, 1e-3, 200))
    assert clopper_pearson(int(ok.sum()), paths)[0] <= delta

    def fixed_time(v: np.ndarray) -> np.ndarray:
        # c^2/(2t) + c sqrt(2 log(1/delta)/t): valid at a fixed t, not under stopping
        out: np.ndarray = v / 2 + np.sqrt(2 * math.log(1 / delta) * v)
        return out

    # many scales of time values: the fixed-time bound is crossed somewhere on the grid
    bad = _run_rounds(1, paths, rng, fixed_time, grid_range=(1e3, 1e-3, 200))
    lower, _ = clopper_pearson(int(bad.sum()), paths)
    assert lower > delta
    assert bad.mean() >= 2 * delta


@pytest.mark.parametrize(
    ("grid", "valid", "twin"),
    [
        (np.geomspace(1e4, 1e-4, 300),
         lambda t: float(single_bm_expost_mixture(1, t, "0.05", "0.05").epsilon),
         lambda t: mixture_factor_dropped_expost(1.0, t, 0.05, 0.05)),
        (np.geomspace(1e3, 1e-3, 200),
         lambda t: float(single_bm_expost_linear(1, t, "0.05", 1).epsilon),
         lambda t: slope_halved_linear_expost(1.0, t, 0.05, 1.0)),
    ],
    ids=["mixture", "linear"],
)
def test_w22_twins_crossing_on_forward_paths(
    grid: np.ndarray, valid: Callable[[float], float], twin: Callable[[np.ndarray], np.ndarray]
) -> None:
    """W22-MixtureExPost / W22-LinearExPost claim scenarios on paths built forwards in time
    (independent increments, not the backward sampler) with R23-Thm4's loss
    1/(2t) - W(t)/t of the pair f(x) = 0, f(x') = 1: over the whole grid the certified bound
    is crossed with probability <= delta = 0.05, the twin's with probability >= 2 delta."""
    w = brownian_forward_sample(tuple(grid), 20_000, 1, np.random.default_rng(11))[:, :, 0]
    loss = 1 / (2 * grid) - w / grid
    bound = np.array([valid(float(t)) for t in grid])
    _, upper = clopper_pearson(int(np.any(loss > bound, axis=1).sum()), w.shape[0])
    lower, _ = clopper_pearson(int(np.any(loss > twin(grid), axis=1).sum()), w.shape[0])
    assert upper <= 0.05
    assert lower >= 0.1
