"""Run registered claims and their twins: profiles, seeding, chunking and sharding.

``run_claim(claim, profile, seed)`` builds the claim's :class:`Setup` for the profile,
draws its samples in both orders of the neighbouring pair (those the setup names),
estimates the quantity with error control and judges it; then the same for each twin.
Randomness is deterministic per ``(seed, claim id)`` (and per twin name and order):
``numpy.random.default_rng`` seeded with a ``SeedSequence`` of the seed and a CRC-32
of the id, so a claim's result does not depend on which other claims run, in what
order, or in which worker process. Samples are drawn in chunks of at most
:data:`CHUNK` paths to bound memory.

``run_claims`` runs a list of claims in this process or, with ``workers > 1``, shards
them across a ``concurrent.futures.ProcessPoolExecutor``; results come back in
registry order.
"""

from __future__ import annotations

import time
import zlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np

from adaptive_dp.verify.judge.claim import Claim, Setup
from adaptive_dp.verify.judge.estimators import (
    Estimate,
    Quantity,
    estimate_crossing,
    estimate_hockey_stick,
    estimate_max_loss,
    estimate_tail,
    estimate_truncated_mean,
)
from adaptive_dp.verify.judge.verdicts import Verdict, judge, worst

__all__ = [
    "CHUNK",
    "ClaimResult",
    "TestResult",
    "TwinResult",
    "evaluate",
    "rng_for",
    "run_claim",
    "run_claims",
    "select",
]

CHUNK = 50_000


@dataclass(frozen=True, slots=True)
class TestResult:
    """One setup's outcome: the estimate of the decisive order and the verdict."""

    quantity: Quantity
    samples: int
    order: str
    estimate: float
    lower: float
    upper: float
    epsilon: float
    claimed: float
    verdict: Verdict
    note: str
    error: str | None = None


@dataclass(frozen=True, slots=True)
class TwinResult:
    name: str
    spec_id: str | None
    defect: str
    result: TestResult

    @property
    def caught(self) -> bool:
        return self.result.verdict is Verdict.VIOLATED


@dataclass(frozen=True, slots=True)
class ClaimResult:
    claim_id: str
    spec_id: str
    scenario: str
    result: TestResult
    twins: tuple[TwinResult, ...]
    seconds: float

    @property
    def verdict(self) -> Verdict:
        return self.result.verdict


def rng_for(seed: int, *keys: str) -> np.random.Generator:
    """The generator of ``(seed, keys...)``: independent of other claims and of order."""
    words = [seed & 0xFFFFFFFF, seed >> 32] + [zlib.crc32(k.encode()) for k in keys]
    return np.random.default_rng(np.random.SeedSequence(words))


def _draw(setup: Setup, rng: np.random.Generator, under: str) -> np.ndarray[Any, Any]:
    parts = []
    left = setup.samples
    while left > 0:
        size = min(left, CHUNK)
        parts.append(np.asarray(setup.experiment(size, rng, under)))
        left -= size
    return np.concatenate(parts)


def _estimate(setup: Setup, samples: np.ndarray[Any, Any]) -> Estimate:
    q = setup.quantity
    if q is Quantity.TAIL:
        return estimate_tail(samples, setup.epsilon)
    if q is Quantity.HOCKEY_STICK:
        return estimate_hockey_stick(samples, setup.epsilon)
    if q is Quantity.MAX_LOSS:
        return estimate_max_loss(samples, setup.epsilon)
    if q is Quantity.CROSSING:
        return estimate_crossing(samples)
    return estimate_truncated_mean(samples, setup.scale)


def _failed(quantity: Quantity, error: Exception) -> TestResult:
    nan = float("nan")
    return TestResult(quantity, 0, "-", nan, nan, nan, nan, nan, Verdict.ERROR,
                      "", f"{type(error).__name__}: {error}")


