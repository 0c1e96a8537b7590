"""Claims of the certified privacy profiles of the audit (tag AUD, issues 13 and 15).

``AUD-ProfileUpper/<mechanism>[-eps0|-eps1]``: the certified upper bound on the optimal
delta(eps) of a short composition (:func:`adaptive_dp.loss.certified.certified_profile`
on the lattice :data:`~adaptive_dp.verify.registry.bounds.PROFILE_H`) is at least the
hockey-stick E[(1 - e^(eps - L))_+] of the composed dominating pairs, in both orders:
outputs y_t drawn from each step's P (order (x, x')) or Q (order (x', x)), the loss
L = sum_t log p(y_t) - log q(y_t) from the pair's densities
(:meth:`~adaptive_dp.mechanisms.subsampled.ShiftPair.logpdf`), never from the profile.
Scenarios (units of the sensitivity; eps = 1/2 in the quick profile, the certified
eps(1e-3) under "full"; ``-eps0`` and ``-eps1`` at eps = 0 and 1 in both profiles):

- ``subsampled-gaussian``: Poisson-subsampled Gaussian, add/remove, sigma = 1, q = 0.2,
  T = 5 (certified delta 0.188, 0.0711, 0.0237 at eps = 0, 1/2, 1). Twins at eps = 1/2:
  ``tails-truncated`` (grids cut where a step's tail P-mass is 0.02, loss 0.80; charges
  0.0312) and ``one-order-only`` (the order (B, A) alone; charges 0.0190).
- ``substitution``: the same mechanism under substitution, sigma = 1, q = 0.2, T = 3
  (0.248, 0.101, 0.0337). Twin ``wrong-neighbouring-relation`` at eps = 1 (the add/remove
  profile charges 0.0111 against the true 0.0337).
- ``subsampled-laplace``: Poisson-subsampled Laplace, add/remove, scale 1/2, q = 0.2,
  T = 3 (0.244, 0.0962, 0.0414). Twin ``one-order-only`` at eps = 1/2 ((B, A) charges
  0.0173 against the true 0.0962).

The twins (:mod:`adaptive_dp.verify.registry.twins.profiles`) keep their scenario in both
profiles and are shared by the three epsilons of a mechanism.

``AUD-DominatingPairs/<mechanism>``: the mechanism itself, run on concrete neighbouring
datasets, is dominated by its pair: DP-SGD on a scalar model (:class:`SubsampledSum`:
each record's gradient clipped to [-1, 1], each record in the batch independently with
probability q, the batch's sum released with Gaussian or Laplace noise, T times) on
x' = five records with raw gradients 0.25, -2, 0.75, -0.5, 1.5 and x = x' plus a record
of raw gradient 3 (clipped to +1), or, for substitution, that record replaced by one of
raw gradient -1.2 (clipped to -1). The loss is computed from the exact densities of the
released sums on both datasets (a mixture over the law of the sampled sum), and its
hockey-stick is tested against the same certified upper bound as above (scenarios
``dpsgd-add-remove``, ``dpsgd-substitute``, ``laplace-add-remove``). The other records
blur the release, so these datasets sit strictly inside the bound; the twins run on the
datasets that realise the pair (the other records' gradients 0), where the mechanism's
loss is the pair's (``tests/verify/test_aud_claims.py`` checks the densities agree and
that a simulation there is consistent with the certified interval).

Certified numerics. AUD-ProfileLower, AUD-FFTError, AUD-TailBound, AUD-Inversion and
AUD-SubsampledRDP are numerical theorems: each claim checks an enclosure against an
independent exact or high-precision value on a finite set of cases, as an equivalence
(docs/design.md, Equivalences): quantity max-loss, the statistic of each case is how far
the exact value lies beyond the enclosure (or the ratio of the exact value to a bound),
claimed <= a stated tolerance (or 1); every case is deterministic and checked
(:class:`Cases`). A lower bound is tested this way, not by the harness's one-sided
verdicts, which cannot show that a true delta is at least a claimed one.

- ``AUD-ProfileLower/{rr,gaussian}``: certified lower delta(eps) minus the exact delta at 15
  eps in [-0.5, 3], for 4 x randomized response (eps 0.7; exact binomial enumeration) and
  3 x Gaussian (s = 1.5; EXT-DRS19 at 30 digits), h = 1/256; claimed <= 1e-12. Twin
  ``lower-from-upper`` (each step's lower measure replaced by its upper, spread, measure).
- ``AUD-Inversion/{rr,gaussian}``: how far the exact eps(delta) (bisection of the exact
  delta to 1e-18) lies outside the certified [lower, upper], 8 deltas in [1e-3, 0.2];
  claimed <= 1e-9 (the ends are bisected to a relative 1e-10). Twins ``lower-for-upper``
  (rr: the upper end searched with the lower delta) and ``upper-for-lower`` (gaussian).
- ``AUD-TailBound/rr-gaussian``: exact composed mass beyond a threshold (direct
  convolution of the grid's masses) over the Chernoff bound, 6 x randomized response
  (eps 0.5) and 4 x Gaussian (s = 1) on h = 1/64, upper and lower measures, thresholds at
  the mean -+ 1, 2, 3 standard deviations; claimed <= 1. Twin ``counts-dropped``.
- ``AUD-FFTError/dyadic-vectors``: ||z_computed - z||_2 / E_2 for eight cases of one or
  two dyadic vectors (denominator 2^30) composed on a cyclic grid of 64 (with wrap-around),
  z the exact cyclic convolution in integers; claimed <= 1. Twin ``double-precision``.
- ``AUD-SubsampledRDP/{add-remove,substitute}``: how far D_alpha by mpmath quadrature (20
  digits) lies outside the certified enclosure, at integer and non-integer orders;
  claimed <= 1e-12. Twins ``reverse-only`` (only D_a(Q||P)) and
  ``wrong-neighbouring-relation`` (the add/remove RDP charged for substitution).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache, partial
from typing import Literal

import mpmath
import numpy as np
from numpy.typing import NDArray
from scipy.special import logsumexp

from adaptive_dp.guarantees.histories import (
    GaussianStep,
    History,
    RandomizedResponseStep,
    SubsampledGaussianStep,
    SubsampledLaplaceStep,
)
from adaptive_dp.loss.certified import (
    CertifiedProfile,
    certified_profile,
    composition_error,
    cyclic_compose,
    discretise,
    tail_bound,
)
from adaptive_dp.loss.subsampled_rdp import subsampled_gaussian_rdp
from adaptive_dp.mechanisms.subsampled import ShiftPair, dominating_pair
from adaptive_dp.verify.judge.claim import (
    Claim,
    Experiment,
    Setup,
    Twin,
    profile_delta,
    samples_for,
)
from adaptive_dp.verify.judge.estimators import Quantity
from adaptive_dp.verify.registry.bounds import PROFILE_H, ProfileUpper
from adaptive_dp.verify.registry.twins.profiles import (
    AddRemoveForSubstitution,
    LowerForUpper,
    OneOrderOnly,
    TruncatedTails,
    UpperForLower,
    counts_dropped,
    double_precision_compose,
    lower_from_upper,
    reverse_only_rdp,
)

__all__ = [
    "CLAIMS",
    "EXACT_HISTORIES",
    "HISTORIES",
    "OTHERS",
    "REALISING",
    "Cases",
    "PairComposition",
    "SubsampledSum",
    "dyadic_case",
    "exact_cyclic",
    "exact_delta",
    "exact_epsilon",
    "mechanism_for",
    "renyi_mp",
    "sum_law",
]

Side = Literal["P", "Q"]

HISTORIES: dict[str, History] = {
    "subsampled-gaussian": History((SubsampledGaussianStep(1.0, 0.2, 5),)),
    "substitution": History((SubsampledGaussianStep(1.0, 0.2, 3),), "substitute"),
    "subsampled-laplace": History((SubsampledLaplaceStep(0.5, 0.2, 3),)),
}
"""The compositions under test, by scenario."""

OTHERS = (0.25, -2.0, 0.75, -0.5, 1.5)
"""Raw gradients of the records both datasets share (clipped to [-1, 1] by the mechanism)."""
REALISING = (0.0,) * 5
"""The shared records of the datasets that realise the dominating pair."""
RECORD, REPLACEMENT = 3.0, -1.2
"""The differing record's raw gradient (clipped to +1) and, under substitution, the raw
gradient it is replaced by (clipped to -1)."""

_QUICK_EPSILON = 0.5
_TWIN_EPSILON = {"tails-truncated": 0.5, "one-order-only": 0.5,
                 "wrong-neighbouring-relation": 1.0}


@dataclass(frozen=True, slots=True)
class PairComposition:
    """The privacy loss of a history's dominating pairs composed: each step's output drawn
    from its P (order "x") or Q (order "x'"), the loss from the pair's densities."""

    history: History

    def __call__(self, paths: int, rng: np.random.Generator, under: str) -> NDArray[np.float64]:
        draw, other = _sides(under)
        total = np.zeros(paths, dtype=np.float64)
        for step in self.history.steps:
            pair = dominating_pair(step, self.history.neighbours)
            if not isinstance(pair, ShiftPair):
                raise TypeError(f"{step.kind}: a pair on the real line is needed")
            for _ in range(step.count):
                y = pair.sample(paths, draw, rng)
                total += pair.logpdf(y, draw) - pair.logpdf(y, other)
        return total


