"""Certified two-sided privacy profiles of compositions (AUD-ProfileUpper, AUD-ProfileLower,
AUD-FFTError, AUD-TailBound, AUD-Inversion).

The optimal delta(eps) of a composition of mechanism steps is enclosed as
[lower, upper] with every error bounded (docs/design.md, audit):

1. Each step's dominating pair (:mod:`adaptive_dp.mechanisms.subsampled`) is binned on the
   lattice of losses l_k = k h (h dyadic): certified balls of P[L < l_k] and Q[L < l_k].
2. Upper (:func:`spread_upper`): in the likelihood ratio y = e^L, each bin's Q-mass is
   split between its two grid points keeping its mass and mean (a dilation; connect the
   dots), the lower tail moved up, the upper tail charged as P-mass at +infinity, every
   mass rounded up.
3. Lower (:func:`merge_lower`): bins replaced by their conditional means (post-processing),
   neighbouring point masses merged at the grid point between them (a contraction), the
   rest moved down, every mass rounded down: smaller in the increasing convex order.
4. The steps are composed by one FFT in 80-bit extended precision (z = IFFT(prod X^T)) on a
   cyclic window chosen by Chernoff bounds (:func:`tail_bound`); the FFT's rounding error
   is bounded in l2 (:func:`fft_error_bound`) and the aliased mass outside the window is
   added (upper) or subtracted (lower).
5. delta(eps) = sum over the window of z_K (1 - e^{eps - K h})_+ with the weights rounded
   in the safe direction; eps(delta) is read off the two bounds (AUD-Inversion).

The lower bound is the hockey-stick divergence of the dominating pair itself, which
neighbouring datasets realise; the pair is named in :class:`CertifiedProfile`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
import scipy.fft
from flint import arb
from numpy.typing import NDArray

from adaptive_dp.errors import ParameterError
from adaptive_dp.guarantees.histories import History
from adaptive_dp.mechanisms.subsampled import Pair, dominating_pair
from adaptive_dp.numerics.enclosure import working_precision

__all__ = [
    "U_EXTENDED",
    "CertifiedProfile",
    "Discretiser",
    "StepGrid",
    "certified_profile",
    "composition_error",
    "cyclic_compose",
    "discretise",
    "fft_error_bound",
    "merge_lower",
    "spread_upper",
    "suggest_h",
    "tail_bound",
]

U_EXTENDED = 2.0**-64
"""Unit roundoff of x86-64 80-bit extended precision (numpy ``longdouble``)."""

MU_TWIDDLE = 8 * U_EXTENDED
"""Assumed error of the FFT's twiddle factors (Higham's mu; measured by a test)."""

MAX_WINDOW = 1 << 22
"""The largest cyclic FFT window (4M points of 80-bit complex: 128 MB per array)."""

_U = 2.0**-53
_PRECISION = 160  # bits for the balls of the bin masses


def _up(x: float) -> float:
    return math.nextafter(x, math.inf)


def _down(x: float) -> float:
    return math.nextafter(x, -math.inf)


@dataclass(frozen=True, slots=True)
class StepGrid:
    """One step's discretised loss law on the lattice k h, k = offset, offset + 1, ...

    ``upper`` and ``lower`` hold P-masses (a grid point's Q-mass times e^{k h}): ``upper``
    dominates the step in the sense of AUD-ProfileUpper, ``lower`` is dominated
    (AUD-ProfileLower); ``infinity`` is the P-mass charged at loss +infinity (upper only).
    """

    offset: int
    upper: NDArray[np.float64]
    lower: NDArray[np.float64]
    infinity: float
    count: int


def _lower(ball: arb) -> float:
    """A float <= every point of ``ball`` (one step below the nearest float of its end)."""
    return _down(float(ball.lower()))


def _upper(ball: arb) -> float:
    """A float >= every point of ``ball``."""
    return _up(float(ball.upper()))


def _grid_balls(pair: Pair, h: Fraction, k0: int, k1: int) -> tuple[list[arb], list[arb],
                                                                    list[arb]]:
    """Balls of P[L < k h], Q[L < k h] and e^{k h} for k = k0..k1."""
    fp: list[arb] = []
    fq: list[arb] = []
    xs: list[arb] = []
    for k in range(k0, k1 + 1):
        loss = k * h
        p, q = pair.strict_cdfs(loss)
        fp.append(p)
        fq.append(q)
        xs.append(arb(loss.numerator) / arb(loss.denominator) if loss.denominator != 1
                  else arb(loss.numerator))
    return fp, fq, [x.exp() for x in xs]


def spread_upper(fp: Sequence[arb], fq: Sequence[arb], xs: Sequence[arb]
                 ) -> tuple[NDArray[np.float64], float]:
    """AUD-ProfileUpper: P-masses at the grid points (rounded up) and the P-mass at +inf.

    Bin i = {l_i <= L < l_{i+1}} with Q-mass Q_i and P-mass P_i = E_Q[Y; bin]; its Q-mass is
    split as b_i = (P_i - x_i Q_i)/(x_{i+1} - x_i) at x_{i+1} and a_i = Q_i - b_i at x_i (mass
    and mean kept). The lower tail's Q-mass moves up to x_0.
    """
    n = len(xs) - 1
    mass = [arb(0)] * (n + 1)
    mass[0] = xs[0] * fq[0]  # lower tail moved up to x_0 (Q-mass times x_0)
    for i in range(n):
        q_i = fq[i + 1] - fq[i]
        p_i = fp[i + 1] - fp[i]
        b = (p_i - xs[i] * q_i) / (xs[i + 1] - xs[i])
        mass[i] += xs[i] * (q_i - b)
        mass[i + 1] += xs[i + 1] * b
    upper = np.array([max(_upper(m), 0.0) for m in mass], dtype=np.float64)
    return upper, max(_upper(1 - fp[n]), 0.0)


def merge_lower(fp: Sequence[arb], fq: Sequence[arb], xs: Sequence[arb]
                ) -> NDArray[np.float64]:
    """AUD-ProfileLower: P-masses at the grid points (rounded down), dominated in the
    increasing convex order of the likelihood ratio under Q.

    Each bin becomes a point mass (its Q-mass, rounded down) at a lower bound y_i of its
    conditional mean; going up, the remaining mass of bin i is merged at x_{i+1} with just
    enough of bin i+1's mass that the merged mean is >= x_{i+1}; what cannot be merged moves
    down to x_i. The upper tail's Q-mass sits at the top grid point; the lower tail is dropped.
    """
    n = len(xs) - 1
    x_lo = [_lower(x) for x in xs]
    x_hi = [_upper(x) for x in xs]
    rem: list[float] = []
    pos: list[float] = []
    for i in range(n):
        q_ball = fq[i + 1] - fq[i]
        q_lo = max(_lower(q_ball), 0.0)
        rem.append(q_lo)
        if q_lo > 0:
            mean = (fp[i + 1] - fp[i]) / q_ball
            pos.append(max(_lower(mean), x_lo[i]))
        else:
            pos.append(x_lo[i])
    placed = [0.0] * (n + 1)
    for i in range(n):
        if rem[i] <= 0:
            continue
        j = i + 1
        below = _up(x_hi[j] - pos[i])  # >= the true distance of bin i's point below x_j
        if below <= 0:
            placed[j] = _down(placed[j] + rem[i])
            continue
        if j < n and rem[j] > 0 and pos[j] > x_hi[j]:
            above = _down(pos[j] - x_hi[j])  # <= the true distance of bin j's point above
            need = _up(_up(rem[i] * below) / above)
            if need <= rem[j]:
                placed[j] = _down(placed[j] + _down(rem[i] + need))
                rem[j] = _down(rem[j] - need)
                rem[i] = 0.0
            else:
                alpha = _down(_down(rem[j] * above) / below)
                alpha = min(alpha, rem[i])
                placed[j] = _down(placed[j] + _down(alpha + rem[j]))
                rem[i] = _down(rem[i] - alpha)
                rem[j] = 0.0
        placed[i] = _down(placed[i] + rem[i])
    tail = max(_lower(1 - fq[n]), 0.0)
    placed[n] = _down(placed[n] + tail)
    lower = np.array([_down(m * x) if m > 0 else 0.0 for m, x in zip(placed, x_lo, strict=True)],
                     dtype=np.float64)
    return np.maximum(lower, 0.0)


def _grid_ends(pair: Pair, h: Fraction, tolerance: float) -> tuple[int, int]:
    """Lattice indices k0 < k1 outside which the step's P-mass is below ``tolerance``
    (approximate: the ends affect accuracy, never validity)."""
    lo, hi = pair.loss_bounds()
    hf = float(h)
    top = hi if math.isfinite(hi) else _reach(pair, tolerance, 1.0)
    bottom = lo if math.isfinite(lo) else _reach(pair, tolerance, -1.0)
    return math.floor(bottom / hf) - 1, math.ceil(top / hf) + 1


def _reach(pair: Pair, tolerance: float, sign: float) -> float:
    """A loss beyond which (in the direction ``sign``) the P-mass is about ``tolerance``."""
    far = sign
    while pair.float_tail(far, sign > 0) > tolerance:
        far = 2 * far
    near = far / 2
    for _ in range(12):
        mid = (near + far) / 2
        if pair.float_tail(mid, sign > 0) > tolerance:
            near = mid
        else:
            far = mid
    return far


def discretise(pair: Pair, h: Fraction, count: int, tolerance: float
               ) -> tuple[StepGrid, StepGrid | None]:
    """Both discretisations of one step's dominating pair on the lattice h Z, and of the
    pair in the other order when it is not symmetric (its balls are those of the first
    pair mirrored: P'[L' < c] = 1 - Q[L < -c], Q'[L' < c] = 1 - P[L < -c], the loss having
    no atom on the lattice)."""
    k0, k1 = _grid_ends(pair, h, tolerance)
    with working_precision(_PRECISION):
        fp, fq, xs = _grid_balls(pair, h, k0, k1)
        grid = _grid(fp, fq, xs, k0, count)
        if pair.swap() is pair:
            return grid, None
        mirror_p = [1 - v for v in reversed(fq)]
        mirror_q = [1 - v for v in reversed(fp)]
        mirror_x = [1 / x for x in reversed(xs)]
        return grid, _grid(mirror_p, mirror_q, mirror_x, -k1, count)


Discretiser = Callable[[Pair, Fraction, int, float], tuple[StepGrid, StepGrid | None]]
"""The signature of :func:`discretise` (pair, h, count, tolerance): a step's grid and its
mirror (``None`` for a symmetric pair)."""


def _grid(fp: list[arb], fq: list[arb], xs: list[arb], k0: int, count: int) -> StepGrid:
    upper, infinity = spread_upper(fp, fq, xs)
    return StepGrid(k0, upper, merge_lower(fp, fq, xs), infinity, count)


def _log_mgf(grid: StepGrid, lam: float, h: float, lower: bool = False) -> float:
    """An upper bound on log sum_k m_k e^{lam k h} for the step's upper (or ``lower``)
    measure m (its moment generating function at lam, +inf mass excluded)."""
    masses = grid.lower if lower else grid.upper
    ks = np.arange(grid.offset, grid.offset + masses.size, dtype=np.float64)
    with np.errstate(over="ignore", divide="ignore"):
        logs = np.log(masses) + lam * ks * h
    top = float(np.max(logs))
    if not math.isfinite(top):
        return top
    total = math.fsum(np.exp(logs - top).tolist())
    return _up(top + math.log(total) * (1 + 8 * _U) + 8 * _U * (abs(top) + 1))


_LAMBDAS = tuple(2.0**e for e in range(-6, 9))


def tail_bound(grids: Sequence[StepGrid], h: float, above: float | None = None,
               below: float | None = None, lower: bool = False) -> float:
    """AUD-TailBound: an upper bound on the composed mass of the steps' upper (or
    ``lower``) measures with loss > ``above`` (or < ``below``), by Chernoff:
    m(L > a) <= e^{-lam a} prod_j M_j(lam)^{T_j}, each measure with its own M_j."""
    best = math.inf
    for lam in _LAMBDAS:
        sign = 1.0 if above is not None else -1.0
        edge = above if above is not None else below
        assert edge is not None
        logs = [g.count * _log_mgf(g, sign * lam, h, lower) for g in grids]
        exponent = math.fsum(logs) - sign * lam * edge
        if exponent < 0:
            best = min(best, math.exp(_up(exponent * (1 - 8 * _U) + 1e-12)))
    return best


def _window_edge(grids: Sequence[StepGrid], h: float, tolerance: float, upward: bool) -> float:
    """The loss beyond which the composed mass is below ``tolerance`` (Chernoff)."""
    sign = 1.0 if upward else -1.0
    best = math.inf
    for lam in _LAMBDAS:
        total = math.fsum(g.count * _log_mgf(g, sign * lam, h) for g in grids)
        if math.isfinite(total):
            best = min(best, (total - math.log(tolerance)) / lam)
    if not math.isfinite(best):
        raise ParameterError("history", "composition", "losses with a finite moment "
                             "generating function (the window cannot be bounded)")
    return sign * best


def fft_error_bound(n: int, norms2: Sequence[float], norms1: Sequence[float],
                    counts: Sequence[int]) -> float:
    """AUD-FFTError: a bound on the l2 error of z = IFFT(prod_m FFT(x_m)^{T_m}) computed in
    extended precision on a cyclic grid of length ``n``, for vectors with l2 norms
    ``norms2`` and l1 norms ``norms1`` (Higham 2002, Theorem 24.2, with twiddle error
    :data:`MU_TWIDDLE`)."""
    u = U_EXTENDED
    log2n = math.log2(n)
    gamma4 = 4 * u / (1 - 4 * u)
    eta = MU_TWIDDLE + gamma4 * (math.sqrt(2) + MU_TWIDDLE)
    eta_n = log2n * eta / (1 - log2n * eta)
    total = sum(counts)
    rho = max(s1 + eta_n * math.sqrt(n) * s2 for s1, s2 in zip(norms1, norms2, strict=True))
    rho_t = math.exp(_up(total * math.log(rho))) if rho > 1 else 1.0
    rho_t1 = math.exp(_up((total - 1) * math.log(rho))) if rho > 1 else 1.0
    forward = sum(t * rho_t1 * eta_n * s2 for t, s2 in zip(counts, norms2, strict=True))
    powers = 3 * (total + len(counts)) * u * rho_t
    inverse = eta_n * rho_t * (1 + 3 * (total + len(counts)) * u)
    return 2 * (forward + powers + inverse)  # factor 2: margin for second-order terms


@dataclass(frozen=True, slots=True)
class _Composed:
    """One direction's composed measure on the window [k_lo, k_lo + n)."""

    k_lo: int
    upper: NDArray[np.longdouble]
    lower: NDArray[np.longdouble]
    error_upper: float  # l2 bound of the FFT error of ``upper``
    error_lower: float
    outside: float  # bound on the upper measure's composed mass outside the window
    outside_lower: float  # the same for the lower measure (its aliased mass)
    infinity: float  # P-mass at +inf (upper)
    _losses: dict[float, NDArray[np.longdouble]] = field(default_factory=dict, repr=False,
                                                         compare=False)

    def losses(self, h: float) -> NDArray[np.longdouble]:
        """The loss K h of each window entry, increasing (exact: K h is dyadic)."""
        cached = self._losses.get(h)
        if cached is None:
            cached = np.arange(self.k_lo, self.k_lo + self.upper.size,
                               dtype=np.longdouble) * np.longdouble(h)
            self._losses[h] = cached
        return cached


