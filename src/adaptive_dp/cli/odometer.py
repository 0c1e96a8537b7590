"""``adaptive-dp odometer KIND``: the running reading per spend of an odometer or
accumulator, from JSON-lines spends on standard input."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TextIO

from adaptive_dp.cli._replay import Record, output, replay
from adaptive_dp.cli.filter import books_from_flags
from adaptive_dp.filters.named import ACCUMULATORS, ODOMETERS
from adaptive_dp.guarantees.definitions import upper_fields
from adaptive_dp.guarantees.spends import Spend
from adaptive_dp.ledger import Ledger
from adaptive_dp.odometers.accumulators import Accumulator, Exhausted

NAME = "odometer"
HELP = "print the running reading of an odometer or accumulator, one line per spend"

__all__ = ["HELP", "KINDS", "NAME", "configure", "run"]

KINDS = (*ODOMETERS, *ACCUMULATORS)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("kind", choices=KINDS, help="odometer (w23-*) or accumulator")
    parser.add_argument("--delta", help="total delta (w23-accumulator: the target delta)")
    parser.add_argument(
        "--delta-slack",
        help="delta' of W23 (the boundary's level; default: all of --delta)",
    )
    parser.add_argument("--mixture-rho", help="w23-mixture: rho, fixed in advance")
    parser.add_argument(
        "--mixture-v-star",
        help="w23-mixture: choose rho minimising the boundary at this intrinsic time",
    )
    parser.add_argument("--sides", choices=("one", "two"), default="one")
    parser.add_argument("--stitch-eta", default="2", help="w23-stitched: eta")
    parser.add_argument("--stitch-s", default="1.4", help="w23-stitched: s")
    parser.add_argument(
        "--stitch-form",
        choices=("poster", "exact"),
        default="poster",
        help="w23-stitched: the poster's rounded constants or the exact boundary",
    )
    parser.add_argument("--alpha", help="rdp: the Renyi order")
    parser.add_argument("--n", help="rruv16: the n fixed in advance (an integer >= 2)")
    parser.add_argument("--json", nargs="?", const="-", metavar="FILE")


def run(args: argparse.Namespace) -> int:
    ledger: Ledger
    books = books_from_flags(args)
    if not isinstance(books, Accumulator):
        odometer = books
        ledger, state = odometer, odometer.start()

        def step(spend: Spend) -> tuple[Record, bool]:
            nonlocal state
            state = state.spend(spend)
            return {"reading": state.reading()}, False

    else:
        accumulator = books
        ledger, astate = accumulator, accumulator.start()

        def step(spend: Spend) -> tuple[Record, bool]:
            nonlocal astate
            astate = astate.add(spend)
            reading = astate.reading()
            if isinstance(reading, Exhausted):
                return {"reading": "exhausted"}, False
            return dict(upper_fields(reading)), False

    with output(args.json) as out:

        def emit(index: int, record: Record) -> None:
            _emit(out, args, index, record, ledger.SPEC)

        replay(sys.stdin, ledger, f"{args.kind!r}", step, emit)
    return 0


def _emit(
    out: TextIO, args: argparse.Namespace, index: int, fields: Record, spec: str
) -> None:
    if args.json is not None:
        out.write(json.dumps({"index": index, **fields, "spec": spec}) + "\n")
    else:
        text = " ".join(f"{k}={v!r}" for k, v in fields.items())
        out.write(f"{index}\t{text}\n")