def _sides(under: str) -> tuple[Side, Side]:
    if under == "x":
        return "P", "Q"
    if under == "x'":
        return "Q", "P"
    raise ValueError(f"under={under!r} is not allowed: expected 'x' or \"x'\"")


def _clip(gradient: float) -> float:
    return min(1.0, max(-1.0, gradient))


def sum_law(dataset: tuple[float, ...], rate: float) -> tuple[NDArray[np.float64],
                                                              NDArray[np.float64]]:
    """The exact law of the Poisson(``rate``)-sampled sum of ``dataset``'s clipped
    gradients: its atoms and their log probabilities (equal sums merged exactly)."""
    law: dict[Fraction, float] = {Fraction(0): 1.0}
    for gradient in dataset:
        g = Fraction(_clip(gradient))
        step: dict[Fraction, float] = {}
        for atom, mass in law.items():
            step[atom] = step.get(atom, 0.0) + mass * (1 - rate)
            step[atom + g] = step.get(atom + g, 0.0) + mass * rate
        law = step
    atoms = sorted(law)
    return (np.array([float(a) for a in atoms], dtype=np.float64),
            np.log(np.array([law[a] for a in atoms], dtype=np.float64)))


@dataclass(frozen=True, slots=True)
class SubsampledSum:
    """DP-SGD on a scalar model: ``steps`` releases of the sum of the clipped gradients of
    a Poisson sample (rate ``rate``) of the dataset x (order "x") or x' (order "x'"), plus
    Gaussian noise of deviation ``noise`` (or Laplace noise of scale ``noise``). The loss
    of each release y is log p_x(y) - log p_x'(y) from the released sum's densities on the
    two datasets, a mixture over the exact law of the sampled sum (:func:`sum_law`)."""

    x: tuple[float, ...]
    x_prime: tuple[float, ...]
    rate: float
    noise: float
    steps: int
    family: Literal["gaussian", "laplace"] = "gaussian"

    def logpdf(self, y: NDArray[np.float64], dataset: tuple[float, ...]) -> NDArray[np.float64]:
        """The log density of one release on ``dataset`` at the outputs ``y``."""
        return self._logpdf(y, sum_law(dataset, self.rate))

    def _logpdf(self, y: NDArray[np.float64],
                law: tuple[NDArray[np.float64], NDArray[np.float64]]) -> NDArray[np.float64]:
        atoms, log_mass = law
        z = (y[:, None] - atoms[None, :]) / self.noise
        if self.family == "gaussian":
            log_noise = -0.5 * z * z - np.log(self.noise * np.sqrt(2 * np.pi))
        else:
            log_noise = -np.abs(z) - np.log(2 * self.noise)
        out: NDArray[np.float64] = logsumexp(log_noise + log_mass[None, :], axis=1)
        return out

    def release(self, dataset: tuple[float, ...], paths: int,
                rng: np.random.Generator) -> NDArray[np.float64]:
        """One release of the mechanism on ``dataset`` for each of ``paths`` runs."""
        gradients = np.array([_clip(g) for g in dataset], dtype=np.float64)
        picked = rng.random((paths, gradients.size)) < self.rate
        noise = (rng.normal(0.0, self.noise, paths) if self.family == "gaussian"
                 else rng.laplace(0.0, self.noise, paths))
        out: NDArray[np.float64] = picked.astype(np.float64) @ gradients + noise
        return out

    def __call__(self, paths: int, rng: np.random.Generator, under: str) -> NDArray[np.float64]:
        draw, _ = _sides(under)
        mine, other = (self.x, self.x_prime) if draw == "P" else (self.x_prime, self.x)
        law_mine, law_other = sum_law(mine, self.rate), sum_law(other, self.rate)
        total = np.zeros(paths, dtype=np.float64)
        for _ in range(self.steps):
            y = self.release(mine, paths, rng)
            total += self._logpdf(y, law_mine) - self._logpdf(y, law_other)
        return total


