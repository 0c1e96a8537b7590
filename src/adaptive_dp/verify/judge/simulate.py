"""Vectorised simulator of adaptive interactions on worst-case neighbours.

A batch of ``paths`` independent interactions runs step by step; at every step the
adversary (:class:`adaptive_dp.interactive.adversary.Adversary`) picks, for all paths at
once, the next mechanism kind, its privacy parameter and whether to go on; an optional
rule (a filter, accumulator or odometer, through the batch protocol below) admits or
refuses each request; the admitted mechanisms run on the worst-case neighbours of a
scalar query (center 0 on ``x``, sensitivity 1 on ``x'``, or a larger ``distance`` for
group privacy; bit 0 and bit 1 for randomized response), all paths of one kind in one
numpy call. State is held in ``(paths, steps)`` arrays: never one Python call per path
per step. When every path releases the same kind, the draws go straight into the
history's column and the losses into reused buffers; an unrecorded batch hands its
history arrays to the next batch of the same shape (each column is written whole
before the adversary sees it, so a view holds only its own batch's values, and is valid
during its ``choose`` call). Outputs are the same bits as without these paths
(``tests/verify/test_simulate_fast.py``).

**The loss is computed from densities.** Each release adds
``log p_x(y) - log p_x'(y)`` evaluated with the mechanisms' own array log densities
(``laplace_logpdf``, ``gaussian_logpdf``, ``rr_logpmf`` of :mod:`adaptive_dp.mechanisms`,
through their ``*_log_ratio`` forms: the same operations, one validation and one log,
equal to the difference of the two log densities bit for bit), never from a bound under
test. Under ``x`` the transcript's privacy loss is
``L = sum_i log p_x(y_i)/p_x'(y_i)``; under ``x'`` the loss in the other order is
``L' = sum_i log p_x'(y_i)/p_x(y_i)``; :func:`simulate` returns the loss of the pair in
the order that matches the sampling side. Hockey-stick claims run both.

Batch rule protocol (for filters, accumulators and odometers of later issues)
-----------------------------------------------------------------------------
A claim that puts a rule between the adversary and the mechanisms passes a
:class:`BatchRule` to :func:`simulate`. ``rule.start(paths)`` returns a fresh
:class:`BatchLedger` for one batch; before every step the simulator calls
``ledger.admit(kind, param, requested)`` with the requested mechanism kind and parameter
of every path and the mask of paths that request a release; the ledger returns the
boolean mask of admitted requests, charges exactly those, and leaves refused paths'
state unchanged (refuse-and-continue). A terminal rule simply keeps refusing after its
first refusal. ``ledger.bounds()`` (optional, may return None) reports the rule's
current per-path bound (an odometer's reading U_n, for crossing claims); the simulator
records it after every step in ``Transcript.bound_path`` when ``record=True``.

Two ways to implement a ledger:

1. a vectorised float fast path (numpy arrays of spent budget per path); allowed where
   a property test shows it never admits a request the certified rule refuses.
   :class:`FastRule` adapts any filter of :mod:`adaptive_dp.filters` through its
   ``rule.fast(paths, terminal=...)`` state (``spend(primary, delta) -> (admitted,
   state)``), given a map from the simulator's (kind, param) to the rule's primary
   parameter (epsilon, rho or mu); paths that request nothing are passed a zero spend
   (a no-op for every rule whose increments vanish at zero) and are never reported
   admitted;
2. :class:`GroupedRule`: wraps a scalar, certified transition function
   ``step(state, kind, param) -> (admitted, new_state)`` and calls it once per group of
   paths that share the same public prefix (same state object and same request), so the
   exact rule runs on a batch at the cost of one call per distinct prefix.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from adaptive_dp.interactive.adversary import (
    GAUSSIAN,
    LAPLACE,
    RANDOMIZED_RESPONSE,
    Adversary,
)
from adaptive_dp.mechanisms import gaussian
from adaptive_dp.mechanisms.base import positive_array
from adaptive_dp.mechanisms.gaussian import gaussian_log_ratio, gaussian_sample
from adaptive_dp.mechanisms.laplace import laplace_log_ratio, laplace_sample
from adaptive_dp.mechanisms.randomized_response import rr_log_ratio, rr_sample

__all__ = [
    "BatchLedger",
    "BatchRule",
    "BatchView",
    "FastRule",
    "GroupedRule",
    "Request",
    "Transcript",
    "release_losses",
    "simulate",
]


@dataclass(frozen=True, slots=True)
class Request:
    """One next-release choice per path (see ``interactive.adversary.BatchRequest``)."""

    kind: NDArray[np.int8]
    param: NDArray[np.float64]
    go: NDArray[np.bool_]

    @staticmethod
    def uniform(paths: int, kind: int, param: float, go: bool = True) -> Request:
        """The same request on every path."""
        return Request(
            np.full(paths, kind, dtype=np.int8),
            np.full(paths, param, dtype=np.float64),
            np.full(paths, go, dtype=bool),
        )


@dataclass(frozen=True, slots=True)
class BatchView:
    """What the adversary sees after ``step`` releases (read-only slices of the state,
    valid during the ``choose`` call they are passed to)."""

    step: int
    paths: int
    outputs: NDArray[np.float64]
    kinds: NDArray[np.int8]
    params: NDArray[np.float64]
    loss: NDArray[np.float64]
    active: NDArray[np.bool_]
    param_sum: NDArray[np.float64]
    param_sq_sum: NDArray[np.float64]


class BatchLedger(Protocol):
    """A rule's state for one batch of paths (see the module docstring)."""

    def admit(
        self, kind: NDArray[np.int8], param: NDArray[np.float64], requested: NDArray[np.bool_]
    ) -> NDArray[np.bool_]: ...

    def bounds(self) -> NDArray[np.float64] | None: ...


