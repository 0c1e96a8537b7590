"""Negative controls of the conversions: each overrides exactly one hook of a valid bound.

- :class:`HalvedRhoBunSteinke` (of R23-Lem2.3): rho halved before converting (a
  parametrisation slip, sigma^2 read for 2 sigma^2).
- :class:`HalvedRhoCKS20` (of EXT-CKS20): the same slip before the optimal conversion.
- :class:`HalvedEpsilonRDP` (of EXT-BBGHS20): the Gaussian's RDP epsilon
  alpha Delta^2 / (2 sigma^2) halved (the factor 2 counted twice).
- :class:`RDPEpsilonAsDP` (of EXT-Mironov17): the term log(1/delta)/(alpha - 1) dropped,
  the RDP epsilon read as a DP epsilon.
- :class:`HalvedMuDRS19` (of EXT-DRS19): mu halved (sigma doubled) before converting.

Each is run in a scenario whose true hockey-stick at the twin's epsilon is at least
twice the twin's delta; ``tests/verify/test_twins.py`` shows it with the exact
Gaussian curve of :mod:`adaptive_dp.loss.gaussian`.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from adaptive_dp.guarantees.definitions import RDP
from adaptive_dp.verify.registry.bounds import CKS20, DRS19, BunSteinke, RDPConversion

__all__ = [
    "HalvedEpsilonRDP",
    "HalvedMuDRS19",
    "HalvedRhoBunSteinke",
    "HalvedRhoCKS20",
    "RDPEpsilonAsDP",
]


@dataclass(frozen=True, slots=True)
class HalvedRhoBunSteinke(BunSteinke):
    """Twin of R23-Lem2.3: converts rho/2 instead of rho."""

    def _rho(self) -> Fraction:
        return self.rho / 2


@dataclass(frozen=True, slots=True)
class HalvedRhoCKS20(CKS20):
    """Twin of EXT-CKS20: converts rho/2 instead of rho."""

    def _rho(self) -> Fraction:
        return self.rho / 2


@dataclass(frozen=True, slots=True)
class HalvedEpsilonRDP(RDPConversion):
    """Twin of EXT-BBGHS20: the Gaussian RDP epsilon halved before converting."""

    def _rdp(self) -> RDP:
        point = RDPConversion._rdp(self)
        return RDP(point.alpha, point.epsilon / 2)


@dataclass(frozen=True, slots=True)
class RDPEpsilonAsDP(RDPConversion):
    """Twin of EXT-Mironov17: eps + log(1/delta)/(alpha - 1) without its second term."""

    def _convert(self, rdp: RDP) -> tuple[float, float]:
        return float(rdp.epsilon), float(self.delta)


@dataclass(frozen=True, slots=True)
class HalvedMuDRS19(DRS19):
    """Twin of EXT-DRS19: converts mu/2 instead of mu."""

    def _mu(self) -> Fraction:
        return self.mu / 2
