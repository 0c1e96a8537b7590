"""``adaptive-dp filter RULE``: replay JSON-lines spends through a privacy filter.

Reads interchange lines (docs/design.md) on standard input, prints one decision per line
and stops at the first HALT (terminal mode: the papers' "halt forever").
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from collections.abc import Callable
from fractions import Fraction
from typing import TextIO

from adaptive_dp.cli import UsageError
from adaptive_dp.errors import UnsupportedGuaranteeError
from adaptive_dp.filters.base import Decision, Rule
from adaptive_dp.filters.basic import BasicFilter, PureDPFilter
from adaptive_dp.filters.brownian import BrownianFilter, UnifiedFilter
from adaptive_dp.filters.expost import ExPostFilter
from adaptive_dp.filters.gdp import GDPFilter
from adaptive_dp.filters.rdp import RDPFilter
from adaptive_dp.filters.rruv16 import RRUV16Filter
from adaptive_dp.filters.w23 import W23Filter
from adaptive_dp.filters.zcdp import ZCDPFilter, ZCDPSumFilter
from adaptive_dp.interchange import kind_of, read_spends
from adaptive_dp.numerics import exact, round_up

NAME = "filter"
HELP = "replay JSON-lines spends through a privacy filter; one decision per line"

__all__ = ["HELP", "NAME", "RULES", "configure", "guarantee_fields", "run"]


def _need(args: argparse.Namespace, *names: str) -> None:
    for name in names:
        if getattr(args, name) is None:
            raise UsageError(f"rule {args.rule!r} needs --{name.replace('_', '-')}")


def _split(args: argparse.Namespace) -> tuple[str, Fraction]:
    """(slack, total - slack): --delta is the total, --delta-slack the conversion part
    (defaults to the whole of --delta)."""
    _need(args, "delta")
    slack = args.delta_slack if args.delta_slack is not None else args.delta
    rest = exact(args.delta, "delta") - exact(slack, "delta_slack")
    if rest < 0:
        raise UsageError("--delta-slack must not exceed --delta")
    return slack, rest


def _w23(args: argparse.Namespace) -> Rule:
    _need(args, "epsilon")
    slack, rest = _split(args)
    return W23Filter(args.epsilon, slack, rest)


def _zcdp(args: argparse.Namespace) -> Rule:
    _need(args, "epsilon")
    slack, rest = _split(args)
    return ZCDPFilter(args.epsilon, rest, slack)


def _basic(args: argparse.Namespace) -> Rule:
    _need(args, "epsilon")
    return BasicFilter(args.epsilon, args.delta if args.delta is not None else 0)


def _pure(args: argparse.Namespace) -> Rule:
    _need(args, "epsilon")
    return PureDPFilter(args.epsilon)


def _zcdp_sum(args: argparse.Namespace) -> Rule:
    _need(args, "rho")
    return ZCDPSumFilter(args.rho)


def _rdp(args: argparse.Namespace) -> Rule:
    _need(args, "alpha", "epsilon")
    return RDPFilter(args.alpha, args.epsilon)


def _gdp(args: argparse.Namespace) -> Rule:
    _need(args, "mu")
    return GDPFilter(args.mu)


def _rruv16(args: argparse.Namespace) -> Rule:
    _need(args, "epsilon", "delta")
    return RRUV16Filter(args.epsilon, args.delta, args.h_log)


def _expost(args: argparse.Namespace) -> Rule:
    _need(args, "epsilon")
    return ExPostFilter(args.epsilon, args.delta if args.delta is not None else 0)


def _brownian(args: argparse.Namespace) -> Rule:
    _need(args, "epsilon", "delta")
    return BrownianFilter(args.epsilon, args.delta)


def _unified(args: argparse.Namespace) -> Rule:
    _need(args, "epsilon")
    slack, rest = _split(args)
    return UnifiedFilter(args.epsilon, rest, slack)


RULES: dict[str, Callable[[argparse.Namespace], Rule]] = {
    "expost": _expost,
    "brownian": _brownian,
    "unified": _unified,
    "basic": _basic,
    "pure": _pure,
    "w23": _w23,
    "zcdp": _zcdp,
    "zcdp-sum": _zcdp_sum,
    "rdp": _rdp,
    "gdp": _gdp,
    "rruv16": _rruv16,
}


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("rule", choices=sorted(RULES), help="the continuation rule")
    parser.add_argument("--epsilon", help="epsilon budget (RDP: at --alpha)")
    parser.add_argument("--delta", help="total target delta")
    parser.add_argument(
        "--delta-slack",
        help="the concentration/conversion part of --delta: delta' in W23, delta'' in "
        "R23 (default: all of --delta)",
    )
    parser.add_argument("--rho", help="zCDP budget rho (zcdp-sum)")
    parser.add_argument("--alpha", help="Renyi order (rdp)")
    parser.add_argument("--mu", help="GDP budget mu (gdp)")
    parser.add_argument(
        "--h-log",
        choices=("1/delta", "2/delta"),
        default="1/delta",
        help="RRUV16 mixture parameter H = eps_g^2/(28.04 log(1/delta_g)) (default) or "
        "with log(2/delta_g)",
    )
    parser.add_argument(
        "--json",
        nargs="?",
        const="-",
        metavar="FILE",
        help="JSON lines to standard output, or to FILE",
    )


def guarantee_fields(value: object) -> dict[str, float]:
    """A guarantee's fields as floats rounded up (upper bounds)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out: dict[str, float] = {}
        for f in dataclasses.fields(value):
            v = getattr(value, f.name)
            if isinstance(v, Fraction):
                out[f.name] = round_up(v)
        return out
    raise TypeError(f"not a guarantee: {value!r}")


def run(args: argparse.Namespace) -> int:
    rule = RULES[args.rule](args)
    state = rule.start(terminal=True)
    out: TextIO = sys.stdout
    handle: TextIO | None = None
    if args.json not in (None, "-"):
        handle = open(args.json, "w", encoding="utf-8")  # noqa: SIM115
        out = handle
    try:
        for index, spend in read_spends(sys.stdin):
            try:
                decision, state = state.spend(spend)
            except UnsupportedGuaranteeError as error:
                raise UsageError(
                    f"line {index}: rule {args.rule!r} does not support kind "
                    f"{kind_of(spend)!r} ({error})"
                ) from None
            spent_fields = guarantee_fields(state.spent())
            record = {
                "index": index,
                "decision": decision.value,
                "spent": spent_fields,
                "remaining": state.remaining(),
                "max_next": state.max_next() if decision is Decision.CONTINUE else None,
                "spec": rule.SPEC,
            }
            if args.json is not None:
                out.write(json.dumps(record) + "\n")
            else:
                spent = " ".join(f"{k}={v!r}" for k, v in spent_fields.items())
                out.write(
                    f"{index}\t{decision.value}\t{spent}\tremaining={record['remaining']!r}"
                    f"\tmax_next={record['max_next']!r}\n"
                )
            if decision is Decision.HALT:
                break
    finally:
        if handle is not None:
            handle.close()
    return 0
