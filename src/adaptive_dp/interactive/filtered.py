"""H23-Def2.5 / Alg2 (F-Filt(NIM)) and H23-Def2.7 / Alg3 (F-FiltCon(IM)): filtered
composition, the budget paid when a mechanism is launched.

Alg 3: on a launch request (M', d'): "if k = K: s' <- Halt; m' <- at mechanism count
limit; else if M' is d'-D DP: M_{k+1} <- M'; d_{k+1} <- d'; if F(d_1, ..., d_{k+1}) != 1:
s' <- Halt; m' <- insufficient budget; else: (s_{k+1}, m') <- M_{k+1}(x, lambda)"; a
query (j, q) to a launched mechanism is answered by M_j and "never checked against F".
Readings: A16 (the branches are exclusive; a mechanism that is not d'-DP is refused with
"Divergence cannot be parsed" and the state unchanged), A17 (no extra d in the state).

The continuation rule F(.; d) is a rule of :mod:`adaptive_dp.filters` (its budget is part
of the rule), through its immutable :class:`~adaptive_dp.filters.base.FilterState`; the
accumulator filter of H23-Lem2.19 is :class:`~adaptive_dp.filters.from_accumulator.
AccumulatorFilter`, reused here. "M' is d'-D DP" is checked on the mechanism's declared
``guarantee`` (:func:`~adaptive_dp.guarantees.lattice.within`).

After a refusal (ambiguity A6): ``terminal=True`` reproduces the paper literally (the
state becomes Halt; every later call returns ``(Halt, halt)``, queries to launched
mechanisms included); ``terminal=False`` is the "equivalent alternative" of section 1.3
(refuse the request, keep the state, let the analyst continue with requests that fit):
the refusal depends only on public parameters, so it is post-processing.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from fractions import Fraction
from typing import cast

from adaptive_dp.filters.base import Decision, FilterState, Rule
from adaptive_dp.guarantees.lattice import within
from adaptive_dp.guarantees.spends import Spend
from adaptive_dp.interactive.concurrent import ChildCall, Composite, Query
from adaptive_dp.interactive.mechanism import (
    LAMBDA,
    InteractiveMechanism,
    Launch,
    Refusal,
    Transition,
)

__all__ = ["HALTED", "FiltCon", "FiltNIM", "FirstAnswer", "Halted"]


class Halted(enum.Enum):
    """The state Halt of Algs 2-3 (terminal mode)."""

    HALT = "Halt"

    def __repr__(self) -> str:
        return "HALTED"


HALTED = Halted.HALT


class _Done(enum.Enum):
    DONE = "done"


@dataclass(frozen=True, slots=True)
class FirstAnswer:
    """A noninteractive mechanism: the answer of ``mechanism`` (initialized on x) to
    the fixed ``query``; ``guarantee`` is the mechanism's. Used as the M_i of Alg 2."""

    mechanism: InteractiveMechanism
    query: object

    @property
    def guarantee(self) -> Spend:
        return cast(Spend, self.mechanism.guarantee)  # type: ignore[attr-defined]  # declared by launch

    def _outcomes(self, x: object, call: ChildCall) -> tuple[Transition, ...]:
        out: list[Transition] = []
        for p, s, _ in call(self.mechanism, x, LAMBDA):
            for q, _, a in call(self.mechanism, s, self.query):
                out.append((p * q, _Done.DONE, a))
        return tuple(out)

    def transitions(self, state: object, message: object) -> tuple[Transition, ...]:
        from adaptive_dp.interactive.concurrent import exact_call

        if message is not LAMBDA:
            return ((Fraction(1), _Done.DONE, Refusal.INVALID_QUERY),)
        return self._outcomes(state, exact_call)

    def step(self, state: object, message: object, rng: object) -> tuple[object, object]:
        from adaptive_dp.interactive.mechanism import checked_step

        if message is not LAMBDA:
            return _Done.DONE, Refusal.INVALID_QUERY
        s, _ = checked_step(self.mechanism, state, LAMBDA, rng)  # type: ignore[arg-type]  # untyped H23 state
        _, a = checked_step(self.mechanism, s, self.query, rng)  # type: ignore[arg-type]  # untyped H23 state
        return _Done.DONE, a