def mechanism_for(history: History, others: tuple[float, ...]) -> SubsampledSum:
    """The DP-SGD mechanism of ``history`` (one homogeneous step) on concrete neighbours:
    x = ``others`` plus the record, x' = ``others`` (add/remove) or ``others`` plus the
    replacement (substitution)."""
    (step,) = history.steps
    if not isinstance(step, (SubsampledGaussianStep, SubsampledLaplaceStep)):
        raise TypeError(f"{step.kind}: a subsampled step is needed")
    x = (*others, RECORD)
    x_prime = (*others, REPLACEMENT) if history.neighbours == "substitute" else others
    family: Literal["gaussian", "laplace"] = (
        "gaussian" if isinstance(step, SubsampledGaussianStep) else "laplace")
    return SubsampledSum(x, x_prime, step.sampling_rate, step.noise_multiplier, step.count,
                         family)


def _describe(history: History) -> str:
    (step,) = history.steps
    if not isinstance(step, (SubsampledGaussianStep, SubsampledLaplaceStep)):
        raise TypeError(f"{step.kind}: a subsampled step is needed")
    return (f"{step.count} x {step.kind} ({history.neighbours}), noise {step.noise_multiplier:g}, "
            f"q={step.sampling_rate:g}")


def _setup(bound: ProfileUpper, experiment: Experiment, what: str) -> Setup:
    epsilon, delta = bound.claimed()
    lower, upper = ProfileUpper(bound.history, epsilon, bound.h).profile().delta_bounds(epsilon)
    return Setup(Quantity.HOCKEY_STICK, epsilon, delta, experiment,
                 samples_for(Quantity.HOCKEY_STICK, delta),
                 note=f"{what}: {_describe(bound.history)}, eps={epsilon:.6g}, charged "
                      f"delta={delta:.6g}, certified [{lower:.6g}, {upper:.6g}]")


