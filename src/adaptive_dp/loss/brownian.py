"""R23-Thm4 and R23-Lem4.1: the privacy loss of Brownian noise reduction.

The oracle (:func:`bm_prefix_loss`) is the log ratio of the joint densities of the whole
released prefix under x and x' (R23-Def2.3), computed from the mechanism's declared
density, never from the formula under test.  The closed form (:func:`bm_loss_closed_form`)
is the reconstructed R23-Thm4 (proofs/R23-Thm4.md):
"L^{(1:T)} = c^2/(2 t^{(T)}) + c W(t^{(T)})/t^{(T)}", c = ||f(x) - f(x')||_2,
W(t) = <u, B(t)>, u = (f(x) - f(x'))/c.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from adaptive_dp.mechanisms.brownian import BrownianNoiseReduction
from adaptive_dp.mechanisms.noise_reduction import NoiseReductionRelease

__all__ = ["bm_loss_closed_form", "bm_prefix_loss", "bm_release_loss"]


def bm_prefix_loss(
    mechanism: BrownianNoiseReduction,
    values: NDArray[np.float64],
    length: ArrayLike,
    center: ArrayLike,
    center_prime: ArrayLike,
) -> NDArray[np.float64]:
    """R23-Lem4.1 / R23-Def2.3: L^{(1:k)}(y) = log p^x(y_{1:k}) - log p^{x'}(y_{1:k}).

    The joint density of the first ``length`` releases (``values``: ``(paths, K, d)``)
    under f(x) = ``center`` and f(x') = ``center_prime``.  Under any stopping function the
    indicator {T = k} is the same function of y under both, so it cancels.
    """
    return mechanism.logpdf_prefix(values, center, length) - mechanism.logpdf_prefix(
        values, center_prime, length
    )


def bm_release_loss(
    mechanism: BrownianNoiseReduction,
    release: NoiseReductionRelease,
    center: ArrayLike,
    center_prime: ArrayLike,
) -> NDArray[np.float64]:
    """The privacy loss of each stopped path of ``release`` from its whole prefix."""
    return bm_prefix_loss(mechanism, release.values, release.stop, center, center_prime)


def bm_loss_closed_form(
    center: ArrayLike,
    center_prime: ArrayLike,
    t_stop: ArrayLike,
    noise_at_stop: ArrayLike,
) -> NDArray[np.float64]:
    """R23-Thm4 (reconstructed): L = c^2/(2t) + c W(t)/t with W(t) = <u, B(t)>.

    ``noise_at_stop`` is B(t^{(T)}) (shape ``(paths, d)``), ``t_stop`` the time value
    t^{(T)} (shape ``(paths,)``).  Computed as c^2/(2t) + <f(x) - f(x'), B(t)>/t.
    """
    diff = np.atleast_1d(np.asarray(center, dtype=np.float64)) - np.atleast_1d(
        np.asarray(center_prime, dtype=np.float64)
    )
    b = np.asarray(noise_at_stop, dtype=np.float64)
    t = np.asarray(t_stop, dtype=np.float64)
    c2 = float(np.dot(diff, diff))
    inner = np.sum(b * diff, axis=-1)
    out: NDArray[np.float64] = c2 / (2 * t) + inner / t
    return out
