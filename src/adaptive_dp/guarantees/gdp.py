"""Gaussian DP: exact (epsilon, delta) curve, the way back, composition.

Spec ids: EXT-DRS19 (Dong-Roth-Su 2019/2022, Cor. 2.13: the exact privacy profile of
G_mu), EXT-GDPComposition. The curve is certified with ``arb`` erfc (mpmath's interval
context has no erfc). Roots (the smallest epsilon, the largest mu) are searched in floats
and certified tight with :mod:`adaptive_dp.numerics.tight`: the float returned is on the
safe side and the one an ulp beyond it is not; if single-ulp steps from the float search
do not reach such a float, the mpmath bisection takes over (docs/numerics.md, "Tight
conversions").

Method label: ``"drs19"``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from fractions import Fraction

import mpmath
from flint import arb
from scipy.special import log_ndtr, ndtr

from adaptive_dp.errors import NonFiniteResultError, UnsupportedGuaranteeError
from adaptive_dp.guarantees.definitions import GDP, ApproxDP
from adaptive_dp.numerics import (
    ExactLike,
    arb_of,
    ball_upper,
    enclose,
    exact_delta,
    exact_nonnegative,
)
from adaptive_dp.numerics.search import bisect_increasing, log_float, mp_precision
from adaptive_dp.numerics.tight import certified_at_most, step_to_tight, tight_upper

__all__ = ["compose_gdp", "gdp_delta", "gdp_mu_for", "gdp_to_dp"]

# Phi(-x) < exp(-x^2/2) < 2**-1074 once x >= 39: the curve underflows every float.
_FAR_TAIL = Fraction(39)
_HALF = Fraction(1, 2)
_TINY = Fraction(math.ulp(0.0))


def _check(guarantee: object) -> GDP:
    if not isinstance(guarantee, GDP):
        raise UnsupportedGuaranteeError(
            f"guarantee={guarantee!r} is a {type(guarantee).__name__}: expected GDP"
        )
    return guarantee


def _curve(mu: Fraction | float, epsilon: Fraction | float, complement: bool) -> arb:
    """EXT-DRS19 at the current precision: delta_mu(epsilon) = Phi(-eps/mu + mu/2) -
    e^eps Phi(-eps/mu - mu/2), or with ``complement`` 1 - delta_mu(epsilon) =
    Phi(eps/mu - mu/2) + e^eps Phi(-eps/mu - mu/2), a sum free of cancellation near 1."""
    m = arb_of(mu)
    e = arb_of(epsilon)
    root2 = arb(2).sqrt()
    # Phi(x) = erfc(-x / sqrt 2) / 2
    a = (e / m - m / 2) / root2
    tail = e.exp() * ((e / m + m / 2) / root2).erfc()
    if complement:
        return ((-a).erfc() + tail) / 2
    return (a.erfc() - tail) / 2


def _at_most(mu: Fraction | float, epsilon: Fraction | float, delta: Fraction) -> bool | None:
    """Certified "delta_mu(epsilon) <= delta" (True, False, or None if undecided); above
    delta = 1/2 decided on the complement, "1 - delta_mu(epsilon) >= 1 - delta"."""
    if mu == 0:
        return True
    if delta >= _TINY and Fraction(epsilon) / Fraction(mu) - Fraction(mu) / 2 >= _FAR_TAIL:
        return True  # delta_mu(epsilon) < Phi(-39) < 2**-1074 <= delta
    if delta > _HALF:
        return certified_at_most(lambda: -_curve(mu, epsilon, complement=True), delta - 1)
    return certified_at_most(lambda: _curve(mu, epsilon, complement=False), delta)


def gdp_delta(guarantee: GDP, epsilon: ExactLike) -> float:
    """EXT-DRS19 (Dong-Roth-Su, Cor. 2.13): mu-GDP is (epsilon, delta(epsilon))-DP for
    every epsilon >= 0 with

        "delta(epsilon) = Phi(-epsilon/mu + mu/2) - e^epsilon Phi(-epsilon/mu - mu/2)",

    the exact privacy profile of the Gaussian mechanism with sensitivity/sigma = mu.
    Certified, rounded up and at most 1: within two ulps above the exact value (mu = 0
    gives 0; below the smallest float, that float).
    """
    g = _check(guarantee)
    eps = exact_nonnegative(epsilon, "epsilon")
    if g.mu == 0:
        return 0.0
    if eps / g.mu - g.mu / 2 >= _FAR_TAIL:
        return math.ulp(0.0)
    mu = g.mu
    upper = tight_upper(lambda bits: enclose(lambda: _curve(mu, eps, complement=False), bits))
    return min(max(upper, 0.0), 1.0)


def _log_profile(mu: float, eps: float, complement: bool) -> float:
    """Float search only: log delta_mu(eps), or -log(1 - delta_mu(eps)); both increase
    with delta_mu(eps) (so decrease in eps and increase in mu)."""
    with_head = mu / 2 - eps / mu
    # log(e^eps Phi(-eps/mu - mu/2)) <= log Phi(mu/2 - eps/mu) <= 0
    tail = min(eps + float(log_ndtr(-mu / 2 - eps / mu)), 0.0)
    if complement:
        rest = float(ndtr(-with_head)) + math.exp(tail)
        return -math.log(rest) if rest > 0 else math.inf
    head = float(log_ndtr(with_head))
    if not tail < head:
        return -math.inf
    return head + math.log(-math.expm1(tail - head))


def _target(delta: Fraction) -> tuple[bool, float]:
    """(complement, the float level of ``_log_profile`` at delta)."""
    if delta > _HALF:
        return True, -log_float(1 - delta)
    return False, log_float(delta)


def _excess(mu: Fraction | float, epsilon: Fraction | float, delta: Fraction) -> float:
    """Search only: delta_mu(epsilon) - delta, the midpoint of a 64-bit ``arb`` ball
    (cancellation-free above delta = 1/2, as in :func:`_at_most`)."""
    if delta > _HALF:
        ball = enclose(lambda: (1 - arb_of(delta)) - _curve(mu, epsilon, complement=True))
    else:
        ball = enclose(lambda: _curve(mu, epsilon, complement=False) - arb_of(delta))
    return float(ball.mid())


def _newton(x: float, excess: Callable[[float], float], slope: Callable[[float], float]) -> float:
    """Search only: polish a float root of ``excess`` by Newton steps (at most 4, until a
    step is within 4 ulps); floats lose digits to cancellation for small mu."""
    for _ in range(4):
        if not (x > 0 and math.isfinite(x)):
            break
        s = slope(x)
        if s == 0 or not math.isfinite(s):
            break
        step = excess(x) / s
        x -= step
        if abs(step) <= 4 * math.ulp(x):
            break
    return x


def _float_epsilon(mu: Fraction, delta: Fraction) -> float:
    """Float search, Newton-polished: the root of delta_mu(epsilon) = delta (nan when
    out of float range). d delta_mu / d epsilon = -e^eps Phi(-eps/mu - mu/2)."""
    m = float(mu)
    complement, level = _target(delta)
    if not (0 < m < math.inf and math.isfinite(level)):
        return math.nan
    hi = m * m / 2 + 2 * m + 1
    while _log_profile(m, hi, complement) > level and hi < math.inf:
        hi *= 2
    root = bisect_increasing(lambda e: -_log_profile(m, e, complement), 0.0, hi, -level)
    return _newton(
        root,
        lambda e: _excess(mu, e, delta),
        lambda e: -math.exp(min(e + float(log_ndtr(-m / 2 - e / m)), 0.0)),
    )


def _float_mu(epsilon: Fraction, delta: Fraction) -> float:
    """Float search, Newton-polished: the root of delta_mu(epsilon) = delta in mu (nan
    when out of range). d delta_mu / d mu = phi(mu/2 - eps/mu)."""
    e = float(epsilon)
    complement, level = _target(delta)
    if not (math.isfinite(e) and math.isfinite(level)):
        return math.nan
    hi = 1.0
    while _log_profile(hi, e, complement) <= level and hi < math.inf:
        hi *= 2
    root = bisect_increasing(lambda m: _log_profile(m, e, complement), 0.0, hi, level)
    return _newton(
        root,
        lambda m: _excess(m, epsilon, delta),
        lambda m: math.exp(-((m / 2 - e / m) ** 2) / 2) / math.sqrt(2 * math.pi),
    )


def _mp_delta(mu: mpmath.mpf, eps: mpmath.mpf) -> mpmath.mpf:
    return mpmath.ncdf(-eps / mu + mu / 2) - mpmath.exp(eps) * mpmath.ncdf(-eps / mu - mu / 2)


def _mp(x: Fraction) -> mpmath.mpf:
    return mpmath.mpf(x.numerator) / x.denominator


def _bisect(pred: Callable[[mpmath.mpf], bool], lo: mpmath.mpf, hi: mpmath.mpf) -> mpmath.mpf:
    """pred(lo) False, pred(hi) True, pred monotone: the boundary (to ~1e-40 relative)."""
    for _ in range(300):
        mid = (lo + hi) / 2
        if hi - lo <= mpmath.mpf(10) ** -40 * hi:
            break
        if pred(mid):
            hi = mid
        else:
            lo = mid
    return hi


def _mp_epsilon(mu: Fraction, delta: Fraction) -> float:
    """Fallback search: the root in epsilon by a 60-digit mpmath bisection."""
    with mp_precision(60):
        m, dd = _mp(mu), _mp(delta)
        hi = m * m / 2 + m * mpmath.sqrt(2 * mpmath.log(1 / dd)) + 1
        while _mp_delta(m, hi) > dd:
            hi *= 2
        return float(_bisect(lambda e: _mp_delta(m, e) <= dd, mpmath.mpf(0), hi))


def _mp_mu(epsilon: Fraction, delta: Fraction) -> float:
    """Fallback search: the root in mu by a 60-digit mpmath bisection."""
    with mp_precision(60):
        e, dd = _mp(epsilon), _mp(delta)
        hi = mpmath.mpf(1)
        while _mp_delta(hi, e) <= dd:
            hi *= 2
        return float(_bisect(lambda m: _mp_delta(m, e) > dd, mpmath.mpf(0), hi))


def _certify(
    searches: tuple[Callable[[], float], ...],
    holds: Callable[[float], bool | None],
    toward_safe: float,
) -> float:
    """The first search whose float :func:`step_to_tight` certifies; if none does, the
    last search's float moved toward safety by doubling steps until it holds (valid,
    not certified tight)."""
    x = math.nan
    for search in searches:
        x = search()
        tight = step_to_tight(x, holds, toward_safe)
        if tight is not None:
            return tight
    step = math.ulp(x)
    while holds(x) is not True:
        if not math.isfinite(x):
            raise NonFiniteResultError(f"no finite certified float near {x!r}")
        x = max(x + step if toward_safe > 0 else x - step, 0.0)
        step *= 2
    return x


def gdp_to_dp(guarantee: GDP, delta: ExactLike) -> ApproxDP:
    """EXT-DRS19: mu-GDP is (epsilon, delta)-DP for the smallest epsilon >= 0 with
    "Phi(-epsilon/mu + mu/2) - e^epsilon Phi(-epsilon/mu - mu/2) <= delta" (0 < delta < 1).

    Exact: that smallest epsilon (0 when delta_mu(0) <= delta). The float returned is
    certified >= it and certified tight: the curve at the next float down is above delta,
    so it is within one ulp of (and at most two above) the exact epsilon. An epsilon
    beyond the float range raises ``NonFiniteResultError``.
    """
    g = _check(guarantee)
    d = exact_delta(delta, "delta", allow_zero=False)
    mu = g.mu
    if mu == 0 or _at_most(mu, Fraction(0), d):
        return ApproxDP(0, d)
    eps = _certify(
        (lambda: _float_epsilon(mu, d), lambda: _mp_epsilon(mu, d)),
        lambda e: _at_most(mu, e, d),
        math.inf,
    )
    return ApproxDP(eps, d)


def gdp_mu_for(epsilon: ExactLike, delta: ExactLike) -> GDP:
    """EXT-DRS19, the way back: the LARGEST mu whose exact curve satisfies
    "Phi(-epsilon/mu + mu/2) - e^epsilon Phi(-epsilon/mu - mu/2) <= delta".

    A permission, so rounded DOWN: the float mu returned is certified to satisfy it and
    certified tight (the next float up does not), so it is within one ulp below the
    exact largest mu. delta = 0 gives mu = 0.
    """
    eps = exact_nonnegative(epsilon, "epsilon")
    d = exact_delta(delta, "delta")
    if d == 0:
        return GDP(0)
    mu = _certify(
        (lambda: _float_mu(eps, d), lambda: _mp_mu(eps, d)),
        lambda m: _at_most(m, eps, d),
        -math.inf,
    )
    return GDP(mu)


def _exact_sqrt(x: Fraction) -> Fraction | None:
    p, q = math.isqrt(x.numerator), math.isqrt(x.denominator)
    if p * p == x.numerator and q * q == x.denominator:
        return Fraction(p, q)
    return None


def compose_gdp(guarantees: Iterable[GDP]) -> GDP:
    """EXT-GDPComposition (Dong-Roth-Su, Cor. 3.3): "the composition of mu_i-GDP
    mechanisms is sqrt(mu_1^2 + ... + mu_k^2)-GDP".

    Exact when the sum of squares is a rational square, otherwise certified and rounded
    up. An empty sequence gives GDP(0).
    """
    total = sum((_check(g).mu ** 2 for g in guarantees), Fraction(0))
    root = _exact_sqrt(total)
    if root is not None:
        return GDP(root)
    return GDP(ball_upper(enclose(lambda: arb_of(total).sqrt())))
