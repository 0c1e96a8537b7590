"""Twins of the filter, accumulator and odometer claims (verify/registry/claims/filters.py and
verify/registry/claims/odometers.py): each twin's true value in its scenario is at least twice its
claim, by exact computation with the loss oracles of ``adaptive_dp.loss`` (filters) or by
dynamic programming over the randomized-response lattice with boundaries written here
from their closed forms (odometers), never from the code under test. Also: the twins
admit what the witnesses assume, the valid rules refuse it, the corrected odometers'
exact crossing probabilities are within their claims, and the registry's shape.

Spec ids: CS2080-PureDPFilter, RRUV16-BasicFilter, H23-ThmB.3, H23-Thm3.7-Printed, R23-Thm2,
H23-Thm4.6, RRUV16-Filter, EXT-ST22, H23-Thm3.8, H23-Thm4.9, H23-Thm4.11, H23-Lem2.19,
W23-StitchedOdometer-Corrected, W23-MixtureOdometer-Corrected, W23-StitchedOdometer,
W23-MixtureOdometer.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from verify_strategies import capped

from adaptive_dp.filters import (
    BasicFilter,
    GDPFilter,
    PureDPFilter,
    RDPFilter,
    RRUV16Filter,
    W23Filter,
    ZCDPFilter,
)
from adaptive_dp.filters.base import FilterState
from adaptive_dp.guarantees.definitions import GDP, RDP, ZCDP, PureDP
from adaptive_dp.guarantees.spends import Spend
from adaptive_dp.loss import gaussian_hockey_stick, rr_composed_pld
from adaptive_dp.verify.judge.claim import AdversaryExperiment, Setup, samples_for
from adaptive_dp.verify.judge.estimators import MAX_LOSS_TOLERANCE, Quantity
from adaptive_dp.verify.judge.runner import evaluate
from adaptive_dp.verify.judge.simulate import FastRule, simulate
from adaptive_dp.verify.judge.verdicts import Verdict
from adaptive_dp.verify.registry import REGISTRY
from adaptive_dp.verify.registry.bounds import GDPComposition
from adaptive_dp.verify.registry.claims.odometers import (
    TWIN_DELTA,
    TWIN_HORIZON,
    OdometerCrossing,
    certified_readings,
)
from adaptive_dp.verify.registry.twins.filters import PrintedReversedFilter

FILTER_SPECS = ("CS2080-PureDPFilter", "RRUV16-BasicFilter", "H23-ThmB.3", "R23-Thm2",
                "H23-Thm4.6", "RRUV16-Filter", "EXT-ST22", "H23-Thm3.8", "H23-Thm4.9",
                "EXT-GDPAccumulator")
ODOMETER_SPECS = ("W23-StitchedOdometer-Corrected", "W23-MixtureOdometer-Corrected")
MINE = tuple(c for c in REGISTRY.values()
             if c.spec_id in FILTER_SPECS + ODOMETER_SPECS
             or c.id == "H23-Thm4.11/stop-at-worst")


# ------------------------------------------------------------------------------- filters
def _rr_tail(eps: float, k: int) -> Callable[[Setup], float]:
    return lambda s: float(rr_composed_pld(eps, k).sf(s.epsilon * (1 + MAX_LOSS_TOLERANCE)))


def _rr_hockey(eps: float, k: int) -> Callable[[Setup], float]:
    return lambda s: rr_composed_pld(eps, k).hockey_stick(s.epsilon)


def _gauss(mu: float) -> Callable[[Setup], float]:
    return lambda s: gaussian_hockey_stick(mu, s.epsilon)


# (spec id, twin) -> (true value of the quantity in the twin's scenario, releases admitted)
FILTER_TWINS: dict[tuple[str, str], tuple[Callable[[Setup], float], int]] = {
    ("CS2080-PureDPFilter", "lookahead-dropped"): (_rr_tail(0.5, 3), 3),
    ("RRUV16-BasicFilter", "lookahead-dropped"): (_rr_hockey(1.0, 3), 3),
    ("H23-ThmB.3", "printed-reversed"): (_rr_hockey(3.0, 1), 1),
    ("H23-ThmB.3", "lookahead-dropped"): (_rr_hockey(3.0, 1), 1),
    ("R23-Thm2", "lookahead-dropped"): (_gauss(3.0), 1),
    ("H23-Thm4.6", "lookahead-dropped"): (_gauss(3.0), 1),
    ("RRUV16-Filter", "lookahead-dropped"): (_rr_hockey(3.0, 1), 1),
    ("EXT-ST22", "lookahead-dropped"): (_gauss(3.0), 1),
    ("EXT-GDPAccumulator", "lookahead-dropped"): (_gauss(3.0), 1),
    ("H23-Thm3.8", "lookahead-dropped"): (_rr_hockey(3.0, 1), 1),
    ("H23-Thm4.9", "lookahead-dropped"): (_gauss(3.0), 1),
    ("H23-Thm4.11", "lookahead-dropped"): (_gauss(2.0), 1),
}

FILTER_PAIRS = sorted({(c.spec_id, t.name) for c in MINE if c.spec_id not in ODOMETER_SPECS
                       for t in c.twins})


def _twin_setup(spec: str, name: str) -> Setup:
    claim = next(c for c in MINE if c.spec_id == spec and any(t.name == name for t in c.twins))
    return next(t for t in claim.twins if t.name == name).build("quick")


def test_every_filter_twin_has_an_exact_witness() -> None:
    assert set(FILTER_PAIRS) == set(FILTER_TWINS)
    assert all(c.twins for c in MINE)


@pytest.mark.parametrize(("spec", "name"), FILTER_PAIRS)
def test_filter_twin_true_value_is_at_least_twice_its_claim(spec: str, name: str) -> None:
    setup = _twin_setup(spec, name)
    truth, releases = FILTER_TWINS[(spec, name)]
    value = truth(setup)
    if setup.quantity is Quantity.MAX_LOSS:
        assert setup.delta_min is not None
        assert value >= 2 * setup.delta_min
    else:
        assert value >= 2 * setup.claimed
    # the twin admits exactly the releases the witness composes (an output-independent
    # adversary: every path is admitted the same number of times)
    assert isinstance(setup.experiment, AdversaryExperiment)
    out = simulate(setup.experiment.adversary, 8, np.random.default_rng(3),
                   rule=setup.experiment.rule)
    assert set(out.releases.tolist()) == {releases}


def test_valid_rules_refuse_what_their_twins_admit() -> None:
    # the same requests, certified valid rules: the overrunning request is refused
    def admitted(state: FilterState, spends: list[Spend]) -> int:
        count = 0
        for spend in spends:
            decision, state = state.spend(spend)
            count += bool(decision)
        return count

    d = Fraction(1, 20)
    assert admitted(PureDPFilter(1).start(), [PureDP(0.5)] * 4) == 2
    assert admitted(BasicFilter(2, delta=d).start(), [PureDP(1.0)] * 3) == 2
    for rule in (W23Filter(2, delta=d), RRUV16Filter(2, delta=d)):
        assert admitted(rule.start(), [PureDP(3.0)]) == 0
    assert admitted(ZCDPFilter(2, delta=d).start(), [ZCDP(Fraction(9, 2))]) == 0
    assert admitted(RDPFilter(4, 1).start(), [RDP(4, 18)]) == 0
    assert admitted(GDPFilter(Fraction(3, 2)).start(), [GDP(3.0)]) == 0


def test_printed_reversed_filter_halts_on_small_requests_and_admits_overruns() -> None:
    # H23-Thm3.7-Printed: it continues exactly when the bound has reached the budget, so
    # it is not a valid filter; it is caught only where a request overruns the budget
    printed = PrintedReversedFilter(2, delta=Fraction(1, 20)).start()
    assert not printed.decide(PureDP(0.1))
    assert printed.decide(PureDP(3.0))
    # the boundary: V with sqrt(2 log(20) V) + V/2 = 2 is V* = (sqrt(2c + 4) - sqrt(2c))^2
    c = math.log(20)
    v_star = (math.sqrt(2 * c + 4) - math.sqrt(2 * c)) ** 2
    assert not printed.decide(PureDP(math.sqrt(v_star) * 0.999))
    assert printed.decide(PureDP(math.sqrt(v_star) * 1.001))


def test_quick_deltas_in_range_and_full_uses_1e3() -> None:
    for claim in MINE:
        quick, full = claim.build("quick"), claim.build("full")
        if quick.quantity is Quantity.MAX_LOSS:
            assert quick.delta_min == 0.02 and full.delta_min == 1e-3, claim.id
        else:
            assert 0.02 <= quick.claimed <= 0.2, claim.id
            assert full.claimed <= 1e-3 + 1e-12, claim.id


def test_adaptive_rules_have_hugging_and_stop_at_worst() -> None:
    for spec in FILTER_SPECS:
        scenarios = {c.scenario for c in MINE if c.spec_id == spec}
        assert {"budget-hugging", "stop-at-worst"} <= scenarios, spec
        assert sum(s.startswith("generated-") for s in scenarios) <= 3
    for spec in ODOMETER_SPECS:
        scenarios = {c.scenario for c in MINE if c.spec_id == spec}
        assert scenarios == {"constant", "budget-hugging", "adaptive-epsilon"}


def _identity(kind: np.ndarray, param: np.ndarray) -> np.ndarray:
    return param


@settings(max_examples=3, deadline=None)
@given(capped((0, 2), 1.0, 12))
def test_generated_adversaries_hold_through_the_w23_filter(adversary: object) -> None:
    # H23-ThmB.3: any pure-DP adversary (its overruns refused) stays (2, 0.05)-DP
    rule = FastRule(W23Filter(2, delta=Fraction(1, 20)), _identity)
    setup = Setup(Quantity.HOCKEY_STICK, 2.0, 0.05, AdversaryExperiment(adversary, rule),
                  samples_for(Quantity.HOCKEY_STICK, 0.05))
    assert evaluate(setup, 0, "generated-w23", repr(adversary)).verdict is Verdict.HOLDS


@settings(max_examples=3, deadline=None)
@given(capped((1,), 2.0, 12))
def test_generated_adversaries_hold_through_the_gdp_filter(adversary: object) -> None:
    # EXT-ST22: any Gaussian adversary through GDPFilter(3/2) is 3/2-GDP (eps = 2)
    eps, delta = GDPComposition((Fraction(3, 2),), Fraction(2)).claimed()
    rule = FastRule(GDPFilter(Fraction(3, 2)), _identity)
    setup = Setup(Quantity.HOCKEY_STICK, eps, delta, AdversaryExperiment(adversary, rule),
                  samples_for(Quantity.HOCKEY_STICK, delta))
    assert evaluate(setup, 0, "generated-gdp", repr(adversary)).verdict is Verdict.HOLDS


# ------------------------------------------------------------------------------ odometers
EPS = 0.1


def _v(n: np.ndarray) -> np.ndarray:
    return n * EPS * EPS


def _stitched_printed(delta: float) -> Callable[[np.ndarray], np.ndarray]:
    # poster P8: 1.7 sqrt(V (log log(2 V / eps_1^2) + 0.72 log(5.2 / delta')))
    def u(n: np.ndarray) -> np.ndarray:
        v = _v(n)
        return 1.7 * np.sqrt(v * (np.log(np.log(2 * v / EPS**2)) + 0.72 * math.log(5.2 / delta)))
    return u


def _mixture_printed(delta: float, rho: float = 1.0) -> Callable[[np.ndarray], np.ndarray]:
    # poster P9 (one-sided closed form): sqrt(2 (V + rho) log(sqrt((V + rho)/rho)/(2 delta) + 1))
    def u(n: np.ndarray) -> np.ndarray:
        v = _v(n)
        return np.sqrt(2 * (v + rho) * np.log(np.sqrt((v + rho) / rho) / (2 * delta) + 1))
    return u


def _fixed_time(delta: float) -> Callable[[np.ndarray], np.ndarray]:
    # W23's fixed-n bound: sqrt(2 log(1/delta') V) + V/2
    return lambda n: np.sqrt(2 * math.log(1 / delta) * _v(n)) + _v(n) / 2


def _plus_drift(u: Callable[[np.ndarray], np.ndarray]) -> Callable[[np.ndarray], np.ndarray]:
    return lambda n: u(n) + _v(n) / 2


def crossing_probability(bound: np.ndarray, eps: float = EPS) -> float:
    """P[exists n <= N: L_n > U_n] for N randomized responses of ``eps`` under x, where
    L_n = eps (2 J_n - n) and J_n counts truthful reports (p = e^eps/(1 + e^eps)): the
    surviving mass over J_n, propagated one step at a time (exact up to float rounding;
    by symmetry the same under x')."""
    p = math.exp(eps) / (1 + math.exp(eps))
    alive = np.array([1.0])
    crossed = 0.0
    for n, u in enumerate(bound, start=1):
        nxt = np.zeros(n + 1)
        nxt[1:] += alive * p
        nxt[:-1] += alive * (1 - p)
        over = eps * (2 * np.arange(n + 1) - n) > u
        crossed += float(nxt[over].sum())
        nxt[over] = 0.0
        alive = nxt
    return crossed


STEPS = np.arange(1, TWIN_HORIZON + 1, dtype=np.float64)
ODOMETER_TWINS: dict[tuple[str, str], Callable[[np.ndarray], np.ndarray]] = {
    ("W23-StitchedOdometer-Corrected", "printed"): _stitched_printed(0.05),
    ("W23-MixtureOdometer-Corrected", "printed"): _mixture_printed(0.05),
    ("W23-StitchedOdometer-Corrected", "fixed-time-at-every-n"): _fixed_time(0.05),
    ("W23-MixtureOdometer-Corrected", "fixed-time-at-every-n"): _fixed_time(0.05),
}
ODOMETER_PAIRS = sorted({(c.spec_id, t.name) for c in MINE if c.spec_id in ODOMETER_SPECS
                         for t in c.twins})


def test_every_odometer_twin_has_an_exact_witness() -> None:
    assert set(ODOMETER_PAIRS) == set(ODOMETER_TWINS)


def _readings(setup: Setup) -> np.ndarray:
    experiment = setup.experiment
    assert isinstance(experiment, OdometerCrossing) and experiment.certified
    adversary = experiment.adversary
    return np.asarray(certified_readings(experiment.odometer, adversary.epsilon,
                                         adversary.horizon))


@pytest.mark.parametrize(("spec", "name"), ODOMETER_PAIRS)
def test_odometer_twin_crossing_is_at_least_twice_its_claim(spec: str, name: str) -> None:
    setup = _twin_setup(spec, name)
    assert setup.claimed == float(TWIN_DELTA)
    independent = ODOMETER_TWINS[(spec, name)](STEPS)
    readings = _readings(setup)
    # the twin's certified readings are its closed form, rounded up
    assert np.all(readings >= independent * (1 - 1e-12))
    np.testing.assert_allclose(readings, independent, rtol=1e-9)
    assert crossing_probability(independent) >= 2 * setup.claimed


@pytest.mark.parametrize("spec", ODOMETER_SPECS)
def test_corrected_odometer_exact_crossing_within_claim(spec: str) -> None:
    for profile in ("quick", "full"):
        setup = REGISTRY[f"{spec}/constant"].build(profile)
        delta = setup.claimed
        printed = (_stitched_printed(delta) if spec.startswith("W23-Stitched")
                   else _mixture_printed(delta))
        independent = _plus_drift(printed)(STEPS)
        readings = _readings(setup)
        np.testing.assert_allclose(readings, independent, rtol=1e-9)
        assert crossing_probability(independent) <= delta


def test_crossing_probability_matches_a_closed_form() -> None:
    # one step, U_1 = 0: crossed iff the report is truthful, probability p
    p = math.exp(EPS) / (1 + math.exp(EPS))
    assert crossing_probability(np.array([0.0])) == pytest.approx(p, rel=1e-15)
    # two steps, U = (1, 0.15): crossed iff both truthful (L_2 = 0.2)
    assert crossing_probability(np.array([1.0, 0.15])) == pytest.approx(p * p, rel=1e-15)
