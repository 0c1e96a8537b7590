"""Harness-mutation tests (issue 16; docs/design.md, verification: harness mutation).

A mutant is a copy of an adaptive rule (a subclass made here, patched into the claims
module for the duration of one test; src is not edited) whose decision is loosened, or
whose reading is lowered, by a factor, so that it is invalid by a computed margin; the
rule's registered claims are run on it and at least one must be violated.

- ``test_loosened_precheck_caught``: the Brownian filters (R23-Lem6.2, R23-Thm6) with the
  pre-check (3)/(4) underestimating the BM's worst-case charge Delta^2/(2 t_min) by 25%.
  The budget-hugging and stop-at-worst claims take each grid's smallest time value from
  ``max_next`` and never exercise the pre-check; the ``boundary-probe`` claims (eps = 64)
  bisect the smallest admitted time value and are violated in the quick profile (the
  mutant's first passage over eps = 64 is 4.7 delta'' at delta'' = 0.05).
- ``test_every_rule_sweep`` (``-m slow``, one test per rule): for every adaptive rule
  (:data:`MUTATIONS`: filters, accumulators read through their filter, ex-post filters,
  odometers, and the concurrent filters of interactive mechanisms -- H23-Thm4.10's sum
  rule, H23-Thm4.11's accumulator, H23-Cor3.5's W23 filter -- patched into
  claims/interactive.py, whose batch compositor consults them at each launch), a mutant
  invalid by 25-50% at its full scenario (margins computed below, checked by
  ``test_mutation_margin``), its claims run in the full profile; a rule may be missed
  only if it is in :data:`KNOWN_MISSES` (with its reason), and a known miss that is
  caught fails too. Each test merges its rule's row (with its commit and date) into
  ``docs/results/harness-mutation.{md,json}`` by rule id, keeping the other rows. The
  exact-value unit tests of each rule stay the guard for formula defects too small to
  break validity.
- ``test_thm3_tail_formula``: R23-Thm3's margin (the normal loss of the Gaussian rounds
  convolved with the law of the one randomized response the mutant's ex-post ledger
  admits) against simulated transcripts and against the boundary-probe claim's own
  experiment run on the mutant.
"""

from __future__ import annotations

import fcntl
import json
import math
import os
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from flint import arb
from scipy.stats import norm
from test_filter_twins import crossing_probability

from adaptive_dp.filters.basic import BasicFilter, PureDPFilter
from adaptive_dp.filters.brownian import BrownianFilter, UnifiedFilter, fast_bm_spend
from adaptive_dp.filters.expost import ExPostFilter, fast_expost_spend
from adaptive_dp.filters.from_accumulator import AccumulatorFilter
from adaptive_dp.filters.gdp import GDPFilter
from adaptive_dp.filters.rdp import RDPCurveFilter, RDPFilter
from adaptive_dp.filters.rruv16 import RRUV16Filter
from adaptive_dp.filters.w23 import W23Filter
from adaptive_dp.filters.zcdp import ZCDPFilter, ZCDPSumFilter
from adaptive_dp.guarantees.definitions import GDP, RDP, ZCDP, ApproxDP
from adaptive_dp.loss.gaussian import gaussian_hockey_stick
from adaptive_dp.numerics.enclosure import arb_of
from adaptive_dp.numerics.floats import add_up, inflate_up
from adaptive_dp.odometers.accumulators import (
    ApproxDPAccumulator,
    GDPAccumulator,
    RDPAccumulator,
    ZCDPAccumulator,
)
from adaptive_dp.odometers.rruv16 import RRUV16Odometer
from adaptive_dp.odometers.w23 import W23MixtureOdometer, W23StitchedOdometer
from adaptive_dp.verify.judge import runner
from adaptive_dp.verify.judge.estimators import Quantity, detectable_ratio
from adaptive_dp.verify.judge.verdicts import Verdict
from adaptive_dp.verify.registry import REGISTRY
from adaptive_dp.verify.registry.bounds import ZCDPComposition
from adaptive_dp.verify.registry.claims import expost, filters, interactive, odometers, rruv16
from adaptive_dp.verify.registry.claims.odometers import certified_readings
from adaptive_dp.verify.registry.worst_case import brownian_first_passage, filter_worst

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "docs" / "results"
PROBE_EPSILON = 64
"""The epsilon of the R23-Lem6.2 / R23-Thm6 boundary-probe claims (claims/expost.py)."""

FACTOR_LECUYER = 0.769
FACTOR_BASIC = 0.9992
FACTOR_W23 = 0.485
FACTOR_RRUV16 = 0.165
FACTOR_ACC38 = 0.485
FACTOR_STITCHED = 0.82
FACTOR_MIXTURE = 0.95
FACTOR_RRUV16_ODOMETER = 0.543
FACTOR_CONCURRENT = 0.76
FACTOR_THM3 = 0.827


def loosened_precheck(cls: type[UnifiedFilter], factor: float) -> type[UnifiedFilter]:
    """``cls`` whose fast pre-check sees ``factor`` times the BM's worst-case charge."""

    class Loosened(cls):  # type: ignore[valid-type,misc]
        __slots__ = ()

        def _fast_lookahead(self, spent: Any, t_min: Any, t_stop: Any, d2: float) -> Any:
            return np.asarray(add_up(spent, inflate_up(factor * d2 / (2 * t_min))))

    Loosened.__name__ = f"Loosened{cls.__name__}"
    return Loosened


