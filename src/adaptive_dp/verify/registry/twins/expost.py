"""Negative controls of issue 7 (ex-post privacy, BM and unified filters): each is a valid
rule with exactly one named defect, overriding one private hook.

- ``precheck-removed``: the BM's worst-case charge Delta^2/(2 t_min) is not checked before
  it runs (R23-Eq3/Eq4 dropped): :class:`PrecheckRemovedUnified`, :class:`PrecheckRemovedBrownian`.
- ``first-time-charged``: the BM is charged at its grid's first (largest) time value instead
  of the last one released: :class:`FirstTimeChargedUnified`, :class:`FirstTimeChargedBrownian`.
- ``lookahead-dropped``: the next round's charge is left out of the decision (R23-Thm2's
  n+1 look-ahead, R23-Lem5.2's budget condition): :class:`LookaheadDroppedUnified`,
  :class:`LookaheadDroppedExPost`.
- ``fixed-time-gaussian``: the fixed-time Gaussian bound c^2/(2t) + c sqrt(2 log(1/delta)/t)
  used as an ex-post bound under adaptive stopping: :func:`fixed_time_gaussian_expost_float`.
- ``drift-removed``: exp(lambda B(t)/t) without the -lambda^2/(2t) term as a backward
  "martingale": :func:`drift_removed_backward_martingale`.
- ``lookahead-dropped`` on R23-Thm3's ex-post ledger (the zCDP ledger kept valid):
  :func:`lookahead_dropped_two_ledgers`.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from numpy.typing import ArrayLike, NDArray

from adaptive_dp.filters.brownian import BrownianFilter, UnifiedFilter
from adaptive_dp.filters.expost import ExPostFilter
from adaptive_dp.filters.zcdp import ZCDPFilter
from adaptive_dp.numerics import ExactLike
from adaptive_dp.numerics.floats import FloatArray

__all__ = [
    "FirstTimeChargedBrownian",
    "FirstTimeChargedUnified",
    "LookaheadDroppedExPost",
    "LookaheadDroppedUnified",
    "PrecheckRemovedBrownian",
    "PrecheckRemovedUnified",
    "drift_removed_backward_martingale",
    "fixed_time_gaussian_expost_float",
    "lookahead_dropped_two_ledgers",
]


class PrecheckRemovedUnified(UnifiedFilter):
    """R23-Thm6 with the pre-check (4) removed: a BM runs whenever the ledger is not yet
    past rho*, whatever its grid's smallest time value."""

    __slots__ = ()

    def _decision_sums(
        self, before: tuple[Fraction, ...], after: tuple[Fraction, ...]
    ) -> tuple[Fraction, ...]:
        return before

    def _fast_lookahead(
        self, spent: FloatArray, t_min: FloatArray, t_stop: FloatArray, d2: float
    ) -> FloatArray:
        return spent


class PrecheckRemovedBrownian(BrownianFilter):
    """R23-Lem6.2 with the pre-check (3) removed."""

    __slots__ = ()

    def _decision_sums(
        self, before: tuple[Fraction, ...], after: tuple[Fraction, ...]
    ) -> tuple[Fraction, ...]:
        return before

    def _fast_lookahead(
        self, spent: FloatArray, t_min: FloatArray, t_stop: FloatArray, d2: float
    ) -> FloatArray:
        return spent


class FirstTimeChargedUnified(UnifiedFilter):
    """R23-Thm6 charging a BM at the first time value of its grid, not the last released."""

    __slots__ = ()

    def _fast_charged_time(self, t_first: FloatArray, t_stop: FloatArray) -> FloatArray:
        return t_first


class FirstTimeChargedBrownian(BrownianFilter):
    """R23-Lem6.2 charging a BM at the first time value of its grid."""

    __slots__ = ()

    def _fast_charged_time(self, t_first: FloatArray, t_stop: FloatArray) -> FloatArray:
        return t_first


class LookaheadDroppedUnified(UnifiedFilter):
    """R23-Thm6 (R23-Thm2 part) deciding on the sums up to n instead of n+1."""

    __slots__ = ()

    def _decision_sums(
        self, before: tuple[Fraction, ...], after: tuple[Fraction, ...]
    ) -> tuple[Fraction, ...]:
        return before

    def _fast_zcdp_lookahead(self, spent: FloatArray, rho: FloatArray) -> FloatArray:
        return spent


class LookaheadDroppedExPost(ExPostFilter):
    """R23-Lem5.2 without the budget condition: the next mechanism's worst-case ex-post
    value is not checked against the remaining budget (only what was already spent)."""

    __slots__ = ()

    def _decision_sums(
        self, before: tuple[Fraction, ...], after: tuple[Fraction, ...]
    ) -> tuple[Fraction, ...]:
        return (before[0], after[1], after[2])

    def _fast_lookahead(self, spent: FloatArray, max_epsilon: FloatArray) -> FloatArray:
        return spent


def lookahead_dropped_two_ledgers(
    epsilon: ExactLike, delta_double_prime: ExactLike, epsilon_prime: ExactLike
) -> tuple[ZCDPFilter, ExPostFilter]:
    """R23-Thm3's two ledgers with one defect: the zCDP ledger is R23-Thm2's (valid,
    delta = 0), the ex-post ledger is :class:`LookaheadDroppedExPost` (R23-Lem5.2 without
    "spent + max E <= epsilon'": a request is admitted while the spent part alone is within
    epsilon')."""
    return ZCDPFilter(epsilon, delta=delta_double_prime), LookaheadDroppedExPost(epsilon_prime)


def fixed_time_gaussian_expost_float(
    sensitivity: float, t_stop: ArrayLike, delta: float
) -> NDArray[np.float64]:
    """The Gaussian mechanism's fixed-time bound c^2/(2t) + c sqrt(2 log(1/delta)/t), valid
    for a time value fixed in advance, used (wrongly) as an ex-post bound of a BM stopped
    adaptively (R23-Thm5's negative control)."""
    t = np.asarray(t_stop, dtype=np.float64)
    out: NDArray[np.float64] = sensitivity**2 / (2 * t) + sensitivity * np.sqrt(
        2 * math.log(1 / delta) / t
    )
    return out


def drift_removed_backward_martingale(
    lam: ArrayLike, b: ArrayLike, t: ArrayLike
) -> NDArray[np.float64]:
    """R23-Lem6.1's M^lambda with the -lambda^2/(2t) term removed: exp(lambda B(t)/t)."""
    out: NDArray[np.float64] = np.exp(
        np.asarray(lam, dtype=np.float64) * np.asarray(b, dtype=np.float64)
        / np.asarray(t, dtype=np.float64)
    )
    return out