class BatchRule(Protocol):
    """A filter, accumulator or odometer usable by the simulator."""

    def start(self, paths: int) -> BatchLedger: ...


@dataclass(frozen=True, slots=True)
class GroupedRule:
    """Run a scalar rule on a batch by grouping paths with identical public prefixes.

    ``initial`` is the rule's starting state (hashable), ``step(state, kind, param)``
    returns ``(admitted, new_state)`` (a refused request must return the state
    unchanged); ``bound(state)`` optionally gives the state's current bound.
    """

    initial: Hashable
    step: Callable[[Hashable, int, float], tuple[bool, Hashable]]
    bound: Callable[[Hashable], float] | None = None

    def start(self, paths: int) -> BatchLedger:
        return _GroupedLedger(self, np.zeros(paths, dtype=np.int64), [self.initial])


@dataclass(slots=True)
class _GroupedLedger:
    rule: GroupedRule
    index: NDArray[np.int64]  # per path: position of its state in ``states``
    states: list[Hashable] = field(default_factory=list)

    def admit(
        self, kind: NDArray[np.int8], param: NDArray[np.float64], requested: NDArray[np.bool_]
    ) -> NDArray[np.bool_]:
        admitted = np.zeros(requested.shape, dtype=bool)
        rows = np.nonzero(requested)[0]
        if rows.size == 0:
            return admitted
        keys = np.stack(
            [self.index[rows].astype(np.float64), kind[rows].astype(np.float64), param[rows]],
            axis=1,
        )
        unique, inverse = np.unique(keys, axis=0, return_inverse=True)
        inverse = inverse.ravel()
        new_states: list[Hashable] = []
        new_index = np.empty(unique.shape[0], dtype=np.int64)
        ok = np.empty(unique.shape[0], dtype=bool)
        for g, (state_index, k, p) in enumerate(unique):
            yes, state = self.rule.step(self.states[int(state_index)], int(k), float(p))
            ok[g] = yes
            new_index[g] = len(self.states) + len(new_states)
            new_states.append(state)
        self.states.extend(new_states)
        admitted[rows] = ok[inverse]
        self.index[rows] = new_index[inverse]
        return admitted

    def bounds(self) -> NDArray[np.float64] | None:
        if self.rule.bound is None:
            return None
        values = np.array([self.rule.bound(s) for s in self.states], dtype=np.float64)
        out: NDArray[np.float64] = values[self.index]
        return out