def loosened_admission(cls: type[Any], factor: float) -> type[Any]:
    """``cls`` whose fast admission sees ``factor`` times its primary running sum."""

    class Loosened(cls):  # type: ignore[misc]
        __slots__ = ()

        def _fast_admits(self, sums: tuple[Any, ...]) -> Any:
            return super()._fast_admits((sums[0] * factor, *sums[1:]))

    Loosened.__name__ = f"Loosened{cls.__name__}"
    return Loosened


def first_passage(precision: float, epsilon: float) -> float:
    """P[sup_{V <= precision} V/2 + W(V) > epsilon]: the worst tail of BM releases up to
    total precision sum 1/t (the registry's first-passage formula)."""
    return brownian_first_passage(Fraction(precision), Fraction(epsilon))


def _run(claim_ids: list[str], profile: str) -> dict[str, runner.TestResult]:
    return {cid: runner.evaluate(REGISTRY[cid].setup(profile), 0, cid, profile=profile)
            for cid in claim_ids}


def _claims_of(spec_id: str, module: ModuleType) -> list[str]:
    """The claims of ``spec_id`` registered by ``module`` (where the mutant is patched in)."""
    return [c.id for c in module.CLAIMS if c.spec_id == spec_id]


# -- the pre-check loosened by 25% (default run) ----------------------------------------------


def test_first_passage_formula() -> None:
    """The formula against a direct simulation of a finely monitored drifted walk."""
    rng = np.random.default_rng(7)
    steps, v, a = 1000, 4.0, 2.5
    dv = v / steps
    walk = np.cumsum(dv / 2 + math.sqrt(dv) * rng.standard_normal((3000, steps)), axis=1)
    simulated = float((walk.max(axis=1) >= a).mean())
    exact = first_passage(v, a)
    # discrete monitoring misses about 0.5826 sqrt(dv) of the barrier (about 0.03 here);
    # 3000 paths: sd about 0.009
    assert exact - 0.06 < simulated <= exact + 0.03


def test_loosened_precheck_margin() -> None:
    """The 25%-loosened filters admit grids down to 0.75 of the admissible time value,
    and their worst case at eps = 64, delta'' = 0.05 is at least twice delta''."""
    for cls in (BrownianFilter, UnifiedFilter):
        rule = cls(64, delta=Fraction(1, 20))
        rho_star = rule.start().max_next() or 0.0
        t_adm = 1 / (2 * rho_star)
        state = loosened_precheck(cls, 0.75)(64, delta=Fraction(1, 20)).fast(2)
        ok, _ = fast_bm_spend(state, 1.0, [0.7501 * t_adm, 0.7499 * t_adm],
                              [t_adm, t_adm])
        assert ok.tolist() == [True, False]
        valid_ok, _ = fast_bm_spend(rule.fast(1), 1.0, [0.9999 * t_adm], [t_adm])
        assert not valid_ok[0]
        assert first_passage(2 * rho_star, 64) <= 0.05
        assert first_passage(2 * rho_star / 0.75, 64) >= 4 * 0.05


@pytest.mark.parametrize(("spec_id", "name", "cls"), [
    ("R23-Lem6.2", "BrownianFilter", BrownianFilter),
    ("R23-Thm6", "UnifiedFilter", UnifiedFilter),
])
def test_loosened_precheck_caught(monkeypatch: pytest.MonkeyPatch, spec_id: str, name: str,
                                  cls: type[UnifiedFilter]) -> None:
    """The rule's boundary-probe claim, run on the mutant, is violated (the sweep below
    runs every claim of the rule on a subtler mutant)."""
    monkeypatch.setattr(expost, name, loosened_precheck(cls, 0.75))
    claim_id = f"{spec_id}/boundary-probe"
    result = _run([claim_id], "quick")[claim_id]
    assert result.verdict is Verdict.VIOLATED, result


# -- the every-rule sweep (-m slow) ------------------------------------------------------------


def loosened_orders(cls: type[Any], factor: float) -> type[Any]:
    """``cls`` whose fast admission sees ``factor`` times every running sum (a rule with
    one sum per order, such as ``RDPCurveFilter``)."""

    class Loosened(cls):  # type: ignore[misc]
        __slots__ = ()

        def _fast_admits(self, sums: tuple[Any, ...]) -> Any:
            return super()._fast_admits(tuple(s * factor for s in sums))

    Loosened.__name__ = f"Loosened{cls.__name__}"
    return Loosened


def loosened_lookahead(cls: type[ExPostFilter], factor: float) -> type[ExPostFilter]:
    """The ex-post filter whose look-ahead sees ``factor`` times the top level's epsilon."""

    class Loosened(cls):  # type: ignore[valid-type,misc]
        __slots__ = ()

        def _fast_lookahead(self, spent: Any, max_epsilon: Any) -> Any:
            return np.asarray(add_up(spent, factor * max_epsilon))

    Loosened.__name__ = f"Loosened{cls.__name__}"
    return Loosened


