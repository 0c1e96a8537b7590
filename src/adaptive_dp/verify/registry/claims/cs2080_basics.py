"""Claims of the CS2080 basics as teaching objects (issue 15, item 4): the pointwise check
(CS2080-PointwiseCheck), post-processing (CS2080-PostProcessing), DP histograms
(CS2080-Histogram), parallel composition (CS2080-ParallelComp) and the slide's zCDP facts
(CS2080-ZCDP). Every loss is the log ratio of the released output's pmf or density under
the two neighbours, computed here independently of the object under test.

- ``CS2080-PointwiseCheck/clamped-geometric``: M(c) = clip(c + Z, 0, 9), Z two-sided
  geometric with alpha = e^{-1/2}, counts c = 0..3 (neighbours c ~ c + 1, path i on pair
  i mod 3); the table is built by enumerating Z, the loss from the closed-form pmf (tails
  alpha^k / (1 + alpha) at the clamps). delta = 0: every loss <= the check's epsilon.
- ``CS2080-PointwiseCheck/asymmetric``: two datasets, pmfs (0.9, 0.1) and (0.6, 0.4).
  Both claims carry the twin ``one-direction``, run in this asymmetric scenario (claimed
  log 1.5, true max loss log 4 in the order x'); on the symmetric clamped geometric a
  one-directional check happens to be exact.
- ``CS2080-PostProcessing/coarsened-geometric``: f(y) = y // 2 of the clamped geometric;
  the released pmf is the base pmf pushed through the released map (exact enumeration).
  Twin ``reads-dataset`` (f(y) + c: loss 3 eps = 3/2 in the interior, and +inf at a
  release outside the other dataset's support).
- ``CS2080-Histogram/add-remove``: 4 bins, eps = 1/2, 7 rows; x' adds a row in bin
  i mod 4. Twin ``overlapping-bins`` (bins 0 and 3 overlap: true max loss 2 eps).
- ``CS2080-Histogram/substitution``: the same rows, x' moves row 0 from bin 0 to bin
  1 + i mod 3; scale 2/eps. Twin ``add-remove-scale`` (scale 1/eps: true max loss 2 eps).
- ``CS2080-ParallelComp/disjoint-parts``: parts {0}, {1}, {2, 3} of the labels, a Laplace
  count of each with eps = 1/2, 1, 1; x' adds a row labelled i mod 4; claimed
  ``compose_parallel`` = 1. Twin ``overlapping-partition`` (parts {0}, {1, 2}, {2, 3}:
  true max loss 2).
- ``CS2080-ZCDP/rr-and-gaussian``: two randomized responses of eps = 1/2 (fact 1) and six
  Gaussian releases ``from_rho(1, 1/8)`` (fact 4), rho = 1 (fact 3), converted by fact 2
  at delta = 0.05 (quick) / 1e-3 (full); hockey-stick at that epsilon. Twin
  ``max-not-sum`` (rho = 1/8: eps = 1.349 at delta = 0.05, exact hockey-stick 0.216).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction

import numpy as np
from numpy.typing import NDArray

from adaptive_dp.guarantees.composition import compose_parallel
from adaptive_dp.guarantees.definitions import PureDP
from adaptive_dp.mechanisms.gaussian import GaussianMechanism
from adaptive_dp.mechanisms.laplace import LaplaceMechanism, laplace_logpdf, laplace_sample
from adaptive_dp.mechanisms.randomized_response import RandomizedResponse
from adaptive_dp.mechanisms.teaching import DPHistogram, FiniteMechanism, PostProcessed, SlideZCDP
from adaptive_dp.verify.judge.claim import (
    Claim,
    Experiment,
    Setup,
    Twin,
    profile_delta,
    samples_for,
)
from adaptive_dp.verify.judge.estimators import Quantity
from adaptive_dp.verify.registry.twins.cs2080_basics import (
    OVERLAPPING_PARTS,
    AddRemoveScaleHistogram,
    DataReadingPostProcessed,
    MaxNotSumZCDP,
    OneDirectionCheck,
    OverlappingBinsHistogram,
)

__all__ = ["CLAIMS", "clamped_geometric_logpmf", "clamped_geometric_table"]

Array = NDArray[np.float64]
Ints = NDArray[np.int64]
LogPmf = Callable[[Ints, int], Array]
Sampler = Callable[[int, int, np.random.Generator], Ints]

_ALPHA = math.exp(-0.5)
_COUNTS = 4
_OUTPUTS = 10
_CHAIN = tuple((c, c + 1) for c in range(_COUNTS - 1))


def clamped_geometric_table(alpha: float, counts: int, outputs: int) -> Array:
    """Pr[clip(c + Z, 0, outputs - 1) = y] for c < counts, by enumerating ``|Z| <= 2000``
    (``Pr[Z = z] = (1 - alpha) / (1 + alpha) alpha^|z|``; the mass left out is below 1e-300)."""
    z = np.arange(-2000, 2001)
    weight = (1 - alpha) / (1 + alpha) * alpha ** np.abs(z)
    table = np.zeros((counts, outputs))
    for c in range(counts):
        np.add.at(table[c], np.clip(c + z, 0, outputs - 1), weight)
    return table


def clamped_geometric_logpmf(y: Ints, c: int, alpha: float, outputs: int) -> Array:
    """Closed form of the same pmf: interior ``(1 - alpha)/(1 + alpha) alpha^|y - c|``, and the
    clamped tails Pr[Z <= -c] = alpha^c/(1 + alpha), Pr[Z >= m-1-c] = alpha^(m-1-c)/(1 + alpha)."""
    dist = np.abs(y - c).astype(np.float64)
    inner = math.log((1 - alpha) / (1 + alpha)) + dist * math.log(alpha)
    edge = dist * math.log(alpha) - math.log1p(alpha)
    out: Array = np.where((y == 0) | (y == outputs - 1), edge, inner)
    return out


def _geometric_oracle(y: Ints, c: int) -> Array:
    return clamped_geometric_logpmf(y, c, _ALPHA, _OUTPUTS)


def _finite_experiment(sample: Sampler, logpmf: LogPmf,
                       pairs: tuple[tuple[int, int], ...]) -> Experiment:
    """Path i on pair i mod len(pairs); the loss log P_x(y) - log P_x'(y) of its release."""

    def run(paths: int, rng: np.random.Generator, under: str) -> Array:
        loss = np.empty(paths)
        which = np.arange(paths) % len(pairs)
        for k, (a, b) in enumerate(pairs):
            x, xp = (a, b) if under == "x" else (b, a)
            idx = np.flatnonzero(which == k)
            y = sample(x, idx.size, rng)
            loss[idx] = logpmf(y, x) - logpmf(y, xp)
        return loss

    return run


