"""Privacy-loss distribution of the Gaussian mechanism (R23-Def2.5, EXT-DRS19).

Derivation from the densities (checked in tests/loss/test_gaussian.py against
``privacy_loss`` on random outputs): with p = N(c, sigma^2), q = N(c', sigma^2),

    L(y) = log p(y) - log q(y) = ((y - c')^2 - (y - c)^2) / (2 sigma^2),

and for y = c + sigma Z, Z ~ N(0, 1), with ``mu = |c - c'| / sigma``,

    L = mu^2 / 2 - sign(c' - c) mu Z ~ N(mu^2 / 2, mu^2).

The k-fold product of independent Gaussian mechanisms has loss the sum of the
independent losses, N(sum mu_i^2 / 2, sum mu_i^2): a Gaussian PLD with
mu = sqrt(sum mu_i^2) (EXT-GDPComposition).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from fractions import Fraction

import mpmath
import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import log_ndtr, ndtr

from adaptive_dp.errors import NegativeParameterError
from adaptive_dp.loss.base import PrivacyLossDistribution, finite_float
from adaptive_dp.numerics import exact

__all__ = [
    "GaussianPLD",
    "compose_gaussian",
    "gaussian_hockey_stick",
    "gaussian_hockey_stick_mp",
]

_MP_DPS = 50


def gaussian_hockey_stick_mp(mu: object, epsilon: object) -> mpmath.mpf:
    """EXT-DRS19: exact delta(epsilon) of a Gaussian mechanism with Delta / sigma = mu.

    delta(eps) = Phi(-eps / mu + mu / 2) - e^eps Phi(-eps / mu - mu / 2), mu >= 0 (for
    mu = 0 the loss is 0 and delta = (1 - e^eps)_+). Inputs are read exactly
    (``exact``); evaluated with mpmath with 50 significant digits kept after the
    cancellation (the working precision is raised until it stops mattering). The
    reference oracle of the library.
    """
    mu_x = exact(mu, "mu")
    eps_x = exact(epsilon, "epsilon")
    if mu_x < 0:
        raise NegativeParameterError("mu", mu, "a number >= 0")
    dps = _MP_DPS + 20
    while True:
        with mpmath.workdps(dps):
            m = mpmath.mpf(mu_x.numerator) / mu_x.denominator
            e = mpmath.mpf(eps_x.numerator) / eps_x.denominator
            if m == 0:
                d = max(mpmath.mpf(0), -mpmath.expm1(e))
                break
            a = mpmath.ncdf(-e / m + m / 2)
            d = a - mpmath.exp(e) * mpmath.ncdf(-e / m - m / 2)
            # decimal digits lost to cancellation: log10(a / d)
            lost = int(mpmath.log10(a / d)) if d > 0 else dps
        if lost + _MP_DPS + 10 <= dps or dps > 4000:
            break
        dps = max(2 * dps, lost + _MP_DPS + 20)
    with mpmath.workdps(_MP_DPS):
        return +d


def gaussian_hockey_stick(mu: object, epsilon: object) -> float:
    """EXT-DRS19: the float nearest ``gaussian_hockey_stick_mp(mu, epsilon)``."""
    return float(gaussian_hockey_stick_mp(mu, epsilon))


class GaussianPLD(PrivacyLossDistribution):
    """R23-Def2.5 / EXT-DRS19: L ~ N(mu^2 / 2, mu^2) under P, mu = Delta / sigma >= 0.

    Symmetric: ``swap()`` is the same distribution. Float fast path for
    ``hockey_stick`` (scipy ``log_ndtr``, no cancellation); the mpmath reference is
    ``gaussian_hockey_stick_mp``.
    """

    __slots__ = ("_mu",)

    def __init__(self, mu: object) -> None:
        m = finite_float(mu, "mu")
        if m < 0:
            raise NegativeParameterError("mu", mu, "a number >= 0")
        self._mu = m

    @property
    def mu(self) -> float:
        """The GDP parameter ``mu = |c - c'| / sigma``."""
        return self._mu

    def __repr__(self) -> str:
        return f"GaussianPLD(mu={self._mu!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GaussianPLD) and other._mu == self._mu

    def __hash__(self) -> int:
        return hash(("GaussianPLD", self._mu))

    def cdf(self, loss: ArrayLike) -> NDArray[np.float64]:
        """P[L <= loss] = Phi((loss - mu^2 / 2) / mu); a unit step at 0 when mu = 0."""
        x = np.asarray(loss, dtype=np.float64)
        m = self._mu
        if m == 0:
            return np.where(x >= 0, 1.0, 0.0)
        out: NDArray[np.float64] = ndtr((x - m * m / 2) / m)
        return out

    def sf(self, loss: ArrayLike) -> NDArray[np.float64]:
        """P[L > loss] = Phi((mu^2 / 2 - loss) / mu); 1[loss < 0] when mu = 0."""
        x = np.asarray(loss, dtype=np.float64)
        m = self._mu
        if m == 0:
            return np.where(x < 0, 1.0, 0.0)
        out: NDArray[np.float64] = ndtr((m * m / 2 - x) / m)
        return out

    def rvs(self, size: int | tuple[int, ...], rng: np.random.Generator) -> NDArray[np.float64]:
        """Draws of N(mu^2 / 2, mu^2)."""
        m = self._mu
        out: NDArray[np.float64] = m * m / 2 + m * rng.standard_normal(size)
        return out

    def hockey_stick(self, epsilon: float) -> float:
        """EXT-DRS19: Phi(-eps / mu + mu / 2) - e^eps Phi(-eps / mu - mu / 2).

        Evaluated as A (1 - e^{B - A}) with A = log Phi(-eps/mu + mu/2),
        B = eps + log Phi(-eps/mu - mu/2) (``log_ndtr``, ``expm1``): no cancellation.
        """
        eps = finite_float(epsilon, "epsilon")
        m = self._mu
        if m == 0:
            return max(0.0, -math.expm1(eps))
        a = float(log_ndtr(-eps / m + m / 2))
        b = eps + float(log_ndtr(-eps / m - m / 2))
        if a == -math.inf:
            return 0.0
        return max(0.0, math.exp(a) * -math.expm1(b - a))

    def swap(self) -> GaussianPLD:
        """The Gaussian PLD is symmetric: L(Y'; x', x), Y' ~ Q, has the same law."""
        return GaussianPLD(self._mu)


def compose_gaussian(parts: Iterable[GaussianPLD | float | Fraction]) -> GaussianPLD:
    """EXT-GDPComposition: the product of independent Gaussian mechanisms has
    mu = sqrt(sum mu_i^2) (sum of independent N(mu_i^2 / 2, mu_i^2) losses)."""
    total = 0.0
    for p in parts:
        m = p.mu if isinstance(p, GaussianPLD) else finite_float(p, "mu")
        if m < 0:
            raise NegativeParameterError("mu", p, "a number >= 0")
        total += m * m
    return GaussianPLD(math.sqrt(total))
