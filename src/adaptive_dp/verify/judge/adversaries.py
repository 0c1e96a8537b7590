"""Strategy families of adaptive adversaries (docs/design.md, verification: adversaries).

Each family is a frozen dataclass implementing
:class:`adaptive_dp.interactive.adversary.Adversary` on a batch of paths: one numpy
expression per step for the whole batch. The families:

- :class:`Constant`: the same mechanism and parameter at every step;
- :class:`BudgetHugging`: spends a budget (additive in epsilon, or in mu^2 = 2 rho for
  Gaussian releases) exactly: a fraction of what remains at each step, a larger fraction
  on paths whose running loss is above ``pivot``, and the whole rest at the last step;
- :class:`OutputThreshold`: switches mechanism kind and parameter, for good, on a path
  whose last output crossed ``threshold``;
- :class:`Doubling`: the parameter grows geometrically up to ``cap``;
- :class:`StopAtWorst`: releases until the running loss exceeds ``threshold``, then
  stops (it sees the outputs, and on worst-case neighbours the outputs determine the
  loss);
- :class:`RandomStrategy`: random kind and parameter from given choices, random stop.

Every family also takes ``kinds``: one kind, or two kinds chosen per path by whether
the running loss is above ``pivot`` (adaptively chosen mechanisms). ``steps`` bounds
the number of releases (the adversary's ``horizon``); ``cap`` bounds every parameter
(the per-step epsilon or mu of a composition theorem).

Adversaries are plain parameter data: :func:`adversary_from_data` rebuilds one from
``{"family": ..., **fields}``, so generated adversaries are committed in the claim
registry as data and replayed (hypothesis generates new ones only in tests).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from adaptive_dp.interactive.adversary import AdversaryView
from adaptive_dp.verify.judge.simulate import Request

__all__ = [
    "FAMILIES",
    "BudgetHugging",
    "Constant",
    "Doubling",
    "OutputThreshold",
    "RandomStrategy",
    "StopAtWorst",
    "adversary_from_data",
    "adversary_to_data",
]


def _kinds(view: AdversaryView, kinds: tuple[int, ...], pivot: float) -> NDArray[np.int8]:
    if len(kinds) == 1:
        return np.full(view.paths, kinds[0], dtype=np.int8)
    out: NDArray[np.int8] = np.where(view.loss > pivot, kinds[1], kinds[0]).astype(np.int8)
    return out


def _check(steps: int, kinds: tuple[int, ...]) -> None:
    if steps < 1:
        raise ValueError(f"steps={steps!r} is not allowed: expected steps >= 1")
    if not 1 <= len(kinds) <= 2 or any(k not in (0, 1, 2) for k in kinds):
        raise ValueError(f"kinds={kinds!r} is not allowed: expected one or two of 0, 1, 2")


def _check_measure(measure: str) -> None:
    if measure not in ("epsilon", "mu2"):
        raise ValueError(f"measure={measure!r} is not allowed: 'epsilon' or 'mu2'")


def _spent(view: AdversaryView, measure: str) -> NDArray[np.float64]:
    """Each path's admitted spend in ``measure``: the sum of epsilons, or of mu^2."""
    out: NDArray[np.float64] = view.param_sum if measure == "epsilon" else view.param_sq_sum
    return out


@dataclass(frozen=True, slots=True)
class Constant:
    """The same parameter at every one of ``steps`` releases."""

    FAMILY: ClassVar[str] = "constant"
    kinds: tuple[int, ...]
    param: float
    steps: int
    pivot: float = 0.0

    def __post_init__(self) -> None:
        _check(self.steps, self.kinds)

    @property
    def horizon(self) -> int:
        return self.steps

    def choose(self, view: AdversaryView, rng: np.random.Generator) -> Request:
        n = view.paths
        return Request(_kinds(view, self.kinds, self.pivot), np.full(n, self.param),
                       np.full(n, view.step < self.steps))


@dataclass(frozen=True, slots=True)
class BudgetHugging:
    """Spend ``budget`` exactly over ``steps`` releases.

    ``measure`` is "epsilon" (param = the spend) or "mu2" (Gaussian: the spend is mu^2,
    param = mu). At step t < steps - 1 a path spends ``fraction_low`` of its remaining
    budget, ``fraction_high`` if its running loss is above ``pivot`` (None: an even split
    of what remains over the steps left); the last step spends all that remains. No
    single spend exceeds ``cap`` (in param units; the rest is left for later steps, the
    last step included, so set ``cap`` to at least budget/steps).
    """

    FAMILY: ClassVar[str] = "budget-hugging"
    kinds: tuple[int, ...]
    budget: float
    steps: int
    measure: str = "epsilon"
    fraction_low: float | None = None
    fraction_high: float | None = None
    pivot: float = 0.0
    cap: float = math.inf

    def __post_init__(self) -> None:
        _check(self.steps, self.kinds)
        _check_measure(self.measure)

    @property
    def horizon(self) -> int:
        return self.steps

    def choose(self, view: AdversaryView, rng: np.random.Generator) -> Request:
        n, t = view.paths, view.step
        spent = _spent(view, self.measure)
        # in place, the same operations as max(budget - spent, 0), fraction * remaining,
        # sqrt, min(., cap): the same bits with fewer temporaries
        remaining = np.subtract(self.budget, spent)
        np.maximum(remaining, 0.0, out=remaining)
        if t >= self.steps - 1:
            param = remaining
        elif self.fraction_low is None or self.fraction_high is None:
            param = np.divide(remaining, self.steps - t, out=remaining)
        else:
            param = np.where(view.loss > self.pivot, self.fraction_high, self.fraction_low)
            param *= remaining
        if self.measure != "epsilon":
            np.sqrt(param, out=param)
        if self.cap != math.inf:
            np.minimum(param, self.cap, out=param)
        go = param > 0 if t < self.steps else np.zeros(n, dtype=bool)
        return Request(_kinds(view, self.kinds, self.pivot), param, go)


