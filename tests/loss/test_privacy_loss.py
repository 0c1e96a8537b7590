"""R23-Def2.3: the privacy loss from densities equals the closed-form loss of each
mechanism (written here independently) on random outputs."""

from __future__ import annotations

import numpy as np

from adaptive_dp.loss import privacy_loss
from adaptive_dp.mechanisms import GaussianMechanism, LaplaceMechanism, RandomizedResponse


def test_gaussian_loss_closed_form() -> None:
    rng = np.random.default_rng(20)
    for sens, sigma, c in [(1.0, 1.0, 0.0), (0.3, 2.5, 4.0), (5.0, 0.7, -1.0)]:
        m = GaussianMechanism(sens, sigma)
        y = c + sigma * rng.standard_normal(1000) * 3
        expected = ((y - c - sens) ** 2 - (y - c) ** 2) / (2 * sigma**2)
        got = privacy_loss(m, y, c, c + sens)
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


def test_laplace_loss_closed_form() -> None:
    rng = np.random.default_rng(21)
    for sens, scale in [(1.0, 1.0), (0.5, 3.0), (2.0, 0.25)]:
        m = LaplaceMechanism(sens, scale)
        y = rng.laplace(0.0, scale, 1000) * 2
        expected = (np.abs(y - sens) - np.abs(y)) / scale
        np.testing.assert_allclose(privacy_loss(m, y, 0.0, sens), expected, rtol=1e-12, atol=1e-12)


def test_randomized_response_loss_closed_form() -> None:
    for eps in [0.0, 0.1, 1.0, 3.5]:
        m = RandomizedResponse(eps)
        got = privacy_loss(m, np.array([0.0, 1.0]), 0.0, 1.0)
        np.testing.assert_allclose(got, [eps, -eps], rtol=1e-12, atol=1e-15)
