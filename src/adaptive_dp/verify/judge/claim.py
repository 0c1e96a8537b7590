"""Claim and twin values of the registry, and the experiments they run.

A :class:`Claim` names its spec id, scenario, quantity and twins; ``build(profile)``
gives the :class:`Setup` of one profile ("quick" or "full"): the experiment (a
function ``(paths, rng, under) -> samples``), the evaluation epsilon, the claimed value,
the number of samples and the orders of the neighbouring pair to test. A
:class:`Twin` (negative control) has the same shape; it is caught iff its verdict is
violated. Samples per order (:func:`samples_for`) are the smallest n whose detectable
ratio meets the profile's target (:data:`adaptive_dp.verify.judge.verdicts.TARGETS`, see
:func:`adaptive_dp.verify.judge.estimators.required_samples`) times :data:`SAFETY`, for
the profile a setup is built for: ``Claim.setup(profile)`` (what the runner judges) builds
inside :func:`sized_for`; a bare ``build`` outside it sizes for quick. Twins keep the
scenario and the sample sizes of the quick profile under "full" too: they are negative
controls, and their scenarios are chosen so that the true value is at least twice their
claim, which the quick target detects with probability at least 0.95.

Claims of later issues register the same way: a module of :mod:`adaptive_dp.verify.registry.claims`
exposes ``CLAIMS: tuple[Claim, ...]``; an experiment that needs a filter, accumulator or
odometer passes a :class:`adaptive_dp.verify.judge.simulate.BatchRule` to
:class:`AdversaryExperiment` (a filter: the loss of what it admitted) or to
:class:`CrossingExperiment` (an odometer: crossing indicators, quantity ``CROSSING``),
or supplies any other experiment (e-values for ``EVALUE`` claims).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from adaptive_dp.verify.judge.estimators import Quantity, required_samples
from adaptive_dp.verify.judge.simulate import BatchRule, simulate
from adaptive_dp.verify.judge.verdicts import TARGETS, target

__all__ = [
    "PROFILES",
    "SAFETY",
    "AdversaryExperiment",
    "Bound",
    "Claim",
    "CrossingExperiment",
    "Experiment",
    "Setup",
    "Twin",
    "hockey_stick_setup",
    "max_loss_setup",
    "profile_delta",
    "samples_for",
    "sized_for",
]

PROFILES = tuple(TARGETS)
"""The profiles, "quick" and "full" (their power targets:
:data:`adaptive_dp.verify.judge.verdicts.TARGETS`)."""
SAFETY = 1.0
"""Samples are this multiple of the smallest n meeting the profile's target (1: the
quick target already flags a twin's true value, at least twice its claim, with
probability 0.95; max-loss claims keep twice 14 / delta_min)."""

MAX_LOSS_SAFETY = 2.0
"""Max-loss samples are this multiple of 14 / delta_min."""

_PROFILE: ContextVar[str] = ContextVar("profile", default="quick")


class Experiment(Protocol):
    """Draws ``paths`` samples of the claim's statistic on the ``under`` side."""

    def __call__(self, paths: int, rng: np.random.Generator, under: str) -> NDArray[Any]: ...


@dataclass(frozen=True, slots=True)
class AdversaryExperiment:
    """The privacy loss of an adversary's transcript (optionally through a rule, and on
    inputs ``distance`` apart for group privacy)."""

    adversary: Any
    rule: BatchRule | None = None
    distance: float = 1.0

    def __call__(self, paths: int, rng: np.random.Generator, under: str) -> NDArray[np.float64]:
        return simulate(self.adversary, paths, rng, under=under, rule=self.rule,
                        distance=self.distance).loss


@dataclass(frozen=True, slots=True)
class CrossingExperiment:
    """Odometer claims: whether a path's running loss ever exceeds the rule's bound.

    Runs ``adversary`` through ``rule`` (whose ledger reports ``bounds()``, the reading
    U_n after each step) and returns, per path, ``exists n <= horizon: L_n > U_n``.
    """

    adversary: Any
    rule: BatchRule

    def __call__(self, paths: int, rng: np.random.Generator, under: str) -> NDArray[np.bool_]:
        out = simulate(self.adversary, paths, rng, under=under, rule=self.rule, record=True)
        if out.loss_path is None or out.bound_path is None:
            raise ValueError("the rule reports no bounds: a crossing claim needs bounds()")
        crossed: NDArray[np.bool_] = np.any(out.loss_path > out.bound_path, axis=1)
        return crossed