def _compose(grids: Sequence[StepGrid], h: float, tolerance: float) -> _Composed:
    lo_edge = _window_edge(grids, h, tolerance / 2, upward=False)
    hi_edge = _window_edge(grids, h, tolerance / 2, upward=True)
    k_lo = math.floor(lo_edge / h) - 1
    k_hi = math.ceil(hi_edge / h) + 1
    n = 1 << max(10, (k_hi - k_lo + 1 - 1).bit_length())
    if n > MAX_WINDOW:
        raise ParameterError("h", Fraction(h), f"a lattice step whose FFT window fits in "
                             f"{MAX_WINDOW} points (this one needs {n})")
    offset = sum(g.count * g.offset for g in grids)
    outside = (tail_bound(grids, h, above=k_hi * h)
               + tail_bound(grids, h, below=k_lo * h))
    outside_lower = (tail_bound(grids, h, above=k_hi * h, lower=True)
                     + tail_bound(grids, h, below=k_lo * h, lower=True))

    counts = [g.count for g in grids]

    def compose(vectors: list[NDArray[np.float64]]) -> NDArray[np.longdouble]:
        z = cyclic_compose(vectors, counts, n)
        # entry p holds lattice index offset + p (mod n); rotate so entry 0 is k_lo
        return np.asarray(np.roll(z, -((k_lo - offset) % n)), dtype=np.longdouble)

    uppers = [g.upper for g in grids]
    lowers = [g.lower for g in grids]

    def error(vectors: list[NDArray[np.float64]]) -> float:
        return composition_error(vectors, counts, n)

    log_keep = math.fsum(g.count * math.log1p(-g.infinity) for g in grids)
    infinity = -math.expm1(_down(log_keep * (1 + 8 * _U)))
    return _Composed(k_lo, compose(uppers), compose(lowers), error(uppers), error(lowers),
                     outside, outside_lower, _up(infinity * (1 + 8 * _U)))


