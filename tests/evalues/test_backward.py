"""R23-Lem6.1 (backward martingale, e-value at reverse stopping times) and R23-Eq2."""

from __future__ import annotations

import numpy as np

from adaptive_dp.evalues.backward import (
    EValueProduct,
    backward_log_martingale,
    backward_martingale,
    round_log_evalue,
)
from adaptive_dp.mechanisms.brownian import brownian_sample
from adaptive_dp.verify.judge.estimators import hoeffding_bounds

GRID = tuple(np.geomspace(100.0, 0.01, 60))


def _stopped(lam: float, rng: np.random.Generator, n: int, level: float) -> np.ndarray:
    """M^lambda at the first grid time (in release order, t decreasing) where it reaches
    ``level``, else at the last: a stopping time of the reverse filtration."""
    b = brownian_sample(GRID, n, 1, rng)[:, :, 0]
    m = backward_martingale(lam, b, np.asarray(GRID)[None, :])
    hit = m >= level
    first = np.where(hit.any(axis=1), hit.argmax(axis=1), len(GRID) - 1)
    out: np.ndarray = m[np.arange(n), first]
    return out


def test_r23_lem6_1_e_value_under_adversarial_stopping() -> None:
    rng = np.random.default_rng(61)
    n, cap = 100_000, 5.0
    for lam in (0.5, 1.0, 2.0):
        m = _stopped(lam, rng, n, level=4.0)
        lower, _ = hoeffding_bounds(float(np.mean(np.minimum(m, cap))), n, cap)
        assert lower <= 1.0
        # power: an observed 1.1 would be flagged with this n
        assert hoeffding_bounds(1.1, n, cap)[0] > 1.0


def test_r23_lem6_1_negative_control_without_the_drift_term_is_flagged() -> None:
    rng = np.random.default_rng(62)
    n, cap = 100_000, 5.0
    b = brownian_sample(GRID, n, 1, rng)[:, :, 0]
    t = np.asarray(GRID)[None, :]
    wrong = np.exp(1.0 * b / t)  # exp(lambda B/t): the lambda^2/(2t) term dropped
    hit = wrong >= 4.0
    first = np.where(hit.any(axis=1), hit.argmax(axis=1), len(GRID) - 1)
    vals = np.minimum(wrong[np.arange(n), first], cap)
    lower, _ = hoeffding_bounds(float(np.mean(vals)), n, cap)
    assert lower > 1.0


def test_r23_lem6_1_fixed_time_mean_is_one() -> None:
    rng = np.random.default_rng(63)
    t = 0.7
    b = rng.normal(0, np.sqrt(t), 400_000)
    m = backward_martingale(0.8, b, t)
    assert abs(m.mean() - 1) < 5 * m.std() / np.sqrt(b.size)
    assert np.allclose(np.log(m), backward_log_martingale(0.8, b, t))


def test_r23_eq2_product_of_round_evalues() -> None:
    # round_log_evalue at rho = c^2/(2t), L = c^2/(2t) + c W/t equals log M^{lambda c}(t)
    rng = np.random.default_rng(64)
    c, t, lam = 0.6, 2.5, 1.7
    w = rng.normal(0, np.sqrt(t), 10)
    loss = c * c / (2 * t) + c * w / t
    np.testing.assert_allclose(
        round_log_evalue(lam, loss, c * c / (2 * t)),
        backward_log_martingale(lam * c, w, t),
        rtol=1e-12, atol=1e-12,
    )
    prod = EValueProduct.start(10).times(np.log(2.0)).times(np.log(3.0))
    np.testing.assert_allclose(prod.value, 6.0)