@dataclass(frozen=True, slots=True)
class _Child:
    mechanism: object
    parameter: Spend
    state: object


@dataclass(frozen=True, slots=True)
class _FiltState:
    x: object
    filter: FilterState
    children: tuple[_Child, ...]


def _declared(mechanism: object, parameter: Spend) -> bool:
    g = getattr(mechanism, "guarantee", None)
    return g is not None and within(g, parameter)


@dataclass(frozen=True, slots=True)
class FiltCon(Composite):
    """H23-Def2.7 / H23-Def2.8 / Alg 3: F(.; d)-FiltCon(IM) for the continuation rule ``rule``
    (budget included), at most ``max_mechanisms`` launches (K; None is infinity).
    ``terminal`` chooses the reading of A6 (module docstring)."""

    rule: Rule
    max_mechanisms: int | None = None
    terminal: bool = True

    INTERACTIVE = True

    def _refuse(self, state: _FiltState, why: Refusal) -> tuple[Transition, ...]:
        if self.terminal:
            return ((Fraction(1), HALTED, why),)
        return ((Fraction(1), state, why),)

    def _outcomes(self, state: object, message: object, call: ChildCall) -> tuple[Transition, ...]:
        if message is LAMBDA:
            return ((Fraction(1), _FiltState(state, self.rule.start(), ()), LAMBDA),)
        if state is HALTED:
            return ((Fraction(1), HALTED, Refusal.HALT),)
        if not isinstance(state, _FiltState):
            raise TypeError(f"{type(self).__name__}: bad state")
        k = len(state.children)
        if isinstance(message, Launch):
            if self.max_mechanisms is not None and k >= self.max_mechanisms:
                return self._refuse(state, Refusal.AT_MECHANISM_COUNT_LIMIT)
            if not _declared(message.mechanism, message.parameter):
                return ((Fraction(1), state, Refusal.DIVERGENCE_CANNOT_BE_PARSED),)
            decision, charged = self._spend(state.filter, message.parameter)
            if decision is not Decision.CONTINUE:
                return self._refuse(state, Refusal.INSUFFICIENT_BUDGET)
            return self._start(state, charged, message, call)
        if (
            self.INTERACTIVE
            and isinstance(message, Query)
            and isinstance(message.j, int)
            and 1 <= message.j <= k
        ):
            j = message.j - 1
            child = state.children[j]
            return tuple(
                (
                    p,
                    _FiltState(
                        state.x,
                        state.filter,
                        (
                            *state.children[:j],
                            _Child(child.mechanism, child.parameter, s_j),
                            *state.children[j + 1:],
                        ),
                    ),
                    a,
                )
                for p, s_j, a in call(child.mechanism, child.state, message.q)
            )
        return ((Fraction(1), state, Refusal.INVALID_QUERY),)

    def _spend(self, filter_state: FilterState, parameter: Spend) -> tuple[Decision, FilterState]:
        """The continuation rule on d_1, ..., d_{k+1} (private hook: a twin overrides it)."""
        return filter_state.spend(parameter)

    def _start(
        self, state: _FiltState, charged: FilterState, launch: Launch, call: ChildCall
    ) -> tuple[Transition, ...]:
        return tuple(
            (
                p,
                _FiltState(
                    state.x,
                    charged,
                    (*state.children, _Child(launch.mechanism, launch.parameter, s)),
                ),
                a,
            )
            for p, s, a in call(launch.mechanism, state.x, LAMBDA)
        )


@dataclass(frozen=True, slots=True)
class FiltNIM(FiltCon):
    """H23-Def2.5 / H23-Def2.6 / Alg 2: F(.; d)-Filt(NIM). A launch (M', d') of a noninteractive
    mechanism (e.g. :class:`FirstAnswer`) admitted by F returns "M_{k+1}(x; r_{k+1})";
    the state keeps only the parameters (A16 (iii)); there are no queries (j, q)."""

    INTERACTIVE = False

    def _start(
        self, state: _FiltState, charged: FilterState, launch: Launch, call: ChildCall
    ) -> tuple[Transition, ...]:
        kept = (*state.children, _Child(None, launch.parameter, None))
        return tuple(
            (p, _FiltState(state.x, charged, kept), a)
            for p, _, a in call(launch.mechanism, state.x, LAMBDA)
        )
