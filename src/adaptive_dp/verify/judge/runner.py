"""Run registered claims and their twins: profiles, seeding, batches and sharding.

``run_claim(claim, profile, seed)`` builds the claim's :class:`Setup` for the profile,
draws its samples in both orders of the neighbouring pair (those the setup names),
estimates the quantity with error control and judges it under the profile's power
target; then the same for each twin (built, sized and judged as under "quick": twins
keep the quick scenario). Each result carries its detectable ratio (or, for max-loss
claims, its detectable exceedance probability) and the setup's exact worst case.

Samples are drawn in **batches** of at most :data:`BATCH` paths: batch ``b`` of an order
draws with ``numpy.random.default_rng`` seeded by a ``SeedSequence`` of the seed, CRC-32s
of the keys (claim id, twin name, order) and ``b`` (:func:`batch_rng`), so a batch gives
the same samples whichever process runs it, in whatever order, beside whichever other
claims. The estimators see the batches concatenated in batch order, so the result depends
on the seed and :data:`BATCH` only, never on the number of workers.

``run_claims`` runs a list of claims in this process (``workers=1``) or shards their
batches over processes (:func:`adaptive_dp.verify.judge.distributed.completed`: a local
Dask cluster, an existing one at ``scheduler``, or a process pool); results come back in
registry order, bit for bit the same as in one process (timings aside).
"""

from __future__ import annotations

import time
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from adaptive_dp.verify.judge.claim import Claim, Setup
from adaptive_dp.verify.judge.distributed import Pool, completed
from adaptive_dp.verify.judge.estimators import (
    Estimate,
    Quantity,
    detectable_exceedance,
    detectable_ratio,
    estimate_crossing,
    estimate_hockey_stick,
    estimate_max_loss,
    estimate_tail,
    estimate_truncated_mean,
)
from adaptive_dp.verify.judge.verdicts import Verdict, judge, worst

__all__ = [
    "BATCH",
    "CHUNK",
    "Batch",
    "BatchOutput",
    "ClaimResult",
    "TestResult",
    "TwinResult",
    "batch_rng",
    "evaluate",
    "rng_for",
    "run_batch",
    "run_claim",
    "run_claims",
    "select",
]

BATCH = 10_000
"""Paths per batch: the unit of seeding and of sharding (changing it changes results)."""

CHUNK = BATCH
"""The former name of :data:`BATCH`."""


@dataclass(frozen=True, slots=True)
class TestResult:
    """One setup's outcome: the estimate of the decisive order and the verdict.

    ``detectable_ratio``: the smallest r such that a true value r x claimed is flagged
    with probability 0.95 at ``samples`` (None for max-loss claims, which report
    ``detectable_exceedance``, the smallest probability of a loss above epsilon seen
    with probability 0.95, and their ``delta_min``); ``exact_worst``: the setup's.
    """

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
    detectable_ratio: float | None = None
    detectable_exceedance: float | None = None
    delta_min: float | None = None
    exact_worst: float | None = None


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


def _words(seed: int, keys: Iterable[str]) -> list[int]:
    return [seed & 0xFFFFFFFF, seed >> 32] + [zlib.crc32(k.encode()) for k in keys]


def rng_for(seed: int, *keys: str) -> np.random.Generator:
    """The generator of ``(seed, keys...)``: independent of other claims and of order."""
    return np.random.default_rng(np.random.SeedSequence(_words(seed, keys)))


def batch_rng(seed: int, keys: Sequence[str], index: int) -> np.random.Generator:
    """The generator of batch ``index`` of ``(seed, keys...)`` (keys end with the order)."""
    return np.random.default_rng(np.random.SeedSequence([*_words(seed, keys), index]))


def _sizes(samples: int) -> list[int]:
    """The batch sizes of ``samples`` paths: :data:`BATCH` each, the last one the rest."""
    return [min(BATCH, samples - start) for start in range(0, samples, BATCH)]


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


def _failed(quantity: Quantity, error: Exception | str) -> TestResult:
    nan = float("nan")
    text = error if isinstance(error, str) else f"{type(error).__name__}: {error}"
    return TestResult(quantity, 0, "-", nan, nan, nan, nan, nan, Verdict.ERROR, "", text)


@dataclass(frozen=True, slots=True)
class BatchOutput:
    """What a batch returns: its samples, or the error it raised; and its run time."""

    samples: np.ndarray[Any, Any] | None
    error: str | None
    seconds: float


