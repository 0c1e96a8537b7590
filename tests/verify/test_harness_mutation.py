"""Harness-mutation tests (issue 16; docs/design.md, verification: twins and adversaries).

A mutant is a copy of an adaptive rule (a subclass made here, patched into the claims
module for the duration of one test; src is not edited) whose decision is loosened by a
factor, so that it is invalid by a computed margin; the rule's registered claims are run
on it and at least one must be violated.

- ``test_loosened_precheck_caught``: the Brownian filters (R23-Lem6.2, R23-Thm6) with the
  pre-check (3)/(4) underestimating the BM's worst-case charge Delta^2/(2 t_min) by 25%.
  The budget-hugging and stop-at-worst claims take each grid's smallest time value from
  ``max_next`` and never exercise the pre-check; the ``boundary-probe`` claims (eps = 64)
  do, and are violated in the quick profile. The mutant's margin is computed: its loss is
  the drifted Brownian motion V/2 + W(V) up to the precision V = 2 rho*/0.75 it admits, and
  the first-passage formula gives P[sup L > eps] = 4.7 delta'' at eps = 64, delta'' = 0.05
  (and 3.0 delta'' at the fixed time V, without stopping early).
- ``test_every_rule_sweep`` (``-m slow``): for each covered rule, a mutant invalid by
  25-50% at its full scenario (margin computed below), its claims run in the full profile;
  writes ``docs/results/harness-mutation.{md,json}``. The exact-value unit tests of each
  rule stay the guard for formula defects too small to break validity.
"""

from __future__ import annotations

import json
import math
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from types import ModuleType
from typing import Any

import mpmath
import numpy as np
import pytest

from adaptive_dp.filters.basic import PureDPFilter
from adaptive_dp.filters.brownian import BrownianFilter, UnifiedFilter, fast_bm_spend
from adaptive_dp.filters.from_accumulator import AccumulatorFilter
from adaptive_dp.filters.gdp import GDPFilter
from adaptive_dp.filters.rdp import RDPFilter
from adaptive_dp.filters.zcdp import ZCDPFilter
from adaptive_dp.guarantees.definitions import GDP, RDP, ZCDP
from adaptive_dp.loss.gaussian import gaussian_hockey_stick
from adaptive_dp.numerics.floats import add_up, inflate_up
from adaptive_dp.odometers.accumulators import GDPAccumulator, RDPAccumulator, ZCDPAccumulator
from adaptive_dp.verify.judge import runner
from adaptive_dp.verify.judge.estimators import Quantity, lower_bound_if_observed
from adaptive_dp.verify.judge.verdicts import Verdict
from adaptive_dp.verify.registry import REGISTRY
from adaptive_dp.verify.registry.bounds import ZCDPComposition
from adaptive_dp.verify.registry.claims import expost, filters

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "docs" / "results"


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
    """P[sup_{V <= precision} V/2 + W(V) >= epsilon] (W a standard Brownian motion): the
    privacy loss of BM releases up to total precision sum 1/t, stopped at its first
    passage (Bachelier-Levy formula for a drifted Brownian motion, in mpmath)."""
    v, a = mpmath.mpf(precision), mpmath.mpf(epsilon)
    s = mpmath.sqrt(v)
    return float(mpmath.ncdf((v / 2 - a) / s) + mpmath.exp(a) * mpmath.ncdf((-a - v / 2) / s))


def _run(claim_ids: list[str], profile: str) -> dict[str, runner.TestResult]:
    return {cid: runner.evaluate(REGISTRY[cid].setup(profile), 0, cid, profile=profile)
            for cid in claim_ids}


def _claims_of(spec_id: str, module: ModuleType) -> list[str]:
    """The claims of ``spec_id`` built in ``module`` (where the mutant is patched in)."""
    return [cid for cid, claim in REGISTRY.items()
            if claim.spec_id == spec_id and claim.build.__module__ == module.__name__]


