"""``adaptive-dp reproduce relative-error [--trials N] [--sizes ...] [--out DIR] [--seed S]
[--quick] [--workers N | --scheduler ADDRESS]``: R23 section 7.2's Figure 3 on synthetic
Zipf data (results returned and precision against sample size, doubling method with
R23-Thm2 versus Brownian noise reduction with R23-Thm6).

Writes ``relative-error.csv``, ``relative-error.png`` (matplotlib, imported lazily: the
``plot`` extra) and ``command.txt`` (command, seed, settings, adaptive_dp version) into
``--out``; prints the table.  A progress bar on standard error when it is a terminal,
one tick per batch of trials. Every trial's transcript is replayed through its
filter's certified path (``--no-certify`` skips it).

``--workers N`` shards the batches of trials over N local processes (a Dask
``LocalCluster`` with the ``dask`` extra, else a process pool), ``--scheduler ADDRESS``
over an existing Dask cluster; every batch is seeded from (seed, sample-size index, batch
index) alone, so the CSV is the same bit for bit (docs/design.md, random seeds).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from adaptive_dp.applications.experiment import (
    QUICK_SIZES,
    QUICK_TRIALS,
    SIZES,
    ZIPF_EXPONENT,
    Row,
    batch_count,
    plot,
    run_experiment,
    write_csv,
)
from adaptive_dp.applications.relative_error import Settings
from adaptive_dp.cli import UsageError
from adaptive_dp.cli._progress import progress
from adaptive_dp.cli._workers import add_flags, check, reaching
from adaptive_dp.verify.judge.distributed import completed

NAME = "reproduce"
HELP = "reproduce an experiment (relative-error: R23 section 7.2, Figure 3)"

__all__ = ["HELP", "NAME", "configure", "format_rows", "run"]


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("experiment", choices=("relative-error",), help="which experiment")
    parser.add_argument("--trials", type=int,
                        help=f"trials per sample size (default 200; --quick: {QUICK_TRIALS})")
    parser.add_argument("--sizes", type=int, nargs="+",
                        help="sample sizes (default: "
                             + " ".join(str(s) for s in SIZES) + ")")
    parser.add_argument("--out", default=".", help="output directory (default: .)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("--quick", action="store_true",
                        help=f"a few seconds: sizes {' '.join(map(str, QUICK_SIZES))}, "
                             f"{QUICK_TRIALS} trials (unless given)")
    parser.add_argument("--no-plot", action="store_true", help="write the CSV only")
    parser.add_argument("--no-certify", action="store_true",
                        help="skip the certified replay of every transcript")
    add_flags(parser, "batches of trials")


def format_rows(rows: tuple[Row, ...]) -> str:
    """The table printed on standard output."""
    out = [f"{'method':<9} {'size':>9} {'trials':>6} {'returned':>17} {'precision':>15} "
           f"{'sum eps^2':>9} certified"]
    for r in rows:
        out.append(f"{r.method:<9} {r.size:>9} {r.trials:>6} "
                   f"{r.returned_mean:>8.2f} +/- {r.returned_std:<5.2f} "
                   f"{r.precision_mean:>6.4f} +/- {r.precision_std:<5.3f}"
                   f"{r.eps2_spent_mean:>9.4f} {'yes' if r.certified else 'NO'}")
    return "\n".join(out)


def run(args: argparse.Namespace) -> int:
    trials = args.trials if args.trials is not None else (QUICK_TRIALS if args.quick else 200)
    sizes = tuple(args.sizes) if args.sizes else (QUICK_SIZES if args.quick else SIZES)
    if trials < 1:
        raise UsageError(f"--trials={trials} is not allowed: expected at least 1")
    if any(s < 0 for s in sizes):
        raise UsageError(f"--sizes {sizes}: sample sizes must be >= 0")
    check(args)
    if not args.no_plot:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            raise UsageError(
                "the figure needs matplotlib: install the plot extra "
                "(pip install 'adaptive-dp[plot]'), or pass --no-plot"
            ) from None
    out = Path(args.out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise UsageError(f"cannot create {args.out}: {error}") from None
    settings = Settings()
    bar = progress(batch_count(sizes, trials), "batch")
    try:
        with reaching(args):
            rows = run_experiment(sizes, trials, args.seed, settings,
                                  certify=not args.no_certify,
                                  progress=lambda label: bar.update(1),
                                  shard=lambda function, batches: completed(
                                      function, batches, workers=args.workers,
                                      scheduler=args.scheduler))
    finally:
        bar.close()
    write_csv(rows, out / "relative-error.csv")
    if not args.no_plot:
        plot(rows, out / "relative-error.png")
    _write_command(out / "command.txt", args, sizes, trials, settings)
    print(format_rows(rows))
    if not args.no_certify and not all(r.certified for r in rows):
        print("a transcript failed its filter's certified replay", file=sys.stderr)
        return 1
    return 0


def _write_command(path: Path, args: argparse.Namespace, sizes: tuple[int, ...],
                   trials: int, settings: Settings) -> None:
    from adaptive_dp import __version__

    lines = [
        "adaptive-dp reproduce relative-error --trials "
        f"{trials} --sizes {' '.join(map(str, sizes))} --seed {args.seed}"
        + (" --no-certify" if args.no_certify else "")
        + (f" --workers {args.workers}" if args.workers != 1 else "")
        + (f" --scheduler {args.scheduler}" if args.scheduler is not None else ""),
        f"seed: {args.seed}",
        f"adaptive_dp version: {__version__}",
        f"settings: epsilon={settings.epsilon}, delta={settings.delta}, "
        f"alpha={settings.alpha}, level={settings.level}, em_epsilon={settings.em_epsilon}, "
        f"eps2_min={settings.eps2_min}, grid_size={settings.grid_size}, "
        f"relation={settings.relation}, zipf_exponent={ZIPF_EXPONENT}, domain=300",
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
