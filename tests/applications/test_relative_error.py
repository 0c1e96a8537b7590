"""R23 section 7 (reconstructed): relative-error counts. R23-DoublingMethod (run_doubling,
with R23-Thm2) and R23-BrownianRelativeError (run_brownian, with R23-Thm6), the shared
R23-RelativeErrorStop (StoppingCondition), R23-RelativeError (within_relative_error) and
R23-ExperimentBudget (Settings: the stop at 2.705)."""

from __future__ import annotations

import dataclasses
import itertools
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adaptive_dp.applications.data import zipf_histograms
from adaptive_dp.applications.relative_error import (
    METHODS,
    Outcome,
    Settings,
    Step,
    StoppingCondition,
    certify_trial,
    run_brownian,
    run_doubling,
    run_method,
    within_relative_error,
)
from adaptive_dp.errors import InsufficientBudgetError, ParameterError
from adaptive_dp.guarantees.definitions import ZCDP, ApproxDP
from adaptive_dp.guarantees.spends import BrownianSpend


def _two_rho_star(epsilon: float, delta: float) -> mpmath.mpf:
    """Oracle: 2 rho*, rho* + 2 sqrt(rho* log(1/delta)) = epsilon, by mpmath root finding."""
    with mpmath.workdps(40):
        c = mpmath.log(1 / mpmath.mpf(delta))
        root = mpmath.findroot(lambda r: r + 2 * mpmath.sqrt(r * c) - epsilon, 0.5)
        return 2 * root


SETTINGS = Settings()
RNG_SEED = 20261122


@pytest.fixture(scope="module")
def outcomes() -> dict[str, Outcome]:
    rng = np.random.default_rng(RNG_SEED)
    h = zipf_histograms(100_000, 6, rng)
    return {m: run_method(m, h, SETTINGS, np.random.default_rng(RNG_SEED + i))
            for i, m in enumerate(METHODS)}


def test_budget_matches_the_surviving_2705_stop() -> None:
    """R23 7.2: "stop if [the sum of squared privacy parameters] is more than roughly
    2.705", epsilon = 10, delta = 1e-6: 2 rho* = 2.706 within 1e-3."""
    oracle = _two_rho_star(10, 1e-6)
    assert abs(oracle - mpmath.mpf("2.706")) < 1e-3
    room = SETTINGS.zcdp_filter().start().max_next(0)
    assert room is not None
    assert 2 * room <= oracle
    assert 2 * room == pytest.approx(float(oracle), rel=1e-12)


def test_stopping_condition_z_and_boundary() -> None:
    cond = StoppingCondition(0.01, 0.05)
    with mpmath.workdps(30):
        z = float(mpmath.sqrt(2) * mpmath.erfinv(1 - mpmath.mpf("0.05")))
    assert cond.z == pytest.approx(z, rel=1e-12)
    sigma = 10.0
    threshold = cond.z * sigma * 1.01 / 0.01
    assert cond(np.nextafter(threshold, np.inf) * 1.0000001, sigma)
    assert not cond(threshold * 0.999999, sigma)
    assert not cond(-threshold, sigma)
    assert cond.within(101.0, 100.0) and not cond.within(101.01, 100.0)
    assert within_relative_error(95.0, 100.0, 0.05)
    assert not within_relative_error(94.9, 100.0, 0.05)


def test_stopping_condition_controls_error_at_a_fixed_iterate() -> None:
    """On |noise| <= z sigma the released count is within alpha: by simulation, the error
    rate of released counts at one fixed iterate is at most the level (selection of one
    look only)."""
    cond = StoppingCondition(0.01, 0.05)
    rng = np.random.default_rng(5)
    truth = rng.uniform(1, 5_000, size=200_000)
    sigma = 10.0
    noisy = truth + sigma * rng.standard_normal(truth.size)
    released = cond(noisy, sigma)
    wrong = released & ~cond.within(noisy, truth)
    assert released.sum() > 10_000
    assert wrong.sum() / released.sum() <= 0.05


