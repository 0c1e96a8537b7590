"""R23-Lem5.1, R23-Lem5.2 (ex-post filter) and the two ledgers of R23-Thm3."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adaptive_dp.errors import UnsupportedGuaranteeError
from adaptive_dp.filters.base import Decision
from adaptive_dp.filters.expost import ExPostFilter, basic_expost_composition, fast_expost_spend
from adaptive_dp.filters.zcdp import ZCDPFilter
from adaptive_dp.guarantees.definitions import ZCDP, ApproxDP, PureDP
from adaptive_dp.guarantees.expost import ExPost
from adaptive_dp.interchange import parse_line
from adaptive_dp.ledger import FastTally
from adaptive_dp.loss.laplace_process import lnr_release_loss
from adaptive_dp.mechanisms.gaussian import gaussian_logpdf, gaussian_sample
from adaptive_dp.mechanisms.laplace_process import LaplaceNoiseReduction
from adaptive_dp.numerics import round_down
from adaptive_dp.verify.judge.estimators import clopper_pearson


def test_r23_def4_1_expost_value_validation() -> None:
    """R23-Def4.1 (ExPost): an ex-post value with 0 <= epsilon <= max_epsilon and delta in [0,
    1)."""
    e = ExPost("0.35", 0, "0.5")
    assert e.epsilon == Fraction(35, 100) and e.max_epsilon == Fraction(1, 2)
    assert ExPost("0.2").max_epsilon == Fraction(1, 5)
    with pytest.raises(ValueError):
        ExPost("0.6", 0, "0.5")
    with pytest.raises(ValueError):
        ExPost("0.1", 1)


def test_r23_lem5_1_basic_composition_adds_exactly() -> None:
    out = basic_expost_composition([ExPost("0.1", "1e-7", "0.3"), ExPost("0.9", "2e-7")])
    assert out.epsilon == 1 and out.delta == Fraction(3, 10**7)
    assert out.max_epsilon == Fraction(12, 10)


def test_r23_lem5_2_exact_decimal_budget_is_exhausted_exactly() -> None:
    state = ExPostFilter("1").start()
    d, state = state.spend(ExPost("0.1", 0, "0.1"))
    assert d is Decision.CONTINUE
    d, state = state.spend(ExPost("0.9", 0, "0.9"))
    assert d is Decision.CONTINUE
    assert state.remaining() == 0.0
    # at spent = epsilon only a mechanism with max_epsilon 0 fits (the epsilon test of
    # the stopping rule "epsilon = sum E_i")
    assert state.decide(ExPost("0.000001")) is Decision.HALT
    assert state.decide(ExPost(0)) is Decision.CONTINUE
    # floats: 0.1 + 0.9 exceed 1 (exact binary values), the safe reading
    fs = ExPostFilter("1").start()
    _, fs = fs.spend(ExPost(0.1))
    assert fs.decide(ExPost(0.9)) is Decision.HALT


def test_r23_lem5_2_precheck_uses_the_worst_case_and_charges_the_realised_value() -> None:
    state = ExPostFilter("1").start()
    # realised 0.2 would fit, but the worst case 1.2 exceeds the budget: refused
    assert state.decide(ExPost("0.2", 0, "1.2")) is Decision.HALT
    d, state = state.spend(ExPost("0.2", 0, "1"))
    assert d is Decision.CONTINUE
    assert state.spent() == ApproxDP("0.2", 0)  # charged the realised E(y)
    assert state.max_next() == round_down(Fraction(4, 5))


def test_r23_lem5_2_delta_lookahead_strict() -> None:
    state = ExPostFilter("1", delta="1e-6").start()
    d, state = state.spend(ExPost("0.1", "4e-7"))
    assert d is Decision.CONTINUE
    assert state.decide(ExPost("0.1", "6e-7")) is Decision.CONTINUE  # equality continues
    assert state.decide(ExPost("0.1", "6.000001e-7")) is Decision.HALT


def test_r23_lem5_2_refuse_and_continue_and_terminal() -> None:
    state = ExPostFilter("1").start()
    d, same = state.spend(ExPost("0.1", 0, "2"))
    assert d is Decision.HALT and same == state
    d, _after = same.spend(ExPost("0.1", 0, "0.5"))
    assert d is Decision.CONTINUE
    term = ExPostFilter("1").start(terminal=True)
    d, term = term.spend(ExPost("0.1", 0, "2"))
    assert d is Decision.HALT
    assert term.spend(ExPost(0))[0] is Decision.HALT


def test_r23_lem5_2_kinds() -> None:
    state = ExPostFilter("1").start()
    assert state.decide(PureDP("0.5")) is Decision.CONTINUE
    assert (
        state.decide(parse_line('{"kind": "expost", "max_epsilon": 1, "epsilon": 0.3, "delta": 0}'))
        is Decision.CONTINUE
    )
    with pytest.raises(UnsupportedGuaranteeError):
        state.decide(ApproxDP("0.1", "1e-9"))


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 0.5), st.floats(0, 1)), min_size=1, max_size=12))
def test_r23_lem5_2_fast_path_never_admits_what_the_certified_path_refuses(
    spends: list[tuple[float, float]],
) -> None:
    rule = ExPostFilter("2")
    state = rule.start()
    fast = rule.fast(1)
    for top, frac in spends:
        eps = top * frac
        ok, fast = fast_expost_spend(fast, top, eps)
        d, state = state.spend(ExPost(eps, 0, top))
        if bool(ok[0]):
            assert d is Decision.CONTINUE
        elif d is Decision.CONTINUE:
            # refused by the fast path only: resynchronise by charging the same
            fast = type(fast)(
                rule,
                FastTally((np.array([float(state.sums[0])]), fast.sums[1], fast.sums[2])),
                fast.halted,
                fast.terminal,
                fast.invalid,
            )


def test_r23_lem5_2_chained_laplace_noise_reductions_never_exceed_the_budget() -> None:
    # delta = 0: every path's loss, computed from the densities of all releases, <= epsilon
    rng = np.random.default_rng(2024)
    paths, budget = 4000, Fraction(3)
    rule = ExPostFilter(budget)
    fast = rule.fast(paths)
    total = np.zeros(paths)
    spent = np.zeros(paths)
    for _ in range(8):
        room = float(budget) - spent
        top = np.minimum(room, 1.5)  # the grid's top level, within the remaining budget
        eps_grid = np.linspace(0.1, 1.0, 10)
        results = np.zeros(paths)
        realised = np.zeros(paths)
        # one LNR per path; levels scaled by top so E <= top
        for grp in np.unique(np.round(top, 12)):
            idx = np.flatnonzero(np.round(top, 12) == grp)
            if grp <= 0:
                continue
            mech = LaplaceNoiseReduction(1, tuple(1 / (eps_grid * grp)))

            def stop(ts: np.ndarray, v: np.ndarray) -> np.ndarray:
                # stop-at-worst: the adversary knows f(x) = 0, f(x') = 1
                out: np.ndarray = v[:, -1, 0] <= 0
                return out

            rel = mech.release([0.0], stop, rng, paths=idx.size)
            results[idx] = lnr_release_loss(mech, rel, [0.0], [1.0])
            realised[idx] = 1.0 / rel.t_stop
        ok, fast = fast_expost_spend(fast, top, realised)
        total += np.where(ok, results, 0.0)
        spent = fast.sums[0]
    assert np.all(total <= float(budget) * (1 + 1e-9))


def test_r23_thm3_two_ledgers_noninteractive() -> None:
    # zCDP rounds in an R23-Thm2 ledger (epsilon, delta, delta''), ex-post rounds in an
    # R23-Lem5.2 ledger (epsilon', delta'); the whole run is
    # (epsilon + epsilon', delta + delta' + delta'')-DP; with delta = delta' = 0 the tail
    # P[L > epsilon + epsilon'] <= delta'' is checked from the densities.
    rng = np.random.default_rng(77)
    eps, dpp, eps2 = 1.0, 0.05, 1.0
    zl = ZCDPFilter(eps, delta=dpp).start()
    xl = ExPostFilter(eps2).start()
    paths = 20_000
    loss = np.zeros(paths)
    rho = 0.01
    # noninteractive: the same sequence of requests on every path
    while True:
        d, zl2 = zl.spend(ZCDP(rho))
        if d is Decision.HALT:
            break
        zl = zl2
        sigma = 1 / np.sqrt(2 * rho)
        y = gaussian_sample(np.zeros(paths), sigma, rng)
        loss += gaussian_logpdf(y, 0.0, sigma) - gaussian_logpdf(y, 1.0, sigma)
        d, xl2 = xl.spend(PureDP("0.1"))
        if d is Decision.CONTINUE:
            xl = xl2
            y = rng.laplace(0, 10.0, paths)
            loss += (np.abs(y - 1) - np.abs(y)) / 10.0
    k = int(np.sum(loss > eps + eps2))
    _, upper = clopper_pearson(k, paths)
    assert k / paths <= dpp
    assert upper < 2 * dpp
