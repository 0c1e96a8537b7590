"""The bounds under test, as small values with one private hook per named ingredient.

A claim asks one of these for its claimed value; every value comes from the library's
certified calculators in :mod:`adaptive_dp.guarantees` (epsilons and deltas rounded up).
A negative control (:mod:`adaptive_dp.verify.registry.twins`) subclasses a bound and overrides
exactly one hook (docs/design.md, verification: twins), so a twin never duplicates the valid
logic. ``claimed()`` returns ``(epsilon, delta)`` as floats.

The conversion modules are imported inside the methods: the registry stays importable
while a calculator is missing, and the claim that needs it fails when run (an ERROR
verdict).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import TYPE_CHECKING, Literal

from adaptive_dp.guarantees.definitions import RDP, ZCDP, PureDP
from adaptive_dp.guarantees.histories import History
from adaptive_dp.mechanisms import GaussianMechanism, LaplaceMechanism, RandomizedResponse

if TYPE_CHECKING:
    from adaptive_dp.loss.certified import CertifiedProfile, Discretiser

__all__ = [
    "CKS20",
    "DRS19",
    "KOV15",
    "MV16",
    "PROFILE_H",
    "AdvancedComposition",
    "BasicComposition",
    "BunSteinke",
    "CS2080Sigma",
    "GDPComposition",
    "ProfileUpper",
    "RDPConversion",
    "ZCDPComposition",
]


def _pair(epsilon: Fraction, delta: Fraction) -> tuple[float, float]:
    # Fractions from the certified calculators are floats' exact values already
    return float(epsilon), float(delta)


@dataclass(frozen=True, slots=True)
class BunSteinke:
    """R23-Lem2.3 (ii) on rho-zCDP: eps = rho + 2 sqrt(rho log(1/delta'')), delta''."""

    rho: Fraction
    delta_slack: Fraction

    def _rho(self) -> Fraction:
        return self.rho

    def claimed(self) -> tuple[float, float]:
        from adaptive_dp.guarantees.definitions import ZCDP
        from adaptive_dp.guarantees.zcdp import zcdp_to_dp_bun_steinke

        result = zcdp_to_dp_bun_steinke(ZCDP(self._rho()), self.delta_slack)
        return _pair(result.epsilon, result.delta)


@dataclass(frozen=True, slots=True)
class CKS20:
    """EXT-CKS20: the smallest eps certified for rho-zCDP at delta."""

    rho: Fraction
    delta: Fraction

    def _rho(self) -> Fraction:
        return self.rho

    def claimed(self) -> tuple[float, float]:
        from adaptive_dp.guarantees.definitions import ZCDP
        from adaptive_dp.guarantees.zcdp import zcdp_to_dp_optimal

        result = zcdp_to_dp_optimal(ZCDP(self._rho()), self.delta)
        return _pair(result.epsilon, result.delta)


@dataclass(frozen=True, slots=True)
class ZCDPComposition:
    """R23-Lem2.4 then EXT-CKS20: rho = sum rho_i, converted optimally at delta."""

    parts: tuple[Fraction, ...]
    delta: Fraction

    def _parts(self) -> tuple[Fraction, ...]:
        return self.parts

    def claimed(self) -> tuple[float, float]:
        from adaptive_dp.guarantees.definitions import ZCDP
        from adaptive_dp.guarantees.zcdp import compose_zcdp, zcdp_to_dp_optimal

        total = compose_zcdp(ZCDP(r) for r in self._parts())
        assert isinstance(total, ZCDP)
        result = zcdp_to_dp_optimal(total, self.delta)
        return _pair(result.epsilon, result.delta)


@dataclass(frozen=True, slots=True)
class RDPConversion:
    """EXT-BBGHS20 / EXT-Mironov17 on the Gaussian mechanism's RDP at one order.

    The RDP point is EXT-GaussianRDP's ``alpha Delta^2 / (2 sigma^2)`` with
    Delta = 1, sigma = 1/mu; ``method`` is "bbghs20" or "mironov17".
    """

    mu: Fraction
    alpha: Fraction
    delta: Fraction
    method: Literal["bbghs20", "mironov17"]

    def _rdp(self) -> RDP:
        from adaptive_dp.guarantees.rdp import gaussian_rdp

        return gaussian_rdp(1, 1 / self.mu, self.alpha)

    def _convert(self, rdp: RDP) -> tuple[float, float]:
        from adaptive_dp.guarantees.rdp import rdp_to_dp

        result = rdp_to_dp(rdp, self.delta, method=self.method)
        return _pair(result.epsilon, result.delta)

    def claimed(self) -> tuple[float, float]:
        return self._convert(self._rdp())


@dataclass(frozen=True, slots=True)
class DRS19:
    """EXT-DRS19: the smallest eps with delta_mu(eps) <= delta for mu-GDP."""

    mu: Fraction
    delta: Fraction

    def _mu(self) -> Fraction:
        return self.mu

    def claimed(self) -> tuple[float, float]:
        from adaptive_dp.guarantees.definitions import GDP
        from adaptive_dp.guarantees.gdp import gdp_to_dp

        result = gdp_to_dp(GDP(self._mu()), self.delta)
        return _pair(result.epsilon, result.delta)


@dataclass(frozen=True, slots=True)
class GDPComposition:
    """EXT-GDPComposition then EXT-DRS19: delta_mu(epsilon) of mu = sqrt(sum mu_i^2).

    ``parts`` are the mu_i (a single part when only the total is fixed in advance).
    """

    parts: tuple[Fraction, ...]
    epsilon: Fraction

    def _parts(self) -> tuple[Fraction, ...]:
        return self.parts

    def claimed(self) -> tuple[float, float]:
        from adaptive_dp.guarantees.definitions import GDP
        from adaptive_dp.guarantees.gdp import compose_gdp, gdp_delta

        total = compose_gdp(GDP(m) for m in self._parts())
        return float(self.epsilon), gdp_delta(total, self.epsilon)


@dataclass(frozen=True, slots=True)
class BasicComposition:
    """CS2080-BasicComp: eps_1 + ... + eps_k (delta = 0)."""

    spends: tuple[Fraction, ...]

    def _spends(self) -> tuple[Fraction, ...]:
        return self.spends

    def claimed(self) -> tuple[float, float]:
        from adaptive_dp.guarantees.composition import compose_basic
        from adaptive_dp.guarantees.definitions import PureDP

        result = compose_basic(PureDP(e) for e in self._spends())
        return float(result.epsilon), float(getattr(result, "delta", 0))


@dataclass(frozen=True, slots=True)
class AdvancedComposition:
    """CS2080-AdvComp: eps' = eps sqrt(2k ln(1/delta')) + k eps (e^eps - 1), k delta + delta'."""

    epsilon: Fraction
    k: int
    delta_slack: Fraction

    def _epsilon(self) -> float:
        from adaptive_dp.guarantees.composition import compose_advanced
        from adaptive_dp.guarantees.definitions import ApproxDP

        return float(compose_advanced(ApproxDP(self.epsilon, 0), self.k, self.delta_slack).epsilon)

    def claimed(self) -> tuple[float, float]:
        return self._epsilon(), float(self.delta_slack)


