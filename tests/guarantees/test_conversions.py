"""Tests of the zCDP, RDP and GDP conversions: R23-Lem2.3, R23-Lem2.4, EXT-CKS20,
EXT-Mironov17, EXT-BBGHS20, EXT-GaussianRDP, EXT-DRS19, EXT-GDPComposition.

Oracles: exact rationals, closed forms in mpmath at 60 digits, an independent mpmath
minimisation over the Rényi order, and the Gaussian mechanism's exact privacy profile

    delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2)

(Dong-Roth-Su; Balle-Wang 2018), computed here from the closed form and also by the
loss oracle ``adaptive_dp.loss.gaussian.gaussian_hockey_stick_mp``. The Gaussian with
sensitivity/sigma = mu is exactly (mu^2/2)-zCDP, mu-GDP and (alpha, alpha mu^2/2)-RDP,
so its delta is a lower bound on the delta of any valid conversion at the same eps.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adaptive_dp.errors import DeltaRangeError, GridError
from adaptive_dp.guarantees import (
    GDP,
    RDP,
    ZCDP,
    ApproxDP,
    ApproxZCDP,
    PureDP,
    RDPCurve,
    approx_to_approx_zcdp,
    compose_gdp,
    compose_rdp,
    compose_zcdp,
    gaussian_rdp,
    gdp_delta,
    gdp_mu_for,
    gdp_to_dp,
    pure_to_zcdp,
    rdp_to_dp,
    zcdp_delta_optimal,
    zcdp_rdp_curve,
    zcdp_to_dp_bun_steinke,
    zcdp_to_dp_optimal,
)
from adaptive_dp.loss.gaussian import gaussian_hockey_stick_mp

DPS = 60


def mp(x: object) -> mpmath.mpf:
    """An exact number (float, int, str, Fraction) as an mpf at the current precision."""
    if isinstance(x, Fraction):
        return mpmath.mpf(x.numerator) / x.denominator
    return mpmath.mpf(x)


def gaussian_delta_closed_form(mu: object, eps: object) -> mpmath.mpf:
    """delta(eps) of the Gaussian with sensitivity/sigma = mu, at 60+ digits."""
    for dps in (DPS, 4 * DPS, 16 * DPS):
        with mpmath.workdps(dps):
            m, e = mp(mu), mp(eps)
            if m == 0:
                return mpmath.mpf(0)
            a = mpmath.ncdf(-e / m + m / 2)
            d = a - mpmath.exp(e) * mpmath.ncdf(-e / m - m / 2)
            if d > 0 and a / d < mpmath.mpf(10) ** (dps - DPS):
                return d
    return d


def to_fraction(x: object) -> object:
    """mpf values as exact Fractions (the loss oracle reads its inputs exactly)."""
    if isinstance(x, mpmath.mpf):
        sign, man, exp, _ = x._mpf_
        value = Fraction(int(man)) * Fraction(2) ** int(exp)
        return -value if sign else value
    return x


def gaussian_delta_lower(mu: object, eps: object) -> mpmath.mpf:
    """The larger of the two independent oracles (they must agree to 1e-30 relative)."""
    ours = gaussian_delta_closed_form(mu, eps)
    theirs = gaussian_hockey_stick_mp(to_fraction(mu), to_fraction(eps))
    with mpmath.workdps(DPS):
        assert abs(ours - theirs) <= mpmath.mpf(10) ** -30 * max(abs(ours), mpmath.mpf(10) ** -300)
        return max(ours, theirs)


def gaussian_exact_epsilon(mu: object, delta: object) -> mpmath.mpf:
    """The smallest eps with delta(eps) <= delta for the Gaussian (mpmath bisection)."""
    with mpmath.workdps(DPS):
        d = mp(delta)
        if gaussian_delta_closed_form(mu, 0) <= d:
            return mpmath.mpf(0)
        lo, hi = mpmath.mpf(0), mpmath.mpf(1)
        while gaussian_delta_closed_form(mu, hi) > d:
            lo, hi = hi, 2 * hi
        for _ in range(130):
            mid = (lo + hi) / 2
            if gaussian_delta_closed_form(mu, mid) > d:
                lo = mid
            else:
                hi = mid
        return hi


def mp_minimise(f: object, lo: float, hi: float) -> mpmath.mpf:
    """min of f over alpha in [lo, hi] (log grid, then golden refinement), at 60 digits."""
    assert callable(f)
    with mpmath.workdps(DPS):
        grid = [mpmath.mpf(lo) * (mpmath.mpf(hi) / lo) ** (mpmath.mpf(i) / 200)
                for i in range(201)]
        values = [f(a) for a in grid]
        i = min(range(len(grid)), key=lambda j: values[j])
        a, b = grid[max(i - 1, 0)], grid[min(i + 1, 200)]
        g = (mpmath.sqrt(5) - 1) / 2
        c, d = b - g * (b - a), a + g * (b - a)
        fc, fd = f(c), f(d)
        for _ in range(130):
            if fc <= fd:
                b, d, fd = d, c, fc
                c = b - g * (b - a)
                fc = f(c)
            else:
                a, c, fc = c, d, fd
                d = a + g * (b - a)
                fd = f(d)
        return min(fc, fd, values[i])


# ---------------------------------------------------------------------- tests

rhos = st.one_of(
    st.sampled_from([1e-8, 0.005, 0.5, 1.35301, 10.0]),
    st.floats(min_value=1e-6, max_value=50.0),
)
deltas = st.one_of(
    st.sampled_from([1e-12, 1e-6, 1e-3, 0.3]),
    st.floats(min_value=1e-12, max_value=0.4),
)


def _ulps(f: float, ref: mpmath.mpf) -> mpmath.mpf:
    return abs(mp(f) - ref) / math.ulp(f)


# ----------------------------------------------------------------- R23-Lem2.3 (i)


def test_pure_to_zcdp_is_exact() -> None:
    assert pure_to_zcdp(PureDP("0.3")) == ZCDP("0.045")


def test_approx_to_approx_zcdp_is_exact() -> None:
    g = approx_to_approx_zcdp(ApproxDP("0.2", "1e-7"))
    assert g == ApproxZCDP(Fraction(1, 50), Fraction(1, 10**7))


# ----------------------------------------------------------------- R23-Lem2.3 (ii)


@settings(max_examples=40)
@given(rhos, deltas)
def test_bun_steinke_encloses_the_closed_form(rho: float, slack: float) -> None:
    out = zcdp_to_dp_bun_steinke(ZCDP(rho), slack)
    with mpmath.workdps(DPS):
        ref = mp(rho) + 2 * mpmath.sqrt(mp(rho) * mpmath.log(1 / mp(slack)))
        eps = float(out.epsilon)
        assert mp(eps) >= ref
        assert _ulps(eps, ref) <= 2
    assert out.delta == Fraction(slack)


def test_bun_steinke_adds_the_approximate_delta() -> None:
    out = zcdp_to_dp_bun_steinke(ApproxZCDP("0.5", "1e-7"), "1e-6")
    assert out.delta == Fraction(11, 10**7)


def test_bun_steinke_reproduces_r23_section7_anchor() -> None:
    """R23 section 7: the stop at a sum of squares ~ 2.705 is 2 rho* with
    rho* = (sqrt(log(1/delta'') + eps) - sqrt(log(1/delta'')))^2, eps = 10, delta'' = 1e-6."""
    with mpmath.workdps(DPS):
        L = mpmath.log(10**6)
        rho_star = (mpmath.sqrt(L + 10) - mpmath.sqrt(L)) ** 2
        assert abs(2 * rho_star - mpmath.mpf("2.706")) < mpmath.mpf("1e-3")
        out = zcdp_to_dp_bun_steinke(ZCDP(float(rho_star)), "1e-6")
    assert abs(float(out.epsilon) - 10.0) < 1e-12


@settings(max_examples=30)
@given(rhos, st.floats(min_value=1.0001, max_value=3.0), deltas)
def test_bun_steinke_is_monotone_in_rho(rho: float, factor: float, slack: float) -> None:
    small = zcdp_to_dp_bun_steinke(ZCDP(rho), slack).epsilon
    large = zcdp_to_dp_bun_steinke(ZCDP(rho * factor), slack).epsilon
    assert small <= large


# ----------------------------------------------------------------- EXT-CKS20


def _cks_eps_ref(rho: float, delta: float) -> mpmath.mpf:
    r, d = mp(rho), mp(delta)

    def f(a: mpmath.mpf) -> mpmath.mpf:
        return a * r + (mpmath.log(1 / d) + (a - 1) * mpmath.log(1 - 1 / a) - mpmath.log(a)) / (
            a - 1
        )

    return max(mp_minimise(f, 1 + 1e-9, 1e9), mpmath.mpf(0))


@settings(max_examples=15)
@given(rhos, deltas)
def test_cks20_epsilon_is_safe_and_tight(rho: float, delta: float) -> None:
    out = zcdp_to_dp_optimal(ZCDP(rho), delta)
    eps = float(out.epsilon)
    with mpmath.workdps(DPS):
        mu = mpmath.sqrt(2 * mp(rho))
        # never less loss than the exact value: the Gaussian with mu = sqrt(2 rho) is rho-zCDP
        assert mp(eps) >= gaussian_exact_epsilon(mu, delta)
        assert gaussian_delta_lower(mu, eps) <= mp(delta)
        # the optimum of the same expression, found independently
        ref = _cks_eps_ref(rho, delta)
        assert abs(mp(eps) - ref) <= mpmath.mpf(1e-9) * max(ref, mpmath.mpf(1e-300))
    # at least as good as Bun-Steinke
    assert out.epsilon <= zcdp_to_dp_bun_steinke(ZCDP(rho), delta).epsilon


@settings(max_examples=25)
@given(rhos, st.floats(min_value=0.0, max_value=30.0))
def test_cks20_delta_is_safe_and_tight(rho: float, eps: float) -> None:
    delta = zcdp_delta_optimal(ZCDP(rho), eps)
    with mpmath.workdps(DPS):
        mu = mpmath.sqrt(2 * mp(rho))
        assert mp(delta) >= gaussian_delta_lower(mu, eps)
        r, e = mp(rho), mp(eps)

        def f(a: mpmath.mpf) -> mpmath.mpf:
            return mpmath.exp((a - 1) * (a * r - e)) / (a - 1) * (1 - 1 / a) ** a

        ref = min(mp_minimise(f, 1 + 1e-9, 1e9), mpmath.mpf(1))
        assert mp(delta) <= ref * (1 + mpmath.mpf(1e-9)) + mpmath.mpf(5e-324)


@settings(max_examples=20)
@given(rhos, st.floats(min_value=1.001, max_value=3.0), deltas)
def test_cks20_is_monotone_in_rho(rho: float, factor: float, delta: float) -> None:
    small = zcdp_to_dp_optimal(ZCDP(rho), delta).epsilon
    large = zcdp_to_dp_optimal(ZCDP(rho * factor), delta).epsilon
    assert small <= large


@pytest.mark.parametrize("rho", [1e-300, 1e-100, 1e100, 1e300])
def test_cks20_extreme_rhos(rho: float) -> None:
    out = zcdp_to_dp_optimal(ZCDP(rho), "1e-6")
    bs = zcdp_to_dp_bun_steinke(ZCDP(rho), "1e-6")
    assert 0 <= out.epsilon <= bs.epsilon
    assert out.epsilon >= Fraction(rho) or rho < 1  # eps >= rho for large rho
    assert 0 <= zcdp_delta_optimal(ZCDP(rho), 1) <= 1


def test_cks20_zero_rho() -> None:
    assert zcdp_to_dp_optimal(ZCDP(0), "1e-9") == ApproxDP(0, "1e-9")
    assert zcdp_delta_optimal(ZCDP(0), 0) == 0.0


# ----------------------------------------------------------------- R23-Lem2.4


def test_compose_zcdp_sums_exactly() -> None:
    assert compose_zcdp([ZCDP("0.1"), ZCDP("0.2")]) == ZCDP("0.3")
    mixed = compose_zcdp([ZCDP("0.1"), ApproxZCDP("0.2", "1e-7"), ApproxZCDP(0, "2e-7")])
    assert mixed == ApproxZCDP("0.3", "3e-7")
    assert compose_zcdp([]) == ZCDP(0)


def test_compose_zcdp_rejects_delta_reaching_one() -> None:
    with pytest.raises(DeltaRangeError):
        compose_zcdp([ApproxZCDP(0, "0.5"), ApproxZCDP(0, "0.5")])


# ----------------------------------------------------------------- RDP conversions

orders = st.one_of(st.sampled_from([1.5, 2.0, 8.0, 32.0, 256.0]),
                   st.floats(min_value=1.01, max_value=1e4))
rdp_eps = st.floats(min_value=0.0, max_value=20.0)


@settings(max_examples=40)
@given(orders, rdp_eps, deltas)
def test_rdp_conversions_enclose_their_closed_forms(alpha: float, eps: float, d: float) -> None:
    g = RDP(alpha, eps)
    mir = float(rdp_to_dp(g, d, method="mironov17").epsilon)
    bb = float(rdp_to_dp(g, d, method="bbghs20").epsilon)
    ck = float(rdp_to_dp(g, d, method="cks20").epsilon)
    with mpmath.workdps(DPS):
        a, e, dd = mp(alpha), mp(eps), mp(d)
        ref_m = max(e + mpmath.log(1 / dd) / (a - 1), mpmath.mpf(0))
        ref_b = max(
            e + mpmath.log((a - 1) / a) - (mpmath.log(dd) + mpmath.log(a)) / (a - 1),
            mpmath.mpf(0),
        )
        assert mp(mir) >= ref_m and mp(bb) >= ref_b
        if ref_m > 0:
            assert _ulps(mir, ref_m) <= 2
        if ref_b > mpmath.mpf(1e-12):
            assert _ulps(bb, ref_b) <= 2
    assert bb <= mir  # BBGHS20 improves on Mironov17 at every order
    assert ck == bb  # CKS20 Prop. 12 at one order is the same expression


@settings(max_examples=25)
@given(st.floats(min_value=0.3, max_value=20.0), orders, deltas)
def test_gaussian_rdp_conversion_is_safe(sigma: float, alpha: float, d: float) -> None:
    g = gaussian_rdp(1, sigma, alpha)
    assert g.epsilon == Fraction(alpha) / (2 * Fraction(sigma) ** 2)
    for method in ("bbghs20", "mironov17"):
        eps = float(rdp_to_dp(g, d, method=method).epsilon)
        with mpmath.workdps(DPS):
            assert gaussian_delta_lower(1 / mp(sigma), eps) <= mp(d)


def test_rdp_curve_takes_the_best_order() -> None:
    curve = RDPCurve([(2, "0.1"), (8, "0.5"), (32, 3)])
    best = min(rdp_to_dp(p, "1e-6").epsilon for p in curve.points)
    assert rdp_to_dp(curve, "1e-6").epsilon == best


@settings(max_examples=30)
@given(orders, rdp_eps, st.floats(min_value=1e-6, max_value=5.0), deltas)
def test_rdp_conversion_is_monotone_in_epsilon(alpha: float, eps: float, extra: float,
                                               d: float) -> None:
    assert rdp_to_dp(RDP(alpha, eps), d).epsilon <= rdp_to_dp(RDP(alpha, eps + extra), d).epsilon


def test_zcdp_rdp_curve_and_compose_rdp() -> None:
    curve = zcdp_rdp_curve(ZCDP("0.5"), [2, 4, "10.5"])
    assert [(p.alpha, p.epsilon) for p in curve.points] == [
        (2, 1), (4, 2), (Fraction(21, 2), Fraction(21, 4))]
    twice = compose_rdp([curve, curve])
    assert isinstance(twice, RDPCurve)
    assert [p.epsilon for p in twice.points] == [2, 4, Fraction(21, 2)]
    assert compose_rdp([RDP(3, "0.1"), RDP(3, "0.2")]) == RDP(3, "0.3")
    with pytest.raises(GridError):
        compose_rdp([RDP(3, "0.1"), RDP(4, "0.2")])
    with pytest.raises(GridError):
        compose_rdp([])


def test_rdp_curve_of_zcdp_never_beats_cks20() -> None:
    """On a grid of orders the RDP route is at least the CKS20 infimum over all orders."""
    g = ZCDP("0.1")
    grid = zcdp_rdp_curve(g, [1.5, 2, 3, 4, 6, 8, 16, 32, 64])
    assert rdp_to_dp(grid, "1e-6").epsilon >= zcdp_to_dp_optimal(g, "1e-6").epsilon


# ----------------------------------------------------------------- GDP (EXT-DRS19)

mus = st.one_of(st.sampled_from([1e-3, 0.5, 1.0, 3.0]), st.floats(min_value=1e-3, max_value=8.0))


@settings(max_examples=40)
@given(mus, st.floats(min_value=0.0, max_value=40.0))
def test_gdp_delta_encloses_the_exact_curve(mu: float, eps: float) -> None:
    ours = gdp_delta(GDP(mu), eps)
    with mpmath.workdps(DPS):
        ref = gaussian_delta_lower(mu, eps)
        assert mp(ours) >= ref
        if ref > mpmath.mpf(1e-300):
            assert _ulps(ours, ref) <= 2
        else:
            assert ours <= 1e-300


@settings(max_examples=25)
@given(mus, deltas)
def test_gdp_to_dp_is_safe_and_tight(mu: float, d: float) -> None:
    eps = float(gdp_to_dp(GDP(mu), d).epsilon)
    with mpmath.workdps(DPS):
        assert gaussian_delta_lower(mu, eps) <= mp(d)
        exact_eps = gaussian_exact_epsilon(mu, d)
        assert mp(eps) >= exact_eps
        assert mp(eps) - exact_eps <= mpmath.mpf(1e-12) * max(exact_eps, mpmath.mpf(1))


@settings(max_examples=25)
@given(st.floats(min_value=0.0, max_value=20.0), deltas)
def test_gdp_mu_for_is_the_largest_safe_mu(eps: float, d: float) -> None:
    mu = float(gdp_mu_for(eps, d).mu)
    assert mu > 0
    with mpmath.workdps(DPS):
        assert gaussian_delta_lower(mu, eps) <= mp(d)
        assert gaussian_delta_closed_form(mp(mu) * (1 + mpmath.mpf(1e-12)), eps) > mp(d)
    back = gdp_to_dp(GDP(mu), d).epsilon
    assert back <= Fraction(eps) * (1 + Fraction(1, 10**12)) + Fraction(1, 10**300)


@settings(max_examples=25)
@given(mus, st.floats(min_value=1.0001, max_value=3.0), deltas)
def test_gdp_to_dp_is_monotone_in_mu(mu: float, factor: float, d: float) -> None:
    assert gdp_to_dp(GDP(mu), d).epsilon <= gdp_to_dp(GDP(mu * factor), d).epsilon


def test_gdp_edge_cases() -> None:
    assert gdp_delta(GDP(0), 1) == 0.0
    assert gdp_to_dp(GDP(0), "1e-6") == ApproxDP(0, "1e-6")
    assert gdp_mu_for(1, 0) == GDP(0)
    assert gdp_delta(GDP("1e-3"), 1) == 5e-324  # far tail: the smallest positive float
    assert gdp_delta(GDP(40), "0.5") <= 1.0


def test_compose_gdp() -> None:
    assert compose_gdp([GDP(3), GDP(4)]) == GDP(5)  # exact square
    assert compose_gdp([]) == GDP(0)
    mu = compose_gdp([GDP(1), GDP(1)]).mu
    with mpmath.workdps(DPS):
        assert mp(mu) >= mpmath.sqrt(2)
        assert _ulps(float(mu), mpmath.sqrt(2)) <= 2
