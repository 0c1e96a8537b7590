"""Binary randomized response (EXT-RandomizedResponse)."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from numpy.typing import ArrayLike, NDArray

from adaptive_dp.guarantees.definitions import PureDP
from adaptive_dp.mechanisms.base import bit_array, broadcast_shape, nonnegative_array
from adaptive_dp.numerics import exact_nonnegative
from adaptive_dp.numerics.exact import ExactLike

__all__ = ["RandomizedResponse", "rr_log_ratio", "rr_logpmf", "rr_sample", "rr_truthful"]


def _log_p_true(eps: NDArray[np.float64]) -> NDArray[np.float64]:
    # log(e^eps / (1 + e^eps)) = -log(1 + e^-eps), stable for every eps >= 0
    out: NDArray[np.float64] = -np.log1p(np.exp(-eps))
    return out


def _epsilon(epsilon: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.float64] | None]:
    """Validated epsilon, and its one value as a 1-element array if every entry is equal.

    Performance only: the exp/log1p then run on that value alone (the same numpy
    functions on the same float give the same bits). NaN never compares equal, so an
    array holding one takes the general path (and is refused there)."""
    eps = np.asarray(epsilon, dtype=np.float64)
    if eps.size >= 2:
        low = eps.min()
        if low == eps.max():
            value = np.array([low])
            if not (math.isfinite(low) and low >= 0):
                nonnegative_array(epsilon, "epsilon")  # raises, naming the input as given
            return eps, value
    return nonnegative_array(epsilon, "epsilon"), None


def _of(fn: Callable[[NDArray[np.float64]], NDArray[np.float64]], eps: NDArray[np.float64],
        value: NDArray[np.float64] | None) -> NDArray[np.float64]:
    """``fn(eps)``, or ``fn`` of the constant value as a 0-d array (broadcast by callers)."""
    return fn(eps) if value is None else fn(value).reshape(())


def _log_p_false(eps: NDArray[np.float64]) -> NDArray[np.float64]:
    out: NDArray[np.float64] = _log_p_true(eps) - eps
    return out


def _p_true(eps: NDArray[np.float64]) -> NDArray[np.float64]:
    out: NDArray[np.float64] = np.exp(_log_p_true(eps))
    return out


def _select(yy: NDArray[np.float64], b: NDArray[np.float64], at_bit: NDArray[np.float64],
            at_other: NDArray[np.float64], elsewhere: float) -> NDArray[np.float64]:
    """``where(y == b, at_bit, where(y == 1 - b, at_other, elsewhere))``.

    Performance only: with a scalar bit and scalar values, a lookup in the table
    ``[elsewhere, at_bit, at_other]`` (the same floats, several times faster than
    ``np.where`` over large arrays)."""
    is_bit = yy == b
    is_other = yy == 1.0 - b
    if yy.ndim > 0 and b.ndim == 0 and np.ndim(at_bit) == 0 and np.ndim(at_other) == 0:
        table = np.array([elsewhere, at_bit, at_other], dtype=np.float64)
        index = is_other.view(np.uint8) << 1
        index += is_bit.view(np.uint8)  # never both: b != 1 - b
        looked_up: NDArray[np.float64] = table[index]
        return looked_up
    out: NDArray[np.float64] = np.where(is_bit, at_bit, np.where(is_other, at_other, elsewhere))
    return out


def _full_shape(out: NDArray[np.float64], *shapes: tuple[int, ...]) -> NDArray[np.float64]:
    shape = broadcast_shape(out.shape, *shapes)
    return out if out.shape == shape else np.broadcast_to(out, shape).copy()


def rr_logpmf(y: ArrayLike, bit: ArrayLike, epsilon: ArrayLike) -> NDArray[np.float64]:
    """EXT-RandomizedResponse: log pmf of the report ``y`` given the true ``bit``.

    P[y = bit] = e^eps / (1 + e^eps), P[y = 1 - bit] = 1 / (1 + e^eps); -inf for a
    ``y`` outside {0, 1}. Vectorised with broadcasting; epsilon >= 0 finite.
    """
    eps, value = _epsilon(epsilon)
    b = bit_array(bit, "bit")
    yy = np.asarray(y, dtype=np.float64)
    out = _select(yy, b, _of(_log_p_true, eps, value), _of(_log_p_false, eps, value), -np.inf)
    return _full_shape(out, b.shape, eps.shape)


_INF_MINUS_INF = float("-inf") - float("-inf")  # the NaN (bits included) of -inf - -inf


def rr_log_ratio(y: ArrayLike, bit: float, epsilon: ArrayLike) -> NDArray[np.float64]:
    """``rr_logpmf(y, bit, eps) - rr_logpmf(y, 1 - bit, eps)``, bit for bit, in fewer passes.

    log P[truthful] - log P[flipped] at y = bit, its reverse difference at y = 1 - bit
    (both computed: at eps = 0 they are +0, not +0 and -0), NaN elsewhere (-inf minus
    -inf). ``bit`` is 0 or 1."""
    eps, value = _epsilon(epsilon)
    b = bit_array(float(bit), "bit")
    yy = np.asarray(y, dtype=np.float64)
    log_true = _of(_log_p_true, eps, value)
    log_false = log_true - (eps if value is None else value.reshape(()))
    out = _select(yy, b, log_true - log_false, log_false - log_true, _INF_MINUS_INF)
    return _full_shape(out, eps.shape)


def rr_sample(bit: ArrayLike, epsilon: ArrayLike, rng: np.random.Generator) -> NDArray[np.float64]:
    """EXT-RandomizedResponse: report the true bit with probability e^eps / (1 + e^eps)."""
    eps, value = _epsilon(epsilon)
    b = bit_array(bit, "bit")
    shape = broadcast_shape(b.shape, eps.shape)
    keep = _draw_truthful(_of(_p_true, eps, value), shape, rng)
    if b.ndim == 0 and len(shape) > 0:  # performance only: a table lookup, same floats
        reports: NDArray[np.float64] = np.array([1.0 - b, b], dtype=np.float64)[
            keep.view(np.uint8)]
        return reports
    out: NDArray[np.float64] = np.where(keep, b, 1.0 - b)
    return out


def _draw_truthful(p_true: NDArray[np.float64], shape: tuple[int, ...],
                   rng: np.random.Generator, out: NDArray[np.float64] | None = None
                   ) -> NDArray[np.bool_]:
    """One uniform per report, in C order, below ``p_true``: the report is truthful."""
    uniforms = rng.random(shape) if out is None else rng.random(shape, out=out)
    keep: NDArray[np.bool_] = uniforms < p_true
    return keep


def rr_truthful(epsilon: float, shape: tuple[int, ...], rng: np.random.Generator, *,
                out: NDArray[np.float64] | None = None) -> NDArray[np.bool_]:
    """EXT-RandomizedResponse: whether each of ``shape`` reports of randomized response
    with one ``epsilon`` is truthful (probability e^eps / (1 + e^eps)).

    The same draws as ``rr_sample(bit, np.full(shape, epsilon), rng)``, bit for bit:
    that report is ``bit`` where this is True and ``1 - bit`` elsewhere (performance
    only: no epsilon array is built or scanned). ``out`` (optional, contiguous, of
    ``shape``) receives the uniforms."""
    value = nonnegative_array(epsilon, "epsilon").reshape(1)
    return _draw_truthful(_p_true(value).reshape(()), shape, rng, out)


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
