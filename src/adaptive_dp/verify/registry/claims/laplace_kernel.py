"""Claims of the exact release-order sampler of Laplace noise reduction
(R23-LaplaceReleaseKernel, issue 15, item 4).

``R23-LaplaceReleaseKernel/six-levels``: prefixes Z = (L(t_1), ..., L(t_6)) of the Laplace
process at the scales t = 5, 3, 2, 1.2, 0.8, 0.5 are drawn in release order with the
sampler (:func:`~adaptive_dp.mechanisms.laplace_process.laplace_process_sample`, one
:func:`~adaptive_dp.mechanisms.laplace_process.laplace_reverse_step` per level), and their
log density is computed under two factorisations of the same joint law: release order
(:meth:`LaplaceNoiseReduction.logpdf_prefix`: Lap(t_1) then the kernels) and the forward
lazy construction (:func:`forward_logpdf`, written here from the hypotheses of
proofs/R23-LaplaceReleaseKernel.md: Z_6 ~ Lap(t_6), Z_j = Z_{j+1} + B_j W_j with
B_j ~ Bern(1 - (t_{j+1}/t_j)^2), W_j ~ Lap(t_j)), both with respect to Lebesgue measure
plus atoms on exact ties. The prefixes mix ties and moves (the forward tie probability
(t_{j+1}/t_j)^2 is 0.36 to 0.44 at these levels). The statement is an equality, so it is checked as
an equivalence (docs/design.md, Equivalences): statistic ``|difference of the two log
densities|``, max-loss, claimed <= 1e-9. That the sampler draws from this law is tested
against the forward sampler in tests/mechanisms/test_laplace_process.py.

``R23-LaplaceReleaseKernel/likelihood-ratio`` tests the sampler's law itself, not only the
densities at its draws: with the forward density p and any fixed alternative density q of
prefixes, M = q(Z)/p(Z) is an e-value when Z is drawn from p (E[M] = 1). Z is drawn with
the sampler, q is the release-order law of the twin's kernel below, and the claim
E[min(M, 5)] <= 1 is tested as an e-value claim (docs/design.md, E-values): a sampler
whose law is not p's can make it exceed 1 (the twin's sampler: about 2.6).

Twin ``lazy-atom-not-squared`` (of both claims)
(:mod:`adaptive_dp.verify.registry.twins.laplace_kernel`): the kernel derived from the
lazy atom eps_j/eps_{j+1} instead of its square, sampled and evaluated with its own
kernel; its release-order density differs from the forward one on every move (by
log((1 - e^{-(eps'-eps)|z|}) / (1 - (eps/eps') e^{-(eps'-eps)|z|})) and on every tie
(by log(eps'/eps)).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from adaptive_dp.mechanisms.laplace_process import LaplaceNoiseReduction, laplace_process_sample
from adaptive_dp.verify.judge.claim import (
    Claim,
    Experiment,
    Setup,
    Twin,
    profile_delta,
    samples_for,
)
from adaptive_dp.verify.judge.estimators import Quantity
from adaptive_dp.verify.registry.twins.laplace_kernel import lazy_atom_logkernel, lazy_atom_step

__all__ = ["CLAIMS", "TIMES", "alternative_logpdf", "forward_logpdf"]

Array = NDArray[np.float64]

TIMES = (5.0, 3.0, 2.0, 1.2, 0.8, 0.5)
"""The Laplace scales t = 1/eps of the six releases, noisiest first."""
_TOL = 1e-9
"""Largest admissible discrepancy of the two log densities (each is at most ~20)."""


def _lap_logpdf(x: Array, t: float) -> Array:
    out: Array = -np.abs(x) / t - np.log(2 * t)
    return out


def forward_logpdf(z: Array, times: tuple[float, ...]) -> Array:
    """Log density of release-order prefixes ``z`` (paths, K) under the forward lazy
    construction: log f_{t_K}(z_K) + sum_j [log p_j on a tie z_j = z_{j+1}, else
    log(1 - p_j) + log f_{t_j}(z_j - z_{j+1})], p_j = (t_{j+1}/t_j)^2."""
    out = _lap_logpdf(z[:, -1], times[-1])
    for j in range(len(times) - 1):
        p = (times[j + 1] / times[j]) ** 2
        move = np.log1p(-p) + _lap_logpdf(z[:, j] - z[:, j + 1], times[j])
        out = out + np.where(z[:, j] == z[:, j + 1], np.log(p), move)
    return out


def _twin_prefix(paths: int, rng: np.random.Generator) -> tuple[Array, Array]:
    """The twin's prefixes and their release-order log density under its own kernel."""
    z = np.empty((paths, len(TIMES)))
    z[:, 0] = rng.laplace(0.0, TIMES[0], paths)
    log_density = _lap_logpdf(z[:, 0], TIMES[0])
    for j in range(len(TIMES) - 1):
        z[:, j + 1] = lazy_atom_step(z[:, j], TIMES[j], TIMES[j + 1], rng)
        log_density = log_density + lazy_atom_logkernel(z[:, j + 1], z[:, j], TIMES[j],
                                                        TIMES[j + 1])
    return z, log_density


