"""The hooks ``certify`` reads (docs/design.md, transcripts): ``FilterState.check`` is
``decide`` with the undecided case told apart, ``spent_ball``/``remaining_ball`` enclose
what ``spent()``/``remaining()`` round, and ``charged``/``refused`` follow a recorded
decision. Every named rule, on a spend sequence that reaches its budget."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from adaptive_dp.filters.base import Decision
from adaptive_dp.filters.named import RULES, build_rule
from adaptive_dp.guarantees.definitions import GDP, ZCDP
from adaptive_dp.interchange import parse_line
from adaptive_dp.numerics import exact_lower, exact_upper

PARAMS = {"epsilon": "1", "delta": "1e-6", "rho": "0.5", "alpha": "4", "mu": "1"}
SPENDS = {
    "zcdp-sum": '{"kind": "zcdp", "rho": "0.07"}',
    "rdp": '{"kind": "rdp", "alpha": 4, "epsilon": "0.15"}',
    "gdp": '{"kind": "gdp", "mu": "0.3"}',
    "zcdp": '{"kind": "zcdp", "rho": "0.01"}',
    "unified": '{"kind": "zcdp", "rho": "0.01"}',
    "brownian": '{"kind": "bm", "sensitivity": 1, "t_min": 40, "t_stop": 50}',
    "rruv16": '{"kind": "pure", "epsilon": "0.03"}',
    "expost": '{"kind": "expost", "max_epsilon": "0.2", "epsilon": "0.15", "delta": 0}',
}


@pytest.mark.parametrize("name", sorted(RULES))
def test_hooks_agree_with_the_rule(name: str) -> None:
    named = RULES[name]
    rule = build_rule(name, {k: PARAMS[k] for k in named.required})
    spend = parse_line(SPENDS.get(name, '{"kind": "pure", "epsilon": "0.15"}'))
    state, refused = rule.start(), 0
    for _ in range(40):
        checked = state.check(spend)
        assert (checked or Decision.HALT) is state.decide(spend)
        if checked is Decision.CONTINUE:
            state = state.charged(spend)
        else:
            refused += 1
            assert state.refused() is state  # refuse-and-continue: unchanged
        spent = state.spent()
        primary = spent.rho if isinstance(spent, ZCDP) else (
            spent.mu if isinstance(spent, GDP) else spent.epsilon)  # type: ignore[union-attr]
        ball = state.spent_ball()
        if ball is not None:  # spent() is the upper end rounded up
            upper = exact_upper(ball)
            assert upper <= primary <= Fraction(math.nextafter(float(upper), math.inf))
        remaining = state.remaining_ball()
        if remaining is not None:  # remaining() is the lower end rounded down
            lower = exact_lower(remaining)
            assert Fraction(math.nextafter(float(lower), -math.inf)) <= Fraction(
                state.remaining()) <= lower
    assert refused > 0 and state.count > 0


def test_terminal_refusal_halts_forever() -> None:
    rule = build_rule("basic", {"epsilon": "1"})
    state = rule.start(terminal=True).refused()
    assert state.halted and state.check(parse_line('{"kind": "pure", "epsilon": "0"}')) is (
        Decision.HALT)
