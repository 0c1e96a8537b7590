"""Negative controls (twins): valid bounds or rules with exactly one named defect.

A twin subclasses the valid bound of :mod:`adaptive_dp.verify.registry.bounds` (or, for later
issues, the valid rule) and overrides one private hook; it is registered with its
claim in :mod:`adaptive_dp.verify.registry.claims` and is caught iff its verdict is violated.
One module per concept: :mod:`.conversions`, :mod:`.composition`.
"""
