"""Claims of the privacy filters of noninteractive mechanisms, and of the accumulators
read through their filter at budgets fixed in advance (H23-Lem2.19).

Every experiment puts the filter between an adaptive adversary and the mechanisms
(:class:`~adaptive_dp.verify.judge.claim.AdversaryExperiment` with a
:class:`~adaptive_dp.verify.judge.simulate.FastRule`): the adversary requests randomized
response or Laplace releases (epsilon = the request, pure DP) or Gaussian releases
(mu = the request, sigma = 1/mu, hence rho = mu^2/2-zCDP, alpha mu^2/2-RDP_alpha, mu-GDP);
a refused request releases nothing and the path goes on (refuse-and-continue). The
statistic is the privacy loss of what was released, from the densities, on the
worst-case neighbours (sensitivity 1), in both orders of the pair. Claims run the
filters' vectorised fast paths, which admit only what the certified path admits
(``tests/filters/test_fast_path.py``); twins run the certified path through
:class:`~adaptive_dp.verify.judge.simulate.GroupedRule` on output-independent adversaries.

Quantities (docs/design.md, verification): delta = 0 claims (CS2080-PureDPFilter) are max-loss
tests (power for tails of 0.02 / 1e-3); every (epsilon, delta) conclusion is a
hockey-stick at the claimed epsilon against the claimed delta; RDP, zCDP and GDP
conclusions are hockey-sticks at the epsilon of the certified conversion (EXT-BBGHS20,
EXT-CKS20, EXT-DRS19). Quick deltas 0.05 (0.142 for the GDP filter at eps = 2),
full 1e-3.

- ``CS2080-PureDPFilter/budget-hugging``, ``/stop-at-worst``, ``/generated-random``:
  ``PureDPFilter(1)``; RR/Laplace requests hugging 5/4 (more than the budget: the filter
  must refuse), or releases of 0.3 until L > 1/2. Twin ``lookahead-dropped`` (4 requests
  of RR eps = 1/2: 3 admitted, P[L = 3/2] = 0.24).
- ``RRUV16-BasicFilter/budget-hugging``, ``/stop-at-worst``: the basic approximate
  filter ``BasicFilter(2, delta=delta)`` (CS2080-BasicComp read as a continuation rule,
  the catalogue's RRUV16-BasicFilter); the stop-at-worst adversary switches to
  Gaussian releases of mu = 1/2 charged (1, delta_{1/2}(1)) (EXT-DRS19, certified).
  Twin ``lookahead-dropped`` (3 requests of RR eps = 1: true delta at 2 is 0.247).
- ``H23-ThmB.3/budget-hugging``, ``/stop-at-worst``, ``/generated-random``: the W23 filter
  ``W23Filter(2, delta=delta')`` (all of it slack), requests hugging 1.2 V* in sum
  epsilon_m^2 (V* the largest admissible), or of 0.15 until L > 1. Twins
  ``printed-reversed`` (H23-Thm3.7-Printed) and ``lookahead-dropped``: one request of RR
  eps = 3 (true delta at 2: 0.602).
- ``R23-Thm2/budget-hugging``, ``/stop-at-worst``, ``/generated-random``:
  ``ZCDPFilter(2, delta=delta'')`` (all of it slack), Gaussian/Laplace/RR requests
  entering as rho = param^2/2; claimed (2, delta''). Twin ``lookahead-dropped`` (one
  Gaussian of mu = 3).
- ``H23-Thm4.6/budget-hugging``, ``/stop-at-worst``: ``RDPFilter(4, 1)``, Gaussian/RR
  requests entering as 2 param^2; claimed: RDP(4, 1) converted by EXT-BBGHS20 at delta.
  Twin ``lookahead-dropped`` (one Gaussian of mu = 3).
- ``RRUV16-Filter/budget-hugging``, ``/stop-at-worst``: ``RRUV16Filter(2, delta=delta_g)``
  (H with log(1/delta_g), the default). Twin ``lookahead-dropped`` (one RR of eps = 3).
- ``EXT-ST22/budget-hugging``, ``/stop-at-worst``, ``/generated-random``:
  ``GDPFilter(3/2)``; claimed delta_{3/2}(eps) at eps = 2 / 21/4 (EXT-DRS19). Twin
  ``lookahead-dropped`` (one Gaussian of mu = 3: true delta 0.686 at eps = 2).
- ``H23-Thm3.8/budget-hugging``, ``/stop-at-worst``: the (epsilon, delta) accumulator
  through its filter, I(G <= (2, delta)) with delta' = delta. Twin ``lookahead-dropped``.
- ``H23-Thm4.9/budget-hugging``, ``/stop-at-worst``: the RDP accumulator at alpha = 4
  through its filter at RDP(4, 1). Twin ``lookahead-dropped``.
- ``EXT-Lecuyer21/budget-hugging``, ``/stop-at-worst``: ``RDPCurveFilter`` at the budget
  curve (2, 1), (4, 2), (8, 16) (binding at alpha = 2 and 4: rho <= 1/2), Gaussian/RR
  requests entering as rho = param^2/2, rho alpha_j at each order; claimed: the curve
  converted by EXT-BBGHS20 at delta (its best order, alpha = 4: eps 2.25 at 0.05). Twin
  ``largest-order-only`` (one Gaussian of mu = 2, rho = 2: within the budget at 8, four
  times it at 2 and 4; true delta 0.29 at eps 2.25 against 0.05).
- ``H23-Thm4.11/stop-at-worst``: the zCDP accumulator through its filter at rho = 1/2,
  noninteractive (its budget-hugging claim is the concurrent one of
  :mod:`~adaptive_dp.verify.registry.claims.interactive`); claimed: EXT-CKS20 of
  rho = 1/2. Twin ``lookahead-dropped`` (one
  Gaussian of mu = 2).
- ``EXT-GDPAccumulator/budget-hugging``, ``/stop-at-worst``: the GDP accumulator through its
  filter at mu = 3/2 (I(G <= 3/2), built from the accumulator, not from ``GDPFilter``);
  Gaussian requests whose mu is chosen from the running loss (hugging 1.3 x 9/4 in
  sum mu^2), or of mu = 1/2 until L > 1; claimed delta_{3/2}(eps) at eps = 2 / 21/4
  (EXT-DRS19). Twin ``lookahead-dropped`` (one Gaussian of mu = 3).
- ``H23-ThmB.3/exact-worst``, ``H23-Thm3.8/exact-worst``, ``RRUV16-Filter/exact-worst``: the
  optimal policy of the randomized-response lattice
  (:mod:`adaptive_dp.verify.registry.worst_case`: randomized responses of eps = 0.1, at most 60
  admitted), optimal against the rule's fast path (what the experiment runs), whose value
  on the certified path is the claim's ``exact_worst``; the twins of the rule's other
  claims.
- ``CS2080-PureDPFilter/boundary-probe``, ``R23-Thm2/boundary-probe``,
  ``EXT-ST22/boundary-probe``, ``EXT-Lecuyer21/boundary-probe`` (and those of H23-Thm4.6,
  H23-Thm4.9, H23-Thm4.11, EXT-GDPAccumulator):
  :class:`~adaptive_dp.verify.judge.boundary_adversaries.BoundaryProbe`
  (RR for the pure-DP filter, Gaussian otherwise): requests of 2, 1.5, 1.25, 1.1, 1.05,
  1.01 x the remaining budget while refused (Gaussian: the finer :data:`_GAUSSIAN_LADDER`),
  then the remaining budget itself; a valid filter refuses every overshoot.
  ``RRUV16-BasicFilter/boundary-probe``: RR requests on a finer ladder, 1 + 0.01 x 0.9^k
  for k = 0 .. 44 (:data:`_FINE_LADDER`). Twins as above.

- ``RRUV16-BasicFilter/delta-split``, ``H23-ThmB.3/delta-split``, ``R23-Thm2/delta-split``,
  ``R23-Thm6/delta-split`` (the unified filter's zCDP rounds), ``RRUV16-Filter/delta-split``
  (issue 16: "deltas at their split"): the rules with per-request deltas and a delta
  budget (the basic filter's delta; W23's delta'' = delta - delta'; the zCDP and unified
  filters' delta - delta''; RRUV16's delta_g/2), each at (2, delta) with the split at
  delta/2 (the basic filter: all of delta). A :class:`BoundaryProbe` with
  ``measure="delta"`` asks for Gaussians of per-request mu charged (eps_i,
  delta_mu(eps_i)) (:class:`GaussianCharge` with ``mu=None``: certified, rounded up;
  eps_i = 2 for the basic filter, 0.3 otherwise, entering the zCDP rules as rho =
  eps_i^2/2) at overshoots of the remaining delta budget (:data:`_DELTA_LADDER`), then
  at it. The basic filter's claim is tight (one Gaussian charged at the whole epsilon:
  its hockey-stick at 2 is its charge), so a delta check loosened by f gives 1/f x the
  claim; the others see a loosened delta check only when it is loosened 11- to 15-fold
  (quick) or 244- to 342-fold (full), as the claims' notes say
  (tests/verify/test_delta_split.py).

``exact_worst`` (issue 16): for pure requests, the worst case over every adaptive strategy
with the scenario's epsilons and horizon; for Gaussian requests (the GDP rules), over
every adaptive mu within the budget (the Gaussian mechanism's delta at mu = 3/2).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import lru_cache
from typing import Any

import numpy as np
from numpy.typing import NDArray

from adaptive_dp.filters.base import Rule
from adaptive_dp.filters.basic import BasicFilter, PureDPFilter
from adaptive_dp.filters.brownian import UnifiedFilter
from adaptive_dp.filters.from_accumulator import AccumulatorFilter
from adaptive_dp.filters.gdp import GDPFilter
from adaptive_dp.filters.rdp import RDPCurveFilter, RDPFilter
from adaptive_dp.filters.rruv16 import RRUV16Filter
from adaptive_dp.filters.w23 import W23Filter
from adaptive_dp.filters.zcdp import ZCDPFilter
from adaptive_dp.guarantees.definitions import GDP, RDP, ZCDP, ApproxDP, PureDP, RDPCurve
from adaptive_dp.interactive.adversary import GAUSSIAN, LAPLACE, RANDOMIZED_RESPONSE
from adaptive_dp.numerics.floats import inflate_up
from adaptive_dp.odometers.accumulators import (
    ApproxDPAccumulator,
    GDPAccumulator,
    RDPAccumulator,
    ZCDPAccumulator,
)
from adaptive_dp.verify.judge.adversaries import (
    BudgetHugging,
    Constant,
    StopAtWorst,
    adversary_from_data,
)
from adaptive_dp.verify.judge.boundary_adversaries import BoundaryProbe
from adaptive_dp.verify.judge.claim import (
    AdversaryExperiment,
    Claim,
    Setup,
    Twin,
    profile_delta,
    samples_for,
)
from adaptive_dp.verify.judge.estimators import Quantity
from adaptive_dp.verify.judge.simulate import BatchRule, FastRule, GroupedRule
from adaptive_dp.verify.registry.bounds import GDPComposition, ZCDPComposition
from adaptive_dp.verify.registry.twins.filters import (
    LargestOrderOnlyRDP,
    LookaheadDroppedAccumulator,
    LookaheadDroppedBasic,
    LookaheadDroppedGDP,
    LookaheadDroppedPureDP,
    LookaheadDroppedRDP,
    LookaheadDroppedRRUV16,
    LookaheadDroppedW23,
    LookaheadDroppedZCDP,
    PrintedReversedFilter,
)
from adaptive_dp.verify.registry.worst_case import (
    filter_largest_loss,
    filter_worst,
    gaussian_budget_worst,
    with_exact_worst,
)

__all__ = ["CLAIMS", "GENERATED", "GaussianCharge", "certified_rule"]

Kinds = NDArray[np.int8]
Params = NDArray[np.float64]
Primary = Callable[[Kinds, Params], Params]
SpendOf = Callable[[int, float], object]

_PURE = (RANDOMIZED_RESPONSE, LAPLACE)
_ALPHA = Fraction(4)
_RDP_BUDGET = Fraction(1)
_GDP_MU = Fraction(3, 2)
_ZCDP_RHO = Fraction(1, 2)


# -- maps from the simulator's requests to the rules' parameters --------------------------
def _epsilon(kind: Kinds, param: Params) -> Params:
    """Pure requests: the rule's epsilon is the request."""
    return param


