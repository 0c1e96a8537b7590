"""Spec and proof tooling: the catalogue of ``spec/`` (:mod:`.items`) and the proof files
of ``proofs/`` (:mod:`.proofs`). It needs neither the judge nor the registry of
:mod:`adaptive_dp.verify` (docs/design.md, import direction)."""
