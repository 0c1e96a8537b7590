"""``adaptive-dp verify``: run the registered claims and their negative controls.

Prints the report of :mod:`adaptive_dp.verify.judge.report` (the claims table with the
verdict rule under it, and the twins) or, with ``--json``, its JSON; a progress bar on
standard error when it is a terminal. Exit status 1 on any violated claim or uncaught
twin, and on weak claims with ``--strict``; 0 otherwise.

``--workers N`` shards the claims' path batches over N local processes (a Dask
``LocalCluster`` with the ``dask`` extra, else a process pool), ``--scheduler ADDRESS``
over an existing Dask cluster; the JSON is the same as with one worker, timings aside
(docs/design.md, random seeds).
"""

from __future__ import annotations

import argparse
import json

from adaptive_dp.cli import UsageError
from adaptive_dp.cli._progress import progress
from adaptive_dp.cli._workers import add_flags, check, reaching
from adaptive_dp.verify.judge.report import report, to_json
from adaptive_dp.verify.judge.runner import ClaimResult, run_claims, select
from adaptive_dp.verify.judge.verdicts import Verdict
from adaptive_dp.verify.registry import REGISTRY, load

NAME = "verify"
HELP = "Check every registered privacy claim statistically, with negative controls."


def configure(parser: argparse.ArgumentParser) -> None:
    profile = parser.add_mutually_exclusive_group()
    profile.add_argument("--quick", dest="profile", action="store_const", const="quick",
                         help="quick profile: claimed deltas 0.02 to 0.2 (default)")
    profile.add_argument("--full", dest="profile", action="store_const", const="full",
                         help="full profile: claimed deltas 1e-3 (slow)")
    parser.set_defaults(profile="quick")
    parser.add_argument("--strict", action="store_true", help="exit 1 on weak claims too")
    parser.add_argument("--only", nargs="+", metavar="ID",
                        help="claim ids, spec ids or id prefixes to run")
    parser.add_argument("--json", nargs="?", const="-", metavar="FILE",
                        help="JSON to standard output, or to FILE")
    parser.add_argument("--seed", type=int, default=0, help="seed (default 0)")
    add_flags(parser, "path batches")
    parser.add_argument("--list", action="store_true", help="list the claims and exit")


def run(args: argparse.Namespace) -> int:
    check(args)
    try:
        ids = select(REGISTRY, args.only)
    except KeyError as error:
        raise UsageError(f"--only {error.args[0]!r}: no such claim (see --list)") from None
    if args.list:
        for cid in ids:
            claim = REGISTRY[cid]
            twins = ", ".join(t.name for t in claim.twins) or "-"
            print(f"{cid}  [{claim.quantity.value}]  twins: {twins}  {claim.summary}")
        return 0
    bar = progress(len(ids), "claim", quiet=args.json == "-")

    def tick(result: ClaimResult) -> None:
        bar.set_postfix_str(result.claim_id, refresh=False)
        bar.update(1)

    try:
        with reaching(args):
            results = run_claims(load, ids, args.profile, args.seed, args.workers, tick,
                                 scheduler=args.scheduler)
    finally:
        bar.close()
    bad = any(r.verdict in (Verdict.VIOLATED, Verdict.ERROR) or not all(t.caught for t in r.twins)
              for r in results)
    weak = any(r.verdict is Verdict.WEAK for r in results)
    code = 1 if bad or (args.strict and weak) else 0
    if args.json == "-":
        print(json.dumps(to_json(results, args.profile, args.seed, code), indent=2,
                         allow_nan=False))
        return code
    print(report(results, args.profile))
    if args.json is not None:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(to_json(results, args.profile, args.seed, code), handle, indent=2,
                      allow_nan=False)
            handle.write("\n")
    return code
