"""R23-Thm3 (Rogers, Samorodnitsky, Wu, Ramdas 2023): the filter for a mix of
approximate-zCDP and ex-post private mechanisms, through concurrent composition.

Seed 000 (truncated inside the statement): "N((y_n)) = inf{N_zCDP((y_{1:n-1})),
N_post((y_n))}" where N_zCDP is "the stopping rule given in Theorem 2 with privacy
parameters epsilon, delta, delta''" and N_post the rule of Lemma 5.2 (reading:
parameters (epsilon', delta')); all five parameters > 0. The proof: "Split the zCDP
mechanisms and the ex-post mechanisms into two interactive systems. The parameters that
are selected can only depend on the outcomes from the respective interactive system",
each system is DP by its filter, and concurrent composition covers the interleaving.

Implemented as two children of one concurrent compositor (H23-Def2.4): a
F(.; (epsilon, delta, delta''))-FiltCon(IM) with the zCDP ledger
:class:`~adaptive_dp.filters.zcdp.ZCDPFilter` (R23-Thm2), and an ex-post system
(:class:`ExPostSystem`) driven by the ex-post ledger
:class:`~adaptive_dp.filters.expost.ExPostFilter` (R23-Lem5.2), which admits an ex-post
mechanism on its worst case ``max_epsilon`` before it runs and charges its REALISED
E(y) after. A launch whose parameter is an :class:`~adaptive_dp.guarantees.expost.ExPost`
goes to the ex-post system, any other to the zCDP system; queries (j, q) address the
j-th launched mechanism overall. ``terminal=True`` is the paper's N = min(N_zCDP, N_post):
the first refusal of either ledger halts everything; ``terminal=False`` lets each ledger
refuse and continue on its own.

The conclusion is missing from the seed (proofs/R23-Thm3.md, provenance); :attr:`R23MixedFilter.
guarantee` is the reconstruction by concurrent composition of the two systems with basic
composition, (epsilon + epsilon', delta + delta'' + delta')-DP [D]. The restriction that
each system's parameters depend only on its own outcomes is the analyst's obligation.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Protocol

from adaptive_dp.errors import ParameterError
from adaptive_dp.filters.base import Decision, FilterState
from adaptive_dp.filters.expost import ExPostFilter
from adaptive_dp.filters.zcdp import ZCDPFilter
from adaptive_dp.guarantees.definitions import ApproxDP
from adaptive_dp.guarantees.expost import ExPost
from adaptive_dp.interactive.concurrent import ChildCall, Composite, Query
from adaptive_dp.interactive.filtered import HALTED, FiltCon
from adaptive_dp.interactive.mechanism import LAMBDA, Launch, Refusal, Transition

__all__ = ["ExPostMechanism", "ExPostSystem", "R23MixedFilter"]


class ExPostMechanism(Protocol):
    """A noninteractive ex-post private mechanism (R23-Def4.1): its launch answer is
    its output y; ``guarantee`` is ExPost(max E, delta, max E) and ``ex_post(y)`` the
    realised E(y) <= max E (a function of the released output)."""

    @property
    def guarantee(self) -> ExPost: ...

    def ex_post(self, output: object) -> Fraction: ...


@dataclass(frozen=True, slots=True)
class _EPState:
    x: object
    filter: FilterState


def _ex_post_declared(mechanism: object, parameter: object) -> bool:
    g = getattr(mechanism, "guarantee", None)
    return (
        isinstance(g, ExPost)
        and isinstance(parameter, ExPost)
        and g.max_epsilon <= parameter.max_epsilon
        and g.delta <= parameter.delta
    )


@dataclass(frozen=True, slots=True)
class ExPostSystem(Composite):
    """R23-Lem5.2's ledger as an interactive system (refuse-and-continue): a launch
    (M, ExPost(., delta, max E)) is admitted iff "spent + max E <= epsilon' and
    sum delta <= delta'"; M then runs on x and the ledger is charged E(y)."""

    rule: ExPostFilter

    def _outcomes(self, state: object, message: object, call: ChildCall) -> tuple[Transition, ...]:
        if message is LAMBDA:
            return ((Fraction(1), _EPState(state, self.rule.start()), LAMBDA),)
        if not isinstance(state, _EPState):
            raise TypeError("ExPostSystem: bad state")
        if not isinstance(message, Launch):
            return ((Fraction(1), state, Refusal.INVALID_QUERY),)
        if not _ex_post_declared(message.mechanism, message.parameter):
            return ((Fraction(1), state, Refusal.DIVERGENCE_CANNOT_BE_PARSED),)
        par = message.parameter
        assert isinstance(par, ExPost)
        worst = ExPost(par.max_epsilon, par.delta, par.max_epsilon)
        if state.filter.decide(worst) is not Decision.CONTINUE:
            return ((Fraction(1), state, Refusal.INSUFFICIENT_BUDGET),)
        mech = message.mechanism
        out: list[Transition] = []
        for p, _, y in call(mech, state.x, LAMBDA):
            realised = Fraction(mech.ex_post(y))  # type: ignore[attr-defined]  # ExPostMechanism, untyped message
            if realised > par.max_epsilon:
                raise ParameterError("ex_post(y)", realised, f"<= max_epsilon {par.max_epsilon}")
            decision, charged = state.filter.spend(ExPost(realised, par.delta, par.max_epsilon))
            assert decision is Decision.CONTINUE  # the decision uses the worst case only
            out.append((p, _EPState(state.x, charged), y))
        return tuple(out)


