"""The oracle and the twin of the R23-LaplaceReleaseKernel claim
(verify/registry/claims/laplace_kernel.py), against values computed by hand here."""

from __future__ import annotations

import math

import numpy as np
import pytest

from adaptive_dp.mechanisms.laplace_process import (
    laplace_forward_sample,
    laplace_reverse_logkernel,
)
from adaptive_dp.verify.registry.claims.laplace_kernel import (
    TIMES,
    alternative_logpdf,
    forward_logpdf,
)
from adaptive_dp.verify.registry.twins.laplace_kernel import lazy_atom_logkernel


def _lap(x: float, t: float) -> float:
    return math.exp(-abs(x) / t) / (2 * t)


def test_forward_density_of_a_tie_and_a_move() -> None:
    """f_{t_2}(z_2) times p = (t_2/t_1)^2 on a tie, (1 - p) f_{t_1}(z_1 - z_2) on a move."""
    times = (4.0, 1.0)
    z = np.array([[0.7, 0.7], [-1.5, 0.25]])
    p = (1.0 / 4.0) ** 2
    expected = [math.log(_lap(0.7, 1.0) * p),
                math.log(_lap(0.25, 1.0) * (1 - p) * _lap(-1.75, 4.0))]
    assert forward_logpdf(z, times) == pytest.approx(expected, rel=1e-13)


def test_release_and_forward_factorisations_agree_by_hand() -> None:
    """R23-LaplaceReleaseKernel at two levels: f_{t_1}(z_1) kappa(z_2 | z_1) equals the
    forward density, on a tie and on each side of the kernel's pieces."""
    t1, t2 = 2.5, 0.8
    for z1, z2 in ((1.2, 1.2), (1.2, 0.4), (1.2, -0.6), (1.2, 2.9), (-0.3, 0.1)):
        release = math.log(_lap(z1, t1)) + float(
            laplace_reverse_logkernel(np.array(z2), np.array(z1), t1, t2))
        forward = float(forward_logpdf(np.array([[z1, z2]]), (t1, t2))[0])
        assert release == pytest.approx(forward, abs=1e-12)


def test_twin_differs_by_the_stated_amounts() -> None:
    """The twin's kernel exceeds the valid one by log(eps'/eps) on a tie and by
    log((1 - a) / (1 - (eps/eps') a)), a = e^{-(eps' - eps)|z|}, on a move."""
    t1, t2, z = 2.5, 0.8, np.array(1.2)
    eps, eps2 = 1 / t1, 1 / t2
    a = math.exp(-(eps2 - eps) * 1.2)
    tie = lazy_atom_logkernel(z, z, t1, t2) - laplace_reverse_logkernel(z, z, t1, t2)
    assert float(tie) == pytest.approx(math.log(eps2 / eps), rel=1e-12)
    u = np.array(-0.6)
    move = lazy_atom_logkernel(u, z, t1, t2) - laplace_reverse_logkernel(u, z, t1, t2)
    assert float(move) == pytest.approx(math.log((1 - a) / (1 - eps / eps2 * a)), rel=1e-12)


def test_likelihood_ratio_is_an_e_value_under_the_forward_sampler() -> None:
    """The likelihood-ratio claim's M = q/p has mean 1 on draws of the forward (lazy)
    sampler, an implementation independent of the release-order one (E_p[M^2] = E_q[M] is
    about 3.2, so the mean of 20000 draws has standard deviation about 0.011)."""
    z = laplace_forward_sample(TIMES, 20_000, 1, np.random.default_rng(11))[:, :, 0]
    m = np.exp(alternative_logpdf(z) - forward_logpdf(z, TIMES))
    assert abs(float(m.mean()) - 1) < 0.06
