"""Session store costs: the latency of one decision committed to disk
(``SessionStore.spend``: BEGIN IMMEDIATE, certified decision, row with its hash link,
COMMIT with ``synchronous=FULL``) side by side with the in-memory certified decision
(``FilterState.spend``) in the same run, and the O(n) verification on open.

Run: ``PYTHONPATH=src python benchmarks/bench_sessions.py [--spends 300] [--rounds 5]
[--dir DIR]``. Not a test.

The rule is ``w23`` with epsilon 1, delta 1e-6; every request is ``{"kind": "pure",
"epsilon": "0.001"}``. Each of ``--rounds`` rounds runs one session of ``--spends``
requests on each route, alternating which goes first; every request is timed on its own
(``time.perf_counter``). Routes: *memory* is ``FilterState.spend`` alone; *memory +
answer* adds ``spent()`` and ``remaining()``, the numbers a session answers; *store* is
``SessionStore.spend`` on a new database in ``--dir`` (default: a temporary directory),
which parses the request, decides, computes the answer and commits before returning. The
table gives the median per request of each route over all rounds and the ratios to the
in-memory decision; then the median time to open (verify) a store of ``--spends`` rows.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from fractions import Fraction
from functools import partial
from pathlib import Path

from adaptive_dp.filters.named import build_rule
from adaptive_dp.guarantees.definitions import PureDP
from adaptive_dp.sessions import SessionStore
from adaptive_dp.transcript import Header

HEADER = Header("rule", "w23", {"epsilon": "1", "delta": "1e-6"})
REQUEST = {"kind": "pure", "epsilon": "0.001"}


def memory(n: int, answer: bool) -> tuple[list[float], int]:
    """Per-request seconds of the in-memory certified path, and the admitted count."""
    state = build_rule(HEADER.name, HEADER.parameters).start()
    spend = PureDP(Fraction(REQUEST["epsilon"]))
    times, admitted = [], 0
    for _ in range(n):
        t = time.perf_counter()
        decision, state = state.spend(spend)
        if answer:
            state.spent()
            state.remaining()
        times.append(time.perf_counter() - t)
        admitted += bool(decision)
    return times, admitted


def store(n: int, path: Path) -> tuple[list[float], int]:
    """Per-request seconds of the session store (committed to disk), and the admitted
    count."""
    times, admitted = [], 0
    with SessionStore.create(path, HEADER) as session:
        for _ in range(n):
            t = time.perf_counter()
            answer = session.spend(REQUEST)
            times.append(time.perf_counter() - t)
            admitted += answer.decision == "continue"
    return times, admitted


def opening(path: Path) -> float:
    t = time.perf_counter()
    SessionStore.open(path).close()
    return time.perf_counter() - t


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spends", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--dir", type=Path, help="where the databases go (default: a temp dir)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        times: dict[str, list[float]] = {"memory": [], "memory + answer": [], "store": []}
        opens: list[float] = []
        counts: dict[str, int] = {}
        for r in range(args.rounds):
            path = Path(tmp) / f"round{r}.db"
            runs = [("memory", partial(memory, args.spends, False)),
                    ("memory + answer", partial(memory, args.spends, True)),
                    ("store", partial(store, args.spends, path))]
            for name, run in runs if r % 2 == 0 else runs[::-1]:
                found, counts[name] = run()
                times[name].extend(found)
            opens.append(opening(path))
    base = statistics.median(times["memory"])
    print(f"w23 epsilon=1 delta=1e-6, {args.spends} spends of pure 0.001 x {args.rounds} "
          "rounds; median per request")
    print(f"{'route':<18}{'median (us)':>14}{'ratio':>10}{'admitted':>10}")
    for name, found in times.items():
        median = statistics.median(found)
        print(f"{name:<18}{median * 1e6:>14.1f}{median / base:>10.1f}{counts[name]:>10}")
    print(f"open (verify {args.spends} rows): median {statistics.median(opens) * 1e3:.1f} ms "
          f"over {args.rounds} stores")


if __name__ == "__main__":
    main()
