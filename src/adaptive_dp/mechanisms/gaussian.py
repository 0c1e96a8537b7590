"""The Gaussian mechanism (R23-Def2.5) and its zCDP calibration (R23-Lem2.2)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from numpy.typing import ArrayLike, NDArray

from adaptive_dp.guarantees.definitions import GDP, ZCDP
from adaptive_dp.mechanisms.base import broadcast_shape, positive_array
from adaptive_dp.numerics import arb_of, ball_upper, enclose, exact_positive
from adaptive_dp.numerics.exact import ExactLike

__all__ = ["GaussianMechanism", "gaussian_log_ratio", "gaussian_logpdf", "gaussian_sample"]

_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)


def gaussian_logpdf(y: ArrayLike, center: ArrayLike, sigma: ArrayLike) -> NDArray[np.float64]:
    """R23-Def2.5: log density of N(center, sigma^2) at ``y``, vectorised (broadcasting).

    log p(y) = -(y - center)^2 / (2 sigma^2) - log sigma - log(2 pi) / 2, sigma > 0.
    """
    s = positive_array(sigma, "sigma")
    z = (np.asarray(y, dtype=np.float64) - np.asarray(center, dtype=np.float64)) / s
    out: NDArray[np.float64] = -0.5 * z * z - np.log(s) - _HALF_LOG_2PI
    return out


def gaussian_log_ratio(
    y: ArrayLike, center: float, other: float, sigma: ArrayLike, *,
    out: NDArray[np.float64] | None = None,
    scratch: tuple[NDArray[np.float64], NDArray[np.float64]] | None = None,
) -> NDArray[np.float64]:
    """``gaussian_logpdf(y, center, sigma) - gaussian_logpdf(y, other, sigma)``, bit for
    bit (the same operations in the same order), with one validation and one log.
    ``center`` and ``other`` are scalars; ``out`` and ``scratch`` (two arrays of the
    broadcast shape) let a caller reuse its buffers."""
    s = positive_array(sigma, "sigma")
    return log_ratio_checked(np.asarray(y, dtype=np.float64), center, other, s, out, scratch)


def log_ratio_checked(
    yy: NDArray[np.float64], center: float, other: float, s: NDArray[np.float64],
    out: NDArray[np.float64] | None = None,
    scratch: tuple[NDArray[np.float64], NDArray[np.float64]] | None = None,
) -> NDArray[np.float64]:
    """:func:`gaussian_log_ratio` of float arrays, ``s`` already validated (> 0, finite)."""
    shape = broadcast_shape(yy.shape, s.shape)
    log_s = np.log(s)
    z, tmp = scratch if scratch is not None else (np.empty(shape), np.empty(shape))
    if out is not None and np.may_share_memory(out, yy):
        raise ValueError("out must not share memory with y")
    result = out if out is not None else np.empty(shape)
    for c, acc in ((float(center), result), (float(other), tmp)):
        if c == 0.0 and math.copysign(1.0, c) > 0:
            np.divide(yy, s, out=z)  # y - 0.0 is y, bit for bit
        else:
            np.subtract(yy, c, out=z)
            np.divide(z, s, out=z)
        np.multiply(z, -0.5, out=acc)
        acc *= z
        acc -= log_s
        acc -= _HALF_LOG_2PI
    result -= tmp
    return result


def gaussian_sample(
    center: ArrayLike, sigma: ArrayLike, rng: np.random.Generator, *,
    out: NDArray[np.float64] | None = None,
) -> NDArray[np.float64]:
    """R23-Def2.5: one draw of N(center, sigma^2) per element of broadcast(center, sigma).

    ``out`` (optional, contiguous, of the broadcast shape) receives the draws."""
    s = positive_array(sigma, "sigma")
    return sample_checked(np.asarray(center, dtype=np.float64), s, rng, out)


def sample_checked(c: NDArray[np.float64], s: NDArray[np.float64], rng: np.random.Generator,
                   out: NDArray[np.float64] | None = None) -> NDArray[np.float64]:
    """:func:`gaussian_sample` of float arrays, ``s`` already validated (> 0, finite)."""
    shape = broadcast_shape(c.shape, s.shape)
    draws: NDArray[np.float64] = (rng.standard_normal(shape) if out is None
                                  else rng.standard_normal(shape, out=out))
    draws *= s  # c + s * z, in place: the same bits
    draws += c
    return draws


@dataclass(frozen=True, slots=True, init=False)
class GaussianMechanism:
    """R23-Def2.5: the Gaussian mechanism M(x) = N(f(x), sigma^2 I_d).

    "M(x) = N(f(x), 1/rho I_d), with privacy parameter rho > 0 (variance 1/rho)".
    Here it is parameterised by ``sigma`` > 0 (the paper's privacy parameter is the
    precision 1/sigma^2, see ``precision``) and the declared l2 sensitivity
    Delta = ``sensitivity`` > 0 (R23-Sensitivity), both exact. R23-Lem2.2 ("the
    Gaussian mechanism with privacy parameter rho is Delta_2(f)^2 rho / 2-zCDP") gives
    ZCDP(Delta^2 / (2 sigma^2)), exact.
    """

    sensitivity: Fraction
    sigma: Fraction

    def __init__(self, sensitivity: ExactLike, sigma: ExactLike) -> None:
        object.__setattr__(self, "sensitivity", exact_positive(sensitivity, "sensitivity"))
        object.__setattr__(self, "sigma", exact_positive(sigma, "sigma"))

    @classmethod
    def from_rho(cls, sensitivity: ExactLike, rho: ExactLike) -> GaussianMechanism:
        """R23-Lem2.2: the rho-zCDP calibration sigma = Delta / sqrt(2 rho), rounded UP.

        "With privacy parameter (precision) p the mechanism is Delta^2 p / 2-zCDP": the
        target ``rho`` > 0 needs p = 2 rho / Delta^2, sigma = Delta / sqrt(2 rho). The
        float is the smallest one above the certified enclosure, so the exact guarantee
        Delta^2 / (2 sigma^2) is <= rho.
        """
        delta_ = exact_positive(sensitivity, "sensitivity")
        r = exact_positive(rho, "rho")
        ball = enclose(lambda: arb_of(delta_) / (2 * arb_of(r)).sqrt())
        return cls(delta_, Fraction(ball_upper(ball)))

    @classmethod
    def from_precision(cls, sensitivity: ExactLike, precision: ExactLike) -> GaussianMechanism:
        """R23-Def2.5 in the paper's parameterisation: variance 1 / precision, so
        sigma = 1 / sqrt(precision), rounded UP to a float (certified)."""
        p = exact_positive(precision, "precision")
        ball = enclose(lambda: 1 / arb_of(p).sqrt())
        return cls(sensitivity, Fraction(ball_upper(ball)))

    @property
    def precision(self) -> Fraction:
        """R23-Def2.5: the paper's privacy parameter, the precision 1 / sigma^2 (exact)."""
        return 1 / self.sigma**2

    @property
    def mu(self) -> Fraction:
        """EXT-DRS19: mu = Delta / sigma, the mechanism is mu-GDP (exact)."""
        return self.sensitivity / self.sigma

    @property
    def rho(self) -> Fraction:
        """R23-Lem2.2: rho = Delta^2 / (2 sigma^2) (exact)."""
        return self.sensitivity**2 / (2 * self.sigma**2)

    def guarantee(self) -> ZCDP:
        """R23-Lem2.2: ZCDP(Delta^2 / (2 sigma^2)), an exact rational (no rounding needed)."""
        return ZCDP(self.rho)

    def gdp(self) -> GDP:
        """EXT-DRS19: GDP(Delta / sigma) (exact)."""
        return GDP(self.mu)

    def logpdf(self, y: ArrayLike, center: ArrayLike) -> NDArray[np.float64]:
        """R23-Def2.5: log density of the output ``y`` when the query value is ``center``."""
        return gaussian_logpdf(y, center, float(self.sigma))

    def sample(self, center: ArrayLike, rng: np.random.Generator) -> NDArray[np.float64]:
        """R23-Def2.5: center + N(0, sigma^2), one draw per element of ``center``."""
        return gaussian_sample(center, float(self.sigma), rng)