def _epsilon(history: History, profile: str, at: float | None) -> float:
    """``at`` in every profile, or eps = 1/2 (quick) / the certified eps(1e-3) (full)."""
    if at is not None:
        return at
    if profile == "quick":
        return _QUICK_EPSILON
    return ProfileUpper(history, 0.0).profile().epsilon_bounds(profile_delta(profile, 0.05))[1]


def _experiment(scenario: str, mechanism: bool, others: tuple[float, ...]) -> Experiment:
    history = HISTORIES[scenario]
    return mechanism_for(history, others) if mechanism else PairComposition(history)


def _claim_build(scenario: str, at: float | None, mechanism: bool) -> Callable[[str], Setup]:
    def build(profile: str) -> Setup:
        history = HISTORIES[scenario]
        bound = ProfileUpper(history, _epsilon(history, profile, at))
        what = "DP-SGD on x, x' (others 0.25, -2, 0.75, -0.5, 1.5)" if mechanism else "pairs"
        return _setup(bound, _experiment(scenario, mechanism, OTHERS), what)
    return build


_TWINS: dict[str, tuple[type[ProfileUpper], str]] = {
    "tails-truncated": (TruncatedTails, "each step's grid ends where its tail P-mass is 0.02 "
                        "and the P-mass beyond is dropped, not charged at +infinity"),
    "one-order-only": (OneOrderOnly, "only the order (B, A) = (record absent, record "
                       "present) of the add/remove pair charged"),
    "wrong-neighbouring-relation": (AddRemoveForSubstitution, "the add/remove profile "
                                    "charged for substitution neighbours"),
}


def _twin(name: str, scenario: str, mechanism: bool) -> Twin:
    kind, defect = _TWINS[name]

    def build(profile: str) -> Setup:
        bound = kind(HISTORIES[scenario], _TWIN_EPSILON[name])
        what = "DP-SGD on realising x, x' (others 0)" if mechanism else "pairs"
        return _setup(bound, _experiment(scenario, mechanism, REALISING), what)
    return Twin(name, defect, build)


_PAIR_TWINS = {"subsampled-gaussian": ("tails-truncated", "one-order-only"),
               "substitution": ("wrong-neighbouring-relation",),
               "subsampled-laplace": ("one-order-only",)}
_MECHANISMS = {"dpsgd-add-remove": ("subsampled-gaussian", "one-order-only"),
               "dpsgd-substitute": ("substitution", "wrong-neighbouring-relation"),
               "laplace-add-remove": ("subsampled-laplace", "one-order-only")}
_SUMMARY = ("the certified upper bound on delta(eps) of the composition is at least the "
            "hockey-stick of {what}, both orders")


