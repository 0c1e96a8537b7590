"""Negative controls of the certified privacy profiles (AUD-ProfileUpper,
AUD-DominatingPairs), each overriding one hook of
:class:`~adaptive_dp.verify.registry.bounds.ProfileUpper`.

- :class:`AddRemoveForSubstitution` (wrong neighbouring relation): a substitution history
  charged with the add/remove profile of the same steps (the pair
  (1-q) N(0) + q N(1) against N(0) instead of against (1-q) N(0) + q N(-1)).
- :class:`TruncatedTails` (tails truncated without their mass): each step's grid ends
  where its tail P-mass is about ``cut`` (a valid choice of grid ends: it only makes the
  valid bound looser), but the P-mass beyond the top end, which the valid discretisation
  charges at loss +infinity, is dropped.
- :class:`OneOrderOnly` (one order only): of an add/remove pair, only the order
  (B, A) = (record absent, record present), e.g. N(0) against (1-q) N(0) + q N(1), is
  charged. The other single-order twin, (A, B) only, is no negative control here: for the
  subsampled Gaussian (A, B) was the larger order at every epsilon >= 0 of a scan of
  sigma in 0.3..2, q in 0.05..0.95, T in 1..5, and for the subsampled Laplace (B, A)
  exceeded it by at most 17% (sigma 0.25..4, q 0.1..0.9, T 1..8), never the factor 2 a
  twin's scenario needs (docs/design.md, verification: twins).

Each twin's scenario has a true delta at least twice its charged value, shown with the
certified lower bound of the valid profile in ``tests/verify/test_aud_claims.py``.

Negative controls of the certified numerics (AUD-ProfileLower, AUD-FFTError,
AUD-TailBound, AUD-Inversion, AUD-SubsampledRDP), one defect each:

- :func:`lower_from_upper` (AUD-ProfileLower): the lower measure of each step replaced by
  its upper (spread) measure, which dominates the step instead of being dominated by it.
- :func:`double_precision_compose` (AUD-FFTError): the composition transformed in double
  precision (complex128) while its error is bounded for extended precision (u = 2^-64).
- :func:`counts_dropped` (AUD-TailBound): Chernoff's product over the T_j copies of a step
  replaced by one factor (each step's count read as 1).
- :class:`UpperForLower` and :class:`LowerForUpper` (AUD-Inversion): every bound read as
  the certified upper (lower) delta, so the lower (upper) end of eps(delta) is searched
  with the wrong one. For randomized response the upper profile is exact to about 1e-11
  at the claim's deltas, so only the second is a negative control there.
- :func:`reverse_only_rdp` (AUD-SubsampledRDP): of the add/remove pair only D_a(Q||P)
  (record absent against present) charged.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from fractions import Fraction

import numpy as np
from numpy.typing import NDArray

from adaptive_dp.guarantees.histories import History
from adaptive_dp.loss.certified import (
    CertifiedProfile,
    Discretiser,
    StepGrid,
    discretise,
    tail_bound,
)
from adaptive_dp.loss.subsampled_rdp import subsampled_gaussian_rdp_direction
from adaptive_dp.mechanisms.subsampled import Pair
from adaptive_dp.verify.registry.bounds import ProfileUpper

__all__ = ["AddRemoveForSubstitution", "LowerForUpper", "OneOrderOnly", "TailsDropped",
           "TruncatedTails", "UpperForLower", "counts_dropped", "double_precision_compose",
           "lower_from_upper", "reverse_only_rdp"]


@dataclass(frozen=True, slots=True)
class AddRemoveForSubstitution(ProfileUpper):
    """Twin of AUD-ProfileUpper: the add/remove profile charged for substitution."""

    def _charged(self) -> History:
        return History(self.history.steps, "add-remove", self.history.adaptive)


@dataclass(frozen=True, slots=True)
class TailsDropped:
    """:func:`~adaptive_dp.loss.certified.discretise` with grid ends where each tail's
    P-mass is about ``cut``, and the P-mass beyond the top end dropped (``infinity`` 0)."""

    cut: float

    def __call__(self, pair: Pair, h: Fraction, count: int, tolerance: float
                 ) -> tuple[StepGrid, StepGrid | None]:
        grid, mirrored = discretise(pair, h, count, self.cut)
        return (replace(grid, infinity=0.0),
                None if mirrored is None else replace(mirrored, infinity=0.0))


@dataclass(frozen=True, slots=True)
class TruncatedTails(ProfileUpper):
    """Twin of AUD-ProfileUpper: each step's tail beyond its grid dropped, not charged."""

    cut: float = 0.02

    def _discretiser(self) -> Discretiser:
        return TailsDropped(self.cut)


