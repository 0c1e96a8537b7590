"""R23-DefA.1: Laplace noise reduction, exact reverse sampler vs the forward construction."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest
from scipy import integrate, stats

from adaptive_dp.errors import GridError
from adaptive_dp.mechanisms.laplace_process import (
    LaplaceNoiseReduction,
    laplace_forward_sample,
    laplace_process_sample,
    laplace_reverse_logkernel,
    laplace_reverse_step,
)

GRID = (2.0, 1.0, 1.0 / 3.0)  # levels eps = 0.5, 1, 3


def test_r23_def_a1_rejects_bad_grid() -> None:
    with pytest.raises(GridError):
        LaplaceNoiseReduction(1, (1.0, 2.0))


@pytest.mark.parametrize(
    ("z", "eps", "eps2", "keep"),
    [(0.5, 1.0, 2.0, 0.303265), (-3.0, 0.5, 0.6, 0.617349), (0.0, 1.0, 4.0, 0.25),
     (2.0, 0.1, 1.0, 0.016530)],
)
def test_r23_def_a1_kernel_is_a_probability_law(
    z: float, eps: float, eps2: float, keep: float
) -> None:
    # atom + quadrature of the continuous part = 1 (independent of the sampler)
    t1, t2 = 1 / eps, 1 / eps2
    atom = math.exp(float(laplace_reverse_logkernel(z, z, t1, t2)))
    assert atom == pytest.approx(keep, abs=1e-6)

    def dens(u: float) -> float:
        return math.exp(float(laplace_reverse_logkernel(u + 1e-300 if u == z else u, z, t1, t2)))

    pts = sorted({0.0, z})
    total = integrate.quad(dens, -np.inf, pts[0])[0] + integrate.quad(dens, pts[-1], np.inf)[0]
    if pts[0] != pts[-1]:
        total += integrate.quad(dens, pts[0], pts[-1])[0]
    assert atom + total == pytest.approx(1.0, abs=1e-9)
    # Bayes check: f_eps(z) K(z, du) integrates against u to the joint law; the
    # marginal of the draw is Lap(1/eps2) (checked by sampling below)


@pytest.mark.parametrize("grid", [GRID, (1.0, 1 / 1.1, 1 / 1.3)])
def test_r23_def_a1_reverse_sampler_matches_forward_construction(
    grid: tuple[float, ...],
) -> None:
    """R23-LaplaceProcess (laplace_process_sample): the reverse sampler has the law of the forward
    construction."""
    rng = np.random.default_rng(99)
    n = 100_000
    rev = laplace_process_sample(grid, n, 1, rng)[:, :, 0]
    fwd = laplace_forward_sample(grid, n, 1, rng)[:, :, 0]
    # tie pattern: chi-square homogeneity on the 4 cells, and vs exact probabilities
    p1 = (grid[1] / grid[0]) ** 2
    p2 = (grid[2] / grid[1]) ** 2
    exact = np.array([(1 - p1) * (1 - p2), (1 - p1) * p2, p1 * (1 - p2), p1 * p2])

    def cells(z: np.ndarray) -> np.ndarray:
        t12 = z[:, 0] == z[:, 1]
        t23 = z[:, 1] == z[:, 2]
        return np.array([np.sum(~t12 & ~t23), np.sum(~t12 & t23), np.sum(t12 & ~t23),
                         np.sum(t12 & t23)])

    c_rev, c_fwd = cells(rev), cells(fwd)
    assert stats.chisquare(c_rev, exact * n).pvalue > 1e-4
    assert stats.chisquare(c_fwd, exact * n).pvalue > 1e-4
    # marginals are Laplace(t_k)
    for k, t in enumerate(grid):
        assert stats.kstest(rev[:, k], stats.laplace(scale=t).cdf).pvalue > 1e-4
    # two-sample tests on joint statistics
    joint: list[Callable[[np.ndarray], np.ndarray]] = [
        lambda z: z[:, 0] - z[:, 2], lambda z: z[:, 0] * z[:, 2],
        lambda z: np.max(z, axis=1), lambda z: np.abs(z[:, 2]) - np.abs(z[:, 1])]
    for f in joint:
        assert stats.ks_2samp(f(rev), f(fwd)).pvalue > 1e-4
    # covariance 2 t_max(i,j)^2
    cov = np.mean(rev[:, 0] * rev[:, 2])
    se = np.std(rev[:, 0] * rev[:, 2]) / math.sqrt(n)
    assert abs(cov - 2 * grid[2] ** 2) < 5 * se


def test_r23_def_a1_reverse_step_keeps_the_same_float() -> None:
    """R23-LaplaceReleaseKernel (laplace_reverse_step): equal time values keep the same value."""
    rng = np.random.default_rng(4)
    z = np.full(10_000, 0.5)
    u = laplace_reverse_step(z, 1.0, 0.5, rng)
    kept = np.mean(u == 0.5)
    assert abs(kept - 0.303265) < 5 * math.sqrt(0.3 * 0.7 / 10_000)


def test_r23_def_a1_chapman_kolmogorov() -> None:
    """R23-LaplaceReleaseKernel (laplace_reverse_step): two kernel steps equal one in law
    (Chapman-Kolmogorov)."""
    rng = np.random.default_rng(8)
    n = 100_000
    z1 = rng.laplace(0, 2.0, n)
    two = laplace_reverse_step(laplace_reverse_step(z1, 2.0, 1.0, rng), 1.0, 1 / 3, rng)
    one = laplace_reverse_step(z1, 2.0, 1 / 3, rng)
    assert stats.ks_2samp(two, one).pvalue > 1e-4
    exact_tie = (1 / 3 / 2.0) ** 2
    se = math.sqrt(exact_tie / n)
    assert abs(np.mean(two == z1) - exact_tie) < 5 * se
    assert abs(np.mean(one == z1) - exact_tie) < 5 * se


def test_r23_lem_a1_expost_value_of_a_run() -> None:
    from fractions import Fraction

    mech = LaplaceNoiseReduction("0.5", (2.0, 1.0, 0.25))
    e = mech.expost(1.0)
    assert e.epsilon == Fraction(1, 2) and e.delta == 0 and e.max_epsilon == 2
    with pytest.raises(ValueError):
        mech.expost(0.3)