def _safe(quantity: Quantity, build: Callable[[], Setup], seed: int, *keys: str) -> TestResult:
    try:
        return evaluate(build(), seed, *keys)
    except Exception as error:  # reported as an ERROR verdict, never a silent pass
        return _failed(quantity, error)


def evaluate(setup: Setup, seed: int, *keys: str) -> TestResult:
    """Draw, estimate and judge one setup in every order it names; report the worst."""
    rows: list[tuple[Verdict, float, str, Estimate]] = []
    for under in setup.orders:
        rng = rng_for(seed, *keys, under)
        estimate = _estimate(setup, _draw(setup, rng, under))
        verdict = judge(estimate, setup.claimed, setup.delta_min)
        rows.append((verdict, estimate.lower, under, estimate))
    verdict = worst(*(r[0] for r in rows))
    decisive = max((r for r in rows if r[0] is verdict), key=lambda r: r[1])
    _, _, under, est = decisive
    order = "(x, x')" if under == "x" else "(x', x)"
    return TestResult(setup.quantity, est.samples, order, est.estimate, est.lower, est.upper,
                      setup.epsilon, setup.claimed, verdict, setup.note)


def run_claim(claim: Claim, profile: str = "quick", seed: int = 0) -> ClaimResult:
    """Run one claim and its twins (an exception becomes an ERROR verdict)."""
    start = time.perf_counter()
    result = _safe(claim.quantity, partial(claim.build, profile), seed, claim.id)
    twins = tuple(
        TwinResult(t.name, t.spec_id, t.defect,
                   _safe(claim.quantity, partial(t.build, profile), seed, claim.id, "twin", t.name))
        for t in claim.twins
    )
    return ClaimResult(claim.id, claim.spec_id, claim.scenario, result, twins,
                       time.perf_counter() - start)


Registry = Callable[[], Mapping[str, Claim]]
"""A registry, as a module-level function returning the claims by id (so that worker
processes can be handed it; the judge never imports a registry)."""


def _run_by_id(registry: Registry, claim_id: str, profile: str, seed: int) -> ClaimResult:
    return run_claim(registry()[claim_id], profile, seed)


def run_claims(
    registry: Registry,
    claim_ids: Sequence[str],
    profile: str = "quick",
    seed: int = 0,
    workers: int = 1,
    progress: Callable[[ClaimResult], None] | None = None,
) -> list[ClaimResult]:
    """Run the given claims of ``registry``, sharded over ``workers`` processes."""
    results: dict[str, ClaimResult] = {}
    if workers <= 1 or len(claim_ids) <= 1:
        for claim_id in claim_ids:
            results[claim_id] = _run_by_id(registry, claim_id, profile, seed)
            if progress is not None:
                progress(results[claim_id])
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            futures = {
                pool.submit(_run_by_id, registry, cid, profile, seed): cid for cid in claim_ids
            }
            for future in as_completed(futures):
                result = future.result()
                results[futures[future]] = result
                if progress is not None:
                    progress(result)
    return [results[cid] for cid in claim_ids]


def _prefix(pattern: str, name: str) -> bool:
    """``pattern`` is ``name`` or a prefix of it ending at a ``-``, ``/`` or ``.``
    boundary: ``R23``, ``R23-Thm2`` and ``R23-Thm2/budget-hugging`` all select that claim."""
    return name == pattern or (name.startswith(pattern) and name[len(pattern)] in "-/.")


def select(registry: Mapping[str, Claim], only: Iterable[str] | None) -> list[str]:
    """Claim ids matching ``only`` (exact ids, spec ids or id prefixes), registry order."""
    ids = list(registry)
    if not only:
        return ids
    chosen: list[str] = []
    for pattern in only:
        hits = [i for i in ids if _prefix(pattern, i) or _prefix(pattern, registry[i].spec_id)]
        if not hits:
            raise KeyError(pattern)
        chosen.extend(h for h in hits if h not in chosen)
    order = {cid: n for n, cid in enumerate(ids)}
    return sorted(chosen, key=order.__getitem__)


