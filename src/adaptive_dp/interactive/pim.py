"""Person-in-the-middle (PIM) postprocessing: H23-Def2.15, H23-Def2.16 / Alg7, the
proof devices of H23-Thm2.17 (Alg8, Alg9), the hypothesis of H23-Cor2.18, the universal
mechanism of H23-Lem4.7 (Alg10) and the PIMs of Algs 11-15 as executable constructions
(Alg 11 for interactive mechanisms given in the form P_j o N_j of H23-Thm3.3).

H23-Def2.15: "(s', v', m') = P(s, v, m)": v in {Q, A} says whether P receives a query
(from the adversary) or an answer (from the mechanism it postprocesses); v' whether it
asks a query (of the mechanism) or gives an answer (to the adversary). All PIMs here are
deterministic (``step(state, tag, message)``); Alg 7 with a deterministic P is a finite
mechanism whenever M is.

Alg 7 ("P o M"): "if m = lambda: s^M <- s; s^P <- lambda; m <- lambda; v <- Q; else:
(s^P, v, m) <- P(s^P, Q, m); while v = Q: (s^M, m) <- M(s^M, m); (s^P, v, m) <-
P(s^P, A, m); return ((s^M, s^P), m)". Reading A22: a PIM is initialized when its state
is lambda, on the wrapped mechanism's initialization output tagged A.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Protocol

from adaptive_dp.filters.base import Rule
from adaptive_dp.guarantees.definitions import RDP, ZCDP
from adaptive_dp.guarantees.spends import Spend
from adaptive_dp.interactive.concurrent import ChildCall, Composite, Query
from adaptive_dp.interactive.filtered import FiltCon, _declared
from adaptive_dp.interactive.interaction import InteractiveAdversary, view_distribution
from adaptive_dp.interactive.mechanism import (
    LAMBDA,
    PRIVACY_LOSS,
    STARTED,
    FiniteInteractiveMechanism,
    InteractiveMechanism,
    Launch,
    Refusal,
    Transition,
)
from adaptive_dp.interactive.odometer import LossReport
from adaptive_dp.numerics import ExactLike, exact, exact_nonnegative
from adaptive_dp.odometers.accumulators import Accumulator

__all__ = [
    "PIM",
    "A",
    "AddPrivacyLoss",
    "FiltNIMToFiltCon",
    "NIMPostprocessor",
    "PIMAdversary",
    "Postprocessed",
    "Q",
    "RemovePrivacyLoss",
    "Represented",
    "SplitFilterPIM",
    "Tag",
    "UniversalRDP",
    "ZCDPToRDP",
    "collapse_view",
    "simulates",
]


class Tag(enum.Enum):
    """H23-Def2.15: Q (a query) or A (an answer)."""

    Q = "Q"
    A = "A"


Q = Tag.Q
A = Tag.A


class PIM(Protocol):
    """H23-Def2.15: a (deterministic) person-in-the-middle mechanism."""

    def step(self, state: object, tag: Tag, message: object) -> tuple[object, Tag, object]: ...


MAX_INNER = 10_000
"""Alg 7's inner loop bound (finite communication)."""


@dataclass(frozen=True, slots=True)
class _PostState:
    mechanism: object
    pim: object


@dataclass(frozen=True, slots=True)
class Postprocessed(Composite):
    """H23-Def2.16 / H23-Thm2.17 / Alg 7: the interactive mechanism P o M (d-D DP whenever
    M is, H23-Thm2.17)."""

    pim: PIM
    mechanism: InteractiveMechanism

    def _outcomes(self, state: object, message: object, call: ChildCall) -> tuple[Transition, ...]:
        s_m: object
        s_p: object
        m: object
        if message is LAMBDA:
            s_m, s_p, v, m = state, LAMBDA, Q, LAMBDA
        else:
            if not isinstance(state, _PostState):
                raise TypeError("Postprocessed: bad state")
            s_m = state.mechanism
            s_p, v, m = self.pim.step(state.pim, Q, message)
        out: list[Transition] = []

        def loop(s_m: object, s_p: object, v: Tag, m: object, prob: Fraction, n: int) -> None:
            if v is not Q:
                out.append((prob, _PostState(s_m, s_p), m))
                return
            if n >= MAX_INNER:
                raise RuntimeError("Alg 7: the PIM did not answer (finite communication)")
            for p, s_m2, answer in call(self.mechanism, s_m, m):
                s_p2, v2, m2 = self.pim.step(s_p, A, answer)
                loop(s_m2, s_p2, v2, m2, prob * p, n + 1)

        loop(s_m, s_p, v, m, Fraction(1), 0)
        return tuple(out)


