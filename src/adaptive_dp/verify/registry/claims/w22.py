"""Claims of the W22 items (Whitehouse et al. 2022, reconstructed; issue 15, item 4).

Worst-case neighbours of a scalar query with sensitivity 1 (f(x) = 0, f(x') = 1; the order
x' swaps them); the adversary knows the pair and stops on the released prefix. Losses are
log ratios of the densities of the whole released prefix (``bm_release_loss``).

- ``W22-MixtureExPost/stop-at-worst`` (crossing): one BM on geomspace(1e4, 1e-4, 300),
  stopped the first time its loss exceeds the certified bound ``single_bm_expost_mixture``
  (rho = 0.05, fixed in advance) at the current time value; statistic 1{L(T) > E(T)}.
  Twin ``mixture-factor-dropped``.
- ``W22-LinearExPost/stop-at-worst`` (crossing): the same on geomspace(1e3, 1e-3, 200) with
  ``single_bm_expost_linear`` (slope a = 1). Twin ``slope-halved``.
- ``W22-ReverseSampling/shared-randomness`` (equivalence, ``|diff| <= 1e-9``): the path sampled
  backwards (``brownian_sample`` and the step under test applied from t_1 down) equals,
  draw by draw on the same standard normals z, the path L z with L the Cholesky factor of
  the Brownian covariance min(t_i, t_j) (numpy's, an independent computation); so the
  sampled law is N(0, min(t_i, t_j)). Twin ``increment-variance``.
- ``W22-ReducedAboveThreshold/late-halt`` (crossing): 9 levels t = geomspace(100, 0.01, 9),
  s = 4t, C = 0, queries q_k(x) = -2 sqrt(t_k) (k < 9) and q_9(x) = 0.5, q(x') = q(x) - 1;
  statistic 1{L(O) > E(O)}, L the log ratio of the outcome's exact probabilities under the
  pair (:func:`rat_outcome_probabilities`), E the certified
  ``reduced_above_threshold_expost`` (mixture boundary rho = 1 with delta/4, query delta
  delta/4, r = 2). Twin ``first-level-charged``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import ndtr

from adaptive_dp.evalues.boundaries import NormalMixtureBoundary
from adaptive_dp.evalues.expost import (
    reduced_above_threshold_expost,
    single_bm_expost_linear,
    single_bm_expost_mixture,
)
from adaptive_dp.guarantees.expost import ExPost
from adaptive_dp.loss.brownian import bm_release_loss
from adaptive_dp.mechanisms.above_threshold import ReducedAboveThreshold
from adaptive_dp.mechanisms.brownian import (
    BrownianNoiseReduction,
    brownian_backward_step,
    brownian_sample,
)
from adaptive_dp.verify.judge.claim import (
    Claim,
    Experiment,
    Setup,
    Twin,
    profile_delta,
    samples_for,
)
from adaptive_dp.verify.judge.estimators import Quantity
from adaptive_dp.verify.registry.claims.expost import _bm_loss_now, _pair
from adaptive_dp.verify.registry.twins.w22 import (
    first_level_charged_rat_expost,
    increment_variance_backward_step,
    mixture_factor_dropped_expost,
    slope_halved_linear_expost,
)

__all__ = ["CLAIMS", "rat_outcome_probabilities"]

Array = NDArray[np.float64]
Bools = NDArray[np.bool_]
Step = Callable[[ArrayLike, ArrayLike, ArrayLike, np.random.Generator], Array]
RatExPost = Callable[[ReducedAboveThreshold, int, NormalMixtureBoundary, float], ExPost]

_MIX_GRID = tuple(float(t) for t in np.geomspace(1e4, 1e-4, 300))
_MIX_RHO = 0.05
_LIN_GRID = tuple(float(t) for t in np.geomspace(1e3, 1e-3, 200))
_LIN_SLOPE = 1.0
_TWIN_DELTA = 0.05


# -- W22-MixtureExPost / W22-LinearExPost --------------------------------------------------


def _crossing_experiment(grid: tuple[float, ...], bound: Array) -> Experiment:
    """One BM stopped the first time its loss exceeds ``bound`` (one value per time value);
    returns 1{L(T) > bound(T)}, L from the released prefix densities."""
    mech = BrownianNoiseReduction(1, grid)

    def run(paths: int, rng: np.random.Generator, under: str) -> Bools:
        c0, c1 = _pair(under)

        def stop(ts: Array, vals: Array) -> Bools:
            out: Bools = _bm_loss_now(vals[:, -1, 0], float(ts[-1]), c0, c1) > bound[
                ts.shape[0] - 1]
            return out

        rel = mech.release([c0], stop, rng, paths=paths)
        crossed: Bools = bm_release_loss(mech, rel, [c0], [c1]) > bound[rel.stop - 1]
        return crossed

    return run


def _crossing_setup(grid: tuple[float, ...], bound: Array, delta: float, note: str) -> Setup:
    return Setup(Quantity.CROSSING, 0.0, delta, _crossing_experiment(grid, bound),
                 samples_for(Quantity.CROSSING, delta), note=note)


def _mixture(profile: str) -> Setup:
    delta = profile_delta(profile, 0.05)
    bound = np.array([float(single_bm_expost_mixture(1, t, delta, _MIX_RHO).epsilon)
                      for t in _MIX_GRID])
    return _crossing_setup(_MIX_GRID, bound, delta,
                           "one BM, grid 1e4..1e-4 (300), stop when L > E_mixture(t), rho=0.05")


def _mixture_twin(profile: str) -> Setup:
    bound = mixture_factor_dropped_expost(1.0, _MIX_GRID, _TWIN_DELTA, _MIX_RHO)
    return _crossing_setup(_MIX_GRID, bound, _TWIN_DELTA,
                           "one BM, grid 1e4..1e-4 (300), the factor-dropped mixture bound")


def _linear(profile: str) -> Setup:
    delta = profile_delta(profile, 0.05)
    bound = np.array([float(single_bm_expost_linear(1, t, delta, _LIN_SLOPE).epsilon)
                      for t in _LIN_GRID])
    return _crossing_setup(_LIN_GRID, bound, delta,
                           "one BM, grid 1e3..1e-3 (200), stop when L > E_linear(t), a=1")


def _linear_twin(profile: str) -> Setup:
    bound = slope_halved_linear_expost(1.0, _LIN_GRID, _TWIN_DELTA, _LIN_SLOPE)
    return _crossing_setup(_LIN_GRID, bound, _TWIN_DELTA,
                           "one BM, grid 1e3..1e-3 (200), the slope-halved linear bound")


# -- W22-ReverseSampling -------------------------------------------------------------------

_REV_GRID = tuple(float(t) for t in np.geomspace(20.0, 0.05, 30))
_REV_TOL = 1e-9
"""Largest admissible |difference| of two constructions of the same path (values ~ 10)."""


def _reverse_experiment(step: Step) -> Experiment:
    """max over the grid of |backward path - L z|, for the step under test and for
    ``brownian_sample``, all three fed the same standard normals (same seed)."""
    t = np.asarray(_REV_GRID)
    chol = np.linalg.cholesky(np.minimum(t[:, None], t[None, :]))

    def run(paths: int, rng: np.random.Generator, under: str) -> Array:
        seed = int(rng.integers(2**62))
        z = np.random.default_rng(seed).standard_normal((t.size, paths))
        reference = (chol @ z).T
        gen = np.random.default_rng(seed)
        stepped = np.empty((paths, t.size))
        stepped[:, 0] = np.sqrt(t[0]) * gen.standard_normal(paths)
        for k in range(1, t.size):
            stepped[:, k] = step(stepped[:, k - 1], t[k - 1], t[k], gen)
        sampled = brownian_sample(_REV_GRID, paths, 1, np.random.default_rng(seed))[:, :, 0]
        out: Array = np.maximum(np.abs(stepped - reference).max(axis=1),
                                np.abs(sampled - reference).max(axis=1))
        return out

    return run


def _reverse_setup(step: Step, profile: str) -> Setup:
    delta_min = profile_delta(profile, 0.02)
    return Setup(Quantity.MAX_LOSS, _REV_TOL, _REV_TOL, _reverse_experiment(step),
                 samples_for(Quantity.MAX_LOSS, _REV_TOL, delta_min), delta_min=delta_min,
                 orders=("x",), note="grid geomspace(20, 0.05, 30), shared normals")


# -- W22-ReducedAboveThreshold -------------------------------------------------------------


def rat_outcome_probabilities(mechanism: ReducedAboveThreshold, queries: ArrayLike,
                              points: int = 401, width: float = 9.0) -> Array:
    """The exact law of ReducedAboveThreshold's outcome, P[O = o] for o = 1..K+1, by
    quadrature (an oracle independent of the mechanism's sampler and of its ex-post bound).

    xi_k = B(t_k) is Markov in release order (N(0, t_1), then Brownian-bridge kernels);
    the query noises are independent, so with S_k(u) = Phi((C + u - q_k)/sqrt(s_k)) (the
    k-th query stays below given xi_k = u), the density of xi_k on the paths still running
    is carried level by level on a trapezoid grid of +-``width`` marginal standard
    deviations: P[O = k] = int pred_k (1 - S_k), P[O = K + 1] = int pred_K S_K.
    """
    t = np.asarray(mechanism.times)
    s = np.asarray(mechanism.query_variances)
    q = np.asarray(queries, dtype=np.float64)
    x = np.linspace(-width, width, points)
    out = np.empty(t.size + 1)
    u = np.sqrt(t[0]) * x
    pred = np.exp(-u**2 / (2 * t[0])) / np.sqrt(2 * np.pi * t[0])
    for k in range(t.size):
        h = np.sqrt(t[k]) * (x[1] - x[0])
        below = ndtr((mechanism.threshold + u - q[k]) / np.sqrt(s[k]))
        out[k] = h * np.sum(pred * ndtr((q[k] - mechanism.threshold - u) / np.sqrt(s[k])))
        alive = h * pred * below
        if k + 1 == t.size:
            out[k + 1] = np.sum(alive)
            break
        v = np.sqrt(t[k + 1]) * x
        var = t[k + 1] * (t[k] - t[k + 1]) / t[k]
        kernel = np.exp(-(v[:, None] - (t[k + 1] / t[k]) * u[None, :]) ** 2 / (2 * var)) / (
            np.sqrt(2 * np.pi * var))
        pred = kernel @ alive
        u = v
    return out


_RAT_TIMES = np.geomspace(100.0, 0.01, 9)
_RAT = ReducedAboveThreshold(1, tuple(_RAT_TIMES), tuple(4 * _RAT_TIMES))
_RAT_QUERIES = np.where(np.arange(9) < 8, -2 * np.sqrt(_RAT_TIMES), 0.5)


def _rat_experiment(delta: float, expost: RatExPost) -> Experiment:
    """Outcomes of the mechanism on the ``under`` side; 1{L(O) > E(O)} with L from the
    outcome law of both sides and E from ``expost`` (delta split as in the module note)."""
    boundary = NormalMixtureBoundary(1, delta=delta / 4)
    bound = np.array([float(expost(_RAT, o, boundary, delta / 4).epsilon)
                      for o in range(1, _RAT.levels + 2)])
    law = {"x": rat_outcome_probabilities(_RAT, _RAT_QUERIES),
           "x'": rat_outcome_probabilities(_RAT, _RAT_QUERIES - 1)}

    def run(paths: int, rng: np.random.Generator, under: str) -> Bools:
        other = "x'" if under == "x" else "x"
        loss = np.log(law[under]) - np.log(law[other])
        queries = _RAT_QUERIES if under == "x" else _RAT_QUERIES - 1
        outcome = _RAT.release(queries, rng, paths) - 1
        crossed: Bools = loss[outcome] > bound[outcome]
        return crossed

    return run


def _rat_setup(delta: float, expost: RatExPost) -> Setup:
    return Setup(Quantity.CROSSING, 0.0, delta, _rat_experiment(delta, expost),
                 samples_for(Quantity.CROSSING, delta),
                 note="9 levels t=100..0.01, s=4t, q(x)=-2 sqrt(t) then 0.5, q(x')=q(x)-1")


CLAIMS: tuple[Claim, ...] = (
    Claim("W22-MixtureExPost", "stop-at-worst", Quantity.CROSSING,
          "one BM: P[L > E_mixture(T)] <= delta at an adversarial stop", _mixture,
          (Twin("mixture-factor-dropped", "sqrt((T + rho)/rho) dropped from the logarithm",
                _mixture_twin),)),
    Claim("W22-LinearExPost", "stop-at-worst", Quantity.CROSSING,
          "one BM: P[L > E_linear(T)] <= delta at an adversarial stop", _linear,
          (Twin("slope-halved", "the drift term Delta a halved", _linear_twin),)),
    Claim("W22-ReverseSampling", "shared-randomness", Quantity.MAX_LOSS,
          "backward sampling = L z with L L^T = min(t_i, t_j) (equivalence, |diff| <= 1e-9)",
          lambda p: _reverse_setup(brownian_backward_step, p),
          (Twin("increment-variance", "bridge variance replaced by t1 - t2",
                lambda p: _reverse_setup(increment_variance_backward_step, "quick")),)),
    Claim("W22-ReducedAboveThreshold", "late-halt", Quantity.CROSSING,
          "P[L(O) > E(O)] <= delta for the outcome O of ReducedAboveThreshold",
          lambda p: _rat_setup(profile_delta(p, 0.05), reduced_above_threshold_expost),
          (Twin("first-level-charged", "ex-post value of level 1 charged at every outcome",
                lambda p: _rat_setup(_TWIN_DELTA, first_level_charged_rat_expost)),)),
)
