"""Negative controls of the composition theorems, one overridden hook each.

- :class:`DropLastBasic` (of CS2080-BasicComp): the last spend is not charged.
- :class:`NoDriftAdvanced` (of CS2080-AdvComp): the drift term k eps (e^eps - 1) dropped,
  eps' = eps sqrt(2 k ln(1/delta')) only.
- :class:`KMinusOneKOV` (of EXT-KOV15): the optimal bound for k - 1 compositions.
- :class:`DropLastMV16` (of EXT-MV16): the optimal composition of all mechanisms but the
  last.
- :class:`DropLastGDP` (of EXT-GDPComposition): mu = sqrt(sum mu_i^2) without the last.
- :class:`DropLastZCDP` (of R23-Lem2.4): rho = sum rho_i without the last.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from adaptive_dp.numerics import arb_of, ball_upper, enclose
from adaptive_dp.verify.registry.bounds import (
    KOV15,
    MV16,
    AdvancedComposition,
    BasicComposition,
    GDPComposition,
    ZCDPComposition,
)

__all__ = [
    "DropLastBasic",
    "DropLastGDP",
    "DropLastMV16",
    "DropLastZCDP",
    "KMinusOneKOV",
    "NoDriftAdvanced",
]


@dataclass(frozen=True, slots=True)
class DropLastBasic(BasicComposition):
    """Twin of CS2080-BasicComp: sums all spends but the last."""

    def _spends(self) -> tuple[Fraction, ...]:
        return self.spends[:-1]


@dataclass(frozen=True, slots=True)
class NoDriftAdvanced(AdvancedComposition):
    """Twin of CS2080-AdvComp: eps sqrt(2 k ln(1/delta')) without k eps (e^eps - 1)."""

    def _epsilon(self) -> float:
        eps, k, slack = self.epsilon, self.k, self.delta_slack
        return ball_upper(enclose(
            lambda: arb_of(eps) * (2 * arb_of(k) * (-arb_of(slack).log())).sqrt()))


@dataclass(frozen=True, slots=True)
class KMinusOneKOV(KOV15):
    """Twin of EXT-KOV15: the optimal bound of k - 1 compositions instead of k."""

    def _k(self) -> int:
        return self.k - 1


@dataclass(frozen=True, slots=True)
class DropLastMV16(MV16):
    """Twin of EXT-MV16: the optimal composition of all mechanisms but the last."""

    def _epsilons(self) -> tuple[Fraction, ...]:
        return self.epsilons[:-1]


@dataclass(frozen=True, slots=True)
class DropLastGDP(GDPComposition):
    """Twin of EXT-GDPComposition: the last mechanism's mu left out."""

    def _parts(self) -> tuple[Fraction, ...]:
        return self.parts[:-1]


@dataclass(frozen=True, slots=True)
class DropLastZCDP(ZCDPComposition):
    """Twin of R23-Lem2.4: the last mechanism's rho left out."""

    def _parts(self) -> tuple[Fraction, ...]:
        return self.parts[:-1]