def _rho(kind: Kinds, param: Params) -> Params:
    """rho = param^2/2 (Gaussian mu, or a pure epsilon via R23-Lem2.3 (i)), rounded up."""
    return np.asarray(inflate_up(param * param / 2))


def _rdp(kind: Kinds, param: Params) -> Params:
    """RDP_alpha epsilon = alpha rho = alpha param^2/2 (H23-Def4.4), rounded up."""
    return np.asarray(inflate_up(float(_ALPHA) * param * param / 2))


def _pure_spend(kind: int, param: float) -> object:
    return PureDP(param)


def _zcdp_spend(kind: int, param: float) -> object:
    return ZCDP(Fraction(param) ** 2 / 2)


def _rdp_spend(kind: int, param: float) -> object:
    return RDP(_ALPHA, _ALPHA * Fraction(param) ** 2 / 2)


def _gdp_spend(kind: int, param: float) -> object:
    return GDP(param)


@lru_cache(maxsize=4096)
def _gaussian_delta(mu: float, epsilon: float) -> float:
    from adaptive_dp.guarantees.gdp import gdp_delta

    return gdp_delta(GDP(mu), epsilon)


@lru_cache(maxsize=4096)
def _gaussian_mu(epsilon: float, delta: float) -> float:
    from adaptive_dp.guarantees.gdp import gdp_mu_for

    return float(gdp_mu_for(epsilon, delta).mu)


def _per_value(values: Params, f: Callable[[float], float]) -> Params:
    """``f`` of every entry, evaluated once per distinct value (once when all are equal,
    as on an output-independent adversary's paths, without sorting)."""
    if values.size and values.min() == values.max():
        return np.full(values.shape, f(float(values.flat[0])))
    distinct, index = np.unique(values, return_inverse=True)
    out: Params = np.array([f(float(v)) for v in distinct])[index.ravel()]
    return out