# -- H23-Thm2.17's proof devices ---------------------------------------------------


def _feed_adversary(
    adversary: InteractiveAdversary, pim: PIM, s_a: object, s_p: object, v: Tag, m: object,
    record: Callable[[object], None],
) -> tuple[object, object, object]:
    """Run A and P together until P has a query for M (or A halts): Alg 8's inner loop."""
    while v is A:
        record(m)
        s_a, q = adversary.step(s_a, m, None)
        if q is Refusal.HALT:
            return s_a, s_p, Refusal.HALT
        s_p, v, m = pim.step(s_p, Q, q)
    return s_a, s_p, m


@dataclass(frozen=True, slots=True)
class PIMAdversary:
    """H23-Alg8: the adversary A' that keeps A and P as submachines and talks to M
    directly. Reading A23: the pending tag v is part of A''s state; A's emitted query
    is fed to P. Deterministic A and P only."""

    adversary: InteractiveAdversary
    pim: PIM
    deterministic = True

    def step(self, state: object, message: object, coins: int | None) -> tuple[object, object]:
        s_a: object = LAMBDA
        s_p: object = LAMBDA
        if state is not LAMBDA:
            s_a, s_p = state  # type: ignore[misc]  # the pair we returned last step
        s_p, v, m = self.pim.step(s_p, A, message)
        s_a, s_p, out = self._feed(s_a, s_p, v, m)
        return (s_a, s_p), out

    def _feed(self, s_a: object, s_p: object, v: Tag, m: object) -> tuple[object, object, object]:
        """A and P run until P has a query for M (private hook: a twin overrides it)."""
        return _feed_adversary(self.adversary, self.pim, s_a, s_p, v, m, lambda _: None)


def collapse_view(
    adversary: InteractiveAdversary, pim: PIM, received: tuple[object, ...]
) -> tuple[object, ...]:
    """H23-Alg9: the noninteractive postprocessing g mapping View(A' <-> M(x)) (the
    messages M sent) to View(A <-> (P o M)(x)) (the messages A received): replay A and P
    on M's messages and keep only what P hands to A."""
    seen: list[object] = []
    s_a: object = LAMBDA
    s_p: object = LAMBDA
    for i, message in enumerate(received):
        s_p, v, m = pim.step(LAMBDA if i == 0 else s_p, A, message)
        s_a, s_p, out = _feed_adversary(adversary, pim, s_a, s_p, v, m, seen.append)
        if out is Refusal.HALT:
            break
    return tuple(seen)


def simulates(
    adversary: InteractiveAdversary, target: FiniteInteractiveMechanism, pim: PIM,
    mechanism: FiniteInteractiveMechanism, pair: tuple[object, object],
) -> bool:
    """H23-Cor2.18: its hypothesis on one pair {x, x'} and one deterministic adversary:
    View(A <-> N(x)) and View(A <-> (P o M)(x)) have the same exact law (enumeration),
    and likewise on x'. If it holds for every pair and deterministic A, with M d-D DP on
    the pair, then N is d-D DP (Thm 2.17, reading A25)."""
    composed = Postprocessed(pim, mechanism)
    return all(
        dict(view_distribution(adversary, target, x))
        == dict(view_distribution(adversary, composed, x))
        for x in pair
    )



# -- H23-Alg10: the universal mechanism -------------------------------------------------


@dataclass(frozen=True, slots=True)
class _UState:
    started: bool
    inner: object
    mechanism: object = None


