"""Binary randomized response (EXT-RandomizedResponse)."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from numpy.typing import ArrayLike, NDArray

from adaptive_dp.guarantees.definitions import PureDP
from adaptive_dp.mechanisms.base import bit_array, nonnegative_array
from adaptive_dp.numerics import exact_nonnegative
from adaptive_dp.numerics.exact import ExactLike

__all__ = ["RandomizedResponse", "rr_logpmf", "rr_sample"]


def _log_p_true(eps: NDArray[np.float64]) -> NDArray[np.float64]:
    # log(e^eps / (1 + e^eps)) = -log(1 + e^-eps), stable for every eps >= 0
    out: NDArray[np.float64] = -np.log1p(np.exp(-eps))
    return out


def rr_logpmf(y: ArrayLike, bit: ArrayLike, epsilon: ArrayLike) -> NDArray[np.float64]:
    """EXT-RandomizedResponse: log pmf of the report ``y`` given the true ``bit``.

    P[y = bit] = e^eps / (1 + e^eps), P[y = 1 - bit] = 1 / (1 + e^eps); -inf for a
    ``y`` outside {0, 1}. Vectorised with broadcasting; epsilon >= 0 finite.
    """
    eps = nonnegative_array(epsilon, "epsilon")
    b = bit_array(bit, "bit")
    yy = np.asarray(y, dtype=np.float64)
    log_true = _log_p_true(eps)
    log_false = log_true - eps
    out: NDArray[np.float64] = np.where(
        yy == b, log_true, np.where(yy == 1.0 - b, log_false, -np.inf)
    )
    return out


def rr_sample(bit: ArrayLike, epsilon: ArrayLike, rng: np.random.Generator) -> NDArray[np.float64]:
    """EXT-RandomizedResponse: report the true bit with probability e^eps / (1 + e^eps)."""
    eps = nonnegative_array(epsilon, "epsilon")
    b = bit_array(bit, "bit")
    shape = np.broadcast_shapes(b.shape, eps.shape)
    keep = rng.random(shape) < np.exp(_log_p_true(eps))
    out: NDArray[np.float64] = np.where(keep, b, 1.0 - b)
    return out


@dataclass(frozen=True, slots=True, init=False)
class RandomizedResponse:
    """EXT-RandomizedResponse: binary randomized response is ln(p / (1 - p))-DP.

    Outputs in {0, 1}; the true bit is reported with probability
    p = e^eps / (1 + e^eps), so ln(p / (1 - p)) = epsilon. Centers are bits 0/1 and the
    sensitivity is 1 (neighbours: bit 0 on x, bit 1 on x'). epsilon >= 0 finite, exact.
    """

    epsilon: Fraction

    def __init__(self, epsilon: ExactLike) -> None:
        object.__setattr__(self, "epsilon", exact_nonnegative(epsilon, "epsilon"))

    @property
    def sensitivity(self) -> Fraction:
        """Sensitivity 1: neighbouring inputs differ in the bit."""
        return Fraction(1)

    def guarantee(self) -> PureDP:
        """EXT-RandomizedResponse: PureDP(epsilon), exact."""
        return PureDP(self.epsilon)

    def logpdf(self, y: ArrayLike, center: ArrayLike) -> NDArray[np.float64]:
        """Log pmf of the report ``y`` when the true bit is ``center``."""
        return rr_logpmf(y, center, float(self.epsilon))

    def sample(self, center: ArrayLike, rng: np.random.Generator) -> NDArray[np.float64]:
        """One report per element of the bit array ``center``."""
        return rr_sample(center, float(self.epsilon), rng)
