"""Verification: the judge (:mod:`.judge`) and the registry of claims and negative controls
(:mod:`.registry`, which may use the judge, never the reverse).

Nothing but :mod:`adaptive_dp.cli` imports this package (docs/design.md, import direction).
Spec and proof tooling is the sibling package :mod:`adaptive_dp.catalogue`.
"""
