"""R23-Lem6.1 and R23-Eq2: the backward martingale of a scaled Brownian motion and the
product of stopped e-values across adaptively chosen mechanisms (reconstructed;
proofs/R23-Lem6.1.md and proofs/R23-Eq2.md).

R23-Lem6.1 (seed 002 prose, formula reconstructed): for a standard Brownian motion B and
every real lambda, "M^lambda(t) = exp(lambda B(t)/t - lambda^2/(2t))" is a nonnegative
martingale in reverse time (filtration G_t = sigma(B(s) : s >= t)), tends to 1 as
t -> infinity, and E[M^lambda(tau)] <= 1 for every stopping time tau of G: an e-value.

R23-Eq2: for rounds i = 1, 2, ... whose privacy loss L_i and charge rho_i satisfy
E[exp(lambda (L_i - rho_i) - lambda^2 rho_i) | past] <= 1 (a BM with charge
Delta^2/(2 t_stop), Delta >= c; or an approximate-zCDP round on its good part, for
lambda > 0), the product prod_i exp(lambda (L_i - rho_i) - lambda^2 rho_i) is a forward
nonnegative supermartingale with initial value 1.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = [
    "EValueProduct",
    "backward_log_martingale",
    "backward_martingale",
    "round_log_evalue",
]


def backward_log_martingale(lam: ArrayLike, b: ArrayLike, t: ArrayLike) -> NDArray[np.float64]:
    """R23-Lem6.1: log M^lambda(t) = lambda B(t)/t - lambda^2/(2t) (vectorised)."""
    lam_a = np.asarray(lam, dtype=np.float64)
    b_a = np.asarray(b, dtype=np.float64)
    t_a = np.asarray(t, dtype=np.float64)
    out: NDArray[np.float64] = lam_a * b_a / t_a - lam_a * lam_a / (2 * t_a)
    return out


def backward_martingale(lam: ArrayLike, b: ArrayLike, t: ArrayLike) -> NDArray[np.float64]:
    """R23-Lem6.1: M^lambda(t) = exp(lambda B(t)/t - lambda^2/(2t)), an e-value at any
    stopping time of the reverse filtration sigma(B(s) : s >= t)."""
    out: NDArray[np.float64] = np.exp(backward_log_martingale(lam, b, t))
    return out


def round_log_evalue(lam: ArrayLike, loss: ArrayLike, rho: ArrayLike) -> NDArray[np.float64]:
    """R23-Eq2 factor: log Z_i(lambda) = lambda (L_i - rho_i) - lambda^2 rho_i.

    For a BM stopped at t with c = ||f(x) - f(x')|| and rho = c^2/(2t) this is
    log M^{lambda c}(t) of R23-Lem6.1 (R23-Thm4: L - rho = c W(t)/t).
    """
    lam_a = np.asarray(lam, dtype=np.float64)
    out: NDArray[np.float64] = lam_a * (np.asarray(loss, dtype=np.float64) - np.asarray(
        rho, dtype=np.float64
    )) - lam_a * lam_a * np.asarray(rho, dtype=np.float64)
    return out


@dataclass(frozen=True, slots=True)
class EValueProduct:
    """R23-Eq2: the running product of stopped e-values, kept as its logarithm.

    ``log_value`` has one entry per path; :meth:`times` multiplies in one round's
    e-values (given as logs) and returns the new product.  Started at 1 (log 0).
    """

    log_value: NDArray[np.float64]

    @classmethod
    def start(cls, paths: int) -> EValueProduct:
        """The product before any round: 1 on every path."""
        return cls(np.zeros(paths, dtype=np.float64))

    def times(self, log_evalue: ArrayLike) -> EValueProduct:
        """The product with one more factor (a round's stopped e-value, as a log)."""
        return EValueProduct(self.log_value + np.asarray(log_evalue, dtype=np.float64))

    @property
    def value(self) -> NDArray[np.float64]:
        """The product itself."""
        out: NDArray[np.float64] = np.exp(self.log_value)
        return out
