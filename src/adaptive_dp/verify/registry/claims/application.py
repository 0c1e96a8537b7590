"""Claims of the relative-error application (R23 section 7).

``EXT-CR21/<relation>``: the exponential mechanism by Gumbel noise
(:class:`~adaptive_dp.mechanisms.exponential.ExponentialMechanism`, bounded-range
parameter eps_EM = 2, so charged ZCDP(1/2)) on worst-case neighbouring count vectors of
two candidates: add/remove, x = (0, 0) and x' = (1, 0) (a user adds 1 to the first
count), scale 1/eps_EM; change-one-row, x = (0, 1) and x' = (1, 0), scale 2/eps_EM.
Hockey-stick, both orders, at the stated eps = 13/10 (quick: claimed delta = the EXT-CKS20
conversion of ZCDP(1/2) there, about 0.170; the true value is about 0.063) or at the
optimal eps for delta = 1e-3 (full).  The loss of each released index is computed from
the exact selection probabilities of the Gumbel-max, softmax(counts / scale) with the
scale the mechanism actually used (mpmath, 30 digits), never from the charge under test.
Twin ``halved-scale``: the Gumbel scale halved (range 2 eps_EM, true delta about 0.43 at
eps = 13/10) still charged eps_EM^2/8.

``R23-DoublingMethod/<scenario>`` and ``R23-BrownianRelativeError/<scenario>``: the
whole method (:func:`~adaptive_dp.applications.relative_error.run_doubling` or
``run_brownian``, unmodified) on x = (20, 20, 20, 20) and x' = (21, 20, 20, 20)
(add/remove: one user added to the first count), budget (epsilon, delta) = (1, 0.05)
quick or (1, 1e-3) full, level 0.05, eps_EM 1/4, eps_min^2 1e-3, BM grid of 50, and
alpha 0.2 (``equal-counts``: counts are released) or 0.01 (``budget-hugging``: no attempt
can stop, so the first round spends the whole budget on the selected count).
:class:`RecordingSettings` records what the run releases (each selection with its
candidates, each noisy count the stopping condition reads, with its sigma), and
:func:`realised_loss` computes the loss of the whole view from densities: the exact
Gumbel-max selection probabilities at the scale used, the Gaussian densities of every
released doubling attempt, and for a Brownian noise reduction the Gaussian density of its
last iterate (the loss of the released prefix, R23-Lem4.1). Hockey-stick at eps = 1
against the charged delta, both orders. Twin ``inverted-em-scale``
(:class:`~adaptive_dp.verify.registry.twins.application.InvertedScaleExponential`): the
Gumbel scale eps_EM instead of 1/eps_EM (16 times too small), still charged eps_EM^2/8;
true delta at least 0.3 at eps = 1 against 0.05 (the verify output shows it).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from functools import partial

import mpmath
import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import logsumexp

from adaptive_dp.applications.relative_error import (
    Outcome,
    Settings,
    StoppingCondition,
    run_method,
)
from adaptive_dp.guarantees.zcdp import zcdp_delta_optimal, zcdp_to_dp_optimal
from adaptive_dp.mechanisms.exponential import ExponentialMechanism
from adaptive_dp.verify.judge.claim import Claim, Setup, Twin, profile_delta, samples_for
from adaptive_dp.verify.judge.estimators import Quantity
from adaptive_dp.verify.registry.twins.application import (
    HalvedScaleExponential,
    InvertedScaleExponential,
)

__all__ = ["CLAIMS", "RELATIVE_X", "RELATIVE_X_PRIME", "RecordingSettings",
           "RelativeErrorExperiment", "SelectionExperiment", "realised_loss",
           "selection_log_probabilities"]

_EM_EPSILON = Fraction(2)
_QUICK_EPSILON = Fraction(13, 10)
_PAIRS: dict[str, tuple[tuple[int, ...], tuple[int, ...]]] = {
    "add-remove": ((0, 0), (1, 0)),
    "change-one": ((0, 1), (1, 0)),
}


def selection_log_probabilities(counts: tuple[int, ...], scale: float) -> NDArray[np.float64]:
    """log P[argmax_j (u_j + Gumbel(0, b)) = j] = u_j/b - log sum_k exp(u_k/b) (the
    Gumbel-max identity), evaluated with mpmath at 30 digits."""
    with mpmath.workdps(30):
        b = mpmath.mpf(scale)
        terms = [mpmath.mpf(u) / b for u in counts]
        top = max(terms)
        log_z = top + mpmath.log(mpmath.fsum(mpmath.exp(t - top) for t in terms))
        return np.array([float(t - log_z) for t in terms], dtype=np.float64)


@dataclass(frozen=True, slots=True)
class SelectionExperiment:
    """Privacy loss of one Gumbel-argmax release on the pair (x, x'): sampled with the
    mechanism, loss from the exact selection probabilities."""

    mechanism: ExponentialMechanism
    x: tuple[int, ...]
    x_prime: tuple[int, ...]

    def __call__(self, paths: int, rng: np.random.Generator, under: str) -> NDArray[np.float64]:
        if under not in ("x", "x'"):
            raise ValueError(f"under={under!r} is not allowed: expected 'x' or \"x'\"")
        mine, other = (self.x, self.x_prime) if under == "x" else (self.x_prime, self.x)
        scale = self.mechanism.scale
        log_p = selection_log_probabilities(mine, scale)
        log_q = selection_log_probabilities(other, scale)
        counts = np.broadcast_to(np.asarray(mine, dtype=np.float64), (paths, len(mine)))
        y = self.mechanism.select(counts, rng)
        out: NDArray[np.float64] = (log_p - log_q)[y]
        return out


def _setup(mechanism: ExponentialMechanism, profile: str, relation: str) -> Setup:
    charge = mechanism.guarantee()
    if profile == "quick":
        epsilon = float(_QUICK_EPSILON)
        delta = zcdp_delta_optimal(charge, _QUICK_EPSILON)
    else:
        delta = profile_delta(profile, 0.05)
        epsilon = float(zcdp_to_dp_optimal(charge, Fraction(delta)).epsilon)
    x, x_prime = _PAIRS[relation]
    return Setup(Quantity.HOCKEY_STICK, epsilon, delta,
                 SelectionExperiment(mechanism, x, x_prime),
                 samples_for(Quantity.HOCKEY_STICK, delta),
                 note=f"Gumbel argmax, eps_EM={_EM_EPSILON} ({relation}, scale "
                      f"{mechanism.scale:g}), x={x}, x'={x_prime}, charged "
                      f"rho={charge.rho}, delta={delta:.4g} at eps={epsilon:.4g}")


def _claim(relation: str) -> Callable[[str], Setup]:
    def build(profile: str) -> Setup:
        return _setup(ExponentialMechanism(_EM_EPSILON, relation), profile, relation)
    return build


def _twin(relation: str) -> Callable[[str], Setup]:
    def build(profile: str) -> Setup:
        return _setup(HalvedScaleExponential(_EM_EPSILON, relation), "quick", relation)
    return build


CLAIMS: tuple[Claim, ...] = tuple(
    Claim("EXT-CR21", relation, Quantity.HOCKEY_STICK,
          "an eps-bounded-range mechanism (Gumbel argmax of sensitivity-1 counts, scale "
          f"{'1' if relation == 'add-remove' else '2'}/eps) is eps^2/8-zCDP",
          _claim(relation),
          (Twin("halved-scale", "Gumbel scale halved (range 2 eps), charged eps^2/8",
                _twin(relation)),))
    for relation in ("add-remove", "change-one")
)


# --- R23-DoublingMethod and R23-BrownianRelativeError: the realised loss of a whole run.


class _Recorder:
    """What a run of a relative-error method releases, in order: ("select", index,
    available) for each exponential-mechanism round and ("check", noisy, sigma) for each
    noisy count the stopping condition reads (every attempt of the doubling method; every
    iterate of a Brownian noise reduction, the last of a round being the charged one)."""

    def __init__(self) -> None:
        self.events: list[tuple[str, NDArray[np.float64], NDArray[np.float64]]] = []


class _RecordingCondition(StoppingCondition):
    __slots__ = ("recorder",)
    recorder: _Recorder

    def __init__(self, alpha: float, level: float, recorder: _Recorder) -> None:
        super().__init__(alpha, level)
        object.__setattr__(self, "recorder", recorder)

    def __call__(self, noisy: ArrayLike, sigma: ArrayLike) -> NDArray[np.bool_]:
        y = np.array(noisy, dtype=np.float64)
        s = np.broadcast_to(np.asarray(sigma, dtype=np.float64), y.shape).copy()
        self.recorder.events.append(("check", y, s))
        return super().__call__(y, s)


def _recording_selector(kind: type[ExponentialMechanism]
                        ) -> Callable[[Fraction, str, _Recorder], ExponentialMechanism]:
    class Recording(kind):  # type: ignore[valid-type, misc]
        __slots__ = ("recorder",)

        def __init__(self, epsilon: Fraction, relation: str, recorder: _Recorder) -> None:
            super().__init__(epsilon, relation)
            object.__setattr__(self, "recorder", recorder)

        def select(self, counts: ArrayLike, rng: np.random.Generator,
                   available: ArrayLike | None = None) -> NDArray[np.int64]:
            picks: NDArray[np.int64] = super().select(counts, rng, available)
            mask = np.broadcast_to(np.asarray(True if available is None else available,
                                              dtype=bool), np.shape(counts)).copy()
            self.recorder.events.append(("select", picks.astype(np.float64),
                                         mask.astype(np.float64)))
            return picks

    return Recording


class RecordingSettings(Settings):
    """:class:`~adaptive_dp.applications.relative_error.Settings` whose stopping condition
    and exponential mechanism (of class ``selector``) record what they release."""

    __slots__ = ("_condition", "_selector", "recorder")
    _condition: StoppingCondition
    _selector: ExponentialMechanism
    recorder: _Recorder

    def __init__(self, *, selector: type[ExponentialMechanism] = ExponentialMechanism,
                 **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        recorder = _Recorder()
        object.__setattr__(self, "recorder", recorder)
        object.__setattr__(self, "_condition",
                           _RecordingCondition(self.alpha, self.level, recorder))
        object.__setattr__(self, "_selector", _recording_selector(selector)(
            self.em_epsilon, self.relation, recorder))

    @property
    def condition(self) -> StoppingCondition:
        return self._condition

    @property
    def selector(self) -> ExponentialMechanism:
        return self._selector


RELATIVE_X = (20, 20, 20, 20)
"""Counts of the relative-error scenario's dataset x (equal, so the selections are
uninformative on x); x' adds one user to the first count."""
RELATIVE_X_PRIME = (21, 20, 20, 20)


