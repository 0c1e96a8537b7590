"""Negative controls of the person-in-the-middle constructions (H23-Thm2.17, H23-Alg8..15,
H23-Cor2.18), one defect each; the claims are in
:mod:`adaptive_dp.verify.registry.claims.pim`.

- ``state-reset`` (of H23-Thm2.17): Alg 7 with M's state dropped: every query of the
  adversary is served by M as it was right after its initialization
  (:class:`StateResetPostprocessed`), so M's answer budget is never used up.
- ``tag-dropped`` (of H23-Alg8): A' sends P's output to M whatever its tag, so an answer
  P gives A locally reaches M as a query (:class:`TagDroppedPIMAdversary`; reading A23).
- ``last-message-dropped`` (of H23-Alg9): g stops before replaying M's last message
  (:func:`last_message_dropped_collapse`; the garbled loop condition of A24 read as
  "while a next message exists").
- ``duplicate-answer`` (of H23-Cor2.18): the simulating PIM asks M once and hands the
  answer to A twice (:class:`DuplicateAnswer`), so it does not simulate a mechanism
  that answers with two independent bits.
- ``budget-check-dropped`` (of H23-Alg10): U accepts a launch of any epsilon_2 at its
  order (:class:`BudgetCheckDroppedUniversalRDP`).
- ``queries-forwarded`` (of H23-Alg11): P sends (j, q) to the filter instead of answering
  it with P_j (:class:`QueriesForwarded`).
- ``whole-budget`` (of H23-Alg12): the inner filter of slot 2 gets the whole budget
  epsilon instead of epsilon - eps_1 (:func:`whole_budget_inner_rule`).
- ``no-alpha-factor`` (of H23-Alg13): a launch (M', rho') becomes (M', (alpha, rho'))
  (:class:`NoAlphaFactor`).
- ``refused-launch-counted`` (of H23-Alg14): ``privacy_loss`` counts a launch the filter
  refused (:class:`RefusedLaunchCounted`).
- ``privacy-loss-forwarded`` (of H23-Alg15): ``privacy_loss`` reaches the odometer
  (:class:`PrivacyLossForwarded`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from fractions import Fraction

from adaptive_dp.filters.base import Rule
from adaptive_dp.guarantees.definitions import RDP
from adaptive_dp.interactive.concurrent import ChildCall
from adaptive_dp.interactive.interaction import InteractiveAdversary
from adaptive_dp.interactive.mechanism import LAMBDA, Refusal, Transition
from adaptive_dp.interactive.pim import (
    PIM,
    A,
    AddPrivacyLoss,
    FiltNIMToFiltCon,
    PIMAdversary,
    Postprocessed,
    Q,
    Tag,
    UniversalRDP,
    ZCDPToRDP,
    _PostState,
    collapse_view,
)

__all__ = [
    "BudgetCheckDroppedUniversalRDP",
    "DuplicateAnswer",
    "NoAlphaFactor",
    "PrivacyLossForwarded",
    "QueriesForwarded",
    "RefusedLaunchCounted",
    "StateResetPostprocessed",
    "TagDroppedPIMAdversary",
    "last_message_dropped_collapse",
    "whole_budget_inner_rule",
]


@dataclass(frozen=True, slots=True)
class _Reset:
    post: _PostState
    fresh: object


@dataclass(frozen=True, slots=True)
class StateResetPostprocessed(Postprocessed):
    """Twin of H23-Thm2.17 (defect: M restarted from its initialized state at every query)."""

    def _outcomes(self, state: object, message: object, call: ChildCall) -> tuple[Transition, ...]:
        if message is LAMBDA:
            return tuple((p, _Reset(s, s.mechanism), a)
                         for p, s, a in Postprocessed._outcomes(self, state, message, call)
                         if isinstance(s, _PostState))
        if not isinstance(state, _Reset):
            raise TypeError("StateResetPostprocessed: bad state")
        restarted = replace(state.post, mechanism=state.fresh)
        return tuple((p, _Reset(s, state.fresh), a)  # type: ignore[arg-type]  # Alg 7's state
                     for p, s, a in Postprocessed._outcomes(self, restarted, message, call))


@dataclass(frozen=True, slots=True)
class TagDroppedPIMAdversary(PIMAdversary):
    """Twin of H23-Alg8 (defect: P's output after A's query goes to M whatever its tag)."""

    def _feed(self, s_a: object, s_p: object, v: Tag, m: object) -> tuple[object, object, object]:
        if v is A:
            s_a, q = self.adversary.step(s_a, m, None)
            if q is Refusal.HALT:
                return s_a, s_p, Refusal.HALT
            s_p, _, m = self.pim.step(s_p, Q, q)
        return s_a, s_p, m


def last_message_dropped_collapse(adversary: InteractiveAdversary, pim: PIM,
                                  received: tuple[object, ...]) -> tuple[object, ...]:
    """Twin of H23-Alg9 (defect: M's last message is not replayed)."""
    return collapse_view(adversary, pim, received[:-1])


@dataclass(frozen=True, slots=True)
class DuplicateAnswer:
    """Twin of H23-Cor2.18's simulating PIM (defect: one answer of M handed to A twice)."""

    def step(self, state: object, tag: Tag, message: object) -> tuple[object, Tag, object]:
        if tag is Q:
            return True, Q, message
        if state is True:
            return False, A, (message, message)
        return False, A, message


@dataclass(frozen=True, slots=True, init=False)
class BudgetCheckDroppedUniversalRDP(UniversalRDP):
    """Twin of H23-Alg10 (defect: "eps_2 <= epsilon" not checked)."""

    def _fits(self, parameter: RDP) -> bool:
        return parameter.alpha == self.alpha


@dataclass(frozen=True, slots=True)
class QueriesForwarded(FiltNIMToFiltCon):
    """Twin of H23-Alg11 (defect: a query (j, q) goes to the filter, not to P_j)."""

    def _local(self, s: object, message: object) -> tuple[object, Tag, object] | None:
        return None


def whole_budget_inner_rule(rule: Callable[[Fraction], Rule], epsilon: Fraction
                            ) -> Callable[[Fraction], Rule]:
    """Twin of H23-Alg12 (defect: slot 2's filter F_{K-1} gets epsilon, not epsilon - eps_1)."""
    return lambda _remaining: rule(epsilon)


@dataclass(frozen=True, slots=True, init=False)
class NoAlphaFactor(ZCDPToRDP):
    """Twin of H23-Alg13 (defect: (M', rho') becomes (M', (alpha, rho')), alpha dropped)."""

    def _order_epsilon(self, rho: Fraction) -> Fraction:
        return rho


@dataclass(frozen=True, slots=True)
class RefusedLaunchCounted(AddPrivacyLoss):
    """Twin of H23-Alg14 (defect: a refused launch is counted by ``privacy_loss``)."""

    def _admitted(self, answer: object) -> bool:
        return True


@dataclass(frozen=True, slots=True)
class PrivacyLossForwarded:
    """Twin of H23-Alg15 (defect: ``privacy_loss`` is ferried to the odometer like any
    other query)."""

    def step(self, state: object, tag: Tag, message: object) -> tuple[object, Tag, object]:
        return (), tag, message
