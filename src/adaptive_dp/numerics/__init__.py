"""Certified numerics: enclosures, directed rounding, exact budgets.

This package knows nothing of privacy (docs/design.md, import direction).
"""

from adaptive_dp.numerics.enclosure import (
    DEFAULT_PRECISION,
    arb_of,
    enclose,
    exact_lower,
    exact_upper,
    working_precision,
)
from adaptive_dp.numerics.exact import (
    ExactLike,
    exact,
    exact_delta,
    exact_delta_split,
    exact_nonnegative,
    exact_positive,
    format_exact,
    short_exact,
)
from adaptive_dp.numerics.rounding import (
    ball_lower,
    ball_upper,
    round_down,
    round_up,
    sqrt_down,
)

__all__ = [
    "DEFAULT_PRECISION",
    "ExactLike",
    "arb_of",
    "ball_lower",
    "ball_upper",
    "enclose",
    "exact",
    "exact_delta",
    "exact_delta_split",
    "exact_lower",
    "exact_nonnegative",
    "exact_positive",
    "exact_upper",
    "format_exact",
    "round_down",
    "round_up",
    "short_exact",
    "sqrt_down",
    "working_precision",
]
