"""Ex-post functions that need a boundary: R23-Thm5 (adaptively chained Brownian noise
reductions) and the single-BM form of Whitehouse et al. 2022 (W22-Thm3.6).  Both are
reconstructions (seed 002 strips the formulas): proofs/R23-Thm5.md.

R23-Thm5 (reconstructed): let BM_n have l2 sensitivity Delta_n (declared, chosen from
earlier outputs) and stop at time value t_n.  With V_n = sum_{i<=n} Delta_i^2/t_i and a
boundary b with P[exists n : S_n >= b(V_n)] <= delta fixed before the interaction
(S_n = sum_i c_i W_i(t_i)/t_i, the centred part of the loss),
"E_n = V_n/2 + b(V_n)" is an ex-post function: P[exists n : sum_{i<=n} L_i > E_n] <= delta.

W22-Thm3.6 (reconstructed, single BM, a time-uniform boundary psi of the unscaled W in
natural time): "E(T) = Delta^2/(2T) + Delta psi_delta(T)/T"; with the normal mixture of
parameter rho (W22-MixtureExPost) "E(T) = Delta^2/(2T) + (Delta/T) sqrt(2 (T + rho)
log(sqrt((T + rho)/rho)/delta))", with a line (W22-LinearExPost)
"E(T) = Delta^2/(2T) + Delta a + Delta log(1/delta)/(2 a T)".

W22-ReducedAboveThreshold (reconstructed, proofs/W22-ReducedAboveThreshold.md): the ex-post
value of the outcome o of :class:`ReducedAboveThreshold`,
"E_o = Delta^2/(2 t_o) + Delta psi(t_o)/t_o + 2 Delta^2/s_o + 2 Delta z/sqrt(s_o) + log r"
(o <= K; o = K + 1: the first two terms at t_K, plus log r), z = Phi^{-1}(1 - delta_q/K),
with delta (delta_psi + delta_q) r/(r - 1).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import numpy as np
from flint import arb
from numpy.typing import ArrayLike, NDArray

from adaptive_dp.errors import GridError, ParameterError
from adaptive_dp.evalues.boundaries import Boundary, NormalMixtureBoundary, VilleBoundary
from adaptive_dp.guarantees.expost import ExPost
from adaptive_dp.mechanisms.above_threshold import ReducedAboveThreshold
from adaptive_dp.numerics import (
    ExactLike,
    arb_of,
    enclose,
    exact,
    exact_delta,
    exact_positive,
    exact_upper,
    round_up,
)

__all__ = [
    "brownian_expost",
    "brownian_expost_float",
    "reduced_above_threshold_expost",
    "single_bm_expost",
    "single_bm_expost_float",
    "single_bm_expost_linear",
    "single_bm_expost_mixture",
]


def _variance(sensitivities: Sequence[ExactLike], t_stops: Sequence[ExactLike]) -> Fraction:
    if len(sensitivities) != len(t_stops):
        raise ParameterError(
            "t_stops", tuple(t_stops), f"one time value per sensitivity ({len(sensitivities)})"
        )
    total = Fraction(0)
    for d, t in zip(sensitivities, t_stops, strict=True):
        dd = exact_positive(d, "sensitivity")
        tt = exact(t, "t_stop")
        if tt <= 0:
            raise GridError("t_stop", t, "a time value > 0")
        total += dd * dd / tt
    return total


def _expost_at(v: Fraction, boundary: Boundary) -> Fraction:
    return v / 2 + exact_upper(boundary.threshold(v))


def brownian_expost(
    sensitivities: Sequence[ExactLike],
    t_stops: Sequence[ExactLike],
    boundary: Boundary,
    t_mins: Sequence[ExactLike] | None = None,
) -> ExPost:
    """R23-Thm5 (reconstructed): (E, delta) ex-post privacy of chained BMs.

    "E = V/2 + b(V), V = sum_i Delta_i^2/t_i", t_i the realised stopping time values,
    Delta_i the declared l2 sensitivities, b the boundary fixed in advance (its delta is
    the ex-post delta).  ``t_mins`` (the grids' smallest time values) give
    ``max_epsilon``.  Rounded UP, certified.
    """
    v = _variance(sensitivities, t_stops)
    eps = round_up(_expost_at(v, boundary))
    top = eps
    if t_mins is not None:
        v_max = _variance(sensitivities, t_mins)
        if v_max < v:
            raise ParameterError("t_mins", tuple(t_mins), "t_min <= t_stop in every round")
        top = max(eps, round_up(_expost_at(v_max, boundary)))
    return ExPost(eps, boundary.delta, top)


def brownian_expost_float(v: ArrayLike, boundary: Boundary) -> NDArray[np.float64]:
    """R23-Thm5 in floats for simulations: V/2 + b(V) (not certified)."""
    va = np.asarray(v, dtype=np.float64)
    out: NDArray[np.float64] = va / 2 + boundary.threshold_float(va)
    return out


def single_bm_expost(
    sensitivity: ExactLike,
    t_stop: ExactLike,
    boundary: Boundary,
    t_grid: Sequence[ExactLike] | None = None,
) -> ExPost:
    """W22-Thm3.6 (reconstructed): the ex-post bound of one BM stopped at t_stop.

    "If P(exists t > 0 : W_t >= psi_delta(t)) <= delta, the BM stopped at T is
    (E, delta)-ex-post private with E(T) = Delta^2/(2T) + Delta psi_delta(T)/T", the boundary
    (a :class:`Boundary` with V = t, fixed before the BM runs) applied to the unscaled W in
    natural time.  ``max_epsilon`` is the maximum of E over ``t_grid`` when given.
    Rounded UP, certified.
    """
    d = exact_positive(sensitivity, "sensitivity")

    def at(t_value: ExactLike) -> Fraction:
        t = exact_positive(t_value, "t_stop")
        return d * d / (2 * t) + d / t * exact_upper(boundary.threshold(t))

    eps = round_up(at(t_stop))
    top = eps if t_grid is None else max([eps, *(round_up(at(t)) for t in t_grid)])
    return ExPost(eps, boundary.delta, top)


def single_bm_expost_mixture(
    sensitivity: ExactLike,
    t_stop: ExactLike,
    delta: ExactLike,
    mixture_rho: ExactLike,
    t_grid: Sequence[ExactLike] | None = None,
) -> ExPost:
    """W22-MixtureExPost (reconstructed): W22-Thm3.6 with the normal-mixture boundary,
    "E(T) = Delta^2/(2T) + (Delta/T) sqrt(2 (T + rho) log(sqrt((T + rho)/rho)/delta))",
    rho fixed in advance."""
    return single_bm_expost(
        sensitivity, t_stop, NormalMixtureBoundary(mixture_rho, delta=delta), t_grid
    )


def single_bm_expost_linear(
    sensitivity: ExactLike,
    t_stop: ExactLike,
    delta: ExactLike,
    slope: ExactLike,
    t_grid: Sequence[ExactLike] | None = None,
) -> ExPost:
    """W22-LinearExPost (reconstructed): W22-Thm3.6 with the line psi(t) = a t +
    log(1/delta)/(2a) (Ville with lambda = 2a), "E(T) = Delta^2/(2T) + Delta a +
    Delta log(1/delta)/(2 a T)", a > 0 fixed in advance."""
    a = exact_positive(slope, "slope")
    return single_bm_expost(sensitivity, t_stop, VilleBoundary(2 * a, delta=delta), t_grid)


def single_bm_expost_float(
    sensitivity: float, t_stop: ArrayLike, boundary: Boundary
) -> NDArray[np.float64]:
    """W22-Thm3.6 in floats for simulations (not certified)."""
    t = np.asarray(t_stop, dtype=np.float64)
    out: NDArray[np.float64] = sensitivity**2 / (2 * t) + sensitivity / t * (
        boundary.threshold_float(t)
    )
    return out


def reduced_above_threshold_expost(
    mechanism: ReducedAboveThreshold,
    outcome: int,
    boundary: Boundary,
    query_delta: ExactLike,
    slack: ExactLike = 2,
) -> ExPost:
    """W22-ReducedAboveThreshold (reconstructed): (E_o, delta) ex-post privacy of outcome o.

    "E_o = Delta^2/(2 t_o) + Delta psi(t_o)/t_o + 2 Delta^2/s_o + 2 Delta z/sqrt(s_o) +
    log r" for a halting level o <= K, and "Delta^2/(2 t_K) + Delta psi(t_K)/t_K + log r"
    for o = K + 1; psi is ``boundary`` (V = t, fixed in advance, its delta delta_psi),
    z = Phi^{-1}(1 - delta_q/K) with delta_q = ``query_delta``, r = ``slack`` > 1;
    delta = (delta_psi + delta_q) r/(r - 1). ``max_epsilon`` is the maximum over the
    K + 1 outcomes. Rounded UP, certified.
    """
    k_max = mechanism.levels
    if not 1 <= outcome <= k_max + 1:
        raise ParameterError("outcome", outcome, f"a level in 1..{k_max + 1}")
    d = mechanism.sensitivity
    dq = exact_delta(query_delta, "query_delta", allow_zero=False)
    r = exact(slack, "slack")
    if r <= 1:
        raise ParameterError("slack", slack, "a factor r > 1 (gamma = log r > 0)")
    delta = (boundary.delta + dq) * r / (r - 1)

    def at(o: int) -> Fraction:
        t = Fraction(mechanism.times[min(o, k_max) - 1])
        threshold_part = d * d / (2 * t) + d / t * exact_upper(boundary.threshold(t))
        if o > k_max:
            return threshold_part + exact_upper(enclose(lambda: arb_of(r).log()))
        s = Fraction(mechanism.query_variances[o - 1])

        def query_part() -> arb:
            z = arb(2).sqrt() * (2 * arb_of(dq) / k_max).erfcinv()
            return (2 * arb_of(d) ** 2 / arb_of(s) + 2 * arb_of(d) * z / arb_of(s).sqrt()
                    + arb_of(r).log())

        return threshold_part + exact_upper(enclose(query_part))

    values = [round_up(at(o)) for o in range(1, k_max + 2)]
    return ExPost(values[outcome - 1], delta, max(values))
