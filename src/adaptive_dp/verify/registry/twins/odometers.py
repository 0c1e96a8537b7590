"""Negative controls of the W23 odometers: the poster's printed forms and the fixed-time
bound read at every n. Each subclasses a valid odometer of
:mod:`adaptive_dp.odometers.w23` and overrides its private hooks on the certified path
(``OdometerState.reading``); the claims run them in the poster's scenario (randomized
response with epsilon_m = 0.1 at every step, delta' = 0.05, delta'' = 0, 10^4 steps),
where every path has the same public prefix, so one certified reading per step serves
the whole batch.

- :class:`PrintedStitchedOdometer` (W23-StitchedOdometer, poster P8, refuted): the
  corrected stitched odometer with the drift 1/2 V_n + Delta_n removed (hook ``_drift``),
  "U_n = 1.7 sqrt(V_n (log log(2 V_n / epsilon_1^2) + 0.72 log(5.2 / delta')))". The loss
  has drift E L_n = n epsilon tanh(epsilon/2) ~ V_n / 2, so this boundary is crossed
  (docs/derivations.md, section 2.10: 0.88 of paths within 10^4 steps).
- :class:`PrintedMixtureOdometer` (W23-MixtureOdometer, poster P9, refuted): the one-sided
  mixture "U_n = sqrt(2 (V_n + rho) log(1/(2 delta) sqrt((V_n + rho)/rho) + 1))" as
  printed: no drift (hook ``_drift``) and the total delta = delta' + delta'' in the
  logarithm (hook ``_level``; a printed form may differ in more than one place, docs/design.md,
  Verification: twins). With delta'' = 0 the level hook changes nothing, so the defect
  that is caught is the missing drift (0.99 of paths cross within 10^4 steps, rho = 1).
- :class:`FixedTimeAsOdometer` (of both corrected odometers): the fixed-n
  advanced-composition bound of W23, "sqrt(2 log(1/delta') V_n) + 1/2 V_n + Delta_n",
  valid at each n fixed in advance (it is the W23 filter's expression, H23-ThmB.3), read
  as an odometer at every n (hook ``_boundary``): by the law of the iterated logarithm
  it is crossed with probability growing with the horizon (0.14 within 10^4 steps of
  epsilon = 0.1 at delta' = 0.05, docs/derivations.md, section 2.10).

``tests/verify/test_filter_twins.py`` computes each twin's exact crossing probability in
its scenario by dynamic programming over the randomized-response lattice.
"""

from __future__ import annotations

from fractions import Fraction

from flint import arb

from adaptive_dp.numerics import arb_of
from adaptive_dp.odometers.w23 import W23MixtureOdometer, W23StitchedOdometer

__all__ = ["FixedTimeAsOdometer", "PrintedMixtureOdometer", "PrintedStitchedOdometer"]


class PrintedStitchedOdometer(W23StitchedOdometer):
    """W23-StitchedOdometer (poster P8, as printed; refuted): no drift term."""

    __slots__ = ()

    def _drift(self, v: Fraction, d: Fraction) -> arb:
        return arb(0)


class PrintedMixtureOdometer(W23MixtureOdometer):
    """W23-MixtureOdometer (poster P9, as printed; refuted): no drift term, and the total
    delta = delta' + delta'' in the logarithm."""

    __slots__ = ()

    def _drift(self, v: Fraction, d: Fraction) -> arb:
        return arb(0)

    def _level(self) -> Fraction:
        return self.delta


class FixedTimeAsOdometer(W23StitchedOdometer):
    """Twin of W23-StitchedOdometer-Corrected and W23-MixtureOdometer-Corrected: the
    fixed-time bound sqrt(2 log(1/delta') V_n) (plus the drift 1/2 V_n + Delta_n) used as a
    time-uniform boundary."""

    __slots__ = ()

    def _boundary(self, v: Fraction, start: Fraction) -> arb:
        return (2 * (1 / arb_of(self._level())).log() * arb_of(v)).sqrt()
