"""H23-Def2.4 / Alg1 (Vadhan-Wang): concurrent composition of interactive mechanisms,
and the composite-mechanism base shared by Algs 1-7; the guarantees of ConComp with
parameters fixed in advance (H23-Thm1.8 = R23-Thm1, H23-Thm4.5; H23-Thm4.3 is
:func:`adaptive_dp.guarantees.rdp.compose_rdp`).

Alg 1: "if m is of the form (j, q), j in {1..k}, q a query to M_j: (s_j', m') <-
M_j(s_j, q); s' <- (x, [(M_1, s_1), ..., (M_j, s_j'), ..., (M_k, s_k)]); else if m cannot
be parsed correctly: s' <- s; m' <- invalid query". Reading A15: at initialization each
M_j is initialized on x (``M_j(x, lambda)``) in order, and Alg 1 returns ``(s, lambda)``.
Indices j are 1-based as in the paper (:class:`Query`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from adaptive_dp.errors import UnsupportedGuaranteeError
from adaptive_dp.guarantees.definitions import ZCDP, ApproxDP, PureDP
from adaptive_dp.guarantees.optimal import compose_optimal
from adaptive_dp.guarantees.zcdp import compose_zcdp
from adaptive_dp.interactive.mechanism import (
    LAMBDA,
    FiniteInteractiveMechanism,
    InteractiveMechanism,
    Refusal,
    Transition,
    checked_step,
)
from adaptive_dp.numerics import ExactLike

__all__ = [
    "ChildCall",
    "Composite",
    "ConComp",
    "Query",
    "comp_distribution",
    "concurrent_approx_dp",
    "concurrent_zcdp",
]

ChildCall = Callable[[object, object, object], tuple[Transition, ...]]
"""Calls a child mechanism: ``call(mechanism, state, message)`` -> its outcomes (one
sampled outcome of probability 1 when running, every outcome when enumerating)."""


@dataclass(frozen=True, slots=True)
class Query:
    """A query (j, q) to the j-th launched mechanism (1-based, as in the paper)."""

    j: int
    q: object


class Composite(ABC):
    """Base of the composed state machines: one implementation, ``_outcomes``, serves
    both ``step`` (children sampled with the shared ``rng``, in call order) and
    ``transitions`` (children enumerated exactly; every child must be finite)."""

    __slots__ = ()

    @abstractmethod
    def _outcomes(self, state: object, message: object, call: ChildCall) -> tuple[Transition, ...]:
        ...

    def step(
        self, state: object, message: object, rng: np.random.Generator
    ) -> tuple[object, object]:
        def sample(mech: object, s: object, m: object) -> tuple[Transition, ...]:
            s2, a = checked_step(mech, s, m, rng)  # type: ignore[arg-type]  # children are untyped H23 states
            return ((Fraction(1), s2, a),)

        outcomes = self._outcomes(state, message, sample)
        if len(outcomes) != 1:  # pragma: no cover - composites call each child once
            raise RuntimeError("a sampled composite step must have one outcome")
        return outcomes[0][1], outcomes[0][2]

    def transitions(self, state: object, message: object) -> tuple[Transition, ...]:
        return self._outcomes(state, message, exact_call)


def exact_call(mech: object, s: object, m: object) -> tuple[Transition, ...]:
    """Every outcome of a finite child's step (H23-Def1.4 checks applied)."""
    if not isinstance(mech, FiniteInteractiveMechanism):
        raise TypeError(f"{type(mech).__name__} is not a finite interactive mechanism")
    outs = mech.transitions(s, m)
    for _, s2, a in outs:
        if s2 is LAMBDA or (a is LAMBDA and m is not LAMBDA):
            raise ValueError("H23-Def1.4: empty state or answer")
    return outs


@dataclass(frozen=True, slots=True)
class _ConState:
    x: object
    states: tuple[object, ...]