def _max_loss(epsilon: float, experiment: Experiment, delta_min: float, note: str) -> Setup:
    return Setup(Quantity.MAX_LOSS, epsilon, epsilon, experiment,
                 samples_for(Quantity.MAX_LOSS, epsilon, delta_min), delta_min=delta_min,
                 note=note)


# CS2080-PointwiseCheck ----------------------------------------------------------------------

_ASYMMETRIC = np.array([[0.9, 0.1], [0.6, 0.4]])


def _table_oracle(table: Array) -> LogPmf:
    def logpmf(y: Ints, d: int) -> Array:
        with np.errstate(divide="ignore"):
            out: Array = np.log(table[d][y])
        return out

    return logpmf


def _check_setup(mech: FiniteMechanism, logpmf: LogPmf, delta_min: float, note: str) -> Setup:
    return _max_loss(mech.epsilon(), _finite_experiment(mech.sample, logpmf, mech.neighbours),
                     delta_min, note)


def _geometric(profile: str) -> Setup:
    mech = FiniteMechanism(clamped_geometric_table(_ALPHA, _COUNTS, _OUTPUTS), _CHAIN)
    return _check_setup(mech, _geometric_oracle, profile_delta(profile, 0.02),
                        "clip(c + geometric(e^-1/2), 0, 9), c = 0..3, neighbours c ~ c+1")


def _asymmetric_setup(kind: type[FiniteMechanism], delta_min: float) -> Setup:
    return _check_setup(kind(_ASYMMETRIC, ((0, 1),)), _table_oracle(_ASYMMETRIC), delta_min,
                        "pmfs (0.9, 0.1) and (0.6, 0.4)")


# CS2080-PostProcessing ----------------------------------------------------------------------


def _halve(y: Ints) -> Ints:
    out: Ints = y // 2
    return out


def _pushforward(post: PostProcessed) -> LogPmf:
    """The released pmf: the base pmf (closed form) summed over each value of the map."""
    full = np.arange(_OUTPUTS, dtype=np.int64)

    def logpmf(z: Ints, d: int) -> Array:
        released = post.released(d)
        size = max(int(released.max()), int(z.max())) + 1
        pmf = np.bincount(released, weights=np.exp(_geometric_oracle(full, d)), minlength=size)
        with np.errstate(divide="ignore"):
            out: Array = np.log(pmf[z])
        return out

    return logpmf