def _patch(monkeypatch: pytest.MonkeyPatch, module: ModuleType, name: str,
           mutant: type[Any]) -> None:
    monkeypatch.setattr(module, name, mutant)


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
    _patch(monkeypatch, expost, name, loosened_precheck(cls, 0.75))
    claim_id = f"{spec_id}/boundary-probe"
    result = _run([claim_id], "quick")[claim_id]
    assert result.verdict is Verdict.VIOLATED, result


# -- the every-rule sweep (-m slow) ------------------------------------------------------------


@dataclass(frozen=True)
class Mutation:
    """One rule's mutant: ``factor`` applied by ``make`` to the class ``name`` of
    ``module``; ``margin()`` gives (worst case of the mutant, claimed, how computed) at
    the rule's full scenario."""

    spec_id: str
    module: ModuleType
    name: str
    make: Callable[[type[Any], float], type[Any]]
    base: type[Any]
    factor: float
    defect: str
    margin: Callable[[type[Any]], tuple[float, float, str]]


def _largest_single(rule: Any, high: float) -> float:
    """The largest single primary request the rule's fast path admits (bisection)."""
    state, low = rule.fast(1), 0.0
    for _ in range(200):
        mid = (low + high) / 2
        low, high = (mid, high) if state.decide(mid)[0] else (low, mid)
    return low


def _brownian_margin(cls: type[Any], mutant: type[Any], factor: float) -> tuple[
        float, float, str]:
    delta = 1e-3
    rho_star = cls(64, delta=delta).start().max_next() or 0.0
    t_adm = 1 / (2 * rho_star)
    ok, _ = fast_bm_spend(mutant(64, delta=delta).fast(2), 1.0,
                          [factor * t_adm * 1.0001, factor * t_adm * 0.9999], [t_adm, t_adm])
    assert ok.tolist() == [True, False]  # the mutant admits grids down to factor t_adm
    worst = first_passage(2 * rho_star / factor, 64)
    return worst, delta, (f"first passage of V/2 + W(V) over eps = 64 up to the admitted "
                          f"precision 2 rho*/{factor} (rho* = {rho_star:.4g}), delta'' = 1e-3")


def _gaussian_margin(mutant: Any, high: float, mu_of: Callable[[float], float],
                     epsilon: float, claimed: float, what: str) -> tuple[float, float, str]:
    largest = _largest_single(mutant, high)
    mu = mu_of(largest)
    worst = gaussian_hockey_stick(mu, epsilon)
    return worst, claimed, (f"one Gaussian request at the largest admitted {what} "
                            f"({largest:.5g}, mu = {mu:.5g}): its exact hockey-stick at "
                            f"eps = {epsilon:.4g} (a lower bound of the mutant's worst case)")


def _zcdp_margin(mutant: Any) -> tuple[float, float, str]:
    return _gaussian_margin(mutant, 10.0, lambda rho: math.sqrt(2 * rho), 2.0, 1e-3, "rho")


def _zcdp_acc_margin(mutant: Any) -> tuple[float, float, str]:
    eps, claimed = ZCDPComposition((Fraction(1, 2),), Fraction(1, 1000)).claimed()
    return _gaussian_margin(mutant, 10.0, lambda rho: math.sqrt(2 * rho), eps, claimed, "rho")


def _gdp_margin(mutant: Any) -> tuple[float, float, str]:
    eps = 21 / 4
    return _gaussian_margin(mutant, 10.0, lambda mu: mu, eps, gaussian_hockey_stick(1.5, eps),
                            "mu")


def _rdp_margin(mutant: Any) -> tuple[float, float, str]:
    eps, claimed = filters._rdp_claimed(Fraction(1, 1000))
    return _gaussian_margin(mutant, 10.0, lambda r: math.sqrt(r / 2), eps, claimed,
                            "RDP epsilon at alpha = 4")


