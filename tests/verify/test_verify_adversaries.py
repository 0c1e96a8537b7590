"""Adversary families: vectorised shape contracts, budgets, switching, data round trip."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from verify_strategies import any_adversary, budget_hugging

from adaptive_dp.interactive.adversary import GAUSSIAN, LAPLACE, RANDOMIZED_RESPONSE
from adaptive_dp.verify.judge.adversaries import (
    FAMILIES,
    BudgetHugging,
    Doubling,
    OutputThreshold,
    StopAtWorst,
    adversary_from_data,
    adversary_to_data,
)
from adaptive_dp.verify.judge.simulate import BatchView, simulate
from adaptive_dp.verify.registry.claims.ext import GENERATED


def _view(paths: int, step: int, rng: np.random.Generator) -> BatchView:
    return BatchView(step, paths, rng.normal(size=(paths, step)),
                     np.zeros((paths, step), dtype=np.int8), np.full((paths, step), 0.1),
                     rng.normal(size=paths), np.ones(paths, dtype=bool),
                     np.full(paths, 0.1 * step), np.full(paths, 0.01 * step))


@settings(max_examples=40)
@given(any_adversary(), st.integers(1, 40), st.integers(0, 12))
def test_choose_returns_one_entry_per_path(adversary: Any, paths: int, step: int) -> None:
    rng = np.random.default_rng(0)
    request = adversary.choose(_view(paths, step, rng), rng)
    assert request.kind.shape == request.param.shape == request.go.shape == (paths,)
    assert request.go.dtype == np.bool_
    assert set(np.unique(request.kind)) <= {LAPLACE, GAUSSIAN, RANDOMIZED_RESPONSE}
    assert np.all(np.isfinite(request.param)) and np.all(request.param >= 0)
    if step >= adversary.horizon:
        assert not request.go.any()


@settings(max_examples=25)
@given(any_adversary())
def test_simulation_respects_horizon_and_data_round_trip(adversary: Any) -> None:
    out = simulate(adversary, 64, np.random.default_rng(1), record=True)
    assert out.loss.shape == (64,) and np.all(np.isfinite(out.loss))
    assert np.all(out.releases <= adversary.horizon)
    assert adversary_from_data(adversary_to_data(adversary)) == adversary


@settings(max_examples=25)
@given(budget_hugging())
def test_budget_hugging_spends_the_budget_exactly(adversary: BudgetHugging) -> None:
    kinds = (GAUSSIAN,) if adversary.measure == "mu2" else adversary.kinds
    adversary = BudgetHugging(kinds, adversary.budget, adversary.steps, adversary.measure,
                              adversary.fraction_low, adversary.fraction_high,
                              adversary.pivot)
    out = simulate(adversary, 200, np.random.default_rng(2), record=True)
    assert out.params is not None
    spent = out.params if adversary.measure == "epsilon" else out.params**2
    np.testing.assert_allclose(spent.sum(axis=1), adversary.budget, rtol=1e-12)


def test_budget_hugging_is_adaptive() -> None:
    adversary = BudgetHugging((GAUSSIAN,), 2.0, 6, "mu2", 0.1, 0.6, 0.0)
    out = simulate(adversary, 500, np.random.default_rng(3), record=True)
    assert out.params is not None
    assert len(np.unique(np.round(out.params[:, 2], 12))) > 1  # depends on the outputs


def test_output_threshold_switches_after_crossing() -> None:
    adversary = OutputThreshold((RANDOMIZED_RESPONSE,), 1.0, LAPLACE, 0.5, 0.5, 4)
    out = simulate(adversary, 400, np.random.default_rng(4), record=True)
    assert out.outputs is not None and out.kinds is not None
    crossed = np.maximum.accumulate(out.outputs > 0.5, axis=1)
    assert np.all(out.kinds[:, 1:][crossed[:, :-1]] == LAPLACE)
    assert np.all(out.kinds[:, 1:][~crossed[:, :-1]] == RANDOMIZED_RESPONSE)


def test_doubling_schedule() -> None:
    out = simulate(Doubling((GAUSSIAN,), 0.125, 5, 2.0, 1.0), 3, np.random.default_rng(5),
                   record=True)
    assert out.params is not None
    np.testing.assert_array_equal(out.params[0], [0.125, 0.25, 0.5, 1.0, 1.0])


def test_stop_at_worst_stops_only_above_threshold() -> None:
    adversary = StopAtWorst((RANDOMIZED_RESPONSE,), 0.5, 10, 1.0)
    out = simulate(adversary, 2000, np.random.default_rng(6), record=True)
    stopped = out.releases < 10
    assert stopped.any()
    assert np.all(out.loss[stopped] > 1.0)


def test_generated_registry_data_rebuilds() -> None:
    for data in GENERATED.values():
        adversary = adversary_from_data(data)
        assert data["family"] == adversary.FAMILY
    with pytest.raises(ValueError, match="family"):
        adversary_from_data({"family": "nope"})
    assert set(FAMILIES) == {"constant", "budget-hugging", "output-threshold", "doubling",
                             "stop-at-worst", "random"}


def test_invalid_parameters_are_rejected() -> None:
    with pytest.raises(ValueError, match="steps"):
        StopAtWorst((0,), 0.1, 0, 1.0)
    with pytest.raises(ValueError, match="kinds"):
        StopAtWorst((5,), 0.1, 3, 1.0)
    with pytest.raises(ValueError, match="measure"):
        BudgetHugging((1,), 1.0, 3, "rho")