@dataclass(frozen=True, slots=True, init=False)
class UniversalRDP(Composite):
    """H23-Alg10: U_{alpha, epsilon}. Its first query is a launch (M, (alpha, eps_2)); it
    is accepted iff M is declared (alpha, eps_2)-RDP and "eps_2 <= epsilon" (reading A34),
    then U initializes M on x, returns M's first message and forwards every later message
    to M. A rejected first query gets "invalid query" and the state is unchanged."""

    alpha: Fraction
    epsilon: Fraction

    def __init__(self, alpha: ExactLike, epsilon: ExactLike) -> None:
        object.__setattr__(self, "alpha", exact(alpha, "alpha"))
        object.__setattr__(self, "epsilon", exact_nonnegative(epsilon, "epsilon"))

    @property
    def guarantee(self) -> RDP:
        return RDP(self.alpha, self.epsilon)

    def _outcomes(self, state: object, message: object, call: ChildCall) -> tuple[Transition, ...]:
        if message is LAMBDA:
            return ((Fraction(1), _UState(False, state), LAMBDA),)
        if not isinstance(state, _UState):
            raise TypeError("UniversalRDP: bad state")
        if not state.started:
            if (
                isinstance(message, Launch)
                and isinstance(message.parameter, RDP)
                and self._fits(message.parameter)
                and _declared(message.mechanism, message.parameter)
            ):
                return tuple(
                    (p, _UState(True, s, message.mechanism), a)
                    for p, s, a in call(message.mechanism, state.inner, LAMBDA)
                )
            return ((Fraction(1), state, Refusal.INVALID_QUERY),)
        return tuple(
            (p, _UState(True, s, state.mechanism), a)
            for p, s, a in call(state.mechanism, state.inner, message)
        )

    def _fits(self, parameter: RDP) -> bool:
        """The order is alpha and "eps_2 <= epsilon" (private hook: a twin overrides it)."""
        return parameter.alpha == self.alpha and parameter.epsilon <= self.epsilon


# -- H23-Alg13: zCDP launches as RDP_alpha launches --------------------------------------


@dataclass(frozen=True, slots=True, init=False)
class ZCDPToRDP:
    """H23-Alg13: P transforms F^(alpha)(.; rho alpha)-FiltCon(IM) (reading A41) into
    F(.; rho)-FiltCon(IM): "if m is of the form (M', rho'): m' <- (M', (alpha, rho'
    alpha))"; every other query and every answer is ferried unchanged."""

    alpha: Fraction

    def __init__(self, alpha: ExactLike) -> None:
        object.__setattr__(self, "alpha", exact(alpha, "alpha"))

    def step(self, state: object, tag: Tag, message: object) -> tuple[object, Tag, object]:
        s = () if state is LAMBDA else state
        if tag is A:
            return s, A, message
        if isinstance(message, Launch) and isinstance(message.parameter, ZCDP):
            rdp = RDP(self.alpha, self._order_epsilon(message.parameter.rho))
            return s, Q, Launch(message.mechanism, rdp)
        return s, Q, message

    def _order_epsilon(self, rho: Fraction) -> Fraction:
        """rho' alpha (private hook: a twin overrides it)."""
        return rho * self.alpha


# -- H23-Alg14 / Alg15: adding and removing privacy_loss --------------------------------


@dataclass(frozen=True, slots=True)
class _LossState:
    accepted: tuple[Spend, ...]
    pending: Spend | None = None



@dataclass(frozen=True, slots=True)
class AddPrivacyLoss:
    """H23-Alg14: P transforms F(.; d)-FiltCon(IM) into the halting odometer M of
    Lemma B.1 by answering ``privacy_loss`` itself with G over the launched parameters
    (reading A42: the PIM stores each launched d_i; only launches answered without an
    error message count; s' <- s on privacy_loss). Everything else is forwarded."""

    accumulator: Accumulator

    def _report(self, accepted: tuple[Spend, ...]) -> LossReport:
        state = self.accumulator.start()
        for d in accepted:
            state = state.add(d)
        return LossReport(state)

    def step(self, state: object, tag: Tag, message: object) -> tuple[object, Tag, object]:
        s = _LossState(()) if state is LAMBDA else state
        if not isinstance(s, _LossState):
            raise TypeError("AddPrivacyLoss: bad state")
        if tag is Q:
            if message is PRIVACY_LOSS:
                return s, A, self._report(s.accepted)
            if isinstance(message, Launch):
                return _LossState(s.accepted, message.parameter), Q, message
            return _LossState(s.accepted), Q, message
        if s.pending is not None and self._admitted(message):
            return _LossState((*s.accepted, s.pending)), A, message
        return _LossState(s.accepted), A, message

    def _admitted(self, answer: object) -> bool:
        """A launch counts iff answered without an error message (private hook: a twin
        overrides it)."""
        return not isinstance(answer, Refusal)


