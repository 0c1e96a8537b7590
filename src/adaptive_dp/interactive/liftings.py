"""Liftings of noninteractive rules to concurrently composed interactive mechanisms:
H23-Thm3.4, H23-Cor3.5, H23-Thm3.6 (f-DP and (epsilon, delta)-DP, via PIM
postprocessing and Vadhan-Zhang's reduction), and H23 section 4 (RDP and zCDP:
H23-Thm4.6 with H23-Lem4.7, H23-Thm4.9, H23-Thm4.10, H23-Thm4.11).

Each function takes a rule or accumulator of :mod:`adaptive_dp.filters` /
:mod:`adaptive_dp.odometers` (one implementation of each rule; H23-Lem2.19 is
:class:`~adaptive_dp.filters.from_accumulator.AccumulatorFilter`) and returns the
interactive mechanism F(.; d)-FiltCon(IM) (Alg 3) or G-OdomCon(IM) (Alg 6) the theorem
declares valid, after checking that the rule belongs to the theorem's privacy measure
(otherwise :class:`~adaptive_dp.errors.UnsupportedGuaranteeError`: the lifting of, e.g.,
an approximate-zCDP rule is open, H23 section 4).
"""

from __future__ import annotations

from adaptive_dp.errors import UnsupportedGuaranteeError
from adaptive_dp.filters.base import Rule
from adaptive_dp.filters.basic import BasicFilter, PureDPFilter
from adaptive_dp.filters.from_accumulator import AccumulatorFilter
from adaptive_dp.filters.gdp import GDPFilter
from adaptive_dp.filters.rdp import RDPFilter
from adaptive_dp.filters.rruv16 import RRUV16Filter
from adaptive_dp.filters.w23 import W23Filter
from adaptive_dp.filters.zcdp import ZCDPSumFilter
from adaptive_dp.interactive.filtered import FiltCon
from adaptive_dp.interactive.odometer import OdomCon
from adaptive_dp.numerics import ExactLike
from adaptive_dp.odometers.accumulators import (
    Accumulator,
    ApproxDPAccumulator,
    BasicAccumulator,
    RDPAccumulator,
    ZCDPAccumulator,
)

__all__ = [
    "concurrent_approx_filter",
    "concurrent_fdp_filter",
    "concurrent_fdp_odometer",
    "concurrent_rdp_filter",
    "concurrent_rdp_odometer",
    "concurrent_zcdp_filter",
    "concurrent_zcdp_odometer",
]

_APPROX_RULES = (PureDPFilter, BasicFilter, W23Filter, RRUV16Filter)
_APPROX_ACCUMULATORS = (BasicAccumulator, ApproxDPAccumulator)


def _is_approx(rule: Rule) -> bool:
    if isinstance(rule, AccumulatorFilter):
        return isinstance(rule.accumulator, _APPROX_ACCUMULATORS)
    return isinstance(rule, _APPROX_RULES)


def _refuse(owner: str, what: object) -> UnsupportedGuaranteeError:
    return UnsupportedGuaranteeError(
        f"{owner} lifts f-DP / (epsilon, delta)-DP rules only, not {type(what).__name__}"
    )


def concurrent_approx_filter(
    rule: Rule, *, max_mechanisms: int | None = None, terminal: bool = True
) -> FiltCon:
    """H23-Cor3.5 / H23-Thm1.20: "Every filter for noninteractive (epsilon, delta)-DP
    mechanisms is also a concurrent filter of interactive (epsilon, delta)-DP mechanisms."
    ``rule`` must be an (epsilon, delta) continuation rule (pure/basic, W23 = H23-ThmB.3,
    RRUV16, or the H23-Lem2.19 filter of an (epsilon, delta) accumulator)."""
    if not _is_approx(rule):
        raise _refuse("H23-Cor3.5", rule)
    return FiltCon(rule, max_mechanisms, terminal)


def concurrent_fdp_filter(
    rule: Rule, *, max_mechanisms: int | None = None, terminal: bool = True
) -> FiltCon:
    """H23-Thm3.4 / H23-Thm1.21: "Suppose F is a valid f-DP continuation rule for noninteractive
    mechanisms. Then F is a valid f-DP continuation rule for interactive mechanisms with
    finite communication." ``rule``: an f-DP rule: the GDP filter (EXT-ST22, mu-GDP is
    G_mu-DP) or an (epsilon, delta) rule (f_{epsilon, delta}, H23-FEpsDelta)."""
    if not (_is_approx(rule) or isinstance(rule, GDPFilter)):
        raise _refuse("H23-Thm3.4", rule)
    return FiltCon(rule, max_mechanisms, terminal)


def concurrent_fdp_odometer(accumulator: Accumulator) -> OdomCon:
    """H23-Thm3.6: "Suppose G is a valid f-DP privacy-loss accumulator for
    noninteractive mechanisms. Then G is a valid f-DP privacy-loss accumulator for
    interactive mechanisms with finite communication" (Lem2.19, Thm3.4, Lem2.19; valid
    in the truncated-view sense, A38). ``accumulator``: an (epsilon, delta) accumulator
    (basic composition, or H23-Thm3.8)."""
    if not isinstance(accumulator, _APPROX_ACCUMULATORS):
        raise _refuse("H23-Thm3.6", accumulator)
    return OdomCon(accumulator)


def concurrent_rdp_filter(
    alpha: ExactLike,
    epsilon: ExactLike,
    *,
    max_mechanisms: int | None = None,
    terminal: bool = True,
) -> FiltCon:
    """H23-Lem4.7 / H23-F2 (with H23-Thm4.6, its K -> infinity limit; F2 is K = 2): at a
    fixed order alpha > 1, F_K(epsilon_1, ..., epsilon_k; epsilon) = "I(sum_{i<=k}
    epsilon_i <= epsilon) if k <= K, 0 otherwise" is a valid RDP_alpha IM-filter;
    ``max_mechanisms`` = K (None: Thm 4.6's unbounded "I(sum_i epsilon_i <= epsilon)")."""
    return FiltCon(RDPFilter(alpha, epsilon), max_mechanisms, terminal)


def concurrent_rdp_odometer(alpha: ExactLike) -> OdomCon:
    """H23-Thm4.9: "G(epsilon_1, ..., epsilon_K) = sum_{i=1}^K epsilon_i" is a valid
    privacy-loss accumulator for the concurrent composition of epsilon_i-RDP_alpha
    interactive mechanisms."""
    return OdomCon(RDPAccumulator(alpha))


def concurrent_zcdp_filter(rho: ExactLike, *, terminal: bool = True) -> FiltCon:
    """H23-Thm4.10: "F(rho_1, rho_2, ...; rho) = I(sum_i rho_i <= rho)" is a valid
    rho-zCDP filter for the concurrent composition of zCDP interactive mechanisms."""
    return FiltCon(ZCDPSumFilter(rho), None, terminal)


def concurrent_zcdp_odometer() -> OdomCon:
    """H23-Thm4.11: "G(rho_1, rho_2, ...) = sum_i rho_i" is a valid privacy-loss
    accumulator for the concurrent composition of rho_i-zCDP interactive mechanisms."""
    return OdomCon(ZCDPAccumulator())