@dataclass(frozen=True, slots=True)
class OutputThreshold:
    """(kinds, param) until a path's last output exceeds ``threshold``, then
    (switch_kind, switch_param) for good."""

    FAMILY: ClassVar[str] = "output-threshold"
    kinds: tuple[int, ...]
    param: float
    switch_kind: int
    switch_param: float
    threshold: float
    steps: int
    pivot: float = 0.0

    def __post_init__(self) -> None:
        _check(self.steps, self.kinds)

    @property
    def horizon(self) -> int:
        return self.steps

    def choose(self, view: AdversaryView, rng: np.random.Generator) -> Request:
        n = view.paths
        kind = _kinds(view, self.kinds, self.pivot)
        param = np.full(n, self.param)
        if view.step > 0:
            crossed = np.nan_to_num(view.outputs, nan=-np.inf).max(axis=1) > self.threshold
            kind = np.where(crossed, self.switch_kind, kind).astype(np.int8)
            param = np.where(crossed, self.switch_param, param)
        return Request(kind, param, np.full(n, view.step < self.steps))


@dataclass(frozen=True, slots=True)
class Doubling:
    """param_t = min(param * factor^t, cap)."""

    FAMILY: ClassVar[str] = "doubling"
    kinds: tuple[int, ...]
    param: float
    steps: int
    factor: float = 2.0
    cap: float = math.inf
    pivot: float = 0.0

    def __post_init__(self) -> None:
        _check(self.steps, self.kinds)

    @property
    def horizon(self) -> int:
        return self.steps

    def choose(self, view: AdversaryView, rng: np.random.Generator) -> Request:
        n = view.paths
        value = min(self.param * self.factor**view.step, self.cap)
        return Request(_kinds(view, self.kinds, self.pivot), np.full(n, value),
                       np.full(n, view.step < self.steps))


@dataclass(frozen=True, slots=True)
class StopAtWorst:
    """Release (kinds, param) until the running loss exceeds ``threshold``, then stop."""

    FAMILY: ClassVar[str] = "stop-at-worst"
    kinds: tuple[int, ...]
    param: float
    steps: int
    threshold: float
    pivot: float = 0.0

    def __post_init__(self) -> None:
        _check(self.steps, self.kinds)

    @property
    def horizon(self) -> int:
        return self.steps

    def choose(self, view: AdversaryView, rng: np.random.Generator) -> Request:
        n = view.paths
        go = (view.loss <= self.threshold) & (view.step < self.steps)
        return Request(_kinds(view, self.kinds, self.pivot), np.full(n, self.param), go)


@dataclass(frozen=True, slots=True)
class RandomStrategy:
    """A random kind from ``kinds`` and parameter from ``params`` at every step; each
    path stops with probability ``stop_probability`` before each step after the first."""

    FAMILY: ClassVar[str] = "random"
    kinds: tuple[int, ...]
    params: tuple[float, ...]
    steps: int
    stop_probability: float = 0.0

    def __post_init__(self) -> None:
        if self.steps < 1 or not self.kinds or not self.params:
            raise ValueError("random adversary: expected steps >= 1, kinds and params")

    @property
    def horizon(self) -> int:
        return self.steps

    def choose(self, view: AdversaryView, rng: np.random.Generator) -> Request:
        n = view.paths
        kind = np.asarray(self.kinds, dtype=np.int8)[rng.integers(len(self.kinds), size=n)]
        param = np.asarray(self.params, dtype=np.float64)[rng.integers(len(self.params), size=n)]
        go = np.full(n, view.step < self.steps)
        if view.step > 0 and self.stop_probability > 0:
            go &= rng.random(n) >= self.stop_probability
        return Request(kind, param, go)


FAMILIES: dict[str, type[Any]] = {
    cls.FAMILY: cls
    for cls in (Constant, BudgetHugging, OutputThreshold, Doubling, StopAtWorst, RandomStrategy)
}


def adversary_to_data(adversary: Any) -> dict[str, Any]:
    """The plain parameter data of a family member (inverse of :func:`adversary_from_data`)."""
    data = asdict(adversary)
    data["family"] = adversary.FAMILY
    return data


def adversary_from_data(data: dict[str, Any]) -> Any:
    """Rebuild an adversary from ``{"family": name, **fields}`` (lists become tuples)."""
    fields = dict(data)
    family = fields.pop("family")
    if family not in FAMILIES:
        raise ValueError(f"family={family!r} is not allowed: expected one of {sorted(FAMILIES)}")
    for key, value in fields.items():
        if isinstance(value, list):
            fields[key] = tuple(value)
    return FAMILIES[family](**fields)