def _post_setup(kind: type[PostProcessed], delta_min: float) -> Setup:
    base = FiniteMechanism(clamped_geometric_table(_ALPHA, _COUNTS, _OUTPUTS), _CHAIN)
    post = kind(base, _halve)
    return _max_loss(post.epsilon(), _finite_experiment(post.sample, _pushforward(post), _CHAIN),
                     delta_min, "y // 2 of clip(c + geometric(e^-1/2), 0, 9), c = 0..3")


# CS2080-Histogram and CS2080-ParallelComp ---------------------------------------------------

_ROWS = np.array([0, 0, 1, 2, 2, 2, 3])
_BINS = 4


def _laplace_experiment(counts: Callable[[int], tuple[Array, Array]], scales: Array,
                        sample: Callable[[Array, np.random.Generator], Array]) -> Experiment:
    """Releases of noisy counts (last axis) under x or x'; the loss from the Laplace
    densities (``scales`` per count) of the whole release vector."""

    def run(paths: int, rng: np.random.Generator, under: str) -> Array:
        cx, cxp = counts(paths)
        if under != "x":
            cx, cxp = cxp, cx
        y = sample(np.broadcast_to(cx, np.broadcast_shapes(cx.shape, cxp.shape)), rng)
        out: Array = (laplace_logpdf(y, cx, scales) - laplace_logpdf(y, cxp, scales)).sum(-1)
        return out

    return run


def _added(paths: int, labels: int) -> Ints:
    """x' of every path: the rows plus one row labelled path mod ``labels``."""
    extra = (np.arange(paths) % labels)[:, None]
    out: Ints = np.concatenate([np.broadcast_to(_ROWS, (paths, _ROWS.size)), extra], axis=1)
    return out


def _moved(paths: int) -> Ints:
    """x' of every path: row 0 (in bin 0) moved to bin 1 + path mod (k - 1)."""
    rows = np.array(np.broadcast_to(_ROWS, (paths, _ROWS.size)))
    rows[:, 0] = 1 + np.arange(paths) % (_BINS - 1)
    return rows


def _histogram_setup(hist: DPHistogram, neighbour: Callable[[int], Ints], delta_min: float,
                     note: str) -> Setup:
    def counts(paths: int) -> tuple[Array, Array]:
        return (hist.counts(_ROWS).astype(np.float64),
                hist.counts(neighbour(paths)).astype(np.float64))

    experiment = _laplace_experiment(counts, np.full(_BINS, float(hist.scale)), hist.sample)
    return _max_loss(float(hist.epsilon), experiment, delta_min,
                     f"{_BINS} bins, eps=1/2, {_ROWS.size} rows; {note}")


def _add_remove(kind: type[DPHistogram], delta_min: float) -> Setup:
    return _histogram_setup(kind(Fraction(1, 2), _BINS, "add-remove"),
                            lambda n: _added(n, _BINS), delta_min, "x' adds a row")


def _substitution(kind: type[DPHistogram], delta_min: float) -> Setup:
    return _histogram_setup(kind(Fraction(1, 2), _BINS, "substitution"), _moved, delta_min,
                            "x' moves a row")


_PARTS: tuple[tuple[int, ...], ...] = ((0,), (1,), (2, 3))
_PART_EPS = (Fraction(1, 2), Fraction(1), Fraction(1))


def _part_counts(rows: Ints, parts: tuple[tuple[int, ...], ...]) -> Array:
    out: Array = np.stack([np.isin(rows, part).sum(axis=-1) for part in parts],
                          axis=-1).astype(np.float64)
    return out


def _parallel_setup(parts: tuple[tuple[int, ...], ...], delta_min: float) -> Setup:
    scales = np.array([float(LaplaceMechanism.from_epsilon(1, e).scale) for e in _PART_EPS])

    def counts(paths: int) -> tuple[Array, Array]:
        return _part_counts(_ROWS, parts), _part_counts(_added(paths, 4), parts)

    def sample(centers: Array, rng: np.random.Generator) -> Array:
        return laplace_sample(centers, scales, rng)

    claimed = compose_parallel(PureDP(e) for e in _PART_EPS).epsilon
    return _max_loss(float(claimed), _laplace_experiment(counts, scales, sample), delta_min,
                     f"parts {parts} of labels 0..3, Laplace eps 1/2, 1, 1; x' adds a row")


