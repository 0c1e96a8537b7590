"""Simulator throughput: privacy-loss samples per second of a 100-step adaptive Gaussian
composition, as a ratio to numpy's raw normal generation measured in the same run.

Run: ``python benchmarks/bench_simulator.py [--paths N] [--repeats R]``. Not a test.

One privacy-loss sample is the total loss of one simulated transcript: 100 Gaussian
releases whose mu_i a budget-hugging adversary chooses from the outputs so far (10% of
the remaining mu^2, 40% on paths whose running loss is above 0, the rest at step 100),
each release's loss computed from the Gaussian log densities. The baseline draws the
same number of standard normals (paths x 100) with ``Generator.standard_normal``; the
ratio is (loss samples x 100 per second) / (normals per second), i.e. how close the
simulator comes to the cost of generating its noise alone.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np

from adaptive_dp.interactive.adversary import GAUSSIAN
from adaptive_dp.verify.judge.adversaries import BudgetHugging
from adaptive_dp.verify.judge.simulate import simulate

STEPS = 100


def _best(fn: Callable[[], None], repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("--paths", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    adversary = BudgetHugging((GAUSSIAN,), 2.25, STEPS, "mu2", 0.1, 0.4, 0.0)

    def run_simulator() -> None:
        simulate(adversary, args.paths, rng)

    def run_normals() -> None:
        rng.standard_normal((args.paths, STEPS))

    sim = _best(run_simulator, args.repeats)
    raw = _best(run_normals, args.repeats)
    losses_per_s = args.paths / sim
    normals_per_s = args.paths * STEPS / raw
    ratio = losses_per_s * STEPS / normals_per_s
    rows = [
        ("paths x steps", f"{args.paths} x {STEPS}"),
        ("simulator, loss samples / s", f"{losses_per_s:,.0f}"),
        ("simulator, releases / s", f"{losses_per_s * STEPS:,.0f}"),
        ("numpy standard_normal, draws / s", f"{normals_per_s:,.0f}"),
        ("ratio (releases / normal draws)", f"{ratio:.3f}"),
    ]
    width = max(len(r[0]) for r in rows)
    for name, value in rows:
        print(f"{name.ljust(width)}  {value}")


if __name__ == "__main__":
    main()