@dataclass(frozen=True, slots=True)
class GaussianCharge:
    """The (epsilon, delta) charge of a Gaussian release: epsilon = ``epsilon``, delta =
    delta_mu(epsilon) of EXT-DRS19 at the request's mu (certified, rounded up: at least
    the Gaussian's true delta at ``epsilon``); pure requests are charged (param, 0).

    ``mu``: the one mu every Gaussian request must have (any other is an error), or None:
    each request's own mu (the delta-split claims), with the way back ``param_for``, the
    largest mu whose exact delta_mu(epsilon) is at most the delta asked for (EXT-DRS19's
    inverse, certified rounded down: its charge is within rounding of that delta)."""

    mu: float | None
    epsilon: float

    def delta_of_gaussian(self, mu: float | None = None) -> float:
        """delta_mu(epsilon) at ``mu`` (default: the fixed mu), certified rounded up."""
        chosen = self.mu if mu is None else mu
        if chosen is None:
            raise ValueError("GaussianCharge: no mu given and none fixed")
        return _gaussian_delta(chosen, self.epsilon)

    def _check(self, kind: Kinds, param: Params) -> NDArray[np.bool_]:
        gauss: NDArray[np.bool_] = kind == GAUSSIAN
        if self.mu is not None and np.any(param[gauss] != self.mu):
            raise ValueError(f"GaussianCharge: every Gaussian request must have mu={self.mu}")
        return gauss

    def primary(self, kind: Kinds, param: Params) -> Params:
        out: Params = np.where(self._check(kind, param), self.epsilon, param)
        return out

    def delta(self, kind: Kinds, param: Params) -> Params:
        gauss = self._check(kind, param)
        if not gauss.any():
            return np.zeros(param.shape)
        out: Params = np.where(gauss, _per_value(np.where(gauss, param, param[gauss][0]),
                                                 self.delta_of_gaussian), 0.0)
        return out

    def param_for(self, delta: Params) -> Params:
        """Per path, the mu of a Gaussian whose charge is (``epsilon``, ``delta``)."""
        return _per_value(delta, lambda d: _gaussian_mu(self.epsilon, d))

    def spend(self, kind: int, param: float) -> object:
        if kind == GAUSSIAN:
            self._check(np.array([kind], dtype=np.int8), np.array([param]))
            return (self.epsilon, self.delta_of_gaussian(param))
        return (param, 0)


def certified_rule(rule: Rule, spend: SpendOf) -> GroupedRule:
    """The rule's certified path as a batch rule (one exact call per distinct public
    prefix: used for twins, whose adversaries do not look at outputs)."""

    def step(state: Any, kind: int, param: float) -> tuple[bool, Any]:
        decision, new = state.spend(spend(kind, param))
        return bool(decision), new

    return GroupedRule(rule.start(), step)


# -- setups --------------------------------------------------------------------------------
def _hockey(epsilon: float, claimed: float, adversary: Any, rule: BatchRule,
            note: str) -> Setup:
    return Setup(Quantity.HOCKEY_STICK, epsilon, claimed, AdversaryExperiment(adversary, rule),
                 samples_for(Quantity.HOCKEY_STICK, claimed), note=note)


def _max_loss(epsilon: float, delta_min: float, adversary: Any, rule: BatchRule,
              note: str) -> Setup:
    return Setup(Quantity.MAX_LOSS, epsilon, epsilon, AdversaryExperiment(adversary, rule),
                 samples_for(Quantity.MAX_LOSS, epsilon, delta_min), delta_min=delta_min,
                 note=note)


def _quick(profile: str) -> Fraction:
    return Fraction(profile_delta(profile, 0.05))


# CS2080-PureDPFilter -----------------------------------------------------------------------
_PURE_EPS = Fraction(1)


def _pure(adversary: Any, what: str) -> Callable[[str], Setup]:
    def build(profile: str) -> Setup:
        rule = FastRule(PureDPFilter(_PURE_EPS), _epsilon)
        return _max_loss(float(_PURE_EPS), profile_delta(profile, 0.02), adversary, rule,
                         f"PureDPFilter(1): {what}")
    return build


def _pure_twin(profile: str) -> Setup:
    rule = certified_rule(LookaheadDroppedPureDP(_PURE_EPS), _pure_spend)
    return _max_loss(1.0, 0.02, Constant((RANDOMIZED_RESPONSE,), 0.5, 4), rule,
                     "look-ahead dropped, PureDPFilter(1), 4 requests of RR eps=1/2 "
                     "(3 admitted)")


# basic approximate filter (RRUV16-BasicFilter: CS2080-BasicComp as a continuation rule) ----
_BASIC_EPS = Fraction(2)
_BASIC_GAUSS = GaussianCharge(0.5, 1.0)


def _basic_hugging(profile: str) -> Setup:
    delta = _quick(profile)
    rule = FastRule(BasicFilter(_BASIC_EPS, delta=delta), _epsilon)
    return _hockey(2.0, float(delta), BudgetHugging(_PURE, 2.5, 10, "epsilon", 0.15, 0.4),
                   rule, f"BasicFilter(2, delta={float(delta)}): RR/Laplace requests hugging 2.5 "
                   "(the rule refuses the overrun)")


def _basic_stop(profile: str) -> Setup:
    delta = _quick(profile)
    g = _BASIC_GAUSS
    rule = FastRule(BasicFilter(_BASIC_EPS, delta=delta), g.primary, g.delta)
    return _hockey(2.0, float(delta),
                   StopAtWorst((RANDOMIZED_RESPONSE, GAUSSIAN), 0.5, 8, 1.0), rule,
                   f"BasicFilter(2, delta={float(delta)}): RR eps=1/2 while L <= 0, Gaussian "
                   "mu=1/2 charged (1, delta_mu(1)) while L > 0, stop when L > 1")


_FINE_LADDER = tuple(1 + 0.01 * 0.9**k for k in range(45))
"""Overshoots 1.01 down to 1 + 1e-4, 0.9 apart in the excess: pure requests under basic
composition have hockey-stick 0 at the budget and about 0.88 x their excess epsilon above
it, so a rule admitting an excess of x is probed to within 0.9 x."""


def _basic_probe(profile: str) -> Setup:
    delta = _quick(profile)
    rule = FastRule(BasicFilter(_BASIC_EPS, delta=delta), _epsilon)
    return _hockey(2.0, float(delta),
                   BoundaryProbe((RANDOMIZED_RESPONSE,), 2.0, len(_FINE_LADDER) + 2,
                                 overshoots=_FINE_LADDER), rule,
                   f"BasicFilter(2, delta={float(delta)}): RR requests of 1 + 0.01 x 0.9^k "
                   "(k = 0 .. 44) x the remaining budget while refused, then the remaining "
                   "budget")


def _basic_twin(profile: str) -> Setup:
    rule = certified_rule(LookaheadDroppedBasic(_BASIC_EPS, delta=Fraction(1, 20)), _pure_spend)
    return _hockey(2.0, 0.05, Constant((RANDOMIZED_RESPONSE,), 1.0, 3), rule,
                   "look-ahead dropped, BasicFilter(2, delta=0.05), 3 requests of RR eps=1 "
                   "(all admitted)")


# H23-ThmB.3 (W23 filter) ---------------------------------------------------------------------
_W23_EPS = Fraction(2)


def _max_sq(rule: Rule) -> float:
    """The largest admissible epsilon^2 (or mu^2, 2 rho) of the first request."""
    first = rule.start().max_next()
    return 0.0 if first is None else first * first


def _w23(adversary_of: Callable[[float], Any], what: str) -> Callable[[str], Setup]:
    def build(profile: str) -> Setup:
        delta = _quick(profile)
        w23 = W23Filter(_W23_EPS, delta=delta)
        return _hockey(2.0, float(delta), adversary_of(_max_sq(w23)), FastRule(w23, _epsilon),
                       f"W23Filter(2, delta={float(delta)}): {what}")
    return build


def _one_big_rr(rule: Rule, note: str) -> Setup:
    return _hockey(2.0, 0.05, Constant((RANDOMIZED_RESPONSE,), 3.0, 1),
                   certified_rule(rule, _pure_spend), note)


