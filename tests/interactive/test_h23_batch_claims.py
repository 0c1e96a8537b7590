"""The vectorised concurrent filter (H23-Def2.7 / Alg3 on a batch) behind the registered
claims of H23-Thm4.10 (the claims themselves run in tests/statistical/test_claims.py)."""

from __future__ import annotations

import numpy as np

from adaptive_dp.filters.zcdp import ZCDPSumFilter
from adaptive_dp.verify.judge.batch import BatchConcurrentFilter
from adaptive_dp.verify.registry.claims.interactive import (
    InterleavedStopAtWorst,
    LaunchAllThenQuery,
)
from adaptive_dp.verify.registry.twins.interactive import ChargeAnsweredOnly


def test_batch_admissions_and_twin() -> None:
    rng = np.random.default_rng(5)
    out = BatchConcurrentFilter(ZCDPSumFilter("0.5"), 12).run(LaunchAllThenQuery(), 200, rng)
    assert np.all(out.launched == 4)  # 4 x 1/8 = 1/2: equality admitted
    assert np.all(out.declared <= 0.5)
    assert np.all(out.answers == 4 * 3)
    twin = ChargeAnsweredOnly(ZCDPSumFilter("0.5"), 12).run(LaunchAllThenQuery(), 200, rng)
    assert np.all(twin.launched == 12) and np.all(twin.answers == 36)


def test_batch_loss_mean_is_kl() -> None:
    """Under x the mean loss of the whole view is the sum of the answers' KL
    divergences: Gaussian sigma: 1/(2 sigma^2) per answer; RR eps: eps tanh(eps/2)."""
    rng = np.random.default_rng(6)
    n = 40_000
    out = BatchConcurrentFilter(ZCDPSumFilter("0.5"), 12).run(LaunchAllThenQuery(), n, rng)
    # children: G, RR, G, RR with rho_c = 1/8 over 3 answers
    sigma2 = 3 / (2 * 0.125)
    eps = np.sqrt(2 * 0.125 / 3)
    kl = 2 * 3 * (1 / (2 * sigma2)) + 2 * 3 * (eps * np.tanh(eps / 2))
    se = out.loss.std() / np.sqrt(n)
    assert abs(out.loss.mean() - kl) < 6 * se
    under = BatchConcurrentFilter(ZCDPSumFilter("0.5"), 12).run(
        LaunchAllThenQuery(), n, rng, under="x'")
    assert abs(under.loss.mean() - kl) < 6 * under.loss.std() / np.sqrt(n)


def test_stop_at_worst_adversary_stops() -> None:
    rng = np.random.default_rng(7)
    out = BatchConcurrentFilter(ZCDPSumFilter("0.5"), 12).run(InterleavedStopAtWorst(), 500, rng)
    assert np.all(out.declared <= 0.5 + 1e-12)
    assert out.answers.min() < out.answers.max()  # adaptive stopping happened


def test_pure_mode_w23_admissions() -> None:
    """Pure-DP mode with the W23 filter (H23-ThmB.3): the number of admitted eps_c = 0.15
    children is the largest k with sqrt(2 ln(1/delta') k eps_c^2) + k eps_c^2 / 2 <= 2,
    computed here with mpmath; Gaussian launches are refused in pure mode."""
    import mpmath as mp

    from adaptive_dp.filters.w23 import W23Filter
    from adaptive_dp.verify.registry.claims.interactive import PureLaunchAllThenQuery

    rng = np.random.default_rng(8)
    out = BatchConcurrentFilter(W23Filter(2, delta="0.05"), 150, "epsilon").run(
        PureLaunchAllThenQuery(), 100, rng)
    c = 2 * mp.log(20)
    k = max(n for n in range(151)
            if mp.sqrt(c * n * mp.mpf("0.0225")) + n * mp.mpf("0.0225") / 2 <= 2)
    assert np.all(out.launched == k)
    gauss = BatchConcurrentFilter(ZCDPSumFilter(1), 12, "epsilon").run(
        LaunchAllThenQuery(), 50, rng)
    assert np.all(gauss.launched == 6)  # only the randomized-response half
