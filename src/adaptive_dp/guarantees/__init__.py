"""Privacy definitions as values, conversions between them, composition theorems."""

from adaptive_dp.guarantees.definitions import (
    GDP,
    RDP,
    ZCDP,
    ApproxDP,
    ApproxZCDP,
    Guarantee,
    ProbabilisticDP,
    PureDP,
    RDPCurve,
)

__all__ = [
    "GDP",
    "RDP",
    "ZCDP",
    "ApproxDP",
    "ApproxZCDP",
    "Guarantee",
    "ProbabilisticDP",
    "PureDP",
    "RDPCurve",
]
