"""R23-SyntheticExperiment (run_experiment, R23 section 7.2 and Figure 3): metrics, CSV, plot."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from adaptive_dp.applications.experiment import (
    Row,
    plot,
    read_csv,
    run_experiment,
    summarise,
    write_csv,
)
from adaptive_dp.applications.relative_error import Outcome
from adaptive_dp.errors import ParameterError


def _outcome(returned: list[int], correct: list[int]) -> Outcome:
    r = np.array(returned, dtype=np.int64)
    return Outcome("doubling", r, np.array(correct, dtype=np.int64), r + 1,
                   np.full(r.shape, 2.7), ())


def test_summarise_metrics_precision_one_when_nothing_returned() -> None:
    row = summarise("doubling", 10, [_outcome([0, 4], [0, 3]), _outcome([2], [2])], True)
    assert row.trials == 3
    assert row.returned_mean == pytest.approx(2.0)
    assert row.returned_std == pytest.approx(np.std([0, 4, 2], ddof=1))
    assert row.precision_mean == pytest.approx(np.mean([1.0, 0.75, 1.0]))
    assert row.precision_std == pytest.approx(np.std([1.0, 0.75, 1.0], ddof=1))
    single = summarise("brownian", 10, [_outcome([5], [5])], True)
    assert single.returned_std == 0.0


def test_run_experiment_is_reproducible_and_certified() -> None:
    a = run_experiment((10_000, 100_000), trials=3, seed=7)
    b = run_experiment((10_000, 100_000), trials=3, seed=7)
    assert a == b
    assert [(r.method, r.size) for r in a] == [
        ("doubling", 10_000), ("brownian", 10_000), ("doubling", 100_000),
        ("brownian", 100_000)]
    assert all(r.certified and r.trials == 3 for r in a)
    labels: list[str] = []
    run_experiment((10_000,), trials=3, seed=1, certify=False, progress=labels.append,
                   chunk=2)
    assert labels == ["n=10000 batch 0", "n=10000 batch 1"]


def test_run_experiment_rejects() -> None:
    with pytest.raises(ParameterError):
        run_experiment((10,), trials=0)
    with pytest.raises(ParameterError):
        run_experiment((), trials=1)
    with pytest.raises(ParameterError):
        run_experiment((10,), trials=1, chunk=0)
    with pytest.raises(ParameterError):
        run_experiment((10,), trials=1, seed=-1)


def test_csv_round_trip_and_plot(tmp_path: Path) -> None:
    rows = (Row("doubling", 10, 2, 1.0, 0.5, 0.9, 0.1, 2.7, True),
            Row("brownian", 10, 2, 2.0, 0.5, 0.8, 0.2, 2.7, True),
            Row("doubling", 100, 2, 3.0, 0.5, 1.0, 0.0, 2.7, True),
            Row("brownian", 100, 2, 4.0, 0.5, 0.95, 0.05, 2.7, False))
    path = write_csv(rows, tmp_path / "r.csv")
    assert read_csv(path) == rows
    png = plot(rows, tmp_path / "r.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
