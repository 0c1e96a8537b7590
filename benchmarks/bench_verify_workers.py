"""Wall time of ``adaptive-dp verify`` on 1 and N workers, interleaved (issue 18, item 3).

Run: ``PYTHONPATH=src python benchmarks/bench_verify_workers.py [--profile quick|full]
[--only ID ...] [--workers 1 2] [--repeats 3] [--routes dask process] [--out FILE]``.
Not a test.

Each round runs, in this order, ``verify --<profile> --json FILE --workers W`` for every
``--workers`` value and every route of W > 1 (``dask``: the default route, a local Dask
cluster when the dask extra is installed; ``process``: the same batches on a
``concurrent.futures`` process pool, Dask hidden), each in a fresh process
(``subprocess``, wall time from start to exit: interpreter start-up, registry import and
cluster start-up included). Reports every time, the median per setting and the ratio
median(1 worker) / median(setting), and whether every run's JSON is the same with the
per-claim ``seconds`` removed.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HIDE_DASK = ("import sys, adaptive_dp.verify.judge.distributed as d; "
             "d.dask_available = lambda: False; from adaptive_dp.cli import main; "
             "sys.exit(main(sys.argv[1:]))")


def _command(route: str, workers: int, profile: str, only: list[str], out: Path) -> list[str]:
    args = ["verify", f"--{profile}", "--json", str(out), "--workers", str(workers)]
    if only:
        args += ["--only", *only]
    if route == "process":
        return [sys.executable, "-c", HIDE_DASK, *args]
    return [sys.executable, "-m", "adaptive_dp", *args]


def _stripped(path: Path) -> Any:
    data = json.loads(path.read_text(encoding="utf-8"))
    for claim in data["claims"]:
        claim.pop("seconds", None)
    return data


def _load() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:  # pragma: no cover - platform dependent
        return "?"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", choices=("quick", "full"), default="quick")
    parser.add_argument("--only", nargs="+", default=[], metavar="ID")
    parser.add_argument("--workers", nargs="+", type=int, default=[1, 2])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--routes", nargs="+", choices=("dask", "process"), default=["dask"])
    parser.add_argument("--out", help="also write the report (markdown) to this file")
    args = parser.parse_args()
    settings = [(w, "serial" if w == 1 else r) for w in args.workers
                for r in (["serial"] if w == 1 else args.routes)]
    times: dict[tuple[int, str], list[float]] = {s: [] for s in settings}
    reference: Any = None
    identical = True
    lines: list[str] = []
    started = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
    with tempfile.TemporaryDirectory() as tmp:
        for round_ in range(args.repeats):
            for workers, route in settings:
                out = Path(tmp) / f"{round_}-{workers}-{route}.json"
                command = _command(route, workers, args.profile, args.only, out)
                before = _load()
                start = time.perf_counter()
                code = subprocess.run(command, stdout=subprocess.DEVNULL, check=False).returncode
                seconds = time.perf_counter() - start
                times[(workers, route)].append(seconds)
                data = _stripped(out)
                if reference is None:
                    reference = data
                identical &= data == reference
                line = (f"round {round_ + 1}: workers {workers} ({route}): {seconds:.1f} s, "
                        f"exit {code}, load before {before}")
                print(line, flush=True)
                lines.append(line)
    base = statistics.median(times[(1, "serial")]) if (1, "serial") in times else None
    table = ["| workers | route | runs (s) | median (s) | speed-up vs 1 worker |",
             "|---|---|---|---|---|"]
    for (workers, route), runs in times.items():
        median = statistics.median(runs)
        ratio = f"x{base / median:.2f}" if base is not None else "-"
        table.append(f"| {workers} | {route} | {', '.join(f'{t:.1f}' for t in runs)} "
                     f"| {median:.1f} | {ratio} |")
    claims = len(reference["claims"]) if reference is not None else 0
    report = [
        f"- Command: `PYTHONPATH=src python benchmarks/bench_verify_workers.py "
        f"--profile {args.profile} --workers {' '.join(map(str, args.workers))} "
        f"--repeats {args.repeats} --routes {' '.join(args.routes)}"
        + (f" --only {' '.join(args.only)}" if args.only else "") + "`",
        f"- Started {started}; {claims} claims; {os.cpu_count()} CPUs; Python "
        f"{platform.python_version()}; load average at the end {_load()}",
        f"- JSON of every run identical (per-claim `seconds` removed): "
        f"{'yes' if identical else 'NO'}",
        "",
        *table,
        "",
        "```",
        *lines,
        "```",
    ]
    text = "\n".join(report)
    print()
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n", encoding="utf-8")
    return 0 if identical else 1


if __name__ == "__main__":
    sys.exit(main())
