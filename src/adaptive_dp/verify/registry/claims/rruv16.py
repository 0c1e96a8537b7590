"""Claims of the RRUV16 odometer (RRUV16-Odometer, :mod:`adaptive_dp.odometers.rruv16`):
the crossing probability P[exists k <= horizon: L_k > U_k] against delta_g.

The pure-DP scenarios run the W23 odometers' experiment
(:class:`~adaptive_dp.verify.registry.claims.odometers.OdometerCrossing`: randomized
response or Laplace on the worst-case neighbours, losses from the mechanisms' log
densities, strict ``>``, both orders), with n = 10 so that every epsilon_j lies in the
recollection's range [1/n, 1]:

- ``RRUV16-Odometer/constant``: RR with epsilon = 0.1 at each of 1,000 (quick) / 10^4
  (full) steps (certified readings).
- ``RRUV16-Odometer/adaptive-epsilon``: RR, epsilon = 0.5 while L > V/2, else 0.1; horizon
  300 (quick, for the one-second budget) / 10^4 (full), fast readings.
- ``RRUV16-Odometer/budget-hugging``: epsilon = 0.5 (RR) while the loss is within 1 of
  the bound, else 0.1 (Laplace); same horizons.
- ``RRUV16-Odometer/pdp-steps`` (:class:`PDPPairCrossing`): the attaining pDP pair of
  W23-ClippedPDPStep with epsilon = 1e-3 and delta = delta_g / 222 at each of 111 steps,
  n = 1000 (Delta reaches the cut-off delta_g/2 at the last step). Losses atom by atom
  (+inf on the atom only Q charges, under x': crossed there with probability about
  delta_g/2); certified readings.

delta_g = 0.05 (pure, quick), 0.2 (pDP, quick), 1e-3 (full). Twins (quick scenario in both
profiles): ``drift-removed``
(:class:`~adaptive_dp.verify.registry.twins.rruv16.NoDriftRRUV16Odometer`: RR with
epsilon = 1 at each of 500 steps, n = 2, delta_g = 0.05) on every claim, and
``delta-term-dropped``
(:class:`~adaptive_dp.verify.registry.twins.rruv16.NoDeltaRRUV16Odometer`) on
``pdp-steps``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
from numpy.typing import NDArray

from adaptive_dp.guarantees.definitions import ProbabilisticDP
from adaptive_dp.interactive.adversary import RANDOMIZED_RESPONSE
from adaptive_dp.odometers.rruv16 import RRUV16Odometer
from adaptive_dp.verify.judge.claim import Claim, Setup, Twin, profile_delta, samples_for
from adaptive_dp.verify.judge.estimators import Quantity
from adaptive_dp.verify.registry.claims.odometers import (
    BoundaryHugging,
    CentredSwitch,
    ConstantEpsilon,
    OdometerCrossing,
)
from adaptive_dp.verify.registry.claims.w23_steps import attaining_pdp_pair
from adaptive_dp.verify.registry.twins.rruv16 import NoDeltaRRUV16Odometer, NoDriftRRUV16Odometer

__all__ = ["CLAIMS", "PDPPairCrossing"]

Bools = NDArray[np.bool_]

_N_PURE = 10
_PDP = (Fraction("0.001"), 111, 1_000)
"""epsilon, horizon and n of the pDP scenario; delta_j = delta_g / (2 horizon)."""


@functools.lru_cache(maxsize=8)
def _pdp_readings(odometer: Any, epsilon: Fraction, delta: Fraction, horizon: int
                  ) -> tuple[float, ...]:
    state = odometer.start()
    out = []
    for _ in range(horizon):
        state = state.spend(ProbabilisticDP(epsilon, delta))
        out.append(state.reading())
    return tuple(out)


@dataclass(frozen=True, slots=True)
class PDPPairCrossing:
    """Per path: exists k <= horizon with L_k > U_k, each step the attaining
    (epsilon, delta)-pDP pair (P under x, Q under x'), U_k certified."""

    odometer: Any
    epsilon: Fraction
    delta: Fraction
    horizon: int

    def __call__(self, paths: int, rng: np.random.Generator, under: str) -> Bools:
        p, q = attaining_pdp_pair(np.array([float(self.epsilon)]), np.array([float(self.delta)]))
        side, other = (p[0], q[0]) if under == "x" else (q[0], p[0])
        with np.errstate(divide="ignore"):
            atom_loss = np.log(side) - np.log(other)
        cut = np.cumsum(side)[:-1]
        readings = np.asarray(_pdp_readings(self.odometer, self.epsilon, self.delta,
                                            self.horizon))
        block = max(1, min(500, 2_000_000 // paths))
        loss = np.zeros(paths)
        crossed = np.zeros(paths, dtype=bool)
        for start in range(0, self.horizon, block):
            stop = min(start + block, self.horizon)
            atoms = np.searchsorted(cut, rng.random((paths, stop - start)), side="right")
            running = loss[:, None] + np.cumsum(atom_loss[atoms], axis=1)
            crossed |= np.any(running > readings[None, start:stop], axis=1)
            loss = running[:, -1]
        return crossed


def _crossing(experiment: Any, claimed: float, note: str) -> Setup:
    return Setup(Quantity.CROSSING, 0.0, claimed, experiment,
                 samples_for(Quantity.CROSSING, claimed), note=note)


def _pure(profile: str, adversary_of: Callable[[int], Any], certified: bool,
          what: str) -> Setup:
    delta = Fraction(profile_delta(profile, 0.05))
    horizon = 10_000 if profile == "full" else 1_000 if certified else 300
    odometer = RRUV16Odometer(delta=delta, n=_N_PURE)
    return _crossing(OdometerCrossing(adversary_of(horizon), odometer, certified),
                     float(delta), f"RRUV16 odometer, delta_g={float(delta)}, n={_N_PURE}: "
                     f"{what}, {horizon} steps")


def _pdp(odometer_type: type[RRUV16Odometer], profile: str) -> Setup:
    delta = Fraction(profile_delta(profile, 0.2))
    eps, horizon, n = _PDP
    d = delta / (2 * horizon)
    return _crossing(PDPPairCrossing(odometer_type(delta=delta, n=n), eps, d, horizon),
                     float(delta), f"RRUV16 odometer, delta_g={float(delta)}, n={n}: "
                     f"attaining ({eps}, {float(d):.4g})-pDP pair at each of {horizon} steps")


def _no_drift(profile: str) -> Setup:
    odometer = NoDriftRRUV16Odometer(delta=Fraction(1, 20), n=2)
    return _crossing(OdometerCrossing(ConstantEpsilon(RANDOMIZED_RESPONSE, 1.0, 500),
                                      odometer, True), 0.05,
                     "RRUV16 without drift, delta_g=0.05, n=2: RR eps=1 at each of 500 steps")


_NO_DRIFT = Twin("drift-removed", "the drift sum eps_j (e^eps_j - 1)/2 removed", _no_drift)
_NO_DELTA = Twin("delta-term-dropped",
                 "Delta_k dropped from the reading (the recollection read for pDP steps)",
                 lambda p: _pdp(NoDeltaRRUV16Odometer, "quick"))

CLAIMS: tuple[Claim, ...] = (
    Claim("RRUV16-Odometer", "constant", Quantity.CROSSING,
          "RRUV16 odometer: time-uniform bound, RR of epsilon 0.1 per step",
          lambda p: _pure(p, lambda h: ConstantEpsilon(RANDOMIZED_RESPONSE, 0.1, h), True,
                          "RR eps=0.1 (certified readings)"), (_NO_DRIFT,)),
    Claim("RRUV16-Odometer", "adaptive-epsilon", Quantity.CROSSING,
          "RRUV16 odometer: epsilon_j chosen from the centred loss",
          lambda p: _pure(p, lambda h: CentredSwitch(0.1, 0.5, h), False,
                          "RR eps 0.5 while L > V/2, else 0.1 (fast readings)"), (_NO_DRIFT,)),
    Claim("RRUV16-Odometer", "budget-hugging", Quantity.CROSSING,
          "RRUV16 odometer: an adversary hugging the boundary",
          lambda p: _pure(p, lambda h: BoundaryHugging(0.1, 0.5, 1.0, h), False,
                          "eps 0.5 (RR) within 1 of the bound, else 0.1 (Laplace)"),
          (_NO_DRIFT,)),
    Claim("RRUV16-Odometer", "pdp-steps", Quantity.CROSSING,
          "RRUV16 odometer with the Delta_k term: attaining pDP steps",
          lambda p: _pdp(RRUV16Odometer, p), (_NO_DELTA, _NO_DRIFT)),
)