@dataclass(frozen=True, slots=True)
class RemovePrivacyLoss:
    """H23-Alg15: P transforms the halting odometer M into F(.; d)-FiltCon(IM) by
    answering ``privacy_loss`` with "invalid query" ("remove support for privacy loss
    queries"); everything else is forwarded."""

    def step(self, state: object, tag: Tag, message: object) -> tuple[object, Tag, object]:
        s = () if state is LAMBDA else state
        if tag is Q and message is PRIVACY_LOSS:
            return s, A, Refusal.INVALID_QUERY
        return s, (Q if tag is Q else A), message


# -- H23-Alg12: F_2 into F_K ------------------------------------------------------------


class _Phase(enum.Enum):
    EMPTY = 0
    STARTING_FIRST = 1
    STARTING_INNER = 2
    RUNNING = 3


@dataclass(frozen=True, slots=True)
class _SplitState:
    phase: _Phase
    first_answer: object = None


@dataclass(frozen=True, slots=True)
class SplitFilterPIM:
    """H23-Alg12 (the induction step of H23-Lem4.7): P transforms F_2(.; epsilon)-
    FiltCon(IM) into F_K(.; epsilon)-FiltCon(IM). The first launch (M_1, (alpha, eps_1))
    goes to slot 1; as soon as M_1 has started, P launches F_{K-1}(.; epsilon - eps_1)-
    FiltCon(IM) in slot 2 with parameter (alpha, epsilon - eps_1) and then returns M_1's
    first message; a query (1, q) goes to slot 1, (j, q) with j > 1 becomes
    (2, (j - 1, q)) (reading A40), and later launches (M', d') become (2, (M', d')), an
    initialization of the inner filter's next mechanism. ``inner_rule(budget)`` builds
    the inner rule F_{K-1}(.; budget); ``inner_max`` is K - 1. A refused first launch
    leaves P empty (refuse-and-continue reading of A6; the paper's filter halts).
    """

    alpha: Fraction
    epsilon: Fraction
    inner_rule: Callable[[Fraction], Rule]
    inner_max: int | None
    terminal: bool = False

    def step(self, state: object, tag: Tag, message: object) -> tuple[object, Tag, object]:
        s = _SplitState(_Phase.EMPTY) if state is LAMBDA else state
        if not isinstance(s, _SplitState):
            raise TypeError("SplitFilterPIM: bad state")
        if tag is Q:
            if s.phase is _Phase.EMPTY:
                if isinstance(message, Launch):
                    return _SplitState(_Phase.STARTING_FIRST, message.parameter), Q, message
                return s, Q, message
            if isinstance(message, Launch):
                return s, Q, Query(2, message)
            if isinstance(message, Query) and isinstance(message.j, int) and message.j > 1:
                return s, Q, Query(2, Query(message.j - 1, message.q))
            return s, Q, message
        # tag A
        if s.phase is _Phase.STARTING_FIRST:
            if isinstance(message, Refusal):
                return _SplitState(_Phase.EMPTY), A, message
            eps_1 = s.first_answer.epsilon if isinstance(s.first_answer, RDP) else None
            if eps_1 is None:  # pragma: no cover - the filter accepted an RDP launch
                raise TypeError("SplitFilterPIM: the first launch must carry an RDP parameter")
            rest = self.epsilon - eps_1
            inner = FiltCon(self.inner_rule(rest), self.inner_max, self.terminal)
            launch = Launch(_Declared(inner, RDP(self.alpha, rest)), RDP(self.alpha, rest))
            return _SplitState(_Phase.STARTING_INNER, message), Q, launch
        if s.phase is _Phase.STARTING_INNER:
            return _SplitState(_Phase.RUNNING), A, s.first_answer
        return s, A, message


@dataclass(frozen=True, slots=True)
class _Declared(Composite):
    """An interactive mechanism with a declared guarantee: the inner filter of Alg 12,
    which is (alpha, epsilon - eps_1)-RDP by the induction hypothesis (Lem 4.7). Its
    initialization answer is ``started`` instead of lambda (H23-Def1.4: a launched
    mechanism's first message is an answer, never empty); P never forwards it."""

    inner: FiltCon
    guarantee: Spend

    def _outcomes(self, state: object, message: object, call: ChildCall) -> tuple[Transition, ...]:
        outs = self.inner._outcomes(state, message, call)
        if message is LAMBDA:
            return tuple((p, s, STARTED if a is LAMBDA else a) for p, s, a in outs)
        return outs