def alternative_logpdf(z: Array) -> Array:
    """The release-order log density of prefixes under the twin's kernel."""
    out = _lap_logpdf(z[:, 0], TIMES[0])
    for j in range(len(TIMES) - 1):
        out = out + lazy_atom_logkernel(z[:, j + 1], z[:, j], TIMES[j], TIMES[j + 1])
    return out


def _likelihood_ratio(twin: bool) -> Experiment:
    def run(paths: int, rng: np.random.Generator, under: str) -> Array:
        z = (_twin_prefix(paths, rng)[0] if twin
             else laplace_process_sample(TIMES, paths, 1, rng)[:, :, 0])
        out: Array = np.exp(alternative_logpdf(z) - forward_logpdf(z, TIMES))
        return out

    return run


_K = 5.0


def _ratio_setup(twin: bool) -> Setup:
    return Setup(Quantity.EVALUE, 0.0, 1.0, _likelihood_ratio(twin),
                 samples_for(Quantity.EVALUE, 1.0, scale=_K), orders=("x",), scale=_K,
                 note="Laplace process at t = 5, 3, 2, 1.2, 0.8, 0.5; M = q/p with p the "
                      "forward law, q the lazy-atom-not-squared kernel's law; K = 5")


def _experiment(twin: bool) -> Experiment:
    def run(paths: int, rng: np.random.Generator, under: str) -> Array:
        if twin:
            z, release = _twin_prefix(paths, rng)
        else:
            values = laplace_process_sample(TIMES, paths, 1, rng)
            release = LaplaceNoiseReduction(1, TIMES).logpdf_prefix(values, [0.0], len(TIMES))
            z = values[:, :, 0]
        out: Array = np.abs(release - forward_logpdf(z, TIMES))
        return out

    return run


def _setup(twin: bool, profile: str) -> Setup:
    delta_min = profile_delta(profile, 0.02)
    return Setup(Quantity.MAX_LOSS, _TOL, _TOL, _experiment(twin),
                 samples_for(Quantity.MAX_LOSS, _TOL, delta_min), orders=("x",),
                 delta_min=delta_min,
                 note="Laplace process at t = 5, 3, 2, 1.2, 0.8, 0.5 (release order); "
                      "|release-order - forward log density| <= 1e-9")


CLAIMS: tuple[Claim, ...] = (
    Claim("R23-LaplaceReleaseKernel", "six-levels", Quantity.MAX_LOSS,
          "the release-order sampler's joint law (Lap(t_1) then the kernels) equals the "
          "forward lazy construction's (equivalence of densities, |diff| <= 1e-9)",
          lambda p: _setup(False, p),
          (Twin("lazy-atom-not-squared",
                "the kernel derived from the lazy atom eps_j/eps_{j+1}, not its square",
                lambda p: _setup(True, "quick")),)),
    Claim("R23-LaplaceReleaseKernel", "likelihood-ratio", Quantity.EVALUE,
          "the sampler draws from the forward law: q/p at its draws is an e-value",
          lambda p: _ratio_setup(False),
          (Twin("lazy-atom-not-squared",
                "the kernel derived from the lazy atom eps_j/eps_{j+1}, not its square",
                lambda p: _ratio_setup(True)),)),
)