def cyclic_compose(vectors: Sequence[NDArray[np.float64]], counts: Sequence[int], n: int
                   ) -> NDArray[np.longdouble]:
    """The composition whose error AUD-FFTError bounds: z = IFFT(prod_m FFT(x_m)^{T_m}) in
    80-bit extended precision on the cyclic grid of length ``n`` (each x_m wrapped mod n,
    so an entry holds the sum of its aliases, AUD-TailBound)."""
    spectrum = np.ones(n, dtype=np.clongdouble)
    for v, count in zip(vectors, counts, strict=True):
        cyclic = np.zeros(n, dtype=np.clongdouble)
        np.add.at(cyclic, np.arange(v.size) % n, v.astype(np.longdouble))
        spectrum *= _power(scipy.fft.fft(cyclic), count)
    z: NDArray[np.longdouble] = scipy.fft.ifft(spectrum).real
    return z


def composition_error(vectors: Sequence[NDArray[np.float64]], counts: Sequence[int],
                      n: int) -> float:
    """AUD-FFTError for :func:`cyclic_compose` of nonnegative ``vectors``: the bound of
    :func:`fft_error_bound` with each vector's l2 and l1 norms rounded up."""
    return fft_error_bound(
        n, [_up(float(np.linalg.norm(v)) * (1 + 4 * _U)) for v in vectors],
        [_up(math.fsum(v.tolist()) * (1 + 4 * _U)) for v in vectors], counts)