def _pure_margin(mutant: Any) -> tuple[float, float, str]:
    largest = _largest_single(mutant, 10.0)
    return largest, 1.0, (f"one randomized-response request at the largest admitted epsilon "
                          f"({largest:.5g}): its loss is that epsilon with probability "
                          f"e^eps/(1+e^eps) (exact max loss, against the claimed 1)")


def _acc(make: Callable[[], tuple[Any, Any]]) -> Callable[[type[Any]], Any]:
    return lambda cls: cls(*make())


MUTATIONS = (
    Mutation("R23-Lem6.2", expost, "BrownianFilter", loosened_precheck, BrownianFilter, 0.9,
             "pre-check (3) sees 0.9 x the BM's worst-case charge",
             lambda m: _brownian_margin(BrownianFilter, m, 0.9)),
    Mutation("R23-Thm6", expost, "UnifiedFilter", loosened_precheck, UnifiedFilter, 0.9,
             "pre-check (4) sees 0.9 x the BM's worst-case charge",
             lambda m: _brownian_margin(UnifiedFilter, m, 0.9)),
    Mutation("R23-Thm2", filters, "ZCDPFilter", loosened_admission, ZCDPFilter, 0.5,
             "admission sees 0.5 x the charged rho",
             lambda m: _zcdp_margin(m(2, delta=Fraction(1, 1000)))),
    Mutation("EXT-ST22", filters, "GDPFilter", loosened_admission, GDPFilter, 0.95,
             "admission sees 0.95 x the sum of mu_i^2",
             lambda m: _gdp_margin(m(Fraction(3, 2)))),
    Mutation("H23-Thm4.6", filters, "RDPFilter", loosened_admission, RDPFilter, 0.66,
             "admission sees 0.66 x the RDP epsilon at alpha = 4",
             lambda m: _rdp_margin(m(4, 1))),
    Mutation("CS2080-PureDPFilter", filters, "PureDPFilter", loosened_admission, PureDPFilter,
             0.8, "admission sees 0.8 x the epsilon spent", lambda m: _pure_margin(m(1))),
    Mutation("H23-Thm4.9", filters, "AccumulatorFilter", loosened_admission,
             AccumulatorFilter, 0.66, "I(G <= budget) sees 0.66 x the RDP accumulator's sum",
             lambda m: _rdp_margin(m(RDPAccumulator(4), RDP(4, 1)))),
    Mutation("H23-Thm4.11", filters, "AccumulatorFilter", loosened_admission,
             AccumulatorFilter, 0.79, "I(G <= budget) sees 0.79 x the zCDP accumulator's rho",
             lambda m: _zcdp_acc_margin(m(ZCDPAccumulator(), ZCDP(Fraction(1, 2))))),
    Mutation("EXT-GDPAccumulator", filters, "AccumulatorFilter", loosened_admission,
             AccumulatorFilter, 0.95, "I(G <= budget) sees 0.95 x the sum of mu_i^2",
             lambda m: _gdp_margin(m(GDPAccumulator(), GDP(Fraction(3, 2))))),
)

NOT_COVERED = (
    "RRUV16-BasicFilter, H23-ThmB.3 (W23), RRUV16-Filter, H23-Thm3.8 and R23-Thm3 (their "
    "margins need the exact worst case of randomized-response compositions: the dynamic "
    "programme of Setup.exact_worst)",
    "EXT-Lecuyer21 (a sum per order: the mutant needs one factor per order)",
    "R23-Lem5.2 (ex-post filter of Laplace noise reductions)",
    "CS2080-BasicComp and CS2080-AdvComp (compositions fixed in advance, not adaptive rules)",
    "the odometers (RRUV16-Odometer and the rules of claims/odometers.py)",
    "H23-Thm4.11/budget-hugging (built in claims/concurrent.py: runs on the valid rule)",
)


def test_mutation_margins() -> None:
    """Every mutant is invalid by 25-50% at its rule's full scenario."""
    for m in MUTATIONS:
        worst, claimed, _ = m.margin(m.make(m.base, m.factor))
        assert 1.25 <= worst / claimed <= 1.5, (m.spec_id, worst / claimed)