class _FastState(Protocol):
    def spend(
        self, primary: NDArray[np.float64], delta: NDArray[np.float64]
    ) -> tuple[NDArray[np.bool_], _FastState]: ...


class _FastRuleSource(Protocol):
    def fast(self, paths: int, *, terminal: bool = False) -> Any: ...


@dataclass(frozen=True, slots=True)
class FastRule:
    """A filter's vectorised fast path as a :class:`BatchRule` (see the module docstring).

    ``primary(kind, param)`` maps the simulator's requests to the rule's primary
    parameter; ``delta(kind, param)`` (optional) to the per-request delta.
    """

    rule: _FastRuleSource
    primary: Callable[[NDArray[np.int8], NDArray[np.float64]], NDArray[np.float64]]
    delta: Callable[[NDArray[np.int8], NDArray[np.float64]], NDArray[np.float64]] | None = None
    terminal: bool = False

    def start(self, paths: int) -> BatchLedger:
        return _FastLedger(self, self.rule.fast(paths, terminal=self.terminal))


@dataclass(slots=True)
class _FastLedger:
    source: FastRule
    state: _FastState

    def admit(
        self, kind: NDArray[np.int8], param: NDArray[np.float64], requested: NDArray[np.bool_]
    ) -> NDArray[np.bool_]:
        primary = np.where(requested, self.source.primary(kind, param), 0.0)
        if self.source.delta is None:
            delta = np.zeros_like(primary)
        else:
            delta = np.where(requested, self.source.delta(kind, param), 0.0)
        admitted, self.state = self.state.spend(primary, delta)
        out: NDArray[np.bool_] = np.asarray(admitted, dtype=bool) & requested
        return out

    def bounds(self) -> NDArray[np.float64] | None:
        return None


@dataclass(frozen=True, slots=True)
class Transcript:
    """The result of one simulated batch.

    ``loss`` is the total privacy loss of each path's released transcript in the order
    of the sampling side (``log p_x/p_x'`` under ``x``, ``log p_x'/p_x`` under ``x'``);
    ``releases`` counts the releases of each path. With ``record=True`` the per-step
    running losses (same order), outputs, kinds, params and rule bounds are kept
    (``(paths, steps)`` arrays), otherwise those fields are None.
    """

    loss: NDArray[np.float64]
    releases: NDArray[np.int64]
    loss_path: NDArray[np.float64] | None = None
    outputs: NDArray[np.float64] | None = None
    kinds: NDArray[np.int8] | None = None
    params: NDArray[np.float64] | None = None
    bound_path: NDArray[np.float64] | None = None


def release_losses(
    kind: int, y: NDArray[np.float64], param: NDArray[np.float64], distance: float = 1.0
) -> NDArray[np.float64]:
    """log p_x(y) - log p_x'(y) for releases of one kind (center 0 on x, ``distance`` on
    x'; sensitivity 1), from the mechanisms' array log densities. Randomized response
    takes bits: its ``distance`` must be 1."""
    if kind == LAPLACE:
        scale = 1.0 / param
        out: NDArray[np.float64] = laplace_log_ratio(y, 0.0, distance, scale)
    elif kind == GAUSSIAN:
        sigma = 1.0 / param
        out = gaussian_log_ratio(y, 0.0, distance, sigma)
    elif kind == RANDOMIZED_RESPONSE:
        if distance != 1.0:
            raise ValueError(f"distance={distance!r} is not allowed for randomized response")
        out = rr_log_ratio(y, 0.0, param)  # rr_logpmf(y, 0, p) - rr_logpmf(y, 1, p)
    else:
        raise ValueError(f"kind={kind!r} is not allowed: expected 0, 1 or 2")
    return out