def _w23_printed(profile: str) -> Setup:
    return _one_big_rr(PrintedReversedFilter(_W23_EPS, delta=Fraction(1, 20)),
                       "printed H23-Thm3.7 (reversed), eps=2, delta'=0.05: one request of "
                       "RR eps=3 (admitted: its bound exceeds the budget)")


def _w23_lookahead(profile: str) -> Setup:
    return _one_big_rr(LookaheadDroppedW23(_W23_EPS, delta=Fraction(1, 20)),
                       "look-ahead dropped, W23 eps=2, delta'=0.05: one request of RR eps=3")


# R23-Thm2 (approximate-zCDP filter) ----------------------------------------------------------
_ZF_EPS = Fraction(2)


def _zf(adversary_of: Callable[[float], Any], what: str) -> Callable[[str], Setup]:
    def build(profile: str) -> Setup:
        delta = _quick(profile)
        zf = ZCDPFilter(_ZF_EPS, delta=delta)
        mu2 = 2 * (zf.start().max_next() or 0.0)
        return _hockey(2.0, float(delta), adversary_of(mu2), FastRule(zf, _rho),
                       f"ZCDPFilter(2, delta={float(delta)}), rho = param^2/2: {what}")
    return build


def _one_big_gaussian(rule: Rule, spend: SpendOf, epsilon: float, claimed: float, mu: float,
                      note: str) -> Setup:
    return _hockey(epsilon, claimed, Constant((GAUSSIAN,), mu, 1), certified_rule(rule, spend),
                   note)


def _zf_twin(profile: str) -> Setup:
    return _one_big_gaussian(LookaheadDroppedZCDP(_ZF_EPS, delta=Fraction(1, 20)), _zcdp_spend,
                             2.0, 0.05, 3.0, "look-ahead dropped, ZCDPFilter(2, delta=0.05): one "
                             "Gaussian request of mu=3 (rho=9/2)")


# H23-Thm4.6 (RDP filter) and H23-Thm4.9 (RDP accumulator) -----------------------------------
def _rdp_claimed(delta: Fraction) -> tuple[float, float]:
    from adaptive_dp.guarantees.rdp import rdp_to_dp

    out = rdp_to_dp(RDP(_ALPHA, _RDP_BUDGET), delta, "bbghs20")
    return float(out.epsilon), float(out.delta)


def _rdp_setup(rule: Rule, adversary_of: Callable[[float], Any], what: str,
               profile: str) -> Setup:
    eps, claimed = _rdp_claimed(_quick(profile))
    mu2 = 2 * float(_RDP_BUDGET / _ALPHA)  # rho* = epsilon/alpha
    return _hockey(eps, claimed, adversary_of(mu2), FastRule(rule, _rdp),
                   f"{what} at RDP(4, 1), alpha param^2/2 per request, converted by "
                   f"EXT-BBGHS20 at delta={claimed}")


def _rdp_filter(adversary_of: Callable[[float], Any]) -> Callable[[str], Setup]:
    return lambda profile: _rdp_setup(RDPFilter(_ALPHA, _RDP_BUDGET), adversary_of,
                                      "RDPFilter", profile)


def _rdp_acc(adversary_of: Callable[[float], Any]) -> Callable[[str], Setup]:
    def build(profile: str) -> Setup:
        rule = AccumulatorFilter(RDPAccumulator(_ALPHA), RDP(_ALPHA, _RDP_BUDGET))
        return _rdp_setup(rule, adversary_of, "RDP accumulator through I(G <= budget)",
                          profile)
    return build


def _rdp_twin(rule: Rule) -> Callable[[str], Setup]:
    def build(profile: str) -> Setup:
        eps, claimed = _rdp_claimed(Fraction(1, 20))
        return _one_big_gaussian(rule, _rdp_spend, eps, claimed, 3.0,
                                 "look-ahead dropped at RDP(4, 1): one Gaussian request of "
                                 "mu=3")
    return build


# EXT-Lecuyer21 (RDP filter on a grid of orders, every order within its budget) --------------
_CURVE_BUDGET = RDPCurve([(2, 1), (4, 2), (8, 16)])


def _curve_claimed(delta: Fraction) -> tuple[float, float]:
    from adaptive_dp.guarantees.rdp import rdp_to_dp

    out = rdp_to_dp(_CURVE_BUDGET, delta, "bbghs20")
    return float(out.epsilon), float(out.delta)


def _curve(adversary_of: Callable[[float], Any]) -> Callable[[str], Setup]:
    def build(profile: str) -> Setup:
        eps, claimed = _curve_claimed(_quick(profile))
        rule = RDPCurveFilter(_CURVE_BUDGET)
        mu2 = 2 * (rule.start().max_next() or 0.0)  # mu^2 = 2 rho*
        return _hockey(eps, claimed, adversary_of(mu2), FastRule(rule, _rho),
                       "RDPCurveFilter at (2, 1), (4, 2), (8, 16), rho = param^2/2 per "
                       f"request; the curve converted by EXT-BBGHS20 at delta={claimed}")
    return build


def _curve_twin(profile: str) -> Setup:
    eps, claimed = _curve_claimed(Fraction(1, 20))
    return _one_big_gaussian(LargestOrderOnlyRDP(_CURVE_BUDGET), _zcdp_spend, eps, claimed,
                             2.0, "largest order only, budget (2, 1), (4, 2), (8, 16): one "
                             "Gaussian request of mu=2 (rho=2: 16 at alpha=8, 4 at alpha=2)")


# RRUV16-Filter -------------------------------------------------------------------------------
_RRUV16_EPS = Fraction(2)


def _rruv16(adversary_of: Callable[[float], Any], what: str) -> Callable[[str], Setup]:
    def build(profile: str) -> Setup:
        delta = _quick(profile)
        rule = RRUV16Filter(_RRUV16_EPS, delta=delta)
        return _hockey(2.0, float(delta), adversary_of(_max_sq(rule)), FastRule(rule, _epsilon),
                       f"RRUV16Filter(2, delta={float(delta)}), H with log(1/delta_g): {what}")
    return build


def _rruv16_twin(profile: str) -> Setup:
    return _one_big_rr(LookaheadDroppedRRUV16(_RRUV16_EPS, delta=Fraction(1, 20)),
                       "look-ahead dropped, RRUV16Filter(2, delta=0.05): one request of RR eps=3")


# EXT-ST22 (GDP filter) -----------------------------------------------------------------------
def _gdp_eps(profile: str) -> Fraction:
    return Fraction(2) if profile == "quick" else Fraction(21, 4)


def _gdp(adversary: Any, what: str) -> Callable[[str], Setup]:
    def build(profile: str) -> Setup:
        eps, claimed = GDPComposition((_GDP_MU,), _gdp_eps(profile)).claimed()
        return _hockey(eps, claimed, adversary, FastRule(GDPFilter(_GDP_MU), _epsilon),
                       f"GDPFilter(3/2): {what}; delta_mu(eps) at eps={eps}")
    return build


def _gdp_twin(profile: str) -> Setup:
    eps, claimed = GDPComposition((_GDP_MU,), Fraction(2)).claimed()
    return _one_big_gaussian(LookaheadDroppedGDP(_GDP_MU), _gdp_spend, eps, claimed, 3.0,
                             "look-ahead dropped, GDPFilter(3/2): one Gaussian request of mu=3")


# H23-Thm3.8 ((epsilon, delta) accumulator) ---------------------------------------------------
def _acc38_rule(delta: Fraction) -> AccumulatorFilter:
    return AccumulatorFilter(ApproxDPAccumulator(delta=delta), ApproxDP(2, delta))


