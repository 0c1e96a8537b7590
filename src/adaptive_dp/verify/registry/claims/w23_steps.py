"""Claims of the odometer step lemmas W23-PureStepMean, W23-ClippedPDPStep and
W23-ApproxToPDP (:mod:`adaptive_dp.odometers.steps`), from exact probabilities.

Each path is one step: a pair (P, Q) of output laws on finitely many atoms (or a Laplace
pair), its loss l = log(P/Q) taken atom by atom, and its conditional mean summed exactly
over the atoms (the Laplace mean: the two constant tails plus 20-point Gauss-Legendre on
[0, 1], from :func:`~adaptive_dp.mechanisms.laplace.laplace_logpdf`). Under x' the pair is
swapped. The inequalities are max-statistics (mean / bound, claimed <= 1); the
attainments are equalities read as max-statistics (``|mean / bound - 1| <= 1e-9``).

- ``W23-PureStepMean/randomized-response``: RR pairs, epsilon uniform on [0.01, 2]:
  the mean equals epsilon tanh(epsilon/2). Twin ``half-prefactor``.
- ``W23-PureStepMean/mixed-pairs``: a third RR, a third random pairs on 4 atoms
  (Dirichlet(1) each side; epsilon = ``max |l|``, exact), a third Laplace (sensitivity 1,
  epsilon uniform on [0.01, 2]): mean / bound <= 1. Twin ``half-prefactor``.
- ``W23-ClippedPDPStep/worst-case`` (order x only: the equality is one-sided): the
  attaining pair, P = (p, 1 - p, 0), Q = (p e^-eps, (1 - p) e^eps, delta),
  p = (e^eps + delta - 1) / (e^eps - e^-eps), epsilon uniform on [0.05, 1], delta
  uniform on [cosh(eps) - 1, 1 - e^-eps]. Twin ``delta-term-dropped``.
- ``W23-ClippedPDPStep/random-pairs``: half attaining pairs, half random pairs on 5 atoms
  with an atom only P charges and one only Q charges; epsilon = ``u max |finite l|`` with
  u uniform on [0.5, 1.2] and delta = max(P(l > eps), Q(l < -eps)), exact; pairs with
  delta >= 1 (no guarantee) are skipped. Clipped mean / bound <= 1. Twin
  ``delta-term-dropped``.
- ``W23-ApproxToPDP/two-point-pair`` (tail): the two-point pair P = (a, 1 - a),
  Q = (a e^{-(eps + t + eta)}, 1 - that), a = delta / (1 - e^{-(t + eta)}), is
  (eps, delta)-DP (tight in the order x); eps = 0.5, t = 0.1, eta = 0.001 and delta such
  that the converted delta is 0.05 (quick) or 1e-3 (full). Tail P(l > eps + t) against the
  converted delta, both orders. Twin ``delta-undivided`` (its tail is about 10.5 times its
  claim).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction

import numpy as np
from numpy.typing import NDArray

from adaptive_dp.guarantees.definitions import ApproxDP, ProbabilisticDP
from adaptive_dp.mechanisms.laplace import laplace_logpdf
from adaptive_dp.odometers.steps import (
    approx_to_pdp,
    clipped_pdp_step_mean_bound,
    pure_step_mean_bound,
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
from adaptive_dp.verify.registry.twins.w23_steps import (
    half_prefactor_mean_bound,
    no_delta_clipped_mean_bound,
    undivided_approx_to_pdp,
)

__all__ = ["CLAIMS", "attaining_pdp_pair", "clipped_means", "two_point_pair"]

Array = NDArray[np.float64]
PureBound = Callable[[float], float]
PDPBound = Callable[[float, float], float]
Conversion = Callable[[ApproxDP, Fraction], ProbabilisticDP]

_TOL = 1e-9
"""Largest admissible relative discrepancy of an attained bound (means are >= 1e-4)."""
_NODES, _WEIGHTS = np.polynomial.legendre.leggauss(20)


def _loss(p: Array, q: Array) -> Array:
    """Atom-wise log(P/Q) (+inf where only P charges, -inf where only Q does)."""
    with np.errstate(divide="ignore"):
        out: Array = np.log(p) - np.log(q)
    return out


def clipped_means(p: Array, q: Array, epsilon: Array) -> Array:
    """E_P[clip(log(P/Q), -eps, eps)] per row (exact sums; atoms P does not charge add 0)."""
    clipped = np.clip(_loss(p, q), -epsilon[:, None], epsilon[:, None])
    out: Array = np.sum(np.where(p > 0, p * clipped, 0.0), axis=1)
    return out


def _rr_pairs(epsilon: Array) -> tuple[Array, Array]:
    hi = 1 / (1 + np.exp(-epsilon))
    p = np.stack([hi, 1 - hi], axis=1)
    return p, p[:, ::-1].copy()


def _laplace_means(epsilon: Array, under: str) -> Array:
    """E[log p(Y) - log q(Y)], Y ~ p, for Laplace(0, 1/eps) against Laplace(1, 1/eps)
    (swapped under x'), from the log densities."""
    a, b = (0.0, 1.0) if under == "x" else (1.0, 0.0)
    scale = 1 / epsilon

    def loss(y: float | Array) -> Array:
        return laplace_logpdf(y, a, scale) - laplace_logpdf(y, b, scale)

    below, above = (-1.0, 2.0)  # the loss is constant on (-inf, 0] and on [1, inf)
    mass_below = 0.5 if under == "x" else 0.5 * np.exp(-epsilon)
    mass_above = 0.5 * np.exp(-epsilon) if under == "x" else 0.5
    y = 0.5 + 0.5 * _NODES[None, :]
    dens = np.exp(laplace_logpdf(y, a, scale[:, None]))
    middle = 0.5 * np.sum(_WEIGHTS[None, :] * dens * (
        laplace_logpdf(y, a, scale[:, None]) - laplace_logpdf(y, b, scale[:, None])), axis=1)
    out: Array = mass_below * loss(below) + mass_above * loss(above) + middle
    return out


def _pure_ratio(bound: PureBound, epsilon: Array, mean: Array) -> Array:
    out: Array = mean / np.array([bound(float(e)) for e in epsilon])
    return out


def _rr_experiment(bound: PureBound) -> Experiment:
    def run(paths: int, rng: np.random.Generator, under: str) -> Array:
        eps = rng.uniform(0.01, 2.0, paths)
        p, q = _rr_pairs(eps)
        p, q = (p, q) if under == "x" else (q, p)
        mean = np.sum(p * _loss(p, q), axis=1)
        out: Array = np.abs(_pure_ratio(bound, eps, mean) - 1)
        return out

    return run


def _mixed_experiment(bound: PureBound) -> Experiment:
    def run(paths: int, rng: np.random.Generator, under: str) -> Array:
        k = paths // 3
        eps_rr = rng.uniform(0.01, 2.0, k)
        p_rr, q_rr = _rr_pairs(eps_rr)
        p = rng.dirichlet(np.ones(4), k)
        q = rng.dirichlet(np.ones(4), k)
        eps_lap = rng.uniform(0.01, 2.0, paths - 2 * k)
        if under == "x'":
            p_rr, q_rr, p, q = q_rr, p_rr, q, p
        eps_rand = np.max(np.abs(_loss(p, q)), axis=1)
        ratios = (
            _pure_ratio(bound, eps_rr, np.sum(p_rr * _loss(p_rr, q_rr), axis=1)),
            _pure_ratio(bound, eps_rand, np.sum(p * _loss(p, q), axis=1)),
            _pure_ratio(bound, eps_lap, _laplace_means(eps_lap, under)),
        )
        out: Array = np.concatenate(ratios)
        return out

    return run


def attaining_pdp_pair(epsilon: Array, delta: Array) -> tuple[Array, Array]:
    """The (eps, delta)-pDP pair attaining W23-ClippedPDPStep (docs/derivations.md,
    section 2.7): P = (p, 1 - p, 0), Q = (p e^-eps, (1 - p) e^eps, delta)."""
    p = (np.expm1(epsilon) + delta) / (2 * np.sinh(epsilon))
    zero = np.zeros_like(p)
    return (np.stack([p, 1 - p, zero], axis=1),
            np.stack([p * np.exp(-epsilon), (1 - p) * np.exp(epsilon), delta], axis=1))


def _attaining_draw(paths: int, rng: np.random.Generator) -> tuple[Array, Array, Array, Array]:
    eps = rng.uniform(0.05, 1.0, paths)
    delta = rng.uniform(np.cosh(eps) - 1, -np.expm1(-eps))
    p, q = attaining_pdp_pair(eps, delta)
    return p, q, eps, delta


def _pdp_ratio(bound: PDPBound, p: Array, q: Array, eps: Array, delta: Array) -> Array:
    bounds = np.array([bound(float(e), float(d)) if d < 1 else math.inf
                       for e, d in zip(eps, delta, strict=True)])
    out: Array = clipped_means(p, q, eps) / bounds
    return out


def _worst_experiment(bound: PDPBound) -> Experiment:
    def run(paths: int, rng: np.random.Generator, under: str) -> Array:
        p, q, eps, delta = _attaining_draw(paths, rng)
        out: Array = np.abs(_pdp_ratio(bound, p, q, eps, delta) - 1)
        return out

    return run


def _random_pdp(paths: int, rng: np.random.Generator, under: str
                ) -> tuple[Array, Array, Array, Array]:
    p = rng.dirichlet(np.ones(5), paths)
    q = rng.dirichlet(np.ones(5), paths)
    p[:, 4] = 0.0
    q[:, 3] = 0.0
    p /= p.sum(axis=1, keepdims=True)
    q /= q.sum(axis=1, keepdims=True)
    if under == "x'":
        p, q = q, p
    loss = _loss(p, q)
    finite = np.where(np.isfinite(loss), np.abs(loss), 0.0)
    eps = rng.uniform(0.5, 1.2, paths) * np.max(finite, axis=1)
    delta = np.maximum(np.sum(np.where(loss > eps[:, None], p, 0.0), axis=1),
                       np.sum(np.where(loss < -eps[:, None], q, 0.0), axis=1))
    return p, q, eps, delta


def _random_experiment(bound: PDPBound) -> Experiment:
    def run(paths: int, rng: np.random.Generator, under: str) -> Array:
        k = paths // 2
        worst = _attaining_draw(k, rng)
        rand = _random_pdp(paths - k, rng, under)
        out: Array = np.concatenate([_pdp_ratio(bound, *worst), _pdp_ratio(bound, *rand)])
        return out

    return run


def _max_setup(experiment: Experiment, claimed: float, profile: str, note: str,
               orders: tuple[str, ...] = ("x", "x'")) -> Setup:
    delta_min = profile_delta(profile, 0.02)
    return Setup(Quantity.MAX_LOSS, claimed, claimed, experiment,
                 samples_for(Quantity.MAX_LOSS, claimed, delta_min), orders=orders,
                 delta_min=delta_min, note=note)


_EPS, _T, _ETA = 0.5, Fraction(1, 10), 0.001


def two_point_pair(delta: float) -> tuple[float, float]:
    """(a, b): P = (a, 1 - a), Q = (b, 1 - b), log(a/b) = eps + t + eta, a(1 - e^{-(t +
    eta)}) = delta: (eps, delta)-DP, with P(l > eps + t) = a."""
    a = delta / -math.expm1(-(float(_T) + _ETA))
    return a, a * math.exp(-(_EPS + float(_T) + _ETA))


def _tail_setup(conversion: Conversion, profile: str) -> Setup:
    target = profile_delta(profile, 0.05)
    delta = target * -math.expm1(-float(_T))
    converted = conversion(ApproxDP(_EPS, delta), _T)
    a, b = two_point_pair(delta)

    def run(paths: int, rng: np.random.Generator, under: str) -> Array:
        first = rng.random(paths) < (a if under == "x" else b)
        out: Array = np.where(first, math.log(a / b) if under == "x" else math.log(b / a),
                              math.log1p(-b) - math.log1p(-a) if under == "x"
                              else math.log1p(-a) - math.log1p(-b))
        return out

    claimed = float(converted.delta)
    return Setup(Quantity.TAIL, float(converted.epsilon), claimed, run,
                 samples_for(Quantity.TAIL, claimed),
                 note=f"two-point ({_EPS}, {delta:.4g})-DP pair, t={_T}, eta={_ETA}")


_RR = "RR, eps ~ U[0.01, 2]"
_MIXED = "RR / random 4-atom pairs / Laplace, eps ~ U[0.01, 2]"
_WORST = "attaining pairs, eps ~ U[0.05, 1], delta ~ U[cosh eps - 1, 1 - e^-eps]"
_RANDOM = "half attaining pairs, half random 5-atom pDP pairs (delta exact)"

_HALF = Twin("half-prefactor", "(eps/2) tanh(eps/2): the prefactor eps halved",
             lambda p: _max_setup(_mixed_experiment(half_prefactor_mean_bound), 1.0, "quick",
                                  _MIXED))
_NO_DELTA = Twin("delta-term-dropped", "eps tanh(eps/2) without delta eps / sinh(eps)",
                 lambda p: _max_setup(_random_experiment(no_delta_clipped_mean_bound), 1.0,
                                      "quick", _RANDOM))

CLAIMS: tuple[Claim, ...] = (
    Claim("W23-PureStepMean", "randomized-response", Quantity.MAX_LOSS,
          "RR attains E[l] = eps tanh(eps/2) (|mean / bound - 1| <= 1e-9)",
          lambda p: _max_setup(_rr_experiment(pure_step_mean_bound), _TOL, p, _RR),
          (Twin("half-prefactor", "(eps/2) tanh(eps/2): the prefactor eps halved",
                lambda p: _max_setup(_rr_experiment(half_prefactor_mean_bound), _TOL,
                                     "quick", _RR)),)),
    Claim("W23-PureStepMean", "mixed-pairs", Quantity.MAX_LOSS,
          "pure steps: E[l] <= eps tanh(eps/2) (mean / bound <= 1)",
          lambda p: _max_setup(_mixed_experiment(pure_step_mean_bound), 1.0, p, _MIXED),
          (_HALF,)),
    Claim("W23-ClippedPDPStep", "worst-case", Quantity.MAX_LOSS,
          "the attaining pDP pair: clipped mean = eps tanh(eps/2) + delta eps / sinh eps",
          lambda p: _max_setup(_worst_experiment(clipped_pdp_step_mean_bound), _TOL, p,
                               _WORST, orders=("x",)),
          (Twin("delta-term-dropped", "eps tanh(eps/2) without delta eps / sinh(eps)",
                lambda p: _max_setup(_worst_experiment(no_delta_clipped_mean_bound), _TOL,
                                     "quick", _WORST, orders=("x",))),)),
    Claim("W23-ClippedPDPStep", "random-pairs", Quantity.MAX_LOSS,
          "pDP steps: clipped mean <= eps tanh(eps/2) + delta eps / sinh eps",
          lambda p: _max_setup(_random_experiment(clipped_pdp_step_mean_bound), 1.0, p,
                               _RANDOM),
          (_NO_DELTA,)),
    Claim("W23-ApproxToPDP", "two-point-pair", Quantity.TAIL,
          "(eps, delta)-DP is (eps + t, delta / (1 - e^-t))-pDP: the tail of the tight pair",
          lambda p: _tail_setup(approx_to_pdp, p),
          (Twin("delta-undivided", "(eps + t, delta)-pDP: delta not divided by 1 - e^-t",
                lambda p: _tail_setup(undivided_approx_to_pdp, "quick")),)),
)