def lowered_boundary(cls: type[Any], factor: float) -> type[Any]:
    """The odometer whose reading V_n/2 + Delta_n + g(V_n) has ``factor`` x its boundary
    term g, certified and fast readings alike (an under-reporting odometer)."""

    class Lowered(cls):  # type: ignore[misc]
        __slots__ = ()

        def _boundary(self, v: Fraction, start: Fraction) -> arb:
            lowered: arb = super()._boundary(v, start) * arb_of(Fraction(factor))
            return lowered

        def _fast_boundary(self, v: Any, start: Any) -> Any:
            return factor * super()._fast_boundary(v, start)

    Lowered.__name__ = f"Lowered{cls.__name__}"
    return Lowered


@dataclass(frozen=True)
class Mutation:
    """One rule's mutant: ``factor`` applied by ``make`` to the class ``name`` of
    ``module`` (whose claims of ``spec_id`` are run on it); ``margin(mutant class)``
    gives (worst case of the mutant, claimed, how computed) at the rule's full scenario."""

    spec_id: str
    module: ModuleType
    name: str
    make: Callable[[type[Any], float], type[Any]]
    base: type[Any]
    factor: float
    defect: str
    margin: Callable[[type[Any]], tuple[float, float, str]]
    qualifier: str = ""

    @property
    def rule(self) -> str:
        """The row's id (and the test id): the spec id, qualified where two claims modules
        register claims of one spec (H23-Thm4.11: the noninteractive and the concurrent
        accumulator)."""
        return f"{self.spec_id}-{self.qualifier}" if self.qualifier else self.spec_id


FULL_DELTA = Fraction(1, 1000)
"""The claimed delta (delta', delta'', delta_g) of every full scenario swept here."""


def _largest_single(rule: Any, high: float) -> float:
    """The largest single primary request the rule's fast path admits (bisection)."""
    state, low = rule.fast(1), 0.0
    for _ in range(200):
        mid = (low + high) / 2
        low, high = (mid, high) if state.decide(mid)[0] else (low, mid)
    return low


def _brownian_margin(cls: type[Any], mutant: type[Any], factor: float) -> tuple[
        float, float, str]:
    eps, delta = PROBE_EPSILON, float(FULL_DELTA)
    rho_star = cls(eps, delta=FULL_DELTA).start().max_next() or 0.0
    t_adm = 1 / (2 * rho_star)
    ok, _ = fast_bm_spend(mutant(eps, delta=FULL_DELTA).fast(2), 1.0,
                          [factor * t_adm * 1.0001, factor * t_adm * 0.9999], [t_adm, t_adm])
    assert ok.tolist() == [True, False]  # the mutant admits grids down to factor t_adm
    worst = first_passage(2 * rho_star / factor, eps)
    return worst, delta, (f"first passage of V/2 + W(V) over eps = {eps} up to the admitted "
                          f"precision 2 rho*/{factor} (rho* = {rho_star:.4g}), delta'' = 1e-3 "
                          "(the supremum over adaptive BM rounds)")


def _gaussian_margin(mutant: Any, high: float, mu_of: Callable[[float], float],
                     epsilon: float, claimed: float, what: str) -> tuple[float, float, str]:
    largest = _largest_single(mutant, high)
    mu = mu_of(largest)
    worst = gaussian_hockey_stick(mu, epsilon)
    return worst, claimed, (f"one Gaussian request at the largest admitted {what} "
                            f"({largest:.5g}, mu = {mu:.5g}): its exact hockey-stick at "
                            f"eps = {epsilon:.4g} (a lower bound of the mutant's worst case)")


def _zcdp_margin(mutant: Any) -> tuple[float, float, str]:
    return _gaussian_margin(mutant, 10.0, lambda rho: math.sqrt(2 * rho), 2.0,
                            float(FULL_DELTA), "rho")


def _zcdp_acc_margin(mutant: Any) -> tuple[float, float, str]:
    eps, claimed = ZCDPComposition((Fraction(1, 2),), FULL_DELTA).claimed()
    return _gaussian_margin(mutant, 10.0, lambda rho: math.sqrt(2 * rho), eps, claimed, "rho")


def _gdp_margin(mutant: Any) -> tuple[float, float, str]:
    eps = 21 / 4
    return _gaussian_margin(mutant, 10.0, lambda mu: mu, eps, gaussian_hockey_stick(1.5, eps),
                            "mu")


def _rdp_margin(mutant: Any) -> tuple[float, float, str]:
    eps, claimed = filters._rdp_claimed(FULL_DELTA)
    return _gaussian_margin(mutant, 10.0, lambda r: math.sqrt(r / 2), eps, claimed,
                            "RDP epsilon at alpha = 4")


def _curve_margin(mutant: Any) -> tuple[float, float, str]:
    eps, claimed = filters._curve_claimed(FULL_DELTA)
    return _gaussian_margin(mutant, 10.0, lambda rho: math.sqrt(2 * rho), eps, claimed, "rho")


def _pure_margin(mutant: Any) -> tuple[float, float, str]:
    largest = _largest_single(mutant, 10.0)
    return largest, 1.0, (f"one randomized-response request at the largest admitted epsilon "
                          f"({largest:.5g}): its loss is that epsilon with probability "
                          f"e^eps/(1+e^eps) (exact max loss, against the claimed 1)")


