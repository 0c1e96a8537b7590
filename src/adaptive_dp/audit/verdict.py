"""Verdicts on peers' accounting claims (AUD-Verdict).

:func:`grade` compares a :class:`~adaptive_dp.audit.claims.Claim` with the certified
two-sided profile of its history (:mod:`adaptive_dp.loss.certified`):

- ``under-reports``: the claim is below the certified lower bound. The lower bound is the
  hockey-stick divergence of the dominating pair, which neighbouring datasets realise, so
  the claim is false; the verdict names the pair, the epsilon and the delta it reaches.
- ``sound``: the claim is at or above the certified upper bound (looseness = claim / upper).
- ``indeterminate``: inside the interval after refinement to the stated lattice limit.

Histories of guarantee kinds (zcdp, gdp, rdp, ...) have no realising pair: only upper
bounds exist and the verdict is ``sound`` or ``indeterminate``. A history whose parameters
were chosen adaptively is not covered by fixed-parameter composition: its upper bound comes
from a theorem for adaptive use (the RDP filter, H23-Thm4.6), its lower bound from the fixed
history (one run of the adaptive process).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Literal

from adaptive_dp.audit.claims import Claim
from adaptive_dp.errors import ParameterError
from adaptive_dp.guarantees import (
    GDP,
    RDP,
    ZCDP,
    PureDP,
    RDPCurve,
    compose_gdp,
    compose_rdp,
    compose_zcdp,
    gdp_delta,
    gdp_to_dp,
    rdp_to_dp,
    zcdp_delta_optimal,
    zcdp_to_dp_optimal,
)
from adaptive_dp.guarantees.histories import GaussianStep, History, SubsampledGaussianStep
from adaptive_dp.guarantees.spends import Spend, kind_of
from adaptive_dp.loss.certified import CertifiedProfile, certified_profile, suggest_h
from adaptive_dp.loss.subsampled_rdp import subsampled_gaussian_rdp
from adaptive_dp.numerics import round_up

__all__ = ["EXIT_CODES", "RDP_ORDERS", "Verdict", "VerdictName", "grade", "grade_guarantees",
           "grade_rdp", "rdp_filter_epsilon", "worst_exit"]

VerdictName = Literal["under-reports", "sound", "indeterminate"]
EXIT_CODES: dict[str, int] = {"sound": 0, "under-reports": 1, "indeterminate": 3}
_SEVERITY = {"sound": 0, "indeterminate": 1, "under-reports": 2}

SPEC_IDS = ("AUD-DominatingPairs", "AUD-ProfileUpper", "AUD-ProfileLower", "AUD-FFTError",
            "AUD-TailBound", "AUD-Inversion", "AUD-Verdict")


@dataclass(frozen=True)
class Verdict:
    """An immutable audit verdict (AUD-Verdict): the claim, the certified interval on the
    claimed quantity and what follows. ``lower``/``upper`` enclose the true value of the
    claimed quantity (epsilon at the claim's delta, or delta at its epsilon);
    ``other_lower``/``other_upper`` enclose the other one at the claim's point (delta at the
    claimed epsilon, or epsilon at the claimed delta) when computed."""

    verdict: VerdictName
    claim: Claim
    lower: float
    upper: float
    method: str
    h: Fraction
    error_budget: dict[str, float]
    regime: str
    regime_theorem: str
    neighbours: str
    witness: dict[str, object] | None
    other_lower: float | None = None
    other_upper: float | None = None
    spec_ids: tuple[str, ...] = SPEC_IDS
    notes: tuple[str, ...] = field(default=())

    @property
    def exit_code(self) -> int:
        """0 sound, 1 under-reports, 3 indeterminate."""
        return EXIT_CODES[self.verdict]

    @property
    def looseness(self) -> float | None:
        """claim / certified upper bound (>= 1 when sound)."""
        if self.upper > 0 and math.isfinite(self.upper):
            return self.claim.value / self.upper
        return None

    @property
    def relative_width(self) -> float:
        """``(upper - lower) / |upper|``: how tight the certified interval is."""
        if self.upper == 0:
            return 0.0 if self.lower == 0 else math.inf
        return (self.upper - self.lower) / abs(self.upper)


def worst_exit(verdicts: list[Verdict]) -> int:
    """The exit code of several verdicts: 1 over 3 over 0."""
    if not verdicts:
        return 0
    worst = max(verdicts, key=lambda v: _SEVERITY[v.verdict])
    return worst.exit_code


def _decide(lower: float, upper: float, value: float) -> VerdictName:
    if value < lower:
        return "under-reports"
    if value >= upper:
        return "sound"
    return "indeterminate"


def grade(history: History, claim: Claim, *, refinements: int = 2,
          h_start: Fraction | None = None, h_limit: Fraction | None = None) -> Verdict:
    """AUD-Verdict: grade ``claim`` about ``history``, halving the loss lattice step up to
    ``refinements`` times from ``h_start`` (default :func:`suggest_h`) until decided, or,
    when ``h_limit`` is given, until the step is at most ``h_limit`` (at least one
    profile is computed)."""
    if claim.kind == "rdp":
        return grade_rdp(history, claim)
    if isinstance(refinements, bool) or not isinstance(refinements, int) or not (
            0 <= refinements <= 6):
        raise ParameterError("refinements", refinements, "an integer in 0..6")
    tolerance = 1e-15 if claim.kind == "delta" else min(1e-15, claim.at * 1e-7)
    h = suggest_h(history) if h_start is None else h_start
    if h_limit is not None:
        refinements = 0
        while h / 2**refinements > h_limit:
            refinements += 1
    verdict = _grade_profile(certified_profile(history, h, tolerance), claim)
    for _ in range(refinements):
        if verdict.verdict != "indeterminate":
            break
        h /= 2
        try:
            profile = certified_profile(history, h, tolerance)
        except ParameterError:  # the window no longer fits: keep the last answer
            break
        verdict = _grade_profile(profile, claim)
    return verdict


def _grade_profile(profile: CertifiedProfile, claim: Claim) -> Verdict:
    history = profile.history
    if claim.kind == "epsilon":
        delta = claim.at
        d_lo, d_hi = profile.delta_bounds(claim.value)
        e_lo, e_hi = profile.epsilon_bounds(delta)
        # decide from the delta bounds at the claimed epsilon (no inversion error)
        if d_lo > delta:
            name: VerdictName = "under-reports"
        elif d_hi <= delta:
            name = "sound"
        else:
            name = "indeterminate"
        lower, upper, other = e_lo, e_hi, (d_lo, d_hi)
        witness_eps = claim.value
    else:
        eps = claim.at
        d_lo, d_hi = profile.delta_bounds(eps)
        name = _decide(d_lo, d_hi, claim.value)
        lower, upper = d_lo, d_hi
        other = (math.nan, math.nan)
        witness_eps = eps
    witness = _witness(profile, witness_eps, claim) if name == "under-reports" else None
    regime, theorem = _regime(history)
    notes: tuple[str, ...] = ()
    if history.adaptive and name != "under-reports":
        # fixed-parameter composition does not cover adaptive parameters: the upper bound
        # is the RDP filter's (H23-Thm4.6); the lower bound (one fixed run) stands
        adaptive_upper = rdp_filter_epsilon(history, claim.at) if claim.kind == "epsilon" \
            else None
        if adaptive_upper is None:
            name, upper = "indeterminate", math.inf
            notes = ("no theorem for adaptive use covers this history's mechanisms or claim "
                     "kind here: only the lower bound is certified",)
        else:
            upper = adaptive_upper
            name = "sound" if claim.value >= upper else "indeterminate"
            notes = ("upper bound: RDP filter over the history's certified subsampled-"
                     "Gaussian RDP curve (AUD-SubsampledRDP, H23-Thm4.6, EXT-BBGHS20)",)
    budget = {
        "lattice_step": float(profile.h),
        "mass_outside_window": max(d.outside for d in profile.directions),
        "mass_at_infinity": max(d.infinity for d in profile.directions),
        "fft_l2_error": max(max(d.error_upper, d.error_lower) for d in profile.directions),
    }
    return Verdict(name, claim, lower, upper, "certified PLD: dilation/contraction "
                   "discretisation, extended-precision FFT", profile.h, budget, regime,
                   theorem, history.neighbours, witness, other[0], other[1], notes=notes)


def _gaussian_parameters(history: History) -> list[tuple[int, float, float, str]] | None:
    """(count, sigma, rate, neighbours) of each step for the subsampled-Gaussian RDP, or
    None when a step is not a (subsampled) Gaussian."""
    found = []
    for step in history.steps:
        if isinstance(step, GaussianStep):
            found.append((step.count, step.noise_multiplier, 1.0, "add-remove"))
        elif isinstance(step, SubsampledGaussianStep):
            if step.sampling == "without-replacement":  # ((1-q)N(0)+qN(2), N(0)): sigma/2
                found.append((step.count, step.noise_multiplier / 2, step.sampling_rate,
                              "add-remove"))
            else:
                found.append((step.count, step.noise_multiplier, step.sampling_rate,
                              history.neighbours))
        else:
            return None
    return found


def grade_rdp(history: History, claim: Claim) -> Verdict:
    """AUD-Verdict for an RDP claim (epsilon at order ``claim.at``): the certified
    [lower, upper] of the composition's Rényi divergence at that order, the sum of the
    steps' certified AUD-SubsampledRDP intervals (RDP composes additively; the dominating
    pair, in the order that attains the maximum, realises the lower end)."""
    steps = _gaussian_parameters(history)
    if steps is None:
        raise ParameterError("history", [s.kind for s in history.steps],
                             "Gaussian or subsampled-Gaussian steps for an RDP claim")
    lower = upper = 0.0
    for count, sigma, rate, neighbours in steps:
        lo, hi = subsampled_gaussian_rdp(claim.at, sigma, rate,
                                         "substitute" if neighbours == "substitute"
                                         else "add-remove")
        # a product and a sum round once each: shrink by 2^-50 relative, then one ulp
        lower = math.nextafter(lower + count * lo * (1 - 2**-50), -math.inf) if lo > 0 else lower
        upper = math.nextafter(upper + count * hi * (1 + 2**-50), math.inf)
    name = _decide(lower, upper, claim.value)
    regime, theorem = _regime(history)
    if history.adaptive:
        theorem = ("RDP composes additively for adaptively chosen parameters too "
                   "(RDP filter, H23-Thm4.6)")
    witness = None
    if name == "under-reports":
        witness = {"neighbouring_pair": "the dominating pair of each step "
                   "(AUD-DominatingPairs), in the order of largest divergence",
                   "alpha": claim.at, "rdp_lower": lower, "claimed_rdp": claim.value,
                   "statement": "the composition's Renyi divergence of this order is at "
                                "least rdp_lower, above the claim"}
    return Verdict(name, claim, lower, upper, "certified Renyi divergence "
                   "(AUD-SubsampledRDP), summed over the steps", Fraction(0), {}, regime,
                   theorem, history.neighbours, witness,
                   spec_ids=("AUD-SubsampledRDP", "AUD-DominatingPairs", "AUD-Verdict"))


RDP_ORDERS = (1.25, 1.5, 1.75, 2, 2.5, 3, 4, 5, 6, 8, 10, 12, 16, 20, 24, 32, 48, 64, 128, 256)
"""Orders at which the adaptive regime's RDP filter bound is evaluated."""


