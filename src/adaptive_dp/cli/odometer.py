"""``adaptive-dp odometer KIND``: the running reading per spend of an odometer or
accumulator, from JSON-lines spends on standard input."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import TextIO, TypeVar

from adaptive_dp.cli import UsageError
from adaptive_dp.errors import UnsupportedGuaranteeError
from adaptive_dp.interchange import kind_of, read_spends
from adaptive_dp.numerics import ExactLike
from adaptive_dp.odometers.accumulators import (
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


def _split(args: argparse.Namespace) -> tuple[str, str]:
    if args.delta is None:
        raise UsageError(f"kind {args.kind!r} needs --delta")
    from adaptive_dp.numerics import exact, format_exact

    slack = args.delta_slack if args.delta_slack is not None else args.delta
    rest = exact(args.delta, "delta") - exact(slack, "delta_slack")
    if rest < 0:
        raise UsageError("--delta-slack must not exceed --delta")
    return slack, format_exact(rest)


def run(args: argparse.Namespace) -> int:
    out: TextIO = sys.stdout
    handle: TextIO | None = None
    if args.json not in (None, "-"):
        handle = open(args.json, "w", encoding="utf-8")  # noqa: SIM115
        out = handle
    try:
        if args.kind in ("w23-stitched", "w23-mixture"):
            slack, rest = _split(args)
            if args.kind == "w23-stitched":
                odo: W23StitchedOdometer | W23MixtureOdometer = W23StitchedOdometer(
                    slack, rest, eta=args.stitch_eta, s=args.stitch_s, form=args.stitch_form
                )
            else:
                if args.mixture_rho is not None:
                    rho: ExactLike = args.mixture_rho
                elif args.mixture_v_star is not None:
                    rho = mixture_rho_for(float(args.mixture_v_star), float(slack), args.sides)
                else:
                    raise UsageError("w23-mixture needs --mixture-rho or --mixture-v-star")
                odo = W23MixtureOdometer(slack, rho, rest, sides=args.sides)
            state = odo.start()
            for index, spend in read_spends(sys.stdin):
                state = _guard(index, args.kind, spend, state.spend)
                _emit(out, args, index, {"reading": state.reading()}, odo.SPEC)
            return 0
        if args.kind == "basic":
            acc: object = BasicAccumulator()
        elif args.kind == "zcdp-sum":
            acc = ZCDPAccumulator()
        elif args.kind == "rdp":
            if args.alpha is None:
                raise UsageError("kind 'rdp' needs --alpha")
            acc = RDPAccumulator(args.alpha)
        else:
            slack, _ = _split(args)
            acc = ApproxDPAccumulator(slack, args.delta)
        from adaptive_dp.odometers.accumulators import Accumulator

        assert isinstance(acc, Accumulator)
        astate = acc.start()
        for index, spend in read_spends(sys.stdin):
            astate = _guard(index, args.kind, spend, astate.add)
            reading = astate.reading()
            fields: dict[str, object]
            if isinstance(reading, Exhausted):
                fields = {"reading": "exhausted"}
            else:
                from adaptive_dp.cli.filter import guarantee_fields

                fields = dict(guarantee_fields(reading))
            _emit(out, args, index, fields, acc.SPEC)
        return 0
    finally:
        if handle is not None:
            handle.close()


T = TypeVar("T")


def _guard(index: int, kind: str, spend: object, step: Callable[[object], T]) -> T:
    try:
        return step(spend)
    except UnsupportedGuaranteeError as error:
        raise UsageError(
            f"line {index}: {kind!r} does not support kind {kind_of(spend)!r} ({error})"
        ) from None


def _emit(
    out: TextIO, args: argparse.Namespace, index: int, fields: dict[str, object], spec: str
) -> None:
    if args.json is not None:
        out.write(json.dumps({"index": index, **fields, "spec": spec}) + "\n")
    else:
        text = " ".join(f"{k}={v!r}" for k, v in fields.items())
        out.write(f"{index}\t{text}\n")
