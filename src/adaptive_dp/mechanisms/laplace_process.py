"""R23-DefA.1: Laplace noise reduction (Koufogiannis et al.; R23 Appendix A).

The Laplace process L(t), t >= 0, has L(0) = 0, independent increments and
L(t) ~ Lap(t) (density ``e^{-|x|/t}/(2t)``); R23-Eq13 reading: jumps form a Poisson random
measure with intensity ``s^{-2} e^{-|x|/s} ds dx``.  Time is the Laplace scale t = 1/eps
(not the variance, as for BM).  Releases run backwards in time, noisiest first:
y_k = f(x) + L(t^{(k)}) for t^{(1)} > t^{(2)} > ... > 0, independently per coordinate.

The reverse conditional law (proofs/R23-LaplaceReleaseKernel.md), with eps = 1/t_from <
eps' = 1/t_to and Z = L(t_from) = z:  ``P[Z' = z | z] = (eps/eps') e^{-(eps'-eps)|z|}``, and
otherwise Z' has sub-density ``(eps'^2 - eps^2)/(2 eps') exp(-eps'|u| - eps|u - z| + eps|z|)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from numpy.typing import ArrayLike, NDArray

from adaptive_dp.errors import ParameterError
from adaptive_dp.guarantees.expost import ExPost
from adaptive_dp.mechanisms.noise_reduction import (
    NoiseReductionRelease,
    StoppingFunction,
    check_time_grid,
    run_noise_reduction,
)
from adaptive_dp.numerics.exact import ExactLike, exact_positive

__all__ = [
    "LaplaceNoiseReduction",
    "laplace_forward_sample",
    "laplace_process_sample",
    "laplace_reverse_logkernel",
    "laplace_reverse_step",
]


def _levels(t_from: ArrayLike, t_to: ArrayLike) -> tuple[NDArray[np.float64], ...]:
    t1 = np.asarray(t_from, dtype=np.float64)
    t2 = np.asarray(t_to, dtype=np.float64)
    if np.any(~(t2 < t1)) or np.any(~(t2 > 0)):
        raise ParameterError("t_to", t_to, "0 < t_to < t_from")
    return 1.0 / t1, 1.0 / t2


def laplace_reverse_step(
    z: ArrayLike, t_from: ArrayLike, t_to: ArrayLike, rng: np.random.Generator
) -> NDArray[np.float64]:
    """R23-LaplaceReleaseKernel (R23-DefA.1's release step): an exact draw of L(t_to) given
    L(t_from) = z, t_to < t_from.

    Four pieces (for z >= 0; z < 0 by symmetry), with ``r = |z|``, a = e^{-(eps'-eps) r}:
    keep u = z w.p. (eps/eps') a; between 0 <= u <= r, density prop. to
    e^{-(eps'-eps) u}, mass (eps'+eps)(1-a)/(2 eps'); cross u < 0, -Exp(eps+eps'), mass
    (eps'-eps)/(2 eps'); out u > r, r + Exp(eps+eps'), mass (eps'-eps) a/(2 eps').
    A kept value is the same float, so ties are detected by equality.
    """
    eps, eps2 = _levels(t_from, t_to)
    zz = np.asarray(z, dtype=np.float64)
    shape = np.broadcast_shapes(zz.shape, eps.shape, eps2.shape)
    zz = np.broadcast_to(zz, shape)
    eps = np.broadcast_to(eps, shape)
    eps2 = np.broadcast_to(eps2, shape)
    r = np.abs(zz)
    s = np.where(zz < 0, -1.0, 1.0)
    lam = eps2 - eps
    one_minus_a = -np.expm1(-lam * r)
    a = 1.0 - one_minus_a
    p_keep = (eps / eps2) * a
    p_between = (eps2 + eps) * one_minus_a / (2 * eps2)
    p_cross = (eps2 - eps) / (2 * eps2)
    u = rng.random(shape)
    v = rng.random(shape)
    e = rng.standard_exponential(shape) / (eps + eps2)
    with np.errstate(divide="ignore", invalid="ignore"):
        between = s * (-np.log1p(-v * one_minus_a) / lam)
    out = np.where(
        u < p_keep,
        zz,
        np.where(
            u < p_keep + p_between,
            between,
            np.where(u < p_keep + p_between + p_cross, -s * e, s * (r + e)),
        ),
    )
    result: NDArray[np.float64] = out
    return result


def laplace_reverse_logkernel(
    u: ArrayLike, z: ArrayLike, t_from: ArrayLike, t_to: ArrayLike
) -> NDArray[np.float64]:
    """Log of the release kernel of L(t_to) at u given L(t_from) = z, with respect to
    Lebesgue measure plus an atom at u = z (a tie is exact float equality).

    Tie: ``log((eps/eps') e^{-(eps'-eps)|z|})``; otherwise
    ``log((eps'^2 - eps^2)/(2 eps')) - eps'|u| - eps|u - z| + eps|z|``.
    """
    eps, eps2 = _levels(t_from, t_to)
    uu = np.asarray(u, dtype=np.float64)
    zz = np.asarray(z, dtype=np.float64)
    tie = np.log(eps / eps2) - (eps2 - eps) * np.abs(zz)
    cont = (
        np.log((eps2 * eps2 - eps * eps) / (2 * eps2))
        - eps2 * np.abs(uu)
        - eps * np.abs(uu - zz)
        + eps * np.abs(zz)
    )
    out: NDArray[np.float64] = np.where(uu == zz, tie, cont)
    return out


def laplace_process_sample(
    times: Sequence[float], paths: int, dim: int, rng: np.random.Generator
) -> NDArray[np.float64]:
    """R23-LaplaceProcess: L(t^{(1)}), ..., L(t^{(K)}) of the Laplace process (L(0) = 0,
    independent increments, L(t) ~ Lap(t)) in release order (the exact reverse sampler),
    shape ``(paths, K, dim)``."""
    grid = check_time_grid(times)
    out = np.empty((paths, len(grid), dim), dtype=np.float64)
    out[:, 0, :] = rng.laplace(0.0, grid[0], (paths, dim))
    for k in range(1, len(grid)):
        out[:, k, :] = laplace_reverse_step(out[:, k - 1, :], grid[k - 1], grid[k], rng)
    return out


def laplace_forward_sample(
    times: Sequence[float], paths: int, dim: int, rng: np.random.Generator
) -> NDArray[np.float64]:
    """The forward ("lazy") construction, a second implementation for tests.

    L(t_K) ~ Lap(t_K); L(t_j) = L(t_{j+1}) + B_j W_j with B_j ~ Bern(1 - (t_{j+1}/t_j)^2)
    and W_j ~ Lap(t_j) (the noisier scale), all independent.
    """
    grid = check_time_grid(times)
    k_max = len(grid)
    out = np.empty((paths, k_max, dim), dtype=np.float64)
    out[:, -1, :] = rng.laplace(0.0, grid[-1], (paths, dim))
    for k in range(k_max - 2, -1, -1):
        p_move = 1.0 - (grid[k + 1] / grid[k]) ** 2
        moves = rng.random((paths, dim)) < p_move
        w = rng.laplace(0.0, grid[k], (paths, dim))
        out[:, k, :] = np.where(moves, out[:, k + 1, :] + w, out[:, k + 1, :])
    return out


@dataclass(frozen=True, slots=True, init=False)
class LaplaceNoiseReduction:
    """R23-DefA.1 (Koufogiannis et al.; R23 Appendix A): Laplace noise reduction.

    "LNR(x) = (t^{(k)}, f(x) + L(t^{(k)}))_{k <= T(x)}" (reconstructed), L the Laplace
    process independently in each coordinate, ``times`` the strictly decreasing Laplace
    scales t = 1/eps, ``sensitivity`` the declared l1 sensitivity Delta_1(f).
    """

    sensitivity: Fraction
    times: tuple[float, ...]

    def __init__(self, sensitivity: ExactLike, times: Sequence[float]) -> None:
        object.__setattr__(self, "sensitivity", exact_positive(sensitivity, "sensitivity"))
        object.__setattr__(self, "times", check_time_grid(times))

    def expost(self, t_stop: float) -> ExPost:
        """R23-LemA.1's ex-post value of a run stopped at ``t_stop``: (Delta_1/t_stop, 0),
        with max_epsilon = Delta_1/t_min (exact: the time values are floats)."""
        if t_stop not in self.times:
            raise ParameterError("t_stop", t_stop, "a time value of the grid")
        d = self.sensitivity
        return ExPost(d / Fraction(t_stop), 0, d / Fraction(self.times[-1]))

    def release(
        self,
        center: ArrayLike,
        stop: StoppingFunction,
        rng: np.random.Generator,
        paths: int = 1,
    ) -> NoiseReductionRelease:
        """Run ``paths`` independent Laplace noise reductions at ``center`` (shape (d,))."""
        c = np.atleast_1d(np.asarray(center, dtype=np.float64))
        noise = laplace_process_sample(self.times, paths, c.shape[0], rng)
        return run_noise_reduction(self.times, noise, c, stop)

    def logpdf_prefix(
        self, values: NDArray[np.float64], center: ArrayLike, length: ArrayLike
    ) -> NDArray[np.float64]:
        """Joint log density of the first ``length`` releases, in release order:
        log f_{t1}(z_1) + sum_{j<k} log kappa_j(z_{j+1} | z_j), z = y - f(x), with respect
        to Lebesgue measure plus atoms on exact ties, per coordinate."""
        v = np.asarray(values, dtype=np.float64)
        paths, k_max, _ = v.shape
        c = np.atleast_1d(np.asarray(center, dtype=np.float64))
        n = np.broadcast_to(np.asarray(length, dtype=np.int64), (paths,))
        if np.any(n < 1) or np.any(n > k_max):
            raise ParameterError("length", length, f"integers in 1..{k_max}")
        t = np.asarray(self.times[:k_max], dtype=np.float64)
        z = v - c[None, None, :]
        out = np.sum(-np.abs(z[:, 0, :]) / t[0] - np.log(2 * t[0]), axis=1)
        for j in range(k_max - 1):
            active = (j + 1) < n
            if not np.any(active):
                continue
            term = np.sum(
                laplace_reverse_logkernel(z[:, j + 1, :], z[:, j, :], t[j], t[j + 1]), axis=1
            )
            out = out + np.where(active, term, 0.0)
        result: NDArray[np.float64] = out
        return result