@pytest.mark.parametrize(("kwargs", "name"), [
    ({"alpha": 0}, "alpha"), ({"level": 1}, "level"), ({"grid_size": 1}, "grid_size"),
    ({"epsilon": -1}, "epsilon"), ({"delta": 0}, "delta"), ({"relation": "x"}, "relation"),
    ({"eps2_min": 0}, "eps2_min")])
def test_settings_reject(kwargs: dict[str, object], name: str) -> None:
    with pytest.raises(ParameterError, match=name):
        Settings(**kwargs)  # type: ignore[arg-type]


def test_defaults_are_the_recorded_reconstruction() -> None:
    s = Settings()
    assert (s.epsilon, s.delta) == (Fraction(10), Fraction(1, 10**6))
    assert (s.alpha, s.level, s.em_epsilon, s.eps2_min, s.grid_size, s.relation) == (
        0.01, 0.05, Fraction(1, 20), Fraction(1, 10**6), 1000, "add-remove")


@pytest.mark.parametrize("method", METHODS)
def test_every_transcript_passes_the_certified_filter(outcomes: dict[str, Outcome],
                                                      method: str) -> None:
    """R23-Thm2 / R23-Thm6: replayed through the certified path, every spend of every
    trial is admitted and the certified total stays within (10, 1e-6)."""
    out = outcomes[method]
    for trial in range(out.returned.shape[0]):
        state = certify_trial(out, SETTINGS, trial)
        spent = state.spent()
        assert isinstance(spent, ApproxDP)
        assert spent.epsilon <= 10
        assert spent.delta == Fraction(1, 10**6)
        assert state.count == len(out.spends(trial))


@pytest.mark.parametrize("method", METHODS)
def test_spending_stays_below_two_rho_star(outcomes: dict[str, Outcome], method: str) -> None:
    out = outcomes[method]
    oracle = float(_two_rho_star(10, 1e-6))
    assert np.all(out.eps2_spent <= oracle)
    # the budget is used up (the stop at about 2.705)
    assert np.all(out.eps2_spent >= 2.70)
    assert np.all(out.returned <= out.rounds)
    assert np.all((out.precision >= 0) & (out.precision <= 1))


def test_certified_replay_rejects_an_overspending_transcript(
        outcomes: dict[str, Outcome]) -> None:
    out = outcomes["doubling"]
    extra = Step("zcdp", np.full((out.returned.shape[0], 1), 0.01), np.ones(6, dtype=bool))
    tampered = dataclasses.replace(out, steps=(*out.steps, extra))
    with pytest.raises(InsufficientBudgetError):
        certify_trial(tampered, SETTINGS, 0)
    bm = outcomes["brownian"]
    first = Step("bm", np.tile([0.1, 0.1], (6, 1)), np.ones(6, dtype=bool))
    with pytest.raises(InsufficientBudgetError):
        certify_trial(dataclasses.replace(bm, steps=(first,)), SETTINGS, 0)


def test_doubling_squares_double_from_eps2_min(outcomes: dict[str, Outcome]) -> None:
    """R23 7.1: squared parameters eps_min^2, 2 eps_min^2, 4 eps_min^2, ... per count (rho
    = eps^2/2), the last one possibly capped at the largest admissible value."""
    out = outcomes["doubling"]
    em = float(Fraction(1, 3200))
    spends = [float(s.rho) for s in out.spends(0) if isinstance(s, ZCDP)]
    runs: list[list[float]] = []
    for rho in spends:
        if rho == pytest.approx(em, rel=1e-12):
            runs.append([])
        else:
            runs[-1].append(rho)
    assert len(runs) == out.rounds[0]
    for attempts in runs[:-2]:
        assert attempts[0] == pytest.approx(0.5e-6, rel=1e-9)
        for a, b in itertools.pairwise(attempts):
            assert b == pytest.approx(2 * a, rel=1e-9)
        # R23-DoublingMethod: sum_{i<=k} eps_i^2 < 2 eps_k^2 (< 4 eps*^2 for the ideal eps*)
        assert sum(attempts) < 2 * attempts[-1]