def _power(x: NDArray[np.clongdouble], t: int) -> NDArray[np.clongdouble]:
    """x**t by binary powering (relative error <= 3 t u, AUD-FFTError)."""
    result = np.ones_like(x)
    base = x.copy()
    while t:
        if t & 1:
            result = result * base
        t >>= 1
        if t:
            base = base * base
    return result


@dataclass(frozen=True)
class CertifiedProfile:
    """Certified bounds on the optimal delta(eps) of a composition (AUD-ProfileUpper/Lower).

    ``pairs`` names the dominating pair of each step (the realising neighbours of the lower
    bound); ``h`` the lattice step; ``tolerance`` the mass allowed outside the FFT window.
    """

    history: History
    h: Fraction
    tolerance: float
    directions: tuple[_Composed, ...] = field(repr=False)
    pairs: tuple[tuple[Pair, ...], ...] = ()

    def _delta(self, eps: float, upper: bool) -> float:
        return max(self.direction_deltas(eps, upper))

    def direction_deltas(self, eps: float, upper: bool) -> list[float]:
        """The certified bound (upper or lower) at ``eps`` of each order of the pairs."""
        hf = float(self.h)
        values = []
        for d in self.directions:
            z = d.upper if upper else d.lower
            losses = d.losses(hf)
            first = int(np.searchsorted(losses, np.longdouble(eps), side="right"))
            gap = np.longdouble(eps) - losses[first:]  # < 0: the entries with loss > eps
            w = -np.expm1(gap)
            w = w * (1 + 16 * np.longdouble(U_EXTENDED)) if upper else w * (
                1 - 16 * np.longdouble(U_EXTENDED))
            w = np.minimum(w, 1)
            terms = z[first:] * w
            total = float(np.sum(terms, dtype=np.longdouble))
            rounding = float(np.sum(np.abs(terms), dtype=np.longdouble)) * (
                terms.size * U_EXTENDED * 2) + 1e-300
            err = d.error_upper if upper else d.error_lower
            fft = _up(math.sqrt(max(terms.size, 1)) * err)
            # five float roundings at most: widen by 8 units in the last place, relative
            if upper:
                bound = total + rounding + fft + d.outside + d.infinity
                values.append(_up(bound + abs(bound) * 8 * _U))
            else:
                bound = total - rounding - fft - d.outside_lower
                values.append(_down(bound - abs(bound) * 8 * _U))
        return values

    def delta_bounds(self, epsilon: float) -> tuple[float, float]:
        """Certified (lower, upper) on the optimal delta at ``epsilon``."""
        lo = max(self._delta(epsilon, False), 0.0)
        hi = min(self._delta(epsilon, True), 1.0)
        return lo, hi

    def epsilon_bounds(self, delta: float) -> tuple[float, float]:
        """AUD-Inversion: certified (lower, upper) on eps(delta) = inf{eps: delta(eps) <= delta}.

        The upper end is a point where the certified upper bound is <= delta; the lower end
        a point where the certified lower bound is > delta (or -inf / 0 conventions: the
        lower end is -inf when no such point exists in the searched range).
        """
        if not 0 < delta < 1:
            raise ParameterError("delta", delta, "a number in (0, 1)")
        hi_eps = 1.0
        while self._delta(hi_eps, True) > delta:
            hi_eps *= 2
            if hi_eps > 1e6:
                return -math.inf, math.inf
        lo_eps = -1.0
        while self._delta(lo_eps, True) <= delta:
            lo_eps *= 2
            if lo_eps < -1e6:
                break
        # upper: smallest eps with upper-delta <= delta (bisection keeps the invariant)
        a, b = lo_eps, hi_eps
        while b - a > 1e-10 * max(1.0, abs(b)):
            mid = (a + b) / 2
            if self._delta(mid, True) <= delta:
                b = mid
            else:
                a = mid
        eps_upper = b
        # lower: largest eps with lower-delta > delta
        if self._delta(lo_eps, False) <= delta:
            return -math.inf, eps_upper
        a, b = lo_eps, eps_upper
        while b - a > 1e-10 * max(1.0, abs(b)):
            mid = (a + b) / 2
            if self._delta(mid, False) > delta:
                a = mid
            else:
                b = mid
        return a, eps_upper


