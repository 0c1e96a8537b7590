"""W22-ReducedAboveThreshold (reconstructed): AboveThreshold on Brownian noise reduction.

Whitehouse et al. 2022 introduce ReducedAboveThreshold, "a generalization of AboveThreshold
with adaptive privacy guarantees" built on Brownian noise reduction; only that sentence of
the paper is known (no seed), so the algorithm below and its guarantee
(:func:`adaptive_dp.evalues.expost.reduced_above_threshold_expost`, proofs/
W22-ReducedAboveThreshold.md) are our reconstruction.

Levels k = 1..K with threshold time values t_1 > ... > t_K and query variances
s_1 > ... > s_K. The threshold noise is one standard Brownian motion read backwards,
xi_k = B(t_k) (W22-ReverseSampling); the k-th query q_k (l2 sensitivity Delta, chosen by the
analyst before level k, when everything released so far is "below") gets fresh noise
nu_k ~ N(0, s_k). The mechanism halts at the first k with q_k(x) + nu_k >= C + xi_k and
releases k; if no level fires it releases K + 1 ("none"). The noise shrinks with the level,
so the privacy paid depends on the level reached, not on K.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from numpy.typing import ArrayLike, NDArray

from adaptive_dp.errors import ParameterError
from adaptive_dp.mechanisms.brownian import brownian_sample
from adaptive_dp.mechanisms.noise_reduction import check_time_grid
from adaptive_dp.numerics.exact import ExactLike, exact_positive

__all__ = ["ReducedAboveThreshold"]


@dataclass(frozen=True, slots=True, init=False)
class ReducedAboveThreshold:
    """W22-ReducedAboveThreshold (reconstructed): AboveThreshold whose threshold noise is a
    Brownian noise reduction B(t_1), B(t_2), ... and whose k-th query has noise N(0, s_k).

    ``sensitivity``: the l2 sensitivity Delta of every query (exact); ``times``: the
    threshold grid t_1 > ... > t_K; ``query_variances``: s_1 > ... > s_K (one per level);
    ``threshold``: C. Outcomes are the halting level 1..K, or K + 1 when none fires.
    """

    sensitivity: Fraction
    times: tuple[float, ...]
    query_variances: tuple[float, ...]
    threshold: float

    def __init__(self, sensitivity: ExactLike, times: Sequence[float],
                 query_variances: Sequence[float], threshold: float = 0.0) -> None:
        grid = check_time_grid(times)
        variances = check_time_grid(query_variances, "query_variances")
        if len(variances) != len(grid):
            raise ParameterError("query_variances", tuple(query_variances),
                                 f"one variance per level ({len(grid)})")
        object.__setattr__(self, "sensitivity", exact_positive(sensitivity, "sensitivity"))
        object.__setattr__(self, "times", grid)
        object.__setattr__(self, "query_variances", variances)
        object.__setattr__(self, "threshold", float(threshold))

    @property
    def levels(self) -> int:
        """K, the number of levels (the outcome K + 1 means that none fired)."""
        return len(self.times)

    def release(self, queries: ArrayLike, rng: np.random.Generator,
                paths: int = 1) -> NDArray[np.int64]:
        """The outcome of ``paths`` independent runs: the first level k (1-based) with
        q_k + nu_k >= C + B(t_k), or K + 1. ``queries``: the values q_1(x), ..., q_K(x),
        shape ``(K,)`` or ``(paths, K)`` (fixed before the run: every earlier answer is
        "below", so an adaptive analyst's choices are functions of public information)."""
        k_max = self.levels
        q = np.broadcast_to(np.asarray(queries, dtype=np.float64), (paths, k_max))
        xi = brownian_sample(self.times, paths, 1, rng)[:, :, 0]
        nu = np.sqrt(np.asarray(self.query_variances)) * rng.standard_normal((paths, k_max))
        fired = q + nu >= self.threshold + xi
        out: NDArray[np.int64] = np.where(fired.any(axis=1), fired.argmax(axis=1) + 1,
                                          k_max + 1).astype(np.int64)
        return out