@dataclass(frozen=True, slots=True)
class KOV15:
    """EXT-KOV15: the optimal eps' for k-fold composition of eps-DP at delta_total."""

    epsilon: Fraction
    k: int
    delta: Fraction

    def _k(self) -> int:
        return self.k

    def claimed(self) -> tuple[float, float]:
        from adaptive_dp.guarantees.composition import compose_kov
        from adaptive_dp.guarantees.definitions import ApproxDP

        result = compose_kov(ApproxDP(self.epsilon, 0), self._k(), self.delta)
        return _pair(result.epsilon, result.delta)


@dataclass(frozen=True, slots=True)
class MV16:
    """EXT-MV16: the optimal eps' for the composition of eps_i-DP mechanisms (the
    epsilons fixed in advance, possibly different) at delta_total."""

    epsilons: tuple[Fraction, ...]
    delta: Fraction

    def _epsilons(self) -> tuple[Fraction, ...]:
        return self.epsilons

    def claimed(self) -> tuple[float, float]:
        from adaptive_dp.guarantees.optimal import compose_optimal

        result = compose_optimal([PureDP(e) for e in self._epsilons()], self.delta)
        return _pair(result.epsilon, result.delta)


@dataclass(frozen=True, slots=True)
class LaplaceCalibration:
    """R23-Lem2.1: ``LaplaceMechanism.from_epsilon(1, epsilon)`` is epsilon-DP.

    ``release()`` is the simulator's parameter of the calibrated mechanism (1 / scale at
    sensitivity 1); ``claimed()`` is (epsilon, 0).
    """

    epsilon: Fraction

    def _mechanism(self) -> LaplaceMechanism:
        return LaplaceMechanism.from_epsilon(1, self.epsilon)

    def release(self) -> float:
        return float(1 / self._mechanism().scale)

    def claimed(self) -> tuple[float, float]:
        return float(self.epsilon), 0.0