def _acc38(adversary_of: Callable[[float], Any], what: str) -> Callable[[str], Setup]:
    def build(profile: str) -> Setup:
        delta = _quick(profile)
        rule = _acc38_rule(delta)
        return _hockey(2.0, float(delta), adversary_of(_max_sq(W23Filter(2, delta=delta))),
                       FastRule(rule, _epsilon),
                       f"(eps, delta) accumulator, delta'=delta={float(delta)}, through "
                       f"I(G <= (2, delta)): {what}")
    return build


def _acc38_twin(profile: str) -> Setup:
    d = Fraction(1, 20)
    return _one_big_rr(LookaheadDroppedAccumulator(ApproxDPAccumulator(delta=d), ApproxDP(2, d)),
                       "look-ahead dropped, (eps, delta) accumulator at (2, 0.05): one request "
                       "of RR eps=3")


# H23-Thm4.11 (zCDP accumulator), noninteractive ----------------------------------------------
def _acc411(adversary: Any, what: str) -> Callable[[str], Setup]:
    def build(profile: str) -> Setup:
        delta = _quick(profile)
        eps, claimed = ZCDPComposition((_ZCDP_RHO,), delta).claimed()
        rule = AccumulatorFilter(ZCDPAccumulator(), ZCDP(_ZCDP_RHO))
        return _hockey(eps, claimed, adversary, FastRule(rule, _rho),
                       f"zCDP accumulator through I(G <= 1/2): {what}; EXT-CKS20 at "
                       f"delta={claimed}")
    return build


def _acc411_twin(profile: str) -> Setup:
    eps, claimed = ZCDPComposition((_ZCDP_RHO,), Fraction(1, 20)).claimed()
    rule = LookaheadDroppedAccumulator(ZCDPAccumulator(), ZCDP(_ZCDP_RHO))
    return _one_big_gaussian(rule, _zcdp_spend, eps, claimed, 2.0,
                             "look-ahead dropped, zCDP accumulator at rho=1/2: one Gaussian "
                             "request of mu=2 (rho=2)")


# EXT-GDPAccumulator (GDP accumulator), through its filter at mu = 3/2 ----------------------
def _gdp_acc(adversary: Any, what: str) -> Callable[[str], Setup]:
    def build(profile: str) -> Setup:
        eps, claimed = GDPComposition((_GDP_MU,), _gdp_eps(profile)).claimed()
        rule = AccumulatorFilter(GDPAccumulator(), GDP(_GDP_MU))
        return _hockey(eps, claimed, adversary, FastRule(rule, _epsilon),
                       f"GDP accumulator through I(G <= 3/2): {what}; delta_mu(eps) at "
                       f"eps={eps}")
    return build


def _gdp_acc_twin(profile: str) -> Setup:
    eps, claimed = GDPComposition((_GDP_MU,), Fraction(2)).claimed()
    rule = LookaheadDroppedAccumulator(GDPAccumulator(), GDP(_GDP_MU))
    return _one_big_gaussian(rule, _gdp_spend, eps, claimed, 3.0,
                             "look-ahead dropped, GDP accumulator at mu=3/2: one Gaussian "
                             "request of mu=3")


# adversaries shared by the (epsilon^2)-additive rules ------------------------------------
def _hug_sq(kinds: tuple[int, ...]) -> Callable[[float], Any]:
    """Hug 1.2 times the largest admissible sum of squares (the rule refuses the rest)."""
    return lambda v: BudgetHugging(kinds, 1.2 * v, 12, "mu2", 0.1, 0.35)


def _stop(kinds: tuple[int, ...], param: float, steps: int, threshold: float
          ) -> Callable[[float], Any]:
    return lambda v: StopAtWorst(kinds, param, steps, threshold)


_GAUSSIAN_LADDER = (2.0, 1.5, 1.4, 1.3, 1.25, 1.2, 1.15, 1.1, 1.05, 1.01)
"""Overshoots of the Gaussian boundary probes: a Gaussian request's hockey-stick grows
steeply with mu^2 near these budgets (a 30% overshoot can mean 1.5 x the claimed delta),
so the rungs are at most 0.1 apart below 1.5."""


def _probe_gaussian(mu2: float) -> BoundaryProbe:
    """Gaussian requests probing the boundary of a budget of ``mu2`` in sum mu^2."""
    return BoundaryProbe((GAUSSIAN,), mu2, len(_GAUSSIAN_LADDER) + 2,
                         overshoots=_GAUSSIAN_LADDER, measure="mu2")


_PROBED = ("Gaussian requests of 2, 1.5, 1.4, 1.3, 1.25, 1.2, 1.15, 1.1, 1.05, 1.01 x the "
           "remaining mu^2 while refused, then the remaining mu^2")


def _generated(key: str) -> Callable[[float], Any]:
    return lambda v: adversary_from_data(GENERATED[key])


GENERATED: dict[str, dict[str, Any]] = {
    # Adversaries in the parameter ranges of the Hypothesis strategies of
    # tests/verify/verify_strategies.py (kinds restricted to what each rule accepts),
    # committed as plain data; `verify` replays them.
    "CS2080-PureDPFilter/generated-random": {
        "family": "random", "kinds": [0, 2], "params": [0.1, 0.35, 0.6], "steps": 12,
        "stop_probability": 0.1,
    },
    "H23-ThmB.3/generated-random": {
        "family": "random", "kinds": [0, 2], "params": [0.05, 0.2, 0.45], "steps": 12,
        "stop_probability": 0.05,
    },
    "R23-Thm2/generated-random": {
        "family": "random", "kinds": [0, 1, 2], "params": [0.1, 0.3, 0.6], "steps": 12,
        "stop_probability": 0.05,
    },
    "EXT-ST22/generated-doubling": {
        "family": "doubling", "kinds": [1], "param": 0.125, "steps": 8, "factor": 1.6,
        "cap": 1.2, "pivot": 0.0,
    },
}


_PURE_TWIN = Twin("lookahead-dropped", "the next epsilon left out of the decision",
                  _pure_twin, "CS2080-PureDPFilter")
_BASIC_TWIN = Twin("lookahead-dropped", "the next (epsilon, delta) left out of the decision",
                   _basic_twin, "RRUV16-BasicFilter")
_W23_TWINS = (
    Twin("printed-reversed", "the first indicator of H23-Thm3.7 as printed (reversed)",
         _w23_printed, "H23-Thm3.7-Printed"),
    Twin("lookahead-dropped", "the next epsilon^2 left out of the decision", _w23_lookahead,
         "H23-ThmB.3"),
)
_ZF_TWIN = Twin("lookahead-dropped", "the next rho left out of the decision (n instead of "
                "n+1)", _zf_twin, "R23-Thm2")
_RDP_TWIN = Twin("lookahead-dropped", "the next RDP epsilon left out of the decision",
                 _rdp_twin(LookaheadDroppedRDP(_ALPHA, _RDP_BUDGET)), "H23-Thm4.6")
_RDP_ACC_TWIN = Twin("lookahead-dropped", "I(G <= budget) decided before the next spend",
                     _rdp_twin(LookaheadDroppedAccumulator(RDPAccumulator(_ALPHA),
                                                           RDP(_ALPHA, _RDP_BUDGET))),
                     "H23-Thm4.9")
_CURVE_TWIN = Twin("largest-order-only", "only the largest order's sum compared with its "
                   "budget", _curve_twin, "EXT-Lecuyer21")
_RRUV16_TWIN = Twin("lookahead-dropped", "the proposed mechanism not counted in k",
                    _rruv16_twin, "RRUV16-Filter")
