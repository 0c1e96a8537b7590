"""Claims of the relative-error application (R23 section 7).

``EXT-CR21/<relation>``: the exponential mechanism by Gumbel noise
(:class:`~adaptive_dp.mechanisms.exponential.ExponentialMechanism`, bounded-range
parameter eps_EM = 2, so charged ZCDP(1/2)) on worst-case neighbouring count vectors of
two candidates: add/remove, x = (0, 0) and x' = (1, 0) (a user adds 1 to the first
count), scale 1/eps_EM; change-one-row, x = (0, 1) and x' = (1, 0), scale 2/eps_EM.
Hockey-stick, both orders, at the stated eps = 13/10 (quick: claimed delta = the EXT-CKS20
conversion of ZCDP(1/2) there, about 0.170; the true value is about 0.063) or at the
optimal eps for delta = 1e-3 (full).  The loss of each released index is computed from
the exact selection probabilities of the Gumbel-max, softmax(counts / scale) with the
scale the mechanism actually used (mpmath, 30 digits), never from the charge under test.
Twin ``halved-scale``: the Gumbel scale halved (range 2 eps_EM, true delta about 0.43 at
eps = 13/10) still charged eps_EM^2/8.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

import mpmath
import numpy as np
from numpy.typing import NDArray

from adaptive_dp.guarantees.zcdp import zcdp_delta_optimal, zcdp_to_dp_optimal
from adaptive_dp.mechanisms.exponential import ExponentialMechanism
from adaptive_dp.verify.judge.claim import Claim, Setup, Twin, profile_delta, samples_for
from adaptive_dp.verify.judge.estimators import Quantity
from adaptive_dp.verify.registry.twins.application import HalvedScaleExponential

__all__ = ["CLAIMS", "SelectionExperiment", "selection_log_probabilities"]

_EM_EPSILON = Fraction(2)
_QUICK_EPSILON = Fraction(13, 10)
_PAIRS: dict[str, tuple[tuple[int, ...], tuple[int, ...]]] = {
    "add-remove": ((0, 0), (1, 0)),
    "change-one": ((0, 1), (1, 0)),
}


def selection_log_probabilities(counts: tuple[int, ...], scale: float) -> NDArray[np.float64]:
    """log P[argmax_j (u_j + Gumbel(0, b)) = j] = u_j/b - log sum_k exp(u_k/b) (the
    Gumbel-max identity), evaluated with mpmath at 30 digits."""
    with mpmath.workdps(30):
        b = mpmath.mpf(scale)
        terms = [mpmath.mpf(u) / b for u in counts]
        top = max(terms)
        log_z = top + mpmath.log(mpmath.fsum(mpmath.exp(t - top) for t in terms))
        return np.array([float(t - log_z) for t in terms], dtype=np.float64)


@dataclass(frozen=True, slots=True)
class SelectionExperiment:
    """Privacy loss of one Gumbel-argmax release on the pair (x, x'): sampled with the
    mechanism, loss from the exact selection probabilities."""

    mechanism: ExponentialMechanism
    x: tuple[int, ...]
    x_prime: tuple[int, ...]

    def __call__(self, paths: int, rng: np.random.Generator, under: str) -> NDArray[np.float64]:
        if under not in ("x", "x'"):
            raise ValueError(f"under={under!r} is not allowed: expected 'x' or \"x'\"")
        mine, other = (self.x, self.x_prime) if under == "x" else (self.x_prime, self.x)
        scale = self.mechanism.scale
        log_p = selection_log_probabilities(mine, scale)
        log_q = selection_log_probabilities(other, scale)
        counts = np.broadcast_to(np.asarray(mine, dtype=np.float64), (paths, len(mine)))
        y = self.mechanism.select(counts, rng)
        out: NDArray[np.float64] = (log_p - log_q)[y]
        return out


def _setup(mechanism: ExponentialMechanism, profile: str, relation: str) -> Setup:
    charge = mechanism.guarantee()
    if profile == "quick":
        epsilon = float(_QUICK_EPSILON)
        delta = zcdp_delta_optimal(charge, _QUICK_EPSILON)
    else:
        delta = profile_delta(profile, 0.05)
        epsilon = float(zcdp_to_dp_optimal(charge, Fraction(delta)).epsilon)
    x, x_prime = _PAIRS[relation]
    return Setup(Quantity.HOCKEY_STICK, epsilon, delta,
                 SelectionExperiment(mechanism, x, x_prime),
                 samples_for(Quantity.HOCKEY_STICK, delta),
                 note=f"Gumbel argmax, eps_EM={_EM_EPSILON} ({relation}, scale "
                      f"{mechanism.scale:g}), x={x}, x'={x_prime}, charged "
                      f"rho={charge.rho}, delta={delta:.4g} at eps={epsilon:.4g}")


def _claim(relation: str) -> Callable[[str], Setup]:
    def build(profile: str) -> Setup:
        return _setup(ExponentialMechanism(_EM_EPSILON, relation), profile, relation)
    return build


def _twin(relation: str) -> Callable[[str], Setup]:
    def build(profile: str) -> Setup:
        return _setup(HalvedScaleExponential(_EM_EPSILON, relation), "quick", relation)
    return build


CLAIMS: tuple[Claim, ...] = tuple(
    Claim("EXT-CR21", relation, Quantity.HOCKEY_STICK,
          "an eps-bounded-range mechanism (Gumbel argmax of sensitivity-1 counts, scale "
          f"{'1' if relation == 'add-remove' else '2'}/eps) is eps^2/8-zCDP",
          _claim(relation),
          (Twin("halved-scale", "Gumbel scale halved (range 2 eps), charged eps^2/8",
                _twin(relation)),))
    for relation in ("add-remove", "change-one")
)
