"""R23 section 7.2's experiment (Figure 3): results returned and precision against the
sample size of synthetic Zipf data, for the doubling method (R23-Thm2) and Brownian noise
reduction (R23-Thm6); trials, metrics, CSV and plot.

Every trial's transcript can be replayed through its filter's certified path
(:func:`~adaptive_dp.applications.relative_error.certify_trial`); the ``certified`` column
says whether all of them passed.
"""

from __future__ import annotations

import csv
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, fields
from pathlib import Path

import numpy as np

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
    "QUICK_SIZES",
    "QUICK_TRIALS",
    "SIZES",
    "ZIPF_EXPONENT",
    "Row",
    "plot",
    "read_csv",
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

_CHUNK = 250


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


def run_experiment(
    sizes: Sequence[int] = SIZES,
    trials: int = 200,
    seed: int = 0,
    settings: Settings | None = None,
    exponent: float = ZIPF_EXPONENT,
    domain: int = DOMAIN,
    certify: bool = True,
    progress: Callable[[str], None] | None = None,
) -> tuple[Row, ...]:
    """R23-SyntheticExperiment (reconstructed; R23 section 7.2 and its Figure 3): run both
    methods on ``trials`` independent Zipf histograms per sample size; "we then vary the
    sample size of the data ... and see how many results are returned and of those
    returned, how many satisfy the actual relative error, which we refer to as precision.
    Note that if 0 results are returned, then we consider the precision to be 1."

    Randomness: one ``numpy.random.SeedSequence(seed)`` spawns a stream per sample size,
    which spawns the data stream and one stream per method; both methods see the same
    histograms.  ``progress`` is called with a label after each (size, method) cell.
    """
    if trials < 1:
        raise ParameterError("trials", trials, "an integer >= 1")
    if not sizes:
        raise ParameterError("sizes", sizes, "at least one sample size")
    s = Settings() if settings is None else settings
    rows: list[Row] = []
    streams = np.random.SeedSequence(seed).spawn(len(sizes))
    for size, stream in zip(sizes, streams, strict=True):
        data_seq, *method_seqs = stream.spawn(1 + len(METHODS))
        data_rng = np.random.default_rng(data_seq)
        histograms = [zipf_histograms(int(size), min(_CHUNK, trials - start), data_rng,
                                      domain, exponent)
                      for start in range(0, trials, _CHUNK)]
        for method, seq in zip(METHODS, method_seqs, strict=True):
            rng = np.random.default_rng(seq)
            outcomes = []
            certified = True
            for h in histograms:
                outcome = run_method(method, h, s, rng)
                if certify:
                    certified &= _certify(outcome, s)
                outcomes.append(outcome)
            rows.append(summarise(method, int(size), outcomes, certified if certify else False))
            if progress is not None:
                progress(f"{method} n={size}")
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