_GDP_TWIN = Twin("lookahead-dropped", "the next mu^2 left out of the decision", _gdp_twin,
                 "EXT-ST22")
_ACC38_TWIN = Twin("lookahead-dropped", "I(G <= budget) decided before the next spend",
                   _acc38_twin, "H23-Thm3.8")
_ACC411_TWIN = Twin("lookahead-dropped", "I(G <= budget) decided before the next spend",
                    _acc411_twin, "H23-Thm4.11")

_GDP_ACC_TWIN = Twin("lookahead-dropped", "I(G <= budget) decided before the next spend",
                     _gdp_acc_twin, "EXT-GDPAccumulator")

_GAUSS_LAPLACE = (GAUSSIAN, LAPLACE)
_GAUSS_RR = (GAUSSIAN, RANDOMIZED_RESPONSE)

CLAIMS: tuple[Claim, ...] = (
    Claim("CS2080-PureDPFilter", "budget-hugging", Quantity.MAX_LOSS,
          "pure-DP filter: the stopped composition is epsilon-DP",
          _pure(BudgetHugging(_PURE, 1.25, 8, "epsilon", 0.25, 0.6),
                "RR/Laplace requests hugging 5/4"), (_PURE_TWIN,)),
    Claim("CS2080-PureDPFilter", "stop-at-worst", Quantity.MAX_LOSS,
          "pure-DP filter, adversary stops at the worst moment",
          _pure(StopAtWorst(_PURE, 0.3, 6, 0.5), "RR/Laplace of 0.3, stop when L > 1/2"),
          (_PURE_TWIN,)),
    Claim("CS2080-PureDPFilter", "generated-random", Quantity.MAX_LOSS,
          "pure-DP filter, replayed generated random adversary",
          _pure(adversary_from_data(GENERATED["CS2080-PureDPFilter/generated-random"]),
                "random RR/Laplace requests of 0.1, 0.35 or 0.6, random stops"),
          (_PURE_TWIN,)),
    Claim("CS2080-PureDPFilter", "boundary-probe", Quantity.MAX_LOSS,
          "pure-DP filter under requests just above, then at, its remaining budget",
          _pure(BoundaryProbe((RANDOMIZED_RESPONSE,), 1.0, 8),
                "RR requests of 2, 1.5, 1.25, 1.1, 1.05, 1.01 x the remaining budget while "
                "refused, then the remaining budget"), (_PURE_TWIN,)),
    Claim("RRUV16-BasicFilter", "budget-hugging", Quantity.HOCKEY_STICK,
          "basic approximate-DP filter: the stopped composition is (epsilon, delta)-DP",
          _basic_hugging, (_BASIC_TWIN,)),
    Claim("RRUV16-BasicFilter", "stop-at-worst", Quantity.HOCKEY_STICK,
          "basic approximate-DP filter with Gaussian (epsilon, delta) charges, stop at worst",
          _basic_stop, (_BASIC_TWIN,)),
    Claim("RRUV16-BasicFilter", "boundary-probe", Quantity.HOCKEY_STICK,
          "basic approximate-DP filter under requests just above, then at, its remaining "
          "budget", _basic_probe, (_BASIC_TWIN,)),
    Claim("H23-ThmB.3", "budget-hugging", Quantity.HOCKEY_STICK,
          "W23 (epsilon, delta) filter under requests hugging its budget",
          _w23(_hug_sq(_PURE), "RR/Laplace requests hugging 1.2 V*"), _W23_TWINS),
    Claim("H23-ThmB.3", "stop-at-worst", Quantity.HOCKEY_STICK,
          "W23 (epsilon, delta) filter, adversary stops at the worst moment",
          _w23(_stop(_PURE, 0.15, 40, 1.0), "RR/Laplace of 0.15, stop when L > 1"),
          _W23_TWINS),
    Claim("H23-ThmB.3", "generated-random", Quantity.HOCKEY_STICK,
          "W23 (epsilon, delta) filter, replayed generated random adversary",
          _w23(_generated("H23-ThmB.3/generated-random"),
               "random RR/Laplace requests of 0.05, 0.2 or 0.45, random stops"), _W23_TWINS),
    Claim("R23-Thm2", "budget-hugging", Quantity.HOCKEY_STICK,
          "approximate-zCDP filter under requests hugging its budget",
          _zf(_hug_sq(_GAUSS_LAPLACE), "Gaussian/Laplace requests hugging 1.2 (2 R*)"),
          (_ZF_TWIN,)),
    Claim("R23-Thm2", "stop-at-worst", Quantity.HOCKEY_STICK,
          "approximate-zCDP filter, adversary stops at the worst moment",
          _zf(_stop(_GAUSS_RR, 0.25, 40, 1.0), "Gaussian/RR of 0.25, stop when L > 1"),
          (_ZF_TWIN,)),
    Claim("R23-Thm2", "generated-random", Quantity.HOCKEY_STICK,
          "approximate-zCDP filter, replayed generated random adversary",
          _zf(_generated("R23-Thm2/generated-random"),
              "random Laplace/Gaussian/RR requests of 0.1, 0.3 or 0.6, random stops"),
          (_ZF_TWIN,)),
    Claim("R23-Thm2", "boundary-probe", Quantity.HOCKEY_STICK,
          "approximate-zCDP filter under requests just above, then at, its remaining rho",
          _zf(_probe_gaussian, _PROBED), (_ZF_TWIN,)),
    Claim("H23-Thm4.6", "budget-hugging", Quantity.HOCKEY_STICK,
          "RDP filter at a fixed order under requests hugging its budget",
          _rdp_filter(_hug_sq(_GAUSS_RR)), (_RDP_TWIN,)),
    Claim("H23-Thm4.6", "stop-at-worst", Quantity.HOCKEY_STICK,
          "RDP filter at a fixed order, adversary stops at the worst moment",
          _rdp_filter(_stop(_GAUSS_RR, 0.2, 30, 1.0)), (_RDP_TWIN,)),
    Claim("H23-Thm4.6", "boundary-probe", Quantity.HOCKEY_STICK,
          "RDP filter under requests just above, then at, its remaining budget",
          _rdp_filter(_probe_gaussian), (_RDP_TWIN,)),
    Claim("EXT-Lecuyer21", "budget-hugging", Quantity.HOCKEY_STICK,
          "RDP filter on a grid of orders under requests hugging its binding order",
          _curve(_hug_sq(_GAUSS_RR)), (_CURVE_TWIN,)),
    Claim("EXT-Lecuyer21", "stop-at-worst", Quantity.HOCKEY_STICK,
          "RDP filter on a grid of orders, adversary stops at the worst moment",
          _curve(_stop(_GAUSS_RR, 0.1, 40, 1.0)), (_CURVE_TWIN,)),
    Claim("EXT-Lecuyer21", "boundary-probe", Quantity.HOCKEY_STICK,
          "RDP filter on a grid of orders under requests just above, then at, its "
          "remaining rho", _curve(_probe_gaussian), (_CURVE_TWIN,)),
    Claim("RRUV16-Filter", "budget-hugging", Quantity.HOCKEY_STICK,
          "RRUV16 filter COMP_{eps_g, delta_g} under requests hugging its budget",
          _rruv16(_hug_sq(_PURE), "RR/Laplace requests hugging 1.2 V*"), (_RRUV16_TWIN,)),
    Claim("RRUV16-Filter", "stop-at-worst", Quantity.HOCKEY_STICK,
          "RRUV16 filter, adversary stops at the worst moment",
          _rruv16(_stop(_PURE, 0.1, 40, 0.8), "RR/Laplace of 0.1, stop when L > 0.8"),
          (_RRUV16_TWIN,)),
    Claim("EXT-ST22", "budget-hugging", Quantity.HOCKEY_STICK,
          "GDP filter (Smith-Thakurta) under requests hugging its budget",
          _gdp(BudgetHugging((GAUSSIAN,), 1.3 * 2.25, 10, "mu2", 0.1, 0.4),
               "Gaussian requests hugging mu^2 = 1.3 x 9/4"), (_GDP_TWIN,)),
    Claim("EXT-ST22", "stop-at-worst", Quantity.HOCKEY_STICK,
          "GDP filter, adversary stops at the worst moment",
          _gdp(StopAtWorst((GAUSSIAN,), 0.5, 12, 1.0), "Gaussian mu=1/2, stop when L > 1"),
          (_GDP_TWIN,)),
    Claim("EXT-ST22", "generated-doubling", Quantity.HOCKEY_STICK,
          "GDP filter, replayed generated doubling adversary",
          _gdp(adversary_from_data(GENERATED["EXT-ST22/generated-doubling"]),
               "Gaussian mu = 0.125 x 1.6^t capped at 1.2"), (_GDP_TWIN,)),
    Claim("EXT-ST22", "boundary-probe", Quantity.HOCKEY_STICK,
          "GDP filter under requests just above, then at, its remaining mu^2",
          _gdp(_probe_gaussian(2.25), _PROBED), (_GDP_TWIN,)),
    Claim("H23-Thm3.8", "budget-hugging", Quantity.HOCKEY_STICK,
          "(epsilon, delta) accumulator through its filter at a budget fixed in advance",
          _acc38(_hug_sq(_PURE), "RR/Laplace requests hugging 1.2 V*"), (_ACC38_TWIN,)),
    Claim("H23-Thm3.8", "stop-at-worst", Quantity.HOCKEY_STICK,
          "(epsilon, delta) accumulator through its filter, stop at the worst moment",
          _acc38(_stop(_PURE, 0.15, 40, 1.0), "RR/Laplace of 0.15, stop when L > 1"),
          (_ACC38_TWIN,)),
    Claim("H23-Thm4.9", "budget-hugging", Quantity.HOCKEY_STICK,
          "RDP accumulator through its filter at a budget fixed in advance",
          _rdp_acc(_hug_sq(_GAUSS_RR)), (_RDP_ACC_TWIN,)),
    Claim("H23-Thm4.9", "stop-at-worst", Quantity.HOCKEY_STICK,
          "RDP accumulator through its filter, stop at the worst moment",
          _rdp_acc(_stop(_GAUSS_RR, 0.2, 30, 1.0)), (_RDP_ACC_TWIN,)),
    Claim("H23-Thm4.9", "boundary-probe", Quantity.HOCKEY_STICK,
          "RDP accumulator through its filter under requests just above, then at, its "
          "remaining budget", _rdp_acc(_probe_gaussian), (_RDP_ACC_TWIN,)),
    Claim("H23-Thm4.11", "stop-at-worst", Quantity.HOCKEY_STICK,
          "zCDP accumulator through its filter (noninteractive), stop at the worst moment",
          _acc411(StopAtWorst((GAUSSIAN, LAPLACE), 0.5, 8, 1.0),
                  "Gaussian/Laplace requests of 1/2 (rho = 1/8), stop when L > 1"),
          (_ACC411_TWIN,)),
    Claim("H23-Thm4.11", "boundary-probe", Quantity.HOCKEY_STICK,
          "zCDP accumulator through its filter under requests just above, then at, its "
          "remaining rho", _acc411(_probe_gaussian(1.0), _PROBED), (_ACC411_TWIN,)),
    Claim("EXT-GDPAccumulator", "budget-hugging", Quantity.HOCKEY_STICK,
          "GDP accumulator through its filter, Gaussian mu chosen from the running loss",
          _gdp_acc(BudgetHugging((GAUSSIAN,), 1.3 * 2.25, 10, "mu2", 0.1, 0.4),
                   "Gaussian requests hugging mu^2 = 1.3 x 9/4, mu from the running loss"),
          (_GDP_ACC_TWIN,)),
    Claim("EXT-GDPAccumulator", "stop-at-worst", Quantity.HOCKEY_STICK,
          "GDP accumulator through its filter, stop at the worst moment",
          _gdp_acc(StopAtWorst((GAUSSIAN,), 0.5, 12, 1.0), "Gaussian mu=1/2, stop when L > 1"),
          (_GDP_ACC_TWIN,)),
    Claim("EXT-GDPAccumulator", "boundary-probe", Quantity.HOCKEY_STICK,
          "GDP accumulator through its filter under requests just above, then at, its "
          "remaining mu^2", _gdp_acc(_probe_gaussian(2.25), _PROBED), (_GDP_ACC_TWIN,)),
)


