"""The ``--workers`` and ``--scheduler`` flags of the runs that shard batches (``verify``,
``reproduce``): where :func:`adaptive_dp.verify.judge.distributed.completed` runs them,
with one set of usage errors (exit 2, one line)."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from contextlib import contextmanager

from adaptive_dp.cli import UsageError
from adaptive_dp.verify.judge.distributed import dask_available

__all__ = ["add_flags", "check", "reaching"]


def add_flags(parser: argparse.ArgumentParser, batches: str) -> None:
    """``--workers N`` and ``--scheduler ADDRESS``; ``batches`` names what is sharded."""
    parser.add_argument("--workers", type=int, default=1,
                        help=f"local processes to shard the {batches} across: a Dask "
                             "LocalCluster with the dask extra, else a process pool "
                             "(default 1: this process); results do not depend on it")
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help=f"run the {batches} on the Dask cluster at ADDRESS "
                             "(needs the dask extra; --workers is ignored)")


def check(args: argparse.Namespace) -> None:
    """Refuse ``--workers`` below 1, and ``--scheduler`` without Dask."""
    if args.workers < 1:
        raise UsageError(f"--workers={args.workers} is not allowed: expected at least 1")
    if args.scheduler is not None and not dask_available():
        raise UsageError("--scheduler needs Dask: pip install 'adaptive-dp[dask]'")


@contextmanager
def reaching(args: argparse.Namespace) -> Iterator[None]:
    """A scheduler that cannot be reached becomes a usage error naming ``--scheduler``."""
    try:
        yield
    except ConnectionError as error:
        if args.scheduler is None:
            raise
        raise UsageError(f"--scheduler {args.scheduler!r}: {error}") from None