def _profile_claims() -> tuple[Claim, ...]:
    claims: list[Claim] = []
    for scenario, names in _PAIR_TWINS.items():
        twins = tuple(_twin(name, scenario, False) for name in names)
        for suffix, at in (("", None), ("-eps0", 0.0), ("-eps1", 1.0)):
            claims.append(Claim(
                "AUD-ProfileUpper", scenario + suffix, Quantity.HOCKEY_STICK,
                _SUMMARY.format(what="its dominating pairs (losses from their densities)"),
                _claim_build(scenario, at, False), twins))
    return tuple(claims)


def _mechanism_claims() -> tuple[Claim, ...]:
    return tuple(
        Claim("AUD-DominatingPairs", name, Quantity.HOCKEY_STICK,
              _SUMMARY.format(what="the mechanism on concrete neighbouring datasets (losses "
                                   "from the released sums' densities)"),
              _claim_build(scenario, None, True), (_twin(twin, scenario, True),))
        for name, (scenario, twin) in _MECHANISMS.items())




# --- The certified numerics: AUD-ProfileLower, AUD-FFTError, AUD-TailBound, AUD-Inversion,
# AUD-SubsampledRDP (module docstring, "Certified numerics").

_ENCLOSURE_TOL = 1e-12
"""Largest admissible excess of an exact value beyond an enclosure (values are O(1), the
references are computed to 30 digits or exactly)."""
_INVERSION_TOL = 1e-9
"""The same for eps(delta), whose certified ends are bisected to a relative 1e-10."""

EXACT_HISTORIES: dict[str, History] = {
    "rr": History((RandomizedResponseStep(0.7, 4),)),
    "gaussian": History((GaussianStep(1.5, 3),)),
}
"""Compositions whose exact profile is known: randomized response (exact binomial
enumeration) and the Gaussian (EXT-DRS19's closed form with mu = sqrt(T)/s)."""
_TAIL_STEPS: dict[str, RandomizedResponseStep | GaussianStep] = {
    "rr": RandomizedResponseStep(0.5, 6), "gaussian": GaussianStep(1.0, 4)}
_TAIL_H = Fraction(1, 64)
_RDP_CASES: dict[str, tuple[tuple[Fraction, float, float], ...]] = {
    "add-remove": ((Fraction(2), 1.0, 0.2), (Fraction(5, 2), 1.0, 0.2),
                   (Fraction(3, 2), 0.8, 0.5)),
    "substitute": ((Fraction(2), 1.0, 0.2), (Fraction(5, 2), 1.0, 0.2),
                   (Fraction(3, 2), 0.8, 0.5)),
}
"""(alpha, noise s, sampling rate q) of the AUD-SubsampledRDP cases: integer orders (the
binomial route) and non-integer ones (the certified quadrature)."""


@dataclass(frozen=True, slots=True)
class Cases:
    """An equivalence over finitely many cases (docs/design.md, Equivalences): the
    statistic of each case is deterministic and path i takes case i mod the number of
    cases, so every case is checked (``paths`` always exceeds it)."""

    values: tuple[float, ...]

    def __call__(self, paths: int, rng: np.random.Generator, under: str) -> NDArray[np.float64]:
        out: NDArray[np.float64] = np.resize(np.array(self.values, dtype=np.float64), paths)
        return out


def _cases_setup(values: tuple[float, ...], claimed: float, profile: str, note: str) -> Setup:
    delta_min = profile_delta(profile, 0.02)
    return Setup(Quantity.MAX_LOSS, claimed, claimed, Cases(values),
                 samples_for(Quantity.MAX_LOSS, claimed, delta_min), orders=("x",),
                 delta_min=delta_min, note=note)


def _gaussian_delta_mp(mu: mpmath.mpf, eps: mpmath.mpf) -> mpmath.mpf:
    """EXT-DRS19 at mpmath's working precision (arguments may be mpf)."""
    d: mpmath.mpf = mpmath.ncdf(-eps / mu + mu / 2) - mpmath.exp(eps) * mpmath.ncdf(
        -eps / mu - mu / 2)
    return d


def exact_delta(scenario: str, eps: mpmath.mpf | float) -> mpmath.mpf:
    """The exact delta(eps) of ``EXACT_HISTORIES[scenario]`` at mpmath's working precision:
    randomized response by enumerating the binomial law of the count of kept bits (loss
    eps_0 (2k - T)), the Gaussian by EXT-DRS19 with mu = sqrt(T)/s."""
    (step,) = EXACT_HISTORIES[scenario].steps
    e = mpmath.mpf(eps)
    if isinstance(step, RandomizedResponseStep):
        e0, t = mpmath.mpf(step.epsilon), step.count
        keep = 1 / (1 + mpmath.exp(-e0))
        total: mpmath.mpf = mpmath.fsum(
            mpmath.binomial(t, k) * keep**k * (1 - keep) ** (t - k)
            * max(mpmath.mpf(0), 1 - mpmath.exp(e - e0 * (2 * k - t))) for k in range(t + 1))
        return total
    assert isinstance(step, GaussianStep)
    return _gaussian_delta_mp(mpmath.sqrt(step.count) / mpmath.mpf(step.noise_multiplier), e)


