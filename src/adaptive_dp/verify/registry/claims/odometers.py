"""Claims of the W23 time-uniform odometers (corrected forms): the crossing probability
P[exists n <= horizon: L_n > U_n] against delta' (delta'' = 0, pure-DP inputs).

An odometer admits every release, so the experiment is a lean vectorised loop over a
batch of paths (no (paths, steps) history is kept: the horizons here are 10^4 steps):
at each step the adversary (below) chooses, for all paths at once, the mechanism
(randomized response or Laplace) and its epsilon_m from the public running state, the
mechanisms run on the worst-case neighbours (bit 0 / bit 1, or 0 / 1 with sensitivity
1), the loss of each release is added from the mechanisms' log densities
(:func:`adaptive_dp.verify.judge.simulate.release_losses`), the odometer is charged and its
reading U_n compared with the running loss L_n (strict ``>``, both orders of the pair).

Readings: with :class:`ConstantEpsilon` every path shares one public prefix, so the
certified reading (``OdometerState.reading``, arb, rounded up) is computed once per
step; under adaptive adversaries the vectorised fast path is used
(``FastOdometerState.reading``, never below the certified reading, so its crossing
probability is at most the certified one's: the claim is tested on a bound that is
larger by a relative ~1e-12).

Scenarios (quick: delta' = 0.05; full: delta' = 1e-3, horizon 10^4):

- ``<odometer>/constant``: the poster's scenario, randomized response with
  epsilon_m = 0.1 at every step, horizon 10^4 (both profiles).
- ``<odometer>/budget-hugging``: boundary hugging (docs/derivations.md, section 2.10, A3): a
  path requests epsilon_m = 0.2 (randomized response) while its loss is within 1 of its
  current bound, else 0.05 (Laplace); horizon 1,000 (quick) / 10^4 (full).
- ``<odometer>/adaptive-epsilon``: centred loss (A1): epsilon_m = 0.2 while
  L_{m-1} > V_{m-1}/2, else 0.05 (randomized response); horizon 1,000 / 10^4.

There is no stop-at-worst scenario: stopping freezes both L_n and U_n, so the crossing
event of a stopped path is contained in that of the path run to the horizon.

The odometers: ``W23StitchedOdometer(delta')`` (the 1.7 / 0.72 / 5.2 form, eta = 2,
s = 1.4) and ``W23MixtureOdometer(delta', rho=1)`` (one-sided, the poster's closed form
plus drift). Twins, each in the constant scenario with horizon 10^4 and delta' = 0.05
(the printed poster odometers need about 10^4 steps of epsilon = 0.1 to be crossed):
``printed`` (:class:`~adaptive_dp.verify.registry.twins.odometers.PrintedStitchedOdometer`,
:class:`~adaptive_dp.verify.registry.twins.odometers.PrintedMixtureOdometer`: drift removed) and
``fixed-time-at-every-n``
(:class:`~adaptive_dp.verify.registry.twins.odometers.FixedTimeAsOdometer`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from adaptive_dp.guarantees.definitions import PureDP
from adaptive_dp.interactive.adversary import LAPLACE, RANDOMIZED_RESPONSE
from adaptive_dp.mechanisms import laplace_sample, rr_sample, rr_truthful
from adaptive_dp.odometers.w23 import W23MixtureOdometer, W23StitchedOdometer
from adaptive_dp.verify.judge.claim import Claim, Setup, Twin, profile_delta, samples_for
from adaptive_dp.verify.judge.estimators import Quantity
from adaptive_dp.verify.judge.simulate import release_losses
from adaptive_dp.verify.registry.twins.odometers import (
    FixedTimeAsOdometer,
    PrintedMixtureOdometer,
    PrintedStitchedOdometer,
)

__all__ = [
    "CLAIMS",
    "BoundaryHugging",
    "CentredSwitch",
    "ConstantEpsilon",
    "OdometerCrossing",
    "OdometerView",
    "certified_readings",
]

Array = NDArray[np.float64]
Bools = NDArray[np.bool_]
Kinds = NDArray[np.int8]

TWIN_HORIZON = 10_000
TWIN_DELTA = Fraction(1, 20)
MIXTURE_RHO = Fraction(1)


@dataclass(frozen=True, slots=True)
class OdometerView:
    """The public state an odometer adversary sees after ``step`` releases, per path:
    its running loss (on the sampling side; the adversary knows the pair), V_n, the
    odometer's current reading U_n (0 before any release) and whether it is active."""

    step: int
    loss: Array
    sum_sq: Array
    bound: Array
    active: Bools


