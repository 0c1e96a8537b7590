"""R23-LemA.1 and R23-Eq12: Laplace noise-reduction loss from whole-prefix densities."""

from __future__ import annotations

import numpy as np

from adaptive_dp.loss.laplace_process import (
    lnr_loss_closed_form,
    lnr_prefix_loss,
    lnr_release_loss,
)
from adaptive_dp.mechanisms.laplace_process import LaplaceNoiseReduction


def _forward_logpdf(values: np.ndarray, center: np.ndarray, times: tuple[float, ...],
                    k: int) -> np.ndarray:
    """Second density oracle: the forward factorisation f_{t_k}(z_k) prod g_j(z_j - z_{j+1})."""
    z = values[:, :k, :] - center[None, None, :]
    t = np.asarray(times[:k])
    out = np.sum(-np.abs(z[:, k - 1, :]) / t[k - 1] - np.log(2 * t[k - 1]), axis=1)
    for j in range(k - 1):
        p_stay = (t[j + 1] / t[j]) ** 2
        w = z[:, j, :] - z[:, j + 1, :]
        cont = np.log1p(-p_stay) - np.log(2 * t[j]) - np.abs(w) / t[j]
        out = out + np.sum(np.where(w == 0, np.log(p_stay), cont), axis=1)
    result: np.ndarray = out
    return result


def test_r23_lem_a1_closed_form_equals_density_loss_under_adaptive_stopping() -> None:
    rng = np.random.default_rng(123)
    eps = 0.05 * 1.2 ** np.arange(25)
    times = tuple(1 / eps)
    mech = LaplaceNoiseReduction(1, times)
    for center, center_prime in (([0.0], [1.0]), ([7.3], [6.9]), ([0.0, 1.0, 2.0],
                                                                  [0.3, 0.5, 2.2])):
        c, cp = np.asarray(center), np.asarray(center_prime)

        def stop(ts: np.ndarray, v: np.ndarray) -> np.ndarray:
            out: np.ndarray = np.abs(v[:, -1, 0]) > np.log(20) * ts[-1]
            return out

        rel = mech.release(c, stop, rng, paths=2000)
        dens = lnr_release_loss(mech, rel, c, cp)
        closed = lnr_loss_closed_form(c, cp, rel.t_stop, rel.last_value)
        scale = np.sum(np.abs(c - cp)) / rel.t_stop + 1.0
        assert np.all(np.abs(dens - closed) <= 1e-9 * scale)
        # ex-post bound: |L| <= ||f(x) - f(x')||_1 / t^{(T)}
        assert np.all(closed <= np.sum(np.abs(c - cp)) / rel.t_stop * (1 + 1e-12))


def test_r23_eq12_release_order_density_equals_forward_factorisation() -> None:
    rng = np.random.default_rng(5)
    times = (2.0, 1.0, 1 / 1.1, 1 / 3.0)
    mech = LaplaceNoiseReduction(1, times)
    c = np.array([0.4, -1.0])
    rel = mech.release(c, lambda t, v: np.zeros(v.shape[0], bool), rng, paths=3000)
    for k in range(1, 5):
        ours = mech.logpdf_prefix(rel.values, c, k)
        ref = _forward_logpdf(rel.values, c, times, k)
        np.testing.assert_allclose(ours, ref, rtol=1e-10, atol=1e-10)
        joint = lnr_prefix_loss(mech, rel.values, k, c, c + 0.7)
        last = lnr_loss_closed_form(c, c + 0.7, times[k - 1], rel.values[:, k - 1, :])
        np.testing.assert_allclose(joint, last, rtol=1e-9, atol=1e-12)


def test_r23_lem_a1_importance_sampling_identity() -> None:
    # E_{x'}[e^{L_T} 1{T = j}] = P_x[T = j]: the formula is the Radon-Nikodym derivative
    rng = np.random.default_rng(77)
    eps = 0.2 * 1.3 ** np.arange(10)
    mech = LaplaceNoiseReduction(1, tuple(1 / eps))
    c, cp = np.array([0.0]), np.array([1.0])

    def stop(ts: np.ndarray, v: np.ndarray) -> np.ndarray:
        out: np.ndarray = v[:, -1, 0] < -0.5
        return out

    n = 200_000
    rx = mech.release(c, stop, rng, paths=n)
    rxp = mech.release(cp, stop, rng, paths=n)
    w = np.exp(lnr_loss_closed_form(c, cp, rxp.t_stop, rxp.last_value))
    for j in (1, 3, 10):
        lhs = w * (rxp.stop == j)
        rhs = (rx.stop == j).astype(float)
        se = np.sqrt(lhs.var() / n + rhs.var() / n)
        assert abs(lhs.mean() - rhs.mean()) < 5 * se
