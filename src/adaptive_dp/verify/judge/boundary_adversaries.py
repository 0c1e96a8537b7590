"""Adversaries that probe a rule's decision boundary (docs/design.md, verification:
adversaries; issue 16).

An adversary whose requests are computed from the rule's own ``max_next`` never asks
for more than the rule admits, so a rule whose pre-check is loosened is never exercised
past its boundary and no claim can see the defect. The adversaries here find the
boundary from the rule's decision itself: by dry runs (nothing charged) bisecting the
smallest admitted time value of a BM, or by asking first for more than the boundary
(each of a list of overshoots, the largest first), then at the boundary: a valid rule
refuses every overshoot, a loosened rule admits what its defect lets through.

- :func:`smallest_admitted`: per path, the smallest value a monotone dry run of the
  rule's decision admits (geometric bisection): a BM's smallest admitted time value is
  its pre-check's boundary, however far a defect has moved it;
- :func:`first_passage_grid`: a BM time grid ending at a given smallest time value,
  fine in precision 1/t where a drifted loss crosses a barrier (the last quarter), so
  an adversary stopping at the first release above epsilon comes close to the
  continuous first passage that the worst case is
  (:func:`adaptive_dp.verify.registry.worst_case.brownian_first_passage`);
- :class:`BoundaryProbe`: a batch adversary (the protocol of
  :mod:`adaptive_dp.verify.judge.adversaries`) spending a known budget through a rule:
  it requests ``overshoot * remaining`` while its requests are refused, one factor of
  ``overshoots`` per refusal, then the remaining budget itself (the boundary). The
  budget is additive in epsilon, in mu^2, or (``measure="delta"``, issue 16: "deltas at
  their split") in the per-request deltas that a :class:`DeltaCharge` charges: the probe
  then asks for releases whose charged delta overshoots the remaining DELTA budget (the
  part of a rule's delta left to the mechanisms' deltas once its split is taken), so
  that a rule whose delta check is loosened admits what a valid rule refuses.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar, Protocol

import numpy as np
from numpy.typing import NDArray

from adaptive_dp.interactive.adversary import AdversaryView
from adaptive_dp.verify.judge.adversaries import _check, _check_measure, _kinds, _spent
from adaptive_dp.verify.judge.simulate import Request

__all__ = ["BoundaryProbe", "DeltaCharge", "first_passage_grid", "smallest_admitted"]

Array = NDArray[np.float64]
Bools = NDArray[np.bool_]
Kinds = NDArray[np.int8]


class DeltaCharge(Protocol):
    """How a rule is charged the delta of each request, and the way back.

    ``delta(kind, param)``: the delta charged for each request (0 for a refused column of
    the history, kind -1, param 0); it must be at least the released mechanism's true
    delta at its charged epsilon (a certified upper bound). ``param_for(delta)``: per
    path, a request parameter whose charged delta is at most ``delta`` and as close to it
    as the charge's rounding allows (0 for delta = 0)."""

    def delta(self, kind: Kinds, param: Array) -> Array: ...

    def param_for(self, delta: Array) -> Array: ...


def smallest_admitted(admits: Callable[[Array], Bools], low: Array, high: Array,
                      iterations: int = 64) -> Array:
    """Per path, the smallest value in [``low``, ``high``] that the dry run ``admits``
    accepts, to a relative 2^-iterations of log(high/low) (admission is monotone: every
    larger value is admitted too, as a larger time value asks for less); ``low`` where
    it is admitted already, NaN where not even ``high`` is (geometric bisection)."""
    if np.any(~(low > 0)) or np.any(~(high >= low)):
        raise ValueError("expected 0 < low <= high on every path")
    lo, hi = low.astype(np.float64), high.astype(np.float64)
    at_high, at_low = (np.asarray(admits(v), dtype=bool) for v in (hi, lo))
    for _ in range(iterations):
        mid = np.sqrt(lo * hi)
        ok = np.asarray(admits(mid), dtype=bool)
        hi, lo = np.where(ok, mid, hi), np.where(ok, lo, mid)
    chosen: Array = np.where(at_low, low, np.where(at_high, hi, np.nan))
    return chosen