class OdometerAdversary(Protocol):
    """Chooses (kind, epsilon, go) for every path at once."""

    @property
    def horizon(self) -> int: ...

    def choose(self, view: OdometerView, rng: np.random.Generator
               ) -> tuple[Kinds, Array, Bools]: ...


def _full(n: int, kind: int, eps: float) -> tuple[Kinds, Array, Bools]:
    return (np.full(n, kind, dtype=np.int8), np.full(n, eps), np.ones(n, dtype=bool))


@dataclass(frozen=True, slots=True)
class ConstantEpsilon:
    """The same mechanism and epsilon at every one of ``horizon`` steps."""

    kind: int
    epsilon: float
    horizon: int

    def choose(self, view: OdometerView, rng: np.random.Generator
               ) -> tuple[Kinds, Array, Bools]:
        return _full(view.loss.shape[0], self.kind, self.epsilon)


@dataclass(frozen=True, slots=True)
class CentredSwitch:
    """epsilon = ``high`` while the centred loss L - V/2 is positive, else ``low``."""

    low: float
    high: float
    horizon: int
    kind: int = RANDOMIZED_RESPONSE

    def choose(self, view: OdometerView, rng: np.random.Generator
               ) -> tuple[Kinds, Array, Bools]:
        kind, _, go = _full(view.loss.shape[0], self.kind, 0.0)
        eps: Array = np.where(view.loss - view.sum_sq / 2 > 0, self.high, self.low)
        return kind, eps, go


@dataclass(frozen=True, slots=True)
class BoundaryHugging:
    """epsilon = ``high`` (randomized response) while the loss is within ``margin`` of
    the current bound, else ``low`` (Laplace)."""

    low: float
    high: float
    margin: float
    horizon: int

    def choose(self, view: OdometerView, rng: np.random.Generator
               ) -> tuple[Kinds, Array, Bools]:
        near = view.bound - view.loss < self.margin
        kind = np.where(near, RANDOMIZED_RESPONSE, LAPLACE).astype(np.int8)
        eps: Array = np.where(near, self.high, self.low)
        return kind, eps, np.ones(view.loss.shape[0], dtype=bool)


@functools.lru_cache(maxsize=32)
def certified_readings(odometer: Any, epsilon: float, horizon: int) -> tuple[float, ...]:
    """U_1, ..., U_horizon of ``odometer`` after pure epsilon-DP spends (certified)."""
    return tuple(state.reading() for state in odometer.start().spend_each(PureDP(epsilon),
                                                                        horizon))


def _sample(kind: int, center: float, eps: Array, rng: np.random.Generator) -> Array:
    if kind == RANDOMIZED_RESPONSE:
        return rr_sample(center, eps, rng)
    if kind == LAPLACE:
        return laplace_sample(center, 1.0 / eps, rng)
    raise ValueError(f"kind={kind!r} is not allowed: expected 0 (Laplace) or 2 (RR)")


def _by_kind(kind: Kinds, active: Bools) -> list[tuple[int, Bools | None]]:
    """The kinds of the active paths in increasing order (the order of ``np.unique``)
    with their rows; None for the rows of a kind every path releases."""
    present = np.flatnonzero(np.bincount(kind[active]))
    if present.size == 1 and active.all():
        return [(int(present[0]), None)]
    return [(int(k), active & (kind == k)) for k in present]


