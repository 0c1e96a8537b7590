"""The session store in one process: exact resumption, odometer readings, terminal mode,
idempotent retries, bad input charging nothing, and tampering refused on open."""

from __future__ import annotations

import math
import sqlite3
from fractions import Fraction
from pathlib import Path

import pytest

from adaptive_dp.guarantees.definitions import PureDP
from adaptive_dp.interchange import InterchangeError
from adaptive_dp.odometers.w23 import W23StitchedOdometer
from adaptive_dp.sessions import (
    RequestConflictError,
    SessionError,
    SessionIntegrityError,
    SessionStore,
)
from adaptive_dp.sessions.chain import Row, genesis
from adaptive_dp.transcript import Header, header_line

BASIC_1 = Header("rule", "basic", {"epsilon": "1"})


def pure(epsilon: str) -> dict[str, object]:
    return {"kind": "pure", "epsilon": epsilon}


def sums(path: Path) -> list[Fraction]:
    """The stored exact running sums of the last row, read with sqlite3 directly."""
    with sqlite3.connect(path) as db:
        (text,) = db.execute("SELECT sums FROM requests ORDER BY idx DESC LIMIT 1").fetchone()
    return [Fraction(s) for s in text.strip("[]").replace('"', "").split(",")]


def test_restart_resumes_exact_state(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    with SessionStore.create(db, BASIC_1) as store:
        answers = [store.spend(pure("0.1"), f"r{i}") for i in range(5)]
    assert [a.decision for a in answers] == ["continue"] * 5
    assert [a.index for a in answers] == [1, 2, 3, 4, 5]
    for i in range(5, 10):  # reopened for every request: state from the stored row
        with SessionStore.open(db) as store:
            assert store.spend(pure("0.1"), f"r{i}").decision == "continue"
    assert sums(db) == [Fraction(1), Fraction(0)]  # ten times 1/10 is 1, exactly
    with SessionStore.open(db) as store:
        eleventh = store.spend(pure("0.1"), "r10")
        status = store.status()
    assert eleventh.decision == "halt" and eleventh.index == 11
    assert eleventh.spent == {"epsilon": 1.0, "delta": 0.0} and eleventh.remaining == 0.0
    assert (status.count, status.admitted, status.halted) == (11, 10, False)


def test_refuse_and_continue_admits_later_small_spends(tmp_path: Path) -> None:
    with SessionStore.create(tmp_path / "s.db", BASIC_1) as store:
        got = [store.spend(pure(e)).decision for e in ("0.6", "0.6", "0.4", "0.1")]
    assert got == ["continue", "halt", "continue", "halt"]


def test_terminal_mode_halts_forever_across_restarts(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    header = Header("rule", "basic", {"epsilon": "1"}, mode="terminal")
    with SessionStore.create(db, header) as store:
        assert store.spend(pure("0.6")).decision == "continue"
        assert store.spend(pure("0.6")).decision == "halt"
        assert store.spend(pure("0.1")).decision == "halt"
    with SessionStore.open(db) as store:
        assert store.spend(pure("0.0001")).decision == "halt"
        status = store.status()
    assert status.halted and (status.count, status.admitted) == (4, 1)


def test_idempotent_retry_and_conflict(tmp_path: Path) -> None:
    with SessionStore.create(tmp_path / "s.db", BASIC_1) as store:
        first = store.spend(pure("0.3"), "a")
        store.spend(pure("0.2"), "b")
        again = store.spend('{"kind": "pure", "epsilon": 0.3, "id": "a"}')
        assert again.replayed and not first.replayed
        assert (again.index, again.decision, again.spent, again.remaining) == (
            first.index, first.decision, first.spent, first.remaining)
        assert store.status().count == 2  # nothing charged by the retry
        with pytest.raises(RequestConflictError, match="'a'"):
            store.spend(pure("0.4"), "a")
        with pytest.raises(InterchangeError, match="field 'id'"):
            store.spend({"kind": "pure", "epsilon": "0.1", "id": "x"}, "y")
        assert store.status().count == 2


@pytest.mark.parametrize(("request_text", "field"), [
    ('{"kind": "pure"', "<json>"),
    ('{"kind": "zcdp", "rho": "0.1"}', "kind"),
    ('{"kind": "teleport"}', "kind"),
    ('{"kind": "pure", "epsilon": "-1"}', "epsilon"),
    ('{"kind": "pure", "epsilon": "0.1", "id": 7}', "id"),
])
def test_bad_request_charges_nothing(tmp_path: Path, request_text: str, field: str) -> None:
    with SessionStore.create(tmp_path / "s.db", BASIC_1) as store:
        store.spend(pure("0.1"))
        with pytest.raises(InterchangeError, match=f"line 4, field '{field}'"):
            store.spend(request_text, line=4)
        assert store.status().count == 1


def test_accumulator_readings(tmp_path: Path) -> None:
    header = Header("odometer", "zcdp-sum", {})
    with SessionStore.create(tmp_path / "z.db", header) as store:
        store.spend({"kind": "zcdp", "rho": "0.1"})
        answer = store.spend({"kind": "zcdp", "rho": "0.2"})
    assert answer.decision == "continue" and answer.spent is None
    assert isinstance(answer.reading, dict)
    rho = answer.reading["rho"]  # 0.3 rounded up: the smallest float >= 3/10
    assert Fraction(rho) >= Fraction(3, 10) > Fraction(math.nextafter(rho, 0))


def test_odometer_reading_resumes_like_one_uninterrupted_run(tmp_path: Path) -> None:
    db = tmp_path / "o.db"
    header = Header("odometer", "w23-stitched", {"delta": "1e-6"})
    epsilons = ["0.1", "0.05", "0.2", "0.01"]
    readings = []
    SessionStore.create(db, header).close()
    for e in epsilons:
        with SessionStore.open(db) as store:
            reading = store.spend(pure(e)).reading
        readings.append(reading)
    state = W23StitchedOdometer(delta=Fraction(1, 10**6)).start()
    expected = []
    for e in epsilons:
        state = state.spend(PureDP(Fraction(e)))
        expected.append(state.reading())
    assert readings == expected
    assert all(isinstance(r, float) and 0 < r < math.inf for r in readings)


def test_create_refuses_existing_and_open_refuses_missing(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    SessionStore.create(db, BASIC_1).close()
    with pytest.raises(SessionError, match="exists"):
        SessionStore.create(db, BASIC_1)
    with pytest.raises(SessionError, match="no such session store"):
        SessionStore.open(tmp_path / "missing.db")
    assert not (tmp_path / "missing.db").exists()


# -- tampering ------------------------------------------------------------------------

def _session(db: Path) -> str:
    """Six requests (two refused); returns the chain head."""
    with SessionStore.create(db, BASIC_1) as store:
        for i, e in enumerate(["0.3", "0.3", "0.5", "0.3", "0.2", "0.1"]):
            store.spend(pure(e), f"r{i}")
        return store.status().head


def _edit(db: Path, sql: str, *params: object) -> None:
    with sqlite3.connect(db) as conn:
        conn.execute(sql, params)
    conn.close()


def _refused(db: Path, row: int | None, match: str) -> None:
    with pytest.raises(SessionIntegrityError, match=match) as caught:
        SessionStore.open(db)
    assert caught.value.row == row
    if row is not None:
        assert f"row {row}:" in str(caught.value)


def test_untouched_store_opens(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    head = _session(db)
    with SessionStore.open(db) as store:
        assert store.status().head == head


def test_edited_decision_refused(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    _session(db)
    _edit(db, "UPDATE requests SET decision = 'continue' WHERE idx = 3")
    _refused(db, 3, "hash chain broken")


def test_edited_spend_refused(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    _session(db)
    _edit(db, "UPDATE requests SET spend = ? WHERE idx = 2", '{"epsilon":"0.03","kind":"pure"}')
    _refused(db, 2, "hash chain broken")


def test_deleted_middle_row_refused(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    _session(db)
    _edit(db, "DELETE FROM requests WHERE idx = 4")
    _refused(db, 4, "missing")


def test_swapped_rows_refused(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    _session(db)
    _edit(db, "UPDATE requests SET idx = -idx WHERE idx IN (1, 2)")
    _edit(db, "UPDATE requests SET idx = CASE idx WHEN -1 THEN 2 ELSE 1 END WHERE idx < 0")
    _refused(db, 1, "hash chain broken")


def test_deleted_last_row_detected_by_the_kept_head(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    kept = _session(db)
    _edit(db, "DELETE FROM requests WHERE idx = 6")
    with SessionStore.open(db) as store:  # a truncated tail is a valid shorter chain ...
        status = store.status()
    assert status.count == 5
    assert status.head != kept  # ... told apart only by the head kept elsewhere


def test_schema_version_refused(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    _session(db)
    _edit(db, "UPDATE meta SET value = '2' WHERE key = 'schema'")
    _refused(db, None, "schema version '2'")


def test_missing_table_refused(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    _session(db)
    _edit(db, "DROP TABLE requests")
    _refused(db, None, "not a session store")


def _rechain(db: Path, index: int, **changes: object) -> None:
    """Rewrite row ``index`` and recompute every later link (a consistent rewrite of the
    chain, as its owner could do): only the replay through the rule can catch it."""
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT idx, request_id, spend, decision, outcome, sums, "
                            "admitted, halted FROM requests ORDER BY idx").fetchall()
        previous = genesis(header_line(BASIC_1))
        for idx, rid, spend, decision, outcome, sums_text, admitted, halted in rows:
            fields = {"spend": spend, "decision": decision, "sums": sums_text}
            if idx == index:
                fields.update({k: str(v) for k, v in changes.items()})
            row = Row(idx, rid, fields["spend"], fields["decision"], outcome,
                      tuple(s.strip('"') for s in fields["sums"].strip("[]").split(",")),
                      admitted, bool(halted))
            previous = row.link(previous)
            conn.execute("UPDATE requests SET spend = ?, decision = ?, sums = ?, hash = ? "
                         "WHERE idx = ?", (fields["spend"], fields["decision"],
                                           fields["sums"], previous, idx))
    conn.close()


def test_rechained_decision_refused_by_replay(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    _session(db)
    _rechain(db, 3, decision="continue")  # 0.3 + 0.3 + 0.5 > 1: the rule refuses it
    _refused(db, 3, "stored decision 'continue', the rule decides 'halt'")


def test_rechained_sums_refused_by_replay(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    _session(db)
    _rechain(db, 5, sums='["1/2","0"]')  # the true sum after row 5 is 9/10
    _refused(db, 5, "stored running sums differ")