def rdp_filter_epsilon(history: History, delta: float) -> float | None:
    """An epsilon at ``delta`` valid for adaptively chosen parameters (H23-Thm4.6: an RDP
    filter whose budget at each order is the history's summed certified RDP upper bound,
    converted by EXT-BBGHS20), or None when a step is not a (subsampled) Gaussian."""
    total = [Fraction(0)] * len(RDP_ORDERS)
    steps = _gaussian_parameters(history)
    if steps is None:
        return None
    for count, sigma, rate, neighbours in steps:
        for i, alpha in enumerate(RDP_ORDERS):
            _, upper = subsampled_gaussian_rdp(alpha, sigma, rate,
                                               "substitute" if neighbours == "substitute"
                                               else "add-remove")
            total[i] += count * Fraction(upper)
    curve = RDPCurve([(Fraction(a), t) for a, t in zip(RDP_ORDERS, total, strict=True)])
    return round_up(rdp_to_dp(curve, Fraction(delta)).epsilon)


def _regime(history: History) -> tuple[str, str]:
    if history.adaptive:
        return ("adaptive", "fixed-parameter composition (the privacy-loss distribution "
                "convolution) does not apply to adaptively chosen parameters: the upper bound "
                "is the RDP filter's (H23-Thm4.6) over certified RDP curves; the lower bound "
                "is one fixed run of the adaptive process")
    return ("fixed", "optimal composition of the dominating pairs (AUD-DominatingPairs, "
            "AUD-ProfileUpper, AUD-ProfileLower)")