def _draw(setup: Setup, seed: int, keys: Sequence[str], index: int, size: int) -> BatchOutput:
    start = time.perf_counter()
    try:
        rng = batch_rng(seed, keys, index)
        samples = np.asarray(setup.experiment(size, rng, keys[-1]))
    except Exception as error:  # reported as an ERROR verdict, never a silent pass
        return BatchOutput(None, f"{type(error).__name__}: {error}", time.perf_counter() - start)
    return BatchOutput(samples, None, time.perf_counter() - start)


def _reduce(setup: Setup, orders: Sequence[Sequence[BatchOutput]], profile: str) -> TestResult:
    """Concatenate each order's batches in batch order, estimate, judge under
    ``profile``; the worst order.

    The first error (in order and batch order) makes the result an ERROR."""
    rows: list[tuple[Verdict, float, str, Estimate]] = []
    for under, outputs in zip(setup.orders, orders, strict=True):
        for out in outputs:
            if out.error is not None:
                return _failed(setup.quantity, out.error)
        try:
            samples = np.concatenate([out.samples for out in outputs if out.samples is not None])
            estimate = _estimate(setup, samples)
        except Exception as error:
            return _failed(setup.quantity, error)
        verdict = judge(estimate, setup.claimed, setup.delta_min, profile)
        rows.append((verdict, estimate.lower, under, estimate))
    verdict = worst(*(r[0] for r in rows))
    decisive = max((r for r in rows if r[0] is verdict), key=lambda r: r[1])
    _, _, under, est = decisive
    order = "(x, x')" if under == "x" else "(x', x)"
    max_loss = setup.quantity is Quantity.MAX_LOSS
    return TestResult(
        setup.quantity, est.samples, order, est.estimate, est.lower, est.upper, setup.epsilon,
        setup.claimed, verdict, setup.note,
        detectable_ratio=None if max_loss else detectable_ratio(
            setup.quantity, setup.claimed, est.samples, setup.scale),
        detectable_exceedance=detectable_exceedance(est.samples) if max_loss else None,
        delta_min=setup.delta_min, exact_worst=setup.exact_worst)


def evaluate(setup: Setup, seed: int, *keys: str, profile: str = "quick") -> TestResult:
    """Draw (batch by batch), estimate and judge (under ``profile``) one setup in every
    order it names; report the worst."""
    return _reduce(setup, [[_draw(setup, seed, (*keys, under), b, size)
                            for b, size in enumerate(_sizes(setup.samples))]
                           for under in setup.orders], profile)


def _keys(claim: Claim, twin: int | None) -> tuple[str, ...]:
    return (claim.id,) if twin is None else (claim.id, "twin", claim.twins[twin].name)


def _judged_as(twin: bool, profile: str) -> str:
    """The profile a setup is sized and judged for: a twin's is always the quick one."""
    return "quick" if twin else profile


def _build(claim: Claim, twin: int | None, profile: str) -> Setup:
    return (claim if twin is None else claim.twins[twin]).setup(profile)


def run_claim(claim: Claim, profile: str = "quick", seed: int = 0) -> ClaimResult:
    """Run one claim and its twins in this process (an exception becomes an ERROR verdict)."""
    start = time.perf_counter()
    tests: list[TestResult] = []
    for twin in [None, *range(len(claim.twins))]:
        try:
            setup = _build(claim, twin, profile)
        except Exception as error:
            tests.append(_failed(claim.quantity, error))
            continue
        tests.append(evaluate(setup, seed, *_keys(claim, twin),
                              profile=_judged_as(twin is not None, profile)))
    return _claim_result(claim, tests, time.perf_counter() - start)


def _claim_result(claim: Claim, tests: Sequence[TestResult], seconds: float) -> ClaimResult:
    twins = tuple(TwinResult(t.name, t.spec_id, t.defect, r)
                  for t, r in zip(claim.twins, tests[1:], strict=True))
    return ClaimResult(claim.id, claim.spec_id, claim.scenario, tests[0], twins, seconds)


Registry = Callable[[], Mapping[str, Claim]]
"""A registry, as a module-level function returning the claims by id (so that worker
processes can be handed it, and import it; the judge never imports a registry)."""


@dataclass(frozen=True, slots=True)
class Batch:
    """One batch of one order of a claim (``twin=None``) or of its twin number ``twin``:
    all a worker needs."""

    registry: Registry
    claim_id: str
    twin: int | None
    profile: str
    seed: int
    under: str
    index: int
    size: int


