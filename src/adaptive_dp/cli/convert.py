"""``adaptive-dp convert``: certified conversions between privacy guarantees.

Sub-subcommands ``zcdp-to-dp``, ``gdp-to-dp``, ``rdp-to-dp`` and ``compose``. Every
epsilon and delta printed is an upper bound rounded up (docs/design.md, principle 5); numbers
given on the command line are exact decimals (principle 6).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from fractions import Fraction

from adaptive_dp.cli import UsageError
from adaptive_dp.errors import NonFiniteResultError, ParameterError
from adaptive_dp.guarantees import (
    GDP,
    RDP,
    ZCDP,
    ApproxDP,
    PureDP,
    RDPCurve,
    compose_advanced,
    compose_kov,
    gdp_to_dp,
    rdp_to_dp,
    zcdp_to_dp_bun_steinke,
    zcdp_to_dp_optimal,
)
from adaptive_dp.guarantees.optimal import MAX_TERMS, compose_optimal
from adaptive_dp.interchange import read_spends
from adaptive_dp.numerics import exact, round_up

NAME = "convert"
HELP = "Convert a privacy guarantee to (epsilon, delta)-DP, or compose (epsilon, delta)-DP."

_ZCDP_METHODS = {"cks": "cks20", "cks20": "cks20", "bun-steinke": "bun-steinke"}
_SPEC = {
    "cks20": "EXT-CKS20",
    "bun-steinke": "R23-Lem2.3",
    "drs19": "EXT-DRS19",
    "bbghs20": "EXT-BBGHS20",
    "mironov17": "EXT-Mironov17",
    "rdp-cks20": "EXT-CKS20",
    "basic": "CS2080-BasicComp",
    "advanced": "CS2080-AdvComp",
    "kov15": "EXT-KOV15",
    "optimal": "EXT-MV16",
}


def _add_json(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--json",
        nargs="?",
        const="-",
        default=None,
        metavar="FILE",
        help='print {"epsilon", "delta", "method", "spec"} as JSON to stdout, or to FILE',
    )


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the ``convert`` sub-subcommands."""
    sub = parser.add_subparsers(dest="conversion", metavar="CONVERSION", required=True)

    z = sub.add_parser(
        "zcdp-to-dp",
        help="rho-zCDP -> (epsilon, delta)-DP",
        description=(
            "rho-zCDP -> (epsilon, delta)-DP. Method cks (EXT-CKS20, Canonne-Kamath-Steinke "
            "2020): the smallest epsilon = inf_alpha alpha rho + (log(1/delta) + (alpha-1) "
            "log(1-1/alpha) - log alpha)/(alpha-1). Method bun-steinke (R23-Lem2.3 (ii)): "
            "epsilon = rho + 2 sqrt(rho log(1/delta'')), with delta'' = --delta."
        ),
    )
    z.add_argument("--rho", required=True, help="zCDP parameter rho (>= 0)")
    z.add_argument(
        "--delta",
        required=True,
        help="total target delta, 0 < delta < 1 (delta'' in R23-Lem2.3 for bun-steinke)",
    )
    z.add_argument("--method", choices=sorted(_ZCDP_METHODS), default="cks")
    _add_json(z)
    z.set_defaults(_convert=_zcdp_to_dp)

    g = sub.add_parser(
        "gdp-to-dp",
        help="mu-GDP -> (epsilon, delta)-DP (EXT-DRS19)",
        description=(
            "mu-GDP -> (epsilon, delta)-DP (EXT-DRS19, Dong-Roth-Su): the smallest epsilon "
            "with Phi(-epsilon/mu + mu/2) - e^epsilon Phi(-epsilon/mu - mu/2) <= delta."
        ),
    )
    g.add_argument("--mu", required=True, help="GDP parameter mu (>= 0)")
    g.add_argument("--delta", required=True, help="target delta, 0 < delta < 1")
    _add_json(g)
    g.set_defaults(_convert=_gdp_to_dp)

    r = sub.add_parser(
        "rdp-to-dp",
        help="(alpha, epsilon)-RDP -> (epsilon', delta)-DP",
        description=(
            "(alpha, epsilon)-RDP -> (epsilon', delta)-DP. bbghs20 (EXT-BBGHS20): "
            "epsilon' = epsilon + log((alpha-1)/alpha) - (log delta + log alpha)/(alpha-1); "
            "mironov17 (EXT-Mironov17): epsilon' = epsilon + log(1/delta)/(alpha-1); cks20: "
            "same expression as bbghs20. With --curve, the smallest over the orders."
        ),
    )
    r.add_argument("--alpha", help="Rényi order alpha (> 1)")
    r.add_argument("--epsilon", help="Rényi divergence bound epsilon at alpha (>= 0)")
    r.add_argument("--curve", help='an RDP curve "alpha:epsilon,alpha:epsilon,..."')
    r.add_argument("--delta", required=True, help="target delta, 0 < delta < 1")
    r.add_argument("--method", choices=["bbghs20", "mironov17", "cks20"], default="bbghs20")
    _add_json(r)
    r.set_defaults(_convert=_rdp_to_dp)

    c = sub.add_parser(
        "compose",
        help="composition of (epsilon, delta)-DP mechanisms",
        description=(
            "k-fold composition of an (epsilon, delta)-DP mechanism. basic "
            "(CS2080-BasicComp): (k epsilon, k delta). advanced (CS2080-AdvComp, DRV10): "
            "(epsilon sqrt(2k ln(1/delta')) + k epsilon (e^epsilon - 1), k delta + delta'). "
            "kov (EXT-KOV15, optimal): the smallest (k - 2i) epsilon whose total delta "
            "1 - (1-delta)^k (1-delta_i) is <= k delta + delta'. optimal (EXT-MV16, "
            "Murtagh-Vadhan): the smallest epsilon_g, rounded up and certified within 2 ulps, "
            "with 1 - prod_i (1-delta_i) (1 - delta_pure(epsilon_g)) <= the total delta, of "
            "--k equal mechanisms or of the pure/approx lines of --spends FILE (epsilons may "
            "differ). Here delta is each mechanism's --mechanism-delta; give the total target "
            "--delta (= k delta + delta', or the sum of the spends' deltas + delta') or the "
            "slack --delta-slack (delta'), not both."
        ),
    )
    c.add_argument("--rule", choices=["basic", "advanced", "kov", "optimal"], required=True)
    c.add_argument("--epsilon", help="each mechanism's epsilon (>= 0)")
    c.add_argument(
        "--mechanism-delta", default="0", help="each mechanism's delta, 0 <= delta < 1"
    )
    c.add_argument(
        "--delta", help="total target delta k delta + delta' (advanced, kov), 0 < delta < 1"
    )
    c.add_argument("--k", type=int, help="number of mechanisms k (>= 1)")
    c.add_argument(
        "--delta-slack",
        help="delta' of advanced composition (advanced, kov; or give --delta), 0 < delta' < 1",
    )
    c.add_argument(
        "--spends",
        metavar="FILE",
        help="(--rule optimal, instead of --epsilon, --k, --mechanism-delta) one interchange "
        'line per mechanism: {"kind": "pure", "epsilon": ...} or {"kind": "approx", ...}',
    )
    _add_json(c)
    c.set_defaults(_convert=_compose)


