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

The timings are interleaved (one simulator batch, one block of normals drawn into a
preallocated array, one into a fresh array; ``repeats`` rounds, the order rotating), so
a shared machine's drift hits all alike; printed are the ratio of the best times and
the median of the per-round ratios. The headline baseline draws into a preallocated
array: raw generation, not skewed by the allocator (a fresh 16 MB array can cost page
faults that depend on what else the process holds, e.g. the simulator's reused
history arrays); the fresh-array figures are printed beside it.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import numpy as np

from adaptive_dp.interactive.adversary import GAUSSIAN
from adaptive_dp.verify.judge.adversaries import BudgetHugging
from adaptive_dp.verify.judge.simulate import simulate

STEPS = 100


def _timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("--paths", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    adversary = BudgetHugging((GAUSSIAN,), 2.25, STEPS, "mu2", 0.1, 0.4, 0.0)
    block = np.empty((args.paths, STEPS))

    runs: dict[str, Callable[[], object]] = {
        "sim": lambda: simulate(adversary, args.paths, rng),
        "raw": lambda: rng.standard_normal((args.paths, STEPS), out=block),
        "fresh": lambda: rng.standard_normal((args.paths, STEPS)),
    }
    for run in runs.values():  # warm-up (imports, first allocations)
        run()
    times: dict[str, list[float]] = {name: [] for name in runs}
    names = list(runs)
    for r in range(args.repeats):  # interleaved, the order rotating each round
        for name in names[r % 3:] + names[:r % 3]:
            times[name].append(_timed(runs[name]))
    sim, raw, fresh = times["sim"], times["raw"], times["fresh"]
    releases = args.paths * STEPS

    def paired(base: list[float]) -> float:
        return statistics.median(b / s for s, b in zip(sim, base, strict=True))

    rows = [
        ("paths x steps, rounds", f"{args.paths} x {STEPS}, {args.repeats} interleaved"),
        ("simulator s (best / median)", f"{min(sim):.4f} / {statistics.median(sim):.4f}"),
        ("normals into a block s (best / median)",
         f"{min(raw):.4f} / {statistics.median(raw):.4f}"),
        ("normals, fresh array s (best / median)",
         f"{min(fresh):.4f} / {statistics.median(fresh):.4f}"),
        ("simulator, loss samples / s (median)",
         f"{args.paths / statistics.median(sim):,.0f}"),
        ("simulator, releases / s (median)", f"{releases / statistics.median(sim):,.0f}"),
        ("numpy standard_normal, draws / s (median)",
         f"{releases / statistics.median(raw):,.0f}"),
        ("ratio of bests (releases / normal draws)", f"{min(raw) / min(sim):.3f}"),
        ("ratio, median of paired rounds", f"{paired(raw):.3f}"),
        ("same against a fresh array: bests, paired",
         f"{min(fresh) / min(sim):.3f}, {paired(fresh):.3f}"),
    ]
    width = max(len(r[0]) for r in rows)
    for name, value in rows:
        print(f"{name.ljust(width)}  {value}")


if __name__ == "__main__":
    main()