def _log_selection(counts: NDArray[np.float64], available: NDArray[np.float64],
                   picks: NDArray[np.float64], scale: float) -> NDArray[np.float64]:
    """log P[Gumbel argmax over the available candidates = pick] = u_pick/b - logsumexp
    over the available u/b (the Gumbel-max identity), per path."""
    z = np.where(available > 0, counts[None, :] / scale, -np.inf)
    out: NDArray[np.float64] = (np.take_along_axis(z, picks.astype(np.int64)[:, None], 1)[:, 0]
                                - logsumexp(z, axis=1))
    return out


def realised_loss(outcome: Outcome, settings: RecordingSettings,
                  mine: tuple[int, ...], other: tuple[int, ...]) -> NDArray[np.float64]:
    """The privacy loss log p_mine(view) - p_other(view) of each trial's view: every
    selected index (from the exact selection probabilities at the scale used) and every
    released noisy count, from the Gaussian densities N(count, sigma^2) of the selected
    element on the two datasets (for a Brownian noise reduction, of its last iterate
    only: the loss of the whole prefix equals it, R23-Lem4.1)."""
    a, b = np.asarray(mine, dtype=np.float64), np.asarray(other, dtype=np.float64)
    scale = settings.selector.scale
    steps = iter(outcome.steps)
    loss = np.zeros(outcome.returned.size)
    picks = np.zeros(outcome.returned.size)
    events = settings.recorder.events
    for i, (kind, first, second) in enumerate(events):
        if kind == "select":
            picks = first
            admitted = next(steps).admitted
            gap = _log_selection(a, second, picks, scale) - _log_selection(b, second, picks,
                                                                           scale)
            loss += np.where(admitted, gap, 0.0)
            continue
        last_check = i + 1 == len(events) or events[i + 1][0] == "select"
        if outcome.method == "brownian" and not last_check:
            continue  # an inner iterate of the BM: its loss is carried by the last one
        admitted = next(steps).admitted
        ca, cb = a[picks.astype(np.int64)], b[picks.astype(np.int64)]
        gap = ((first - cb) ** 2 - (first - ca) ** 2) / (2 * second**2)
        loss += np.where(admitted, gap, 0.0)
    return loss