@dataclass(frozen=True, slots=True)
class OneOrderOnly(ProfileUpper):
    """Twin of AUD-ProfileUpper: only the order (B, A) of an add/remove pair charged."""

    def _delta(self, profile: CertifiedProfile) -> float:
        deltas = profile.direction_deltas(self.epsilon, True)
        if len(deltas) != 2:
            raise ValueError("one-order-only needs an asymmetric (add/remove) history")
        return min(deltas[1], 1.0)


def lower_from_upper(pair: Pair, h: Fraction, count: int, tolerance: float
                     ) -> tuple[StepGrid, StepGrid | None]:
    """Twin of AUD-ProfileLower: :func:`~adaptive_dp.loss.certified.discretise` with each
    grid's lower measure replaced by its upper (spread) measure."""
    grid, mirrored = discretise(pair, h, count, tolerance)
    return (replace(grid, lower=grid.upper),
            None if mirrored is None else replace(mirrored, lower=mirrored.upper))


def double_precision_compose(vectors: Sequence[NDArray[np.float64]], counts: Sequence[int],
                             n: int) -> NDArray[np.float64]:
    """Twin of AUD-FFTError: :func:`~adaptive_dp.loss.certified.cyclic_compose` computed
    in double precision (complex128), its error still bounded with u = 2^-64."""
    spectrum = np.ones(n, dtype=np.complex128)
    for v, count in zip(vectors, counts, strict=True):
        cyclic = np.zeros(n, dtype=np.complex128)
        np.add.at(cyclic, np.arange(v.size) % n, v)
        spectrum *= np.fft.fft(cyclic) ** count
    z: NDArray[np.float64] = np.fft.ifft(spectrum).real
    return z


def counts_dropped(grids: Sequence[StepGrid], h: float, above: float | None = None,
                   below: float | None = None, lower: bool = False) -> float:
    """Twin of AUD-TailBound: :func:`~adaptive_dp.loss.certified.tail_bound` with each
    step's count read as 1 (one moment generating function factor per step, not T_j)."""
    return tail_bound([replace(g, count=1) for g in grids], h, above, below, lower)


@dataclass(frozen=True)
class UpperForLower(CertifiedProfile):
    """Twin of AUD-Inversion: every bound read is the certified upper one, so the lower
    end of eps(delta) is the largest eps whose upper delta exceeds delta."""

    def _delta(self, eps: float, upper: bool) -> float:
        return max(self.direction_deltas(eps, True))


@dataclass(frozen=True)
class LowerForUpper(CertifiedProfile):
    """Twin of AUD-Inversion: every bound read is the certified lower one, so the upper
    end of eps(delta) is the smallest eps whose lower delta is at most delta."""

    def _delta(self, eps: float, upper: bool) -> float:
        return max(self.direction_deltas(eps, False))


def reverse_only_rdp(alpha: float | Fraction, noise_multiplier: float, sampling_rate: float
                     ) -> tuple[float, float]:
    """Twin of AUD-SubsampledRDP (add/remove): only D_a(Q||P) charged, not the maximum of
    both directions."""
    return subsampled_gaussian_rdp_direction("reverse", alpha, noise_multiplier,
                                             sampling_rate)
