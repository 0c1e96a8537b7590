"""Claims of the noise reductions' privacy losses and ex-post values (issue 15, item 4):
R23-Thm4, R23-Lem4.1, R23-Eq2 (Brownian), R23-LemA.1 (Laplace) and R23-Lem5.1 (basic ex-post
composition).

Worst-case neighbours of a scalar query with sensitivity 1 (f(x) = 0, f(x') = 1; the order
x' swaps them); the adversary knows the pair and stops on the released prefix. Every loss is
the log ratio of the densities of the whole released prefix: the implementation's
(``bm_release_loss``, ``lnr_release_loss``) and, for the BM, an independent oracle here
that factorises the prefix in release order (N(0, t_1) then Brownian-bridge kernels).

R23-Thm4 and R23-Lem4.1 are equalities: they are checked as shared-randomness equivalences
(docs/design.md, Equivalences) read as max-statistics: the largest discrepancy over the
paths must be at most ``_TOL`` (a path above it is a violation; n >= 14/delta_min).

- ``R23-Thm4/stop-at-worst``: one BM (grid geomspace(20, 0.05, 30)) stopped as soon as its
  loss exceeds 2; statistic ``|closed form - prefix-density loss|`` (both densities). Twin
  ``variance-as-sigma``.
- ``R23-Lem4.1/stop-at-worst``: the same BM; statistic ``|L^{(1:T)} - L^{(T)}|`` with L^{(T)}
  from the N(f, t^{(T)}) density of y_T alone, for the release-order oracle and for
  ``bm_release_loss``. Twin ``forward-coupling`` (the oracle's kernel reversed).
- ``R23-LemA.1/stop-at-worst``: one Laplace noise reduction (levels 0.1..1, t = 10..1),
  stopped at the first release whose loss is at its maximum (y beyond f(x)); statistic
  L^{(1:T)} / E(T) with E from ``LaplaceNoiseReduction.expost(t^{(T)})``, claimed <= 1.
  Twin ``previous-time-expost``.
- ``R23-Eq2/stop-at-worst`` (e-value, K = 5, lambda = 1): 3 rounds, each a Gaussian round
  of rho = 1/8 then a BM (first time value 20, or 40 once the product exceeds 1, down to 0.2)
  stopped as soon as the running product reaches 4; factor exp(lambda (L - rho) -
  lambda^2 rho) with L from the released densities and rho = 1/(2 t^{(T)}) on BM rounds,
  multiplied by ``EValueProduct``. Twin ``first-time-rho`` (rho of the BM's first time value).
- ``R23-Lem5.1/adaptive-chain``: 4 Laplace noise reductions, each one's top level chosen
  from the previous loss (1 after a positive loss, else 0.5), each stopped at its worst;
  statistic sum L_i / basic_expost_composition(E_1..E_4), claimed <= 1. Twin
  ``max-not-sum``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import numpy as np
from numpy.typing import NDArray

from adaptive_dp.evalues.backward import EValueProduct, round_log_evalue
from adaptive_dp.filters.expost import basic_expost_composition
from adaptive_dp.guarantees.expost import ExPost
from adaptive_dp.loss.brownian import bm_loss_closed_form, bm_release_loss
from adaptive_dp.loss.laplace_process import lnr_release_loss
from adaptive_dp.mechanisms.brownian import BrownianNoiseReduction
from adaptive_dp.mechanisms.gaussian import gaussian_logpdf, gaussian_sample
from adaptive_dp.mechanisms.laplace_process import LaplaceNoiseReduction
from adaptive_dp.mechanisms.noise_reduction import NoiseReductionRelease
from adaptive_dp.verify.judge.claim import (
    Claim,
    Experiment,
    Setup,
    Twin,
    profile_delta,
    samples_for,
)
from adaptive_dp.verify.judge.estimators import Quantity
from adaptive_dp.verify.registry.twins.noise_reduction import (
    PreviousTimeExPostLNR,
    forward_coupling_bm_logpdf,
    max_not_sum_expost_composition,
    variance_as_sigma_bm_loss,
)

__all__ = ["CLAIMS", "bm_release_order_logpdf"]

Array = NDArray[np.float64]
Bools = NDArray[np.bool_]
Density = Callable[[Array, Array, NDArray[np.int64], float], Array]

_TOL = 1e-6
"""Largest admissible discrepancy of an equality of losses (losses here are at most ~60)."""
_BM_GRID = tuple(float(t) for t in np.geomspace(20.0, 0.05, 30))
_LEVELS = np.linspace(0.1, 1.0, 10)


def _pair(under: str) -> tuple[float, float]:
    return (0.0, 1.0) if under == "x" else (1.0, 0.0)


def bm_release_order_logpdf(times: Array, values: Array, stop: NDArray[np.int64],
                            center: float) -> Array:
    """A scalar BM's prefix log density in release order (R23-Def2.3): N(z_1; 0, t_1) times
    the Brownian-bridge kernels N(z_{j+1}; z_j t_{j+1}/t_j, t_{j+1}(t_j - t_{j+1})/t_j)."""
    z = values[:, :, 0] - center
    out = -0.5 * z[:, 0] ** 2 / times[0] - 0.5 * np.log(2 * np.pi * times[0])
    for j in range(times.shape[0] - 1):
        var = times[j + 1] * (times[j] - times[j + 1]) / times[j]
        mean = z[:, j] * (times[j + 1] / times[j])
        term = -0.5 * (z[:, j + 1] - mean) ** 2 / var - 0.5 * np.log(2 * np.pi * var)
        out = out + np.where(j + 1 < stop, term, 0.0)
    result: Array = out
    return result


def _bm_run(paths: int, rng: np.random.Generator, under: str
            ) -> tuple[BrownianNoiseReduction, NoiseReductionRelease, float, float]:
    """One BM per path stopped as soon as its current loss exceeds 2."""
    c0, c1 = _pair(under)
    mech = BrownianNoiseReduction(1, _BM_GRID)

    def stop(ts: Array, vals: Array) -> Bools:
        y, t = vals[:, -1, 0], float(ts[-1])
        out: Bools = ((y - c1) ** 2 - (y - c0) ** 2) / (2 * t) > 2.0
        return out

    return mech, mech.release([c0], stop, rng, paths=paths), c0, c1


def _oracle_loss(rel: NoiseReductionRelease, c0: float, c1: float,
                 density: Density = bm_release_order_logpdf) -> Array:
    out: Array = (density(rel.times, rel.values, rel.stop, c0)
                  - density(rel.times, rel.values, rel.stop, c1))
    return out


def _thm4_experiment(closed_form: Callable[..., Array]) -> Experiment:
    def run(paths: int, rng: np.random.Generator, under: str) -> Array:
        mech, rel, c0, c1 = _bm_run(paths, rng, under)
        closed = closed_form([c0], [c1], rel.t_stop, rel.last_value - c0)
        oracle = _oracle_loss(rel, c0, c1)
        impl = bm_release_loss(mech, rel, [c0], [c1])
        out: Array = np.maximum(np.abs(closed - oracle), np.abs(closed - impl))
        return out

    return run


def _lem41_experiment(density: Density) -> Experiment:
    def run(paths: int, rng: np.random.Generator, under: str) -> Array:
        mech, rel, c0, c1 = _bm_run(paths, rng, under)
        y, sd = rel.last_value[:, 0], np.sqrt(rel.t_stop)
        last_only = gaussian_logpdf(y, c0, sd) - gaussian_logpdf(y, c1, sd)
        prefix = _oracle_loss(rel, c0, c1, density)
        impl = bm_release_loss(mech, rel, [c0], [c1])
        out: Array = np.maximum(np.abs(prefix - last_only), np.abs(impl - last_only))
        return out

    return run


def _equality_setup(experiment: Experiment, profile: str, note: str) -> Setup:
    delta_min = profile_delta(profile, 0.02)
    return Setup(Quantity.MAX_LOSS, _TOL, _TOL, experiment,
                 samples_for(Quantity.MAX_LOSS, _TOL, delta_min), delta_min=delta_min,
                 note=note)


def _lnr_round(rng: np.random.Generator, c0: float, c1: float, top: Array,
               mech_type: type[LaplaceNoiseReduction]) -> tuple[Array, list[ExPost]]:
    """One LNR per path (levels _LEVELS * top), stopped at the first release beyond f(x)
    (where the loss is at its maximum Delta/t); returns the prefix-density losses and the
    mechanism's ex-post values at the stop."""
    paths = top.shape[0]
    loss = np.zeros(paths)
    expost: list[ExPost] = [ExPost(0)] * paths
    for level in np.unique(top):
        idx = np.flatnonzero(top == level)
        mech = mech_type(1, tuple(float(t) for t in 1 / (_LEVELS * level)))

        def stop(ts: Array, vals: Array) -> Bools:
            out: Bools = (vals[:, -1, 0] - c0) * (c1 - c0) <= 0
            return out

        rel = mech.release([c0], stop, rng, paths=idx.size)
        loss[idx] = lnr_release_loss(mech, rel, [c0], [c1])
        cache = {t: mech.expost(t) for t in mech.times}
        for i, t in zip(idx, rel.t_stop, strict=True):
            expost[i] = cache[float(t)]
    return loss, expost