def detectable_ratio(quantity: Quantity, claimed: float, samples: int) -> float | None:
    """The smallest r such that an observed r x claimed would be flagged at this sample
    size (None for max-loss claims, flagged by a single sample above epsilon)."""
    if quantity is Quantity.MAX_LOSS:
        return None
    low, high = 1.0, 1.0 / claimed
    for _ in range(60):
        mid = (low + high) / 2
        low, high = ((low, mid) if lower_bound_if_observed(quantity, mid * claimed, samples)
                     > claimed else (mid, high))
    return high


def _markdown(rows: list[dict[str, Any]], head: str, seconds: float) -> str:
    lines = [
        "# Harness mutation (issue 16)", "",
        "Each covered adaptive rule gets a mutant whose decision is loosened by a factor, "
        "invalid by a computed margin (its worst case over the margin's strategy, over the "
        "claimed delta, at the rule's full scenario); the rule's registered claims run on "
        "it in the full profile and the mutant is caught iff one is violated. Each claim "
        "shows its estimate over its claimed value and the smallest ratio its sample size "
        "detects (an observed value of that many times the claim is flagged).", "",
        "Command: `PYTHONPATH=src python -m pytest -m slow -p no:cacheprovider "
        f"tests/verify/test_harness_mutation.py -k sweep`; seed 0; commit {head}; "
        f"total {seconds:.0f} s on one core.", "",
        "| rule | mutant | worst / claimed | how computed | verdicts (full) | caught | s |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        verdicts = "; ".join(
            f"{c.split('/')[1]}: {v['verdict']} (est/claimed {v['estimate'] / v['claimed']:.3g}"
            + ("" if v["detectable"] is None else f", detects {v['detectable']:.3g}")
            + ")" for c, v in r["claims"].items())
        lines.append(f"| {r['rule']} | {r['mutant']} | {r['ratio']:.3f} | {r['how']} | "
                     f"{verdicts} | {'yes' if r['caught'] else 'no'} | {r['seconds']:.1f} |")
    lines += ["", "Not covered by this sweep: " + ", ".join(NOT_COVERED) + ".", ""]
    return "\n".join(lines)


@pytest.mark.slow
def test_every_rule_sweep(monkeypatch: pytest.MonkeyPatch) -> None:
    rows: list[dict[str, Any]] = []
    start = time.perf_counter()
    for m in MUTATIONS:
        mutant = m.make(m.base, m.factor)
        worst, claimed, how = m.margin(mutant)
        t0 = time.perf_counter()
        with monkeypatch.context() as patch:
            _patch(patch, m.module, m.name, mutant)
            results = _run(_claims_of(m.spec_id, m.module), "full")
        rows.append({
            "rule": m.spec_id, "mutant": m.defect, "factor": m.factor, "worst": worst,
            "claimed": claimed, "ratio": worst / claimed, "how": how,
            "claims": {cid: {"verdict": r.verdict.value, "estimate": r.estimate,
                             "lower": r.lower, "claimed": r.claimed, "samples": r.samples,
                             "detectable": detectable_ratio(r.quantity, r.claimed, r.samples),
                             "error": r.error} for cid, r in results.items()},
            "caught": any(r.verdict is Verdict.VIOLATED for r in results.values()),
            "seconds": time.perf_counter() - t0,
        })
    seconds = time.perf_counter() - start
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, text=True,
                          capture_output=True, check=False).stdout.strip()
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "harness-mutation.json").write_text(json.dumps(
        {"commit": head, "seed": 0, "profile": "full", "seconds": seconds, "rules": rows,
         "not_covered": list(NOT_COVERED)}, indent=1) + "\n")
    (RESULTS / "harness-mutation.md").write_text(_markdown(rows, head, seconds))
    missed = [r["rule"] for r in rows if not r["caught"]]
    assert not missed, f"mutants not caught by --full: {missed}"