def first_passage_grid(t_min: float, points: int = 300, span: float = 20.0,
                       coarse: int = 8) -> tuple[float, ...]:
    """A strictly decreasing BM time grid ending exactly at ``t_min``: ``coarse``
    precisions (1/t) geometric from 1/(``span`` t_min) up to (excluded) 3/4 of 1/t_min,
    then ``points`` equal steps in precision from 3/4 of 1/t_min to 1/t_min.

    A loss V/2 + W(V) monitored every dV misses about 0.5826 sqrt(dV) of a barrier
    (Siegmund's correction); with the default 300 points in the last quarter an
    adversary stopping at its first release above epsilon keeps about 0.95 of the
    continuous first-passage probability at delta'' = 1e-3 (0.97 at 0.09:
    tests/verify/test_boundary_adversaries.py)."""
    if not (math.isfinite(t_min) and t_min > 0) or points < 1 or coarse < 1 or span <= 4 / 3:
        raise ValueError(f"t_min={t_min!r}, points={points!r}, coarse={coarse!r}, "
                         f"span={span!r}: expected t_min > 0, points, coarse >= 1, span > 4/3")
    v_max = 1.0 / t_min
    head = np.geomspace(v_max / span, 0.75 * v_max, coarse, endpoint=False)
    fine = np.linspace(0.75 * v_max, v_max, points + 1)
    grid = [1.0 / v for v in (*head, *fine[:-1])]
    return (*grid, t_min)


@dataclass(frozen=True, slots=True)
class BoundaryProbe:
    """Spend ``budget`` (additive in epsilon, in mu^2 for Gaussian releases, or in the
    deltas that ``charge`` charges, ``measure="delta"``) through a rule by probing its
    boundary.

    A path whose last ``r`` requests were refused asks for
    ``at * overshoots[r] * remaining`` (in the budget's measure); once every overshoot
    has been refused it asks for ``at * remaining``, the remaining budget itself (``at``
    just below 1 absorbs the upward rounding of a rule's parameter map, such as rho =
    mu^2/2, so that a request at a boundary is not refused by rounding), and after an
    admitted request it starts again from ``overshoots[0]``. A valid rule at the budget
    refuses every overshoot > 1, so a path spends the budget at the boundary; a rule
    loosened by a factor f admits the overshoots <= f. With ``measure="delta"`` the
    request is ``charge.param_for`` of the delta asked for, and the spend is the sum of
    the charged deltas of the admitted requests.
    """

    FAMILY: ClassVar[str] = "boundary-probe"
    kinds: tuple[int, ...]
    budget: float
    steps: int
    overshoots: tuple[float, ...] = (2.0, 1.5, 1.25, 1.1, 1.05, 1.01)
    at: float = 1 - 1e-9
    measure: str = "epsilon"
    pivot: float = 0.0
    charge: DeltaCharge | None = None

    def __post_init__(self) -> None:
        if any(not (math.isfinite(f) and f > 1) for f in self.overshoots):
            raise ValueError(f"overshoots={self.overshoots!r}: expected finite factors > 1")
        if not 0 < self.at <= 1:
            raise ValueError(f"at={self.at!r} is not allowed: expected 0 < at <= 1")
        _check(self.steps, self.kinds)
        if self.measure == "delta":
            if self.charge is None:
                raise ValueError("measure='delta' needs a charge")
        else:
            _check_measure(self.measure)
            if self.charge is not None:
                raise ValueError(f"a charge is used only with measure='delta', "
                                 f"not {self.measure!r}")

    def _spent(self, view: AdversaryView) -> Array:
        if self.charge is None:
            return _spent(view, self.measure)
        spent = np.zeros(view.paths)
        for column in range(view.step):  # refused columns (kind -1) are charged 0
            spent += self.charge.delta(view.kinds[:, column], view.params[:, column])
        return spent

    def choose(self, view: AdversaryView, rng: np.random.Generator) -> Request:
        remaining = np.maximum(self.budget - self._spent(view), 0.0)
        n, t = view.paths, view.step
        refused = np.zeros(n, dtype=np.int64)  # trailing refusals (kind -1 in the history)
        for column in range(t - 1, -1, -1):
            more = (view.kinds[:, column] == -1) & (refused == t - 1 - column)
            if not more.any():
                break
            refused += more
        factors = self.at * np.append(np.asarray(self.overshoots, dtype=np.float64), 1.0)
        param = factors[np.minimum(refused, len(self.overshoots))] * remaining
        if self.charge is not None:
            param = self.charge.param_for(param)
        elif self.measure != "epsilon":
            param = np.sqrt(param)
        go = (remaining > 0) & (t < self.steps)
        return Request(_kinds(view, self.kinds, self.pivot), param, go)

    @property
    def horizon(self) -> int:
        return self.steps