def _ratio(loss: Array, bounds: Iterable[ExPost]) -> Array:
    eps = np.array([float(b.epsilon) for b in bounds])
    out: Array = loss / eps
    return out


def _lema1_experiment(mech_type: type[LaplaceNoiseReduction]) -> Experiment:
    def run(paths: int, rng: np.random.Generator, under: str) -> Array:
        c0, c1 = _pair(under)
        loss, expost = _lnr_round(rng, c0, c1, np.ones(paths), mech_type)
        return _ratio(loss, expost)

    return run


def _lem51_experiment(compose: Callable[[Iterable[ExPost]], ExPost],
                      rounds: int = 4) -> Experiment:
    def run(paths: int, rng: np.random.Generator, under: str) -> Array:
        c0, c1 = _pair(under)
        total = np.zeros(paths)
        items: list[list[ExPost]] = [[] for _ in range(paths)]
        top = np.ones(paths)
        for _ in range(rounds):
            loss, expost = _lnr_round(rng, c0, c1, top, LaplaceNoiseReduction)
            total += loss
            for i, e in enumerate(expost):
                items[i].append(e)
            top = np.where(loss > 0, 1.0, 0.5)
        return _ratio(total, (compose(row) for row in items))

    return run


def _ratio_setup(experiment: Experiment, profile: str, note: str) -> Setup:
    delta_min = profile_delta(profile, 0.02)
    return Setup(Quantity.MAX_LOSS, 1.0, 1.0, experiment,
                 samples_for(Quantity.MAX_LOSS, 1.0, delta_min), delta_min=delta_min,
                 note=note)


