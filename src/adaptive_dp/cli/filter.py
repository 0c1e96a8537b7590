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

from adaptive_dp.cli import UsageError
from adaptive_dp.cli._replay import Record, delta_flags, output, replay
from adaptive_dp.filters.base import Decision, FilterState, Rule
from adaptive_dp.filters.basic import BasicFilter, PureDPFilter
from adaptive_dp.filters.brownian import BrownianFilter, UnifiedFilter
from adaptive_dp.filters.expost import ExPostFilter
from adaptive_dp.filters.gdp import GDPFilter
from adaptive_dp.filters.rdp import RDPFilter
from adaptive_dp.filters.rruv16 import RRUV16Filter
from adaptive_dp.filters.w23 import W23Filter
from adaptive_dp.filters.zcdp import ZCDPFilter, ZCDPSumFilter
from adaptive_dp.guarantees.spends import Spend
from adaptive_dp.numerics import round_up

NAME = "filter"
HELP = "replay JSON-lines spends through a privacy filter; one decision per line"

__all__ = ["HELP", "NAME", "RULES", "configure", "decision_record", "guarantee_fields", "run"]


def _need(args: argparse.Namespace, *names: str) -> None:
    for name in names:
        if getattr(args, name) is None:
            raise UsageError(f"rule {args.rule!r} needs --{name.replace('_', '-')}")


def _w23(args: argparse.Namespace) -> Rule:
    _need(args, "epsilon")
    delta, slack = delta_flags(args, f"rule {args.rule!r}")
    return W23Filter(args.epsilon, delta=delta, delta_slack=slack)


def _zcdp(args: argparse.Namespace) -> Rule:
    _need(args, "epsilon")
    delta, slack = delta_flags(args, f"rule {args.rule!r}")
    return ZCDPFilter(args.epsilon, delta=delta, delta_slack=slack)


def _basic(args: argparse.Namespace) -> Rule:
    _need(args, "epsilon")
    return BasicFilter(args.epsilon, delta=args.delta if args.delta is not None else 0)


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
    return RRUV16Filter(args.epsilon, delta=args.delta, h_log=args.h_log)


def _expost(args: argparse.Namespace) -> Rule:
    _need(args, "epsilon")
    return ExPostFilter(args.epsilon, delta=args.delta if args.delta is not None else 0)


def _brownian(args: argparse.Namespace) -> Rule:
    _need(args, "epsilon", "delta")
    return BrownianFilter(args.epsilon, delta=args.delta)


def _unified(args: argparse.Namespace) -> Rule:
    _need(args, "epsilon")
    delta, slack = delta_flags(args, f"rule {args.rule!r}")
    return UnifiedFilter(args.epsilon, delta=delta, delta_slack=slack)


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


def decision_record(rule: Rule, state: FilterState, decision: Decision) -> Record:
    """The interchange answer to one line: decision, spent (rounded up), remaining and
    max_next (rounded down), and the rule's spec id."""
    return {
        "decision": decision.value,
        "spent": guarantee_fields(state.spent()),
        "remaining": state.remaining(),
        "max_next": state.max_next() if decision is Decision.CONTINUE else None,
        "spec": rule.SPEC,
    }


def run(args: argparse.Namespace) -> int:
    rule = RULES[args.rule](args)
    state = rule.start(terminal=True)
    with output(args.json) as out:

        def step(spend: Spend) -> tuple[Record, bool]:
            nonlocal state
            decision, state = state.spend(spend)
            return decision_record(rule, state, decision), decision is Decision.HALT

        def emit(index: int, record: Record) -> None:
            if args.json is not None:
                out.write(json.dumps({"index": index, **record}) + "\n")
                return
            spent = record["spent"]
            assert isinstance(spent, dict)
            fields = " ".join(f"{k}={v!r}" for k, v in spent.items())
            out.write(
                f"{index}\t{record['decision']}\t{fields}\tremaining={record['remaining']!r}"
                f"\tmax_next={record['max_next']!r}\n"
            )

        replay(sys.stdin, rule, f"rule {args.rule!r}", step, emit)
    return 0
