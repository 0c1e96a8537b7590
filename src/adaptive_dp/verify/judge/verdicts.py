"""Verdict rules (docs/design.md, verification: verdicts), exactly as stated there.

- **violated** iff the one-sided lower confidence bound at ``1 - 1e-6`` exceeds the
  claimed value;
- **holds** otherwise, provided the test has power: its detectable ratio (the smallest
  ``r`` such that a true value ``r x claimed`` is flagged with probability 0.95, see
  :func:`adaptive_dp.verify.judge.estimators.detectable_ratio`) is at most the profile's
  target, :data:`TARGETS` (2 under "quick", 1.25 under "full"; e-values 1.1 in both);
- **weak** otherwise (tests and ``verify --strict`` fail on weak).

delta = 0 claims (maximum loss): violated iff some sampled ``L > epsilon (1 + 1e-9)``;
holds iff ``n >= 14 / delta_min`` for the claim's stated ``delta_min`` (a loss above
epsilon of probability delta_min is then missed with probability below ``e^-14``);
weak otherwise. A twin (negative control) is caught iff its verdict is violated.
``ERROR`` marks a test that could not run at all (the runner's report names the
exception); it fails like a violation.
"""

from __future__ import annotations

from enum import Enum

from adaptive_dp.verify.judge.estimators import (
    MAX_LOSS_FACTOR,
    Estimate,
    Quantity,
    detectable_ratio,
)

__all__ = ["EVALUE_TARGET", "TARGETS", "Verdict", "has_power", "judge", "target", "worst"]

TARGETS = {"quick": 2.0, "full": 1.25}
"""The detectable ratio a tail, crossing or hockey-stick test must reach, per profile."""

EVALUE_TARGET = 1.1
"""The detectable mean of an e-value test against the claimed 1, in both profiles."""


class Verdict(Enum):
    """The outcome of one statistical test of a claim."""

    HOLDS = "holds"
    WEAK = "weak"
    VIOLATED = "violated"
    ERROR = "error"
    """Not a statistical verdict: the test could not run (the runner reports why)."""


_ORDER = {Verdict.HOLDS: 0, Verdict.WEAK: 1, Verdict.VIOLATED: 2, Verdict.ERROR: 3}


def worst(*verdicts: Verdict) -> Verdict:
    """The most severe of several verdicts (error > violated > weak > holds)."""
    return max(verdicts, key=_ORDER.__getitem__)


def target(quantity: Quantity, profile: str) -> float:
    """The detectable ratio ``quantity``'s tests must reach under ``profile``."""
    if profile not in TARGETS:
        raise ValueError(f"profile={profile!r} is not allowed: expected one of {tuple(TARGETS)}")
    return EVALUE_TARGET if quantity is Quantity.EVALUE else TARGETS[profile]


def has_power(estimate: Estimate, claimed: float, delta_min: float | None = None,
              profile: str = "quick") -> bool:
    """The power rule for ``estimate``'s quantity and sample size under ``profile``.

    For max-loss claims ``delta_min`` is required (n >= 14 / delta_min).
    """
    n = estimate.samples
    if estimate.quantity is Quantity.MAX_LOSS:
        if delta_min is None or not delta_min > 0:
            raise ValueError("a max-loss claim needs its delta_min > 0")
        return n >= MAX_LOSS_FACTOR / delta_min
    ratio = detectable_ratio(estimate.quantity, claimed, n, estimate.scale)
    return ratio <= target(estimate.quantity, profile)


def judge(estimate: Estimate, claimed: float, delta_min: float | None = None,
          profile: str = "quick") -> Verdict:
    """The verdict on one estimate against its claimed value (``claimed`` is epsilon
    for max-loss claims, 1 for e-value claims, delta otherwise) under ``profile``."""
    if estimate.quantity is Quantity.MAX_LOSS:
        if estimate.exceed > 0:
            return Verdict.VIOLATED
    elif estimate.lower > claimed:
        return Verdict.VIOLATED
    return Verdict.HOLDS if has_power(estimate, claimed, delta_min, profile) else Verdict.WEAK
