"""R23 section 7.2's experiment (Figure 3): results returned and precision against the
sample size of synthetic Zipf data, for the doubling method (R23-Thm2) and Brownian noise
reduction (R23-Thm6); trials, metrics, CSV and plot.

Every trial's transcript can be replayed through its filter's certified path
(:func:`~adaptive_dp.applications.relative_error.certify_trial`); the ``certified`` column
says whether all of them passed.

Trials run in batches of :data:`CHUNK` per sample size, each seeded from (seed, sample-size
index, batch index) alone and reduced in a fixed order, so the batches can be sharded
over processes or a Dask cluster without changing a bit of the result.
"""

from __future__ import annotations

import csv
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from adaptive_dp.applications.data import DOMAIN, zipf_histograms
from adaptive_dp.applications.relative_error import (
    METHODS,
    Outcome,
    Settings,
    certify_trial,
    run_method,
)
from adaptive_dp.errors import InsufficientBudgetError, ParameterError

__all__ = [
    "CHUNK",
    "QUICK_SIZES",
    "QUICK_TRIALS",
    "SIZES",
    "ZIPF_EXPONENT",
    "Batch",
    "BatchResult",
    "Row",
    "Shard",
    "batch_count",
    "batch_histograms",
    "batch_streams",
    "plot",
    "read_csv",
    "run_batch",
    "run_experiment",
    "summarise",
    "write_csv",
]

SIZES: tuple[int, ...] = (10**4, 3 * 10**4, 10**5, 3 * 10**5, 10**6, 3 * 10**6, 10**7)
"""Sample sizes (reconstructed: the seed drops them)."""

QUICK_SIZES: tuple[int, ...] = (10**4, 10**5, 10**6)
QUICK_TRIALS = 10
ZIPF_EXPONENT = 1.0
"""Zipf exponent a of p(k) proportional to k^(-a) (reconstructed: the seed drops it)."""

CHUNK = 250
"""Trials per batch: the unit of seeding and of sharding (changing it changes results)."""


@dataclass(frozen=True, slots=True)
class Row:
    """One (method, sample size) cell of Figure 3: mean and standard deviation (ddof = 1
    when there are at least two trials, else 0) over ``trials``."""

    method: str
    size: int
    trials: int
    returned_mean: float
    returned_std: float
    precision_mean: float
    precision_std: float
    eps2_spent_mean: float
    certified: bool


def summarise(method: str, size: int, outcomes: Sequence[Outcome], certified: bool) -> Row:
    """The metrics of one cell from its outcomes (chunks of trials)."""
    returned = np.concatenate([o.returned for o in outcomes]).astype(np.float64)
    precision = np.concatenate([o.precision for o in outcomes])
    spent = np.concatenate([o.eps2_spent for o in outcomes])
    ddof = 1 if returned.size > 1 else 0
    return Row(method, size, int(returned.size), float(returned.mean()),
               float(returned.std(ddof=ddof)), float(precision.mean()),
               float(precision.std(ddof=ddof)), float(spent.mean()), certified)


def _certify(outcome: Outcome, settings: Settings) -> bool:
    try:
        for trial in range(outcome.returned.shape[0]):
            certify_trial(outcome, settings, trial)
    except InsufficientBudgetError:
        return False
    return True


@dataclass(frozen=True, slots=True)
class Batch:
    """One batch of R23-SyntheticExperiment: chunk number ``chunk`` (``trials`` trials)
    of sample size number ``size_index`` (``size`` users); all a worker needs."""

    seed: int
    size_index: int
    size: int
    chunk: int
    trials: int
    settings: Settings
    exponent: float
    domain: int
    certify: bool


@dataclass(frozen=True, slots=True)
class BatchResult:
    """A batch's outcome per method (in :data:`METHODS` order, transcripts dropped once
    replayed) and whether every transcript passed its certified replay (False when not
    replayed)."""

    outcomes: tuple[Outcome, ...]
    certified: tuple[bool, ...]


