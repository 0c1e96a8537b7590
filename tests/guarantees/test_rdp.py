"""Tests of EXT-Mironov17, EXT-BBGHS20 (and EXT-CKS20 at one order), EXT-GaussianRDP,
H23-Thm4.3 (RDP composition) and zCDP RDP curves (H23-Def4.4), guarantees/rdp.py.

Oracles: closed forms in mpmath and the Gaussian exact curve.

The Gaussian mechanism with sensitivity/sigma = mu is exactly (mu^2/2)-zCDP, mu-GDP and
(alpha, alpha mu^2/2)-RDP, so its exact privacy profile

    delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2)

(Dong-Roth-Su; Balle-Wang 2018) is a lower bound on the delta of any valid conversion
at the same eps. It is computed here from the closed form in mpmath at 60 digits, and
also by the loss oracle ``adaptive_dp.loss.gaussian.gaussian_hockey_stick_mp``.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adaptive_dp.errors import GridError
from adaptive_dp.guarantees import (
    RDP,
    ZCDP,
    RDPCurve,
    compose_rdp,
    gaussian_rdp,
    rdp_to_dp,
    zcdp_rdp_curve,
    zcdp_to_dp_optimal,
)
from tests.guarantees.gaussian_oracle import (
    DPS,
    deltas,
    gaussian_delta_lower,
    mp,
)
from tests.guarantees.gaussian_oracle import (
    ulps as _ulps,
)

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