_LAM = 1.0
_K = 5.0
_EQ2_RHO = 1 / 8


def _eq2_experiment(first_time_rho: bool) -> Experiment:
    """R23-Eq2: the product of the rounds' stopped e-values (``first_time_rho``: the twin,
    each BM's rho taken at its grid's first time value)."""

    def run(paths: int, rng: np.random.Generator, under: str) -> Array:
        c0, c1 = _pair(under)
        product = EValueProduct.start(paths)
        sigma = 1 / np.sqrt(2 * _EQ2_RHO)
        for _ in range(3):
            y = gaussian_sample(np.full(paths, c0), sigma, rng)
            loss = gaussian_logpdf(y, c0, sigma) - gaussian_logpdf(y, c1, sigma)
            product = product.times(round_log_evalue(_LAM, loss, _EQ2_RHO))
            t_first = np.where(product.log_value > 0, 40.0, 20.0)
            bm_log = np.zeros(paths)
            for tf in np.unique(t_first):
                idx = np.flatnonzero(t_first == tf)
                mech = BrownianNoiseReduction(1, tuple(np.geomspace(tf, 0.2, 30)))
                base = product.log_value[idx]

                def stop(ts: Array, vals: Array, base: Array = base) -> Bools:
                    yk, t = vals[:, -1, 0], float(ts[-1])
                    now = ((yk - c1) ** 2 - (yk - c0) ** 2) / (2 * t)
                    out: Bools = base + round_log_evalue(_LAM, now, 1 / (2 * t)) >= np.log(4.0)
                    return out

                rel = mech.release([c0], stop, rng, paths=idx.size)
                t_rho = np.full(idx.size, tf) if first_time_rho else rel.t_stop
                bm_log[idx] = round_log_evalue(_LAM, bm_release_loss(mech, rel, [c0], [c1]),
                                               1 / (2 * t_rho))
            product = product.times(bm_log)
        return product.value

    return run