KOV_MAX_K = 100_000
"""The largest k of ``--rule kov``: its certified sum takes O(k log k) ball operations."""
_NUMERIC_FLAGS = ("rho", "mu", "alpha", "epsilon", "delta", "delta_slack", "k", "curve")

def _zcdp_to_dp(args: argparse.Namespace) -> tuple[ApproxDP, str]:
    method = _ZCDP_METHODS[args.method]
    g = ZCDP(args.rho)
    if method == "cks20":
        return zcdp_to_dp_optimal(g, args.delta), method
    try:
        return zcdp_to_dp_bun_steinke(g, args.delta), method
    except ParameterError as error:  # --delta is R23-Lem2.3's delta'' (delta_slack)
        if error.name != "delta_slack":
            raise
        raise UsageError(f"--delta {args.delta}: expected {error.allowed}") from None


def _gdp_to_dp(args: argparse.Namespace) -> tuple[ApproxDP, str]:
    return gdp_to_dp(GDP(args.mu), args.delta), "drs19"


def _parse_curve(text: str) -> RDPCurve:
    points: list[tuple[str, str]] = []
    for part in text.split(","):
        pieces = part.split(":")
        if len(pieces) != 2 or not pieces[0].strip() or not pieces[1].strip():
            raise UsageError(f'--curve: {part!r} is not "alpha:epsilon"')
        points.append((pieces[0].strip(), pieces[1].strip()))
    return RDPCurve(points)


def _rdp_to_dp(args: argparse.Namespace) -> tuple[ApproxDP, str]:
    if args.curve is not None:
        if args.alpha is not None or args.epsilon is not None:
            raise UsageError("give either --curve or --alpha with --epsilon, not both")
        guarantee: RDP | RDPCurve = _parse_curve(args.curve)
    else:
        if args.alpha is None or args.epsilon is None:
            raise UsageError("give --alpha and --epsilon (or --curve)")
        guarantee = RDP(args.alpha, args.epsilon)
    return rdp_to_dp(guarantee, args.delta, method=args.method), args.method


def _slack(args: argparse.Namespace, spent: Fraction, what: str) -> Fraction:
    """delta' from --delta-slack, or --delta minus the mechanisms' deltas (``spent``)."""
    if (args.delta is None) == (args.delta_slack is None):
        raise UsageError(f"--rule {args.rule} needs exactly one of --delta and --delta-slack")
    if args.delta_slack is not None:
        slack = exact(args.delta_slack, "delta_slack")
    else:
        slack = exact(args.delta, "delta") - spent
    if slack <= 0:
        raise UsageError(f"delta' = {slack} is not allowed: expected --delta > {what}")
    return slack


