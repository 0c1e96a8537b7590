"""H23-ThmB.3 (W23 (epsilon, delta) filter; aliases H23-Thm3.7, W23-Filter) and the
equivalence with R23-Thm2 under rho_m = epsilon_m^2 / 2. Oracles: mpmath at 50 digits."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import mpmath
import pytest
from hypothesis import given
from hypothesis import strategies as st

from adaptive_dp.errors import DeltaRangeError, NegativeParameterError, UnsupportedGuaranteeError
from adaptive_dp.filters.base import Decision
from adaptive_dp.filters.w23 import W23Filter
from adaptive_dp.filters.zcdp import ZCDPFilter
from adaptive_dp.guarantees.definitions import ZCDP, ApproxDP, ProbabilisticDP, PureDP
from adaptive_dp.guarantees.spends import Spend
from adaptive_dp.odometers.accumulators import ApproxDPAccumulator

mpmath.mp.dps = 50


def f_mp(v: object, delta_prime: str) -> mpmath.mpf:
    x = mpmath.mpf(str(v)) if not isinstance(v, mpmath.mpf) else v
    return mpmath.sqrt(2 * mpmath.log(1 / mpmath.mpf(delta_prime)) * x) + x / 2


def run(rule: W23Filter | ZCDPFilter, spends: Sequence[Spend]) -> list[Decision]:
    state = rule.start()
    out = []
    for s in spends:
        d, state = state.spend(s)
        out.append(d)
    return out


def test_hand_values_issue_6() -> None:
    """epsilon_m = 0.1, delta' = 1e-6, budget 1: third admitted at 0.925456..., fourth
    halted at 1.071304..."""
    assert abs(f_mp("0.03", "1e-6") - mpmath.mpf("0.925456")) < 1e-6
    assert abs(f_mp("0.04", "1e-6") - mpmath.mpf("1.071304")) < 1e-6
    state = W23Filter(1, delta="1e-6").start()
    for _ in range(3):
        d, state = state.spend(PureDP("0.1"))
        assert d is Decision.CONTINUE
    spent = state.spent()
    assert isinstance(spent, ApproxDP)
    assert spent.epsilon >= Fraction(str(mpmath.nstr(f_mp("0.03", "1e-6"), 30)))
    assert abs(float(spent.epsilon) - 0.9254562776310878) < 1e-15
    assert state.decide(PureDP("0.1")) is Decision.HALT
    d, after = state.spend(PureDP("0.1"))
    assert d is Decision.HALT and after is state  # refuse-and-continue: nothing charged
    assert state.count == 3


@pytest.mark.parametrize(
    ("eps_m", "budget", "delta_prime", "expected"),
    [("0.01", 1, "1e-6", 349), ("0.01", 1, "1e-5", 416), ("0.1", 10, "1e-6", 270)],
)
def test_counts_match_closed_form(eps_m: str, budget: int, delta_prime: str, expected: int) -> None:
    # Oracle: the largest n with f(n eps_m^2) <= budget, by mpmath.
    n = 0
    while f_mp(mpmath.mpf(n + 1) * mpmath.mpf(eps_m) ** 2, delta_prime) <= budget:
        n += 1
    assert n == expected
    decisions = run(W23Filter(budget, delta=delta_prime), [PureDP(eps_m)] * (expected + 5))
    assert decisions.count(Decision.CONTINUE) == expected
    assert decisions[expected] is Decision.HALT


def test_delta_budget_non_strict_at_equality() -> None:
    rule = W23Filter(10, delta="3e-6", delta_slack="1e-6")
    spends = [ApproxDP("0.01", "1e-6")] * 3
    assert run(rule, spends) == [Decision.CONTINUE, Decision.CONTINUE, Decision.HALT]
    # the delta test is independent of epsilon: a zero-epsilon spend still needs delta room
    state = rule.start()
    _, state = state.spend(ProbabilisticDP(0, "2e-6"))
    assert state.decide(ApproxDP(0, "1e-12")) is Decision.HALT
    assert state.decide(PureDP(0)) is Decision.CONTINUE


def test_terminal_mode_halts_forever() -> None:
    state = W23Filter(1, delta="1e-6").start(terminal=True)
    d, state = state.spend(PureDP(2))
    assert d is Decision.HALT and state.halted
    assert state.decide(PureDP(0)) is Decision.HALT
    assert state.max_next() is None


def test_max_next_is_admitted_and_tight() -> None:
    state = W23Filter(1, delta="1e-6").start()
    for _ in range(2):
        _, state = state.spend(PureDP("0.1"))
    x = state.max_next()
    assert x is not None
    assert state.decide(PureDP(x)) is Decision.CONTINUE
    assert state.decide(PureDP(x * (1 + 1e-12))) is Decision.HALT
    # independent: largest x with f(0.02 + x^2) = 1
    root = mpmath.findroot(lambda t: f_mp(mpmath.mpf("0.02") + t**2, "1e-6") - 1, 0.1)
    assert abs(x - float(root)) < 1e-12
    assert state.max_next(next_delta="1e-9") is None  # delta'' = 0


def test_validation() -> None:
    with pytest.raises(DeltaRangeError):
        W23Filter(1, delta=0)
    with pytest.raises(NegativeParameterError):
        W23Filter(0, delta="1e-6")
    with pytest.raises(UnsupportedGuaranteeError):
        W23Filter(1, delta="1e-6").start().decide(ZCDP(1))


def test_printed_h23_thm37_hook_is_private_and_reversible() -> None:
    """The refuted printed form (H23-Thm3.7-Printed) continues only when the bound
    exceeds the budget; a twin overrides ``_epsilon_ok`` of the filter's accumulator.
    Nothing public exposes it."""
    assert "_epsilon_ok" in ApproxDPAccumulator.__dict__
    assert W23Filter.ACCUMULATOR is ApproxDPAccumulator
    assert not any("printed" in name.lower() for name in dir(W23Filter) if not name.startswith("_"))


eps_text = st.decimals(min_value="0", max_value="0.5", places=3).map(str)


@given(st.lists(eps_text, min_size=1, max_size=25))
def test_equivalent_to_r23_thm2_with_rho_eps_sq_over_2(spends: list[str]) -> None:
    """W23 filter == R23-Thm2 with rho_m = epsilon_m^2 / 2 and delta' = delta''."""
    w = run(W23Filter(2, delta="1e-5"), [PureDP(e) for e in spends])
    z = run(
        ZCDPFilter(2, delta="1e-5"),
        [ZCDP(Fraction(s) ** 2 / 2) for s in spends],
    )
    assert w == z


