"""R23-Def4.4 and R23-Lem4.1: Brownian noise reduction (BM) in d dimensions.

R23-Def4.4 (seed 000): "BM(x) := (t^{(k)}, f(x) + B^{(t^{(k)})})_{k <= T(x)}" for a
standard d-dimensional Brownian motion B, time values t^{(1)} > t^{(2)} > ... > 0 and
a stopping function T.  The path is sampled exactly, backwards in time (Brownian
bridge from 0): B(t1) ~ N(0, t1 I), then for t2 < t1
"B(t2) | B(t1) ~ N((t2/t1) B(t1), t2 (t1 - t2)/t1 I)" (independent of B after t1).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from numpy.typing import ArrayLike, NDArray

from adaptive_dp.errors import ParameterError
from adaptive_dp.mechanisms.noise_reduction import (
    NoiseReductionRelease,
    StoppingFunction,
    check_time_grid,
    run_noise_reduction,
)
from adaptive_dp.numerics.exact import ExactLike, exact_positive

__all__ = [
    "BrownianNoiseReduction",
    "brownian_backward_step",
    "brownian_forward_sample",
    "brownian_sample",
    "time_grid_from_epsilons",
]


def brownian_backward_step(
    b: ArrayLike, t_from: ArrayLike, t_to: ArrayLike, rng: np.random.Generator
) -> NDArray[np.float64]:
    """W22-ReverseSampling (R23-Def4.4's backward step): a draw of B(t_to) given
    B(t_from) = b, t_to < t_from.

    "B(t2) | B(t1) ~ N((t2/t1) B(t1), t2 (t1 - t2)/t1 I)"; numpy broadcasting over
    ``b``, ``t_from``, ``t_to``.
    """
    b_arr = np.asarray(b, dtype=np.float64)
    if isinstance(t_from, float | int) and isinstance(t_to, float | int):
        # performance only: scalar times (the grid steps of brownian_sample) with float
        # arithmetic, the same IEEE operations as on 0-d arrays (the same bits)
        f1, f2 = float(t_from), float(t_to)
        if not (f2 < f1 and f2 > 0):
            raise ParameterError("t_to", t_to, "0 < t_to < t_from")
        noise = rng.standard_normal(b_arr.shape)
        noise *= math.sqrt(f2 * (f1 - f2) / f1)
        noise += (f2 / f1) * b_arr  # mean + sd * z
        return noise
    t1 = np.asarray(t_from, dtype=np.float64)
    t2 = np.asarray(t_to, dtype=np.float64)
    if np.any(~(t2 < t1)) or np.any(~(t2 > 0)):
        raise ParameterError("t_to", t_to, "0 < t_to < t_from")
    mean = (t2 / t1) * b_arr
    sd = np.sqrt(t2 * (t1 - t2) / t1)
    shape = np.broadcast_shapes(mean.shape, sd.shape)
    out: NDArray[np.float64] = mean + sd * rng.standard_normal(shape)
    return out


def brownian_sample(
    times: Sequence[float], paths: int, dim: int, rng: np.random.Generator
) -> NDArray[np.float64]:
    """The noise B(t^{(1)}), ..., B(t^{(K)}) of ``paths`` BMs, shape ``(paths, K, dim)``.

    Exact backward sampling (R23-Def4.4): B(t1) ~ N(0, t1 I), then Brownian-bridge steps.
    """
    grid = check_time_grid(times)
    out = np.empty((paths, len(grid), dim), dtype=np.float64)
    # performance only: the normals of every step in one call (the same stream as one
    # call per step), then each step's brownian_backward_step arithmetic on its block
    z = rng.standard_normal((len(grid), paths, dim))
    out[:, 0, :] = np.sqrt(grid[0]) * z[0]
    for k in range(1, len(grid)):
        t1, t2 = grid[k - 1], grid[k]
        noise = z[k]
        noise *= math.sqrt(t2 * (t1 - t2) / t1)
        noise += (t2 / t1) * out[:, k - 1, :]  # mean + sd * z
        out[:, k, :] = noise
    return out


def brownian_forward_sample(
    times: Sequence[float], paths: int, dim: int, rng: np.random.Generator
) -> NDArray[np.float64]:
    """The same law built forwards in time (independent Gaussian increments), a second
    construction for tests: B(t_K) ~ N(0, t_K), B(t_j) = B(t_{j+1}) + N(0, t_j - t_{j+1})."""
    grid = check_time_grid(times)
    k_max = len(grid)
    out = np.empty((paths, k_max, dim), dtype=np.float64)
    out[:, -1, :] = np.sqrt(grid[-1]) * rng.standard_normal((paths, dim))
    for k in range(k_max - 2, -1, -1):
        inc = np.sqrt(grid[k] - grid[k + 1]) * rng.standard_normal((paths, dim))
        out[:, k, :] = out[:, k + 1, :] + inc
    return out


def time_grid_from_epsilons(epsilons: Sequence[float]) -> tuple[float, ...]:
    """R23-Def4.2's typical grid t^{(i)} = (1/eps^{(i)})^2 for eps^{(1)} < eps^{(2)} < ...

    Rounded UP (a larger time value is more noise: the safe side).
    """
    grid = []
    for e in epsilons:
        t = 1.0 / (float(e) * float(e))
        grid.append(float(np.nextafter(np.nextafter(t, np.inf), np.inf)))
    return check_time_grid(grid, "epsilons")


@dataclass(frozen=True, slots=True, init=False)
class BrownianNoiseReduction:
    """R23-Def4.4 (Whitehouse et al. 2022): "BM(x) := (t^{(k)}, f(x) + B^{(t^{(k)})})_{k <= T(x)}".

    ``sensitivity`` is the declared l2 sensitivity Delta_2(f) (exact), ``times`` the
    strictly decreasing grid.  R23-Lem4.1 (noise reduction under any stopping function,
    "L^{(1:T(x))} = L^{(T(x))}") is what :mod:`adaptive_dp.loss.brownian` checks.
    """

    sensitivity: Fraction
    times: tuple[float, ...]

    def __init__(self, sensitivity: ExactLike, times: Sequence[float]) -> None:
        object.__setattr__(self, "sensitivity", exact_positive(sensitivity, "sensitivity"))
        object.__setattr__(self, "times", check_time_grid(times))

    @property
    def t_min(self) -> float:
        """The smallest time value of the grid (what a filter pre-checks)."""
        return self.times[-1]

    def release(
        self,
        center: ArrayLike,
        stop: StoppingFunction,
        rng: np.random.Generator,
        paths: int = 1,
    ) -> NoiseReductionRelease:
        """Run ``paths`` independent BMs at query value ``center`` (shape ``(d,)``)."""
        c = np.atleast_1d(np.asarray(center, dtype=np.float64))
        noise = brownian_sample(self.times, paths, c.shape[0], rng)
        return run_noise_reduction(self.times, noise, c, stop)

    def logpdf_prefix(
        self, values: NDArray[np.float64], center: ArrayLike, length: ArrayLike
    ) -> NDArray[np.float64]:
        """Joint log density of the first ``length`` releases (Lebesgue on R^{k d}).

        Independent increments: the density of (y_1, ..., y_k) with y_j = f + B(t_j) is
        phi_{t_k}(y_k - f) prod_{j<k} phi_{t_j - t_{j+1}}(y_j - y_{j+1}).
        ``values``: ``(paths, K, d)``; ``length``: ``(paths,)`` or a scalar, 1..K.
        """
        v = np.asarray(values, dtype=np.float64)
        paths, k_max, dim = v.shape
        c = np.atleast_1d(np.asarray(center, dtype=np.float64))
        n = np.broadcast_to(np.asarray(length, dtype=np.int64), (paths,))
        if np.any(n < 1) or np.any(n > k_max):
            raise ParameterError("length", length, f"integers in 1..{k_max}")
        t = np.asarray(self.times[:k_max], dtype=np.float64)
        idx = np.arange(paths)
        last = v[idx, n - 1, :] - c[None, :]
        t_last = t[n - 1]
        out = -0.5 * np.sum(last * last, axis=1) / t_last - 0.5 * dim * np.log(
            2 * np.pi * t_last
        )
        if k_max > 1:
            inc = v[:, :-1, :] - v[:, 1:, :]
            var = t[:-1] - t[1:]
            terms = -0.5 * np.sum(inc * inc, axis=2) / var[None, :] - 0.5 * dim * np.log(
                2 * np.pi * var
            )[None, :]
            terms = np.where(np.arange(k_max - 1)[None, :] < (n - 1)[:, None], terms, 0.0)
            out = out + np.sum(terms, axis=1)
        result: NDArray[np.float64] = out
        return result