def _witness(profile: CertifiedProfile, eps: float, claim: Claim) -> dict[str, object]:
    """The realising pair: the order of the dominating pairs whose certified lower bound is
    largest at ``eps``, with the steps' counts."""
    lows = profile.direction_deltas(eps, upper=False)
    best = max(range(len(lows)), key=lambda i: lows[i])
    steps = [{"count": s.count, **pair.describe()}
             for s, pair in zip(profile.history.steps, profile.pairs[best], strict=True)]
    order = ("a record added (present in P, absent in Q)" if best == 0
             else "a record removed (absent in P, present in Q)")
    if profile.history.neighbours == "substitute":
        order = "a record substituted (gradient +C in P, -C in Q along one axis)"
    return {
        "neighbouring_pair": order,
        "steps": steps,
        "epsilon": eps,
        "delta_lower": lows[best],
        "claimed_delta": claim.at if claim.kind == "epsilon" else claim.value,
        "statement": "the composition of P-steps vs Q-steps has hockey-stick divergence at "
                     "epsilon at least delta_lower, above the claimed delta",
    }


def grade_guarantees(spends: list[Spend], claim: Claim, *, adaptive: bool = False) -> Verdict:
    """AUD-Verdict for a history of guarantee kinds: only a certified upper bound exists
    (composition of the guarantees, then the optimal conversion), so the verdict is
    ``sound`` or ``indeterminate``, never ``under-reports``. Each kind's composition is
    valid for adaptively chosen parameters too (zCDP, RDP and GDP filters: H23-Thm4.6,
    EXT-ST22; pure DP: CS2080-PureDPFilter)."""
    if not spends:
        raise ParameterError("history", spends, "at least one spend")
    kinds = {kind_of(s) for s in spends}
    if len(kinds) != 1 or not kinds <= {"pure", "zcdp", "gdp", "rdp"}:
        raise ParameterError("history", sorted(kinds),
                             "spends of one kind among pure, zcdp, gdp, rdp")
    kind = kinds.pop()
    upper = _guarantee_upper(kind, spends, claim)
    lower = -math.inf if claim.kind == "epsilon" else 0.0
    name: VerdictName = "sound" if claim.value >= upper else "indeterminate"
    theorem = {"pure": "CS2080-BasicComp (pure DP composes additively)",
               "zcdp": "zCDP composition and EXT-CKS20 conversion",
               "gdp": "GDP composition and EXT-DRS19 profile",
               "rdp": "RDP composition and EXT-BBGHS20 / EXT-CKS20 conversion"}[kind]
    return Verdict(name, claim, lower, upper, f"composition of {kind} guarantees, certified "
                   "conversion (upper bound only)", Fraction(0), {},
                   "adaptive" if adaptive else "fixed", theorem, "as declared", None,
                   spec_ids=("AUD-Verdict",),
                   notes=("guarantee kinds have no realising pair: no lower bound",))


def _guarantee_upper(kind: str, spends: list[Spend], claim: Claim) -> float:
    at = Fraction(claim.at)
    if kind == "pure":
        total = sum((s.epsilon for s in spends if isinstance(s, PureDP)), Fraction(0))
        if claim.kind == "epsilon":
            return round_up(total)
        return 0.0 if at >= total else 1.0
    if kind == "zcdp":
        rho = compose_zcdp([s for s in spends if isinstance(s, ZCDP)])
        assert isinstance(rho, ZCDP)
        if claim.kind == "epsilon":
            return round_up(zcdp_to_dp_optimal(rho, at).epsilon)
        return zcdp_delta_optimal(rho, max(at, Fraction(0)))
    if kind == "gdp":
        mu = compose_gdp([s for s in spends if isinstance(s, GDP)])
        if claim.kind == "epsilon":
            return round_up(gdp_to_dp(mu, at).epsilon)
        return gdp_delta(mu, max(at, Fraction(0)))
    curve = compose_rdp([s for s in spends if isinstance(s, (RDP, RDPCurve))])
    if claim.kind == "epsilon":
        return round_up(rdp_to_dp(curve, at).epsilon)
    raise ParameterError("claim", claim.kind, "an epsilon claim for an RDP history")