@dataclass(frozen=True, slots=True)
class Setup:
    """One profile's test of a claim or twin.

    ``epsilon``: where the tail / hockey-stick is evaluated, or the claimed epsilon of a
    max-loss (delta = 0) claim. ``claimed``: the claimed delta (epsilon for max-loss,
    1 for e-values). ``delta_min``: the smallest tail a max-loss test must detect.
    ``scale``: K of a truncated e-value mean. ``note``: the scenario's parameters.
    ``exact_worst``: where computable, the exact worst case of the quantity over every
    adaptive strategy of the scenario (in the units of ``claimed``), else None.
    """

    quantity: Quantity
    epsilon: float
    claimed: float
    experiment: Experiment
    samples: int
    orders: tuple[str, ...] = ("x", "x'")
    delta_min: float | None = None
    scale: float = 1.0
    note: str = ""
    exact_worst: float | None = None


@dataclass(frozen=True, slots=True)
class Twin:
    """A negative control: the valid bound with exactly one named ``defect``."""

    name: str
    defect: str
    build: Callable[[str], Setup]
    spec_id: str | None = None

    def setup(self, profile: str) -> Setup:
        """The scenario of ``profile``, sized as every twin is: for the quick target."""
        with sized_for("quick"):
            return self.build(profile)


@dataclass(frozen=True, slots=True)
class Claim:
    """A registered claim ``<spec id>/<scenario>``."""

    spec_id: str
    scenario: str
    quantity: Quantity
    summary: str
    build: Callable[[str], Setup]
    twins: tuple[Twin, ...] = ()

    @property
    def id(self) -> str:
        return f"{self.spec_id}/{self.scenario}"

    def setup(self, profile: str) -> Setup:
        """The setup of ``profile``, sized for its target (what the runner judges)."""
        with sized_for(profile):
            return self.build(profile)


@contextmanager
def sized_for(profile: str) -> Iterator[None]:
    """Within this block :func:`samples_for` sizes for ``profile``'s target (the runner
    builds a claim's setup in it; outside, the quick profile's)."""
    target(Quantity.TAIL, profile)  # rejects an unknown profile
    token = _PROFILE.set(profile)
    try:
        yield
    finally:
        _PROFILE.reset(token)


def samples_for(quantity: Quantity, claimed: float, delta_min: float | None = None,
                scale: float = 1.0) -> int:
    """SAFETY times the smallest n whose detectable ratio for ``claimed`` meets the
    current profile's target; max-loss: MAX_LOSS_SAFETY times 14 / ``delta_min``."""
    if quantity is Quantity.MAX_LOSS:
        value = delta_min if delta_min is not None else claimed
        return required_samples(quantity, value, math.inf, margin=MAX_LOSS_SAFETY)
    return required_samples(quantity, claimed, target(quantity, _PROFILE.get()), scale,
                            SAFETY)


class Bound(Protocol):
    """A bound under test (:mod:`adaptive_dp.verify.registry.bounds`): ``(epsilon, delta)``."""

    def claimed(self) -> tuple[float, float]: ...


def profile_delta(profile: str, quick: float) -> float:
    """The claimed delta of a profile: ``quick`` (0.02 to 0.2) or 1e-3 under "full"."""
    if profile not in PROFILES:
        raise ValueError(f"profile={profile!r} is not allowed: expected one of {PROFILES}")
    return quick if profile == "quick" else 1e-3


def hockey_stick_setup(bound: Bound, adversary: Any, note: str) -> Setup:
    """Hockey-stick at the bound's epsilon against its delta, both orders of the pair."""
    epsilon, delta = bound.claimed()
    return Setup(Quantity.HOCKEY_STICK, epsilon, delta, AdversaryExperiment(adversary),
                 samples_for(Quantity.HOCKEY_STICK, delta), note=note)


def max_loss_setup(bound: Bound, adversary: Any, delta_min: float, note: str,
                   distance: float = 1.0) -> Setup:
    """delta = 0: every sampled loss, in both orders, at most the bound's epsilon."""
    epsilon, _ = bound.claimed()
    return Setup(Quantity.MAX_LOSS, epsilon, epsilon,
                 AdversaryExperiment(adversary, distance=distance),
                 samples_for(Quantity.MAX_LOSS, epsilon, delta_min), delta_min=delta_min,
                 note=note)
