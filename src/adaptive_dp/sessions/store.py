"""A crash-safe persistent session store around one filter, odometer or accumulator
(issue 14; docs/sessions.md), on the standard library's ``sqlite3``.

This is not the kernel's in-memory ledger (:mod:`adaptive_dp.ledger`, the running sums of
one state): it persists a *session*, every request and its decision, so a service can
crash, restart and be retried without losing or double-charging a spend.

Durability and concurrency. The database runs in WAL mode with ``synchronous=FULL`` and
a 60 s busy timeout. Each request is one transaction begun with ``BEGIN IMMEDIATE`` (so
processes sharing a file serialise on the database's write lock, never on a Python
lock): the request id is looked up (an id already answered returns the stored answer,
``replayed=True``, and charges nothing), the latest row gives the exact state in O(1)
(running sums stored as ``str(Fraction)``, never floats; the admitted count; the halted
flag), the certified rule built by :mod:`adaptive_dp.filters.named` decides, the row is
inserted and COMMITTED, and only then is the answer returned. Refusals are rows too.

Integrity. Rows form a hash chain (:mod:`adaptive_dp.sessions.chain`) whose genesis is
the SHA-256 of the transcript header line; the ``meta`` table holds the schema version,
the header line and the library version that created the file. Opening a store verifies,
in O(n): the schema version and tables; every row's index (1, 2, ...) and link; and the
stored state, by replaying every stored spend through the rule from scratch (the
decision and the exact sums, count and halted flag after each row must be the stored
ones). The first bad row is named in a :class:`SessionIntegrityError`.

Threat model. Detected on open: an edited decision, spend, outcome or running sum; a
deleted row in the middle; reordered rows; a different or missing schema. Detected only
against a copy of the chain head kept elsewhere (``status`` and ``export`` report the
head and the count): deletion of the last rows (truncation of the tail). Not detected: a
consistent rewrite by someone able to recompute the chain (anyone who can write the
file can), and a different library version deciding differently is reported as a bad
row. The store is a guard against crashes, retries and accidents, not a security
boundary against the database's owner.
"""

from __future__ import annotations

import json
import math
import os
import sqlite3
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from types import TracebackType
from typing import Literal, TextIO

from adaptive_dp import __version__
from adaptive_dp.errors import AdaptiveDPError
from adaptive_dp.guarantees.spends import Spend
from adaptive_dp.interchange import InterchangeError, load_object, parse_object, spend_fields
from adaptive_dp.sessions.books import (
    Outcome,
    SessionBooks,
    State,
    outcome_floats,
    text_float,
)
from adaptive_dp.sessions.chain import Row, canonical, genesis
from adaptive_dp.transcript import Header, entry_line, header_line, read_transcript

__all__ = [
    "SCHEMA_VERSION",
    "Answer",
    "RequestConflictError",
    "SessionError",
    "SessionIntegrityError",
    "SessionStore",
    "Status",
]

SCHEMA_VERSION = 1
"""The layout of the tables below; a file with another version is refused."""

BUSY_TIMEOUT = 60.0
"""Seconds a connection waits for another process's write lock."""

