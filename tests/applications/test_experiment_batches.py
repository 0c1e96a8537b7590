"""R23-SyntheticExperiment in batches (issue 18, item 3): batch c of sample size number i
is seeded from (seed, i, c) alone and the rows are reduced in (size, method, batch) order,
so the rows do not depend on where the batches run: this process, a process pool, or a
Dask ``LocalCluster`` (one for the module, reached through ``scheduler`` and ``reproduce
--scheduler``)."""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial
from pathlib import Path

import numpy as np
import pytest

from adaptive_dp.applications.experiment import (
    Batch,
    Row,
    batch_histograms,
    run_experiment,
)
from adaptive_dp.applications.relative_error import Settings
from adaptive_dp.cli import main
from adaptive_dp.verify.judge.distributed import completed, dask_available, local_cluster

SIZES = (1_000, 20_000)
needs_dask = pytest.mark.skipif(not dask_available(),
                                reason="dask.distributed is not installed (the dask extra)")


def _bits(rows: tuple[Row, ...]) -> list[str]:
    """Every field, floats as their exact hex form."""
    return [repr([getattr(r, f).hex() if isinstance(getattr(r, f), float) else getattr(r, f)
                  for f in r.__slots__]) for r in rows]


@pytest.fixture(scope="module")
def serial() -> tuple[Row, ...]:
    """Five trials per size in batches of two (three batches per size, the last of one)."""
    return run_experiment(SIZES, trials=5, seed=3, chunk=2)


@pytest.fixture(scope="module")
def scheduler() -> Iterator[str]:
    """The address of a LocalCluster of two single-threaded worker processes."""
    with local_cluster(2) as cluster:
        yield str(cluster.scheduler_address)


def test_serial_rows_are_certified(serial: tuple[Row, ...]) -> None:
    assert [(r.method, r.size, r.trials) for r in serial] == [
        ("doubling", 1_000, 5), ("brownian", 1_000, 5),
        ("doubling", 20_000, 5), ("brownian", 20_000, 5)]
    assert all(r.certified for r in serial)


def test_process_pool_is_bit_identical(serial: tuple[Row, ...]) -> None:
    rows = run_experiment(SIZES, trials=5, seed=3, chunk=2, shard=partial(
        completed, workers=2, pool="process"))
    assert _bits(rows) == _bits(serial)


@needs_dask
def test_local_cluster_is_bit_identical(serial: tuple[Row, ...], scheduler: str) -> None:
    labels: list[str] = []
    rows = run_experiment(SIZES, trials=5, seed=3, chunk=2, progress=labels.append,
                          shard=partial(completed, scheduler=scheduler))
    assert _bits(rows) == _bits(serial)
    assert sorted(labels) == sorted(f"n={n} batch {c}" for n in SIZES for c in range(3))


def test_the_seed_changes_the_rows(serial: tuple[Row, ...]) -> None:
    """At n = 20,000 both methods release counts, and every row moves with the seed
    (at n = 1,000 neither releases anything, whatever the seed)."""
    other = run_experiment(SIZES, trials=5, seed=4, chunk=2)
    assert all(r.returned_mean > 0 for r in serial[2:])
    assert all(a != b for a, b in zip(_bits(other)[2:], _bits(serial)[2:], strict=True))


def _batch(chunk: int, trials: int, size_index: int = 0, seed: int = 3) -> Batch:
    return Batch(seed, size_index, 20_000, chunk, trials, Settings(), 1.0, 300, False)


def test_a_trial_sees_the_same_histogram_whatever_the_run() -> None:
    """Trial j of batch c sees one histogram: the same when the batch is cut shorter
    (fewer trials in the run), in a worker process, and never another batch's."""
    full = [_batch(0, 2), _batch(1, 2), _batch(2, 2)]
    shorter = [_batch(0, 2), _batch(1, 2), _batch(2, 1)]
    here = [batch_histograms(b) for b in full]
    pooled = dict(completed(batch_histograms, shorter, workers=2, pool="process"))
    for c in range(3):
        np.testing.assert_array_equal(pooled[c], here[c][: shorter[c].trials])
    stacked = np.concatenate(here)
    assert len({row.tobytes() for row in stacked}) == len(stacked)
    for other in (_batch(0, 2, size_index=1), _batch(0, 2, seed=4)):
        assert not np.array_equal(batch_histograms(other), here[0])


def _csv(tmp_path: Path, name: str, *flags: str) -> bytes:
    out = tmp_path / name
    code = main(["reproduce", "relative-error", "--trials", "3", "--sizes", "300", "1000",
                 "20000", "--seed", "9", "--no-plot", "--out", str(out), *flags])
    assert code == 0
    return (out / "relative-error.csv").read_bytes()


def test_cli_csv_same_on_a_process_pool(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    one = _csv(tmp_path, "one", "--workers", "1")
    monkeypatch.setattr("adaptive_dp.verify.judge.distributed.dask_available", lambda: False)
    assert _csv(tmp_path, "two", "--workers", "2") == one
    command = (tmp_path / "two" / "command.txt").read_text(encoding="utf-8")
    assert command.startswith("adaptive-dp reproduce relative-error --trials 3 ")
    assert "--workers 2" in command.splitlines()[0]
    capsys.readouterr()


@needs_dask
def test_cli_csv_same_on_the_cluster(tmp_path: Path, scheduler: str,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    assert _csv(tmp_path, "dask", "--scheduler", scheduler) == _csv(tmp_path, "one")
    capsys.readouterr()
