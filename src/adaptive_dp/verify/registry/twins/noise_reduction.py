"""Negative controls of the noise reductions' loss and ex-post statements (R23-Thm4,
R23-Lem4.1, R23-LemA.1, R23-Lem5.1), one defect each.

- ``variance-as-sigma`` (of R23-Thm4): the BM closed form with the time value t, a variance,
  used as the standard deviation: c^2/(2 t^2) + c W(t)/t^2
  (:func:`variance_as_sigma_bm_loss`).
- ``forward-coupling`` (of R23-Lem4.1): the release-order density of a BM with the Markov
  coupling in the wrong direction, z_{j+1} = z_j + N(0, t_j - t_{j+1}) instead of the
  Brownian bridge z_{j+1} | z_j ~ N(z_j t_{j+1}/t_j, t_{j+1}(t_j - t_{j+1})/t_j)
  (:func:`forward_coupling_bm_logpdf`).
- ``previous-time-expost`` (of R23-LemA.1): the ex-post value of a Laplace noise reduction
  computed at the previous time value t^{(T-1)} (:class:`PreviousTimeExPostLNR`).
- ``max-not-sum`` (of R23-Lem5.1): ex-post values composed by their maximum (the parallel
  composition rule) instead of their sum (:func:`max_not_sum_expost_composition`).
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction

import numpy as np
from numpy.typing import ArrayLike, NDArray

from adaptive_dp.guarantees.expost import ExPost
from adaptive_dp.loss.brownian import bm_loss_closed_form
from adaptive_dp.mechanisms.laplace_process import LaplaceNoiseReduction

__all__ = [
    "PreviousTimeExPostLNR",
    "forward_coupling_bm_logpdf",
    "max_not_sum_expost_composition",
    "variance_as_sigma_bm_loss",
]


def variance_as_sigma_bm_loss(
    center: ArrayLike, center_prime: ArrayLike, t_stop: ArrayLike, noise_at_stop: ArrayLike
) -> NDArray[np.float64]:
    """Twin of R23-Thm4: the closed form with sigma = t (the variance) instead of sqrt(t)."""
    t = np.asarray(t_stop, dtype=np.float64)
    return bm_loss_closed_form(center, center_prime, t * t, noise_at_stop)


def forward_coupling_bm_logpdf(
    times: NDArray[np.float64], values: NDArray[np.float64], stop: NDArray[np.int64],
    center: float,
) -> NDArray[np.float64]:
    """Twin of R23-Lem4.1: a scalar BM's release-order log density with the forward
    random-walk kernel N(z_j, t_j - t_{j+1}) in place of the Brownian bridge."""
    z = values[:, :, 0] - center
    out = -0.5 * z[:, 0] ** 2 / times[0] - 0.5 * np.log(2 * np.pi * times[0])
    for j in range(times.shape[0] - 1):
        var = times[j] - times[j + 1]
        term = -0.5 * (z[:, j + 1] - z[:, j]) ** 2 / var - 0.5 * np.log(2 * np.pi * var)
        out = out + np.where(j + 1 < stop, term, 0.0)
    result: NDArray[np.float64] = out
    return result


class PreviousTimeExPostLNR(LaplaceNoiseReduction):
    """Twin of R23-LemA.1: ``expost(t^{(T)})`` returns Delta_1 / t^{(T-1)} (the previous,
    larger time value; t^{(1)} at T = 1)."""

    __slots__ = ()

    def expost(self, t_stop: float) -> ExPost:
        valid = LaplaceNoiseReduction.expost(self, t_stop)
        k = self.times.index(t_stop)
        prev = self.times[max(k - 1, 0)]
        return ExPost(self.sensitivity / Fraction(prev), 0, valid.max_epsilon)


def max_not_sum_expost_composition(items: Iterable[ExPost]) -> ExPost:
    """Twin of R23-Lem5.1: the largest ex-post epsilon (and delta) instead of the sums."""
    listed = list(items)
    return ExPost(max(i.epsilon for i in listed), max(i.delta for i in listed),
                  max(i.max_epsilon for i in listed))
