"""R23 section 7 (reconstructed settings): release as many top counts as possible, each
within relative error alpha of its true count, under one (epsilon, delta) budget.

Each round selects the top remaining element with the exponential mechanism
(:class:`~adaptive_dp.mechanisms.exponential.ExponentialMechanism`, EXT-CR21, charged
ZCDP(eps_EM^2/8)), then releases its count by one of two methods:

* :func:`run_doubling` (R23 section 7.1, the "doubling method"): Gaussian mechanisms with
  squared privacy parameters eps^2 = eps_min^2, 2 eps_min^2, 4 eps_min^2, ... (noise
  N(0, 1/eps^2), i.e. rho = eps^2/2 for a count of sensitivity 1), the last one capped at
  the largest admissible value, every attempt charged, composed with the R23-Thm2 filter
  :class:`~adaptive_dp.filters.zcdp.ZCDPFilter`;
* :func:`run_brownian` (R23 section 7.2): one Brownian noise reduction per count on a grid
  of ``grid_size`` squared parameters equally spaced between eps_min^2 and the largest
  admissible value (time values t = 1/eps^2), composed with the unified filter R23-Thm6
  :class:`~adaptive_dp.filters.brownian.UnifiedFilter`; only where it stopped is charged.

Both use :class:`StoppingCondition` on the noisy count and the noise scale of the current
iterate, and both discard a count whose last iterate still fails it.  The interaction ends
when the filter refuses the exponential mechanism, when no count release fits the
remaining budget (largest admissible eps^2 below eps_min^2), or when every element has
been selected.  Simulation uses the filters' vectorised fast paths (never on the unsafe
side of the certified path); :func:`certify_trial` replays one trial's transcript through
the certified path after the fact.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from statistics import NormalDist
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from adaptive_dp.errors import InsufficientBudgetError, ParameterError
from adaptive_dp.filters.base import FastFilterState, FilterState
from adaptive_dp.filters.brownian import UnifiedFilter, fast_bm_spend, fast_zcdp_spend
from adaptive_dp.filters.zcdp import ZCDPFilter
from adaptive_dp.guarantees.definitions import ZCDP
from adaptive_dp.guarantees.spends import BrownianSpend, Spend
from adaptive_dp.mechanisms.brownian import brownian_backward_step
from adaptive_dp.mechanisms.exponential import ExponentialMechanism
from adaptive_dp.mechanisms.gaussian import gaussian_sample
from adaptive_dp.numerics import ExactLike, exact_delta, exact_positive, round_up
from adaptive_dp.numerics.floats import inflate_up

__all__ = [
    "METHODS",
    "Outcome",
    "Settings",
    "Step",
    "StoppingCondition",
    "certify_trial",
    "run_brownian",
    "run_doubling",
    "run_method",
    "within_relative_error",
]

Method = Literal["doubling", "brownian"]
METHODS: tuple[Method, ...] = ("doubling", "brownian")

_CAP_MARGIN = 1e-9
"""Relative margin below the certified largest admissible charge (absorbs fast-path
rounding; a refused attempt is never run)."""


@dataclass(frozen=True, slots=True, init=False)
class StoppingCondition:
    """R23-RelativeErrorStop (reconstructed; R23 section 7.2 drops the formula: "we use the
    following condition based on the noisy count and the corresponding privacy loss
    parameter at iterate k").

    Release the noisy count y_hat of an iterate with noise standard deviation sigma
    (= 1/eps^(k) for both methods: N(0, 1/eps^2) noise, or B(t) with t = 1/eps^2) iff

        z sigma (1 + alpha) <= alpha y_hat,   z = Phi^{-1}(1 - level/2).

    On the event ``|y_hat - y| <= z sigma`` (probability 1 - level for a fixed iterate) it gives
    y >= y_hat - z sigma >= z sigma / alpha, hence ``|y_hat - y| <= z sigma <= alpha y``: the
    relative error is within alpha.  It targets P[relative error > alpha | released] at
    ``level`` per checked iterate (selection over many iterates may move it: the measured
    precision reports what happens).  The same condition for both methods.
    """

    alpha: float
    level: float
    z: float

    def __init__(self, alpha: float, level: float) -> None:
        if not 0 < alpha < 1:
            raise ParameterError("alpha", alpha, "a relative error in (0, 1)")
        if not 0 < level < 1:
            raise ParameterError("level", level, "a probability in (0, 1)")
        object.__setattr__(self, "alpha", float(alpha))
        object.__setattr__(self, "level", float(level))
        object.__setattr__(self, "z", NormalDist().inv_cdf(1 - level / 2))

    def __call__(self, noisy: ArrayLike, sigma: ArrayLike) -> NDArray[np.bool_]:
        y = np.asarray(noisy, dtype=np.float64)
        s = np.asarray(sigma, dtype=np.float64)
        out: NDArray[np.bool_] = self.z * s * (1 + self.alpha) <= self.alpha * y
        return out

    def within(self, noisy: ArrayLike, truth: ArrayLike) -> NDArray[np.bool_]:
        """R23-RelativeError at this condition's alpha (:func:`within_relative_error`)."""
        return within_relative_error(noisy, truth, self.alpha)


def within_relative_error(noisy: ArrayLike, truth: ArrayLike, alpha: float) -> NDArray[np.bool_]:
    """R23-RelativeError (reconstructed; R23 section 7: "if y is the true count and y_hat
    the noisy count, we require ..."): "``|y_hat - y| <= alpha y``", elementwise."""
    y = np.asarray(truth, dtype=np.float64)
    out: NDArray[np.bool_] = np.abs(np.asarray(noisy, dtype=np.float64) - y) <= alpha * y
    return out


@dataclass(frozen=True, slots=True, init=False)
class Settings:
    """R23-ExperimentBudget (reconstructed): the experiment's parameters (R23 section 7;
    the lost ones fixed once, before any result was seen, and recorded in
    docs/relative-error.md).  "stop if [the sum of squared privacy parameters] is more than
    roughly 2.705": epsilon = 10, delta'' = 1e-6 give 2 rho* = 2.70602.

    ``epsilon``/``delta``: the overall (epsilon, delta)-DP target, delta being the
    filters' delta'' (their delta part is 0): 10 and 1e-6, where 2 rho* = 2.706 (R23:
    "roughly 2.705").  ``alpha`` = 0.01 (the only surviving value, from the Reddit run),
    ``level`` = 0.05, ``em_epsilon`` = 1/20, ``eps2_min`` = 1e-6, ``grid_size`` = 1000,
    ``relation`` = add/remove.
    """

    epsilon: Fraction
    delta: Fraction
    alpha: float
    level: float
    em_epsilon: Fraction
    eps2_min: Fraction
    grid_size: int
    relation: str

    def __init__(
        self,
        epsilon: ExactLike = 10,
        delta: ExactLike = "1e-6",
        alpha: float = 0.01,
        level: float = 0.05,
        em_epsilon: ExactLike = "0.05",
        eps2_min: ExactLike = "1e-6",
        grid_size: int = 1000,
        relation: str = "add-remove",
    ) -> None:
        object.__setattr__(self, "epsilon", exact_positive(epsilon, "epsilon"))
        object.__setattr__(self, "delta", exact_delta(delta, "delta", allow_zero=False))
        StoppingCondition(alpha, level)
        object.__setattr__(self, "alpha", float(alpha))
        object.__setattr__(self, "level", float(level))
        object.__setattr__(self, "em_epsilon", exact_positive(em_epsilon, "em_epsilon"))
        object.__setattr__(self, "eps2_min", exact_positive(eps2_min, "eps2_min"))
        if grid_size < 2:
            raise ParameterError("grid_size", grid_size, "an integer >= 2")
        object.__setattr__(self, "grid_size", int(grid_size))
        ExponentialMechanism(1, relation)
        object.__setattr__(self, "relation", relation)

    @property
    def condition(self) -> StoppingCondition:
        return StoppingCondition(self.alpha, self.level)

    @property
    def selector(self) -> ExponentialMechanism:
        return ExponentialMechanism(self.em_epsilon, self.relation)

    def zcdp_filter(self) -> ZCDPFilter:
        """R23-Thm2 filter of the doubling method: (epsilon, 0, delta'' = delta)."""
        return ZCDPFilter(self.epsilon, delta=self.delta)

    def unified_filter(self) -> UnifiedFilter:
        """R23-Thm6 filter of the Brownian method: (epsilon, 0, delta'' = delta)."""
        return UnifiedFilter(self.epsilon, delta=self.delta)


@dataclass(frozen=True, slots=True)
class Step:
    """One vectorised step of a transcript: ``kind`` is "zcdp" (``values[:, 0]`` = rho)
    or "bm" (``values[:, 0]`` = t_min, ``values[:, 1]`` = t_stop, sensitivity 1);
    ``admitted[i]``: trial i made this spend (others made none)."""

    kind: Literal["zcdp", "bm"]
    values: NDArray[np.float64]
    admitted: NDArray[np.bool_]


@dataclass(frozen=True, slots=True)
class Outcome:
    """The trials of one method: per trial, ``returned`` (counts released), ``correct``
    (released counts truly within alpha), ``rounds`` (selections made), ``eps2_spent``
    (twice the charged rho: the sum of squared privacy parameters), and the transcript."""

    method: str
    returned: NDArray[np.int64]
    correct: NDArray[np.int64]
    rounds: NDArray[np.int64]
    eps2_spent: NDArray[np.float64]
    steps: tuple[Step, ...] = field(repr=False)

    @property
    def precision(self) -> NDArray[np.float64]:
        """Share of returned counts truly within alpha; 1 when nothing is returned (R23)."""
        r = self.returned.astype(np.float64)
        out: NDArray[np.float64] = np.where(
            self.returned > 0, self.correct / np.maximum(r, 1.0), 1.0
        )
        return out

    def spends(self, trial: int) -> tuple[Spend, ...]:
        """Trial ``trial``'s spends in order, as the certified path takes them."""
        out: list[Spend] = []
        for step in self.steps:
            if not step.admitted[trial]:
                continue
            if step.kind == "zcdp":
                out.append(ZCDP(float(step.values[trial, 0])))
            else:
                out.append(
                    BrownianSpend(1, float(step.values[trial, 0]), float(step.values[trial, 1]))
                )
        return tuple(out)


def certify_trial(outcome: Outcome, settings: Settings, trial: int) -> FilterState:
    """Replay one trial's transcript through the certified path of its filter (R23-Thm2
    for doubling, R23-Thm6 for Brownian); raises InsufficientBudgetError at the first
    spend the certified filter refuses.  Returns the final state."""
    rule = settings.zcdp_filter() if outcome.method == "doubling" else settings.unified_filter()
    state = rule.start()
    for index, spend in enumerate(outcome.spends(trial)):
        decision, state = state.spend(spend)
        if not decision:
            raise InsufficientBudgetError(f"spend {index} of trial {trial}: {spend}",
                                          state.remaining())
    return state


class _Ledger:
    """Collects the transcript's steps (private)."""

    def __init__(self) -> None:
        self.steps: list[Step] = []

    def add(self, kind: Literal["zcdp", "bm"], values: NDArray[np.float64],
            admitted: NDArray[np.bool_]) -> None:
        self.steps.append(Step(kind, np.array(values, dtype=np.float64, copy=True),
                               np.array(admitted, dtype=bool, copy=True)))


def _rho_star(rule: ZCDPFilter) -> float:
    """The certified largest total charge rho* (rounded down) of an empty filter."""
    room = rule.start().max_next(0)
    if room is None:
        raise ParameterError("epsilon", rule.epsilon, "a budget that admits some spend")
    return room


def _room(rho_star: float, charged: NDArray[np.float64]) -> NDArray[np.float64]:
    """The largest next charge per path, rounded toward refusal."""
    out: NDArray[np.float64] = (rho_star - charged) * (1 - _CAP_MARGIN) - 1e-300
    return out


@dataclass
class _Run:
    """Per-trial running state shared by both methods (private, mutable inside a run)."""

    counts: NDArray[np.float64]
    available: NDArray[np.bool_]
    active: NDArray[np.bool_]
    returned: NDArray[np.int64]
    correct: NDArray[np.int64]
    rounds: NDArray[np.int64]


def _start(histograms: ArrayLike) -> _Run:
    h = np.asarray(histograms)
    if h.ndim != 2 or h.shape[1] < 1:
        raise ParameterError("histograms", h.shape, "an array of shape (trials, domain)")
    if np.any(h < 0):
        raise ParameterError("histograms", "negative count", "counts >= 0")
    trials = h.shape[0]
    zeros = np.zeros(trials, dtype=np.int64)
    return _Run(h.astype(np.float64), np.ones(h.shape, dtype=bool),
                np.ones(trials, dtype=bool), zeros.copy(), zeros.copy(), zeros.copy())


def _select(run: _Run, settings: Settings, rng: np.random.Generator) -> NDArray[np.float64]:
    """EM on the still-available elements of every trial; returns the true counts of the
    selected elements and marks them used (rows of inactive trials are ignored)."""
    idx = settings.selector.select(run.counts, rng, run.available)
    rows = np.arange(run.counts.shape[0])
    truth = run.counts[rows, idx]
    run.available[rows[run.active], idx[run.active]] = False
    run.rounds += run.active
    return truth


def _record(run: _Run, settings: Settings, released: NDArray[np.bool_],
            noisy: NDArray[np.float64], truth: NDArray[np.float64]) -> None:
    ok = settings.condition.within(noisy, truth)
    run.returned += released
    run.correct += released & ok


def run_doubling(
    histograms: ArrayLike, settings: Settings, rng: np.random.Generator
) -> Outcome:
    """R23-DoublingMethod (reconstructed, R23 section 7.1): "Gaussian attempts with squared
    parameters eps_{k+1}^2 = 2 eps_k^2 (capped by the largest value the remaining budget
    allows), each charged rho_k = eps_k^2/2 to an R23-Thm2 filter; release the first noisy
    count meeting R23-RelativeErrorStop, discard if the largest allowed value fails".
    One trial per row of ``histograms`` (shape ``(trials, domain)``), all trials advanced
    together; each round first selects by the exponential mechanism (EXT-CR21)."""
    run = _start(histograms)
    rule = settings.zcdp_filter()
    rho_star = _rho_star(rule)
    fast: FastFilterState = rule.fast(run.counts.shape[0])
    ledger = _Ledger()
    rho_em = round_up(settings.selector.guarantee().rho)
    eps2_min = float(settings.eps2_min)
    cond = settings.condition
    for _ in range(run.counts.shape[1]):
        if not np.any(run.active):
            break
        em = np.where(run.active, rho_em, 0.0)
        ok, fast = fast.spend(em)
        run.active &= ok
        ledger.add("zcdp", em[:, None], run.active)
        truth = _select(run, settings, rng)
        eps2 = np.full(run.counts.shape[0], eps2_min)
        running = run.active & (2 * _room(rho_star, fast.sums[0]) >= eps2_min)
        run.active &= running
        while np.any(running):
            cap = 2 * _room(rho_star, fast.sums[0])
            last = running & (eps2 >= cap)
            eps2 = np.where(last, cap, eps2)
            sigma = np.sqrt(1.0 / eps2)
            rho = np.where(running, inflate_up(0.5 / (sigma * sigma)), 0.0)
            ok, fast = fast.spend(rho)
            ok &= running
            ledger.add("zcdp", rho[:, None], ok)
            noisy = gaussian_sample(truth, sigma, rng)
            passed = ok & cond(noisy, sigma)
            _record(run, settings, passed, noisy, truth)
            # a refused attempt was never run: nothing released, the interaction ends
            run.active &= ~(running & ~ok)
            done = passed | ~ok | last
            running &= ~done
            eps2 = 2 * eps2
    return _outcome("doubling", run, fast, ledger)


def _bm_grid(eps2_min: float, eps2_max: NDArray[np.float64], size: int) -> NDArray[np.float64]:
    """Time values t = 1/eps^2 (rounded up) of ``size`` squared parameters equally spaced
    between eps2_min and each path's eps2_max: shape ``(paths, size)``, decreasing."""
    frac = np.linspace(0.0, 1.0, size)
    eps2 = eps2_min + frac[None, :] * (eps2_max[:, None] - eps2_min)
    eps2[:, -1] = eps2_max
    out: NDArray[np.float64] = np.nextafter(1.0 / eps2, np.inf)
    return out


def run_brownian(
    histograms: ArrayLike, settings: Settings, rng: np.random.Generator
) -> Outcome:
    """R23-BrownianRelativeError (reconstructed, R23 section 7.2): "select the top count with
    the exponential mechanism (eps_EM^2/8-zCDP by EXT-CR21), then run a BM on that count
    over 1000 squared parameters equally spaced from eps_min^2 to the largest allowed value
    (t^(k) = 1/eps_k^2), stop at the first iterate meeting R23-RelativeErrorStop, charge
    1/(2 t^(T)) to an R23-Thm6 filter; discard on failure".  The BM is admitted only if
    the R23-Eq4 pre-check holds at its smallest time value.  One trial per row of
    ``histograms``, all trials advanced together."""
    run = _start(histograms)
    rule = settings.unified_filter()
    rho_star = _rho_star(rule)
    paths = run.counts.shape[0]
    fast: FastFilterState = rule.fast(paths)
    ledger = _Ledger()
    rho_em = round_up(settings.selector.guarantee().rho)
    eps2_min = float(settings.eps2_min)
    # strictly decreasing grids need some room above eps2_min
    eps2_floor = eps2_min * (1 + 1e-6)
    cond = settings.condition
    size = settings.grid_size
    for _ in range(run.counts.shape[1]):
        if not np.any(run.active):
            break
        em = np.where(run.active, rho_em, 0.0)
        ok, fast = fast_zcdp_spend(fast, em)
        run.active &= ok
        ledger.add("zcdp", em[:, None], run.active)
        truth = _select(run, settings, rng)
        eps2_max = 2 * _room(rho_star, fast.sums[0])
        runnable = run.active & (eps2_max >= eps2_floor)
        times = _bm_grid(eps2_min, np.where(runnable, eps2_max, 2 * eps2_floor), size)
        t_min = times[:, -1]
        # the pre-check (R23-Eq4) before the BM runs: a pure query of the fast path
        admitted, _ = fast_bm_spend(fast, 1.0, t_min, t_min)
        runnable &= admitted
        run.active &= runnable
        if not np.any(runnable):
            break
        stop, noisy = _run_bm(truth, times, runnable, cond, rng)
        rows = np.arange(paths)
        t_stop = np.where(runnable, times[rows, stop], t_min)
        charged, fast = fast_bm_spend(fast, 1.0, np.where(runnable, t_min, np.inf),
                                      np.where(runnable, t_stop, np.inf))
        if np.any(runnable & ~charged):  # pragma: no cover - the pre-check admitted them
            raise RuntimeError("a BM admitted by its pre-check was refused at charge time")
        ledger.add("bm", np.stack([t_min, t_stop], axis=1), runnable)
        passed = runnable & cond(noisy, np.sqrt(t_stop))
        _record(run, settings, passed, noisy, truth)
    return _outcome("brownian", run, fast, ledger)


def _run_bm(
    truth: NDArray[np.float64],
    times: NDArray[np.float64],
    running: NDArray[np.bool_],
    cond: StoppingCondition,
    rng: np.random.Generator,
) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
    """Brownian noise reduction (R23-Def4.4) of ``truth`` on per-path grids ``times``,
    sampled backwards in time, stopped at the first iterate meeting ``cond`` (a function
    of the released prefix only) or at the last time value.  Returns the stop index
    (0-based) and the last released value of each path."""
    paths, size = times.shape
    stop = np.full(paths, size - 1, dtype=np.int64)
    last = np.zeros(paths)
    live = running.copy()
    b = np.sqrt(times[:, 0]) * rng.standard_normal(paths)
    for k in range(size):
        if k > 0:
            idx = np.flatnonzero(live)
            b[idx] = brownian_backward_step(b[idx], times[idx, k - 1], times[idx, k], rng)
        noisy = truth + b
        fired = live & (cond(noisy, np.sqrt(times[:, k])) | (k == size - 1))
        stop[fired] = k
        last[fired] = noisy[fired]
        live &= ~fired
        if not np.any(live):
            break
    return stop, last


def _outcome(method: str, run: _Run, fast: FastFilterState, ledger: _Ledger) -> Outcome:
    return Outcome(method, run.returned, run.correct, run.rounds, 2 * fast.sums[0],
                   tuple(ledger.steps))


RUNNERS: dict[str, Callable[[ArrayLike, Settings, np.random.Generator], Outcome]] = {
    "doubling": run_doubling,
    "brownian": run_brownian,
}


def run_method(
    method: str, histograms: ArrayLike, settings: Settings, rng: np.random.Generator
) -> Outcome:
    """Run ``method`` ("doubling" or "brownian") on every row of ``histograms``."""
    if method not in RUNNERS:
        raise ParameterError("method", method, f"one of {METHODS}")
    return RUNNERS[method](histograms, settings, rng)