def _read_spends(path: str) -> list[PureDP | ApproxDP]:
    try:
        with open(path, encoding="utf-8") as handle:
            spends = list(read_spends(handle))
    except OSError as error:
        raise UsageError(f"--spends {path}: {error.strerror}") from None
    found: list[PureDP | ApproxDP] = []
    for line, spend in spends:
        if not isinstance(spend, PureDP | ApproxDP):
            raise UsageError(f"--spends {path}, line {line}: --rule optimal takes pure or "
                             f"approx spends, not {type(spend).__name__}")
        found.append(spend)
    if not found:
        raise UsageError(f"--spends {path}: no spends")
    return found


def _compose_spends(args: argparse.Namespace) -> tuple[ApproxDP, str]:
    if args.rule != "optimal":
        raise UsageError(f"--spends is for --rule optimal, not --rule {args.rule}")
    if args.epsilon is not None or args.k is not None or args.mechanism_delta != "0":
        raise UsageError("give either --spends or --epsilon, --k, --mechanism-delta")
    spends = _read_spends(args.spends)
    spent = sum((s.delta for s in spends if isinstance(s, ApproxDP)), Fraction(0))
    slack = _slack(args, spent, "the sum of the spends' deltas")
    return compose_optimal(spends, spent + slack), "optimal"


def _compose(args: argparse.Namespace) -> tuple[ApproxDP, str]:
    if args.spends is not None:
        return _compose_spends(args)
    if args.epsilon is None or args.k is None:
        raise UsageError(f"--rule {args.rule} needs --epsilon and --k"
                         + (" (or --spends)" if args.rule == "optimal" else ""))
    delta = exact(args.mechanism_delta, "mechanism_delta")
    base: PureDP | ApproxDP = (
        PureDP(args.epsilon) if delta == 0 else ApproxDP(args.epsilon, args.mechanism_delta)
    )
    k: int = args.k
    if k < 1:
        raise UsageError(f"--k={k} is not allowed: expected an int >= 1")
    if args.rule == "basic":
        if args.delta is not None or args.delta_slack is not None:
            raise UsageError("--rule basic takes no --delta or --delta-slack (its delta: k delta)")
        if k * delta >= 1:
            raise UsageError(f"--rule basic: k * --mechanism-delta = {k * delta} must be < 1")
        return ApproxDP(k * base.epsilon, k * delta), "basic"  # CS2080-BasicComp, k equal terms
    if args.rule == "kov" and k > KOV_MAX_K:
        raise UsageError(
            f"--k={k} is too large for --rule kov (its exact sum has k terms; at most "
            f"{KOV_MAX_K}): use --rule advanced"
        )
    if args.rule == "optimal" and k >= MAX_TERMS:
        raise UsageError(
            f"--k={k} is too large for --rule optimal (its exact sum has k + 1 terms; at most "
            f"{MAX_TERMS}): use --rule kov"
        )
    slack = _slack(args, k * delta, "k * --mechanism-delta")
    if args.rule == "advanced":
        return compose_advanced(base, k, slack), "advanced"
    if args.rule == "optimal":
        return compose_optimal([base] * k, k * delta + slack), "optimal"
    return compose_kov(base, k, k * delta + slack), "kov15"


def _spec(method: str, conversion: str) -> str:
    if conversion == "rdp-to-dp" and method == "cks20":
        return _SPEC["rdp-cks20"]
    return _SPEC[method]


def run(args: argparse.Namespace) -> int:
    """Run one conversion and print it."""
    convert: Callable[[argparse.Namespace], tuple[ApproxDP, str]] = args._convert
    try:
        result, method = convert(args)
    except (NonFiniteResultError, OverflowError):
        given = " ".join(
            f"--{name.replace('_', '-')} {value}" for name, value in sorted(vars(args).items())
            if name in _NUMERIC_FLAGS and value is not None
        )
        raise UsageError(
            f"{args.conversion}: no finite certified value for {given} (beyond the "
            "computable range)"
        ) from None
    epsilon = round_up(result.epsilon)
    delta = round_up(result.delta)
    spec = _spec(method, args.conversion)
    if args.json is None:
        sys.stdout.write(
            f"({epsilon!r}, {delta!r})-DP  [method {method}, {spec}; upper bounds rounded up]\n"
        )
        return 0
    payload = {"epsilon": repr(epsilon), "delta": repr(delta), "method": method, "spec": spec}
    text = json.dumps(payload) + "\n"
    if args.json == "-":
        sys.stdout.write(text)
    else:
        try:
            with open(args.json, "w", encoding="utf-8") as handle:
                handle.write(text)
        except OSError as error:
            raise UsageError(f"--json {args.json}: {error.strerror}") from None
    return 0


