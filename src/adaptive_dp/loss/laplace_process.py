"""R23-LemA.1 and R23-Eq12: the privacy loss of Laplace noise reduction.

The oracle (:func:`lnr_prefix_loss`) is the log ratio of the joint release-order
densities of the whole released prefix (R23-Def2.3).  The closed form is the
reconstructed R23-LemA.1 (proofs/R23-LemA.1.md): with t = t^{(T)},
"L^{(1:T)} = (||y_T - f(x')||_1 - ||y_T - f(x)||_1)/t", so ``|L| <= ||f(x) - f(x')||_1/t``.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from adaptive_dp.mechanisms.laplace_process import LaplaceNoiseReduction
from adaptive_dp.mechanisms.noise_reduction import NoiseReductionRelease

__all__ = ["lnr_loss_closed_form", "lnr_prefix_loss", "lnr_release_loss"]


def lnr_prefix_loss(
    mechanism: LaplaceNoiseReduction,
    values: NDArray[np.float64],
    length: ArrayLike,
    center: ArrayLike,
    center_prime: ArrayLike,
) -> NDArray[np.float64]:
    """R23-Eq12 / R23-Def2.3: log p^x(y_{1:k}) - log p^{x'}(y_{1:k}) from the kernels."""
    return mechanism.logpdf_prefix(values, center, length) - mechanism.logpdf_prefix(
        values, center_prime, length
    )


def lnr_release_loss(
    mechanism: LaplaceNoiseReduction,
    release: NoiseReductionRelease,
    center: ArrayLike,
    center_prime: ArrayLike,
) -> NDArray[np.float64]:
    """The privacy loss of each stopped path of ``release`` from its whole prefix."""
    return lnr_prefix_loss(mechanism, release.values, release.stop, center, center_prime)


def lnr_loss_closed_form(
    center: ArrayLike, center_prime: ArrayLike, t_stop: ArrayLike, last_value: ArrayLike
) -> NDArray[np.float64]:
    """R23-LemA.1 (reconstructed): L = (||y_T - f(x')||_1 - ||y_T - f(x)||_1)/t^{(T)}."""
    y = np.asarray(last_value, dtype=np.float64)
    f = np.atleast_1d(np.asarray(center, dtype=np.float64))
    fp = np.atleast_1d(np.asarray(center_prime, dtype=np.float64))
    t = np.asarray(t_stop, dtype=np.float64)
    out: NDArray[np.float64] = (
        np.sum(np.abs(y - fp), axis=-1) - np.sum(np.abs(y - f), axis=-1)
    ) / t
    return out
