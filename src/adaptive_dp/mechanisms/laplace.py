"""The Laplace mechanism (R23-Def2.2) and its pure-DP calibration (R23-Lem2.1)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from numpy.typing import ArrayLike, NDArray

from adaptive_dp.guarantees.definitions import PureDP
from adaptive_dp.mechanisms.base import broadcast_shape, positive_array
from adaptive_dp.numerics import exact_positive
from adaptive_dp.numerics.exact import ExactLike

__all__ = ["LaplaceMechanism", "laplace_log_ratio", "laplace_logpdf", "laplace_sample"]

_LOG_2 = math.log(2.0)


def laplace_logpdf(y: ArrayLike, center: ArrayLike, scale: ArrayLike) -> NDArray[np.float64]:
    """R23-Def2.2: log density of Lap(center, scale) at ``y``, vectorised (broadcasting).

    ``log p(y) = -|y - center| / scale - log(2 scale)``, scale > 0.
    """
    b = positive_array(scale, "scale")
    d = np.abs(np.asarray(y, dtype=np.float64) - np.asarray(center, dtype=np.float64))
    out: NDArray[np.float64] = -d / b - np.log(b) - _LOG_2
    return out


def laplace_log_ratio(
    y: ArrayLike, center: float, other: float, scale: ArrayLike, *,
    out: NDArray[np.float64] | None = None, scratch: NDArray[np.float64] | None = None,
) -> NDArray[np.float64]:
    """``laplace_logpdf(y, center, scale) - laplace_logpdf(y, other, scale)``, bit for
    bit (the same operations in the same order), with one validation and one log.
    ``center`` and ``other`` are scalars; ``out`` and ``scratch`` (arrays of the
    broadcast shape) let a caller reuse its buffers."""
    b = positive_array(scale, "scale")
    yy = np.asarray(y, dtype=np.float64)
    shape = broadcast_shape(yy.shape, b.shape)
    log_b = np.log(b)
    if out is not None and np.may_share_memory(out, yy):
        raise ValueError("out must not share memory with y")
    result = out if out is not None else np.empty(shape)
    tmp = scratch if scratch is not None else np.empty(shape)
    for c, acc in ((float(center), result), (float(other), tmp)):
        np.subtract(yy, c, out=acc)
        np.abs(acc, out=acc)
        np.negative(acc, out=acc)  # -d / b: the negation is exact
        acc /= b
        acc -= log_b
        acc -= _LOG_2
    result -= tmp
    return result


def laplace_sample(
    center: ArrayLike, scale: ArrayLike, rng: np.random.Generator, *,
    out: NDArray[np.float64] | None = None,
) -> NDArray[np.float64]:
    """R23-Def2.2: one draw of Lap(center, scale) per element of broadcast(center, scale).

    ``out`` (optional, of the broadcast shape) receives the draws."""
    b = positive_array(scale, "scale")
    c = np.asarray(center, dtype=np.float64)
    shape = broadcast_shape(c.shape, b.shape)
    draws: NDArray[np.float64] = rng.laplace(0.0, 1.0, shape)
    if out is not None:
        out[...] = draws
        draws = out
    draws *= b  # c + b * noise, in place: the same bits
    draws += c
    return draws


@dataclass(frozen=True, slots=True, init=False)
class LaplaceMechanism:
    """R23-Def2.2: the Laplace mechanism M(x) = f(x) + Lap(b).

    "Given f: X -> R^d, the Laplace mechanism with privacy parameter epsilon returns
    M(x) = f(x) + Lap(1/epsilon)", noise independent in each coordinate, Lap(b) with
    density ``exp(-|y| / b) / (2b)``. Here it is parameterised by its ``scale`` b > 0
    (the paper's privacy parameter is 1/b, not divided by the sensitivity) and the
    declared l1 sensitivity Delta = ``sensitivity`` > 0 (R23-Sensitivity), both exact.
    R23-Lem2.1 ("with privacy parameter epsilon > 0 it is Delta_1(f) epsilon-DP")
    gives PureDP(Delta / b).
    """

    sensitivity: Fraction
    scale: Fraction

    def __init__(self, sensitivity: ExactLike, scale: ExactLike) -> None:
        object.__setattr__(self, "sensitivity", exact_positive(sensitivity, "sensitivity"))
        object.__setattr__(self, "scale", exact_positive(scale, "scale"))

    @classmethod
    def from_epsilon(cls, sensitivity: ExactLike, epsilon: ExactLike) -> LaplaceMechanism:
        """R23-Lem2.1: the epsilon-DP calibration, scale = Delta / epsilon (exact).

        "The Laplace mechanism with privacy parameter epsilon' > 0 is
        Delta_1(f) epsilon'-DP": the target ``epsilon`` > 0 needs epsilon' = epsilon / Delta,
        that is scale 1/epsilon' = Delta / epsilon.
        """
        delta_ = exact_positive(sensitivity, "sensitivity")
        eps = exact_positive(epsilon, "epsilon")
        return cls(delta_, delta_ / eps)

    @classmethod
    def from_privacy_parameter(
        cls, sensitivity: ExactLike, privacy_parameter: ExactLike
    ) -> LaplaceMechanism:
        """R23-Def2.2 in the paper's parameterisation: noise Lap(1 / privacy_parameter)."""
        return cls(sensitivity, 1 / exact_positive(privacy_parameter, "privacy_parameter"))

    @property
    def epsilon(self) -> Fraction:
        """R23-Lem2.1: epsilon = Delta / scale (exact)."""
        return self.sensitivity / self.scale

    def guarantee(self) -> PureDP:
        """R23-Lem2.1: PureDP(Delta / scale), exact."""
        return PureDP(self.epsilon)

    def logpdf(self, y: ArrayLike, center: ArrayLike) -> NDArray[np.float64]:
        """R23-Def2.2: log density of the output ``y`` when the query value is ``center``."""
        return laplace_logpdf(y, center, float(self.scale))

    def sample(self, center: ArrayLike, rng: np.random.Generator) -> NDArray[np.float64]:
        """R23-Def2.2: center + Lap(scale), one draw per element of ``center``."""
        return laplace_sample(center, float(self.scale), rng)
