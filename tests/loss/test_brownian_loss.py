"""R23-Thm4 and R23-Lem4.1: the BM loss from whole-prefix densities equals the closed form."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from adaptive_dp.loss.brownian import bm_loss_closed_form, bm_prefix_loss, bm_release_loss
from adaptive_dp.mechanisms.brownian import BrownianNoiseReduction


def _close(a: np.ndarray, b: np.ndarray, scale: np.ndarray) -> bool:
    # relative 1e-9 of the size of the terms summed (c^2/(2t) and |<f - f', B>|/t),
    # so a loss that cancels to nearly 0 is not held to a relative error it cannot have
    size = np.maximum(np.maximum(np.abs(a), np.abs(b)), scale)
    tol = np.maximum(1e-9 * size, 4 * np.spacing(np.abs(b)))
    return bool(np.all(np.abs(a - b) <= tol))


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    dim=st.integers(1, 3),
    k=st.integers(1, 12),
    threshold=st.floats(-2, 2),
)
def test_r23_thm4_closed_form_equals_density_loss(
    seed: int, dim: int, k: int, threshold: float
) -> None:
    rng = np.random.default_rng(seed)
    times = np.sort(rng.uniform(0.05, 5.0, k))[::-1]
    times = np.unique(times)[::-1]
    mech = BrownianNoiseReduction(1, tuple(times))
    center = rng.normal(size=dim)
    center_prime = center + rng.normal(size=dim) * 0.5

    def stop(ts: np.ndarray, values: np.ndarray) -> np.ndarray:
        # data-dependent (prefix-only) stopping: stop when the first coordinate
        # moved below a threshold
        out: np.ndarray = values[:, -1, 0] - values[:, 0, 0] < threshold
        return out

    rel = mech.release(center, stop, rng, paths=200)
    dens = bm_release_loss(mech, rel, center, center_prime)
    noise = rel.last_value - center[None, :]
    closed = bm_loss_closed_form(center, center_prime, rel.t_stop, noise)
    diff = center - center_prime
    scale = (diff @ diff / 2 + np.abs(noise @ diff)) / rel.t_stop
    assert _close(dens, closed, scale)


def test_r23_lem4_1_loss_of_prefix_equals_loss_of_last_release() -> None:
    rng = np.random.default_rng(1)
    times = (3.0, 2.0, 1.5, 0.5, 0.1)
    mech = BrownianNoiseReduction(1, times)
    c, cp = np.array([0.0]), np.array([1.0])
    rel = mech.release(c, lambda t, v: np.zeros(v.shape[0], bool), rng, paths=100)
    for k in range(1, 6):
        joint = bm_prefix_loss(mech, rel.values, k, c, cp)
        only_last = BrownianNoiseReduction(1, (times[k - 1],))
        single = bm_prefix_loss(only_last, rel.values[:, k - 1 : k, :], 1, c, cp)
        np.testing.assert_allclose(joint, single, rtol=1e-9, atol=1e-12)


def test_r23_thm4_loss_law_at_fixed_time() -> None:
    # under x with fixed t, L ~ N(c^2/(2t), c^2/t)
    rng = np.random.default_rng(2)
    mech = BrownianNoiseReduction(1, (2.0, 0.5))
    c = 0.8
    rel = mech.release([0.0], lambda t, v: np.zeros(v.shape[0], bool), rng, paths=100_000)
    loss = bm_release_loss(mech, rel, [0.0], [c])
    mean, var = c * c / (2 * 0.5), c * c / 0.5
    assert abs(loss.mean() - mean) < 5 * np.sqrt(var / loss.size)
    assert abs(loss.var() - var) < 5 * var * np.sqrt(2 / loss.size)