_SCHEMA = (
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE requests ("
    " idx INTEGER PRIMARY KEY,"
    " request_id TEXT UNIQUE,"
    " spend TEXT NOT NULL,"
    " decision TEXT NOT NULL,"
    " outcome TEXT NOT NULL,"
    " sums TEXT NOT NULL,"
    " admitted INTEGER NOT NULL,"
    " halted INTEGER NOT NULL,"
    " hash TEXT NOT NULL)",
)
_COLUMNS = "idx, request_id, spend, decision, outcome, sums, admitted, halted, hash"


class SessionError(AdaptiveDPError):
    """A session store cannot be created, opened or written."""


class SessionIntegrityError(SessionError):
    """A session store that is not what this library wrote: wrong schema, broken hash
    chain or stored state that the rule does not reproduce (``row``: the first bad row,
    None for the file as a whole)."""

    def __init__(self, path: str, message: str, row: int | None = None) -> None:
        self.row = row
        where = f"row {row}: " if row is not None else ""
        super().__init__(f"{path}: {where}{message}")


class RequestConflictError(SessionError):
    """A request id already answered for a different spend."""


@dataclass(frozen=True)
class Answer:
    """The session's answer to one request.

    ``spent`` (guarantee fields, rounded up) and ``remaining`` (rounded down) for a rule;
    ``reading`` (a number or guarantee fields, rounded up; ``"exhausted"``) for an
    odometer or accumulator, whose decision is always ``"continue"``. ``replayed``: the
    request id had already been answered (nothing was charged now).
    """

    index: int
    decision: Literal["continue", "halt"]
    spent: dict[str, float] | None
    remaining: float | None
    reading: float | dict[str, float] | str | None
    request_id: str | None
    replayed: bool

    def record(self) -> dict[str, object]:
        """The answer as a JSON object (non-finite numbers as text)."""
        out: dict[str, object] = {"index": self.index, "id": self.request_id,
                                  "decision": self.decision}
        for key in ("spent", "remaining", "reading"):
            value = getattr(self, key)
            if value is not None:
                out[key] = _json_safe(value)
        out["replayed"] = self.replayed
        return out


def _json_safe(value: object) -> object:
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    return value


@dataclass(frozen=True)
class Status:
    """A session at one point: its header, number of requests, admitted requests,
    whether it is halted (terminal mode), the chain head (hex) and what it answers now."""

    header: Header
    count: int
    admitted: int
    halted: bool
    head: str
    spent: dict[str, float] | None
    remaining: float | None
    reading: float | dict[str, float] | str | None

    def record(self) -> dict[str, object]:
        """The status as a JSON object."""
        out: dict[str, object] = {
            "transcript": json.loads(header_line(self.header)), "count": self.count,
            "admitted": self.admitted, "halted": self.halted, "head": self.head}
        for key in ("spent", "remaining", "reading"):
            value = getattr(self, key)
            if value is not None:
                out[key] = _json_safe(value)
        return out


def _stored(values: tuple[object, ...]) -> tuple[Row, str]:
    """A row and its hash from a ``SELECT {_COLUMNS}`` tuple."""
    idx, rid, spend, decision, outcome, sums, admitted, halted, digest = values
    parsed = json.loads(str(sums))
    texts = tuple(str(s) for s in parsed) if isinstance(parsed, list) else (str(parsed),)
    return (Row(int(str(idx)), None if rid is None else str(rid), str(spend), str(decision),
                str(outcome), texts, int(str(admitted)), bool(halted)), str(digest))


class SessionStore:
    """A persistent session: use :meth:`create` or :meth:`open` (context managers)."""

    def __init__(self, path: str, db: sqlite3.Connection, header: Header) -> None:
        self.path = path
        self.header = header
        self._db = db
        self._line = header_line(header)
        self._books = SessionBooks.of(header)

    # -- opening ----------------------------------------------------------------------
    @staticmethod
    def _connect(path: Path) -> sqlite3.Connection:
        uri = path.absolute().as_uri() + "?mode=rw"
        db = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT, isolation_level=None)
        db.execute("PRAGMA synchronous=FULL")
        return db

    @classmethod
    def create(cls, path: str | os.PathLike[str], header: Header) -> SessionStore:
        """A new store at ``path`` for the books ``header`` names (refuses an existing
        file; the parameters are checked by building the rule first)."""
        SessionBooks.of(header)
        where = Path(path)
        try:
            where.open("x").close()
        except FileExistsError:
            raise SessionError(f"{where}: exists; a session store is created once") from None
        except OSError as error:
            raise SessionError(f"{where}: cannot create ({error.strerror})") from None
        with _sql(str(where)):
            db = cls._connect(where)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("BEGIN IMMEDIATE")
            for statement in _SCHEMA:
                db.execute(statement)
            db.executemany("INSERT INTO meta VALUES (?, ?)", [
                ("schema", str(SCHEMA_VERSION)), ("header", header_line(header)),
                ("created_by", f"adaptive_dp {__version__}")])
            db.execute("COMMIT")
        return cls(str(where), db, header)

    @classmethod
    def open(cls, path: str | os.PathLike[str]) -> SessionStore:
        """The store at ``path``, verified (schema, hash chain, replayed state: O(n))."""
        where = Path(path)
        if not where.is_file():
            raise SessionError(f"{where}: no such session store")
        with _sql(str(where)):
            db = cls._connect(where)
        try:
            store = cls(str(where), db, _meta(db, str(where)))
            store._verify()
        except BaseException:
            db.close()
            raise
        return store

    def close(self) -> None:
        """Close the database connection."""
        self._db.close()

    def __enter__(self) -> SessionStore:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()

    # -- reading ----------------------------------------------------------------------
    def _fail(self, message: str, row: int | None = None) -> SessionIntegrityError:
        return SessionIntegrityError(self.path, message, row)

    @contextmanager
    def _snapshot(self) -> Iterator[sqlite3.Connection]:
        """A read transaction: one consistent view while other processes write."""
        with _sql(self.path):
            self._db.execute("BEGIN")
            try:
                yield self._db
            finally:
                self._db.execute("COMMIT")

    def _rows(self, db: sqlite3.Connection) -> Iterator[Row]:
        """Every row in order, each checked for its index and its link."""
        previous = genesis(self._line)
        expected = 1
        for values in db.execute(f"SELECT {_COLUMNS} FROM requests ORDER BY idx"):
            try:
                row, digest = _stored(values)
            except (ValueError, TypeError):
                raise self._fail("unreadable row", expected) from None
            if row.index != expected:
                raise self._fail(f"missing (the next stored row is {row.index})", expected)
            if row.link(previous) != digest:
                raise self._fail("hash chain broken (the row or one before it was edited)",
                                 row.index)
            yield row
            previous, expected = digest, expected + 1

    def _verify(self) -> None:
        state = self._books.start()
        with self._snapshot() as db:
            for row in self._rows(db):
                try:
                    spend = parse_object(load_object(row.spend, row.index), row.index)
                    self._books.check(spend, row.index)
                    decision, state = self._books.step(state, spend)
                except AdaptiveDPError as error:
                    raise self._fail(f"stored spend not replayable: {error}", row.index) \
                        from None
                if decision != row.decision:
                    raise self._fail(f"stored decision {row.decision!r}, the rule decides "
                                     f"{decision!r}", row.index)
                if _state_texts(state) != (row.sums, row.admitted, row.halted):
                    raise self._fail("stored running sums differ from the admitted spends "
                                     "added from scratch", row.index)

    def _latest(self, db: sqlite3.Connection) -> tuple[Row, str] | None:
        values = db.execute(f"SELECT {_COLUMNS} FROM requests ORDER BY idx DESC LIMIT 1"
                            ).fetchone()
        return None if values is None else _stored(values)

    def _state(self, latest: tuple[Row, str] | None) -> State:
        if latest is None:
            return self._books.start()
        row = latest[0]
        return self._books.resume([Fraction(s) for s in row.sums], row.admitted, row.halted)

    # -- writing ----------------------------------------------------------------------
    def spend(self, request: str | Mapping[str, object], request_id: str | None = None,
              *, line: int = 1) -> Answer:
        """Decide one request, commit it durably, then answer.

        ``request`` is an interchange object (JSON text or a decoded mapping), which may
        carry an ``"id"``; ``request_id`` gives it otherwise. An id already answered
        returns the stored answer (``replayed=True``) and charges nothing; the same id
        with a different spend raises :class:`RequestConflictError`. A bad request raises
        :class:`~adaptive_dp.interchange.InterchangeError` naming ``line`` and the field;
        nothing is stored then.
        """
        obj = load_object(request, line) if isinstance(request, str) else dict(request)
        given = obj.pop("id", None)
        if given is not None and not isinstance(given, str):
            raise InterchangeError(line, "id", f"expected text, got {given!r}")
        if given is not None and request_id is not None and given != request_id:
            raise InterchangeError(line, "id", f"{given!r} differs from the request id "
                                   f"{request_id!r} given with it")
        rid = request_id if request_id is not None else given
        spend = parse_object(obj, line)
        self._books.check(spend, line)
        text = canonical(spend_fields(spend))
        with _sql(self.path):
            db = self._db
            db.execute("BEGIN IMMEDIATE")
            try:
                row = self._commit(db, rid, text, spend, line)
            except BaseException:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise
        return self._answer(row[0], row[1])

    def _commit(self, db: sqlite3.Connection, rid: str | None, text: str,
                spend: Spend, line: int) -> tuple[Row, bool]:
        if rid is not None:
            values = db.execute(f"SELECT {_COLUMNS} FROM requests WHERE request_id = ?",
                                (rid,)).fetchone()
            if values is not None:
                db.execute("COMMIT")
                old = _stored(values)[0]
                if old.spend != text:
                    raise RequestConflictError(
                        f"line {line}, field 'id': request id {rid!r} was answered at "
                        f"request {old.index} for the spend {old.spend}, not {text}")
                return old, True
        latest = self._latest(db)
        decision, after = self._books.step(self._state(latest), spend)
        sums, admitted, halted = _state_texts(after)
        row = Row(1 if latest is None else latest[0].index + 1, rid, text, decision,
                  canonical(SessionBooks.outcome(after)), sums, admitted, halted)
        digest = row.link(genesis(self._line) if latest is None else latest[1])
        db.execute(f"INSERT INTO requests ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                   (row.index, rid, text, decision, row.outcome, canonical(list(sums)),
                    admitted, int(halted), digest))
        db.execute("COMMIT")
        return row, False

    def _answer(self, row: Row, replayed: bool) -> Answer:
        numbers = outcome_floats(json.loads(row.outcome))
        spent, remaining, reading = _numbers(numbers)
        return Answer(row.index, "continue" if row.decision == "continue" else "halt",
                      spent, remaining, reading, row.request_id, replayed)

    # -- reporting --------------------------------------------------------------------
    def status(self) -> Status:
        """The session now: count, admitted, halted, chain head and current answer (O(1))."""
        with self._snapshot() as db:
            latest = self._latest(db)
        if latest is None:
            outcome: Outcome = SessionBooks.outcome(self._books.start())
            count, admitted, halted, head = 0, 0, False, genesis(self._line)
        else:
            row, head = latest
            outcome = json.loads(row.outcome)
            count, admitted, halted = row.index, row.admitted, row.halted
        spent, remaining, reading = _numbers(outcome_floats(outcome))
        return Status(self.header, count, admitted, halted, head, spent, remaining, reading)

    def export(self, out: TextIO) -> Status:
        """Write the session as a version-1 transcript (the header line, then one line
        per request: the spend as given, the decision, the answered spent/remaining or
        reading as exact text of the floats, the request id); every link is checked on
        the way. Non-finite or exhausted readings are left out (a transcript has no text
        for them). Returns the status of the exported snapshot."""
        out.write(self._line + "\n")
        head, last = genesis(self._line), None
        with self._snapshot() as db:
            for row in self._rows(db):
                out.write(_entry(row, self.header) + "\n")
                head, last = row.link(head), row
        count = 0 if last is None else last.index
        outcome = (SessionBooks.outcome(self._books.start()) if last is None
                   else json.loads(last.outcome))
        spent, remaining, reading = _numbers(outcome_floats(outcome))
        return Status(self.header, count, 0 if last is None else last.admitted,
                      last is not None and last.halted, head, spent, remaining, reading)


