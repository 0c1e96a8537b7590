"""R23-Def4.4, R23-Lem4.1: Brownian noise reduction sampled exactly backwards in time."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest
from scipy import stats

from adaptive_dp.errors import GridError, NegativeParameterError, NonFiniteError
from adaptive_dp.mechanisms.brownian import (
    BrownianNoiseReduction,
    brownian_backward_step,
    brownian_forward_sample,
    brownian_sample,
    time_grid_from_epsilons,
)
from adaptive_dp.mechanisms.noise_reduction import never_stop

GRID = (4.0, 2.5, 1.0, 0.3)


@pytest.mark.parametrize(
    "times",
    [(), (1.0, 1.0), (1.0, 2.0), (1.0, 0.0), (1.0, -1.0), (math.nan,), (math.inf, 1.0)],
)
def test_r23_def4_4_rejects_bad_grids(times: tuple[float, ...]) -> None:
    """R23-Def4.2: the grid must satisfy t^{(1)} > t^{(2)} > ... > t^{(k)} > 0 (finite)."""
    with pytest.raises((GridError, NonFiniteError)):
        BrownianNoiseReduction(1, times)


def test_r23_def4_4_rejects_bad_sensitivity() -> None:
    with pytest.raises(NegativeParameterError):
        BrownianNoiseReduction(0, GRID)


def test_r23_def4_4_backward_sampler_covariance_is_min_t() -> None:
    rng = np.random.default_rng(20260101)
    n = 200_000
    b = brownian_sample(GRID, n, 1, rng)[:, :, 0]
    emp = np.cov(b, rowvar=False)
    t = np.asarray(GRID)
    exact = np.minimum.outer(t, t)
    # standard error of a sample covariance of Gaussians: sqrt((s_ii s_jj + s_ij^2)/n)
    se = np.sqrt((np.outer(np.diag(exact), np.diag(exact)) + exact**2) / n)
    assert np.all(np.abs(emp - exact) < 5 * se)
    assert np.all(np.abs(b.mean(axis=0)) < 5 * np.sqrt(t / n))


def test_r23_def4_4_backward_equals_forward_construction_two_sample() -> None:
    rng = np.random.default_rng(7)
    back = brownian_sample(GRID, 50_000, 2, rng)
    fwd = brownian_forward_sample(GRID, 50_000, 2, rng)
    stats_list: list[Callable[[np.ndarray], np.ndarray]] = [
        lambda z: z[:, -1, 0],
        lambda z: z[:, 0, 1] - z[:, 2, 1],
        lambda z: z[:, 1, 0] * z[:, 3, 0],
        lambda z: np.max(z[:, :, 0], axis=1),
    ]
    pvals = [stats.ks_2samp(f(back), f(fwd)).pvalue for f in stats_list]
    assert min(pvals) > 1e-4


def test_r23_def4_4_backward_step_law() -> None:
    """W22-ReverseSampling (brownian_backward_step): B(s) given B(t) = b is N((s/t) b, s (t -
    s)/t)."""
    rng = np.random.default_rng(3)
    draws = brownian_backward_step(np.full(100_000, 2.0), 4.0, 1.0, rng)
    # N((1/4) * 2, 1 * 3/4)
    p = stats.kstest(draws, stats.norm(loc=0.5, scale=math.sqrt(0.75)).cdf).pvalue
    assert p > 1e-4
    with pytest.raises(ValueError):
        brownian_backward_step(0.0, 1.0, 2.0, rng)


def test_r23_def4_3_stopping_function_sees_only_the_prefix() -> None:
    """R23-Def4.3 (StoppingFunction): the stopping function sees the released prefix only."""
    rng = np.random.default_rng(11)
    seen: list[tuple[int, int]] = []

    def stop(times: np.ndarray, values: np.ndarray) -> np.ndarray:
        assert values.shape[1] == times.shape[0]
        # a path that stopped earlier shows NaN after its stop, never its future
        assert not np.any(np.isnan(values[:, 0, :]))
        seen.append((times.shape[0], values.shape[0]))
        out: np.ndarray = values[:, -1, 0] > 0
        return out

    mech = BrownianNoiseReduction(1, GRID)
    rel = mech.release(np.zeros(1), stop, rng, paths=500)
    assert [k for k, _ in seen] == list(range(1, len(GRID)))[: len(seen)]
    for i in range(500):
        k = int(rel.stop[i])
        assert not np.any(np.isnan(rel.values[i, :k]))
        assert np.all(np.isnan(rel.values[i, k:]))
        if k < len(GRID):
            assert rel.values[i, k - 1, 0] > 0
        assert np.all(rel.values[i, : k - 1, 0] <= 0)
    assert np.array_equal(rel.t_stop, np.asarray(GRID)[rel.stop - 1])


def test_r23_lem4_1_joint_density_is_gaussian_with_min_covariance() -> None:
    rng = np.random.default_rng(5)
    mech = BrownianNoiseReduction(1, GRID)
    d = 2
    center = np.array([0.7, -1.2])
    rel = mech.release(center, never_stop, rng, paths=6)
    t = np.asarray(GRID)
    for k in range(1, len(GRID) + 1):
        ours = mech.logpdf_prefix(rel.values, center, k)
        cov = np.kron(np.minimum.outer(t[:k], t[:k]), np.eye(d))
        mvn = stats.multivariate_normal(mean=np.tile(center, k), cov=cov)
        ref = np.array([mvn.logpdf(rel.values[i, :k, :].reshape(-1)) for i in range(6)])
        np.testing.assert_allclose(ours, ref, rtol=1e-10, atol=1e-10)


def test_r23_def4_2_typical_grid_from_epsilons() -> None:
    """R23-Def4.2 (NoiseReductionMechanism grid): a strictly decreasing grid from target
    epsilons."""
    grid = time_grid_from_epsilons([0.5, 1.0, 2.0])
    assert grid[0] >= 4.0 and grid[1] >= 1.0 and grid[2] >= 0.25
    assert grid[2] - 0.25 < 1e-15
    with pytest.raises(GridError):
        time_grid_from_epsilons([1.0, 1.0])
