"""Teaching objects of the CS2080 lecture's basics (spec/CS2080.toml).

- :class:`FiniteMechanism`: a mechanism given by its pmf table, with the pointwise check
  of pure DP (CS2080-PointwiseCheck);
- :class:`PostProcessed`: a function of a finite mechanism's output (CS2080-PostProcessing);
- :class:`DPHistogram`: Laplace noise on the counts of disjoint bins (CS2080-Histogram);
- :class:`SlideZCDP`: the slide's four zCDP facts, chained through the library's calculators
  (CS2080-ZCDP).

Parallel composition (CS2080-ParallelComp) is
:func:`adaptive_dp.guarantees.composition.compose_parallel`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from adaptive_dp.errors import ParameterError
from adaptive_dp.guarantees.definitions import ZCDP, ApproxDP, PureDP
from adaptive_dp.guarantees.zcdp import compose_zcdp, pure_to_zcdp, zcdp_to_dp_bun_steinke
from adaptive_dp.mechanisms.gaussian import GaussianMechanism
from adaptive_dp.mechanisms.laplace import LaplaceMechanism, laplace_logpdf, laplace_sample
from adaptive_dp.numerics import ExactLike, arb_of, ball_upper, enclose, exact_positive

__all__ = ["Adjacency", "DPHistogram", "FiniteMechanism", "PostProcessed", "SlideZCDP"]

Ints = NDArray[np.int64]
Adjacency = Literal["add-remove", "substitution"]


def _log_ratio_upper(p: float, q: float) -> float:
    """log(p / q) for floats p > 0, rounded up (+inf when q = 0)."""
    if q == 0:
        return math.inf
    ratio = Fraction(p) / Fraction(q)
    return ball_upper(enclose(lambda: arb_of(ratio).log()))


@dataclass(frozen=True, slots=True, eq=False)
class FiniteMechanism:
    """CS2080-PointwiseCheck: a mechanism with outputs 0..m-1, given by its pmf under each
    dataset (``pmfs[d, y]`` = Pr[M(d) = y]); ``epsilon()`` is the pointwise check.

    "M is eps-DP iff Pr[M(x, q) = y] <= e^eps Pr[M(x', q) = y] for all x ~ x' and y": the
    smallest such eps is the largest log ratio over both orders of every pair in
    ``neighbours`` (a symmetric relation, listed once per pair).
    """

    pmfs: NDArray[np.float64]
    neighbours: tuple[tuple[int, int], ...]

    def __post_init__(self) -> None:
        table = np.asarray(self.pmfs, dtype=np.float64)
        if (table.ndim != 2 or not np.all(np.isfinite(table)) or np.any(table < 0)
                or not np.allclose(table.sum(axis=1), 1.0, rtol=0, atol=1e-9)):
            raise ParameterError("pmfs", self.pmfs, "a 2-d table of pmfs (rows sum to 1)")
        if any(not (0 <= d < table.shape[0]) for pair in self.neighbours for d in pair):
            raise ParameterError("neighbours", self.neighbours, "pairs of row indices")
        object.__setattr__(self, "pmfs", table)

    def _ordered(self) -> tuple[tuple[int, int], ...]:
        """The ordered pairs (x, x') checked: both orders of every neighbouring pair."""
        return self.neighbours + tuple((b, a) for a, b in self.neighbours)

    def epsilon(self) -> float:
        """The pointwise check: max log(P_x(y) / P_x'(y)) over the ordered pairs and every y
        with P_x(y) > 0, certified and rounded up (+inf if P_x'(y) = 0 < P_x(y))."""
        worst = 0.0
        for a, b in self._ordered():
            for p, q in zip(self.pmfs[a], self.pmfs[b], strict=True):
                if p > 0:
                    worst = max(worst, _log_ratio_upper(float(p), float(q)))
        return worst

    def logpmf(self, y: ArrayLike, dataset: int) -> NDArray[np.float64]:
        """log Pr[M(dataset) = y] (-inf off the support)."""
        with np.errstate(divide="ignore"):
            out: NDArray[np.float64] = np.log(self.pmfs[dataset][np.asarray(y, dtype=np.int64)])
        return out

    def sample(self, dataset: int, paths: int, rng: np.random.Generator) -> Ints:
        """``paths`` independent outputs of M(dataset)."""
        out: Ints = rng.choice(self.pmfs.shape[1], size=paths, p=self.pmfs[dataset])
        return out


@dataclass(frozen=True, slots=True, eq=False)
class PostProcessed:
    """CS2080-PostProcessing: M'(x) = f(M(x)) for any function f of the output alone keeps
    M's pure DP (``epsilon()`` is the base mechanism's pointwise epsilon).

    ``f`` maps an array of outputs 0..m-1 of ``base`` to integers, elementwise.
    """

    base: FiniteMechanism
    f: Callable[[Ints], Ints]

    def _process(self, y: Ints, dataset: int) -> Ints:
        """What is released from the base output ``y`` (never reads ``dataset``)."""
        return self.f(y)

    def epsilon(self) -> float:
        """CS2080-PostProcessing: the base mechanism's epsilon, unchanged."""
        return self.base.epsilon()

    def released(self, dataset: int) -> Ints:
        """What is released for each base output 0..m-1 when the data is ``dataset``."""
        return self._process(np.arange(self.base.pmfs.shape[1], dtype=np.int64), dataset)

    def sample(self, dataset: int, paths: int, rng: np.random.Generator) -> Ints:
        """``paths`` independent releases f(M(dataset))."""
        return self.released(dataset)[self.base.sample(dataset, paths, rng)]


@dataclass(frozen=True, slots=True, init=False)
class DPHistogram:
    """CS2080-Histogram: M(x) = (q_1(x) + Z_1, ..., q_k(x) + Z_k) for the counts q_j of
    disjoint bins and independent Z_j ~ Lap(1/eps) under add/remove adjacency,
    Lap(2/eps) under substitution (change one row); eps-DP.

    One row changes one count by 1 (add/remove) or two counts by 1 each (substitution):
    the l1 sensitivity of the count vector, through
    :meth:`adaptive_dp.mechanisms.laplace.LaplaceMechanism.from_epsilon`.
    """

    epsilon: Fraction
    bins: int
    adjacency: Adjacency

    def __init__(self, epsilon: ExactLike, bins: int, adjacency: Adjacency) -> None:
        if isinstance(bins, bool) or not isinstance(bins, int) or bins < 1:
            raise ParameterError("bins", bins, "an int >= 1")
        if adjacency not in ("add-remove", "substitution"):
            raise ParameterError("adjacency", adjacency, "'add-remove' or 'substitution'")
        object.__setattr__(self, "epsilon", exact_positive(epsilon, "epsilon"))
        object.__setattr__(self, "bins", bins)
        object.__setattr__(self, "adjacency", adjacency)

    def _sensitivity(self) -> int:
        """l1 sensitivity of the count vector under the adjacency."""
        return 1 if self.adjacency == "add-remove" else 2

    @property
    def scale(self) -> Fraction:
        """The Laplace scale of every bin: sensitivity / eps (exact)."""
        return LaplaceMechanism.from_epsilon(self._sensitivity(), self.epsilon).scale

    def guarantee(self) -> PureDP:
        """CS2080-Histogram: PureDP(eps)."""
        return PureDP(self.epsilon)

    def counts(self, rows: ArrayLike) -> Ints:
        """q_j: the number of rows in bin j, for rows given as bin labels 0..k-1 (last axis)."""
        labels = np.asarray(rows, dtype=np.int64)
        if np.any((labels < 0) | (labels >= self.bins)):
            raise ParameterError("rows", rows, f"bin labels in 0..{self.bins - 1}")
        out: Ints = (labels[..., None] == np.arange(self.bins)).sum(axis=-2)
        return out

    def sample(self, counts: ArrayLike, rng: np.random.Generator) -> NDArray[np.float64]:
        """The noisy counts: counts + Lap(scale) in every bin."""
        return laplace_sample(counts, float(self.scale), rng)

    def logpdf(self, release: ArrayLike, counts: ArrayLike) -> NDArray[np.float64]:
        """log density of a release (last axis: bins) given the true counts."""
        out: NDArray[np.float64] = laplace_logpdf(release, counts, float(self.scale)).sum(axis=-1)
        return out


@dataclass(frozen=True, slots=True)
class SlideZCDP:
    """CS2080-ZCDP: the slide's zCDP facts, chained: (1) eps-DP => (eps^2/2)-zCDP, (4) the
    Gaussian mechanism with variance Delta^2/(2 rho) is rho-zCDP, (3) the rho's add up, and
    (2) rho-zCDP => (rho + 2 sqrt(rho log(1/delta)), delta)-DP.

    Attached to the library's calculators: :func:`~adaptive_dp.guarantees.zcdp.pure_to_zcdp`,
    :meth:`GaussianMechanism.guarantee`, :func:`~adaptive_dp.guarantees.zcdp.compose_zcdp`
    and :func:`~adaptive_dp.guarantees.zcdp.zcdp_to_dp_bun_steinke`.
    """

    pure: tuple[PureDP, ...]
    gaussians: tuple[GaussianMechanism, ...]

    def parts(self) -> tuple[ZCDP, ...]:
        """Facts (1) and (4): the rho of every release."""
        return (tuple(pure_to_zcdp(g) for g in self.pure)
                + tuple(m.guarantee() for m in self.gaussians))

    def rho(self) -> ZCDP:
        """Fact (3): the rho's add up."""
        return ZCDP(compose_zcdp(self.parts()).rho)

    def to_dp(self, delta: ExactLike) -> ApproxDP:
        """Fact (2): (rho + 2 sqrt(rho log(1/delta)), delta)-DP, epsilon rounded up."""
        return zcdp_to_dp_bun_steinke(self.rho(), delta)
