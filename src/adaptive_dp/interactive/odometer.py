"""H23-Def2.9 / Alg4 (G-Odom(NIM)) and H23-Def2.13 / Alg6 (G-OdomCon(IM)), with the
state-preserving ``privacy_loss`` query (H23-Def1.12).

Alg 6: a launch (M', d') is started whenever "M' is d'-D DP" (otherwise "Divergence
cannot be parsed", state unchanged): an odometer never refuses for budget; a query
(j, q) goes to M_j; "else if m = privacy_loss: s' <- s; m' <- G(d_1, ..., d_k)"
(deterministic, no state change; the same value between launches, since "the
privacy-loss budget is paid at the launch of each additional interactive mechanism").

G is an accumulator of :mod:`adaptive_dp.odometers.accumulators`; the answer to
``privacy_loss`` is a :class:`LossReport`: the accumulator state over the launched
parameters (public values only), with its reading G(d_1..d_k) (rounded up, or
EXHAUSTED) and the certified comparison ``within(d)`` used by the truncated view.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from adaptive_dp.guarantees.definitions import Guarantee
from adaptive_dp.interactive.concurrent import ChildCall, Composite, Query
from adaptive_dp.interactive.filtered import _Child, _declared
from adaptive_dp.interactive.mechanism import (
    LAMBDA,
    PRIVACY_LOSS,
    Launch,
    Refusal,
    Transition,
)
from adaptive_dp.odometers.accumulators import Accumulator, AccumulatorState, Exhausted

__all__ = ["LossReport", "OdomCon", "OdomNIM"]


@dataclass(frozen=True, slots=True)
class LossReport:
    """The answer to ``privacy_loss``: G over the launched parameters d_1, ..., d_k."""

    accumulated: AccumulatorState

    def reading(self) -> Guarantee | Exhausted:
        """G(d_1, ..., d_k), rounded up, or EXHAUSTED."""
        return self.accumulated.reading()

    def within(self, budget: Guarantee) -> bool:
        """Certified G(d_1, ..., d_k) <= budget (H23-Def2.10's d_i <= d)."""
        return self.accumulated.within(budget)

    @property
    def count(self) -> int:
        return self.accumulated.count


@dataclass(frozen=True, slots=True)
class _OdomState:
    x: object
    accumulated: AccumulatorState
    children: tuple[_Child, ...]


@dataclass(frozen=True, slots=True)
class OdomCon(Composite):
    """H23-Def2.13 / H23-Def2.14 / Alg 6: G-OdomCon(IM) for the accumulator ``accumulator``."""

    accumulator: Accumulator

    INTERACTIVE = True

    def _outcomes(self, state: object, message: object, call: ChildCall) -> tuple[Transition, ...]:
        if message is LAMBDA:
            return ((Fraction(1), _OdomState(state, self.accumulator.start(), ()), LAMBDA),)
        if not isinstance(state, _OdomState):
            raise TypeError(f"{type(self).__name__}: bad state")
        if message is PRIVACY_LOSS:
            return ((Fraction(1), state, LossReport(state.accumulated)),)
        k = len(state.children)
        if isinstance(message, Launch):
            if not _declared(message.mechanism, message.parameter):
                return ((Fraction(1), state, Refusal.DIVERGENCE_CANNOT_BE_PARSED),)
            acc = state.accumulated.add(message.parameter)
            if self.INTERACTIVE:
                return tuple(
                    (
                        p,
                        _OdomState(
                            state.x,
                            acc,
                            (*state.children, _Child(message.mechanism, message.parameter, s)),
                        ),
                        a,
                    )
                    for p, s, a in call(message.mechanism, state.x, LAMBDA)
                )
            kept = (*state.children, _Child(None, message.parameter, None))
            return tuple(
                (p, _OdomState(state.x, acc, kept), a)
                for p, _, a in call(message.mechanism, state.x, LAMBDA)
            )
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
                    _OdomState(
                        state.x,
                        state.accumulated,
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


@dataclass(frozen=True, slots=True)
class OdomNIM(OdomCon):
    """H23-Def2.9 / H23-Def2.12 / Alg 4: G-Odom(NIM): launches of noninteractive mechanisms return
    their output; the state keeps the parameters only; no queries (j, q)."""

    INTERACTIVE = False