def _numbers(numbers: Mapping[str, object]) -> tuple[
        dict[str, float] | None, float | None, float | dict[str, float] | str | None]:
    spent = numbers.get("spent")
    remaining = numbers.get("remaining")
    reading = numbers.get("reading")
    assert spent is None or isinstance(spent, dict)
    assert remaining is None or isinstance(remaining, float)
    assert reading is None or isinstance(reading, (float, dict, str))
    return spent, remaining, reading


def _state_texts(state: State) -> tuple[tuple[str, ...], int, bool]:
    halted = bool(getattr(state, "halted", False))
    return tuple(str(s) for s in state.tally.sums), state.tally.count, halted


def _exact(text: object) -> Fraction | None:
    """Exact text of a finite float, or None (non-finite, exhausted)."""
    assert isinstance(text, str)
    return Fraction(text) if math.isfinite(text_float(text)) else None


def _loss(value: object) -> Fraction | dict[str, Fraction] | None:
    if isinstance(value, dict):
        fields = {str(k): _exact(v) for k, v in value.items()}
        exact = {k: v for k, v in fields.items() if v is not None}
        return exact if len(exact) == len(fields) else None
    return None if value == "exhausted" else _exact(value)


def _entry(row: Row, header: Header) -> str:
    outcome = json.loads(row.outcome)
    spend = json.loads(row.spend)
    if header.books == "rule":
        remaining = _exact(outcome["remaining"])
        return entry_line(spend, decision=row.decision, spent=_loss(outcome["spent"]),
                          remaining=remaining, id=row.request_id)
    return entry_line(spend, reading=_loss(outcome["reading"]), id=row.request_id)


def _meta(db: sqlite3.Connection, path: str) -> Header:
    """The header of a store, after checking the schema version and the tables."""
    def fail(message: str) -> SessionIntegrityError:
        return SessionIntegrityError(path, message)

    try:
        meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
        db.execute(f"SELECT {_COLUMNS} FROM requests LIMIT 0").fetchall()
    except sqlite3.DatabaseError as error:
        raise fail(f"not a session store ({error})") from None
    if meta.get("schema") != str(SCHEMA_VERSION):
        raise fail(f"schema version {meta.get('schema')!r}; this library "
                   f"(adaptive_dp {__version__}) reads version {SCHEMA_VERSION} only")
    try:
        header = read_transcript([str(meta.get("header", ""))]).header
    except InterchangeError as error:
        raise fail(f"bad header in table meta: {error}") from None
    return header


@contextmanager
def _sql(path: str) -> Iterator[None]:
    """A database failure (locked past the busy timeout, disk full, not a database) as
    a :class:`SessionError` naming the file."""
    try:
        yield
    except sqlite3.DatabaseError as error:
        raise SessionError(f"{path}: {error}") from None