@dataclass(frozen=True, slots=True)
class _MixedState:
    zcdp: object
    expost: object
    index: tuple[tuple[int, int], ...]  # launch j -> (system 1 or 2, local index)


@dataclass(frozen=True, slots=True, init=False)
class R23MixedFilter(Composite):
    """R23-Thm3 / R23-Def5.1: the zCDP system (R23-Thm2 with (epsilon, delta, delta'')) and the
    ex-post system (R23-Lem5.2 with (epsilon', delta')) concurrently composed."""

    zcdp_rule: ZCDPFilter
    expost_rule: ExPostFilter
    terminal: bool

    def __init__(
        self, zcdp_rule: ZCDPFilter, expost_rule: ExPostFilter, *, terminal: bool = True
    ) -> None:
        """The two systems' rules: R23-Thm2's (its delta_budget is the paper's delta, its
        delta_slack delta'') and R23-Lem5.2's (epsilon', delta')."""
        for name, value in (
            ("zcdp_rule.delta_budget", zcdp_rule.delta_budget),
            ("expost_rule.delta", expost_rule.delta),
        ):
            if value <= 0:
                raise ParameterError(name, value, "> 0 (R23-Thm3: all five parameters > 0)")
        object.__setattr__(self, "zcdp_rule", zcdp_rule)
        object.__setattr__(self, "expost_rule", expost_rule)
        object.__setattr__(self, "terminal", terminal)

    @property
    def guarantee(self) -> ApproxDP:
        """(epsilon + epsilon', delta + delta'' + delta')-DP: the reconstruction [D]."""
        z, e = self.zcdp_rule, self.expost_rule
        return ApproxDP(z.epsilon + e.epsilon, z.delta + e.delta)

    def _systems(self) -> tuple[FiltCon, ExPostSystem]:
        return FiltCon(self.zcdp_rule, None, terminal=False), ExPostSystem(self.expost_rule)

    def _outcomes(self, state: object, message: object, call: ChildCall) -> tuple[Transition, ...]:
        zsys, esys = self._systems()
        if message is LAMBDA:
            out: list[Transition] = []
            for p, zs, _ in call(zsys, state, LAMBDA):
                for q, es, _ in call(esys, state, LAMBDA):
                    out.append((p * q, _MixedState(zs, es, ()), LAMBDA))
            return tuple(out)
        if state is HALTED:
            return ((Fraction(1), HALTED, Refusal.HALT),)
        if not isinstance(state, _MixedState):
            raise TypeError("R23MixedFilter: bad state")
        if isinstance(message, Launch):
            to_expost = isinstance(message.parameter, ExPost)
            system = esys if to_expost else zsys
            sub = state.expost if to_expost else state.zcdp
            local = sum(1 for w, _ in state.index if w == (2 if to_expost else 1)) + 1
            results: list[Transition] = []
            for p, s2, a in call(system, sub, message):
                if isinstance(a, Refusal):
                    if a is Refusal.INSUFFICIENT_BUDGET and self.terminal:
                        results.append((p, HALTED, a))
                    else:
                        results.append((p, state, a))
                    continue
                new = (
                    _MixedState(state.zcdp, s2, (*state.index, (2, local)))
                    if to_expost
                    else _MixedState(s2, state.expost, (*state.index, (1, local)))
                )
                results.append((p, new, a))
            return tuple(results)
        if (
            isinstance(message, Query)
            and isinstance(message.j, int)
            and 1 <= message.j <= len(state.index)
        ):
            which, local = state.index[message.j - 1]
            if which == 2:  # ex-post mechanisms are noninteractive
                return ((Fraction(1), state, Refusal.INVALID_QUERY),)
            return tuple(
                (p, _MixedState(s2, state.expost, state.index), a)
                for p, s2, a in call(zsys, state.zcdp, Query(local, message.q))
            )
        return ((Fraction(1), state, Refusal.INVALID_QUERY),)
