"""Simulator: losses from densities equal the closed forms on non-adaptive cases; the
batch rule protocol; vectorisation (one adversary call per step, not per path)."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from fractions import Fraction
from typing import cast

import numpy as np
import pytest
from numpy.typing import NDArray
from scipy import stats

from adaptive_dp.interactive.adversary import (
    GAUSSIAN,
    LAPLACE,
    RANDOMIZED_RESPONSE,
    AdversaryView,
)
from adaptive_dp.loss import laplace_composed_tail, privacy_loss, rr_composed_pld
from adaptive_dp.mechanisms import GaussianMechanism, LaplaceMechanism, RandomizedResponse
from adaptive_dp.verify.judge.adversaries import BudgetHugging, Constant, StopAtWorst
from adaptive_dp.verify.judge.claim import AdversaryExperiment, Setup
from adaptive_dp.verify.judge.estimators import Quantity, clopper_pearson
from adaptive_dp.verify.judge.runner import evaluate
from adaptive_dp.verify.judge.simulate import (
    FastRule,
    GroupedRule,
    Request,
    release_losses,
    simulate,
)
from adaptive_dp.verify.judge.verdicts import Verdict


@pytest.mark.parametrize("under", ["x", "x'"])
def test_gaussian_composition_loss_is_normal(under: str) -> None:
    mu, k, n = 0.5, 8, 40_000
    out = simulate(Constant((GAUSSIAN,), mu, k), n, np.random.default_rng(21), under=under)
    # closed form: L ~ N(k mu^2 / 2, k mu^2) in both orders
    result = stats.kstest(out.loss, stats.norm(k * mu**2 / 2, np.sqrt(k) * mu).cdf)
    assert result.pvalue > 1e-4
    assert np.all(out.releases == k)


def test_laplace_composition_tail_matches_exact_oracle() -> None:
    eps, k, n, t = 0.5, 4, 50_000, 0.77  # off the lattice of atoms (sums of +-eps)
    out = simulate(Constant((LAPLACE,), eps, k), n, np.random.default_rng(22))
    hits = int(np.count_nonzero(out.loss > t))
    lower, upper = clopper_pearson(hits, n)
    assert lower <= laplace_composed_tail(eps, k, t) <= upper


@pytest.mark.parametrize("under", ["x", "x'"])
def test_randomized_response_loss_is_on_the_binomial_lattice(under: str) -> None:
    eps, k, n = 0.7, 5, 50_000
    out = simulate(Constant((RANDOMIZED_RESPONSE,), eps, k), n, np.random.default_rng(23),
                   under=under)
    j = (out.loss / eps + k) / 2
    np.testing.assert_allclose(j, np.round(j), atol=1e-9)
    pld = rr_composed_pld(eps, k)
    for threshold in (-eps * 3.5, -0.1, eps * 1.5):
        hits = int(np.count_nonzero(out.loss > threshold))
        lower, upper = clopper_pearson(hits, n)
        assert lower <= pld.tail(threshold) <= upper


@pytest.mark.parametrize(
    ("kind", "mechanism"),
    [(LAPLACE, LaplaceMechanism.from_epsilon(1, Fraction(1, 2))),
     (GAUSSIAN, GaussianMechanism(1, 2)),
     (RANDOMIZED_RESPONSE, RandomizedResponse(Fraction(1, 2)))],
)
def test_release_losses_equal_the_loss_oracle(kind: int, mechanism: object) -> None:
    rng = np.random.default_rng(24)
    y = rng.integers(0, 2, 100).astype(float) if kind == RANDOMIZED_RESPONSE else rng.normal(
        size=100) * 3
    param = np.full(100, 0.5)
    expected = privacy_loss(mechanism, y, 0, 1)  # type: ignore[arg-type]
    np.testing.assert_allclose(release_losses(kind, y, param), expected, rtol=1e-12,
                               atol=1e-12)


def test_orders_are_mirror_images_for_randomized_response() -> None:
    adversary = Constant((RANDOMIZED_RESPONSE,), 1.0, 3)
    a = simulate(adversary, 30_000, np.random.default_rng(25), under="x").loss
    b = simulate(adversary, 30_000, np.random.default_rng(26), under="x'").loss
    assert abs(a.mean() - b.mean()) < 0.05  # symmetric mechanism: same law in both orders


def test_recorded_paths_and_stop() -> None:
    adversary = StopAtWorst((GAUSSIAN,), 0.5, 6, 0.8)
    out = simulate(adversary, 500, np.random.default_rng(27), record=True)
    assert out.loss_path is not None and out.outputs is not None
    np.testing.assert_allclose(out.loss_path[:, -1], out.loss)
    released = np.isfinite(out.outputs).sum(axis=1)
    np.testing.assert_array_equal(released, out.releases)


@dataclass
class _Counting:
    inner: Constant
    calls: int = 0

    @property
    def horizon(self) -> int:
        return self.inner.horizon

    def choose(self, view: AdversaryView, rng: np.random.Generator) -> Request:
        self.calls += 1
        return self.inner.choose(view, rng)


def test_one_adversary_call_per_step_for_the_whole_batch() -> None:
    adversary = _Counting(Constant((GAUSSIAN,), 0.3, 7))
    simulate(adversary, 10_000, np.random.default_rng(28))
    assert adversary.calls == 7


def _as_float(state: Hashable) -> float:
    return float(cast(float, state))


def _budget_step(state: Hashable, kind: int, param: float) -> tuple[bool, Hashable]:
    spent = _as_float(state)
    if spent + param <= 1.0:
        return True, spent + param
    return False, spent


def test_grouped_rule_refuses_and_continues() -> None:
    # requests of 0.4 each under a budget of 1: the third is refused, nothing is charged
    rule = GroupedRule(0.0, _budget_step, bound=_as_float)
    out = simulate(Constant((RANDOMIZED_RESPONSE,), 0.4, 4), 1000, np.random.default_rng(29),
                   rule=rule, record=True)
    assert np.all(out.releases == 2)
    assert out.outputs is not None and out.bound_path is not None
    assert np.all(np.isnan(out.outputs[:, 2:]))
    np.testing.assert_allclose(out.bound_path[:, -1], 0.8)
    assert np.all(np.abs(out.loss) <= 0.8 + 1e-12)


def test_grouped_rule_groups_by_prefix() -> None:
    calls: list[float] = []

    def step(state: Hashable, kind: int, param: float) -> tuple[bool, Hashable]:
        calls.append(param)
        return _budget_step(state, kind, param)

    rng = np.random.default_rng(30)
    ledger = GroupedRule(0.0, step).start(1000)
    params = rng.choice([0.25, 0.5], size=1000)
    for _ in range(3):
        ledger.admit(np.zeros(1000, dtype=np.int8), params, np.ones(1000, dtype=bool))
    assert len(calls) <= 2 + 2 + 2  # one call per distinct (prefix, request), not per path


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="under"):
        simulate(Constant((GAUSSIAN,), 1.0, 1), 10, np.random.default_rng(0), under="y")
    with pytest.raises(ValueError, match="paths"):
        simulate(Constant((GAUSSIAN,), 1.0, 1), 0, np.random.default_rng(0))


def _mu(kind: NDArray[np.int8], param: NDArray[np.float64]) -> NDArray[np.float64]:
    return param  # Gaussian requests carry mu, the GDP filter's primary parameter


def test_fast_rule_adapts_a_real_filter() -> None:
    # EXT-ST22's GDP filter through its vectorised fast path: an adversary asking for
    # more than the budget is cut at sum mu_i^2 <= mu^2; the loss stays within mu-GDP
    from adaptive_dp.filters.gdp import GDPFilter
    from adaptive_dp.guarantees.definitions import GDP
    from adaptive_dp.guarantees.gdp import gdp_delta

    rule = FastRule(GDPFilter(Fraction(3, 2)), _mu)
    adversary = BudgetHugging((GAUSSIAN,), 4.0, 10, "mu2", 0.2, 0.6, 0.0)
    out = simulate(adversary, 4000, np.random.default_rng(31), rule=rule, record=True)
    assert out.params is not None
    assert np.all((out.params**2).sum(axis=1) <= 2.25 * (1 + 1e-12))
    assert np.any(out.releases < 10)  # some requests were refused
    eps = 2.0
    claimed = gdp_delta(GDP(Fraction(3, 2)), eps)
    setup = Setup(Quantity.HOCKEY_STICK, eps, claimed,
                  AdversaryExperiment(adversary, rule), 3000)
    assert evaluate(setup, 0, "fast-rule").verdict is Verdict.HOLDS