def test_brownian_grid_is_equally_spaced_in_eps2(outcomes: dict[str, Outcome]) -> None:
    """R23 7.2: the BM's time values are 1/eps^2 on 1000 equally spaced squared parameters
    from eps_min^2 to the largest admissible one (pre-check: whole remaining budget)."""
    out = outcomes["brownian"]
    two_rho = float(_two_rho_star(10, 1e-6))
    charged = 0.0
    for spend in out.spends(0):
        if isinstance(spend, ZCDP):
            charged += float(spend.rho)
            continue
        assert isinstance(spend, BrownianSpend)
        assert spend.sensitivity == 1
        eps2_max = 1 / float(spend.t_min)
        assert eps2_max == pytest.approx(two_rho - 2 * charged, rel=1e-7)
        eps2_stop = 1 / float(spend.t_stop)
        step = (eps2_max - 1e-6) / 999
        k = (eps2_stop - 1e-6) / step
        assert abs(k - round(k)) < 1e-6 * max(1.0, k)
        charged += 1 / (2 * float(spend.t_stop))


@pytest.mark.parametrize("runner", [run_doubling, run_brownian])
def test_nothing_returned_on_empty_data_precision_one(runner) -> None:  # type: ignore[no-untyped-def]
    """Both methods discard a count whose last iterate fails the condition: on all-zero
    counts nothing passes, nothing is returned, precision is 1 and the budget is spent."""
    out = runner(np.zeros((3, 300)), SETTINGS, np.random.default_rng(1))
    assert np.all(out.returned == 0)
    assert np.all(out.precision == 1.0)
    assert np.all(out.eps2_spent >= 2.70)
    for trial in range(3):
        certify_trial(out, SETTINGS, trial)


@pytest.mark.parametrize("method", METHODS)
def test_huge_counts_all_released(method: str) -> None:
    h = zipf_histograms(10**9, 2, np.random.default_rng(2))
    out = run_method(method, h, SETTINGS, np.random.default_rng(3))
    assert np.all(out.returned == 300) and np.all(out.rounds == 300)
    assert np.all(out.precision >= 0.9)


def test_brownian_returns_more_than_doubling_here(outcomes: dict[str, Outcome]) -> None:
    """The qualitative finding of R23 section 7 on these settings (not a guarantee)."""
    assert outcomes["brownian"].returned.mean() > outcomes["doubling"].returned.mean()


def test_unknown_method_and_bad_histograms() -> None:
    with pytest.raises(ParameterError):
        run_method("tripling", np.ones((1, 3)), SETTINGS, np.random.default_rng(0))
    with pytest.raises(ParameterError):
        run_doubling(np.ones(3), SETTINGS, np.random.default_rng(0))
    with pytest.raises(ParameterError):
        run_brownian(-np.ones((1, 3)), SETTINGS, np.random.default_rng(0))


@settings(max_examples=60)
@given(truth=st.floats(0, 1e7), sigma=st.floats(1e-3, 1e4), u=st.floats(-1, 1),
       alpha=st.sampled_from([0.01, 0.05, 0.2]))
def test_condition_implies_relative_error_on_the_good_event(
        truth: float, sigma: float, u: float, alpha: float) -> None:
    """Law: released and |noise| <= z sigma  =>  |y_hat - y| <= alpha y (up to rounding)."""
    cond = StoppingCondition(alpha, 0.05)
    noisy = truth + u * cond.z * sigma
    if bool(cond(noisy, sigma)):
        assert abs(noisy - truth) <= alpha * truth * (1 + 1e-9) + 1e-9
