"""Verification sharded by path batches: the result does not depend on where batches run.

A few fast claims of the quick profile (some with several batches per order) run in this
process, on a process pool and on a Dask ``LocalCluster`` of two worker processes (one
cluster for the module, reached through ``scheduler`` and ``verify --scheduler``); the
results (and ``verify --json``, timings aside) must be equal bit for bit. ``verify
--workers 2`` starting its own cluster is tested in ``test_verify_cli``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from adaptive_dp.cli import main
from adaptive_dp.verify.judge.claim import Setup
from adaptive_dp.verify.judge.distributed import completed, dask_available, local_cluster
from adaptive_dp.verify.judge.estimators import Quantity
from adaptive_dp.verify.judge.runner import (
    BATCH,
    ClaimResult,
    batch_rng,
    evaluate,
    run_claim,
    run_claims,
)
from adaptive_dp.verify.judge.verdicts import Verdict
from adaptive_dp.verify.registry import REGISTRY, load

IDS = [
    "R23-Lem2.1/laplace",
    "R23-Lem2.4/stop-at-worst",  # its twin: 2 batches per order
    "AUD-ProfileUpper/substitution-eps1",  # its twin: 3 batches per order
    "EXT-GaussianRDP/gaussian",  # 14 batches per order
]

needs_dask = pytest.mark.skipif(not dask_available(),
                                reason="dask.distributed is not installed (the dask extra)")


def _bits(results: list[ClaimResult]) -> list[str]:
    """Everything but the timings, with floats as their exact hex form."""
    def test(r: Any) -> str:
        return repr([getattr(r, f).hex() if isinstance(getattr(r, f), float) else getattr(r, f)
                     for f in r.__slots__])
    return [repr((r.claim_id, test(r.result), [(t.name, test(t.result)) for t in r.twins]))
            for r in results]


@pytest.fixture(scope="module")
def serial() -> list[ClaimResult]:
    return run_claims(load, IDS, "quick", 3, workers=1)


def test_serial_run_matches_run_claim_and_holds(serial: list[ClaimResult]) -> None:
    assert _bits(serial) == _bits([run_claim(REGISTRY[i], "quick", 3) for i in IDS])
    assert max(t.result.samples for r in serial for t in r.twins) > 2 * BATCH
    for r in serial:
        assert r.verdict is Verdict.HOLDS and all(t.caught for t in r.twins)


def test_process_pool_is_bit_identical(serial: list[ClaimResult]) -> None:
    assert _bits(run_claims(load, IDS, "quick", 3, workers=2, pool="process")) == _bits(serial)


@pytest.fixture(scope="module")
def scheduler() -> Iterator[str]:
    """The address of a LocalCluster of two single-threaded worker processes."""
    with local_cluster(2) as cluster:
        yield str(cluster.scheduler_address)


@needs_dask
def test_local_cluster_is_bit_identical(serial: list[ClaimResult], scheduler: str) -> None:
    seen: list[str] = []
    results = run_claims(load, IDS, "quick", 3, scheduler=scheduler,
                         progress=lambda r: seen.append(r.claim_id))
    assert _bits(results) == _bits(serial)
    assert sorted(seen) == sorted(IDS)


def _json(capsys: pytest.CaptureFixture[str], *extra: str) -> dict[str, Any]:
    main(["verify", "--only", *IDS, "--json", "--seed", "5", *extra])
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    for claim in out["claims"]:
        claim.pop("seconds")
    return out


@needs_dask
def test_verify_json_same_on_the_cluster(capsys: pytest.CaptureFixture[str],
                                         scheduler: str) -> None:
    assert _json(capsys, "--scheduler", scheduler) == _json(capsys, "--workers", "1")


def test_verify_json_same_on_a_process_pool(capsys: pytest.CaptureFixture[str],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("adaptive_dp.verify.judge.distributed.dask_available", lambda: False)
    assert _json(capsys, "--workers", "2") == _json(capsys, "--workers", "1")


def test_scheduler_without_dask_is_a_usage_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("adaptive_dp.cli._workers.dask_available", lambda: False)
    assert main(["verify", "--only", IDS[0], "--scheduler", "tcp://127.0.0.1:1"]) == 2


@needs_dask
def test_unreachable_scheduler_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", "--only", IDS[0], "--scheduler", "no-port"]) == 2
    assert "--scheduler 'no-port': cannot reach a Dask scheduler" in capsys.readouterr().err


def _uniform(paths: int, rng: np.random.Generator, under: str) -> Any:
    return rng.random(paths)


def test_batches_are_seeded_by_index() -> None:
    """Batch b of an order draws from batch_rng(seed, keys + order, b), whatever the
    other batches; the estimator sees them concatenated in batch order."""
    setup = Setup(Quantity.TAIL, 0.5, 0.6, _uniform, 2 * BATCH + 7, orders=("x",))
    result = evaluate(setup, 11, "claim")
    expected = np.concatenate([batch_rng(11, ("claim", "x"), b).random(n)
                               for b, n in enumerate((BATCH, BATCH, 7))])
    assert result.samples == expected.size
    assert result.estimate == np.count_nonzero(expected > 0.5) / expected.size


def _fails_in_second_batch(paths: int, rng: np.random.Generator, under: str) -> Any:
    if paths < BATCH:
        raise RuntimeError("the last batch failed")
    return rng.random(paths)


def test_a_failing_batch_is_an_error_verdict() -> None:
    setup = Setup(Quantity.TAIL, 0.5, 0.6, _fails_in_second_batch, BATCH + 1)
    result = evaluate(setup, 0, "claim")
    assert result.verdict is Verdict.ERROR
    assert result.error == "RuntimeError: the last batch failed"
    assert math.isnan(result.estimate)


def _square(x: int) -> int:
    return x * x


@pytest.mark.parametrize("workers, pool", [(1, "auto"), (2, "process")])
def test_completed_yields_every_item_once(workers: int, pool: Any) -> None:
    got = dict(completed(_square, list(range(9)), workers=workers, pool=pool))
    assert got == {i: i * i for i in range(9)}
