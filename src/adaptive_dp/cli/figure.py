"""``adaptive-dp figure odometers --out FILE.png``: the poster's odometer comparison.

100 compositions of (0.1, 0)-DP mechanisms (by default): the corrected stitched and
mixture odometers (W23-StitchedOdometer-Corrected, W23-MixtureOdometer-Corrected), the
basic sum, and the fixed-time advanced-composition expression of the W23 filter for
reference (valid at one preselected n only, not as an odometer). The RRUV16 odometer is
not drawn: its formula was not retrieved (see adaptive_dp.odometers.w23). matplotlib is
imported lazily (the ``plot`` extra).
"""

from __future__ import annotations

import argparse
from fractions import Fraction

from adaptive_dp.cli import UsageError
from adaptive_dp.guarantees.bounds import W23Bound
from adaptive_dp.guarantees.definitions import PureDP
from adaptive_dp.numerics import ball_upper, exact, exact_delta
from adaptive_dp.odometers.w23 import W23MixtureOdometer, W23StitchedOdometer, mixture_rho_for

NAME = "figure"
HELP = "draw a figure (odometers: the poster's odometer comparison)"

__all__ = ["HELP", "NAME", "configure", "odometer_curves", "run"]


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


def odometer_curves(
    epsilon: Fraction, steps: int, delta_prime: Fraction, rho: Fraction | float
) -> dict[str, list[float]]:
    """The certified curves of the figure, indexed by label (n = 1..steps)."""
    stitched = W23StitchedOdometer(delta=delta_prime)
    mixture = W23MixtureOdometer(delta=delta_prime, rho=rho)
    fixed_n = W23Bound(delta_prime)
    s, m = stitched.start(), mixture.start()
    out: dict[str, list[float]] = {
        "stitched (corrected)": [],
        "mixture (corrected)": [],
        "basic composition": [],
        "W23 filter expression (fixed n)": [],
    }
    for n in range(1, steps + 1):
        s, m = s.spend(PureDP(epsilon)), m.spend(PureDP(epsilon))
        out["stitched (corrected)"].append(s.reading())
        out["mixture (corrected)"].append(m.reading())
        out["basic composition"].append(float(n * epsilon))
        out["W23 filter expression (fixed n)"].append(
            ball_upper(fixed_n.ball(n * epsilon * epsilon))
        )
    return out


def run(args: argparse.Namespace) -> int:
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
    curves = odometer_curves(eps, args.steps, dp, rho)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    n = list(range(1, args.steps + 1))
    styles = {"basic composition": ":", "W23 filter expression (fixed n)": "--"}
    for label, values in curves.items():
        ax.plot(n, values, styles.get(label, "-"), label=label)
    ax.set_xlabel("number of compositions n")
    ax.set_ylabel("privacy loss bound")
    ax.set_title(
        f"{args.steps} compositions of ({args.epsilon}, 0)-DP; delta' = {args.delta_slack}, "
        f"mixture rho = {float(rho):.4g}, stitched eta = 2, s = 1.4",
        fontsize=8,
    )
    ax.legend(fontsize=8)
    ax.text(
        0.01,
        0.01,
        "odometers: drift 1/2 sum eps^2 included (corrected); RRUV16 odometer not shown "
        "(formula not retrieved)",
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
