"""The ``PrivacyLossDistribution`` interface (scipy.stats-like) of the loss oracles.

A privacy-loss distribution is the law of L = L(Y; x, x') (R23-Def2.3) when Y is drawn
from M(x) (the distribution P; M(x') is Q). Methods follow scipy.stats: ``cdf``,
``sf``, ``rvs``; plus the two quantities the verification layer tests:
``hockey_stick(epsilon)`` = E_P[(1 - e^{epsilon - L})_+] = sup_T P(T) - e^epsilon Q(T)
and ``tail(epsilon)`` = P[L > epsilon] (strict).
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod

import numpy as np
from numpy.typing import ArrayLike, NDArray

from adaptive_dp.errors import NonFiniteError, ParameterTypeError

__all__ = ["PrivacyLossDistribution", "finite_float"]


def finite_float(value: object, name: str) -> float:
    """``value`` as a finite float (ints, floats, Fractions, Decimals; not bools)."""
    if isinstance(value, bool):
        raise ParameterTypeError(name, value, "a number, not a bool")
    try:
        x = float(value)  # type: ignore[arg-type]  # any real number type is accepted
    except (TypeError, ValueError):
        raise ParameterTypeError(name, value, "a real number") from None
    if not math.isfinite(x):
        raise NonFiniteError(name, value, "a finite number")
    return x


class PrivacyLossDistribution(ABC):
    """R23-Def2.3: the privacy-loss random variable L(Y; x, x'), Y ~ P = M(x).

    Q = M(x') is assumed absolutely continuous with respect to P (true of every
    mechanism here), so E_P[e^{-L}] = 1 and the hockey-stick divergence is
    delta(epsilon) = E_P[(1 - e^{epsilon - L})_+] = sup_T P(T) - e^epsilon Q(T).
    """

    __slots__ = ()

    @abstractmethod
    def cdf(self, loss: ArrayLike) -> NDArray[np.float64]:
        """P[L <= loss] (right-continuous, atoms included)."""

    @abstractmethod
    def sf(self, loss: ArrayLike) -> NDArray[np.float64]:
        """P[L > loss] (strict), computed directly (not as 1 - cdf) where it matters."""

    @abstractmethod
    def rvs(self, size: int | tuple[int, ...], rng: np.random.Generator) -> NDArray[np.float64]:
        """Independent draws of L under P."""

    @abstractmethod
    def hockey_stick(self, epsilon: float) -> float:
        """EXT-HockeyStick: delta(epsilon) = E_P[(1 - e^{epsilon - L})_+]
        = sup_T P(T) - e^epsilon Q(T)."""

    @abstractmethod
    def swap(self) -> PrivacyLossDistribution:
        """The loss distribution of the pair in the other order: L(Y; x', x), Y ~ Q."""

    def tail(self, epsilon: float) -> float:
        """W23-pDP quantity P[L > epsilon] (strict inequality)."""
        eps = finite_float(epsilon, "epsilon")
        return float(self.sf(eps))