_LOWER_EPSILONS = tuple(float(e) for e in np.linspace(-0.5, 3.0, 15))


@lru_cache(maxsize=8)
def _certified(scenario: str, twin: bool = False) -> CertifiedProfile:
    """The certified profile of ``EXACT_HISTORIES[scenario]`` (``twin``: with the
    lower-from-upper discretiser), cached: several claims read it."""
    return certified_profile(EXACT_HISTORIES[scenario], PROFILE_H,
                             discretiser=lower_from_upper if twin else None)


@lru_cache(maxsize=8)
def _lower_excess(scenario: str, twin: bool) -> tuple[float, ...]:
    """Certified lower delta minus the exact delta at each of ``_LOWER_EPSILONS``."""
    profile = _certified(scenario, twin)
    with mpmath.workdps(30):
        return tuple(profile.delta_bounds(e)[0] - float(exact_delta(scenario, e))
                     for e in _LOWER_EPSILONS)


def dyadic_case(seed: int) -> tuple[list[NDArray[np.int64]], list[int], int]:
    """Integer numerators (over 2^30) of one or two nonnegative vectors of l1 norm at most 1,
    their counts and the cyclic length (a wrap-around for the two-vector cases)."""
    rng = np.random.default_rng(seed)
    width = int(rng.integers(8, 25))
    vectors = []
    for _ in range(1 + seed % 2):
        m = rng.integers(0, 1 << 12, width)
        m[int(rng.integers(width))] += (1 << 30) - int(m.sum()) - int(rng.integers(1 << 20))
        vectors.append(m)
    counts = [3] if seed % 2 == 0 else [2, 2]
    return vectors, counts, 64


def exact_cyclic(vectors: list[NDArray[np.int64]], counts: list[int], n: int) -> list[int]:
    """The exact cyclic convolution of the integer vectors (each ``counts`` times)."""
    z = [1] + [0] * (n - 1)
    for v, count in zip(vectors, counts, strict=True):
        for _ in range(count):
            nxt = [0] * n
            for i, a in enumerate(z):
                if a:
                    for j, b in enumerate(v.tolist()):
                        nxt[(i + j) % n] += a * b
            z = nxt
    return z


@lru_cache(maxsize=4)
def _fft_ratios(twin: bool) -> tuple[float, ...]:
    """||z_computed - z||_2 / E_2 (AUD-FFTError) on eight dyadic cases, z exact."""
    out = []
    for seed in range(8):
        ints, counts, n = dyadic_case(seed)
        vectors = [m.astype(np.float64) / 2**30 for m in ints]
        computed = (double_precision_compose if twin else cyclic_compose)(vectors, counts, n)
        scale = 2 ** (30 * sum(counts))
        exact = exact_cyclic(ints, counts, n)
        error = math.sqrt(float(sum(
            (Fraction(*c.as_integer_ratio()) - Fraction(e, scale)) ** 2
            for c, e in zip(computed, exact, strict=True))))
        out.append(error / composition_error(vectors, counts, n))
    return tuple(out)


def _ratio(exact: float, bound: float) -> float:
    """exact / bound, with a zero bound (an underflowed Chernoff bound) infinitely exceeded
    by any positive mass."""
    if bound > 0:
        return exact / bound
    return math.inf if exact > 0 else 0.0


@lru_cache(maxsize=8)
def _tail_ratios(scenario: str, twin: bool) -> tuple[float, ...]:
    """Exact composed mass beyond a threshold over its Chernoff bound (AUD-TailBound), for
    the step's upper and lower measures, thresholds at the composed mean -+ 1, 2, 3
    standard deviations; the exact mass by direct convolution of the grid's masses."""
    step = _TAIL_STEPS[scenario]
    grid, _ = discretise(dominating_pair(step), _TAIL_H, step.count, 1e-12)
    bound = counts_dropped if twin else tail_bound
    h = float(_TAIL_H)
    out = []
    for lower in (False, True):
        masses = grid.lower if lower else grid.upper
        composed = np.array([1.0])
        for _ in range(step.count):
            composed = np.convolve(composed, masses)
        losses = (grid.offset * step.count + np.arange(composed.size)) * h
        mean = math.fsum((composed * losses).tolist()) / math.fsum(composed.tolist())
        sd = math.sqrt(math.fsum((composed * (losses - mean) ** 2).tolist())
                       / math.fsum(composed.tolist()))
        for k in (1, 2, 3):
            above, below = mean + k * sd, mean - k * sd
            out.append(_ratio(math.fsum(composed[losses > above].tolist()),
                              bound([grid], h, above=above, lower=lower)))
            out.append(_ratio(math.fsum(composed[losses < below].tolist()),
                              bound([grid], h, below=below, lower=lower)))
    return tuple(out)