@dataclass(frozen=True, slots=True)
class OdometerCrossing:
    """Per path: whether exists n <= horizon with L_n > U_n (see the module docstring).

    ``certified=True`` needs a :class:`ConstantEpsilon` adversary of randomized response
    (one public prefix)."""

    adversary: Any
    odometer: Any
    certified: bool = False

    def __call__(self, paths: int, rng: np.random.Generator, under: str) -> Bools:
        if under not in ("x", "x'"):
            raise ValueError(f"under={under!r} is not allowed: expected 'x' or \"x'\"")
        center, sign = (0.0, 1.0) if under == "x" else (1.0, -1.0)
        horizon = int(self.adversary.horizon)
        if self.certified:
            if not (isinstance(self.adversary, ConstantEpsilon)
                    and self.adversary.kind == RANDOMIZED_RESPONSE):
                raise ValueError("certified readings need a ConstantEpsilon adversary of "
                                 "randomized response")
            return self._constant(self.adversary, paths, rng, center, sign)
        fast = self.odometer.fast(paths)
        loss = np.zeros(paths)
        sum_sq = np.zeros(paths)
        bound = np.zeros(paths)
        active = np.ones(paths, dtype=bool)
        crossed = np.zeros(paths, dtype=bool)
        for t in range(horizon):
            kind, eps, go = self.adversary.choose(
                OdometerView(t, loss, sum_sq, bound, active), rng)
            active &= np.asarray(go, dtype=bool)
            if not active.any():
                break
            eps = np.where(active, np.asarray(eps, dtype=np.float64), 0.0)
            for k, rows in _by_kind(kind, active):
                if rows is None:  # every path: no gather or scatter (the same floats)
                    loss += sign * release_losses(k, _sample(k, center, eps, rng), eps)
                    continue
                y = _sample(k, center, eps[rows], rng)
                loss[rows] += sign * release_losses(k, y, eps[rows])
            sum_sq += eps * eps
            fast = fast.spend(eps)
            bound = fast.reading()
            crossed |= loss > bound
        return crossed

    def _constant(self, adversary: ConstantEpsilon, paths: int, rng: np.random.Generator,
                  center: float, sign: float) -> Bools:
        """One public prefix: releases drawn for a block of steps at once (the same draws
        as randomized response's sampler on a (paths, steps) block, vectorised over
        time), compared with the certified readings.

        Performance only, bit for bit the losses of the released reports
        (:func:`release_losses`) summed in order as ``np.cumsum`` sums them: a report's
        loss is looked up by whether it is truthful, and the running sums are kept step
        by step (rows of a (steps, paths) block); the uniforms go to a reused buffer."""
        readings = np.asarray(
            certified_readings(self.odometer, adversary.epsilon, adversary.horizon))
        # the loss of a flipped (index 0) and of a truthful (index 1) report
        table = sign * release_losses(RANDOMIZED_RESPONSE, np.array([1.0 - center, center]),
                                      np.full(2, adversary.epsilon))
        block = max(1, min(500, 2_000_000 // paths))
        uniforms = np.empty((paths, block))
        loss = np.zeros(paths)
        crossed = np.zeros(paths, dtype=bool)
        for start in range(0, adversary.horizon, block):
            width = min(block, adversary.horizon - start)
            truthful = rr_truthful(adversary.epsilon, (paths, width), rng,
                                   out=uniforms if width == block else None)
            running = np.take(table, np.ascontiguousarray(truthful.T).view(np.uint8))
            for m in range(1, width):
                np.add(running[m - 1], running[m], out=running[m])
            running += loss
            crossed |= np.any(running > readings[start:start + width, None], axis=0)
            loss = running[-1]
        return crossed


def _setup(adversary: Any, odometer: Any, claimed: float, certified: bool,
           note: str) -> Setup:
    return Setup(Quantity.CROSSING, 0.0, claimed,
                 OdometerCrossing(adversary, odometer, certified),
                 samples_for(Quantity.CROSSING, claimed), note=note)


Factory = Callable[[Fraction], Any]


def _stitched(delta: Fraction) -> Any:
    return W23StitchedOdometer(delta=delta)


def _mixture(delta: Fraction) -> Any:
    return W23MixtureOdometer(delta=delta, rho=MIXTURE_RHO)


def _constant(factory: Factory, name: str) -> Callable[[str], Setup]:
    def build(profile: str) -> Setup:
        delta = Fraction(profile_delta(profile, 0.05))
        horizon = 10_000
        return _setup(ConstantEpsilon(RANDOMIZED_RESPONSE, 0.1, horizon), factory(delta),
                      float(delta), True,
                      f"{name}, delta'={float(delta)}: RR eps=0.1 at each of {horizon} steps "
                      "(certified readings)")
    return build


def _adaptive(factory: Factory, name: str, adversary_of: Callable[[int], Any],
              what: str) -> Callable[[str], Setup]:
    def build(profile: str) -> Setup:
        delta = Fraction(profile_delta(profile, 0.05))
        horizon = 1_000 if profile == "quick" else 10_000
        return _setup(adversary_of(horizon), factory(delta), float(delta), False,
                      f"{name}, delta'={float(delta)}: {what}, {horizon} steps (fast readings)")
    return build


def _hugging(horizon: int) -> BoundaryHugging:
    return BoundaryHugging(0.05, 0.2, 1.0, horizon)


def _centred(horizon: int) -> CentredSwitch:
    return CentredSwitch(0.05, 0.2, horizon)


def _twin(odometer: Any, what: str) -> Callable[[str], Setup]:
    def build(profile: str) -> Setup:
        return _setup(ConstantEpsilon(RANDOMIZED_RESPONSE, 0.1, TWIN_HORIZON), odometer,
                      float(TWIN_DELTA), True,
                      f"{what}, delta'=0.05: RR eps=0.1 at each of {TWIN_HORIZON} steps")
    return build


_FIXED_TIME = Twin("fixed-time-at-every-n",
                   "the fixed-n bound sqrt(2 log(1/delta') V_n) + V_n/2 read at every n",
                   _twin(FixedTimeAsOdometer(delta=TWIN_DELTA),
                         "fixed-time W23 bound at every n"), "H23-ThmB.3")
_STITCHED_TWINS = (
    Twin("printed", "poster P8 as printed: the drift V_n/2 removed",
         _twin(PrintedStitchedOdometer(delta=TWIN_DELTA), "printed P8 (no drift)"),
         "W23-StitchedOdometer"),
    _FIXED_TIME,
)
_MIXTURE_TWINS = (
    Twin("printed", "poster P9 as printed: the drift V_n/2 removed (level delta'+delta'')",
         _twin(PrintedMixtureOdometer(delta=TWIN_DELTA, rho=MIXTURE_RHO),
               "printed P9 (no drift), rho=1"),
         "W23-MixtureOdometer"),
    _FIXED_TIME,
)

_HUG = "eps 0.2 (RR) within 1 of the bound, else 0.05 (Laplace)"
_CENTRED = "RR eps 0.2 while L > V/2, else 0.05"


def _claims(spec: str, factory: Factory, name: str, twins: tuple[Twin, ...]
            ) -> tuple[Claim, ...]:
    return (
        Claim(spec, "constant", Quantity.CROSSING,
              f"{name}: time-uniform bound, randomized response of epsilon 0.1 per step",
              _constant(factory, name), twins),
        Claim(spec, "budget-hugging", Quantity.CROSSING,
              f"{name}: time-uniform bound under an adversary hugging the boundary",
              _adaptive(factory, name, _hugging, _HUG), twins),
        Claim(spec, "adaptive-epsilon", Quantity.CROSSING,
              f"{name}: time-uniform bound, epsilon_m chosen from the centred loss",
              _adaptive(factory, name, _centred, _CENTRED), twins),
    )


CLAIMS: tuple[Claim, ...] = (
    _claims("W23-StitchedOdometer-Corrected", _stitched, "stitched odometer (1.7/0.72/5.2)",
            _STITCHED_TWINS)
    + _claims("W23-MixtureOdometer-Corrected", _mixture, "one-sided mixture odometer, rho=1",
              _MIXTURE_TWINS)
)