def batch_streams(seed: int, size_index: int, chunk: int) -> list[np.random.SeedSequence]:
    """The streams of batch (``size_index``, ``chunk``) of R23-SyntheticExperiment: node
    (size_index, chunk) of ``SeedSequence(seed)``'s spawn tree spawns the data stream,
    then one stream per method (:data:`METHODS` order)."""
    node = np.random.SeedSequence(seed, spawn_key=(size_index, chunk))
    return node.spawn(1 + len(METHODS))


def batch_histograms(batch: Batch) -> NDArray[np.int64]:
    """The batch's ``trials`` Zipf histograms (R23-SyntheticExperiment's data; both
    methods run on them)."""
    data = batch_streams(batch.seed, batch.size_index, batch.chunk)[0]
    return zipf_histograms(batch.size, batch.trials, np.random.default_rng(data),
                           batch.domain, batch.exponent)


def run_batch(batch: Batch) -> BatchResult:
    """R23-SyntheticExperiment on one batch: both methods on the batch's histograms, each
    with its own stream, and the certified replay of every transcript (in any process:
    everything comes from the batch)."""
    histograms = batch_histograms(batch)
    _, *method_seqs = batch_streams(batch.seed, batch.size_index, batch.chunk)
    outcomes: list[Outcome] = []
    certified: list[bool] = []
    for method, seq in zip(METHODS, method_seqs, strict=True):
        outcome = run_method(method, histograms, batch.settings, np.random.default_rng(seq))
        certified.append(batch.certify and _certify(outcome, batch.settings))
        outcomes.append(replace(outcome, steps=()))
    return BatchResult(tuple(outcomes), tuple(certified))


Shard = Callable[[Callable[[Batch], BatchResult], Sequence[Batch]],
                 Iterable[tuple[int, BatchResult]]]
"""Where the batches run: called with :func:`run_batch` and the batches, it yields
``(index, result)`` for every batch, in any order (for example
``adaptive_dp.verify.judge.distributed.completed`` with its ``workers`` or ``scheduler``,
which the command line hands in: applications never import the judge)."""


def _in_order(function: Callable[[Batch], BatchResult],
              batches: Sequence[Batch]) -> Iterable[tuple[int, BatchResult]]:
    """The default :data:`Shard`: every batch in this process, in order."""
    return ((index, function(batch)) for index, batch in enumerate(batches))


def _chunks(trials: int, chunk: int) -> list[int]:
    """The trials of each chunk: ``chunk`` each, the last one the rest."""
    return [min(chunk, trials - start) for start in range(0, trials, chunk)]


def batch_count(sizes: Sequence[int], trials: int, chunk: int = CHUNK) -> int:
    """How many batches :func:`run_experiment` runs (what its ``progress`` counts)."""
    return len(sizes) * len(_chunks(trials, chunk))