@lru_cache(maxsize=64)
def _setup(registry: Registry, claim_id: str, twin: int | None, profile: str) -> Setup:
    return _build(registry()[claim_id], twin, profile)


def run_batch(batch: Batch) -> BatchOutput:
    """Draw one batch (in any process: the setup is rebuilt from the registry, cached)."""
    claim = batch.registry()[batch.claim_id]
    start = time.perf_counter()
    try:
        setup = _setup(batch.registry, batch.claim_id, batch.twin, batch.profile)
    except Exception as error:  # the planner saw it build; report, never a silent pass
        return BatchOutput(None, f"{type(error).__name__}: {error}", time.perf_counter() - start)
    out = _draw(setup, batch.seed, (*_keys(claim, batch.twin), batch.under), batch.index,
                batch.size)
    return BatchOutput(out.samples, out.error, time.perf_counter() - start)


@dataclass(slots=True)
class _Plan:
    """One claim's setups (or build failures) and the slots its batches fill."""

    claim: Claim
    profile: str
    setups: list[Setup | TestResult]
    outputs: list[list[list[BatchOutput | None]]]
    missing: int
    seconds: float


def _plan(registry: Registry, claim_id: str, profile: str, seed: int,
          batches: list[tuple[int, int, int, int]], tasks: list[Batch], number: int) -> _Plan:
    claim = registry()[claim_id]
    start = time.perf_counter()
    plan = _Plan(claim, profile, [], [], 0, 0.0)
    for s, twin in enumerate([None, *range(len(claim.twins))]):
        try:
            setup: Setup | TestResult = _build(claim, twin, profile)
        except Exception as error:
            setup = _failed(claim.quantity, error)
        plan.setups.append(setup)
        slots: list[list[BatchOutput | None]] = []
        if isinstance(setup, Setup):
            sizes = _sizes(setup.samples)
            for o, under in enumerate(setup.orders):
                slots.append([None] * len(sizes))
                for b, size in enumerate(sizes):
                    tasks.append(Batch(registry, claim_id, twin, profile, seed, under, b, size))
                    batches.append((number, s, o, b))
                    plan.missing += 1
        plan.outputs.append(slots)
    plan.seconds = time.perf_counter() - start
    return plan


def _finish(plan: _Plan) -> ClaimResult:
    tests = [s if isinstance(s, TestResult)
             else _reduce(s, [[out for out in order if out is not None] for order in slots],
                          _judged_as(number > 0, plan.profile))
             for number, (s, slots) in enumerate(zip(plan.setups, plan.outputs, strict=True))]
    return _claim_result(plan.claim, tests, plan.seconds)


def run_claims(
    registry: Registry,
    claim_ids: Sequence[str],
    profile: str = "quick",
    seed: int = 0,
    workers: int = 1,
    progress: Callable[[ClaimResult], None] | None = None,
    scheduler: str | None = None,
    pool: Pool = "auto",
) -> list[ClaimResult]:
    """Run the given claims of ``registry``: their batches in this process
    (``workers=1``), on ``workers`` local processes (a Dask ``LocalCluster`` when
    ``dask.distributed`` is importable, else a process pool; ``pool`` forces one) or on
    the Dask cluster at ``scheduler``. ``progress`` sees each claim as it completes;
    ``seconds`` is a claim's build time plus its batches' run times."""
    tasks: list[Batch] = []
    where: list[tuple[int, int, int, int]] = []
    plans = [_plan(registry, cid, profile, seed, where, tasks, n)
             for n, cid in enumerate(claim_ids)]
    results: dict[int, ClaimResult] = {}

    def done(number: int) -> None:
        results[number] = _finish(plans[number])
        if progress is not None:
            progress(results[number])

    for number, plan in enumerate(plans):
        if plan.missing == 0:
            done(number)
    outputs: Iterator[tuple[int, BatchOutput]] = completed(
        run_batch, tasks, workers=workers, scheduler=scheduler, pool=pool)
    for task, output in outputs:
        number, s, o, b = where[task]
        plan = plans[number]
        plan.outputs[s][o][b] = output
        plan.seconds += output.seconds
        plan.missing -= 1
        if plan.missing == 0:
            done(number)
    return [results[n] for n in range(len(claim_ids))]


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
