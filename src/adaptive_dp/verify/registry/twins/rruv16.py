"""Negative controls of the RRUV16 odometer (RRUV16-Odometer), each the valid odometer of
:mod:`adaptive_dp.odometers.rruv16` with one private hook of the certified path
overridden (the claims run them with one public prefix, so certified readings serve the
whole batch):

- :class:`NoDriftRRUV16Odometer`: the drift sum_{j<=k} epsilon_j (e^{epsilon_j} - 1)/2
  removed (hook ``_boundary``). Randomized response with epsilon = 1 has mean loss
  tanh(1/2) = 0.462 per step, while the concentration term (n = 2, delta_g = 0.05) grows
  like sqrt(k log k): the mean passes it after 176 steps, so the twin is crossed with
  probability near 1 within 500 steps.
- :class:`NoDeltaRRUV16Odometer`: the recollection as it was read for pDP steps, Delta_k
  dropped from the reading (hook ``_drift``; the cut-off Delta_k <= delta_g/2 kept). The
  attaining pDP pair of W23-ClippedPDPStep with epsilon = 1e-3, delta = 9.0e-4 (n = 1000,
  delta_g = 0.2) has mean loss about delta per step: after 111 steps L is about 0.1
  while this twin reads about 0.063, so it is crossed surely.
"""

from __future__ import annotations

from fractions import Fraction

from flint import arb

from adaptive_dp.odometers.rruv16 import RRUV16Odometer

__all__ = ["NoDeltaRRUV16Odometer", "NoDriftRRUV16Odometer"]


class NoDriftRRUV16Odometer(RRUV16Odometer):
    """Twin of RRUV16-Odometer: no drift sum epsilon_j (e^{epsilon_j} - 1)/2."""

    __slots__ = ()

    def _boundary(self, v: Fraction, start: Fraction) -> arb:
        return self._concentration(v)


class NoDeltaRRUV16Odometer(RRUV16Odometer):
    """Twin of RRUV16-Odometer: no Delta_k term in the reading (pDP steps)."""

    __slots__ = ()

    def _drift(self, v: Fraction, d: Fraction) -> arb:
        return arb(0)
