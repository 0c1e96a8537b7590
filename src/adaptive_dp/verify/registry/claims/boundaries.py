"""Claims of the Gaussian RDP curve and of the time-uniform boundaries
(:mod:`adaptive_dp.evalues.boundaries`).

- ``EXT-GaussianRDP/gaussian`` (e-value): one Gaussian release (sensitivity 1,
  sigma = 1, worst-case neighbours 0 and 1), order alpha = 2, claimed
  epsilon = ``gaussian_rdp(1, 1, 2)`` = 1; the privacy loss L is computed from the
  densities of the release, and (alpha, eps)-RDP is exactly
  E[exp((alpha - 1)(L - eps))] <= 1 (the Renyi moment, in both orders of the pair),
  tested truncated at K = 10 (true truncated mean 0.990). Both profiles (the e-value
  test's power, to flag 1.1, does not depend on the profile). Twin ``order-one``
  (alpha = 3, sigma = 1: the order factor dropped; true truncated mean 2.71).

Boundaries: the process is the drift-free privacy loss S_n = L_n - V_n/2 of Gaussian
releases with mu_n = 1/sigma_n chosen predictably, V_n = sum mu_i^2 (L_n from the
release densities; exp(lambda S_n - lambda^2 V_n/2) is then a martingale for every real
lambda, R23-Eq2); the statistic is the crossing indicator
"exists n <= horizon: S_n >= b(V_n)" (``|S_n|`` for two-sided claims), read through the
boundary's float path (rounded up, never below its certified value). The first
release has mu_1^2 = 1, the stitching start m; afterwards mu_n^2 = c V_{n-1}:

- ``geometric``: c = 0.02 at every step, 700 steps (V from 1 to about 10^6 in 2%
  steps: a fine grid at every scale, where the discrete walk is close to the Brownian
  motion these boundaries are tight for);
- ``budget-hugging``: c = 0.005 while the path is within sqrt(V_{n-1})/2 of its
  boundary, else 0.04 (fine steps near the boundary), 700 steps.

Claimed delta 0.05 (quick) / 1e-3 (full), one order (the boundary claim is about one
process; the other order's walk has the same law).

- ``EXT-HRMS21NormalMixture/one-sided``: the one-sided closed form (rho = 1);
  ``/one-sided-exact`` and ``/budget-hugging``: the exact one-sided level set
  (``form="exact"``); ``/two-sided``: the two-sided one, ``|S_n|``. Twin ``no-volume``
  (:class:`~adaptive_dp.verify.registry.twins.boundaries.NoVolumeMixture` of the same form,
  geometric scenario, delta = 0.05: crossed by about 0.33 one-sided closed, 0.34 exact,
  0.37 two-sided).
- ``EXT-HRMS21Stitching/geometric`` and ``/budget-hugging``: the exact stitched boundary,
  eta = 2, s = 1.4, m = 1. Twin ``no-split``
  (:class:`~adaptive_dp.verify.registry.twins.boundaries.NoSplitStitching`, geometric
  scenario, delta = 0.05: crossed by about 0.21).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from adaptive_dp.evalues.boundaries import HowardStitching, NormalMixtureBoundary
from adaptive_dp.guarantees.definitions import RDP
from adaptive_dp.guarantees.rdp import gaussian_rdp
from adaptive_dp.interactive.adversary import GAUSSIAN
from adaptive_dp.mechanisms import gaussian_sample
from adaptive_dp.numerics.floats import Real
from adaptive_dp.verify.judge.adversaries import Constant
from adaptive_dp.verify.judge.claim import (
    AdversaryExperiment,
    Claim,
    Setup,
    Twin,
    profile_delta,
    samples_for,
)
from adaptive_dp.verify.judge.estimators import Quantity
from adaptive_dp.verify.judge.simulate import release_losses
from adaptive_dp.verify.registry.twins.boundaries import (
    NoSplitStitching,
    NoVolumeMixture,
    order_one_gaussian_rdp,
)

__all__ = ["CLAIMS", "LossWalkCrossing", "RenyiMoment"]

Array = NDArray[np.float64]
Bools = NDArray[np.bool_]

_K = 10.0
"""Truncation of the Renyi moment (an e-value): E[min(M, K)] is tested."""
_STEPS = 700
_GEOMETRIC = (0.02, 0.02)
_HUGGING = (0.005, 0.04)
_BAND = 0.5
"""A path is near its boundary when b(V) - S < _BAND sqrt(V)."""


@dataclass(frozen=True, slots=True)
class RenyiMoment:
    """exp((alpha - 1)(L - epsilon)) for the loss L of one Gaussian release of 1/sigma
    (from its densities): an e-value iff D_alpha <= epsilon in the sampled order."""

    sigma: float
    alpha: float
    epsilon: float

    def __call__(self, paths: int, rng: np.random.Generator, under: str) -> Array:
        loss = AdversaryExperiment(Constant((GAUSSIAN,), 1 / self.sigma, 1))(paths, rng, under)
        out: Array = np.exp((self.alpha - 1) * (loss - self.epsilon))
        return out


def _rdp_setup(rdp: RDP, sigma: float, note: str) -> Setup:
    experiment = RenyiMoment(sigma, float(rdp.alpha), float(rdp.epsilon))
    return Setup(Quantity.EVALUE, 0.0, 1.0, experiment,
                 samples_for(Quantity.EVALUE, 1.0, scale=_K), scale=_K,
                 note=f"{note}, E[min(exp((alpha-1)(L-eps)), {_K:g})]")


def _rdp(profile: str) -> Setup:
    return _rdp_setup(gaussian_rdp(1, 1, 2), 1.0, "one Gaussian release, sigma=1, alpha=2")


def _rdp_twin(profile: str) -> Setup:
    return _rdp_setup(order_one_gaussian_rdp(1, 1, 3), 1.0,
                      "one Gaussian release, sigma=1, alpha=3")


@dataclass(frozen=True, slots=True)
class LossWalkCrossing:
    """Per path, whether S_n = L_n - V_n/2 (``|S_n|`` if ``two_sided``) of up to ``steps``
    Gaussian releases reaches ``boundary(V_n)``; mu_1^2 = 1, then mu_n^2 = c V_{n-1}
    with c = ``growth[0]`` near the boundary and ``growth[1]`` elsewhere."""

    boundary: Callable[[Array], Real]
    growth: tuple[float, float]
    steps: int = _STEPS
    two_sided: bool = False

    def __call__(self, paths: int, rng: np.random.Generator, under: str) -> Bools:
        center, sign = (0.0, 1.0) if under == "x" else (1.0, -1.0)
        v, s = np.zeros(paths), np.zeros(paths)
        crossed = np.zeros(paths, dtype=bool)
        gap = np.zeros(paths)
        for n in range(self.steps):
            near, far = self.growth
            mu2 = np.ones(paths) if n == 0 else np.where(gap < _BAND * np.sqrt(v), near, far) * v
            mu = np.sqrt(mu2)
            y = gaussian_sample(center, 1 / mu, rng)
            v = v + mu2
            s = s + sign * release_losses(GAUSSIAN, y, mu) - mu2 / 2
            level = np.abs(s) if self.two_sided else s
            gap = np.asarray(self.boundary(v)) - level
            crossed |= gap <= 0
        return crossed


def _crossing(boundary: Callable[[Array], Real], growth: tuple[float, float],
              claimed: float, two_sided: bool, note: str) -> Setup:
    return Setup(Quantity.CROSSING, 0.0, claimed,
                 LossWalkCrossing(boundary, growth, two_sided=two_sided),
                 samples_for(Quantity.CROSSING, claimed), orders=("x",),
                 note=f"{note}, {_STEPS} Gaussian releases, mu_1 = 1, "
                      f"mu_n^2 = {growth[0]:g} V (near) / {growth[1]:g} V")


def _mixture(sides: Literal["one", "two"], growth: tuple[float, float],
             form: Literal["closed", "exact"] = "closed", twin: bool = False
             ) -> Callable[[str], Setup]:
    def build(profile: str) -> Setup:
        delta = Fraction(profile_delta("quick" if twin else profile, 0.05))
        bound = NormalMixtureBoundary(1, delta=delta, sides=sides, form=form)
        rule: Any = NoVolumeMixture(bound) if twin else bound
        return _crossing(rule.threshold_float, growth, float(delta), sides == "two",
                         f"{sides}-sided normal mixture ({form}), rho=1, "
                         f"delta={float(delta)}")
    return build


def _stitching(growth: tuple[float, float], twin: bool = False) -> Callable[[str], Setup]:
    def build(profile: str) -> Setup:
        delta = Fraction(profile_delta("quick" if twin else profile, 0.05))
        bound = HowardStitching(delta=delta, eta=2, s="1.4", form="exact")
        rule: Any = NoSplitStitching(bound) if twin else bound

        def boundary(v: Array) -> Real:
            out: Real = rule.threshold_float(v, 1.0)
            return out

        return _crossing(boundary, growth, float(delta), False,
                         f"stitching eta=2, s=1.4, m=1, delta={float(delta)}")
    return build


_NO_VOLUME = "the factor sqrt((V + rho)/rho) dropped"
_NO_VOLUME_ONE = Twin("no-volume", _NO_VOLUME, _mixture("one", _GEOMETRIC, twin=True))
_NO_VOLUME_TWO = Twin("no-volume", _NO_VOLUME, _mixture("two", _GEOMETRIC, twin=True))
_NO_VOLUME_EXACT = Twin("no-volume", _NO_VOLUME,
                        _mixture("one", _GEOMETRIC, "exact", twin=True))
_NO_SPLIT = Twin("no-split", "delta not split over the epochs (every epoch at delta)",
                 _stitching(_GEOMETRIC, twin=True))

CLAIMS: tuple[Claim, ...] = (
    Claim("EXT-GaussianRDP", "gaussian", Quantity.EVALUE,
          "D_alpha(N(0, s^2) || N(1, s^2)) <= alpha/(2 s^2): E[exp((alpha-1)(L - eps))] <= 1",
          _rdp, (Twin("order-one", "the order factor alpha dropped", _rdp_twin),)),
    Claim("EXT-HRMS21NormalMixture", "one-sided", Quantity.CROSSING,
          "one-sided normal mixture: P(exists n: S_n >= b(V_n)) <= delta",
          _mixture("one", _GEOMETRIC), (_NO_VOLUME_ONE,)),
    Claim("EXT-HRMS21NormalMixture", "one-sided-exact", Quantity.CROSSING,
          "one-sided normal mixture, exact level set of the half-normal mixture",
          _mixture("one", _GEOMETRIC, "exact"), (_NO_VOLUME_EXACT,)),
    Claim("EXT-HRMS21NormalMixture", "two-sided", Quantity.CROSSING,
          "two-sided normal mixture: P(exists n: |S_n| >= b(V_n)) <= delta",
          _mixture("two", _GEOMETRIC), (_NO_VOLUME_TWO,)),
    Claim("EXT-HRMS21NormalMixture", "budget-hugging", Quantity.CROSSING,
          "one-sided normal mixture (exact level set), fine steps near the boundary",
          _mixture("one", _HUGGING, "exact"), (_NO_VOLUME_EXACT,)),
    Claim("EXT-HRMS21Stitching", "geometric", Quantity.CROSSING,
          "polynomial stitching: P(exists n: V_n >= m, S_n >= k_1 sqrt(V_n l(V_n))) <= delta",
          _stitching(_GEOMETRIC), (_NO_SPLIT,)),
    Claim("EXT-HRMS21Stitching", "budget-hugging", Quantity.CROSSING,
          "polynomial stitching, fine steps near the boundary",
          _stitching(_HUGGING), (_NO_SPLIT,)),
)