def suggest_h(history: History, bins: int = 2**14) -> Fraction:
    """A lattice step 1/2^k giving about ``bins`` bins to the step with the narrowest loss
    range (between 2^-20 and 2^-11): accuracy is second order in h relative to the range."""
    narrowest = math.inf
    for step in history.steps:
        pair = dominating_pair(step, history.neighbours)
        lo, hi = pair.loss_bounds()
        top = hi if math.isfinite(hi) else _reach(pair, 1e-12, 1.0)
        bottom = lo if math.isfinite(lo) else _reach(pair, 1e-12, -1.0)
        narrowest = min(narrowest, top - bottom)
    k = math.floor(math.log2(bins / narrowest)) if narrowest > 0 else 20
    return Fraction(1, 2 ** min(20, max(11, k)))


def certified_profile(history: History, h: Fraction | None = None,
                      tolerance: float | None = None,
                      discretiser: Discretiser | None = None) -> CertifiedProfile:
    """The certified profile of ``history`` on the loss lattice of step ``h`` (dyadic;
    default :func:`suggest_h`).

    ``tolerance`` bounds the composed mass left outside the FFT window (it enters both
    bounds); the per-step grids are cut where a step's tail mass is below
    tolerance / (10 T). ``discretiser`` bins each step (:func:`discretise`; the
    verification registry's negative controls substitute a defective one).
    """
    if h is None:
        h = suggest_h(history)
    if h <= 0 or (h.denominator & (h.denominator - 1)) or h.numerator != 1:
        raise ParameterError("h", h, "a lattice step 1/2^k")
    tol = 1e-15 if tolerance is None else tolerance
    step_tol = tol / (10 * history.total_steps)
    forward: list[StepGrid] = []
    backward: list[StepGrid] = []
    forward_pairs: list[Pair] = []
    asymmetric = False
    for step in history.steps:
        pair = dominating_pair(step, history.neighbours)
        forward_pairs.append(pair)
        grid, mirrored = (discretiser or discretise)(pair, h, step.count, step_tol)
        forward.append(grid)
        backward.append(grid if mirrored is None else mirrored)
        asymmetric = asymmetric or mirrored is not None
    hf = float(h)
    directions = [_compose(forward, hf, tol)]
    pairs = [tuple(forward_pairs)]
    if asymmetric:
        directions.append(_compose(backward, hf, tol))
        pairs.append(tuple(p.swap() for p in forward_pairs))
    return CertifiedProfile(history, h, tol, tuple(directions), tuple(pairs))