# exact worst cases (issue 16): pure requests over the scenario's menu of epsilons and
# horizon (the randomized-response lattice), Gaussian requests over every adaptive mu
# within the rule's budget; ``exact-worst`` claims run the lattice's optimal policy --------
def _pure_rule(kind: str, delta: Fraction) -> Rule:
    if kind == "w23":
        return W23Filter(_W23_EPS, delta=delta)
    if kind == "rruv16":
        return RRUV16Filter(_RRUV16_EPS, delta=delta)
    return _acc38_rule(delta)


def _lattice(kind: str, menu: tuple[float, ...], horizon: int) -> Callable[[str], float]:
    return lambda profile: filter_worst(_pure_rule(kind, _quick(profile)), menu, horizon,
                                        Fraction(2)).upper()


def _exact(kind: str, menu: tuple[float, ...], horizon: int) -> Callable[[str], Setup]:
    def build(profile: str) -> Setup:
        delta = _quick(profile)
        rule = _pure_rule(kind, delta)
        worst = filter_worst(rule, menu, horizon, Fraction(2))
        # the policy optimal against the fast path the experiment runs (the same as the
        # certified path's on a valid rule; a loosened one's own worst case otherwise)
        policy = filter_worst(rule, menu, horizon, Fraction(2), fast=True).policy
        return replace(_hockey(2.0, float(delta), policy, FastRule(rule, _epsilon),
                               f"{kind} filter at (2, {float(delta)}): the optimal policy of "
                               f"randomized responses of eps in {menu}, at most {horizon}"),
                       exact_worst=worst.upper())
    return build


def _pure_largest(menu: tuple[float, ...], horizon: int) -> Callable[[str], float]:
    return lambda profile: filter_largest_loss(PureDPFilter(_PURE_EPS), menu, horizon)


def _gdp_worst(profile: str) -> float:
    return gaussian_budget_worst(_GDP_MU, _gdp_eps(profile))


W23_RANDOM_WORST = {"quick": 0.00025169327759933034, "full": 0.0}
"""The lattice worst case of H23-ThmB.3/generated-random (0.7 s to compute: pinned,
recomputed by tests/verify/test_worst_case.py under -m slow)."""

