"""Recorders: run a peer library's own privacy filter or accountant and write what it was
asked, decided and reported as a version-1 budget transcript (:mod:`adaptive_dp.transcript`)
for :func:`adaptive_dp.certify.certify_text`.

Each recorder imports its peer inside its functions only, so this package imports without
the peers installed.
"""

from __future__ import annotations

__all__: list[str] = []