def test_printed_form_twin_via_hook() -> None:
    """H23-Thm3.7-Printed continues only when the bound is >= epsilon: overriding the
    private hook reproduces it (the harness registers it as a refuted twin)."""
    from adaptive_dp.numerics import exact_lower

    class PrintedAccumulator(ApproxDPAccumulator):
        def _epsilon_ok(self, v: Fraction, epsilon: Fraction) -> bool:
            return exact_lower(self.bound.ball(v)) >= epsilon

    class Printed(W23Filter):
        ACCUMULATOR = PrintedAccumulator

    printed = Printed(1, delta="1e-6").start()
    assert printed.decide(PureDP("0.1")) is Decision.HALT  # 0.53 < 1: printed halts
    assert printed.decide(PureDP(2)) is Decision.CONTINUE  # above budget: printed continues


def test_enclosure_straddling_the_budget_halts() -> None:
    """Principle 6: admit only if the certified upper bound is <= the budget; a budget
    inside the enclosure halts, one at its upper end is admitted."""
    from adaptive_dp.guarantees.bounds import W23Bound
    from adaptive_dp.numerics import exact_lower, exact_upper

    ball = W23Bound(Fraction(1, 10**6)).ball(Fraction(3, 100))
    lo, hi = exact_lower(ball), exact_upper(ball)
    assert lo < hi
    spends = [PureDP("0.1")] * 3
    assert run(W23Filter(hi, delta="1e-6"), spends)[-1] is Decision.CONTINUE
    assert run(W23Filter((lo + hi) / 2, delta="1e-6"), spends)[-1] is Decision.HALT
    assert run(W23Filter(lo, delta="1e-6"), spends)[-1] is Decision.HALT
