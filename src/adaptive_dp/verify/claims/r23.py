"""Claims of the R23 foundation: R23-Lem2.3 (Bun-Steinke) and R23-Lem2.4 (zCDP composition).

Scenarios (Gaussian mechanism, sensitivity 1, worst-case neighbours 0 and 1):

- ``R23-Lem2.3/gaussian``: one Gaussian release with rho = 8 (mu = 4); claimed
  ``eps = rho + 2 sqrt(rho log(1/delta''))`` at delta'' = 0.05 (quick) / 1e-3 (full);
  hockey-stick in both orders. Twin ``halved-rho``.
- ``R23-Lem2.4/budget-hugging``: five Gaussian releases spending half of the remaining
  mu^2 = 2 rho each, the last one the rest (total rho = 1/2, a schedule fixed in
  advance); claimed: the composed rho converted by EXT-CKS20 at delta = 0.05 / 1e-3.
- ``R23-Lem2.4/stop-at-worst``: four releases of rho = 1/8 each, stopping as soon as the
  running loss exceeds 0.5 (stopping is post-processing of the released prefix).
  Twin ``drop-last`` (two releases of rho = 1/2, at delta = 0.02).
"""

from __future__ import annotations

from fractions import Fraction

from adaptive_dp.interactive.adversary import GAUSSIAN
from adaptive_dp.verify.adversaries import BudgetHugging, Constant, StopAtWorst
from adaptive_dp.verify.bounds import BunSteinke, ZCDPComposition
from adaptive_dp.verify.claims.base import (
    Claim,
    Setup,
    Twin,
    hockey_stick_setup,
    profile_delta,
)
from adaptive_dp.verify.estimators import Quantity
from adaptive_dp.verify.twins.composition import DropLastZCDP
from adaptive_dp.verify.twins.conversions import HalvedRhoBunSteinke

__all__ = ["CLAIMS"]

_BS_RHO = Fraction(8)


def _bs(profile: str) -> Setup:
    slack = Fraction(profile_delta(profile, 0.05))
    return hockey_stick_setup(BunSteinke(_BS_RHO, slack), Constant((GAUSSIAN,), 4.0, 1),
                              f"one Gaussian release, rho=8 (mu=4), delta''={float(slack)}")


def _bs_twin(profile: str) -> Setup:
    return hockey_stick_setup(HalvedRhoBunSteinke(_BS_RHO, Fraction(1, 20)),
                              Constant((GAUSSIAN,), 4.0, 1),
                              "one Gaussian release, rho=8 (mu=4), delta''=0.05")


_SCHEDULE = (Fraction(1, 4), Fraction(1, 8), Fraction(1, 16), Fraction(1, 32), Fraction(1, 32))


def _hugging(profile: str) -> Setup:
    delta = Fraction(profile_delta(profile, 0.05))
    adversary = BudgetHugging((GAUSSIAN,), 1.0, 5, "mu2", 0.5, 0.5)
    return hockey_stick_setup(ZCDPComposition(_SCHEDULE, delta), adversary,
                              f"5 Gaussian releases, rho_i = 1/4, 1/8, 1/16, 1/32, 1/32 "
                              f"(half the rest each), delta={float(delta)}")


def _stop(profile: str) -> Setup:
    delta = Fraction(profile_delta(profile, 0.05))
    adversary = StopAtWorst((GAUSSIAN,), 0.5, 4, threshold=0.5)
    return hockey_stick_setup(ZCDPComposition((Fraction(1, 8),) * 4, delta), adversary,
                              f"up to 4 Gaussian releases of rho=1/8, stop when L > 0.5, "
                              f"delta={float(delta)}")


def _zcdp_twin(profile: str) -> Setup:
    return hockey_stick_setup(DropLastZCDP((Fraction(1, 2),) * 2, Fraction(1, 50)),
                              Constant((GAUSSIAN,), 1.0, 2),
                              "2 Gaussian releases of rho=1/2, delta=0.02")


CLAIMS: tuple[Claim, ...] = (
    Claim("R23-Lem2.3", "gaussian", Quantity.HOCKEY_STICK,
          "Bun-Steinke: rho-zCDP => (rho + 2 sqrt(rho log(1/delta'')), delta'')-DP",
          _bs, (Twin("halved-rho", "rho halved before converting", _bs_twin),)),
    Claim("R23-Lem2.4", "budget-hugging", Quantity.HOCKEY_STICK,
          "zCDP composition: rho_i-zCDP mechanisms compose to (sum rho_i)-zCDP",
          _hugging),
    Claim("R23-Lem2.4", "stop-at-worst", Quantity.HOCKEY_STICK,
          "zCDP composition under an adversary that stops at the worst moment",
          _stop, (Twin("drop-last", "the last mechanism's rho not charged", _zcdp_twin),)),
)