CLAIMS += (
    Claim("H23-ThmB.3", "exact-worst", Quantity.HOCKEY_STICK,
          "W23 (epsilon, delta) filter against the exact worst-case policy",
          _exact("w23", (0.1,), 60), _W23_TWINS),
    Claim("RRUV16-Filter", "exact-worst", Quantity.HOCKEY_STICK,
          "RRUV16 filter against the exact worst-case policy",
          _exact("rruv16", (0.1,), 60), (_RRUV16_TWIN,)),
    Claim("H23-Thm3.8", "exact-worst", Quantity.HOCKEY_STICK,
          "(epsilon, delta) accumulator through its filter against the exact worst-case policy",
          _exact("acc38", (0.1,), 60), (_ACC38_TWIN,)),
)
CLAIMS = with_exact_worst(CLAIMS, {
    "CS2080-PureDPFilter/stop-at-worst": _pure_largest((0.3,), 6),
    "CS2080-PureDPFilter/generated-random": _pure_largest((0.1, 0.35, 0.6), 12),
    "H23-ThmB.3/stop-at-worst": _lattice("w23", (0.15,), 40),
    "H23-ThmB.3/generated-random": W23_RANDOM_WORST.__getitem__,
    "RRUV16-Filter/stop-at-worst": _lattice("rruv16", (0.1,), 40),
    "H23-Thm3.8/stop-at-worst": _lattice("acc38", (0.15,), 40),
    "EXT-ST22/budget-hugging": _gdp_worst,
    "EXT-ST22/stop-at-worst": _gdp_worst,
    "EXT-ST22/generated-doubling": _gdp_worst,
    "EXT-GDPAccumulator/budget-hugging": _gdp_worst,
    "EXT-GDPAccumulator/stop-at-worst": _gdp_worst,
})


# delta-split (issue 16: "deltas at their split") -------------------------------------------
# Every rule here takes a per-request delta and a delta budget; the adversary asks for
# Gaussian releases charged (epsilon_i, delta_mu(epsilon_i)) (GaussianCharge with the
# request's own mu) whose delta overshoots the remaining delta budget, then meets it.
_DELTA_LADDER = (1024.0, 768.0, 512.0, 384.0, 256.0, 192.0, 128.0, 96.0, 64.0, 48.0, 32.0,
                 24.0, 20.0, 16.0, 12.0, 10.0, 8.0, 6.0, 5.0, 4.0, 3.0, 2.5, *_GAUSSIAN_LADDER)
"""Overshoots of the delta-split probes: 1.2 to 1.5 apart up to 1024 x the remaining delta
budget (a rule whose delta check is loosened by a large factor is detectable only through
a large overshoot, see below), then the Gaussian ladder; a probe keeps those whose delta
is below 1 (a delta of 1 or more is no request)."""

_LIGHT_EPS = 0.3
"""The epsilon every Gaussian is charged at by the concentration rules' delta-split
claims: below the largest single epsilon each admits at eps = 2 (0.33 for RRUV16 at
delta_g = 1e-3, 0.46 at 0.05; 0.48 and 0.66 for the W23 and zCDP rules), so the
epsilon/rho check never refuses first."""


def _split_probe(budget: float, charge: GaussianCharge) -> BoundaryProbe:
    ladder = tuple(o for o in _DELTA_LADDER if o * budget < 1)
    return BoundaryProbe((GAUSSIAN,), budget, len(ladder) + 2, overshoots=ladder,
                         measure="delta", charge=charge)


def _split_setup(rule: Any, budget: Fraction, charge: GaussianCharge, to_rho: bool,
                 claimed: Fraction, what: str, seen: str) -> Setup:
    primary: Primary = charge.primary
    if to_rho:  # an (epsilon, delta)-DP release is delta-approximate epsilon^2/2-zCDP
        primary = lambda kind, param: _rho(kind, charge.primary(kind, param))  # noqa: E731
    return _hockey(2.0, float(claimed), _split_probe(float(budget), charge),
                   FastRule(rule, primary, charge.delta),
                   f"{what}: Gaussians of per-request mu charged (eps_i, delta_mu(eps_i)) at "
                   f"eps_i = {charge.epsilon}{' (rho = eps_i^2/2)' if to_rho else ''}, "
                   "delta_mu(eps_i) at overshoots (1.2-1.5 apart, each whose delta is below 1) "
                   f"of the remaining delta budget {float(budget)} while refused, then at it; "
                   f"{seen}")


_UNSEEN = ("not detectable below a large loosening: a Gaussian charged (0.3, d) has "
           "hockey-stick at eps = 2 far below d (about 1e-13 at d = 0.025), so a delta check "
           "loosened by f breaks the claim through one Gaussian only if 1/f >= 14.3 (quick) "
           "or 342 (full) at eps_i = 0.3, >= 10.7 or 244 at the largest single eps_i the "
           "rule admits (RRUV16: 12.7 or 325); a smaller loosening stays within the claimed "
           "delta for every single Gaussian")


def _basic_split(profile: str) -> Setup:
    delta = _quick(profile)
    charge = GaussianCharge(None, float(_BASIC_EPS))
    setup = _split_setup(BasicFilter(_BASIC_EPS, delta=delta), delta, charge, False, delta,
                         f"BasicFilter(2, delta={float(delta)})",
                         "tight: a delta check loosened by f admits 1/f x the claim")
    # one Gaussian charged at the whole epsilon: its hockey-stick at 2 IS its charge
    return replace(setup, exact_worst=float(delta))


def _slack_split(profile: str, cls: Callable[..., Rule], to_rho: bool, slack: str) -> Setup:
    """A rule of epsilon 2 whose delta_slack (named ``slack``) is half its delta: the
    probe spends the other half."""
    delta = _quick(profile)
    rule = cls(2, delta=delta, delta_slack=delta / 2)
    return _split_setup(rule, delta / 2, GaussianCharge(None, _LIGHT_EPS), to_rho, delta,
                        f"{cls.__name__}(2, delta={float(delta)}, {slack}={float(delta / 2)})",
                        _UNSEEN)


def _rruv16_split(profile: str) -> Setup:
    delta = _quick(profile)
    rule = RRUV16Filter(_RRUV16_EPS, delta=delta)
    return _split_setup(rule, delta / 2, GaussianCharge(None, _LIGHT_EPS), False, delta,
                        f"RRUV16Filter(2, delta_g={float(delta)}), sum delta_j <= delta_g/2",
                        _UNSEEN)


# the classes are looked up when a setup is built (a test patches them in this module)
def _w23_split(profile: str) -> Setup:
    return _slack_split(profile, W23Filter, False, "delta'")


def _zf_split(profile: str) -> Setup:
    return _slack_split(profile, ZCDPFilter, True, "delta''")


def _unified_split(profile: str) -> Setup:
    return _slack_split(profile, UnifiedFilter, True, "delta''")


CLAIMS += (
    Claim("RRUV16-BasicFilter", "delta-split", Quantity.HOCKEY_STICK,
          "basic approximate-DP filter under per-request deltas just above, then at, its "
          "remaining delta", _basic_split, (_BASIC_TWIN,)),
    Claim("H23-ThmB.3", "delta-split", Quantity.HOCKEY_STICK,
          "W23 (epsilon, delta) filter under per-request deltas just above, then at, its "
          "remaining delta''", _w23_split, _W23_TWINS),
    Claim("R23-Thm2", "delta-split", Quantity.HOCKEY_STICK,
          "approximate-zCDP filter under per-request deltas just above, then at, its "
          "remaining delta", _zf_split, (_ZF_TWIN,)),
    Claim("R23-Thm6", "delta-split", Quantity.HOCKEY_STICK,
          "unified filter's zCDP rounds under per-request deltas just above, then at, its "
          "remaining delta", _unified_split, (_ZF_TWIN,)),
    Claim("RRUV16-Filter", "delta-split", Quantity.HOCKEY_STICK,
          "RRUV16 filter under per-request deltas just above, then at, delta_g/2 minus "
          "their sum", _rruv16_split, (_RRUV16_TWIN,)),
)