# CS2080-ZCDP --------------------------------------------------------------------------------

_RR = RandomizedResponse(Fraction(1, 2))
_GAUSS = GaussianMechanism.from_rho(1, Fraction(1, 8))
_SLIDE = (tuple(_RR.guarantee() for _ in range(2)), (_GAUSS,) * 6)


def _zcdp_experiment(paths: int, rng: np.random.Generator, under: str) -> Array:
    """2 randomized responses (bit 0 on x, 1 on x') and 6 Gaussian releases (0 on x, 1 on
    x'); the loss from their pmfs and densities."""
    c, cp = (0.0, 1.0) if under == "x" else (1.0, 0.0)
    loss = np.zeros(paths)
    for mech, k in ((_RR, 2), (_GAUSS, 6)):
        for _ in range(k):
            y = mech.sample(np.full(paths, c), rng)
            loss += mech.logpdf(y, c) - mech.logpdf(y, cp)
    return loss


def _zcdp_setup(account: SlideZCDP, delta: Fraction) -> Setup:
    dp = account.to_dp(delta)
    return Setup(Quantity.HOCKEY_STICK, float(dp.epsilon), float(dp.delta), _zcdp_experiment,
                 samples_for(Quantity.HOCKEY_STICK, float(dp.delta)),
                 note=f"2 RR of eps=1/2, 6 Gaussians of rho=1/8, delta={float(delta)}")


_ONE_DIRECTION = Twin("one-direction", "each pair checked in its listed order only",
                      lambda p: _asymmetric_setup(OneDirectionCheck, 0.02))

CLAIMS: tuple[Claim, ...] = (
    Claim("CS2080-PointwiseCheck", "clamped-geometric", Quantity.MAX_LOSS,
          "the pointwise check's epsilon bounds every loss of a clamped geometric mechanism",
          _geometric, (_ONE_DIRECTION,)),
    Claim("CS2080-PointwiseCheck", "asymmetric", Quantity.MAX_LOSS,
          "the pointwise check's epsilon bounds every loss of an asymmetric mechanism",
          lambda p: _asymmetric_setup(FiniteMechanism, profile_delta(p, 0.02)),
          (_ONE_DIRECTION,)),
    Claim("CS2080-PostProcessing", "coarsened-geometric", Quantity.MAX_LOSS,
          "f(M(x)) is eps-DP when M is (f = y // 2 of a clamped geometric)",
          lambda p: _post_setup(PostProcessed, profile_delta(p, 0.02)),
          (Twin("reads-dataset", "the processing adds the data's count to f(y)",
                lambda p: _post_setup(DataReadingPostProcessed, 0.02)),)),
    Claim("CS2080-Histogram", "add-remove", Quantity.MAX_LOSS,
          "Laplace(1/eps) histogram counts are eps-DP under add/remove",
          lambda p: _add_remove(DPHistogram, profile_delta(p, 0.02)),
          (Twin("overlapping-bins", "bins 0 and k-1 overlap",
                lambda p: _add_remove(OverlappingBinsHistogram, 0.02)),)),
    Claim("CS2080-Histogram", "substitution", Quantity.MAX_LOSS,
          "Laplace(2/eps) histogram counts are eps-DP under change-one-row",
          lambda p: _substitution(DPHistogram, profile_delta(p, 0.02)),
          (Twin("add-remove-scale", "scale 1/eps (sensitivity 1) under substitution",
                lambda p: _substitution(AddRemoveScaleHistogram, 0.02)),)),
    Claim("CS2080-ParallelComp", "disjoint-parts", Quantity.MAX_LOSS,
          "mechanisms on disjoint parts of the data are (max eps_j)-DP",
          lambda p: _parallel_setup(_PARTS, profile_delta(p, 0.02)),
          (Twin("overlapping-partition", "two parts share the rows labelled 2",
                lambda p: _parallel_setup(OVERLAPPING_PARTS, 0.02)),)),
    Claim("CS2080-ZCDP", "rr-and-gaussian", Quantity.HOCKEY_STICK,
          "eps-DP => eps^2/2-zCDP, Gaussian rho-zCDP, rho's add, rho => (eps', delta)-DP",
          lambda p: _zcdp_setup(SlideZCDP(*_SLIDE), Fraction(profile_delta(p, 0.05))),
          (Twin("max-not-sum", "the largest rho charged instead of their sum",
                lambda p: _zcdp_setup(MaxNotSumZCDP(*_SLIDE), Fraction(1, 20))),)),
)