def _lattice_margin(mutant: Any, menu: tuple[float, ...], horizon: int) -> tuple[
        float, float, str]:
    worst = filter_worst(mutant, menu, horizon, Fraction(2), fast=True).upper()
    return worst, float(FULL_DELTA), (
        f"exact worst hockey-stick at eps = 2 of randomized responses of eps in {menu}, "
        f"at most {horizon}, through the mutant's fast path (the randomized-response "
        "lattice's dynamic programme, worst_case.filter_worst)")


def _basic_margin(mutant: Any) -> tuple[float, float, str]:
    largest = _largest_single(mutant, 10.0)
    worst = filter_worst(mutant, (largest,), 2, Fraction(2), fast=True).upper()
    return worst, float(FULL_DELTA), (
        f"exact worst hockey-stick at eps = 2 of randomized responses of the largest "
        f"admitted epsilon ({largest:.7g}; under basic composition one request of the "
        "whole admitted epsilon is the worst pure strategy), by the lattice programme")


def _largest_top(mutant: Any) -> float:
    """The largest top level (worst-case ex-post epsilon) the ex-post filter's fast
    look-ahead admits on an empty ledger (bisection; at least its epsilon)."""
    state, low = mutant.fast(1), float(mutant.epsilon)
    high = 4 * low
    for _ in range(200):
        mid = (low + high) / 2
        low, high = (mid, high) if fast_expost_spend(state, mid, 0.0)[0][0] else (low, mid)
    return low


def _expost_margin(mutant: Any) -> tuple[float, float, str]:
    low, eps = _largest_top(mutant), float(mutant.epsilon)
    return low, eps, (f"one Laplace noise reduction at the largest admitted top level "
                      f"({low:.5g}): its loss reaches that level with positive probability "
                      f"(exact max loss, against the claimed {eps:g})")


THM3_EPSILON = 1.0
"""epsilon = epsilon' of R23-Thm3/boundary-probe's two ledgers (claims/expost.py)."""


def thm3_tail(rr_epsilon: float, total_rho: float, at: float) -> float:
    """P[G + X > at] for the Gaussian rounds' total loss G ~ N(R, 2R) (R = ``total_rho``;
    each round of rho has loss N(rho, 2 rho) from the two normal densities, independent)
    and one randomized response's loss X = +e with probability e^e / (1 + e^e), -e
    otherwise (e = ``rr_epsilon``): the convolution of the two exact laws."""
    sd = math.sqrt(2 * total_rho)
    p = 1 / (1 + math.exp(-rr_epsilon))
    return math.fsum((p * norm.sf((at - rr_epsilon - total_rho) / sd),
                      (1 - p) * norm.sf((at + rr_epsilon - total_rho) / sd)))


def thm3_total_rho(delta: float) -> float:
    """R23-Thm2's zCDP budget at epsilon = 1: the rho* solving rho + 2 sqrt(rho log(1/delta''))
    = epsilon, (sqrt(log(1/delta'') + epsilon) - sqrt(log(1/delta'')))^2 (the total rho of
    the probe's Gaussian rounds, which spend the ledger to its remainder)."""
    log = math.log(1 / delta)
    return (math.sqrt(log + THM3_EPSILON) - math.sqrt(log)) ** 2


def _thm3_margin(mutant: Any) -> tuple[float, float, str]:
    top = _largest_top(mutant)
    state = mutant.fast(1)
    ok, state = fast_expost_spend(state, top, top)
    assert ok[0] and not fast_expost_spend(state, 1e-9, 1e-9)[0][0]  # then nothing more
    delta = float(FULL_DELTA)
    total_rho = thm3_total_rho(delta)
    worst = thm3_tail(top, total_rho, 2 * THM3_EPSILON)
    return worst, delta, (
        f"exact tail at eps + eps' = 2 of R23-Thm3/boundary-probe's sequence on the mutant: "
        f"Gaussian rounds of total rho = {total_rho:.5g} (the zCDP ledger's rho*, loss "
        f"N(R, 2R)) and one randomized response at the largest admitted epsilon ({top:.5g}; "
        "every later request refused), the normal tail averaged over the response's two "
        "losses (a lower bound of the mutant's worst case)")