def run_experiment(
    sizes: Sequence[int] = SIZES,
    trials: int = 200,
    seed: int = 0,
    settings: Settings | None = None,
    exponent: float = ZIPF_EXPONENT,
    domain: int = DOMAIN,
    certify: bool = True,
    progress: Callable[[str], None] | None = None,
    *,
    shard: Shard = _in_order,
    chunk: int = CHUNK,
) -> tuple[Row, ...]:
    """R23-SyntheticExperiment (reconstructed; R23 section 7.2 and its Figure 3): run both
    methods on ``trials`` independent Zipf histograms per sample size; "we then vary the
    sample size of the data ... and see how many results are returned and of those
    returned, how many satisfy the actual relative error, which we refer to as precision.
    Note that if 0 results are returned, then we consider the precision to be 1."

    Randomness: the trials of a sample size run in batches of ``chunk`` (the last one the
    rest); batch c of sample size number i draws its histograms and each method's noise
    from streams of node (i, c) of ``numpy.random.SeedSequence(seed)``'s spawn tree
    (:func:`batch_streams`), so both methods see the same histograms, and a trial's
    histogram depends only on the seed, i, c and its place in the batch.  Rows are reduced
    in a fixed order (size, method, batch), so the result is the same wherever ``shard``
    runs the batches (by default in this process, in order; the command line's
    ``--workers`` and ``--scheduler`` hand in a process pool or a Dask cluster).
    ``progress`` is called with a label after each batch.
    """
    if trials < 1:
        raise ParameterError("trials", trials, "an integer >= 1")
    if not sizes:
        raise ParameterError("sizes", sizes, "at least one sample size")
    if chunk < 1:
        raise ParameterError("chunk", chunk, "an integer >= 1")
    if seed < 0:
        raise ParameterError("seed", seed, "an integer >= 0")
    s = Settings() if settings is None else settings
    counts = _chunks(trials, chunk)
    batches = [Batch(seed, i, int(size), c, n, s, exponent, domain, certify)
               for i, size in enumerate(sizes) for c, n in enumerate(counts)]
    results: dict[int, BatchResult] = {}
    for index, result in shard(run_batch, batches):
        results[index] = result
        if progress is not None:
            b = batches[index]
            progress(f"n={b.size} batch {b.chunk}")
    rows: list[Row] = []
    for i, size in enumerate(sizes):
        mine = [results[k] for k, b in enumerate(batches) if b.size_index == i]
        for m, method in enumerate(METHODS):
            rows.append(summarise(method, int(size), [r.outcomes[m] for r in mine],
                                  all(r.certified[m] for r in mine)))
    return tuple(rows)


_FIELDS = tuple(f.name for f in fields(Row))


def write_csv(rows: Sequence[Row], path: str | Path) -> Path:
    """Write the rows (one per method and sample size) as CSV."""
    p = Path(path)
    with p.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(_FIELDS))
        writer.writeheader()
        for row in rows:
            writer.writerow(asdict(row))
    return p


def read_csv(path: str | Path) -> tuple[Row, ...]:
    """Read rows written by :func:`write_csv`."""
    out = []
    with Path(path).open(newline="", encoding="utf-8") as handle:
        for rec in csv.DictReader(handle):
            out.append(Row(rec["method"], int(rec["size"]), int(rec["trials"]),
                           float(rec["returned_mean"]), float(rec["returned_std"]),
                           float(rec["precision_mean"]), float(rec["precision_std"]),
                           float(rec["eps2_spent_mean"]), rec["certified"] == "True"))
    return tuple(out)


_LABELS = {"doubling": "Doubling Gaussian (R23-Thm2)",
           "brownian": "Brownian noise reduction (R23-Thm6)"}


def plot(rows: Sequence[Row], path: str | Path, title: str | None = None) -> Path:
    """Figure 3's layout: results returned (left) and precision (right) against the sample
    size, mean with a band of one standard deviation, both methods.  Needs matplotlib
    (the ``plot`` extra); imported here, lazily."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "plotting needs matplotlib: pip install 'adaptive-dp[plot]'"
        ) from exc
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    for method in METHODS:
        mine = sorted((r for r in rows if r.method == method), key=lambda r: r.size)
        if not mine:
            continue
        x = np.array([r.size for r in mine], dtype=np.float64)
        for axis, mean, std in (
            (left, [r.returned_mean for r in mine], [r.returned_std for r in mine]),
            (right, [r.precision_mean for r in mine], [r.precision_std for r in mine]),
        ):
            m, s = np.array(mean), np.array(std)
            axis.plot(x, m, marker="o", label=_LABELS.get(method, method))
            axis.fill_between(x, m - s, m + s, alpha=0.2)
    left.set_xscale("log")
    right.set_xscale("log")
    left.set_xlabel("sample size")
    right.set_xlabel("sample size")
    left.set_ylabel("results returned")
    right.set_ylabel("precision")
    right.set_ylim(top=1.01)
    left.legend()
    trials = max((r.trials for r in rows), default=0)
    fig.suptitle(title or f"Relative-error counts on Zipf data (mean +/- sd, {trials} trials)")
    fig.tight_layout()
    p = Path(path)
    fig.savefig(p, dpi=120)
    plt.close(fig)
    return p
