"""AUD-SubsampledRDP: certified Rényi divergences of the Poisson-subsampled Gaussian.

One step of the mechanism (sensitivity 1, noise std ``s = noise_multiplier``, sampling
rate ``g = sampling_rate`` in (0, 1]) reduces, after a rotation, to one dimension. With
``phi`` the density of N(0, s^2) and, for a sign ``e`` in {+1, -1},

    B_e(x) = 1 - g + g exp((e x - 1/2) / s^2)      (so phi(x - e) = phi(x) exp(...)),

the pairs are

* add-remove: P = ``phi B_+`` = (1-g) N(0, s^2) + g N(1, s^2) and Q = phi; the RDP is
  max(D_a(P||Q), D_a(Q||P)) (both directions are computed, Mironov-Talwar-Zhang 2019,
  Theorem 5, is not used);
* substitute: P = ``phi B_-``, Q = ``phi B_+`` (the REPLACE_ONE pair of dp_accounting 0.6.0;
  symmetric under x -> -x, so one direction).

Every divergence is D_a(P||Q) = log1p(J) / (a - 1) with

    J = E_R[psi(r)],   psi(r) = r^a - 1 - a (r - 1) >= 0,

where R is the reference density of the direction (Q of that direction) and r = P/R;
J = E_R[r^a] - 1 because E_R[r] = 1. Two rigorous routes, both in ``arb`` balls:

* binomial (integer a >= 2, add-remove direction P||Q):
  J = sum_{k=2}^{a} C(a, k) (1-g)^(a-k) g^k expm1((k^2 - k) / (2 s^2));
* quadrature (every other case): the nonnegative integrand R psi(r) is integrated with
  flint's certified ``acb.integral`` on [L, U], L < -1/2 < 1/2 < U, and the tails are
  bounded by explicit Gaussian envelopes (:func:`_right_tail`): on a tail every factor
  B_e^c is at most exp(a_j + b_j x), so R r^a <= phi(x) exp(a + b x) and

      int_U^inf phi(x) exp(a + b x) dx = exp(a + b^2 s^2 / 2) Phibar((U - b s^2) / s),

  the left tail being the right tail of the mirrored factors. Since
  0 <= psi(r) <= r^a + (a - 1), the tails of J are at most T_I + (a - 1) T_R (T_I, T_R
  the envelope masses of R r^a and of R), so J lies in
  [J_quad_lo, J_quad_hi + T_I + (a - 1) T_R]. [L, U] starts from a float guess and
  is widened until the tail bound is below the quadrature's tolerance.

The integrand is evaluated so that ball arithmetic stays tight (:class:`_LogB`,
:func:`_integrand`): log B_e has two holomorphic forms, one each side of its branch
points, and the affine parts of the logs are folded into the Gaussian's square. The
quadrature's absolute tolerance is scaled by the integrand's largest value on a grid;
that choice affects speed only, since ``acb.integral`` returns a rigorous ball anyway.
The ball of D is tightened by :func:`~adaptive_dp.numerics.enclosure.enclose` and
rounded outward; D >= 0 always, so a lower end below 0 is raised to 0.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from fractions import Fraction
from typing import Literal

from flint import acb, arb, ctx

from adaptive_dp.errors import (
    NegativeParameterError,
    NonFiniteError,
    OrderError,
    ParameterError,
    ParameterTypeError,
)
from adaptive_dp.numerics.enclosure import arb_of, enclose
from adaptive_dp.numerics.rounding import ball_lower, ball_upper, round_down, round_up

__all__ = ["subsampled_gaussian_rdp", "subsampled_gaussian_rdp_curve",
           "subsampled_gaussian_rdp_direction"]

Neighbours = Literal["add-remove", "substitute"]
Direction = Literal["forward", "reverse", "substitute"]
Order = float | int | Fraction

_MAX_BINOMIAL_ORDER = 4096  # integer orders above this use the quadrature route
_MAX_EXTENSIONS = 16  # widenings of [lo, hi] while the tail bound is not yet negligible
_GRID_MAX = 2000  # points of the grid that sets the quadrature's absolute tolerance

# (reference factors, ratio factors) of each direction: the density R is phi times the
# product of B_e^c over the reference factors (e, c), and log r is the sum of c log B_e
# over the ratio factors.
_FACTORS: dict[Direction, tuple[tuple[tuple[int, int], ...], tuple[tuple[int, int], ...]]] = {
    "forward": ((), ((1, 1),)),  # add-remove D(P||Q): R = phi, r = B_+
    "reverse": (((1, 1),), ((1, -1),)),  # add-remove D(Q||P): R = phi B_+, r = 1/B_+
    "substitute": (((1, 1),), ((-1, 1), (1, -1))),  # R = phi B_+, r = B_- / B_+
}


def _check_order(alpha: object) -> Fraction:
    if isinstance(alpha, bool) or not isinstance(alpha, int | float | Fraction):
        raise ParameterTypeError("alpha", alpha, "an int, float or Fraction")
    if isinstance(alpha, float) and not math.isfinite(alpha):
        raise OrderError("alpha", alpha, "a finite Rényi order alpha > 1")
    a = Fraction(alpha)
    if a <= 1:
        raise OrderError("alpha", alpha, "a finite Rényi order alpha > 1")
    return a


def _check_positive_float(value: object, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ParameterTypeError(name, value, "a float")
    x = float(value)
    if x != value or not math.isfinite(x):
        raise NonFiniteError(name, value, "a finite float")
    if x <= 0:
        raise NegativeParameterError(name, value, "a number > 0")
    return x


def _check_inputs(
    alpha: object, noise_multiplier: object, sampling_rate: object, neighbours: object
) -> tuple[Fraction, float, float]:
    a = _check_order(alpha)
    s = _check_positive_float(noise_multiplier, "noise_multiplier")
    g = _check_positive_float(sampling_rate, "sampling_rate")
    if g > 1:
        raise ParameterError("sampling_rate", sampling_rate, "0 < sampling_rate <= 1")
    if neighbours not in ("add-remove", "substitute"):
        raise ParameterError("neighbours", neighbours, "'add-remove' or 'substitute'")
    return a, s, g


def _binomial_j(alpha: int, s: float, g: float) -> arb:
    """AUD-SubsampledRDP: J = E_Q[(P/Q)^a] - 1 of add-remove P||Q, integer a >= 2."""
    gb, hb = arb_of(g), arb_of(Fraction(1) - Fraction(g))
    inv2s2 = 1 / (2 * arb_of(s) ** 2)
    total = arb(0)
    for k in range(2, alpha + 1):
        coef = arb(math.comb(alpha, k)) * hb ** (alpha - k) * gb**k
        total += coef * (inv2s2 * (k * k - k)).expm1()
    return total


class _LogB:
    """log B_e(z) = slope z + intercept + small, holomorphic in z, w = (e z - 1/2) / s^2.

    Two representations of the same real function: log1p(g expm1(w)) when Re w <= th,
    th = log((1-g)/g), and w + log g + log1p(((1-g)/g) exp(-w)) when Re w > th, where
    its log1p argument has modulus < 1 (on Re w < th, |g expm1(w)| < 1 likewise). Each
    is holomorphic on a ball where its log1p argument t has Re(1 + t) > 0 (or 1 + t
    off the real line); with ``analytic`` a ball failing that check gives None (NaN
    for ``acb.integral``, which then subdivides; B is zero only at Re w = th, Im w an
    odd multiple of pi). With g = 1, B = e^w and log B is w itself. The affine part is
    returned apart so that the caller can complete the square with the Gaussian."""

    def __init__(self, s: float, g: float) -> None:
        self.inv_s2 = 1 / arb_of(s) ** 2
        self.g = acb(arb_of(g))
        self.half = acb(arb(1) / 2)
        self.plain = g == 1.0
        self.lin_icpt = -self.inv_s2 / 2
        if not self.plain:
            h = Fraction(1) - Fraction(g)
            self.lin_icpt += arb_of(g).log()
            self.odds = acb(arb_of(h / Fraction(g)))
            self.th = arb_of(h / Fraction(g)).log()

    def __call__(self, z: acb, sign: int, analytic: bool) -> tuple[arb, arb, acb] | None:
        w = (sign * z - self.half) * self.inv_s2
        if self.plain:
            return sign * self.inv_s2, self.lin_icpt, acb(0)
        if w.real > self.th:
            t = self.odds * (-w).exp()
            slope, icpt = sign * self.inv_s2, self.lin_icpt
        else:
            t = self.g * w.expm1()
            slope, icpt = arb(0), arb(0)
        if analytic:
            y = t + 1
            if not (y.real > 0 or y.imag > 0 or y.imag < 0):
                return None
        return slope, icpt, t.log1p()


def _integrand(
    direction: Direction, a: Fraction, s: float, g: float
) -> Callable[[acb, bool], acb]:
    """The holomorphic integrand R psi(r) of J at the current precision.

    Each exponential exp(log R + k log r) is evaluated as exp(-(z - m)^2 / (2 s^2) + C
    + S) with the affine parts of the logs folded into the square (centre m), so that
    a ball z near the peak m does not suffer the dependency of -z^2/(2s^2) + A z.
    When |a log r| > 1 on the ball, R psi(r) = R r^a - (1 - a) R - a R r (three such
    exponentials); otherwise R times psi(log r) = expm1(a l) - a expm1(l), which keeps
    the relative accuracy when r is near 1."""
    ref, ratio = _FACTORS[direction]
    alpha = arb_of(a)
    log_b = _LogB(s, g)
    s2 = arb_of(s) ** 2
    lognorm = (arb_of(s) * (2 * arb.pi()).sqrt()).log()
    used = sorted({e for e, _ in ref + ratio})
    nan = acb("nan")

    def f(z: acb, analytic: bool) -> acb:
        logs: dict[int, tuple[arb, arb, acb]] = {}
        for e in used:
            part = log_b(z, e, analytic)
            if part is None:
                return nan
            logs[e] = part

        def combine(factors: tuple[tuple[int, int], ...]) -> tuple[arb, arb, acb]:
            slope, icpt, small = arb(0), arb(0), acb(0)
            for e, c in factors:
                slope += c * logs[e][0]
                icpt += c * logs[e][1]
                small += c * logs[e][2]
            return slope, icpt, small

        r_slope, r_icpt, r_small = combine(ref)
        l_slope, l_icpt, l_small = combine(ratio)

        def exp_term(k: arb) -> acb:  # R r^k
            slope = r_slope + k * l_slope
            centre = s2 * slope
            const = r_icpt + k * l_icpt - lognorm + centre * slope / 2
            d = z - centre
            out: acb = (-d * d / (2 * s2) + const + r_small + k * l_small).exp()
            return out

        ell = l_slope * z + l_icpt + l_small
        if abs(alpha * ell) > 1:
            return exp_term(alpha) - (1 - alpha) * exp_term(arb(0)) - alpha * exp_term(arb(1))
        psi = (alpha * ell).expm1() - alpha * ell.expm1()
        return exp_term(arb(0)) * psi

    return f


def _envelopes(exponents: dict[int, Fraction], cut: arb, s: arb, g: Fraction) -> list[
    tuple[arb, arb]
]:
    """Candidates (a, b) with prod_e B_e(x)^{c_e} <= exp(a + b x) for all x >= cut > 1/2.

    ``exponents`` maps a sign e to c_e. Per factor, with w = (e x - 1/2) / s^2:
      e = +1, c > 0: B = e^w (g + (1-g) e^-w) <= k e^w, k = g + (1-g) e^{-(cut-1/2)/s^2};
      e = -1, c > 0: B <= l = 1 - g + g e^{-(cut+1/2)/s^2};
      c < 0: B >= g e^w, so B^c <= g^c e^{c w}; and B^c <= (1-g)^c when g < 1.
    Every combination of the per-factor candidates is returned."""
    inv_s2 = 1 / s**2
    gb, hb = arb_of(g), arb_of(1 - g)
    half = arb(1) / 2
    combos: list[tuple[arb, arb]] = [(arb(0), arb(0))]
    for e, c_exact in exponents.items():
        c = arb_of(c_exact)
        options: list[tuple[arb, arb]] = []
        if c_exact > 0 and e > 0:
            k = gb + hb * (-(cut - half) * inv_s2).exp()
            options.append((c * k.log() - c * inv_s2 / 2, c * inv_s2))
        elif c_exact > 0:
            lam = hb + gb * (-(cut + half) * inv_s2).exp()
            options.append((c * lam.log(), arb(0)))
        elif c_exact < 0:
            options.append((c * gb.log() - c * inv_s2 / 2, e * c * inv_s2))
            if g < 1:
                options.append((c * hb.log(), arb(0)))
        else:
            continue
        combos = [(a0 + a1, b0 + b1) for a0, b0 in combos for a1, b1 in options]
    return combos


def _right_tail(exponents: dict[int, Fraction], cut: arb, s: arb, g: Fraction) -> arb:
    """An upper bound on int_cut^inf phi(x) prod_e B_e(x)^{c_e} dx (cut > 1/2): the
    least of the envelope masses int_cut^inf phi(x) e^{a + b x} dx
    = exp(a + b^2 s^2 / 2) Phibar((cut - b s^2) / s), Phibar(t) = erfc(t / sqrt 2) / 2."""
    best: arb | None = None
    for a, b in _envelopes(exponents, cut, s, g):
        t = (cut - b * s**2) / s
        mass = (a + b**2 * s**2 / 2).exp() * (t / arb(2).sqrt()).erfc() / 2
        if best is None or mass.upper() < best.upper():
            best = mass
    assert best is not None
    return best


def _tails(direction: Direction, a: Fraction, s: float, g: float, lo: arb, hi: arb) -> arb:
    """T_I + (a - 1) T_R summed over (-inf, lo] and [hi, inf), lo < -1/2 < 1/2 < hi: an
    upper bound on the two tails of J, since 0 <= R psi(r) <= R r^a + (a - 1) R. The
    left tail is the right tail beyond -lo of the mirrored factors (B_e(-y) = B_-e(y))."""
    ref, ratio = _FACTORS[direction]
    sb, gq = arb_of(s), Fraction(g)
    total = arb(0)
    for mirror, cut in ((1, hi), (-1, -lo)):
        of_i: dict[int, Fraction] = {}  # R r^a
        for e, c in ref:
            of_i[mirror * e] = of_i.get(mirror * e, Fraction(0)) + c
        for e, c in ratio:
            of_i[mirror * e] = of_i.get(mirror * e, Fraction(0)) + a * c
        of_r = {mirror * e: Fraction(c) for e, c in ref}  # R
        total += _right_tail(of_i, cut, sb, gq)
        total += arb_of(a - 1) * _right_tail(of_r, cut, sb, gq)
    return total


def _cuts(direction: Direction, a: Fraction, s: float, g: float) -> tuple[float, float]:
    """Float guesses [lo, hi] outside which R r^a is below 2^-(prec + 40): the centre
    of the dominant Gaussian term plus enough standard deviations."""
    af = float(a)
    bits = ctx.prec + 40
    room = s * math.sqrt(2 * bits * math.log(2))
    flat = (af - 1) * -math.log1p(-g) if g < 1 else 0.0  # log of (1 - g)^(1 - a)
    centres: tuple[float, ...]
    heights: tuple[float, ...]
    if direction == "forward":
        centres = (0.0, af)
        heights = (0.0, af * (af - 1) / (2 * s * s))
    elif direction == "reverse":
        centres = (0.0, 1 - af)
        heights = (flat, (af - 1) * (af / (2 * s * s) - math.log(g)))
    else:
        centres = (0.0, -af, 1 - 2 * af)
        heights = (
            flat,
            flat + af * (af - 1) / (2 * s * s),
            2 * af * (af - 1) / (s * s) - math.log(g),
        )
    lo, hi = -1.0, 1.0
    for c, h in zip(centres, heights, strict=True):
        extra = s * math.sqrt(2 * max(h, 0.0)) + room
        lo, hi = min(lo, c - extra), max(hi, c + extra)
    return lo, hi


def _magnitude(f: Callable[[acb, bool], acb], lo: float, hi: float, s: float) -> arb:
    """The largest value of f on a grid of step about s / 2 over [lo, hi] (a scale for
    the absolute tolerance of the quadrature: it affects speed, never correctness)."""
    n = min(_GRID_MAX, math.ceil(2 * (hi - lo) / s))
    best = arb(0)
    for i in range(n + 1):
        v = f(acb(arb_of(lo + (hi - lo) * i / n)), False).real.mid()
        if v > best:
            best = v
    return best


def _quadrature_j(direction: Direction, a: Fraction, s: float, g: float) -> arb:
    """AUD-SubsampledRDP: a ball containing J of ``direction`` by certified quadrature
    plus envelope tail bounds, at the current precision: J >= the quadrature on [lo, hi]
    (the integrand is >= 0), J <= it plus :func:`_tails`."""
    f = _integrand(direction, a, s, g)
    lo, hi = _cuts(direction, a, s, g)
    prec = ctx.prec
    rel_tol = arb(2) ** (-(prec * 3 // 4))
    abs_tol = _magnitude(f, lo, hi, s) * rel_tol * s / 8
    if not abs_tol > 0:
        abs_tol = arb(2) ** (-2 * prec)
    step = 4 * s + 1

    def piece(x0: float, x1: float) -> arb:
        val = acb.integral(f, arb(x0), arb(x1), rel_tol=rel_tol, abs_tol=abs_tol)
        return val.real

    body = piece(lo, hi)
    for _ in range(_MAX_EXTENSIONS):
        tail = _tails(direction, a, s, g, arb(lo), arb(hi))
        limit = body.lower() * rel_tol
        if not limit > abs_tol:
            limit = abs_tol
        if tail.upper() <= limit or not body.is_finite():
            break
        body += piece(lo - step, lo) + piece(hi, hi + step)
        lo, hi = lo - step, hi + step
        step *= 2
    low_end = body.lower()
    high_end = body.upper() + tail.upper()
    return arb(low_end).union(arb(high_end))


def _divergence(j: arb, a: Fraction) -> arb:
    return j.log1p() / arb_of(a - 1)


def _direction_ball(direction: Direction, a: Fraction, s: float, g: float,
                    method: Literal["auto", "binomial", "quadrature"] = "auto") -> arb:
    """AUD-SubsampledRDP: the enclosure of D_a of one direction."""
    use_binomial = method == "binomial" or (
        method == "auto" and direction == "forward" and a.denominator == 1
        and a <= _MAX_BINOMIAL_ORDER
    )
    if use_binomial:
        if direction != "forward" or a.denominator != 1:
            raise ValueError("the binomial route needs add-remove P||Q and an integer order")
        n = a.numerator
        return enclose(lambda: _divergence(_binomial_j(n, s, g), a))
    return enclose(lambda: _divergence(_quadrature_j(direction, a, s, g), a))


def _bounds(ball: arb) -> tuple[float, float]:
    return max(0.0, ball_lower(ball)), ball_upper(ball)


def subsampled_gaussian_rdp(
    alpha: Order,
    noise_multiplier: float,
    sampling_rate: float,
    neighbours: Neighbours = "add-remove",
) -> tuple[float, float]:
    """AUD-SubsampledRDP: certified [lower, upper] on the Rényi divergence of order
    alpha > 1 of one step of the Poisson-subsampled Gaussian mechanism (sensitivity 1,
    noise std ``noise_multiplier``, sampling rate in (0, 1]).

    add-remove: max of D_a(P||Q) and D_a(Q||P), P = (1-q) N(0, s^2) + q N(1, s^2),
    Q = N(0, s^2) (each end the max of the directions' ends). substitute: D_a(P||Q),
    P = (1-q) N(0, s^2) + q N(-1, s^2), Q = (1-q) N(0, s^2) + q N(1, s^2). Integer
    orders use the exact binomial sum for add-remove P||Q; everything else the
    certified quadrature with Gaussian-envelope tail bounds (module docstring).
    Raises ParameterError (a subclass) for inputs out of range.
    """
    a, s, g = _check_inputs(alpha, noise_multiplier, sampling_rate, neighbours)
    if neighbours == "substitute":
        return _bounds(_direction_ball("substitute", a, s, g))
    fwd = _bounds(_direction_ball("forward", a, s, g))
    rev = _bounds(_direction_ball("reverse", a, s, g))
    return max(fwd[0], rev[0]), max(fwd[1], rev[1])


def subsampled_gaussian_rdp_direction(
    direction: Direction, alpha: Order, noise_multiplier: float, sampling_rate: float
) -> tuple[float, float]:
    """AUD-SubsampledRDP: certified [lower, upper] on the divergence of one direction:
    "forward" D_a(P||Q) and "reverse" D_a(Q||P) of the add-remove pair, or "substitute"
    (the pairs of :func:`subsampled_gaussian_rdp`)."""
    neighbours: Neighbours = "substitute" if direction == "substitute" else "add-remove"
    a, s, g = _check_inputs(alpha, noise_multiplier, sampling_rate, neighbours)
    return _bounds(_direction_ball(direction, a, s, g))


def subsampled_gaussian_rdp_curve(
    alphas: Iterable[Order],
    noise_multiplier: float,
    sampling_rate: float,
    neighbours: Neighbours = "add-remove",
    steps: int = 1,
) -> tuple[tuple[Order, float, float], ...]:
    """AUD-SubsampledRDP: (alpha, lower, upper) of ``steps`` composed steps at each
    order: RDP composes additively, so the one-step bounds are multiplied by ``steps``
    exactly and rounded down (lower) and up (upper)."""
    if isinstance(steps, bool) or not isinstance(steps, int):
        raise ParameterTypeError("steps", steps, "an int >= 1")
    if steps < 1:
        raise ParameterError("steps", steps, "an int >= 1")
    orders: Sequence[Order] = list(alphas)
    out: list[tuple[Order, float, float]] = []
    for alpha in orders:
        low, up = subsampled_gaussian_rdp(alpha, noise_multiplier, sampling_rate, neighbours)
        up_n = math.inf if math.isinf(up) else round_up(Fraction(up) * steps)
        out.append((alpha, round_down(Fraction(low) * steps), up_n))
    return tuple(out)