def test_thm3_tail_formula(monkeypatch: pytest.MonkeyPatch) -> None:
    """:func:`thm3_tail` against (1) 10^6 simulated transcripts, the losses from scipy's
    normal log-densities and the response's probabilities, and (2) the R23-Thm3
    boundary-probe claim's own experiment run on the mutant at the full scenario (its
    losses from the mechanisms' densities); the ledgers' budget against its closed form."""
    m = next(m for m in MUTATIONS if m.rule == "R23-Thm3")
    mutant = m.make(m.base, m.factor)
    top, delta = _largest_top(mutant(1)), float(FULL_DELTA)
    total_rho = thm3_total_rho(delta)
    rho_star = ZCDPFilter(1, delta=FULL_DELTA).start().max_next() or 0.0
    assert abs(rho_star - total_rho) <= 1e-9
    rng = np.random.default_rng(12)
    paths = 1_000_000
    loss = np.zeros(paths)
    for rho in (0.01, 0.01, 0.01, total_rho - 0.03):  # the probe's rounds
        sigma = 1 / math.sqrt(2 * rho)
        y = rng.normal(0.0, sigma, paths)
        loss += norm.logpdf(y, 0.0, sigma) - norm.logpdf(y, 1.0, sigma)
    truthful = rng.random(paths) < math.exp(top) / (1 + math.exp(top))
    loss += np.where(truthful, top, -top)
    for at in (1.5, 2.0):
        exact = thm3_tail(top, total_rho, at)
        sd = math.sqrt(exact * (1 - exact) / paths)
        assert abs(float((loss > at).mean()) - exact) <= 4 * sd, (at, exact)
    monkeypatch.setattr(expost, "ExPostFilter", mutant)
    setup = REGISTRY["R23-Thm3/boundary-probe"].setup("full")
    claim_loss = setup.experiment(paths, np.random.default_rng(13), "x")
    exact = thm3_tail(top, total_rho, setup.epsilon)
    assert setup.claimed == delta and setup.epsilon == 2 * THM3_EPSILON
    sd = math.sqrt(exact * (1 - exact) / paths)
    assert abs(float((claim_loss > setup.epsilon).mean()) - exact) <= 4 * sd, exact


def _odometer_margin(odometer: Any, what: str) -> tuple[float, float, str]:
    horizon = 10_000
    worst = crossing_probability(np.asarray(certified_readings(odometer, 0.1, horizon)), 0.1)
    return worst, float(FULL_DELTA), (
        f"exact crossing probability of the mutant's certified readings by randomized "
        f"response of eps = 0.1 at each of {horizon} steps ({what}; the law of the walk "
        "propagated step by step, test_filter_twins.crossing_probability)")


def _admitted(rule: Any, launches: interactive.LaunchAllThenQuery) -> int:
    """How many of the adversary's launch requests the rule's fast path admits (what
    the batch compositor consults at each launch)."""
    state, count = rule.fast(1), 0
    for _ in range(launches.launches):
        ok, state = state.spend(launches.child_rho)
        count += int(ok[0])
    return count


def _launch_all_hockey_stick(children: int, child_rho: float, epsilon: float) -> float:
    """The exact hockey-stick at ``epsilon`` of the view of ``children`` launched children
    of rho_c = ``child_rho`` (Gaussian and randomized response alternating, Gaussian
    first, ``interactive._ROUNDS`` answers each, every answer released), from the
    answers' densities: the Gaussian answers compose to a Gaussian loss of mu^2 =
    2 rho_c x the Gaussian children (EXT-DRS19), each randomized response of
    e = sqrt(2 rho_c / rounds) adds +e with probability e^e / (1 + e^e) and -e otherwise,
    independently, so delta = sum_k P[k of them -e] x delta_G(epsilon - (m - 2k) e).
    Both orders of the pair give the same value (both mechanisms are symmetric)."""
    rounds = interactive._ROUNDS
    gaussian, rr = (children + 1) // 2, children // 2
    mu = math.sqrt(gaussian * 2 * child_rho)
    e = math.sqrt(2 * child_rho / rounds)
    m = rr * rounds
    p = math.exp(e) / (1 + math.exp(e))
    return math.fsum(math.comb(m, k) * p ** (m - k) * (1 - p) ** k
                     * gaussian_hockey_stick(mu, epsilon - (m - 2 * k) * e)
                     for k in range(m + 1))


def test_launch_all_formula() -> None:
    """The formula against the mean payoff (1 - e^(eps - L))_+ of simulated views: 16
    Gaussian and 15 randomized-response children of rho_c = 1/48, each answer's loss
    taken from the two densities (scipy's normal log-density; the response's
    probabilities), at eps = 1 where delta is large enough to estimate."""
    rng = np.random.default_rng(11)
    rounds, rho_c, eps, paths = interactive._ROUNDS, 1 / 48, 1.0, 200_000
    sigma, e = math.sqrt(rounds / (2 * rho_c)), math.sqrt(2 * rho_c / rounds)
    y = rng.normal(0.0, sigma, (paths, 16 * rounds))
    loss = (norm.logpdf(y, 0.0, sigma) - norm.logpdf(y, 1.0, sigma)).sum(axis=1)
    truthful = rng.random((paths, 15 * rounds)) < math.exp(e) / (1 + math.exp(e))
    loss += np.where(truthful, e, -e).sum(axis=1)
    payoff = np.maximum(0.0, 1.0 - np.exp(eps - loss))
    exact = _launch_all_hockey_stick(31, rho_c, eps)
    assert abs(payoff.mean() - exact) <= 4 * payoff.std() / math.sqrt(paths), (
        payoff.mean(), exact)


