"""Claims of the external results the library relies on (tag EXT).

Mechanism: ``EXT-RandomizedResponse/binary``: one release of
``RandomizedResponse(1/2)``, delta = 0 (every sampled loss, both orders, <= 1/2), power
for tails of 0.02 / 1e-3. Twin ``doubled-epsilon``.

Conversions, on one Gaussian release (sensitivity 1, worst-case neighbours 0 and 1),
hockey-stick at the converted epsilon in both orders, claimed delta 0.05 (quick) or
1e-3 (full):

- ``EXT-CKS20/gaussian``: rho = 2 (mu = 2). Twin ``halved-rho``.
- ``EXT-BBGHS20/gaussian``: mu = 2 (sigma = 1/2), RDP order alpha = 3. Twin
  ``halved-rdp-epsilon``.
- ``EXT-Mironov17/gaussian``: mu = 2, alpha = 3/2. Twin ``rdp-epsilon-as-dp``.
- ``EXT-DRS19/gaussian``: mu = 1. Twin ``halved-mu``.

Compositions under adaptive adversaries:

- ``EXT-GDPComposition/budget-hugging``: adaptively chosen sigmas: each path spends 10%
  of its remaining mu^2 (40% when its running loss is above 0) at each of 9 steps and the
  rest at the 10th, total mu^2 = 9/4 (mu = 3/2); hockey-stick at the stated eps = 2
  (quick) / 21/4 (full) against delta_mu(eps) of EXT-DRS19. The total is fixed in advance and
  the mu_i are predictable, so the loss is exactly N(mu^2/2, mu^2) (the discrete
  Dubins-Schwarz argument behind the GDP filter EXT-ST22).
- ``EXT-GDPComposition/stop-at-worst``: 9 releases of mu = 1/2, stop when L > 1.
  Twin ``drop-last`` (two releases of mu = 1, eps = 1.5).
- ``EXT-GDPComposition/generated-doubling``: a committed generated adversary (data),
  mu_i = 1/8, 1/4, 1/2, 1; eps = 3/2 (quick) / 15/4 (full).
- ``EXT-KOV15/budget-hugging``: 16 adaptive RR/Laplace releases of eps = 1/4, the
  optimal eps' at delta = 0.05 / 1e-3 (tight for randomized response: the true delta at
  the quick profile's eps' = 3/2 is 0.0497). Twin ``k-minus-one`` in its own scenario
  (4 randomized responses of eps = 1, where the k - 1 bound lands on a smaller lattice
  point).
- ``EXT-KOV15/stop-at-worst``: stop when L > 1.
- ``EXT-KOV15/generated-*``: committed generated adversaries (data).
- ``EXT-KOV15/exact-worst``: the optimal policy of 16 randomized responses of eps = 1/4
  (:mod:`adaptive_dp.verify.registry.worst_case`); ``exact_worst``, its value, is also
  reported by the other EXT-KOV15 claims and (the epsilons' order fixed) by the EXT-MV16
  claims, and the Gaussian budget's delta by the first two EXT-GDPComposition claims.
- ``EXT-MV16/doubling-rr``: 6 randomized responses with the epsilons fixed in advance,
  1/8, 1/4, 1/2, 1, 1, 1 (KOV/MV are theorems for parameters fixed in advance, so the
  sequence is fixed, not chosen adaptively), the optimal eps' at delta = 0.05 / 1e-3
  (tight: randomized response is the dominating pair). Twin ``drop-last`` in the same
  scenario: the optimum without the last mechanism (eps' = 2.44 at delta 0.05, where the
  true delta is 0.181).
- ``EXT-MV16/doubling-adaptive-kind``: the same fixed epsilons, randomized response or
  Laplace chosen per path by the running loss (adaptively chosen mechanisms).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from fractions import Fraction
from typing import Any, Literal

from adaptive_dp.interactive.adversary import GAUSSIAN, LAPLACE, RANDOMIZED_RESPONSE
from adaptive_dp.verify.judge.adversaries import (
    BudgetHugging,
    Constant,
    Doubling,
    StopAtWorst,
    adversary_from_data,
)
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
    CKS20,
    DRS19,
    KOV15,
    MV16,
    GDPComposition,
    RDPConversion,
    RRCalibration,
)
from adaptive_dp.verify.registry.twins.composition import (
    DropLastGDP,
    DropLastMV16,
    KMinusOneKOV,
)
from adaptive_dp.verify.registry.twins.conversions import (
    HalvedEpsilonRDP,
    HalvedMuDRS19,
    HalvedRhoCKS20,
    RDPEpsilonAsDP,
)
from adaptive_dp.verify.registry.twins.mechanisms import DoubledEpsilonRR
from adaptive_dp.verify.registry.worst_case import (
    filter_worst,
    gaussian_budget_worst,
    hockey_stick_payoff,
    rr_lattice_worst,
    with_exact_worst,
)

__all__ = ["CLAIMS", "GENERATED"]

_KINDS = (RANDOMIZED_RESPONSE, LAPLACE)
_QUICK_DELTA = Fraction(1, 20)


def _gaussian(mu: float) -> Constant:
    return Constant((GAUSSIAN,), mu, 1)


def _rr_setup(bound: RRCalibration, delta_min: float) -> Setup:
    return max_loss_setup(bound, Constant((RANDOMIZED_RESPONSE,), bound.release(), 1),
                          delta_min, f"one randomized response, eps={bound.release():g}")


def _rr(profile: str) -> Setup:
    return _rr_setup(RRCalibration(Fraction(1, 2)), profile_delta(profile, 0.02))


def _rr_twin(profile: str) -> Setup:
    return _rr_setup(DoubledEpsilonRR(Fraction(1, 2)), 0.02)


def _cks(profile: str) -> Setup:
    delta = Fraction(profile_delta(profile, 0.05))
    return hockey_stick_setup(CKS20(Fraction(2), delta), _gaussian(2.0),
                              f"one Gaussian release, rho=2 (mu=2), delta={float(delta)}")


def _cks_twin(profile: str) -> Setup:
    return hockey_stick_setup(HalvedRhoCKS20(Fraction(2), _QUICK_DELTA), _gaussian(2.0),
                              "one Gaussian release, rho=2 (mu=2), delta=0.05")


def _rdp(method: Literal["bbghs20", "mironov17"], alpha: Fraction) -> Callable[[str], Setup]:
    def build(profile: str) -> Setup:
        delta = Fraction(profile_delta(profile, 0.05))
        return hockey_stick_setup(RDPConversion(Fraction(2), alpha, delta, method),
                                  _gaussian(2.0),
                                  f"one Gaussian release, mu=2, alpha={alpha}, "
                                  f"delta={float(delta)}")
    return build


def _bbghs_twin(profile: str) -> Setup:
    bound = HalvedEpsilonRDP(Fraction(2), Fraction(3), _QUICK_DELTA, "bbghs20")
    return hockey_stick_setup(bound, _gaussian(2.0),
                              "one Gaussian release, mu=2, alpha=3, delta=0.05")


def _mironov_twin(profile: str) -> Setup:
    bound = RDPEpsilonAsDP(Fraction(2), Fraction(3, 2), _QUICK_DELTA, "mironov17")
    return hockey_stick_setup(bound, _gaussian(2.0),
                              "one Gaussian release, mu=2, alpha=3/2, delta=0.05")


def _drs(profile: str) -> Setup:
    delta = Fraction(profile_delta(profile, 0.05))
    return hockey_stick_setup(DRS19(Fraction(1), delta), _gaussian(1.0),
                              f"one Gaussian release, mu=1, delta={float(delta)}")


def _drs_twin(profile: str) -> Setup:
    return hockey_stick_setup(HalvedMuDRS19(Fraction(1), _QUICK_DELTA), _gaussian(1.0),
                              "one Gaussian release, mu=1, delta=0.05")


def _gdp_eps(profile: str) -> Fraction:
    return Fraction(2) if profile == "quick" else Fraction(21, 4)


def _gdp_hugging(profile: str) -> Setup:
    eps = _gdp_eps(profile)
    adversary = BudgetHugging((GAUSSIAN,), 2.25, 10, "mu2", 0.1, 0.4, 0.0)
    return hockey_stick_setup(GDPComposition((Fraction(3, 2),), eps), adversary,
                              f"10 Gaussian releases, adaptive mu_i, sum mu_i^2 = 9/4, "
                              f"eps={eps}")


def _gdp_stop(profile: str) -> Setup:
    eps = _gdp_eps(profile)
    return hockey_stick_setup(GDPComposition((Fraction(1, 2),) * 9, eps),
                              StopAtWorst((GAUSSIAN,), 0.5, 9, 1.0),
                              f"up to 9 Gaussian releases of mu=1/2, stop when L > 1, eps={eps}")


def _gdp_twin(profile: str) -> Setup:
    return hockey_stick_setup(DropLastGDP((Fraction(1), Fraction(1)), Fraction(3, 2)),
                              Constant((GAUSSIAN,), 1.0, 2),
                              "2 Gaussian releases of mu=1, eps=1.5")


def _kov(adversary: Any, what: str) -> Callable[[str], Setup]:
    def build(profile: str) -> Setup:
        delta = Fraction(profile_delta(profile, 0.05))
        return hockey_stick_setup(KOV15(Fraction(1, 4), 16, delta), adversary,
                                  f"{what}, delta={float(delta)}")
    return build


def _kov_twin(profile: str) -> Setup:
    return hockey_stick_setup(KMinusOneKOV(Fraction(1), 4, _QUICK_DELTA),
                              Constant((RANDOMIZED_RESPONSE,), 1.0, 4),
                              "4 randomized responses of eps=1, delta=0.05")


_MV16_EPSILONS = (Fraction(1, 8), Fraction(1, 4), Fraction(1, 2), Fraction(1), Fraction(1),
                  Fraction(1))


def _mv16_sequence(kinds: tuple[int, ...]) -> Doubling:
    # eps_t = min(2^t / 8, 1): the fixed sequence _MV16_EPSILONS
    return Doubling(kinds, 0.125, len(_MV16_EPSILONS), 2.0, 1.0)


def _mv16(kinds: tuple[int, ...], what: str) -> Callable[[str], Setup]:
    def build(profile: str) -> Setup:
        delta = Fraction(profile_delta(profile, 0.05))
        return hockey_stick_setup(MV16(_MV16_EPSILONS, delta), _mv16_sequence(kinds),
                                  f"{what}, eps_i = 1/8, 1/4, 1/2, 1, 1, 1, "
                                  f"delta={float(delta)}")
    return build


def _mv16_twin(profile: str) -> Setup:
    return hockey_stick_setup(DropLastMV16(_MV16_EPSILONS, _QUICK_DELTA),
                              _mv16_sequence((RANDOMIZED_RESPONSE,)),
                              "6 randomized responses, eps_i = 1/8, 1/4, 1/2, 1, 1, 1, "
                              "delta=0.05")


GENERATED: dict[str, dict[str, Any]] = {
    # Adversaries in the parameter ranges of the Hypothesis strategies of
    # tests/verify/verify_strategies.py, restricted to the claim's per-step parameter and
    # number of steps, committed as plain data; `verify` replays them.
    "EXT-KOV15/generated-output-threshold": {
        "family": "output-threshold", "kinds": [2], "param": 0.25, "switch_kind": 0,
        "switch_param": 0.25, "threshold": 0.5, "steps": 16, "pivot": 0.0,
    },
    "EXT-KOV15/generated-random": {
        "family": "random", "kinds": [0, 2], "params": [0.125, 0.25], "steps": 16,
        "stop_probability": 0.1,
    },
    "EXT-GDPComposition/generated-doubling": {
        "family": "doubling", "kinds": [1], "param": 0.125, "steps": 4, "factor": 2.0,
        "cap": 1.0, "pivot": 0.0,
    },
}


def _generated_gdp(profile: str) -> Setup:
    eps = Fraction(3, 2) if profile == "quick" else Fraction(15, 4)
    adversary = adversary_from_data(GENERATED["EXT-GDPComposition/generated-doubling"])
    parts = (Fraction(1, 8), Fraction(1, 4), Fraction(1, 2), Fraction(1))
    return hockey_stick_setup(GDPComposition(parts, eps), adversary,
                              f"4 Gaussian releases, mu = 1/8, 1/4, 1/2, 1, eps={eps}")


_GDP_DROP_LAST = Twin("drop-last", "the last mechanism's mu left out", _gdp_twin)
_KOV_K_MINUS_ONE = Twin("k-minus-one", "optimal bound of k-1 compositions", _kov_twin)
_MV16_DROP_LAST = Twin("drop-last", "optimal composition without the last mechanism",
                       _mv16_twin)

CLAIMS: tuple[Claim, ...] = (
    Claim("EXT-RandomizedResponse", "binary", Quantity.MAX_LOSS,
          "binary randomized response is ln(p/(1-p))-DP", _rr,
          (Twin("doubled-epsilon", "mechanism built with 2 eps", _rr_twin),)),
    Claim("EXT-CKS20", "gaussian", Quantity.HOCKEY_STICK,
          "optimal zCDP -> (eps, delta) conversion (Canonne-Kamath-Steinke 2020)",
          _cks, (Twin("halved-rho", "rho halved before converting", _cks_twin),)),
    Claim("EXT-BBGHS20", "gaussian", Quantity.HOCKEY_STICK,
          "RDP -> DP: eps + log((a-1)/a) - (log delta + log a)/(a-1)",
          _rdp("bbghs20", Fraction(3)),
          (Twin("halved-rdp-epsilon", "Gaussian RDP epsilon halved", _bbghs_twin),)),
    Claim("EXT-Mironov17", "gaussian", Quantity.HOCKEY_STICK,
          "RDP -> DP: eps + log(1/delta)/(alpha - 1)",
          _rdp("mironov17", Fraction(3, 2)),
          (Twin("rdp-epsilon-as-dp", "log(1/delta)/(alpha-1) dropped", _mironov_twin),)),
    Claim("EXT-DRS19", "gaussian", Quantity.HOCKEY_STICK,
          "GDP -> (eps, delta): delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2)",
          _drs, (Twin("halved-mu", "mu halved before converting", _drs_twin),)),
    Claim("EXT-GDPComposition", "budget-hugging", Quantity.HOCKEY_STICK,
          "GDP composition mu = sqrt(sum mu_i^2), adaptively chosen sigmas",
          _gdp_hugging, (_GDP_DROP_LAST,)),
    Claim("EXT-GDPComposition", "stop-at-worst", Quantity.HOCKEY_STICK,
          "GDP composition under an adversary that stops at the worst moment",
          _gdp_stop, (_GDP_DROP_LAST,)),
    Claim("EXT-GDPComposition", "generated-doubling", Quantity.HOCKEY_STICK,
          "GDP composition, replayed generated doubling adversary", _generated_gdp,
          (_GDP_DROP_LAST,)),
    Claim("EXT-KOV15", "budget-hugging", Quantity.HOCKEY_STICK,
          "optimal homogeneous composition (Kairouz-Oh-Viswanath)",
          _kov(BudgetHugging(_KINDS, 4.0, 16), "16 adaptive RR/Laplace releases of eps=1/4"),
          (_KOV_K_MINUS_ONE,)),
    Claim("EXT-KOV15", "stop-at-worst", Quantity.HOCKEY_STICK,
          "optimal homogeneous composition, adversary stops at the worst moment",
          _kov(StopAtWorst(_KINDS, 0.25, 16, 1.0),
               "up to 16 adaptive RR/Laplace releases of eps=1/4, stop when L > 1"),
          (_KOV_K_MINUS_ONE,)),
    Claim("EXT-KOV15", "generated-output-threshold", Quantity.HOCKEY_STICK,
          "optimal homogeneous composition, replayed generated output-threshold adversary",
          _kov(adversary_from_data(GENERATED["EXT-KOV15/generated-output-threshold"]),
               "16 releases of eps=1/4, RR until an output > 0.5, then Laplace"),
          (_KOV_K_MINUS_ONE,)),
    Claim("EXT-KOV15", "generated-random", Quantity.HOCKEY_STICK,
          "optimal homogeneous composition, replayed generated random adversary",
          _kov(adversary_from_data(GENERATED["EXT-KOV15/generated-random"]),
               "up to 16 random RR/Laplace releases of eps 1/8 or 1/4, random stops"),
          (_KOV_K_MINUS_ONE,)),
    Claim("EXT-MV16", "doubling-rr", Quantity.HOCKEY_STICK,
          "exact optimal heterogeneous composition (Murtagh-Vadhan), fixed epsilons",
          _mv16((RANDOMIZED_RESPONSE,), "6 randomized responses"), (_MV16_DROP_LAST,)),
    Claim("EXT-MV16", "doubling-adaptive-kind", Quantity.HOCKEY_STICK,
          "exact optimal heterogeneous composition, RR or Laplace chosen by the running loss",
          _mv16(_KINDS, "6 RR/Laplace releases, kind chosen adaptively"), (_MV16_DROP_LAST,)),
)


# exact worst cases (issue 16): randomized responses at the scenario's epsilons (the
# lattice; ``EXT-KOV15/exact-worst`` runs its optimal policy), or every adaptive Gaussian
# strategy of total mu^2 = 9/4 -----------------------------------------------------------
def _kov_worst(menu: tuple[float, ...]) -> Callable[[str], float]:
    def of(profile: str) -> float:
        epsilon, _ = KOV15(Fraction(1, 4), 16, Fraction(profile_delta(profile, 0.05))).claimed()
        return filter_worst(None, menu, 16, Fraction(epsilon)).upper()
    return of


def _kov_exact(profile: str) -> Setup:
    bound = KOV15(Fraction(1, 4), 16, Fraction(profile_delta(profile, 0.05)))
    worst = filter_worst(None, (0.25,), 16, Fraction(bound.claimed()[0]))
    return replace(hockey_stick_setup(bound, worst.policy, "the optimal policy of 16 "
                                      f"randomized responses of eps=1/4, "
                                      f"delta={bound.claimed()[1]}"),
                   exact_worst=worst.upper())


def _gdp_worst(profile: str) -> float:
    return gaussian_budget_worst(Fraction(3, 2), _gdp_eps(profile))


def _mv16_worst(profile: str) -> float:
    """The lattice with the epsilons' order fixed (any kinds, any stop)."""
    epsilon, _ = MV16(_MV16_EPSILONS, Fraction(profile_delta(profile, 0.05))).claimed()
    menu = tuple(sorted({float(e) for e in _MV16_EPSILONS}))
    order = [menu.index(float(e)) for e in _MV16_EPSILONS]

    def admits(counts: tuple[int, ...], j: int) -> bool:
        return order[sum(counts)] == j

    return rr_lattice_worst(menu, len(order), admits,
                            hockey_stick_payoff(Fraction(epsilon))).upper()


CLAIMS += (
    Claim("EXT-KOV15", "exact-worst", Quantity.HOCKEY_STICK,
          "optimal homogeneous composition against the exact worst-case policy", _kov_exact,
          (_KOV_K_MINUS_ONE,)),
)
CLAIMS = with_exact_worst(CLAIMS, {
    "EXT-GDPComposition/budget-hugging": _gdp_worst,
    "EXT-GDPComposition/stop-at-worst": _gdp_worst,
    "EXT-KOV15/budget-hugging": _kov_worst((0.25,)),
    "EXT-KOV15/stop-at-worst": _kov_worst((0.25,)),
    "EXT-KOV15/generated-output-threshold": _kov_worst((0.25,)),
    "EXT-KOV15/generated-random": _kov_worst((0.125, 0.25)),
    "EXT-MV16/doubling-rr": _mv16_worst,
    "EXT-MV16/doubling-adaptive-kind": _mv16_worst,
})