_INVERSION_DELTAS = tuple(float(d) for d in np.geomspace(1e-3, 0.2, 8))


def exact_epsilon(scenario: str, delta: float) -> mpmath.mpf:
    """eps(delta) of ``EXACT_HISTORIES[scenario]``: the root of exact_delta(eps) = delta
    (continuous and strictly decreasing where positive), bisected in [0, 10]."""
    target, low, high = mpmath.mpf(delta), mpmath.mpf(0), mpmath.mpf(10)
    for _ in range(64):  # bisection: the bracket ends 10 / 2^64 < 1e-18 apart
        mid = (low + high) / 2
        if exact_delta(scenario, mid) > target:
            low = mid
        else:
            high = mid
    return high


@lru_cache(maxsize=8)
def _inversion_excess(scenario: str, twin: bool) -> tuple[float, ...]:
    """How far the exact eps(delta) lies outside the certified [lower, upper]."""
    profile = _certified(scenario)
    if twin:
        kind = LowerForUpper if scenario == "rr" else UpperForLower
        profile = kind(profile.history, profile.h, profile.tolerance, profile.directions,
                       profile.pairs)
    out = []
    for delta, star in zip(_INVERSION_DELTAS, _exact_epsilons(scenario), strict=True):
        lower, upper = profile.epsilon_bounds(delta)
        out.append(max(lower - star, star - upper))
    return tuple(out)


@lru_cache(maxsize=4)
def _exact_epsilons(scenario: str) -> tuple[float, ...]:
    with mpmath.workdps(30):
        return tuple(float(exact_epsilon(scenario, delta)) for delta in _INVERSION_DELTAS)


def renyi_mp(alpha: Fraction, s: float, q: float, direction: str) -> mpmath.mpf:
    """D_alpha of the subsampled Gaussian's pair by mpmath quadrature (working precision):
    "forward" D(A||B), "reverse" D(B||A) with A = (1-q) N(0, s^2) + q N(1, s^2),
    B = N(0, s^2); "substitute" D(A'||A) with A' = (1-q) N(0, s^2) + q N(-1, s^2)."""
    a, sd, rate = mpmath.mpf(alpha.numerator) / alpha.denominator, mpmath.mpf(s), mpmath.mpf(q)
    # mpmath.npdf(x, mu, sd)'s formula with its constants computed once, at the working
    # precision (npdf adds 10 guard bits; the float of every case is unchanged)
    two_var, norm = 2 * sd**2, sd * mpmath.sqrt(2 * mpmath.pi)

    def npdf(x: mpmath.mpf, mu: int) -> mpmath.mpf:
        out: mpmath.mpf = mpmath.exp(-(x - mu) ** 2 / two_var) / norm
        return out

    def mixture(x: mpmath.mpf, shift: int) -> mpmath.mpf:
        m: mpmath.mpf = (1 - rate) * npdf(x, 0) + rate * npdf(x, shift)
        return m

    densities: dict[str, tuple[Callable[[mpmath.mpf], mpmath.mpf], ...]] = {
                 "forward": (lambda x: mixture(x, 1), lambda x: npdf(x, 0)),
                 "reverse": (lambda x: npdf(x, 0), lambda x: mixture(x, 1)),
                 "substitute": (lambda x: mixture(x, -1), lambda x: mixture(x, 1))}
    p, r = densities[direction]
    moment = mpmath.quad(lambda x: p(x) ** a * r(x) ** (1 - a),
                         [-mpmath.inf, -3, 0, 1, 4, mpmath.inf])
    out: mpmath.mpf = mpmath.log(moment) / (a - 1)
    return out


@lru_cache(maxsize=8)
def _rdp_exact(neighbours: str) -> tuple[float, ...]:
    with mpmath.workdps(20):
        if neighbours == "substitute":
            return tuple(float(renyi_mp(a, s, q, "substitute"))
                         for a, s, q in _RDP_CASES[neighbours])
        return tuple(float(max(renyi_mp(a, s, q, "forward"), renyi_mp(a, s, q, "reverse")))
                     for a, s, q in _RDP_CASES[neighbours])


