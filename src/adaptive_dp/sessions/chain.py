"""The hash chain of a session store: every stored request is linked to the one before
by ``hash = sha256(previous hash || canonical row bytes)``, from a genesis hash that is
the SHA-256 of the transcript header line, so an edit, a deletion in the middle or a
reordering of rows breaks every later link (see :mod:`adaptive_dp.sessions.store` for
what it does not detect)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

__all__ = ["Row", "canonical", "genesis"]


def canonical(value: object) -> str:
    """Canonical JSON text: sorted keys, no spaces, ASCII only."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def genesis(header_line: str) -> str:
    """The hash before the first row: SHA-256 (hex) of the header line."""
    return hashlib.sha256(header_line.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Row:
    """One stored request, as stored: the spend's interchange object and the outcome as
    canonical JSON text, the exact running sums after it as ``str(Fraction)`` texts, the
    number of admitted requests so far and the halted flag (terminal mode)."""

    index: int
    request_id: str | None
    spend: str
    decision: str
    outcome: str
    sums: tuple[str, ...]
    admitted: int
    halted: bool

    def payload(self) -> bytes:
        """The canonical bytes of the row (every stored field but the hash)."""
        return canonical([self.index, self.request_id, self.spend, self.decision,
                          self.outcome, list(self.sums), self.admitted,
                          self.halted]).encode("ascii")

    def link(self, previous: str) -> str:
        """This row's hash (hex) after the hash ``previous`` (hex)."""
        return hashlib.sha256(bytes.fromhex(previous) + self.payload()).hexdigest()
