"""H23-Def2.10 / Alg5 (Lécuyer's truncated view), read as in ambiguities A7 and A8, and
the halting odometer M of the proof of H23-Lem2.19 (Lemma B.1).

Alg 5: after each odometer answer, "(s_i, d_i) = O(s_i, privacy_loss); if d_i not<= d:
exit loop", returning the coins and answers before that round. Reading A8 (the one
consistent with Lemma B.1 and with the filter I(G <= d)): ``privacy_loss`` is evaluated
on the POST-transition state s_{i+1}; if it is not <= d the answer a_i is dropped and the
view ends. Reading A7: "not <=" (epsilon_i > epsilon or delta_i > delta; a loss exactly
equal to d is kept), certified (:meth:`~adaptive_dp.interactive.odometer.LossReport.
within`). The view also ends when the adversary or the odometer sends ``halt``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from adaptive_dp.guarantees.definitions import Guarantee
from adaptive_dp.interactive.concurrent import ChildCall, Composite
from adaptive_dp.interactive.interaction import InteractiveAdversary, View
from adaptive_dp.interactive.mechanism import (
    LAMBDA,
    PRIVACY_LOSS,
    InteractiveMechanism,
    Refusal,
    Transition,
    checked_step,
)
from adaptive_dp.interactive.odometer import LossReport, OdomCon

__all__ = ["HaltingOdometer", "truncated_view", "truncated_view_distribution"]


def _loss(odometer: InteractiveMechanism, state: object) -> LossReport:
    rng = np.random.default_rng(0)  # privacy_loss is deterministic (H23-Def1.12)
    same, report = odometer.step(state, PRIVACY_LOSS, rng)
    if not isinstance(report, LossReport) or same != state:
        raise TypeError("privacy_loss must be deterministic and state-preserving")
    return report


def truncated_view(
    adversary: InteractiveAdversary,
    odometer: OdomCon,
    x: object,
    budget: Guarantee,
    rng: np.random.Generator,
    *,
    max_rounds: int = 10_000,
) -> View:
    """H23-Def2.10 / H23-Def2.11 / Alg 5: Trunc_d(View(A <-> O(x))), reading A7/A8."""
    s_m: object = x
    s_a: object = LAMBDA
    message: object = LAMBDA
    coins: list[int | None] = []
    received: list[object] = []
    for i in range(max_rounds + 1):
        s_next, answer = checked_step(odometer, s_m, message, rng)
        if not _loss(odometer, s_next).within(budget):
            break
        s_m = s_next
        received.append(answer)
        if answer is Refusal.HALT or i == max_rounds:
            break
        r = None if adversary.deterministic else int(rng.integers(0, 2**63 - 1))
        coins.append(r)
        s_a, message = adversary.step(s_a, answer, r)
        if message is Refusal.HALT:
            break
    return View(tuple(coins), tuple(received))


def truncated_view_distribution(
    adversary: InteractiveAdversary,
    odometer: OdomCon,
    x: object,
    budget: Guarantee,
    *,
    max_rounds: int = 64,
) -> Mapping[tuple[object, ...], Fraction]:
    """The exact distribution of Trunc_d(View) (messages only) by enumeration."""
    out: dict[tuple[object, ...], Fraction] = {}

    def walk(s_m: object, s_a: object, message: object, prob: Fraction,
             received: tuple[object, ...], rounds: int) -> None:
        for p, s_next, answer in odometer.transitions(s_m, message):
            q = prob * p
            if q == 0:
                continue
            if not _loss(odometer, s_next).within(budget):
                out[received] = out.get(received, Fraction(0)) + q
                continue
            seen = (*received, answer)
            if answer is Refusal.HALT or rounds >= max_rounds:
                out[seen] = out.get(seen, Fraction(0)) + q
                continue
            a_next, query = adversary.step(s_a, answer, None)
            if query is Refusal.HALT:
                out[seen] = out.get(seen, Fraction(0)) + q
                continue
            walk(s_next, a_next, query, q, seen, rounds + 1)

    walk(x, LAMBDA, LAMBDA, Fraction(1), (), 0)
    return out


@dataclass(frozen=True, slots=True)
class HaltingOdometer(Composite):
    """The I.M. M of the proof of H23-Lem2.19 (Lemma B.1): it "behave[s] exactly like
    G-OdomCon(IM) as in Algorithm 6, but on every round of operation also checks if
    G(.) not<= d, in which case M will maintain its previous state and output halt
    message". Its view is Trunc_d(View(A <-> G-OdomCon(IM)(x))) followed by ``halt``."""

    odometer: OdomCon
    budget: Guarantee

    def _outcomes(self, state: object, message: object, call: ChildCall) -> tuple[Transition, ...]:
        out: list[Transition] = []
        for p, s_next, answer in call(self.odometer, state, message):
            if _loss(self.odometer, s_next).within(self.budget):
                out.append((p, s_next, answer))
            else:
                out.append((p, state if message is not LAMBDA else s_next, Refusal.HALT))
        return tuple(out)
