"""The ``Mechanism`` protocol and shared validation of array parameters.

A mechanism declares its densities (``logpdf``), a sampler and its fixed guarantee;
``adaptive_dp.loss`` builds privacy-loss distributions from those densities alone
(docs/design.md, principle 8). Worst-case neighbours for a scalar query: center 0 on x and
``sensitivity`` on x'.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from fractions import Fraction
from typing import Literal, Protocol, TypeVar, runtime_checkable

import numpy as np
from numpy.typing import ArrayLike, NDArray

from adaptive_dp.errors import NegativeParameterError, NonFiniteError, ParameterError
from adaptive_dp.guarantees.definitions import Guarantee
from adaptive_dp.numerics import ExactLike, arb_of, ball_upper, enclose, exact, round_up

__all__ = [
    "Mechanism",
    "bit_array",
    "broadcast_shape",
    "nonnegative_array",
    "positive_array",
    "sensitivity",
]

X = TypeVar("X")


@runtime_checkable
class Mechanism(Protocol):
    """A randomised algorithm with a density (or pmf) in the output given the query value.

    ``sensitivity`` is the declared global sensitivity, R23-Sensitivity:
    "Delta_p(f) := max over neighbours x ~ x' of ||f(x) - f(x')||_p" (p = 1 for
    Laplace, p = 2 for Gaussian; 1 for randomized response). Vector queries are
    coordinatewise: the density of a vector output is the product of ``logpdf`` over
    coordinates.
    """

    @property
    def sensitivity(self) -> Fraction:
        """The declared global sensitivity of the query the mechanism answers."""
        ...

    def logpdf(self, y: ArrayLike, center: ArrayLike) -> NDArray[np.float64]:
        """Log density (log pmf for discrete outputs) of output ``y`` at query value ``center``."""
        ...

    def sample(self, center: ArrayLike, rng: np.random.Generator) -> NDArray[np.float64]:
        """One output per element of the broadcast ``center``."""
        ...

    def guarantee(self) -> Guarantee:
        """The mechanism's fixed privacy guarantee."""
        ...


def broadcast_shape(*shapes: tuple[int, ...]) -> tuple[int, ...]:
    """``np.broadcast_shapes``, answered at once when the shapes are equal or scalar
    (performance only: the common case of the samplers and log densities)."""
    full = [shape for shape in shapes if shape != ()]
    if not full:
        return ()
    if all(shape == full[0] for shape in full):
        return full[0]
    return np.broadcast_shapes(*shapes)


def _finite_array(value: ArrayLike, name: str) -> NDArray[np.float64]:
    arr = np.asarray(value, dtype=np.float64)
    if not np.isfinite(arr).all():
        raise NonFiniteError(name, value, "finite numbers")
    return arr


def _within(arr: NDArray[np.float64], low_ok: Callable[[float], bool]) -> bool:
    """Performance only: True if every entry is finite and passes ``low_ok`` (checked on
    the minimum), from two reductions; a NaN makes both reductions NaN (False)."""
    if arr.size == 0:
        return False
    low, high = float(np.minimum.reduce(arr, axis=None)), float(np.maximum.reduce(arr, axis=None))
    return low_ok(low) and high < math.inf


def positive_array(value: ArrayLike, name: str) -> NDArray[np.float64]:
    """``value`` as a float array, every entry finite and > 0 (else a ParameterError)."""
    arr = np.asarray(value, dtype=np.float64)
    if _within(arr, lambda low: low > 0):
        return arr
    arr = _finite_array(value, name)
    if not (arr > 0).all():
        raise NegativeParameterError(name, value, "numbers > 0")
    return arr


def nonnegative_array(value: ArrayLike, name: str) -> NDArray[np.float64]:
    """``value`` as a float array, every entry finite and >= 0 (else a ParameterError)."""
    arr = np.asarray(value, dtype=np.float64)
    if _within(arr, lambda low: low >= 0):
        return arr
    arr = _finite_array(value, name)
    if not (arr >= 0).all():
        raise NegativeParameterError(name, value, "numbers >= 0")
    return arr


def bit_array(value: ArrayLike, name: str) -> NDArray[np.float64]:
    """``value`` as a float array of bits, every entry 0 or 1 (else a ParameterError)."""
    arr = _finite_array(value, name)
    if not ((arr == 0) | (arr == 1)).all():
        raise ParameterError(name, value, "bits 0 or 1")
    return arr


def sensitivity(
    f: Callable[[X], Sequence[ExactLike]],
    neighbours: Iterable[tuple[X, X]],
    p: Literal[1, 2, "inf"] = 1,
) -> float:
    """R23-Sensitivity: "Delta_p(f) := max over x ~ x' of ||f(x) - f(x')||_p" over the
    given neighbouring pairs (all of them, for the global sensitivity), computed exactly
    from the exact values of f and rounded UP (a declared sensitivity never below it)."""
    worst = Fraction(0)
    for x, x2 in neighbours:
        gaps = [abs(exact(a) - exact(b)) for a, b in zip(f(x), f(x2), strict=True)]
        if p == 1:
            norm = sum(gaps, Fraction(0))
        elif p == "inf":
            norm = max(gaps, default=Fraction(0))
        else:
            norm = sum((g * g for g in gaps), Fraction(0))  # squared; root taken at the end
        worst = max(worst, norm)
    if p == 2:
        return ball_upper(enclose(lambda: arb_of(worst).sqrt()))
    return round_up(worst)
