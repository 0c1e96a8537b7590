"""Negative controls of the concurrent filters (H23-Def2.7 / Alg3), one overridden hook.

- :class:`ChargeAnsweredOnly` (of H23-Thm4.10's concurrent zCDP filter, as run by
  :class:`~adaptive_dp.verify.judge.batch.BatchConcurrentFilter`): a compositor that
  charges a child only for the queries it has answered so far (rho_c / rounds per
  answer) instead of its declared rho_c at launch. A launch is then admitted whenever
  the answers released so far fit, so an adversary that launches every child before
  querying any of them gets them all, and spends several budgets.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from adaptive_dp.verify.judge.batch import BatchConcurrentFilter, FloatArray

__all__ = ["ChargeAnsweredOnly"]


@dataclass(frozen=True, slots=True)
class ChargeAnsweredOnly(BatchConcurrentFilter):
    """Twin of H23-Thm4.10 (defect: budget paid per answered query, not at launch)."""

    def _charges(self, declared: FloatArray, rounds: FloatArray) -> tuple[FloatArray, FloatArray]:
        per_answer: FloatArray = declared / rounds
        return np.zeros_like(declared), per_answer