@dataclass(frozen=True, slots=True)
class RelativeErrorExperiment:
    """One run of a relative-error method per path on x (order "x") or x' (order "x'"),
    with settings ``options`` and exponential mechanism ``selector``; returns the realised
    loss of each run's view (:func:`realised_loss`)."""

    method: str
    options: tuple[tuple[str, object], ...]
    selector: type[ExponentialMechanism] = ExponentialMechanism

    def __call__(self, paths: int, rng: np.random.Generator, under: str) -> NDArray[np.float64]:
        if under not in ("x", "x'"):
            raise ValueError(f"under={under!r} is not allowed: expected 'x' or \"x'\"")
        mine, other = ((RELATIVE_X, RELATIVE_X_PRIME) if under == "x"
                       else (RELATIVE_X_PRIME, RELATIVE_X))
        settings = RecordingSettings(selector=self.selector, **dict(self.options))
        histograms = np.broadcast_to(np.asarray(mine, dtype=np.float64), (paths, len(mine)))
        outcome = run_method(self.method, histograms, settings, rng)
        return realised_loss(outcome, settings, mine, other)


_ALPHAS = {"equal-counts": 0.2, "budget-hugging": 0.01}
"""The relative error of each scenario: at 0.01 no attempt on a count of 20 can stop
(sigma would have to be below 0.1), so the first round spends the whole budget on the
selected count and discards it."""


