"""Negative controls of the W22 items (Whitehouse et al. 2022, reconstructed), one defect each.

- ``mixture-factor-dropped`` (of W22-MixtureExPost): the normal-mixture boundary without its
  price sqrt((T + rho)/rho) inside the logarithm, psi(T) = sqrt(2 (T + rho) log(1/delta)),
  a fixed-time Gaussian quantile stretched to T + rho (:func:`mixture_factor_dropped_expost`).
- ``slope-halved`` (of W22-LinearExPost): the line's drift term Delta a halved,
  E(T) = Delta^2/(2T) + Delta a/2 + Delta log(1/delta)/(2 a T), as if Ville's exponential
  supermartingale exp(lambda W - lambda^2 t/2) had been used with lambda = a instead of 2a
  and the intercept kept (:func:`slope_halved_linear_expost`).
- ``increment-variance`` (of W22-ReverseSampling): the backward step's bridge variance
  t2 (t1 - t2)/t1 replaced by the forward increment's variance t1 - t2
  (:func:`increment_variance_backward_step`).
- ``first-level-charged`` (of W22-ReducedAboveThreshold): every outcome charged the ex-post
  value of the first (noisiest) level instead of the level where the mechanism halted
  (:func:`first_level_charged_rat_expost`).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray

from adaptive_dp.evalues.boundaries import Boundary
from adaptive_dp.evalues.expost import reduced_above_threshold_expost
from adaptive_dp.guarantees.expost import ExPost
from adaptive_dp.mechanisms.above_threshold import ReducedAboveThreshold
from adaptive_dp.numerics import ExactLike

__all__ = [
    "first_level_charged_rat_expost",
    "increment_variance_backward_step",
    "mixture_factor_dropped_expost",
    "slope_halved_linear_expost",
]


def mixture_factor_dropped_expost(
    sensitivity: float, t_stop: ArrayLike, delta: float, mixture_rho: float
) -> NDArray[np.float64]:
    """Twin of W22-MixtureExPost: sqrt((T + rho)/rho) dropped from the logarithm."""
    t = np.asarray(t_stop, dtype=np.float64)
    psi = np.sqrt(2 * (t + mixture_rho) * math.log(1 / delta))
    out: NDArray[np.float64] = sensitivity**2 / (2 * t) + sensitivity * psi / t
    return out


def slope_halved_linear_expost(
    sensitivity: float, t_stop: ArrayLike, delta: float, slope: float
) -> NDArray[np.float64]:
    """Twin of W22-LinearExPost: the drift term Delta a replaced by Delta a/2."""
    t = np.asarray(t_stop, dtype=np.float64)
    out: NDArray[np.float64] = (
        sensitivity**2 / (2 * t) + sensitivity * slope / 2
        + sensitivity * math.log(1 / delta) / (2 * slope * t)
    )
    return out


def increment_variance_backward_step(
    b: ArrayLike, t_from: ArrayLike, t_to: ArrayLike, rng: np.random.Generator
) -> NDArray[np.float64]:
    """Twin of W22-ReverseSampling: N((t2/t1) b, (t1 - t2)) instead of the bridge variance."""
    t1 = np.asarray(t_from, dtype=np.float64)
    t2 = np.asarray(t_to, dtype=np.float64)
    mean = (t2 / t1) * np.asarray(b, dtype=np.float64)
    sd = np.sqrt(t1 - t2)
    out: NDArray[np.float64] = mean + sd * rng.standard_normal(
        np.broadcast_shapes(mean.shape, sd.shape))
    return out


def first_level_charged_rat_expost(
    mechanism: ReducedAboveThreshold,
    outcome: int,
    boundary: Boundary,
    query_delta: ExactLike,
    slack: ExactLike = 2,
) -> ExPost:
    """Twin of W22-ReducedAboveThreshold: the ex-post value of level 1 whatever the outcome."""
    return reduced_above_threshold_expost(mechanism, 1, boundary, query_delta, slack)
