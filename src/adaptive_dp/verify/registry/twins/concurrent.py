"""Negative controls of the concurrent compositions (H23-Thm1.8 = R23-Thm1, H23-Thm4.3,
H23-Thm4.5) and of H23-Lem2.3, one defect each.

- ``last-child-dropped`` (of H23-Thm1.8 and R23-Thm1): the optimal composition
  (EXT-MV16) of every child's guarantee but the last launched one
  (:func:`last_child_dropped`).
- ``max-not-sum`` (of H23-Thm4.5 and H23-Thm4.3): the children's rho (RDP epsilon at the
  order) composed by their maximum, the parallel-composition rule, instead of their sum
  (:func:`max_not_sum`).
- ``charge-answered-only`` (of H23-Thm3.4 and H23-Lem4.7): the GDP / RDP-charging batch
  compositor charging a child only per answered query (mu_c / sqrt(r) resp. alpha rho_c / r
  per answer) instead of at launch (:class:`GDPChargeAnsweredOnly`,
  :class:`RDPChargeAnsweredOnly`; H23-Thm3.6 uses
  :class:`~adaptive_dp.verify.registry.twins.interactive.ChargeAnsweredOnly`).
- ``non-adaptive-search`` (of H23-Lem2.3): the maximum over the deterministic adversaries
  restricted to fixed query sequences (the query of round r the same after every answer
  prefix), which misses the adaptive strategy trees (:func:`non_adaptive_max`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from adaptive_dp.guarantees.definitions import ApproxDP, PureDP
from adaptive_dp.interactive.concurrent import concurrent_approx_dp
from adaptive_dp.interactive.games import (
    FiniteGame,
    FloatArray,
    deterministic_values,
    strategy_trees,
)
from adaptive_dp.numerics import ExactLike
from adaptive_dp.verify.judge.batch import BatchConcurrentFilter

__all__ = [
    "GDPChargeAnsweredOnly",
    "RDPChargeAnsweredOnly",
    "last_child_dropped",
    "max_not_sum",
    "non_adaptive_max",
]


def last_child_dropped(guarantees: Sequence[PureDP | ApproxDP],
                       delta_total: ExactLike) -> ApproxDP:
    """Twin of H23-Thm1.8 / R23-Thm1: the last child's guarantee left out."""
    return concurrent_approx_dp(guarantees[:-1], delta_total)


def max_not_sum(parts: Sequence[Fraction]) -> Fraction:
    """Twin of H23-Thm4.5 / H23-Thm4.3: the children's parameters composed by max."""
    return max(parts)


def non_adaptive_max(game: FiniteGame, epsilon: FloatArray) -> FloatArray:
    """Twin of H23-Lem2.3: the maximum over the strategy trees that ask the same query
    at every node of a round (fixed query sequences) only."""
    trees = strategy_trees(game.rounds, game.queries, game.answers)
    keep = np.ones(trees.shape[0], dtype=bool)
    offset = 0
    for r in range(game.rounds):
        width = game.answers**r
        block = trees[:, offset:offset + width]
        keep &= np.all(block == block[:, :1], axis=1)
        offset += width
    best: FloatArray = deterministic_values(game, epsilon, trees[keep]).max(axis=1)
    return best


@dataclass(frozen=True, slots=True)
class GDPChargeAnsweredOnly(BatchConcurrentFilter):
    """Twin of H23-Thm3.4 (defect: mu paid per answered query, not at launch; the valid
    compositor is ``claims.concurrent.GDPCharged``)."""

    def _charges(self, declared: FloatArray, rounds: FloatArray
                 ) -> tuple[FloatArray, FloatArray]:
        per_answer: FloatArray = np.sqrt(2 * declared / rounds)
        return np.zeros_like(declared), per_answer


@dataclass(frozen=True, slots=True)
class RDPChargeAnsweredOnly(BatchConcurrentFilter):
    """Twin of H23-Lem4.7 (defect: RDP epsilon paid per answered query, not at launch; the
    valid compositor is ``claims.concurrent.RDPCharged``)."""

    alpha: float = 4.0

    def _charges(self, declared: FloatArray, rounds: FloatArray
                 ) -> tuple[FloatArray, FloatArray]:
        per_answer: FloatArray = self.alpha * declared / rounds
        return np.zeros_like(declared), per_answer