@dataclass(frozen=True, slots=True)
class ConComp(Composite):
    """H23-Def2.4 / R23-Def2.7 / Alg 1: ConComp(M_1, ..., M_k) answers (j, q) with M_j's answer and
    changes only s_j; anything else is "invalid query" with the state unchanged."""

    mechanisms: tuple[InteractiveMechanism, ...]

    def _outcomes(self, state: object, message: object, call: ChildCall) -> tuple[Transition, ...]:
        if message is LAMBDA:
            partial: list[tuple[Fraction, tuple[object, ...]]] = [(Fraction(1), ())]
            for mech in self.mechanisms:
                nxt: list[tuple[Fraction, tuple[object, ...]]] = []
                for p, states in partial:
                    for q, s_j, _ in call(mech, state, LAMBDA):
                        nxt.append((p * q, (*states, s_j)))
                partial = nxt
            return tuple((p, _ConState(state, states), LAMBDA) for p, states in partial)
        if not isinstance(state, _ConState):
            raise TypeError("ConComp: bad state")
        if (
            isinstance(message, Query)
            and isinstance(message.j, int)
            and 1 <= message.j <= len(self.mechanisms)
        ):
            j = message.j - 1
            return tuple(
                (p, _ConState(state.x, (*state.states[:j], s_j, *state.states[j + 1:])), a)
                for p, s_j, a in call(self.mechanisms[j], state.states[j], message.q)
            )
        return ((Fraction(1), state, Refusal.INVALID_QUERY),)


def comp_distribution(
    mechanisms: Sequence[object], x: object
) -> dict[tuple[object, ...], Fraction]:
    """H23-Comp: the exact distribution of Comp(M_1, ..., M_k)(x) = (M_1(x), ..., M_k(x)),
    each finite noninteractive M_i (its answer to the initialization message, as
    launched in Alg 2) run independently on its own coins."""
    dist: dict[tuple[object, ...], Fraction] = {(): Fraction(1)}
    for mech in mechanisms:
        nxt: dict[tuple[object, ...], Fraction] = {}
        for prefix, p in dist.items():
            for q, _, a in exact_call(mech, x, LAMBDA):
                nxt[(*prefix, a)] = nxt.get((*prefix, a), Fraction(0)) + p * q
        dist = nxt
    return dist


def concurrent_approx_dp(
    guarantees: Sequence[PureDP | ApproxDP], delta_total: ExactLike
) -> ApproxDP:
    """H23-Thm1.8 / R23-Thm1 (Lyu; Vadhan-Zhang): "if every composition Comp(M_1, ...,
    M_k) of noninteractive (epsilon_i, delta_i)-DP mechanisms is (epsilon, delta)-DP,
    then ConComp(M_1, ..., M_k) of interactive (epsilon_i, delta_i)-DP mechanisms is
    (epsilon, delta)-DP". The (epsilon, delta) returned is the optimal noninteractive one
    (EXT-MV16, :func:`~adaptive_dp.guarantees.optimal.compose_optimal`): the smallest
    epsilon with delta(epsilon) <= ``delta_total``, parameters fixed in advance."""
    return compose_optimal(guarantees, delta_total)


def concurrent_zcdp(guarantees: Iterable[ZCDP]) -> ZCDP:
    """H23-Thm4.5 (Lyu): for interactive rho_i-zCDP mechanisms (parameters fixed in
    advance), "ConComp(M_1, ..., M_k) is sum_i rho_i-zCDP" (exact sum, R23-Lem2.4's
    arithmetic). Approximate zCDP is refused (``UnsupportedGuaranteeError``): its
    concurrent composition is open (H23 section 4)."""
    items = list(guarantees)
    for g in items:
        if type(g) is not ZCDP:
            raise UnsupportedGuaranteeError(
                f"H23-Thm4.5 composes plain rho-zCDP guarantees only, not {type(g).__name__}")
    total = compose_zcdp(items)
    assert isinstance(total, ZCDP)
    return total