def _relative_options(profile: str, scenario: str = "equal-counts"
                      ) -> tuple[tuple[str, object], ...]:
    """The scenario's settings: budget (1, delta) with delta 0.05 (quick) or 1e-3 (full),
    alpha of the scenario, level 0.05, eps_EM 1/4, eps_min^2 1e-3, 50 BM grid points."""
    return (("epsilon", 1), ("delta", str(profile_delta(profile, 0.05))),
            ("alpha", _ALPHAS[scenario]), ("level", 0.05), ("em_epsilon", "0.25"),
            ("eps2_min", "0.001"), ("grid_size", 50))


def _relative_setup(method: str, scenario: str, profile: str,
                    selector: type[ExponentialMechanism] = ExponentialMechanism) -> Setup:
    options = _relative_options(profile, scenario)
    settings = dict(options)
    delta = float(Fraction(str(settings["delta"])))
    return Setup(Quantity.HOCKEY_STICK, 1.0, delta,
                 RelativeErrorExperiment(method, options, selector),
                 samples_for(Quantity.HOCKEY_STICK, delta),
                 note=f"{method} on x={RELATIVE_X}, x'={RELATIVE_X_PRIME}, budget (1, "
                      f"{delta:g}), alpha {_ALPHAS[scenario]:g}, eps_EM 1/4, eps_min^2 1e-3, "
                      "BM grid 50")


def _relative_twin(method: str, scenario: str) -> Callable[[str], Setup]:
    def build(profile: str) -> Setup:
        return _relative_setup(method, scenario, "quick", InvertedScaleExponential)
    return build


_RELATIVE_SPECS = {"doubling": "R23-DoublingMethod", "brownian": "R23-BrownianRelativeError"}

CLAIMS = CLAIMS + tuple(
    Claim(spec_id, scenario, Quantity.HOCKEY_STICK,
          "the realised loss of everything the method releases (selections and noisy "
          "counts, from their densities) is within the (epsilon, delta) its filter charges",
          partial(_relative_setup, method, scenario),
          (Twin("inverted-em-scale", "the exponential mechanism's Gumbel scale "
                "epsilon/sensitivity instead of sensitivity/epsilon, still charged eps^2/8",
                _relative_twin(method, scenario)),))
    for method, spec_id in _RELATIVE_SPECS.items() for scenario in _ALPHAS
)
