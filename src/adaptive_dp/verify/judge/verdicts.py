"""Verdict rules (docs/design.md, verification: verdicts), exactly as stated there.

- **violated** iff the one-sided lower confidence bound at ``1 - 1e-6`` exceeds the
  claimed value;
- **holds** otherwise, provided the test has power: the lower confidence bound that an
  observed ``2 delta`` would give with the same ``n`` exceeds ``delta``;
- **weak** otherwise (tests and ``verify --strict`` fail on weak).

E-value claims: the claimed value is 1 and the power to flag is 1.1. delta = 0 claims
(maximum loss): violated iff some sampled ``L > epsilon (1 + 1e-9)``; holds iff
``n >= 14 / delta_min`` for the claim's stated ``delta_min``; weak otherwise.
A twin (negative control) is caught iff its verdict is violated. ``ERROR`` marks a
test that could not run at all (the runner's report names the exception); it fails
like a violation.
"""

from __future__ import annotations

from enum import Enum

from adaptive_dp.verify.judge.estimators import (
    MAX_LOSS_FACTOR,
    Estimate,
    Quantity,
    lower_bound_if_observed,
)

__all__ = ["EVALUE_FLAG", "Verdict", "has_power", "judge", "worst"]

EVALUE_FLAG = 1.1
"""The mean an e-value test must be able to flag against the claimed 1."""


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


def has_power(estimate: Estimate, claimed: float, delta_min: float | None = None) -> bool:
    """The power rule for ``estimate``'s quantity and sample size.

    For max-loss claims ``delta_min`` is required (n >= 14 / delta_min).
    """
    n = estimate.samples
    if estimate.quantity is Quantity.MAX_LOSS:
        if delta_min is None or not delta_min > 0:
            raise ValueError("a max-loss claim needs its delta_min > 0")
        return n >= MAX_LOSS_FACTOR / delta_min
    if estimate.quantity is Quantity.EVALUE:
        return lower_bound_if_observed(Quantity.EVALUE, EVALUE_FLAG, n, estimate.scale) > 1.0
    if not claimed > 0:
        return False
    return lower_bound_if_observed(estimate.quantity, 2.0 * claimed, n) > claimed


def judge(estimate: Estimate, claimed: float, delta_min: float | None = None) -> Verdict:
    """The verdict on one estimate against its claimed value (``claimed`` is epsilon
    for max-loss claims, 1 for e-value claims, delta otherwise)."""
    if estimate.quantity is Quantity.MAX_LOSS:
        if estimate.exceed > 0:
            return Verdict.VIOLATED
    elif estimate.lower > claimed:
        return Verdict.VIOLATED
    return Verdict.HOLDS if has_power(estimate, claimed, delta_min) else Verdict.WEAK