def _concurrent_zcdp_margin(rule: Any) -> tuple[float, float, str]:
    eps, claimed = ZCDPComposition((interactive._RHO,), FULL_DELTA).claimed()
    rows = []
    for name, adversary in (("fine-hugging", interactive.FINE),
                            ("budget-hugging", interactive.LaunchAllThenQuery())):
        n = _admitted(rule, adversary)
        rows.append((_launch_all_hockey_stick(n, adversary.child_rho, eps), name, n,
                     adversary.child_rho))
    worst, name, n, child_rho = max(rows)
    others = "; ".join(f"{nm}: {k} children of {c:.4g}, {w / claimed:.3g} x"
                       for w, nm, k, c in rows if nm != name)
    return worst, claimed, (
        f"exact hockey-stick at eps = {eps:.4g} of the {name} view: {n} admitted children "
        f"of rho_c = {child_rho:.4g} (Gaussian and randomized response alternating, 3 "
        f"answers each), the Gaussian answers' closed form averaged over the binomial law "
        f"of the randomized responses (the worst of the claims' launch-all adversaries; "
        f"{others}; stop-at-worst not computed)")


def _acc(make: Callable[[], tuple[Any, Any]]) -> Callable[[type[Any]], Any]:
    return lambda cls: cls(*make())


MUTATIONS = (
    Mutation("R23-Lem6.2", expost, "BrownianFilter", loosened_precheck, BrownianFilter,
             0.895, "pre-check (3) sees 0.895 x the BM's worst-case charge",
             lambda m: _brownian_margin(BrownianFilter, m, 0.895)),
    Mutation("R23-Thm6", expost, "UnifiedFilter", loosened_precheck, UnifiedFilter, 0.895,
             "pre-check (4) sees 0.895 x the BM's worst-case charge",
             lambda m: _brownian_margin(UnifiedFilter, m, 0.895)),
    Mutation("R23-Thm2", filters, "ZCDPFilter", loosened_admission, ZCDPFilter, 0.5,
             "admission sees 0.5 x the charged rho",
             lambda m: _zcdp_margin(m(2, delta=FULL_DELTA))),
    Mutation("EXT-ST22", filters, "GDPFilter", loosened_admission, GDPFilter, 0.95,
             "admission sees 0.95 x the sum of mu_i^2",
             lambda m: _gdp_margin(m(Fraction(3, 2)))),
    Mutation("H23-Thm4.6", filters, "RDPFilter", loosened_admission, RDPFilter, 0.66,
             "admission sees 0.66 x the RDP epsilon at alpha = 4",
             lambda m: _rdp_margin(m(4, 1))),
    Mutation("EXT-Lecuyer21", filters, "RDPCurveFilter", loosened_orders, RDPCurveFilter,
             FACTOR_LECUYER, f"admission sees {FACTOR_LECUYER} x the sum at every order",
             lambda m: _curve_margin(m(filters._CURVE_BUDGET))),
    Mutation("CS2080-PureDPFilter", filters, "PureDPFilter", loosened_admission, PureDPFilter,
             0.8, "admission sees 0.8 x the epsilon spent", lambda m: _pure_margin(m(1))),
    Mutation("RRUV16-BasicFilter", filters, "BasicFilter", loosened_admission, BasicFilter,
             FACTOR_BASIC, f"admission sees {FACTOR_BASIC} x the epsilon spent",
             lambda m: _basic_margin(m(2, delta=FULL_DELTA))),
    Mutation("H23-ThmB.3", filters, "W23Filter", loosened_admission, W23Filter, FACTOR_W23,
             f"admission sees {FACTOR_W23} x the sum of epsilon_m^2",
             lambda m: _lattice_margin(m(2, delta=FULL_DELTA), (0.1,), 60)),
    Mutation("RRUV16-Filter", filters, "RRUV16Filter", loosened_admission, RRUV16Filter,
             FACTOR_RRUV16, f"admission sees {FACTOR_RRUV16} x the sum of epsilon_m^2",
             lambda m: _lattice_margin(m(2, delta=FULL_DELTA), (0.1,), 60)),
    Mutation("H23-Thm3.8", filters, "AccumulatorFilter", loosened_admission,
             AccumulatorFilter, FACTOR_ACC38,
             f"I(G <= budget) sees {FACTOR_ACC38} x the (epsilon, delta) accumulator's "
             "primary sum",
             lambda m: _lattice_margin(m(ApproxDPAccumulator(delta=FULL_DELTA),
                                         ApproxDP(2, FULL_DELTA)), (0.1,), 60)),
    Mutation("H23-Thm4.9", filters, "AccumulatorFilter", loosened_admission,
             AccumulatorFilter, 0.66, "I(G <= budget) sees 0.66 x the RDP accumulator's sum",
             lambda m: _rdp_margin(m(RDPAccumulator(4), RDP(4, 1)))),
    Mutation("H23-Thm4.11", filters, "AccumulatorFilter", loosened_admission,
             AccumulatorFilter, 0.79, "I(G <= budget) sees 0.79 x the zCDP accumulator's rho",
             lambda m: _zcdp_acc_margin(m(ZCDPAccumulator(), ZCDP(Fraction(1, 2))))),
    Mutation("EXT-GDPAccumulator", filters, "AccumulatorFilter", loosened_admission,
             AccumulatorFilter, 0.95, "I(G <= budget) sees 0.95 x the sum of mu_i^2",
             lambda m: _gdp_margin(m(GDPAccumulator(), GDP(Fraction(3, 2))))),
    Mutation("R23-Lem5.2", expost, "ExPostFilter", loosened_lookahead, ExPostFilter, 0.75,
             "look-ahead sees 0.75 x the top level's epsilon", lambda m: _expost_margin(m(3))),
    Mutation("R23-Thm3", expost, "ExPostFilter", loosened_lookahead, ExPostFilter,
             FACTOR_THM3, f"the ex-post ledger's look-ahead sees {FACTOR_THM3} x the top "
             "level's epsilon", lambda m: _thm3_margin(m(THM3_EPSILON))),
    Mutation("W23-StitchedOdometer-Corrected", odometers, "W23StitchedOdometer",
             lowered_boundary, W23StitchedOdometer, FACTOR_STITCHED,
             f"reading's boundary term x {FACTOR_STITCHED}",
             lambda m: _odometer_margin(m(delta=FULL_DELTA), "stitched")),
    Mutation("W23-MixtureOdometer-Corrected", odometers, "W23MixtureOdometer",
             lowered_boundary, W23MixtureOdometer, FACTOR_MIXTURE,
             f"reading's boundary term x {FACTOR_MIXTURE}",
             lambda m: _odometer_margin(m(delta=FULL_DELTA, rho=odometers.MIXTURE_RHO),
                                        "mixture, rho = 1")),
    Mutation("RRUV16-Odometer", rruv16, "RRUV16Odometer", lowered_boundary, RRUV16Odometer,
             FACTOR_RRUV16_ODOMETER, f"reading's boundary term x {FACTOR_RRUV16_ODOMETER}",
             lambda m: _odometer_margin(m(delta=FULL_DELTA, n=10), "n = 10")),
    Mutation("H23-Thm4.10", interactive, "ZCDPSumFilter", loosened_admission, ZCDPSumFilter,
             FACTOR_CONCURRENT, f"launch admission sees {FACTOR_CONCURRENT} x the declared "
             "rho of the children", lambda m: _concurrent_zcdp_margin(m(interactive._RHO))),
    Mutation("H23-Thm4.11", interactive, "AccumulatorFilter", loosened_admission,
             AccumulatorFilter, FACTOR_CONCURRENT,
             f"I(G <= rho) at launch sees {FACTOR_CONCURRENT} x the zCDP accumulator's rho",
             lambda m: _concurrent_zcdp_margin(m(ZCDPAccumulator(), ZCDP(interactive._RHO))),
             "concurrent"),
    Mutation("H23-Cor3.5", interactive, "W23Filter", loosened_admission, W23Filter, FACTOR_W23,
             f"launch admission sees {FACTOR_W23} x the sum of eps_c^2",
             lambda m: _lattice_margin(m(2, delta=FULL_DELTA), (interactive.EXACT.epsilon,),
                                       interactive.EXACT.launches)),
)

