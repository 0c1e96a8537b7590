"""Filter costs: one session's decision cost per rule on the certified path and on the
float fast path's scalar route, side by side in the same run; the vectorised fast path's
throughput; and a side-by-side ratio against OpenDP's privacy filter on the same session.

Run: ``python benchmarks/bench_filters.py [--spends 10000] [--repeats 5] [--paths 1000]
[--opendp-spends 10000]``. Not a test.

* single session: ``--repeats`` rounds (default 5) of ``--spends`` = n (default 10,000)
  equal spends. Each round times one whole session on the certified path
  (``rule.start()``, ``FilterState.spend(spend)``: exact running sums, arb enclosures
  where sqrt/log enter) and one on the scalar float route (``rule.float_session()``,
  ``FloatFilterState.spend(primary, delta)`` in Python floats), the two measurements
  interleaved and their order alternating from round to round (certified first in odd
  rounds, float first in even ones). Each session's time is divided by n; the table
  gives the median over the rounds of each, in microseconds per decision, and the ratio
  certified / float of the two medians. The spend value (and its float) is built once,
  outside the timed loop, on both routes. The budgets are set so that every one of the n
  spends is admitted on the certified path (the float route, summing rounded up, may
  refuse the last one: the admitted counts of the last round are printed). The line
  under the table checks issue 12's target (float route >= 5x faster for the zCDP, W23
  and pure filters) on the measured ratios;
* vectorised fast path: ``FastFilterState.spend`` on ``--paths`` sessions at once,
  decisions = paths x spends;
* OpenDP (peers extra): ``make_fully_adaptive_composition`` + ``make_privacy_filter``
  with the matching measure (zCDP sums with Gaussian mechanisms, pure-DP sums with
  Laplace mechanisms), the same number of spends, one query per spend. Each OpenDP query
  also runs the mechanism on a scalar and recomposes every past d_mid (its cost grows
  linearly with the session, so a 10,000-spend session takes minutes). OpenDP's Python
  build has no Gaussian measurement with a Rényi-divergence output measure, so the RDP
  row has no OpenDP side. The ratio is ours (certified) / OpenDP decisions per second.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from fractions import Fraction

import numpy as np

from adaptive_dp.filters.base import Rule
from adaptive_dp.filters.basic import BasicFilter, PureDPFilter
from adaptive_dp.filters.gdp import GDPFilter
from adaptive_dp.filters.rdp import RDPFilter
from adaptive_dp.filters.rruv16 import RRUV16Filter
from adaptive_dp.filters.w23 import W23Filter
from adaptive_dp.filters.zcdp import ZCDPFilter, ZCDPSumFilter
from adaptive_dp.guarantees.definitions import GDP, RDP, ZCDP, ApproxDP, PureDP
from adaptive_dp.guarantees.spends import Spend

# the rows of issue 12's target: the zCDP filters, the W23 filter and the pure filter
ISSUE_12_TARGET = (
    "zcdp (R23-Thm2)",
    "zcdp-sum (H23-Thm4.10)",
    "w23 (H23-ThmB.3)",
    "pure (CS2080-PureDPFilter)",
)


def rules(n: int) -> dict[str, tuple[Rule, Spend, float]]:
    """name -> (rule, spend, primary float) with every one of ``n`` spends admitted."""
    return {
        "pure (CS2080-PureDPFilter)": (PureDPFilter(1), PureDP(Fraction(1, n)), 1 / n),
        "basic (CS2080-BasicComp)": (
            BasicFilter(1, delta="1e-6"), ApproxDP(Fraction(1, n), 0), 1 / n
        ),
        "w23 (H23-ThmB.3)": (W23Filter(10, delta="1e-6"), PureDP("0.01"), 0.01),
        "zcdp (R23-Thm2)": (ZCDPFilter(100, delta="1e-6"), ZCDP(Fraction(1, n)), 1 / n),
        "zcdp-sum (H23-Thm4.10)": (ZCDPSumFilter(1), ZCDP(Fraction(1, n)), 1 / n),
        "rdp (H23-Thm4.6)": (RDPFilter(8, 1), RDP(8, Fraction(1, n)), 1 / n),
        "gdp (EXT-ST22)": (GDPFilter(1), GDP(Fraction(1, 2 * n)), 1 / (2 * n)),
        "rruv16 (RRUV16-Filter)": (RRUV16Filter(50, delta="1e-6"), PureDP("0.01"), 0.01),
    }


def certified_rate(rule: Rule, spend: Spend, n: int) -> tuple[float, int]:
    state = rule.start()
    start = time.perf_counter()
    admitted = 0
    for _ in range(n):
        decision, state = state.spend(spend)
        admitted += bool(decision)
    return n / (time.perf_counter() - start), admitted


def float_rate(rule: Rule, primary: float, n: int, delta: float = 0.0) -> tuple[float, int]:
    state = rule.float_session()
    start = time.perf_counter()
    admitted = 0
    for _ in range(n):
        ok, state = state.spend(primary, delta)
        admitted += ok
    return n / (time.perf_counter() - start), admitted


def fast_rate(rule: Rule, primary: float, n: int, paths: int) -> tuple[float, int]:
    state = rule.fast(paths)
    p = np.full(paths, primary)
    d = np.zeros(paths)
    admitted = 0
    start = time.perf_counter()
    for _ in range(n):
        ok, state = state.spend(p, d)
        admitted += int(ok[0])
    return n * paths / (time.perf_counter() - start), admitted


def opendp_rate(kind: str, n: int) -> float | None:
    try:
        import opendp.prelude as dp
    except ImportError:
        return None
    dp.enable_features("contrib")
    dom, met = dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float)
    if kind == "zcdp":
        measure = dp.zero_concentrated_divergence()
        # rho = 1/(2 scale^2) per spend, n spends fit a budget of 1 (with a float margin)
        mech = dp.m.make_gaussian(dom, met, scale=(n / 2) ** 0.5 * 1.0001)
    elif kind == "pure":
        measure = dp.max_divergence()
        mech = dp.m.make_laplace(dom, met, scale=n * 1.0001)
    else:
        return None
    odometer = dp.c.make_fully_adaptive_composition(dom, met, measure)
    queryable = dp.c.make_privacy_filter(odometer, d_in=1.0, d_out=1.0)(0.0)
    start = time.perf_counter()
    for _ in range(n):
        queryable(mech)
    return n / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--spends", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--paths", type=int, default=1_000)
    parser.add_argument("--opendp-spends", type=int, default=10_000)
    args = parser.parse_args()
    n = args.spends
    print(f"single session, {n} spends, median of {args.repeats} interleaved rounds")
    print(f"{'rule':28s} {'certified us':>12s} {'float us':>9s} {'ratio':>6s} "
          f"{'admitted c/f':>13s} {'vectorised/s':>13s}")
    certified: dict[str, float] = {}
    ratios: dict[str, float] = {}
    for name, (rule, spend, primary) in rules(n).items():
        c_times, f_times = [], []
        for r in range(args.repeats):
            if r % 2 == 0:
                c_rate, c_adm = certified_rate(rule, spend, n)
                f_rate, f_adm = float_rate(rule, primary, n)
            else:
                f_rate, f_adm = float_rate(rule, primary, n)
                c_rate, c_adm = certified_rate(rule, spend, n)
            c_times.append(1e6 / c_rate)
            f_times.append(1e6 / f_rate)
        c_us, f_us = statistics.median(c_times), statistics.median(f_times)
        ratios[name] = c_us / f_us
        v_rate, _ = fast_rate(rule, primary, n, args.paths)
        certified[name] = 1e6 / c_us
        print(f"{name:28s} {c_us:12.2f} {f_us:9.2f} {c_us / f_us:6.1f} "
              f"{c_adm:>6d}/{f_adm:<6d} {v_rate:13.0f}")
    checked = [(name, ratios[name]) for name in ISSUE_12_TARGET]
    verdict = "met" if all(r >= 5 for _, r in checked) else "NOT met"
    print("issue 12 target, float route >= 5x faster: "
          + ", ".join(f"{name.split()[0]} {r:.1f}x" for name, r in checked) + f": {verdict}")
    m = args.opendp_spends
    print(f"\nOpenDP privacy filter, {m}-spend session (ours: certified path, {n} spends)")
    pairs: list[tuple[str, str, Callable[[], float | None]]] = [
        ("zcdp-sum (H23-Thm4.10)", "zcdp", lambda: opendp_rate("zcdp", m)),
        ("pure (CS2080-PureDPFilter)", "pure", lambda: opendp_rate("pure", m)),
        ("rdp (H23-Thm4.6)", "rdp", lambda: opendp_rate("rdp", m)),
    ]
    for name, _, rate_fn in pairs:
        rate = rate_fn()
        if rate is None:
            print(f"{name:28s} OpenDP: not available (no matching measurement)")
        else:
            print(
                f"{name:28s} OpenDP {rate:10.0f}/s  ours {certified[name]:10.0f}/s  "
                f"ratio ours/OpenDP = {certified[name] / rate:.1f}"
            )


if __name__ == "__main__":
    main()
