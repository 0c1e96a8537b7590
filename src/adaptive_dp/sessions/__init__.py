"""Persistent, crash-safe sessions around a filter, odometer or accumulator (issue 14;
docs/sessions.md): :class:`SessionStore` on ``sqlite3``, one durable transaction per
decision, a hash chain over the requests, export as a version-1 budget transcript. Not
the kernel's in-memory ledger (:mod:`adaptive_dp.ledger`)."""

from adaptive_dp.sessions.store import (
    SCHEMA_VERSION,
    Answer,
    RequestConflictError,
    SessionError,
    SessionIntegrityError,
    SessionStore,
    Status,
)

__all__ = [
    "SCHEMA_VERSION",
    "Answer",
    "RequestConflictError",
    "SessionError",
    "SessionIntegrityError",
    "SessionStore",
    "Status",
]