KNOWN_MISSES: dict[str, str] = {}
"""Rules whose mutant the full profile is expected to miss, with the reason; the sweep
fails if one of them is caught (the list stays honest) or any other rule is missed."""

NOT_ADAPTIVE = (
    "CS2080-BasicComp and CS2080-AdvComp (compositions fixed in advance, not adaptive rules)"
)


SLOW_MARGINS = {m.rule for m in MUTATIONS if m.module in (odometers, rruv16)}
"""Margins from 10^4 certified odometer readings (seconds each): checked under -m slow."""


@pytest.mark.parametrize("m", [
    pytest.param(m, id=m.rule, marks=[pytest.mark.slow] if m.rule in SLOW_MARGINS else [])
    for m in MUTATIONS])
def test_mutation_margin(m: Mutation) -> None:
    """Every mutant is invalid by 25-50% at its rule's full scenario."""
    worst, claimed, _ = m.margin(m.make(m.base, m.factor))
    assert 1.25 <= worst / claimed <= 1.5, (m.rule, worst / claimed)


def test_mutations_cover_each_rule_once() -> None:
    rules = [m.rule for m in MUTATIONS]
    assert len(set(rules)) == len(rules)
    assert set(KNOWN_MISSES) <= set(rules)
    for m in MUTATIONS:
        assert _claims_of(m.spec_id, m.module), m.rule


def _detects(result: runner.TestResult) -> float | None:
    if result.quantity is Quantity.MAX_LOSS:
        return None
    return detectable_ratio(result.quantity, result.claimed, result.samples)


