"""H23-Def2.7 / Alg3 on a batch of independent paths: the vectorised concurrent
filtered composition used by the verification claims (docs/design.md, verification:
"Adversaries act on a batch of paths at once").

Each path runs F(.; rho)-FiltCon(IM) with children that are interactive zCDP mechanisms
answering counting queries (sensitivity 1; worst-case neighbours: the queried count is
0 on x and 1 on x'):

* a Gaussian child (:data:`~adaptive_dp.interactive.adversary.GAUSSIAN`) declared
  rho_c-zCDP over ``rounds`` answers, each N(count, sigma^2) with
  sigma = sqrt(rounds / (2 rho_c)) (R23-Lem2.2, R23-Lem2.4);
* a randomized-response child (:data:`~adaptive_dp.interactive.adversary.
  RANDOMIZED_RESPONSE`) declared rho_c-zCDP over ``rounds`` answers, each
  eps-randomized response with eps = sqrt(2 rho_c / rounds) (eps-DP implies
  eps^2/2-zCDP, R23-Lem2.3; answers compose, R23-Lem2.4).

With ``parameter="epsilon"`` the children are pure-DP instead: a randomized-response
child declared eps_c-DP over ``rounds`` answers answers each with eps_c / rounds (basic
composition); the ``rho`` field of a move then carries eps_c (Gaussian children are
refused in that mode: they are not pure DP).

The continuation rule (the rule's float fast path, which never admits what the
certified path refuses) is consulted only at launches, with the declared parameter (the
budget is paid at launch, H23 section 1.4); queries are never budget-checked. A refused
launch releases nothing (refuse-and-continue). The privacy loss of each path's whole
view is the sum over released answers of log p_x(y) / p_x'(y), from the mechanisms'
array log densities (docs/design.md, principle 8), in the order of the sampling side.

One private hook, ``_charges``, says what is charged when; a negative control in
``verify/twins/`` overrides it (one named defect).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np
from numpy.typing import NDArray

from adaptive_dp.filters.base import FastFilterState, Rule
from adaptive_dp.interactive.adversary import GAUSSIAN, RANDOMIZED_RESPONSE
from adaptive_dp.mechanisms.gaussian import gaussian_log_ratio, gaussian_sample
from adaptive_dp.mechanisms.randomized_response import rr_log_ratio, rr_sample

__all__ = ["BatchChildView", "BatchConcurrentFilter", "BatchMove", "BatchOutcome"]

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]
BoolArray = NDArray[np.bool_]


@dataclass(frozen=True, slots=True)
class BatchMove:
    """One request per path: a launch (``launch`` True: ``kind``, declared ``rho``,
    ``rounds``) or a query to child ``child`` (0-based; -1 = do nothing)."""

    launch: BoolArray
    kind: NDArray[np.int8]
    rho: FloatArray
    rounds: IntArray
    child: IntArray


@dataclass(frozen=True, slots=True)
class BatchChildView:
    """What the adversary sees after ``step`` requests: public parameters and
    released answers only. ``last`` is the last released answer (NaN if none),
    ``admitted`` whether the last launch was admitted, ``loss`` the running loss
    (a function of released answers and public parameters)."""

    step: int
    launched: IntArray
    left: IntArray
    last: FloatArray
    admitted: BoolArray
    loss: FloatArray


class BatchInteractiveAdversary(Protocol):
    @property
    def horizon(self) -> int: ...

    def choose(self, view: BatchChildView, rng: np.random.Generator) -> BatchMove: ...


@dataclass(frozen=True, slots=True)
class BatchOutcome:
    """Per path: the loss of the whole view, the number of admitted launches and of
    released answers, and the total declared rho of the admitted children."""

    loss: FloatArray
    launched: IntArray
    answers: IntArray
    declared: FloatArray


@dataclass(frozen=True, slots=True)
class BatchConcurrentFilter:
    """H23-Def2.7 / Alg 3 (refuse-and-continue) for ``paths`` paths at once, with the
    zCDP continuation rule ``rule`` (e.g. H23-Thm4.10's sum rule) and at most
    ``max_children`` launches per path."""

    rule: Rule
    max_children: int = 16
    parameter: str = "rho"

    def _charges(self, declared: FloatArray, rounds: FloatArray) -> tuple[FloatArray, FloatArray]:
        """The private hook: what a child is charged at its launch and per answered
        query. Valid: its declared parameter at launch, nothing per answer (the budget is
        paid at launch, H23 section 1.4)."""
        return declared, np.zeros_like(declared)

    def run(
        self,
        adversary: BatchInteractiveAdversary,
        paths: int,
        rng: np.random.Generator,
        *,
        under: str = "x",
    ) -> BatchOutcome:
        if under not in ("x", "x'"):
            raise ValueError(f"under={under!r} is not allowed: expected 'x' or \"x'\"")
        if self.parameter not in ("rho", "epsilon"):
            raise ValueError(f"parameter={self.parameter!r} is not allowed: 'rho' or 'epsilon'")
        pure = self.parameter == "epsilon"
        center = 0.0 if under == "x" else 1.0
        other = 1.0 - center
        c = self.max_children
        rows = np.arange(paths)
        kind = np.full((paths, c), -1, dtype=np.int8)
        param = np.zeros((paths, c))  # sigma (Gaussian) or eps (RR)
        rho_c = np.zeros((paths, c))
        rounds_c = np.ones((paths, c))
        left = np.zeros((paths, c), dtype=np.int64)
        launched = np.zeros(paths, dtype=np.int64)
        answers = np.zeros(paths, dtype=np.int64)
        loss = np.zeros(paths)
        last = np.full(paths, np.nan)
        admitted = np.zeros(paths, dtype=bool)
        state: FastFilterState = self.rule.fast(paths)
        for t in range(adversary.horizon):
            view = BatchChildView(t, launched.copy(), left.copy(), last.copy(),
                                  admitted.copy(), loss.copy())
            move = adversary.choose(view, rng)
            want = np.asarray(move.launch, dtype=bool) & (launched < c)
            if pure:
                want &= np.asarray(move.kind) == RANDOMIZED_RESPONSE
            rho = np.where(want, np.asarray(move.rho, dtype=np.float64), 0.0)
            requested = np.asarray(move.rounds).astype(np.float64)
            at_launch, _ = self._charges(rho, np.maximum(requested, 1.0))
            ok, state = state.spend(np.where(want, at_launch, 0.0))
            admitted = want & ok
            if admitted.any():
                idx = rows[admitted]
                slot = launched[admitted]
                k = np.asarray(move.kind)[admitted]
                r = np.maximum(np.asarray(move.rounds)[admitted], 1).astype(np.float64)
                rc = rho[admitted]
                kind[idx, slot] = k
                rho_c[idx, slot] = rc
                rounds_c[idx, slot] = r
                left[idx, slot] = r.astype(np.int64)
                param[idx, slot] = (
                    rc / r
                    if pure
                    else np.where(k == GAUSSIAN, np.sqrt(r / (2 * rc)), np.sqrt(2 * rc / r))
                )
                launched[admitted] += 1
            child = np.asarray(move.child, dtype=np.int64)
            query = (~np.asarray(move.launch, dtype=bool)) & (child >= 0) & (child < launched)
            safe = np.where(query, child, 0)
            query &= left[rows, safe] > 0
            last = np.where(want, np.nan, last)
            for kd in (GAUSSIAN, RANDOMIZED_RESPONSE):
                sel = query & (kind[rows, safe] == kd)
                if not sel.any():
                    continue
                idx = rows[sel]
                j = safe[sel]
                p = param[idx, j]
                # the log-density differences, bit for bit as logpdf(center) - logpdf(other)
                if kd == GAUSSIAN:
                    y = gaussian_sample(center, p, rng)
                    step_loss = gaussian_log_ratio(y, center, other, p)
                else:
                    y = rr_sample(center, p, rng)
                    step_loss = rr_log_ratio(y, center, p)
                loss[idx] += step_loss
                last[idx] = y
                left[idx, j] -= 1
                answers[idx] += 1
                charge = np.zeros(paths)
                charge[idx] = self._charges(rho_c[idx, j], rounds_c[idx, j])[1]
                if charge.any():
                    _, state = state.spend(charge)
        declared = rho_c.sum(axis=1)
        return BatchOutcome(loss, launched, answers, declared)