def _sample(
    kind: int, center: float, param: NDArray[np.float64], rng: np.random.Generator
) -> NDArray[np.float64]:
    if kind == LAPLACE:
        return laplace_sample(center, 1.0 / param, rng)
    if kind == GAUSSIAN:
        return gaussian_sample(center, 1.0 / param, rng)
    if kind == RANDOMIZED_RESPONSE:
        return rr_sample(center, param, rng)
    raise ValueError(f"kind={kind!r} is not allowed: expected 0, 1 or 2")


@dataclass(slots=True)
class _Work:
    """Buffers of one batch, reused at every step where every path releases the same
    kind (fresh temporaries of that size would be fresh pages at every step)."""

    scale: NDArray[np.float64]
    loss: NDArray[np.float64]
    scratch: tuple[NDArray[np.float64], NDArray[np.float64]]
    square: NDArray[np.float64]

    @staticmethod
    def of(paths: int) -> _Work:
        return _Work(np.empty(paths), np.empty(paths), (np.empty(paths), np.empty(paths)),
                     np.empty(paths))


def _release(
    kind: int, center: float, param: NDArray[np.float64], distance: float,
    rng: np.random.Generator, out: NDArray[np.float64] | None = None,
    work: _Work | None = None,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Outputs and losses of one kind's releases: ``_sample`` then ``release_losses``,
    the same operations (the same bits), with the scale 1 / param computed once and,
    given ``out`` and ``work`` (every path releasing), no fresh temporaries."""
    if kind in (LAPLACE, GAUSSIAN):
        scale = 1.0 / param if work is None else np.divide(1.0, param, out=work.scale)
        loss_out = None if work is None else work.loss
        if kind == LAPLACE:
            y = laplace_sample(center, scale, rng, out=out)
            return y, laplace_log_ratio(y, 0.0, distance, scale, out=loss_out,
                                        scratch=None if work is None else work.scratch[0])
        sigma = positive_array(scale, "sigma")  # as gaussian_sample would, once for both
        y = gaussian.sample_checked(np.asarray(center, dtype=np.float64), sigma, rng, out)
        return y, gaussian.log_ratio_checked(y, 0.0, distance, sigma, loss_out,
                                             None if work is None else work.scratch)
    y = _sample(kind, center, param, rng)
    if out is not None:
        out[...] = y
    return y, release_losses(kind, y, param, distance)


_History = tuple[NDArray[np.float64], NDArray[np.int8], NDArray[np.float64]]
_SPARE = threading.local()  # .history: the last unrecorded batch's arrays, for reuse
_SPARE_BYTES = 1 << 26


def _history(paths: int, steps: int, *, reuse: bool) -> _History:
    """Uninitialised ``(paths, steps)`` column-major outputs, kinds and params.

    Performance only: a batch that is not recorded hands its arrays back (one spare per
    thread, at most 64 MiB), and the next unrecorded batch of the same shape takes them
    instead of fresh pages (those page faults cost about as much as the bookkeeping of
    every step). Nothing of the old batch can be read: each column is written whole
    before the adversary sees it, and nothing outside the call holds these arrays
    (an adversary's view is valid during its ``choose`` call)."""
    spare: _History | None = getattr(_SPARE, "history", None)
    _SPARE.history = None
    if reuse and spare is not None and spare[0].shape == (paths, steps):
        return spare
    outputs = np.empty((paths, steps), order="F")
    kinds = np.empty((paths, steps), dtype=np.int8, order="F")
    params = np.empty((paths, steps), order="F")
    return outputs, kinds, params


def _present(kinds: NDArray[np.int8]) -> list[int]:
    """The kinds present, ascending (as ``np.unique`` gives them; one pass pair when all
    are equal, the common case)."""
    if kinds.size == 0:
        return []
    low, high = int(kinds.min()), int(kinds.max())
    if low == high:
        return [low]
    return [int(k) for k in np.unique(kinds)]


def simulate(
    adversary: Adversary,
    paths: int,
    rng: np.random.Generator,
    *,
    under: str = "x",
    rule: BatchRule | None = None,
    record: bool = False,
    horizon: int | None = None,
    distance: float = 1.0,
) -> Transcript:
    """Run ``paths`` interactions of ``adversary`` on ``x`` (``under="x"``) or ``x'``.

    ``horizon`` defaults to ``adversary.horizon``. With a ``rule``, a refused request
    releases nothing (loss 0 for that step) and the path goes on. ``distance`` puts x'
    at that distance from x (query value ``distance`` instead of 1): group privacy.
    """
    if under not in ("x", "x'"):
        raise ValueError(f"under={under!r} is not allowed: expected 'x' or \"x'\"")
    if paths <= 0:
        raise ValueError(f"paths={paths!r} is not allowed: expected paths >= 1")
    steps = adversary.horizon if horizon is None else horizon
    if not (math.isfinite(distance) and distance > 0):
        raise ValueError(f"distance={distance!r} is not allowed: expected a finite value > 0")
    center = 0.0 if under == "x" else distance
    # column-major: each step writes one contiguous column, whole (a step's column is
    # filled with NaN / -1 / 0 first unless every path releases; columns never reached
    # are filled at the end), so no pass over the whole history up front
    outputs, kinds, params = _history(paths, steps, reuse=not record)
    loss = np.zeros(paths)
    param_sum = np.zeros(paths)
    param_sq_sum = np.zeros(paths)
    loss_path = np.zeros((paths, steps)) if record else None
    bound_path = np.full((paths, steps), np.nan) if record and rule is not None else None
    active = np.ones(paths, dtype=bool)
    # a byte counter while the horizon fits (adding bool bytes without a cast)
    counts = np.zeros(paths, dtype=np.uint8 if steps <= 255 else np.int64)
    ledger = rule.start(paths) if rule is not None else None
    work = _Work.of(paths)
    last = 0
    for t in range(steps):
        view = BatchView(t, paths, outputs[:, :t], kinds[:, :t], params[:, :t], loss, active,
                         param_sum, param_sq_sum)
        request = adversary.choose(view, rng)
        active &= np.asarray(request.go, dtype=bool)
        if not active.any():
            break
        kind = np.asarray(request.kind, dtype=np.int8)
        param = np.asarray(request.param, dtype=np.float64)
        admitted = (active.copy() if ledger is None
                    else np.asarray(ledger.admit(kind, param, active.copy()), dtype=bool))
        everyone = bool(admitted.all())
        present = _present(kind if everyone else kind[admitted])
        if not everyone or not present:
            outputs[:, t] = np.nan
            kinds[:, t] = -1
            params[:, t] = 0.0
        for k in present:
            single = len(present) == 1
            selected = admitted if single else admitted & (kind == k)
            rows: NDArray[np.intp] | slice = (
                slice(None) if single and everyone else np.nonzero(selected)[0])
            p = param[rows]
            if isinstance(rows, slice):  # every path: draw into the history's column
                y, step_loss = _release(k, center, p, distance, rng, outputs[:, t], work)
                np.multiply(p, p, out=work.square)
                square = work.square
            else:
                y, step_loss = _release(k, center, p, distance, rng)
                outputs[rows, t] = y
                square = p * p
            kinds[rows, t] = k
            params[rows, t] = p
            param_sum[rows] += p
            param_sq_sum[rows] += square
            loss[rows] += step_loss
        np.add(counts, admitted.view(np.uint8) if counts.dtype == np.uint8 else admitted,
               out=counts)
        last = t + 1
        if loss_path is not None:
            loss_path[:, t] = loss
        if bound_path is not None and ledger is not None:
            b = ledger.bounds()
            if b is not None:
                bound_path[:, t] = b
    releases = counts.astype(np.int64)
    sign = 1.0 if under == "x" else -1.0
    final = sign * loss
    if not record:
        if 17 * paths * steps <= _SPARE_BYTES:
            _SPARE.history = (outputs, kinds, params)
        return Transcript(final, releases)
    outputs[:, last:] = np.nan
    kinds[:, last:] = -1
    params[:, last:] = 0.0
    assert loss_path is not None
    if last < steps:
        loss_path[:, last:] = loss[:, None]
    return Transcript(
        final, releases, sign * loss_path, outputs, kinds, params, bound_path
    )
