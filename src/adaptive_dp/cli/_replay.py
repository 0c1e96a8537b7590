"""The replay loop shared by ``filter``, ``odometer`` and ``expost filter``: read
interchange lines, check each spend against the ledger's support (a query, before
anything is charged), step the ledger, write one record per line; plus the delta flags
of the command line (``--delta`` the total, ``--delta-slack`` its slack part) and the
output of ``--json FILE``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TextIO

from adaptive_dp.cli import UsageError
from adaptive_dp.guarantees.spends import Spend, kind_of
from adaptive_dp.interchange import read_spends
from adaptive_dp.ledger import Ledger

__all__ = ["Record", "delta_flags", "output", "replay"]

Record = dict[str, object]


def delta_flags(args: argparse.Namespace, what: str) -> tuple[str, str | None]:
    """``--delta`` (the total target delta, required) and ``--delta-slack`` (its slack
    part, default all of it): the kernel's ``delta`` and ``delta_slack`` keywords, which
    every constructor splits the same way (``numerics.exact_delta_split``)."""
    if args.delta is None:
        raise UsageError(f"{what} needs --delta")
    return args.delta, args.delta_slack


@contextmanager
def output(target: str | None) -> Iterator[TextIO]:
    """Standard output (``None`` or ``-``) or the file ``target``, opened for writing."""
    if target in (None, "-"):
        yield sys.stdout
        return
    assert target is not None
    try:
        handle = open(target, "w", encoding="utf-8")  # noqa: SIM115
    except OSError as error:
        raise UsageError(f"cannot write --json {target}: {error.strerror}") from None
    with handle:
        yield handle


def replay(
    source: TextIO,
    ledger: Ledger,
    name: str,
    step: Callable[[Spend], tuple[Record, bool]],
    emit: Callable[[int, Record], None],
) -> None:
    """Replay every line of ``source`` through ``step`` (which returns the line's record
    and whether to stop), after the support check of ``ledger``; a spend it does not
    support is a usage error naming the line and the kind."""
    for index, spend in read_spends(source):
        if not ledger.supports(spend):
            reason = ledger.unsupported(spend)
            raise UsageError(
                f"line {index}: {name} cannot take this {kind_of(spend)} spend: {reason}"
            )
        record, stop = step(spend)
        emit(index, record)
        if stop:
            break