def _eq2_setup(first_time_rho: bool, note: str) -> Setup:
    return Setup(Quantity.EVALUE, 0.0, 1.0, _eq2_experiment(first_time_rho),
                 samples_for(Quantity.EVALUE, 1.0, scale=_K), scale=_K, note=note)


_EQ2_NOTE = "3 x (Gaussian rho=1/8, BM 20|40..0.2), stop when the product reaches 4"
_BM_NOTE = "one BM, grid 20..0.05 (30 points), stop when the loss exceeds 2"
_LNR_NOTE = "one LNR, levels 0.1..1, stop at the first release beyond f(x)"
_CHAIN_NOTE = "4 LNRs, top level 1 after a positive loss else 0.5, each stopped at its worst"

CLAIMS: tuple[Claim, ...] = (
    Claim("R23-Thm4", "stop-at-worst", Quantity.MAX_LOSS,
          "BM: L^(1:T) = c^2/(2t) + c W(t)/t at an adaptive stop (equivalence, |diff| <= 1e-6)",
          lambda p: _equality_setup(_thm4_experiment(bm_loss_closed_form), p, _BM_NOTE),
          (Twin("variance-as-sigma", "the time value t used as the standard deviation",
                lambda p: _equality_setup(_thm4_experiment(variance_as_sigma_bm_loss),
                                          "quick", _BM_NOTE)),)),
    Claim("R23-Lem4.1", "stop-at-worst", Quantity.MAX_LOSS,
          "BM: L^(1:T) = L^(T) at an adaptive stop (equivalence, |diff| <= 1e-6)",
          lambda p: _equality_setup(_lem41_experiment(bm_release_order_logpdf), p, _BM_NOTE),
          (Twin("forward-coupling", "Markov coupling of the release order reversed",
                lambda p: _equality_setup(_lem41_experiment(forward_coupling_bm_logpdf),
                                          "quick", _BM_NOTE)),)),
    Claim("R23-LemA.1", "stop-at-worst", Quantity.MAX_LOSS,
          "LNR: L^(1:T) <= Delta_1/t^(T) surely (loss / ex-post value <= 1)",
          lambda p: _ratio_setup(_lema1_experiment(LaplaceNoiseReduction), p, _LNR_NOTE),
          (Twin("previous-time-expost", "ex-post epsilon computed at the previous time value",
                lambda p: _ratio_setup(_lema1_experiment(PreviousTimeExPostLNR), "quick",
                                       _LNR_NOTE)),)),
    Claim("R23-Eq2", "stop-at-worst", Quantity.EVALUE,
          "the product of stopped e-values of chained BM and zCDP rounds is an e-value",
          lambda p: _eq2_setup(False, _EQ2_NOTE),
          (Twin("first-time-rho", "a BM's rho taken at its first time value",
                lambda p: _eq2_setup(True, _EQ2_NOTE)),)),
    Claim("R23-Lem5.1", "adaptive-chain", Quantity.MAX_LOSS,
          "ex-post basic composition: sum L_i <= sum E_i(y_i) surely (ratio <= 1)",
          lambda p: _ratio_setup(_lem51_experiment(basic_expost_composition), p, _CHAIN_NOTE),
          (Twin("max-not-sum", "ex-post values composed by their maximum",
                lambda p: _ratio_setup(_lem51_experiment(max_not_sum_expost_composition),
                                       "quick", _CHAIN_NOTE)),)),
)