@dataclass(frozen=True, slots=True)
class GaussianCalibration:
    """R23-Lem2.2: ``GaussianMechanism.from_rho(1, rho)`` is rho-zCDP, tested by the
    hockey-stick at a stated epsilon against EXT-CKS20's certified delta of ZCDP(rho)."""

    rho: Fraction
    epsilon: Fraction

    def _mechanism(self) -> GaussianMechanism:
        return GaussianMechanism.from_rho(1, self.rho)

    def release(self) -> float:
        return float(1 / self._mechanism().sigma)

    def claimed(self) -> tuple[float, float]:
        from adaptive_dp.guarantees.zcdp import zcdp_delta_optimal

        return float(self.epsilon), zcdp_delta_optimal(ZCDP(self.rho), self.epsilon)


@dataclass(frozen=True, slots=True)
class RRCalibration:
    """EXT-RandomizedResponse: ``RandomizedResponse(epsilon)`` is epsilon-DP."""

    epsilon: Fraction

    def _mechanism(self) -> RandomizedResponse:
        return RandomizedResponse(self.epsilon)

    def release(self) -> float:
        return float(self._mechanism().epsilon)

    def claimed(self) -> tuple[float, float]:
        return float(self.epsilon), 0.0


@dataclass(frozen=True, slots=True)
class CS2080Sigma:
    """CS2080-GaussianSigma: sigma = GS sqrt(2 ln(2/delta)) / epsilon (GS = 1) gives
    (epsilon, delta)-DP for 0 < epsilon <= 1; ``release()`` is mu = 1 / sigma."""

    epsilon: Fraction
    delta: Fraction

    def _sigma(self) -> float:
        from adaptive_dp.guarantees.calibration import gaussian_sigma_cs2080

        return gaussian_sigma_cs2080(1, self.epsilon, self.delta)

    def release(self) -> float:
        return 1.0 / self._sigma()

    def claimed(self) -> tuple[float, float]:
        return float(self.epsilon), float(self.delta)


@dataclass(frozen=True, slots=True)
class GroupPrivacy:
    """CS2080-GroupPrivacy for pure DP: an epsilon-DP mechanism is (k epsilon)-DP on
    inputs at distance k."""

    epsilon: Fraction
    k: int

    def _k(self) -> int:
        return self.k

    def claimed(self) -> tuple[float, float]:
        from adaptive_dp.guarantees.group import group_privacy

        result = group_privacy(PureDP(self.epsilon), self._k())
        return float(result.epsilon), float(getattr(result, "delta", 0))


PROFILE_H = Fraction(1, 2**8)
"""The loss lattice of the registry's certified profiles: coarse enough to build in a
fraction of a second, and still within 1e-4 of the exact delta at the claims' epsilons
(far below what a simulation resolves)."""


@lru_cache(maxsize=32)
def _profile(history: History, h: Fraction, discretiser: Discretiser) -> CertifiedProfile:
    from adaptive_dp.loss.certified import certified_profile

    return certified_profile(history, h, discretiser=discretiser)


@dataclass(frozen=True, slots=True)
class ProfileUpper:
    """AUD-ProfileUpper: the certified upper bound on the optimal delta(epsilon) of the
    composition ``history`` of mechanism steps (for add/remove, the larger of the two
    orders of the dominating pairs), on the loss lattice of step ``h``.

    Hooks: ``_charged`` (the history whose profile is charged), ``_discretiser`` (how each
    step is binned) and ``_delta`` (which bound of the profile is read).
    """

    history: History
    epsilon: float
    h: Fraction = PROFILE_H

    def _charged(self) -> History:
        return self.history

    def _discretiser(self) -> Discretiser:
        from adaptive_dp.loss.certified import discretise

        return discretise

    def _delta(self, profile: CertifiedProfile) -> float:
        return profile.delta_bounds(self.epsilon)[1]

    def profile(self) -> CertifiedProfile:
        """The certified profile the bound is read from (cached per history, h, binning)."""
        return _profile(self._charged(), self.h, self._discretiser())

    def claimed(self) -> tuple[float, float]:
        return float(self.epsilon), self._delta(self.profile())
