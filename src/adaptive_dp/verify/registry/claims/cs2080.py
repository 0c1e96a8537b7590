"""Claims of the CS2080 lecture: basic (CS2080-BasicComp) and advanced (CS2080-AdvComp)
composition under adaptively chosen eps-DP mechanisms.

The adversaries pick randomized response or the Laplace mechanism at every step from
the outputs so far (randomized response while the running loss is <= 0, Laplace
above), with per-step epsilons fixed in advance:

- ``CS2080-BasicComp/budget-hugging``: 8 releases of eps = 1/8 (budget 1 spent exactly);
  delta = 0, so every sampled loss in both orders must be <= 1 (1 + 1e-9); power for
  tails of delta_min = 0.02 (quick) / 1e-3 (full). Twin ``drop-last``.
- ``CS2080-BasicComp/stop-at-worst``: the same, stopping once the loss exceeds 0.3.
- ``CS2080-AdvComp/budget-hugging``: 16 releases of eps = 1/4, delta' = 0.05 / 1e-3;
  hockey-stick at eps' = eps sqrt(2k ln(1/delta')) + k eps (e^eps - 1).
  Twin ``no-drift`` in its own scenario (10 randomized responses of eps = 2, where
  the drift term dominates).
- ``CS2080-AdvComp/stop-at-worst``: the same, stopping once the loss exceeds 2.
- ``CS2080-AdvComp/exact-worst``: the same bound against the optimal policy of 16
  randomized responses of eps = 1/4 (:mod:`adaptive_dp.verify.registry.worst_case`);
  ``exact_worst`` is its value, also reported by the other composition claims (the
  largest loss for the basic ones).

Mechanism-level items of the lecture:

- ``CS2080-GaussianSigma/gaussian``: one Gaussian release calibrated by the slide's
  sigma = sqrt(2 ln(2/delta)) / epsilon (GS = 1) at epsilon = 1, delta = 0.05 (quick) /
  1e-3 (full); hockey-stick at epsilon. Twin ``printed-unrestricted``
  (CS2080-GaussianSigma-Printed: the formula at epsilon = 10, delta = 0.05).
- ``CS2080-GroupPrivacy/laplace``: a Laplace mechanism of epsilon = 1/4 on inputs at
  distance 3 (a group of 3); delta = 0: every loss <= 3/4. Twin ``group-size-minus-one``.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

from adaptive_dp.interactive.adversary import GAUSSIAN, LAPLACE, RANDOMIZED_RESPONSE
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
    AdvancedComposition,
    BasicComposition,
    CS2080Sigma,
    GroupPrivacy,
)
from adaptive_dp.verify.registry.twins.calibration import GroupSizeMinusOne, UnrestrictedCS2080Sigma
from adaptive_dp.verify.registry.twins.composition import DropLastBasic, NoDriftAdvanced
from adaptive_dp.verify.registry.worst_case import (
    filter_largest_loss,
    filter_worst,
    with_exact_worst,
)

__all__ = ["CLAIMS"]

_KINDS = (RANDOMIZED_RESPONSE, LAPLACE)
_EIGHTHS = (Fraction(1, 8),) * 8


def _basic_hugging(profile: str) -> Setup:
    delta_min = profile_delta(profile, 0.02)
    return max_loss_setup(BasicComposition(_EIGHTHS), BudgetHugging(_KINDS, 1.0, 8),
                          delta_min, "8 adaptive RR/Laplace releases of eps=1/8 (budget 1)")


def _basic_stop(profile: str) -> Setup:
    delta_min = profile_delta(profile, 0.02)
    return max_loss_setup(BasicComposition(_EIGHTHS), StopAtWorst(_KINDS, 0.125, 8, 0.3),
                          delta_min, "up to 8 adaptive RR/Laplace releases of eps=1/8, "
                          "stop when L > 0.3")


def _basic_twin(profile: str) -> Setup:
    return max_loss_setup(DropLastBasic((Fraction(1, 2),) * 3),
                          Constant((RANDOMIZED_RESPONSE,), 0.5, 3), 0.02,
                          "3 randomized responses of eps=1/2")


def _adv(profile: str, adversary: object, what: str) -> Setup:
    slack = Fraction(profile_delta(profile, 0.05))
    return hockey_stick_setup(AdvancedComposition(Fraction(1, 4), 16, slack), adversary,
                              f"{what}, delta'={float(slack)}")


def _adv_hugging(profile: str) -> Setup:
    return _adv(profile, BudgetHugging(_KINDS, 4.0, 16),
                "16 adaptive RR/Laplace releases of eps=1/4")


def _adv_stop(profile: str) -> Setup:
    return _adv(profile, StopAtWorst(_KINDS, 0.25, 16, 2.0),
                "up to 16 adaptive RR/Laplace releases of eps=1/4, stop when L > 2")


def _adv_twin(profile: str) -> Setup:
    return hockey_stick_setup(NoDriftAdvanced(Fraction(2), 10, Fraction(1, 20)),
                              Constant((RANDOMIZED_RESPONSE,), 2.0, 10),
                              "10 randomized responses of eps=2, delta'=0.05")


def _sigma_setup(bound: CS2080Sigma) -> Setup:
    return hockey_stick_setup(bound, Constant((GAUSSIAN,), bound.release(), 1),
                              f"one Gaussian release, eps={bound.epsilon}, "
                              f"delta={float(bound.delta)}, mu={bound.release():.4g}")


def _sigma(profile: str) -> Setup:
    return _sigma_setup(CS2080Sigma(Fraction(1), Fraction(profile_delta(profile, 0.05))))


def _sigma_twin(profile: str) -> Setup:
    return _sigma_setup(UnrestrictedCS2080Sigma(Fraction(10), Fraction(1, 20)))


def _group_setup(bound: GroupPrivacy, delta_min: float) -> Setup:
    return max_loss_setup(bound, Constant((LAPLACE,), float(bound.epsilon), 1), delta_min,
                          f"one Laplace release of eps={bound.epsilon}, inputs {bound.k} apart",
                          distance=float(bound.k))


def _group(profile: str) -> Setup:
    return _group_setup(GroupPrivacy(Fraction(1, 4), 3), profile_delta(profile, 0.02))


def _group_twin(profile: str) -> Setup:
    return _group_setup(GroupSizeMinusOne(Fraction(1, 4), 3), 0.02)


_BASIC_DROP_LAST = Twin("drop-last", "the last spend not charged", _basic_twin)
_ADV_NO_DRIFT = Twin("no-drift", "drift term k eps (e^eps - 1) dropped", _adv_twin)

CLAIMS: tuple[Claim, ...] = (
    Claim("CS2080-GaussianSigma", "gaussian", Quantity.HOCKEY_STICK,
          "sigma = GS sqrt(2 ln(2/delta))/eps gives (eps, delta)-DP for 0 < eps <= 1",
          _sigma, (Twin("printed-unrestricted", "the formula used at eps = 10 (no range)",
                        _sigma_twin, "CS2080-GaussianSigma-Printed"),)),
    Claim("CS2080-GroupPrivacy", "laplace", Quantity.MAX_LOSS,
          "an eps-DP mechanism is k eps-DP for groups of k", _group,
          (Twin("group-size-minus-one", "(k - 1) eps for a group of k", _group_twin),)),
    Claim("CS2080-BasicComp", "budget-hugging", Quantity.MAX_LOSS,
          "basic composition: eps_i-DP mechanisms compose to (sum eps_i)-DP",
          _basic_hugging, (_BASIC_DROP_LAST,)),
    Claim("CS2080-BasicComp", "stop-at-worst", Quantity.MAX_LOSS,
          "basic composition under an adversary that stops at the worst moment",
          _basic_stop, (_BASIC_DROP_LAST,)),
    Claim("CS2080-AdvComp", "budget-hugging", Quantity.HOCKEY_STICK,
          "advanced composition: k eps-DP => (eps sqrt(2k ln 1/d') + k eps (e^eps-1), d')",
          _adv_hugging, (_ADV_NO_DRIFT,)),
    Claim("CS2080-AdvComp", "stop-at-worst", Quantity.HOCKEY_STICK,
          "advanced composition under an adversary that stops at the worst moment",
          _adv_stop, (_ADV_NO_DRIFT,)),
)


# exact worst cases (issue 16): over every adaptive strategy of eps-DP releases at the
# scenario's epsilon (the randomized-response lattice); ``exact-worst`` runs its policy ----
def _adv_worst_of(profile: str) -> tuple[AdvancedComposition, Fraction]:
    bound = AdvancedComposition(Fraction(1, 4), 16, Fraction(profile_delta(profile, 0.05)))
    return bound, Fraction(bound.claimed()[0])


def _adv_worst(profile: str) -> float:
    return filter_worst(None, (0.25,), 16, _adv_worst_of(profile)[1]).upper()


def _adv_exact(profile: str) -> Setup:
    bound, epsilon = _adv_worst_of(profile)
    worst = filter_worst(None, (0.25,), 16, epsilon)
    return replace(hockey_stick_setup(bound, worst.policy, "the optimal policy of 16 "
                                      "randomized responses of eps=1/4, delta'="
                                      f"{float(bound.claimed()[1])}"),
                   exact_worst=worst.upper())


def _basic_worst(profile: str) -> float:
    return filter_largest_loss(None, (0.125,), 8)


CLAIMS += (
    Claim("CS2080-AdvComp", "exact-worst", Quantity.HOCKEY_STICK,
          "advanced composition against the exact worst-case policy", _adv_exact,
          (_ADV_NO_DRIFT,)),
)
CLAIMS = with_exact_worst(CLAIMS, {
    "CS2080-BasicComp/budget-hugging": _basic_worst,
    "CS2080-BasicComp/stop-at-worst": _basic_worst,
    "CS2080-AdvComp/budget-hugging": _adv_worst,
    "CS2080-AdvComp/stop-at-worst": _adv_worst,
})
