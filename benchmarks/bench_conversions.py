"""Certified conversions, before and after issue 15 item 2 ("tight curves everywhere").

Run: ``PYTHONPATH=src python benchmarks/bench_conversions.py [--repeats 5] [--base REV]``.
Not a test.

The "before" algorithm is today's source of ``guarantees/gdp.py`` and
``guarantees/zcdp.py`` at ``--base`` (default: the merge base with ``main``), read with
``git show`` into temporary modules (so no old code lives in ``src``). For each grid
point (mu or rho, delta), including delta near 1, the old and new conversions are
timed interleaved, ``--repeats`` rounds each (order alternating per round); the table
gives the median ms per conversion of each, their ratio, and the distance in ulps of
each result above the exact value (50-digit mpmath: bisection on the GDP curve, a grid
then golden section over t = log(alpha - 1) for the zCDP optimum). The summary line
gives the overall medians, the median ratio and the max ulps.
"""

from __future__ import annotations

import argparse
import math
import platform
import statistics
import subprocess
import sys
import time
import types
from collections.abc import Callable
from functools import partial
from pathlib import Path

import mpmath

from adaptive_dp.guarantees import GDP, ZCDP, ApproxDP, gdp_to_dp, zcdp_to_dp_optimal

ROOT = Path(__file__).resolve().parents[1]
DELTAS = [1e-12, 1e-6, 0.3, 0.7, 1 - 1e-7, 1 - 1e-12]
MUS = [0.01, 0.5, 1.0, 3.0, 10.0, 30.0]
RHOS = [0.005, 0.5, 10.0, 1000.0]
DPS = 50


def old_module(rev: str, path: str, name: str) -> types.ModuleType:
    source = subprocess.run(
        ["git", "show", f"{rev}:{path}"], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout
    module = types.ModuleType(name)
    exec(compile(source, f"{rev}:{path}", "exec"), module.__dict__)
    return module


def gdp_exact(mu: float, delta: float) -> mpmath.mpf:
    with mpmath.workdps(DPS):
        m, d = mpmath.mpf(mu), mpmath.mpf(delta)

        def curve(e: mpmath.mpf) -> mpmath.mpf:
            return mpmath.ncdf(-e / m + m / 2) - mpmath.exp(e) * mpmath.ncdf(-e / m - m / 2)

        if curve(mpmath.mpf(0)) <= d:
            return mpmath.mpf(0)
        lo, hi = mpmath.mpf(0), mpmath.mpf(1)
        while curve(hi) > d:
            lo, hi = hi, 2 * hi
        for _ in range(200):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if curve(mid) > d else (lo, mid)
        return hi


def zcdp_exact(rho: float, delta: float) -> mpmath.mpf:
    with mpmath.workdps(DPS):
        r, d = mpmath.mpf(rho), mpmath.mpf(delta)

        def f(t: mpmath.mpf) -> mpmath.mpf:
            am1 = mpmath.exp(t)
            la = mpmath.log1p(am1)
            return (1 + am1) * r + (-mpmath.log(d) + am1 * (t - la) - la) / am1

        ts = [mpmath.mpf(i) / 2 for i in range(-120, 401)]
        values = [f(t) for t in ts]
        i = min(range(len(ts)), key=lambda j: values[j])
        a, b = ts[max(i - 1, 0)], ts[min(i + 1, len(ts) - 1)]
        g = (mpmath.sqrt(5) - 1) / 2
        for _ in range(200):
            c, e = b - g * (b - a), a + g * (b - a)
            a, b = (a, e) if f(c) <= f(e) else (c, b)
        return max(f((a + b) / 2), mpmath.mpf(0))


def ulps(value: float, exact: mpmath.mpf) -> float:
    with mpmath.workdps(DPS):
        if value == 0:
            return 0.0 if exact == 0 else math.inf
        return float((mpmath.mpf(value) - exact) / math.ulp(value))


def timed(call: Callable[[], ApproxDP]) -> tuple[float, float]:
    start = time.perf_counter()
    result = call()
    return (time.perf_counter() - start) * 1e3, float(result.epsilon)


BASE = "f42a5b3"
"""The old conversions: main before issue 15's float-search-then-certify conversions."""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--base", default=BASE,
                        help=f"revision of the old algorithm (default {BASE}: the last commit "
                        "before the float-search conversions)")
    args = parser.parse_args()
    base = args.base
    old_gdp = old_module(base, "src/adaptive_dp/guarantees/gdp.py", "_old_gdp")
    old_zcdp = old_module(base, "src/adaptive_dp/guarantees/zcdp.py", "_old_zcdp")
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, check=True,
                            capture_output=True, text=True).stdout.strip()
    print(f"# bench_conversions: base {base[:7]} (old) vs HEAD {commit} (new); "
          f"python {platform.python_version()}, {platform.machine()}, repeats {args.repeats}")
    cases: list[tuple[str, str, Callable[[], ApproxDP], Callable[[], ApproxDP], mpmath.mpf]] = []
    for mu in MUS:
        for d in DELTAS:
            cases.append(("gdp-to-dp", f"mu={mu:g}",
                          partial(old_gdp.gdp_to_dp, GDP(mu), d),
                          partial(gdp_to_dp, GDP(mu), d), gdp_exact(mu, d)))
    for rho in RHOS:
        for d in DELTAS:
            cases.append(("zcdp-to-dp", f"rho={rho:g}",
                          partial(old_zcdp.zcdp_to_dp_optimal, ZCDP(rho), d),
                          partial(zcdp_to_dp_optimal, ZCDP(rho), d),
                          zcdp_exact(rho, d)))
    print("| conversion | parameter | delta | old ms | new ms | ratio | old ulps | new ulps |")
    print("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |")
    summary: dict[str, list[tuple[float, float, float, float]]] = {}
    for (kind, param, old, new, exact), d in zip(cases, DELTAS * (len(MUS) + len(RHOS)),
                                                 strict=True):
        old_ms: list[float] = []
        new_ms: list[float] = []
        old_eps = new_eps = math.nan
        for r in range(args.repeats):
            pair = [(old, old_ms), (new, new_ms)]
            for call, sink in pair if r % 2 == 0 else pair[::-1]:
                ms, eps = timed(call)
                sink.append(ms)
                if sink is old_ms:
                    old_eps = eps
                else:
                    new_eps = eps
        om, nm = statistics.median(old_ms), statistics.median(new_ms)
        ou, nu = ulps(old_eps, exact), ulps(new_eps, exact)
        summary.setdefault(kind, []).append((om, nm, ou, nu))
        print(f"| {kind} | {param} | {d:.12g} | {om:.3f} | {nm:.3f} | {om / nm:.0f} | "
              f"{ou:.3g} | {nu:.3g} |")
        sys.stdout.flush()
    for kind, rows in summary.items():
        print(f"\n{kind}: median old {statistics.median(r[0] for r in rows):.3f} ms, "
              f"new {statistics.median(r[1] for r in rows):.3f} ms, median ratio "
              f"{statistics.median(r[0] / r[1] for r in rows):.0f}x (min "
              f"{min(r[0] / r[1] for r in rows):.0f}x); max ulps above exact: old "
              f"{max(r[2] for r in rows):.3g}, new {max(r[3] for r in rows):.3g}; min ulps "
              f"(>= 0 means never below exact): old {min(r[2] for r in rows):.3g}, new "
              f"{min(r[3] for r in rows):.3g}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
