"""``adaptive-dp odometer KIND``: the running reading per spend of an odometer or
accumulator, from JSON-lines spends on standard input."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TextIO

from adaptive_dp.cli import UsageError
from adaptive_dp.cli._replay import Record, delta_flags, output, replay
from adaptive_dp.cli.filter import guarantee_fields
from adaptive_dp.guarantees.spends import Spend
from adaptive_dp.ledger import Ledger
from adaptive_dp.numerics import ExactLike, exact, exact_positive
from adaptive_dp.odometers.accumulators import (
    Accumulator,
    ApproxDPAccumulator,
    BasicAccumulator,
    Exhausted,
    RDPAccumulator,
    ZCDPAccumulator,
)
from adaptive_dp.odometers.w23 import W23MixtureOdometer, W23StitchedOdometer, mixture_rho_for

NAME = "odometer"
HELP = "print the running reading of an odometer or accumulator, one line per spend"

__all__ = ["HELP", "KINDS", "NAME", "configure", "run"]

KINDS = ("w23-stitched", "w23-mixture", "basic", "zcdp-sum", "rdp", "w23-accumulator")


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
    parser.add_argument("--json", nargs="?", const="-", metavar="FILE")


def _odometer(args: argparse.Namespace) -> W23StitchedOdometer | W23MixtureOdometer:
    delta, slack = delta_flags(args, f"kind {args.kind!r}")
    if args.kind == "w23-stitched":
        return W23StitchedOdometer(
            delta=delta, delta_slack=slack, eta=args.stitch_eta, s=args.stitch_s,
            form=args.stitch_form,
        )
    if args.mixture_rho is not None:
        rho: ExactLike = args.mixture_rho
    elif args.mixture_v_star is not None:
        v_star = exact_positive(args.mixture_v_star, "--mixture-v-star")
        level = float(exact(slack if slack is not None else delta, "--delta-slack"))
        rho = mixture_rho_for(float(v_star), level, args.sides)
    else:
        raise UsageError("w23-mixture needs --mixture-rho or --mixture-v-star")
    return W23MixtureOdometer(delta=delta, rho=rho, delta_slack=slack, sides=args.sides)


def _accumulator(args: argparse.Namespace) -> Accumulator:
    if args.kind == "basic":
        return BasicAccumulator()
    if args.kind == "zcdp-sum":
        return ZCDPAccumulator()
    if args.kind == "rdp":
        if args.alpha is None:
            raise UsageError("kind 'rdp' needs --alpha")
        return RDPAccumulator(args.alpha)
    delta, slack = delta_flags(args, f"kind {args.kind!r}")
    return ApproxDPAccumulator(delta=delta, delta_slack=slack)


def run(args: argparse.Namespace) -> int:
    ledger: Ledger
    if args.kind in ("w23-stitched", "w23-mixture"):
        odometer = _odometer(args)
        ledger, state = odometer, odometer.start()

        def step(spend: Spend) -> tuple[Record, bool]:
            nonlocal state
            state = state.spend(spend)
            return {"reading": state.reading()}, False

    else:
        accumulator = _accumulator(args)
        ledger, astate = accumulator, accumulator.start()

        def step(spend: Spend) -> tuple[Record, bool]:
            nonlocal astate
            astate = astate.add(spend)
            reading = astate.reading()
            if isinstance(reading, Exhausted):
                return {"reading": "exhausted"}, False
            return dict(guarantee_fields(reading)), False

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
