"""`verify --quick` time, now and at a base commit, interleaved in one run.

Run: ``PYTHONPATH=src python benchmarks/bench_verify.py [--ids ID ...] [--base REV]
[--rounds R] [--profile quick]``. Not a test.

Without ``--base``: runs the claims (default: every registered claim, as ``verify``
does) once in this process and prints each claim's seconds (claim and twins) and the
total. With ``--base REV``: ``git archive REV src`` is unpacked into a temporary
directory and the same claims are run in fresh processes, alternately with that source
and this checkout's (``rounds`` pairs, the order alternating), so a shared machine's
drift hits both alike; printed are each side's median seconds (CPU time of the process
and wall), the median of the per-pair ratios base / now, and whether the two sides'
verdicts and estimates agree to the bit (the same seed draws the same samples only if
the random streams and the float rounding of the losses are unchanged).

With ``--whole``: each side is the whole command ``python -m adaptive_dp verify
--<profile>`` in a fresh process (imports and the registry included, and any base that
has the command, even one older than the claim runner this script's child mode
imports), timed by the child's resource usage; the last line of its output is printed.
This is the figure of record in docs/results/bench-verify-quick.md.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def _child(ids: list[str], profile: str) -> dict[str, Any]:
    from adaptive_dp.verify.judge.runner import run_claim
    from adaptive_dp.verify.registry import load

    registry = load()
    chosen = [cid for cid in ids if cid in registry] if ids else list(registry)
    wall, cpu = time.perf_counter(), time.process_time()
    claims: dict[str, Any] = {}
    for cid in chosen:
        r = run_claim(registry[cid], profile, 0)
        claims[cid] = {
            "seconds": r.seconds,
            "result": [r.result.verdict.value, repr(r.result.estimate), repr(r.result.lower)],
            "twins": [[t.name, t.result.verdict.value, repr(t.result.estimate)] for t in r.twins],
        }
    return {"wall": time.perf_counter() - wall, "cpu": time.process_time() - cpu,
            "claims": claims}


def _run(src: Path, ids: list[str], profile: str) -> dict[str, Any]:
    env = dict(os.environ, PYTHONPATH=str(src))
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", "--profile", profile]
    if ids:
        cmd += ["--ids", *ids]
    out = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True).stdout
    result: dict[str, Any] = json.loads(out.splitlines()[-1])
    return result


def _interleaved(rounds: int,
                 run: Callable[[str], dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """``rounds`` runs of each side, "base" and "now" alternating first, printed."""
    runs: dict[str, list[dict[str, Any]]] = {"base": [], "now": []}
    for r in range(rounds):
        for side in ("base", "now") if r % 2 == 0 else ("now", "base"):
            runs[side].append(run(side))
            last = runs[side][-1]
            print(f"round {r + 1} {side:4}  cpu {last['cpu']:7.2f} s  "
                  f"wall {last['wall']:7.2f} s", flush=True)
    return runs


def _run_whole(src: Path, profile: str) -> dict[str, Any]:
    env = dict(os.environ, PYTHONPATH=str(src))
    cmd = [sys.executable, "-m", "adaptive_dp", "verify", f"--{profile}"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = time.perf_counter()
    done = subprocess.run(cmd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - wall
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)} (PYTHONPATH={src}) exited {done.returncode}:\n"
                         f"{done.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"wall": wall, "cpu": cpu, "last": done.stdout.strip().splitlines()[-1]}


def _compare_whole(base: str, rounds: int, profile: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", base, "src"],
                                 check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        sides = {"base": Path(tmp) / "src", "now": ROOT / "src"}
        for side in ("base", "now"):  # warm-up (bytecode caches), not counted
            print(f"warm-up {side}: {_run_whole(sides[side], profile)['last']}", flush=True)
        runs = _interleaved(rounds, lambda side: _run_whole(sides[side], profile))
    for measure in ("cpu", "wall"):
        b = [x[measure] for x in runs["base"]]
        n = [x[measure] for x in runs["now"]]
        ratios = sorted(y / x for x, y in zip(b, n, strict=True))
        print(f"{measure:4}: base median {statistics.median(b):.2f} s, now median "
              f"{statistics.median(n):.2f} s; now/base pair by pair: min {ratios[0]:.4f}, "
              f"median {statistics.median(ratios):.4f}, max {ratios[-1]:.4f}")


def _compare(ids: list[str], base: str, rounds: int, profile: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", base, "src"],
                                 check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        sides = {"base": Path(tmp) / "src", "now": ROOT / "src"}
        runs = _interleaved(rounds, lambda side: _run(sides[side], ids, profile))
    for measure in ("cpu", "wall"):
        b = [x[measure] for x in runs["base"]]
        n = [x[measure] for x in runs["now"]]
        paired = statistics.median(x / y for x, y in zip(b, n, strict=True))
        print(f"{measure:4}: base median {statistics.median(b):.2f} s, now median "
              f"{statistics.median(n):.2f} s, median of paired ratios base/now {paired:.2f}")
    base_claims, now_claims = runs["base"][0]["claims"], runs["now"][0]["claims"]
    shared = [cid for cid in now_claims if cid in base_claims]
    if len(shared) < max(len(base_claims), len(now_claims)):
        print(f"claims: {len(base_claims)} at base, {len(now_claims)} now, {len(shared)} "
              "in both (compared below)")
    differ = [cid for cid in shared
              if (base_claims[cid]["result"], base_claims[cid]["twins"])
              != (now_claims[cid]["result"], now_claims[cid]["twins"])]
    print(f"verdicts and estimates identical to the bit: {'NO' if differ else 'yes'}")
    for cid in differ:
        print(f"  differs: {cid}: base {base_claims[cid]['result']} now "
              f"{now_claims[cid]['result']}")
    slow = sorted(runs["now"][0]["claims"].items(), key=lambda kv: -kv[1]["seconds"])[:8]
    print("slowest claims now (s, first round): "
          + ", ".join(f"{cid} {v['seconds']:.2f}" for cid, v in slow))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("--ids", nargs="*", default=[], help="claim ids (default: all)")
    parser.add_argument("--base", help="a git revision to compare with, interleaved")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--profile", default="quick", choices=("quick", "full"))
    parser.add_argument("--whole", action="store_true",
                        help="time the whole verify command per side (needs --base)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(_child(args.ids, args.profile)))
        return
    if args.whole:
        if not args.base or args.ids:
            parser.error("--whole needs --base and runs every claim (no --ids)")
        _compare_whole(args.base, args.rounds, args.profile)
        return
    if args.base:
        _compare(args.ids, args.base, args.rounds, args.profile)
        return
    result = _child(args.ids, args.profile)
    for cid, v in sorted(result["claims"].items(), key=lambda kv: -kv[1]["seconds"]):
        print(f"{v['seconds']:8.2f} s  {cid}")
    print(f"total: cpu {result['cpu']:.2f} s, wall {result['wall']:.2f} s")


if __name__ == "__main__":
    main()
