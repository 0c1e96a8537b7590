"""Claims of the R23 foundation: the Laplace and Gaussian mechanisms' calibrations
(R23-Lem2.1, R23-Lem2.2), R23-Lem2.3 (Bun-Steinke) and R23-Lem2.4 (zCDP composition).

Scenarios (sensitivity 1, worst-case neighbours 0 and 1):

- ``R23-Lem2.1/laplace``: one release of ``LaplaceMechanism.from_epsilon(1, 1/2)``;
  delta = 0: every sampled loss, both orders, <= 1/2 (1 + 1e-9), power for tails of
  0.02 (quick) / 1e-3 (full). Twin ``halved-scale``.
- ``R23-Lem2.2/gaussian``: one release of ``GaussianMechanism.from_rho(1, 2)``;
  hockey-stick at the stated eps = 11/2 (quick) / 17/2 (full) against EXT-CKS20's delta of
  ZCDP(2). Twin ``variance-as-sigma``.

- ``R23-Lem2.3/gaussian``: one Gaussian release with rho = 8 (mu = 4); claimed
  ``eps = rho + 2 sqrt(rho log(1/delta''))`` at delta'' = 0.05 (quick) / 1e-3 (full);
  hockey-stick in both orders. Twin ``halved-rho``.
- ``R23-Lem2.4/budget-hugging``: five Gaussian releases spending half of the remaining
  mu^2 = 2 rho each, the last one the rest (total rho = 1/2, a schedule fixed in
  advance); claimed: the composed rho converted by EXT-CKS20 at delta = 0.05 / 1e-3.
- ``R23-Lem2.4/stop-at-worst``: four releases of rho = 1/8 each, stopping as soon as the
  running loss exceeds 0.5 (stopping is post-processing of the released prefix).
  Twin ``drop-last`` (two releases of rho = 1/2, at delta = 0.02).
  ``exact_worst`` of both: the Gaussian mechanism's delta at mu = 1, the worst over every
  adaptive Gaussian strategy of total rho 1/2 (:mod:`adaptive_dp.verify.registry.worst_case`).
"""

from __future__ import annotations

from fractions import Fraction

from adaptive_dp.interactive.adversary import GAUSSIAN, LAPLACE
from adaptive_dp.verify.judge.adversaries import BudgetHugging, Constant, StopAtWorst
from adaptive_dp.verify.judge.claim import (
    Claim,
    Setup,
    Twin,
    hockey_stick_setup,
    max_loss_setup,
    profile_delta,
)
from adaptive_dp.verify.judge.estimators import Quantity
from adaptive_dp.verify.registry.bounds import (
    BunSteinke,
    GaussianCalibration,
    LaplaceCalibration,
    ZCDPComposition,
)
from adaptive_dp.verify.registry.twins.composition import DropLastZCDP
from adaptive_dp.verify.registry.twins.conversions import HalvedRhoBunSteinke
from adaptive_dp.verify.registry.twins.mechanisms import HalvedScaleLaplace, VarianceAsSigmaGaussian
from adaptive_dp.verify.registry.worst_case import gaussian_budget_worst, with_exact_worst

__all__ = ["CLAIMS"]

_BS_RHO = Fraction(8)


def _laplace_setup(bound: LaplaceCalibration, delta_min: float) -> Setup:
    return max_loss_setup(bound, Constant((LAPLACE,), bound.release(), 1), delta_min,
                          f"one Laplace release, scale 1/{bound.release():g}")


def _laplace(profile: str) -> Setup:
    return _laplace_setup(LaplaceCalibration(Fraction(1, 2)), profile_delta(profile, 0.02))


def _laplace_twin(profile: str) -> Setup:
    return _laplace_setup(HalvedScaleLaplace(Fraction(1, 2)), 0.02)


def _gaussian_setup(bound: GaussianCalibration) -> Setup:
    return hockey_stick_setup(bound, Constant((GAUSSIAN,), bound.release(), 1),
                              f"one Gaussian release, mu={bound.release():g}, "
                              f"eps={bound.epsilon}")


def _gaussian(profile: str) -> Setup:
    eps = Fraction(11, 2) if profile == "quick" else Fraction(17, 2)
    return _gaussian_setup(GaussianCalibration(Fraction(2), eps))


def _gaussian_twin(profile: str) -> Setup:
    return _gaussian_setup(VarianceAsSigmaGaussian(Fraction(2), Fraction(11, 2)))


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


_ZCDP_DROP_LAST = Twin("drop-last", "the last mechanism's rho not charged", _zcdp_twin)

CLAIMS: tuple[Claim, ...] = (
    Claim("R23-Lem2.1", "laplace", Quantity.MAX_LOSS,
          "the Laplace mechanism with scale Delta/eps is eps-DP", _laplace,
          (Twin("halved-scale", "Laplace scale Delta/(2 eps)", _laplace_twin),)),
    Claim("R23-Lem2.2", "gaussian", Quantity.HOCKEY_STICK,
          "the Gaussian mechanism with sigma = Delta/sqrt(2 rho) is rho-zCDP", _gaussian,
          (Twin("variance-as-sigma", "variance Delta^2/(2 rho) used as sigma",
                _gaussian_twin),)),
    Claim("R23-Lem2.3", "gaussian", Quantity.HOCKEY_STICK,
          "Bun-Steinke: rho-zCDP => (rho + 2 sqrt(rho log(1/delta'')), delta'')-DP",
          _bs, (Twin("halved-rho", "rho halved before converting", _bs_twin),)),
    Claim("R23-Lem2.4", "budget-hugging", Quantity.HOCKEY_STICK,
          "zCDP composition: rho_i-zCDP mechanisms compose to (sum rho_i)-zCDP",
          _hugging, (_ZCDP_DROP_LAST,)),
    Claim("R23-Lem2.4", "stop-at-worst", Quantity.HOCKEY_STICK,
          "zCDP composition under an adversary that stops at the worst moment",
          _stop, (_ZCDP_DROP_LAST,)),
)


def _zcdp_worst(profile: str) -> float:
    """Issue 16: every adaptive Gaussian strategy of total rho <= 1/2 (mu = 1)."""
    eps, _ = ZCDPComposition((_ZCDP_TOTAL,), Fraction(profile_delta(profile, 0.05))).claimed()
    return gaussian_budget_worst(Fraction(1), Fraction(eps))


_ZCDP_TOTAL = Fraction(1, 2)
CLAIMS = with_exact_worst(CLAIMS, {
    "R23-Lem2.4/budget-hugging": _zcdp_worst,
    "R23-Lem2.4/stop-at-worst": _zcdp_worst,
})
