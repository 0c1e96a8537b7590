"""``adaptive-dp figure odometers --out FILE.png``: the poster's odometer comparison.

100 compositions of (0.1, 0)-DP mechanisms (by default), W23-OdometerComparison: the
corrected stitched and mixture odometers (W23-StitchedOdometer-Corrected,
W23-MixtureOdometer-Corrected), the reconstructed RRUV16 odometer (RRUV16-Odometer, the
poster's "original odometer"), the basic sum, and the fixed-time advanced-composition
expression of the W23 filter for reference (valid at one preselected n only, not as an
odometer). matplotlib is imported lazily (the ``plot`` extra).
"""

from __future__ import annotations

import argparse
import math
from fractions import Fraction

from adaptive_dp.cli import UsageError
from adaptive_dp.guarantees.bounds import W23Bound
from adaptive_dp.guarantees.definitions import PureDP
from adaptive_dp.numerics import ball_upper, exact, exact_delta
from adaptive_dp.odometers.rruv16 import RRUV16Odometer
from adaptive_dp.odometers.w23 import W23MixtureOdometer, W23StitchedOdometer, mixture_rho_for

NAME = "figure"
HELP = "draw a figure (odometers: the poster's odometer comparison)"

__all__ = ["HELP", "NAME", "configure", "odometer_curves", "rruv16_n_for", "run"]


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", choices=("odometers",), help="which figure")
    parser.add_argument("--out", required=True, help="output image file (.png)")
    parser.add_argument("--epsilon", default="0.1", help="per-step epsilon (default 0.1)")
    parser.add_argument("--steps", type=int, default=100, help="number of compositions")
    parser.add_argument(
        "--delta-slack", default="1e-5", help="delta' of the odometers (default 1e-5)"
    )
    parser.add_argument(
        "--mixture-rho",
        help="rho of the mixture odometer (default: the minimiser at the final V)",
    )
    parser.add_argument(
        "--rruv16-n", type=int,
        help="n of the RRUV16 odometer (default: the least n with 1/n <= epsilon)",
    )


def rruv16_n_for(epsilon: Fraction) -> int:
    """The least n >= 2 with 1/n <= epsilon (the RRUV16 recollection's range)."""
    return max(2, math.ceil(1 / epsilon))


def odometer_curves(
    epsilon: Fraction, steps: int, delta_prime: Fraction, rho: Fraction | float,
    rruv16_n: int | None = None,
) -> dict[str, list[float]]:
    """W23-OdometerComparison: the certified curves of the figure, indexed by label
    (n = 1..steps): each odometer at level ``delta_prime`` (RRUV16's delta_g; its n
    defaults to :func:`rruv16_n_for`), the basic sum and the fixed-n W23 expression."""
    stitched = W23StitchedOdometer(delta=delta_prime)
    mixture = W23MixtureOdometer(delta=delta_prime, rho=rho)
    rruv16 = RRUV16Odometer(delta=delta_prime, n=rruv16_n or rruv16_n_for(epsilon))
    fixed_n = W23Bound(delta_prime)
    s, m, r = stitched.start(), mixture.start(), rruv16.start()
    out: dict[str, list[float]] = {
        "stitched (corrected)": [],
        "mixture (corrected)": [],
        "RRUV16 (reconstructed)": [],
        "basic composition": [],
        "W23 filter expression (fixed n)": [],
    }
    for n in range(1, steps + 1):
        s, m, r = s.spend(PureDP(epsilon)), m.spend(PureDP(epsilon)), r.spend(PureDP(epsilon))
        out["stitched (corrected)"].append(s.reading())
        out["mixture (corrected)"].append(m.reading())
        out["RRUV16 (reconstructed)"].append(r.reading())
        out["basic composition"].append(float(n * epsilon))
        out["W23 filter expression (fixed n)"].append(
            ball_upper(fixed_n.ball(n * epsilon * epsilon))
        )
    return out


def run(args: argparse.Namespace) -> int:
    if args.rruv16_n is not None and args.rruv16_n < 2:
        raise UsageError("--rruv16-n must be at least 2")
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise UsageError(
            "the figure needs matplotlib: install the plot extra (pip install 'adaptive-dp[plot]')"
        ) from None
    if args.steps < 1:
        raise UsageError("--steps must be at least 1")
    eps = exact(args.epsilon, "epsilon")
    dp = exact_delta(args.delta_slack, "delta_slack", allow_zero=False)
    v_final = float(args.steps * eps * eps)
    rho: Fraction | float = (
        exact(args.mixture_rho, "mixture_rho")
        if args.mixture_rho is not None
        else mixture_rho_for(v_final, float(dp))
    )
    n_rruv16 = args.rruv16_n or rruv16_n_for(eps)
    curves = odometer_curves(eps, args.steps, dp, rho, n_rruv16)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    n = list(range(1, args.steps + 1))
    styles = {"basic composition": ":", "W23 filter expression (fixed n)": "--"}
    for label, values in curves.items():
        ax.plot(n, values, styles.get(label, "-"), label=label)
    ax.set_xlabel("number of compositions n")
    ax.set_ylabel("privacy loss bound")
    ax.set_title(
        f"{args.steps} compositions of ({args.epsilon}, 0)-DP; delta' = {args.delta_slack}, "
        f"mixture rho = {float(rho):.4g}, stitched eta = 2, s = 1.4, RRUV16 n = {n_rruv16}",
        fontsize=8,
    )
    ax.legend(fontsize=8)
    ax.text(
        0.01,
        0.01,
        "odometers: drift included (W23 corrected: 1/2 sum eps^2; RRUV16: "
        "sum eps (e^eps - 1)/2); RRUV16 reconstructed from a recollection",
        transform=ax.transAxes,
        fontsize=6,
    )
    fig.tight_layout()
    try:
        fig.savefig(args.out, dpi=120)
    except OSError as error:
        raise UsageError(f"cannot write {args.out}: {error}") from None
    finally:
        plt.close(fig)
    return 0