@lru_cache(maxsize=8)
def _rdp_excess(neighbours: Literal["add-remove", "substitute"], twin: bool
                ) -> tuple[float, ...]:
    """How far the quadrature's D_alpha lies outside the certified enclosure."""
    out = []
    for (a, s, q), exact in zip(_RDP_CASES[neighbours], _rdp_exact(neighbours), strict=True):
        if not twin:
            lower, upper = subsampled_gaussian_rdp(a, s, q, neighbours)
        elif neighbours == "add-remove":
            lower, upper = reverse_only_rdp(a, s, q)
        else:
            lower, upper = subsampled_gaussian_rdp(a, s, q, "add-remove")
        out.append(max(lower - exact, exact - upper))
    return tuple(out)


def _numeric_claim(spec_id: str, scenario: str, summary: str, claimed: float,
                   values: Callable[[bool], tuple[float, ...]], note: str,
                   twin: tuple[str, str]) -> Claim:
    return Claim(spec_id, scenario, Quantity.MAX_LOSS, summary,
                 lambda p: _cases_setup(values(False), claimed, p, note),
                 (Twin(twin[0], twin[1],
                       lambda p: _cases_setup(values(True), claimed, "quick", note)),))


def _numeric_claims() -> tuple[Claim, ...]:
    claims: list[Claim] = []
    for scenario in ("rr", "gaussian"):
        what = ("4 x randomized response (eps 0.7), exact binomial enumeration"
                if scenario == "rr" else "3 x Gaussian (s = 1.5), EXT-DRS19 at 30 digits")
        claims.append(_numeric_claim(
            "AUD-ProfileLower", scenario,
            "the certified lower delta(eps) is at most the exact one (excess <= 1e-12)",
            _ENCLOSURE_TOL, partial(_lower_excess, scenario),
            f"{what}; 15 eps in [-0.5, 3]; h = 1/256",
            ("lower-from-upper", "each step's lower measure replaced by its upper (spread) "
                                 "measure")))
        claims.append(_numeric_claim(
            "AUD-Inversion", scenario,
            "the certified [lower, upper] on eps(delta) contains the exact eps(delta)",
            _INVERSION_TOL, partial(_inversion_excess, scenario),
            f"{what}; 8 deltas in [1e-3, 0.2]; h = 1/256",
            ("lower-for-upper", "the upper end of eps(delta) searched with the lower delta")
            if scenario == "rr" else
            ("upper-for-lower", "the lower end of eps(delta) searched with the upper delta")))
    claims.append(_numeric_claim(
        "AUD-TailBound", "rr-gaussian",
        "the Chernoff bound is at least the exact composed mass beyond a threshold (ratio <= 1)",
        1.0, lambda twin: _tail_ratios("rr", twin) + _tail_ratios("gaussian", twin),
        "6 x randomized response (eps 0.5) and 4 x Gaussian (s = 1) on h = 1/64, upper and "
        "lower measures, thresholds at the mean -+ 1, 2, 3 sd",
        ("counts-dropped", "one moment generating function factor per step, not T_j")))
    claims.append(_numeric_claim(
        "AUD-FFTError", "dyadic-vectors",
        "the l2 error of the extended-precision FFT composition is at most E_2 (ratio <= 1)",
        1.0, _fft_ratios,
        "8 cases: one or two nonnegative dyadic vectors (denominator 2^30, l1 <= 1) of length "
        "8..24, composed 3 or 2 + 2 times on a cyclic grid of 64; z exact in integers",
        ("double-precision", "the transform computed in complex128, bounded for u = 2^-64")))
    for neighbours in ("add-remove", "substitute"):
        cases = ", ".join(f"(a={float(a):g}, s={s:g}, q={q:g})"
                          for a, s, q in _RDP_CASES[neighbours])
        twin = (("reverse-only", "only D_a(Q||P) of the add/remove pair charged")
                if neighbours == "add-remove" else
                ("wrong-neighbouring-relation", "the add/remove RDP charged for substitution"))
        claims.append(_numeric_claim(
            "AUD-SubsampledRDP", neighbours,
            "the certified [lower, upper] on D_alpha contains the mpmath quadrature's value",
            _ENCLOSURE_TOL, partial(_rdp_excess, neighbours),
            f"{cases}; reference: mpmath quadrature at 20 digits", twin))
    return tuple(claims)


CLAIMS: tuple[Claim, ...] = _profile_claims() + _mechanism_claims() + _numeric_claims()
