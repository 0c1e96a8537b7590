"""Estimators: exactness against scipy's binomial, coverage, monotonicity, the power rule."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import binom

from adaptive_dp.loss import gaussian_hockey_stick
from adaptive_dp.verify.judge.estimators import (
    LEVEL,
    Quantity,
    bernstein_bounds,
    clopper_pearson,
    detectable_ratio,
    estimate_crossing,
    estimate_hockey_stick,
    estimate_max_loss,
    estimate_tail,
    estimate_truncated_mean,
    hockey_stick_terms,
    lower_bound_if_observed,
    required_samples,
)


@pytest.mark.parametrize(("k", "n"), [(1, 10), (5, 100), (50, 1000), (999, 1000)])
def test_clopper_pearson_matches_binomial_tails(k: int, n: int) -> None:
    lower, upper = clopper_pearson(k, n)
    # the exact definitions: P[Bin(n, lower) >= k] = LEVEL and P[Bin(n, upper) <= k] = LEVEL
    assert binom.sf(k - 1, n, lower) == pytest.approx(LEVEL, rel=1e-6)
    assert binom.cdf(k, n, upper) == pytest.approx(LEVEL, rel=1e-6)


def test_clopper_pearson_edges() -> None:
    assert clopper_pearson(0, 50)[0] == 0.0
    assert clopper_pearson(50, 50)[1] == 1.0
    with pytest.raises(ValueError):
        clopper_pearson(3, 2)


def test_tail_coverage_on_bernoulli() -> None:
    rng = np.random.default_rng(11)
    p, n, reps = 0.05, 400, 3000
    counts = rng.binomial(n, p, size=reps)
    lowers = np.array([clopper_pearson(int(k), n)[0] for k in counts])
    uppers = np.array([clopper_pearson(int(k), n)[1] for k in counts])
    assert np.all(lowers <= p) and np.all(uppers >= p)


def test_bernstein_coverage_on_beta() -> None:
    rng = np.random.default_rng(12)
    a, b, n, reps = 0.5, 5.0, 300, 2000
    mean = a / (a + b)
    samples = rng.beta(a, b, size=(reps, n))
    means, variances = samples.mean(axis=1), samples.var(axis=1, ddof=1)
    bounds = np.array([bernstein_bounds(m, v, n) for m, v in zip(means, variances, strict=True)])
    assert np.all(bounds[:, 0] <= mean) and np.all(bounds[:, 1] >= mean)


def test_bernstein_is_the_maurer_pontil_form() -> None:
    n, m, v = 1000, 0.2, 0.05
    log_term = math.log(2 / LEVEL)
    width = math.sqrt(2 * v * log_term / n) + 7 * log_term / (3 * (n - 1))
    assert bernstein_bounds(m, v, n) == pytest.approx((m - width, m + width))


@settings(max_examples=30)
@given(st.integers(20, 5000), st.floats(0.0, 0.9), st.floats(0.001, 0.09))
def test_lower_bounds_are_monotone(n: int, value: float, step: float) -> None:
    for q in (Quantity.TAIL, Quantity.HOCKEY_STICK, Quantity.EVALUE):
        assert lower_bound_if_observed(q, value, n) <= lower_bound_if_observed(
            q, value + step, n)
        assert lower_bound_if_observed(q, value, n) <= lower_bound_if_observed(
            q, value, 4 * n) + 1e-12


@pytest.mark.parametrize("quantity", [Quantity.TAIL, Quantity.HOCKEY_STICK, Quantity.EVALUE])
@pytest.mark.parametrize(("delta", "ratio"), [(0.02, 2.0), (0.05, 2.0), (0.2, 2.0), (0.05, 1.25)])
def test_required_samples_is_the_smallest_n_meeting_the_target(
        quantity: Quantity, delta: float, ratio: float) -> None:
    claimed, ratio = (1.0, 1.1) if quantity is Quantity.EVALUE else (delta, ratio)
    n = required_samples(quantity, claimed, ratio)
    assert detectable_ratio(quantity, claimed, n) <= ratio
    assert detectable_ratio(quantity, claimed, n - 1) > ratio
    margin = required_samples(quantity, claimed, ratio, margin=1.5)
    assert margin >= 1.5 * n and detectable_ratio(quantity, claimed, margin) <= ratio


def test_sample_sizes_near_design_figures() -> None:
    # docs/design.md: at delta = 0.05 about 1,050 paths for a tail and 3,300 for a
    # hockey-stick at ratio 2; 13 and 8.4 times as many at ratio 1.25
    tail, hockey = (required_samples(q, 0.05, 2.0) for q in (Quantity.TAIL, Quantity.HOCKEY_STICK))
    assert 950 <= tail <= 1150 and 3000 <= hockey <= 3600
    assert 12.5 <= required_samples(Quantity.TAIL, 0.05, 1.25) / tail <= 13.5
    assert 8.0 <= required_samples(Quantity.HOCKEY_STICK, 0.05, 1.25) / hockey <= 8.8
    assert required_samples(Quantity.MAX_LOSS, 0.02, math.inf) == 700


def test_tail_and_crossing_estimates() -> None:
    est = estimate_tail([0.0, 1.0, 2.0, 3.0], 1.5)
    assert est.exceed == 2 and est.estimate == 0.5 and est.samples == 4
    cross = estimate_crossing([True, False, False, False])
    assert cross.exceed == 1 and cross.estimate == 0.25
    assert est.lower <= est.estimate <= est.upper


def test_hockey_stick_terms_closed_form() -> None:
    terms = hockey_stick_terms([-1.0, 0.5, 1.0, 3.0], 1.0)
    np.testing.assert_allclose(terms, [0.0, 0.0, 0.0, 1 - math.exp(-2.0)])


def test_hockey_stick_estimate_brackets_the_gaussian_curve() -> None:
    mu, eps = 1.0, 0.5
    rng = np.random.default_rng(13)
    losses = rng.normal(mu**2 / 2, mu, size=200_000)  # Gaussian privacy loss, closed form
    est = estimate_hockey_stick(losses, eps)
    truth = gaussian_hockey_stick(mu, eps)
    assert est.lower <= truth <= est.upper
    assert abs(est.estimate - truth) < 0.005


def test_truncated_mean_covers_a_martingale_evalue() -> None:
    rng = np.random.default_rng(14)
    lam = 0.8
    values = np.exp(lam * rng.normal(size=50_000) - lam**2 / 2)  # E[M] = 1
    est = estimate_truncated_mean(values, 10.0)
    assert est.lower <= 1.0 and est.estimate <= 1.0 + 1e-2
    with pytest.raises(ValueError):
        estimate_truncated_mean([-1.0], 2.0)


def test_max_loss_tolerance() -> None:
    assert estimate_max_loss([1.0, 1.0 + 1e-12], 1.0).exceed == 0
    assert estimate_max_loss([1.0, 1.0 + 1e-6], 1.0).exceed == 1


def test_empty_and_nan_samples_are_rejected() -> None:
    with pytest.raises(ValueError):
        estimate_tail([], 1.0)
    with pytest.raises(ValueError):
        estimate_hockey_stick([float("nan")], 1.0)
