"""Negative controls of the validity claims (H23-Thm1.21), one overridden hook.

- :class:`MuChargeAnsweredOnly`: the GDP compositor of
  :class:`~adaptive_dp.verify.registry.claims.validity.MuCharges` charging a Gaussian
  child with its answers (mu_a = sqrt(2 rho_c / rounds) each, so sum mu_a^2 over its
  answers is its declared mu_c^2) instead of mu_c at launch. For noninteractive
  mechanisms the answer is the launch, so the charge is the valid one; lifted to
  interactive children it admits every launch made before any query. The (epsilon,
  delta) form is :class:`~adaptive_dp.verify.registry.twins.interactive.ChargeAnsweredOnly`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from adaptive_dp.numerics.floats import inflate_up
from adaptive_dp.verify.judge.batch import BatchConcurrentFilter, FloatArray

__all__ = ["MuChargeAnsweredOnly"]


@dataclass(frozen=True, slots=True)
class MuChargeAnsweredOnly(BatchConcurrentFilter):
    """Twin of H23-Thm1.21 (defect: mu paid per answered query, not at launch)."""

    def _charges(self, declared: FloatArray, rounds: FloatArray) -> tuple[FloatArray, FloatArray]:
        per_answer: FloatArray = np.asarray(inflate_up(np.sqrt(2 * declared / rounds)))
        return np.zeros_like(declared), per_answer