# -- H23-Alg11: F-Filt(NIM) into F-FiltCon(IM) (the proof of H23-Thm3.4) -----------------


class NIMPostprocessor(Protocol):
    """The P_j of H23-Thm3.3 for one interactive mechanism: initialized on the
    noninteractive output (tag A), it answers every later query locally (tag A)."""

    def step(self, state: object, tag: Tag, message: object) -> tuple[object, Tag, object]: ...


@dataclass(frozen=True, slots=True)
class _RepState:
    pim: object


@dataclass(frozen=True, slots=True)
class Represented(Composite):
    """An interactive mechanism given as P_j o N_j (H23-Thm3.3, Vadhan-Zhang): a
    noninteractive mechanism ``nim`` (its first answer on x, as in
    :class:`~adaptive_dp.interactive.filtered.FirstAnswer`) postprocessed by a
    deterministic ``postprocessor`` that never consults N_j again. Thm 3.3 says every
    f-DP interactive mechanism with finite communication has such a form on each pair
    {x, x'}; this class is the constructive case. ``guarantee`` is the NIM's."""

    nim: InteractiveMechanism
    postprocessor: NIMPostprocessor

    @property
    def guarantee(self) -> Spend:
        found: Spend | None = getattr(self.nim, "guarantee", None)
        if found is None:
            raise AttributeError("the represented NIM declares no guarantee")
        return found

    def _outcomes(self, state: object, message: object, call: ChildCall) -> tuple[Transition, ...]:
        if message is LAMBDA:
            out: list[Transition] = []
            for p, _, y in call(self.nim, state, LAMBDA):
                s, _, first = self.postprocessor.step(LAMBDA, A, y)
                out.append((p, _RepState(s), first))
            return tuple(out)
        if not isinstance(state, _RepState):
            raise TypeError("Represented: bad state")
        s, _, answer = self.postprocessor.step(state.pim, Q, message)
        return ((Fraction(1), _RepState(s), answer),)


@dataclass(frozen=True, slots=True)
class _Alg11State:
    children: tuple[tuple[NIMPostprocessor, object], ...]
    pending: NIMPostprocessor | None = None


@dataclass(frozen=True, slots=True)
class FiltNIMToFiltCon:
    """H23-Alg11: P transforms F-Filt(NIM) into F-FiltCon(IM) for launched mechanisms
    of the form P_j o N_j (:class:`Represented`). A launch (M', f') is forwarded to the
    filter as (N_{k+1}, f') with P_{k+1} pending (reading A39: f_{k+1} = f'); the
    filter's noninteractive output initializes P_{k+1}, whose first message goes to the
    adversary; a query (j, q) is answered locally by P_j and never reaches the filter;
    any refusal from the filter drops the pending entry and is forwarded (A39)."""

    def step(self, state: object, tag: Tag, message: object) -> tuple[object, Tag, object]:
        s = _Alg11State(()) if state is LAMBDA else state
        if not isinstance(s, _Alg11State):
            raise TypeError("FiltNIMToFiltCon: bad state")
        if tag is Q:
            if isinstance(message, Launch) and isinstance(message.mechanism, Represented):
                rep = message.mechanism
                return (_Alg11State(s.children, rep.postprocessor), Q,
                        Launch(rep.nim, message.parameter))
            local = self._local(s, message)
            return (s, Q, message) if local is None else local
        if s.pending is not None and not isinstance(message, Refusal):
            sj, _, first = s.pending.step(LAMBDA, A, message)
            return _Alg11State((*s.children, (s.pending, sj))), A, first
        return _Alg11State(s.children), A, message

    def _local(self, s: _Alg11State, message: object) -> tuple[object, Tag, object] | None:
        """A query (j, q) to a launched P_j answered locally (None: forward the message;
        private hook: a twin overrides it)."""
        if not (
            isinstance(message, Query)
            and isinstance(message.j, int)
            and 1 <= message.j <= len(s.children)
        ):
            return None
        j = message.j - 1
        pj, sj = s.children[j]
        sj2, _, answer = pj.step(sj, Q, message.q)
        kids = (*s.children[:j], (pj, sj2), *s.children[j + 1:])
        return _Alg11State(kids), A, answer
