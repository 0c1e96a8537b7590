"""Privacy definitions as values, conversions between them, composition theorems."""

from adaptive_dp.guarantees.bounds import BunSteinkeBound, W23Bound
from adaptive_dp.guarantees.calibration import (
    gaussian_sigma_cs2080,
    gaussian_sigma_zcdp,
    laplace_scale,
)
from adaptive_dp.guarantees.composition import (
    compose_advanced,
    compose_basic,
    compose_kov,
    compose_parallel,
)
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
from adaptive_dp.guarantees.expost import ExPost
from adaptive_dp.guarantees.gdp import compose_gdp, gdp_delta, gdp_mu_for, gdp_to_dp
from adaptive_dp.guarantees.group import group_privacy
from adaptive_dp.guarantees.lattice import Measure, implies, supports, within
from adaptive_dp.guarantees.rdp import compose_rdp, gaussian_rdp, rdp_to_dp, zcdp_rdp_curve
from adaptive_dp.guarantees.spends import KINDS, BrownianSpend, Spend, kind_of
from adaptive_dp.guarantees.tradeoff import ApproxDPTradeoff, GaussianTradeoff, TradeoffFunction
from adaptive_dp.guarantees.zcdp import (
    approx_to_approx_zcdp,
    compose_zcdp,
    pure_to_zcdp,
    zcdp_delta_optimal,
    zcdp_to_dp_bun_steinke,
    zcdp_to_dp_optimal,
)

__all__ = [
    "GDP",
    "KINDS",
    "RDP",
    "ZCDP",
    "ApproxDP",
    "ApproxDPTradeoff",
    "ApproxZCDP",
    "BrownianSpend",
    "BunSteinkeBound",
    "ExPost",
    "GaussianTradeoff",
    "Guarantee",
    "Measure",
    "ProbabilisticDP",
    "PureDP",
    "RDPCurve",
    "Spend",
    "TradeoffFunction",
    "W23Bound",
    "approx_to_approx_zcdp",
    "compose_advanced",
    "compose_basic",
    "compose_gdp",
    "compose_kov",
    "compose_parallel",
    "compose_rdp",
    "compose_zcdp",
    "gaussian_rdp",
    "gaussian_sigma_cs2080",
    "gaussian_sigma_zcdp",
    "gdp_delta",
    "gdp_mu_for",
    "gdp_to_dp",
    "group_privacy",
    "implies",
    "kind_of",
    "laplace_scale",
    "pure_to_zcdp",
    "rdp_to_dp",
    "supports",
    "within",
    "zcdp_delta_optimal",
    "zcdp_rdp_curve",
    "zcdp_to_dp_bun_steinke",
    "zcdp_to_dp_optimal",
]