def _markdown(rows: list[dict[str, Any]]) -> str:
    lines = [
        "# Harness mutation (issue 16)", "",
        "Every adaptive rule gets a mutant whose decision is loosened (or, for an odometer, "
        "whose reading is lowered) by a factor, invalid by a computed margin (the mutant's "
        "worst case over the stated strategies, over the claimed delta, at the rule's full "
        "scenario); the rule's registered claims run on it in the full profile and the "
        "mutant is caught iff one is violated. Each claim shows its estimate over its "
        "claimed value and the smallest ratio its sample size detects with probability "
        "0.95 (estimators.detectable_ratio; max-loss claims flag any sample above epsilon). "
        "A rule may be missed only if it is a known miss, with the reason given below.", "",
        "A rule's claims run in the order boundary-probe, exact-worst, constant, "
        "fine-hugging, then the rest, and stop at the first violated one (the others are "
        "shown as not run).", "",
        "Command: `PYTHONPATH=src python -m pytest -m slow -p no:cacheprovider "
        "tests/verify/test_harness_mutation.py -k sweep` (one test per rule; "
        "`-k \"sweep and <rule>\"` reruns some); seed 0; each run replaces its rules' rows "
        "and keeps the others, so each row names the commit and the date (UTC) that "
        f"produced it; one core shared with other jobs; {len(rows)} of {len(MUTATIONS)} "
        f"rules swept; the rows' times sum to {sum(r['seconds'] for r in rows):.0f} s.", "",
        "| rule | mutant | worst / claimed | how computed | verdicts (full) | caught | s "
        "| commit, date |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        verdicts = "; ".join(
            f"{c.split('/')[1]}: {v['verdict']}" + ("" if "estimate" not in v else (
                f" (est/claimed {v['estimate'] / v['claimed']:.3g}"
                + ("" if v["detectable"] is None else f", detects {v['detectable']:.3g}")
                + ")")) for c, v in r["claims"].items())
        caught = "yes" if r["caught"] else ("no (known miss)" if r["known_miss"] else "no")
        lines.append(f"| {r['rule']} | {r['mutant']} | {r['ratio']:.3f} | {r['how']} | "
                     f"{verdicts} | {caught} | {r['seconds']:.1f} | {r['commit']}, "
                     f"{r['date']} |")
    lines += ["", "Known misses:", ""]
    lines += [f"- {rule}: {reason}." for rule, reason in KNOWN_MISSES.items()] or ["- none."]
    lines += ["", f"Not swept: {NOT_ADAPTIVE}.", ""]
    return "\n".join(lines)


FIRST = ("boundary-probe", "exact-worst", "constant", "fine-hugging")
"""Scenarios run first: the sweep stops at a rule's first violated claim (the rest are
reported as not run), and these are the likeliest to catch a mutant."""


def _ordered(claim_ids: list[str]) -> list[str]:
    rank = {scenario: i for i, scenario in enumerate(FIRST)}
    return sorted(claim_ids, key=lambda cid: rank.get(cid.split("/", 1)[1], len(FIRST)))


def _sweep_rule(m: Mutation, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, text=True,
                          capture_output=True, check=False).stdout.strip()  # at the start
    mutant = m.make(m.base, m.factor)
    worst, claimed, how = m.margin(mutant)
    t0 = time.perf_counter()
    claims: dict[str, Any] = {}
    with monkeypatch.context() as patch:
        patch.setattr(m.module, m.name, mutant)
        for cid in _ordered(_claims_of(m.spec_id, m.module)):
            if any(v.get("verdict") == Verdict.VIOLATED.value for v in claims.values()):
                claims[cid] = {"verdict": "not run (caught already)"}
                continue
            r = _run([cid], "full")[cid]
            claims[cid] = {"verdict": r.verdict.value, "estimate": r.estimate,
                           "lower": r.lower, "claimed": r.claimed, "samples": r.samples,
                           "detectable": _detects(r), "exact_worst": r.exact_worst,
                           "error": r.error}
    return {"rule": m.rule, "mutant": m.defect, "factor": m.factor, "worst": worst,
            "claimed": claimed, "ratio": worst / claimed, "how": how, "claims": claims,
            "caught": any(v["verdict"] == Verdict.VIOLATED.value for v in claims.values()),
            "known_miss": m.rule in KNOWN_MISSES, "seconds": time.perf_counter() - t0,
            "commit": head, "date": time.strftime("%Y-%m-%d %H:%M", time.gmtime())}


def _merge(row: dict[str, Any]) -> None:
    """Put ``row`` into ``docs/results/harness-mutation.{json,md}`` in place of the row of
    its rule, keeping the other rules' rows (with their commit and date), in the order of
    :data:`MUTATIONS`; a row of a rule no longer swept is dropped. Under an exclusive
    lock on the directory (two workers of one run may finish rules together)."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / "harness-mutation.json"
    lock = os.open(RESULTS, os.O_RDONLY)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)
        old = json.loads(path.read_text())["rules"] if path.exists() else []
        by_rule = {r["rule"]: r for r in old} | {row["rule"]: row}
        rows = [by_rule[m.rule] for m in MUTATIONS if m.rule in by_rule]
        path.write_text(json.dumps(
            {"seed": 0, "profile": "full", "rules_swept": len(rows), "rules": rows,
             "known_misses": KNOWN_MISSES, "not_swept": NOT_ADAPTIVE}, indent=1) + "\n")
        (RESULTS / "harness-mutation.md").write_text(_markdown(rows))
    finally:
        os.close(lock)  # releases the lock


@pytest.mark.slow
@pytest.mark.parametrize("m", [pytest.param(m, id=m.rule) for m in MUTATIONS])
def test_every_rule_sweep(monkeypatch: pytest.MonkeyPatch, m: Mutation) -> None:
    """The rule's mutant, invalid by 25-50%, is caught by one of its claims under --full
    (or missed, if it is a known miss); its row is merged into the results files."""
    row = _sweep_rule(m, monkeypatch)
    _merge(row)
    assert 1.25 <= row["ratio"] <= 1.5, (m.rule, row["ratio"])
    if m.rule in KNOWN_MISSES:
        assert not row["caught"], f"known miss caught (update KNOWN_MISSES): {m.rule}"
    else:
        assert row["caught"], f"mutant not caught by --full: {m.rule}"
