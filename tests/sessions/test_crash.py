"""Crash safety and concurrency of the session store across real processes: children
killed with SIGKILL at seeded random times, then resumed with retries of the same ids;
four processes sharing one database against a budget whose admitted count is known by
hand. Expected decisions and totals are recomputed here with exact rationals."""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from fractions import Fraction
from pathlib import Path

import pytest

from adaptive_dp.sessions import SessionStore
from adaptive_dp.transcript import Header

SRC = str(Path(__file__).resolve().parents[2] / "src")

CHILD = r"""
import json, sys
from adaptive_dp.sessions import SessionStore
path, prefix, start = sys.argv[1], sys.argv[2], int(sys.argv[4])
epsilons = json.loads(sys.argv[3])
with SessionStore.open(path) as store:
    print("ready", flush=True)
    for i, epsilon in enumerate(epsilons[start:], start=start):
        answer = store.spend({"kind": "pure", "epsilon": epsilon}, f"{prefix}{i}")
        print(json.dumps(answer.record()), flush=True)
"""
"""Opens the store, then spends ``epsilons`` from position ``start`` on, with ids
prefix<i>; prints each answer (flushed) after the store returned it."""


def child(path: Path, prefix: str, epsilons: list[str], start: int = 0
          ) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": SRC}
    return subprocess.Popen([sys.executable, "-c", CHILD, str(path), prefix,
                             json.dumps(epsilons), str(start)], stdout=subprocess.PIPE,
                            text=True, env=env)


def rows(path: Path) -> list[tuple[int, str, str, str, list[Fraction]]]:
    """(index, id, epsilon, decision, sums) of every stored row, read with sqlite3."""
    with sqlite3.connect(path) as db:
        found = db.execute("SELECT idx, request_id, spend, decision, sums FROM requests "
                           "ORDER BY idx").fetchall()
    db.close()
    return [(i, rid, json.loads(spend)["epsilon"], decision,
             [Fraction(s) for s in json.loads(sums)]) for i, rid, spend, decision, sums in found]


def answer_key(record: dict[str, object]) -> tuple[object, ...]:
    return record["index"], record["decision"], record["spent"], record["remaining"]


def check_store(path: Path, budget: Fraction, ids: list[str], epsilons: dict[str, str],
                printed: dict[str, dict[str, object]]) -> int:
    """Reopen (verifies the chain and the replay), then check every stored row against a
    hand-written basic rule (admit iff the exact total stays within ``budget``), the
    stored exact totals, and every printed answer. Returns the number of rows."""
    with SessionStore.open(path) as store:
        status = store.status()
    stored = rows(path)
    assert [r[1] for r in stored] == ids[:len(stored)]  # in order: none lost, none twice
    assert [r[0] for r in stored] == list(range(1, len(stored) + 1))
    total = Fraction(0)
    for _, rid, epsilon, decision, sums in stored:
        assert epsilon == epsilons[rid]
        admit = total + Fraction(epsilon) <= budget
        total += Fraction(epsilon) if admit else 0
        assert decision == ("continue" if admit else "halt"), rid
        assert sums == [total, Fraction(0)], rid
    assert status.count == len(stored)
    assert status.admitted == sum(r[3] == "continue" for r in stored)
    by_id = {r[1]: r for r in stored}
    for rid, record in printed.items():
        assert rid in by_id, f"{rid} was answered but is not stored"
        assert (record["index"], record["decision"]) == (by_id[rid][0], by_id[rid][3])
    return len(stored)


def kill_and_resume(tmp_path: Path, kills: int, seed: int, n: int) -> None:
    """``kills`` children killed at seeded random times, each retrying the last five
    answered ids and whatever was committed but not printed; then one child retrying
    every id from the first and finishing the stream."""
    rng = random.Random(seed)
    path = tmp_path / "s.db"
    budget = Fraction(3)
    epsilons = [rng.choice(["0.05", "0.1", "0.25"]) for _ in range(n)]
    ids = [f"r{i}" for i in range(n)]
    by_id = dict(zip(ids, epsilons, strict=True))
    SessionStore.create(path, Header("rule", "basic", {"epsilon": "3"})).close()
    printed: dict[str, dict[str, object]] = {}
    stored = 0
    for trial in range(kills + 1):
        if trial == kills:
            assert stored < n  # the kills interrupted the stream
        proc = child(path, "r", epsilons, max(0, len(printed) - 5) if trial < kills else 0)
        assert proc.stdout is not None
        assert proc.stdout.readline() == "ready\n"
        seen = []
        if trial < kills:  # kill after a seeded number of answers, then a random instant,
            for _ in range(rng.randint(0, 15)):  # so the kill lands anywhere in the
                seen.append(proc.stdout.readline())  # stream whatever the disk's speed
            time.sleep(rng.uniform(0.0, 0.003))
            proc.send_signal(signal.SIGKILL)
        out = "".join(seen) + proc.stdout.read()  # to EOF (not communicate: buffered)
        proc.wait(timeout=120)
        # the last child runs to the end; a killed one may have finished before its kill
        assert proc.returncode in ((0, -signal.SIGKILL) if trial < kills else (0,))
        for line in out.splitlines():
            record = json.loads(line)
            rid = record["id"]
            index = ids.index(rid) + 1
            # retried ids stored before this child started are replayed, unchanged
            assert record["replayed"] == (index <= stored), rid
            if rid in printed:
                assert answer_key(record) == answer_key(printed[rid]), rid
            else:
                printed[rid] = record
        stored = check_store(path, budget, ids, by_id, printed)
    assert stored == n and len(printed) == n


def test_kill_9_then_resume(tmp_path: Path) -> None:
    kill_and_resume(tmp_path, kills=20, seed=14, n=600)


@pytest.mark.slow
def test_kill_9_then_resume_many(tmp_path: Path) -> None:
    kill_and_resume(tmp_path, kills=200, seed=1414, n=5000)


def concurrent(tmp_path: Path, processes: int, spends: int, budget: str) -> None:
    path = tmp_path / "s.db"
    SessionStore.create(path, Header("rule", "basic", {"epsilon": budget})).close()
    procs = [child(path, f"p{k}-", ["0.1"] * spends) for k in range(processes)]
    outputs = [p.communicate(timeout=600)[0] for p in procs]
    assert [p.returncode for p in procs] == [0] * processes
    records = [json.loads(line) for out in outputs for line in out.splitlines()[1:]]
    expected = int(Fraction(budget) / Fraction("0.1"))  # by hand: budget / 0.1 spends fit
    assert len(records) == processes * spends
    assert sorted(r["index"] for r in records) == list(range(1, processes * spends + 1))
    assert sum(r["decision"] == "continue" for r in records) == expected
    stored = rows(path)
    assert len(stored) == processes * spends
    assert sum(r[3] == "continue" for r in stored) == expected
    assert stored[-1][4] == [Fraction(budget), Fraction(0)]
    with SessionStore.open(path) as store:
        assert store.status().admitted == expected


def test_four_processes_share_one_budget(tmp_path: Path) -> None:
    concurrent(tmp_path, processes=4, spends=200, budget="30")  # 300 admitted of 800


@pytest.mark.slow
def test_four_processes_share_one_budget_many(tmp_path: Path) -> None:
    concurrent(tmp_path, processes=4, spends=2000, budget="300")  # 3,000 of 8,000
