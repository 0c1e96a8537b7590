"""Hypothesis-generated adversaries interleaving launches and queries across several
children (issue 8, "Must show"):

* F(.; d)-FiltCon(IM) (H23-Def2.7 / Alg 3, terminal reading of A6): no child answer is
  released after the continuation rule said halt;
* refuse-and-continue: a refused launch releases nothing and charges nothing; every
  admitted prefix of parameters is admitted by the rule (never overspends);
* G-OdomCon(IM) (H23-Def2.13 / Alg 6): ``privacy_loss`` equals, hence is never below,
  the accumulator of the launched parameters, recomputed independently here from the
  transcript, and it never decreases.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from adaptive_dp.filters.basic import PureDPFilter
from adaptive_dp.filters.w23 import W23Filter
from adaptive_dp.guarantees.definitions import ApproxDP, PureDP
from adaptive_dp.guarantees.spends import Spend
from adaptive_dp.interactive.concurrent import Query
from adaptive_dp.interactive.filtered import FiltCon
from adaptive_dp.interactive.interaction import ScriptedAdversary, interact
from adaptive_dp.interactive.mechanism import (
    PRIVACY_LOSS,
    STARTED,
    Launch,
    RandomizedResponseIM,
    Refusal,
)
from adaptive_dp.interactive.odometer import LossReport, OdomCon
from adaptive_dp.odometers.accumulators import ApproxDPAccumulator, BasicAccumulator

CHILD = RandomizedResponseIM("0.55", 4)  # 4 answers of ln(11/9) ~ 0.2007 each
EPS = st.sampled_from(["0.81", "0.9", "1.25", "2", "0.805"])

REQUESTS = st.lists(
    st.one_of(
        EPS.map(lambda e: ("launch", e)),
        st.tuples(st.just("query"), st.integers(1, 6), st.integers(0, 2)),
        st.just(("loss",)),
    ),
    min_size=1,
    max_size=25,
)


def _to_message(token: tuple[object, ...], delta: str = "0") -> object:
    if token[0] == "launch":
        eps = str(token[1])
        par: Spend = PureDP(eps) if delta == "0" else ApproxDP(eps, delta)
        return Launch(CHILD, par)
    if token[0] == "query":
        return Query(int(token[1]), int(token[2]))  # type: ignore[call-overload]
    return PRIVACY_LOSS


def _pairs(adv: ScriptedAdversary, messages: tuple[object, ...]) -> list[tuple[object, object]]:
    """(request, answer) pairs: answer i + 1 answers request i."""
    return list(zip(adv.script, messages[1:], strict=False))


@settings(max_examples=60)
@given(REQUESTS, st.sampled_from(["2", "3.3", "5"]), st.integers(0, 2**20))
def test_terminal_filter_releases_nothing_after_halt(
    tokens: list[tuple[object, ...]], budget: str, seed: int
) -> None:
    rule = PureDPFilter(budget)
    adv = ScriptedAdversary(tuple(_to_message(t) for t in tokens))
    view = interact(adv, FiltCon(rule), (0, 1, 1), np.random.default_rng(seed))
    halted = False
    spent = Fraction(0)
    for request, answer in _pairs(adv, view.messages):
        if halted:
            # only the dummy halt message (A6, terminal reading) may follow
            assert answer is Refusal.HALT, f"released {answer!r} after halt"
            break
        if isinstance(request, Launch):
            assert isinstance(request.parameter, (PureDP, ApproxDP))
            eps = request.parameter.epsilon
            fits = spent + eps <= Fraction(budget)
            assert (answer == STARTED) == fits
            if fits:
                spent += eps
            else:
                assert answer is Refusal.INSUFFICIENT_BUDGET
                halted = True
    if halted:
        assert view.messages[-1] in (Refusal.INSUFFICIENT_BUDGET, Refusal.HALT)


@settings(max_examples=60)
@given(REQUESTS, st.integers(0, 2**20))
def test_refuse_and_continue_never_overspends(tokens: list[tuple[object, ...]],
                                              seed: int) -> None:
    """W23 filter (H23-ThmB.3, lifted by H23-Cor3.5), refuse-and-continue: the
    admitted parameters always satisfy the rule; a refused launch releases nothing (the
    next query index j of a refused launch is invalid)."""
    rule = W23Filter("2", delta="0.010001", delta_slack="1e-6")
    adv = ScriptedAdversary(tuple(_to_message(t, "0.001") for t in tokens))
    view = interact(adv, FiltCon(rule, terminal=False), (0, 1, 1), np.random.default_rng(seed))
    state = rule.start()
    launched = 0
    for request, answer in _pairs(adv, view.messages):
        if isinstance(request, Launch):
            decision, after = state.spend(request.parameter)
            assert (answer == STARTED) == bool(decision)
            if decision:
                state = after
                launched += 1
        elif isinstance(request, Query):
            if request.j > launched:
                assert answer is Refusal.INVALID_QUERY
            else:
                assert answer in (0, 1, Refusal.EXHAUSTED)
        else:
            assert answer is Refusal.INVALID_QUERY
    assert state.count == launched


@settings(max_examples=60)
@given(REQUESTS, st.integers(0, 2**20), st.booleans())
def test_odometer_privacy_loss_equals_accumulator(tokens: list[tuple[object, ...]],
                                                  seed: int, w23: bool) -> None:
    acc = ApproxDPAccumulator(delta="0.5", delta_slack="1e-6") if w23 else BasicAccumulator()
    adv = ScriptedAdversary(tuple(_to_message(t, "0.001") for t in tokens))
    view = interact(adv, OdomCon(acc), (1, 0, 1), np.random.default_rng(seed))
    launched: list[Spend] = []
    last_eps = -1.0
    for request, answer in _pairs(adv, view.messages):
        if isinstance(request, Launch):
            assert answer == STARTED  # an odometer never refuses for budget
            launched.append(request.parameter)
        elif request is PRIVACY_LOSS:
            assert isinstance(answer, LossReport)
            independent = acc.start()
            for d in launched:
                independent = independent.add(d)
            assert answer.reading() == independent.reading()
            reading = answer.reading()
            eps = float(reading.epsilon) if isinstance(reading, ApproxDP) else float("inf")
            # never below the launched parameters' basic sum when that is the accumulator
            if not w23:
                pure = [d.epsilon for d in launched if isinstance(d, (PureDP, ApproxDP))]
                assert len(pure) == len(launched)
                assert eps >= float(sum(pure, Fraction(0)))
            assert eps >= last_eps
            last_eps = eps
