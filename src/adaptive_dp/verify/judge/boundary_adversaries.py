"""Adversaries that probe a rule's decision boundary (docs/design.md, verification:
adversaries; issue 16).

An adversary whose requests are computed from the rule's own ``max_next`` never asks
for more than the rule admits, so a rule whose pre-check is loosened is never exercised
past its boundary and no claim can see the defect. The adversaries here ask first for
more than the boundary (each of a list of overshoots, the largest first), then at the
boundary itself: a valid rule refuses every overshoot and the path falls back to the
boundary request; a loosened rule admits the largest overshoot its defect lets through.

- :func:`first_admitted`: per path, the first admitted of a list of candidate requests
  (a dry run of the rule's decision, nothing charged), else a fallback;
- :func:`lattice_overshoots`: candidate time values (or parameters) below a boundary
  value on the lattice ``1.05^-k`` (a BM grid whose smallest time value is smaller asks
  for a larger worst-case charge), so batches keep few distinct values;
- :class:`BoundaryProbe`: a batch adversary (the protocol of
  :mod:`adaptive_dp.verify.judge.adversaries`) spending a known budget through a rule:
  it requests ``overshoot * remaining`` while its requests are refused, one factor of
  ``overshoots`` per refusal, then the remaining budget itself (the boundary).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from numpy.typing import NDArray

from adaptive_dp.interactive.adversary import AdversaryView
from adaptive_dp.verify.judge.adversaries import _check, _check_measure, _kinds, _spent
from adaptive_dp.verify.judge.simulate import Request

__all__ = ["LATTICE", "BoundaryProbe", "first_admitted", "lattice_overshoots"]

Array = NDArray[np.float64]
Bools = NDArray[np.bool_]

LATTICE = 1.05
"""Ratio of consecutive candidate values below a boundary."""


def first_admitted(admits: Callable[[Array], Bools], candidates: Sequence[Array],
                   fallback: Array) -> Array:
    """Per path, the first of ``candidates`` that ``admits`` (a dry run) accepts, else
    ``fallback``: probe the most aggressive request first."""
    chosen = fallback.copy()
    open_ = np.ones(fallback.shape[0], dtype=bool)
    for candidate in candidates:
        ok = open_ & np.asarray(admits(candidate), dtype=bool)
        chosen[ok] = candidate[ok]
        open_ &= ~ok
    return chosen


def lattice_overshoots(boundary: Array, steps: Sequence[int]) -> list[Array]:
    """``boundary * LATTICE^-k`` for each k of ``steps`` (largest k first: the smallest
    value, i.e. the largest overshoot of a time-value pre-check)."""
    return [boundary * LATTICE ** -k for k in sorted(steps, reverse=True)]


@dataclass(frozen=True, slots=True)
class BoundaryProbe:
    """Spend ``budget`` (additive in epsilon, or in mu^2 for Gaussian releases) through a
    rule by probing its boundary.

    A path whose last ``r`` requests were refused asks for
    ``at * overshoots[r] * remaining`` (in the budget's measure); once every overshoot
    has been refused it asks for ``at * remaining``, the remaining budget itself (``at``
    just below 1 absorbs the upward rounding of a rule's parameter map, such as rho =
    mu^2/2, so that a request at a boundary is not refused by rounding), and after an
    admitted request it starts again from ``overshoots[0]``. A valid rule at the budget
    refuses every overshoot > 1, so a path spends the budget at the boundary; a rule
    loosened by a factor f admits the overshoots <= f.
    """

    FAMILY: ClassVar[str] = "boundary-probe"
    kinds: tuple[int, ...]
    budget: float
    steps: int
    overshoots: tuple[float, ...] = (2.0, 1.5, 1.25, 1.1, 1.05, 1.01)
    at: float = 1 - 1e-9
    measure: str = "epsilon"
    pivot: float = 0.0

    def __post_init__(self) -> None:
        if any(not (math.isfinite(f) and f > 1) for f in self.overshoots):
            raise ValueError(f"overshoots={self.overshoots!r}: expected finite factors > 1")
        if not 0 < self.at <= 1:
            raise ValueError(f"at={self.at!r} is not allowed: expected 0 < at <= 1")
        _check(self.steps, self.kinds)
        _check_measure(self.measure)

    def choose(self, view: AdversaryView, rng: np.random.Generator) -> Request:
        remaining = np.maximum(self.budget - _spent(view, self.measure), 0.0)
        n, t = view.paths, view.step
        refused = np.zeros(n, dtype=np.int64)  # trailing refusals (kind -1 in the history)
        for column in range(t - 1, -1, -1):
            more = (view.kinds[:, column] == -1) & (refused == t - 1 - column)
            if not more.any():
                break
            refused += more
        factors = self.at * np.append(np.asarray(self.overshoots, dtype=np.float64), 1.0)
        param = factors[np.minimum(refused, len(self.overshoots))] * remaining
        if self.measure != "epsilon":
            param = np.sqrt(param)
        go = (remaining > 0) & (t < self.steps)
        return Request(_kinds(view, self.kinds, self.pivot), param, go)

    @property
    def horizon(self) -> int:
        return self.steps
