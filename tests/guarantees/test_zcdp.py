"""Tests of R23-Lem2.3 (Bun-Steinke, both directions), R23-Lem2.4 (zCDP composition)
and EXT-CKS20 (optimal zCDP -> (epsilon, delta) conversion), guarantees/zcdp.py.

Oracles: exact rationals, closed forms in mpmath, an independent mpmath minimisation
over the Rényi order, and the Gaussian exact curve.

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

from adaptive_dp.errors import DeltaRangeError
from adaptive_dp.guarantees import (
    ZCDP,
    ApproxDP,
    ApproxZCDP,
    PureDP,
    approx_to_approx_zcdp,
    compose_zcdp,
    pure_to_zcdp,
    zcdp_delta_optimal,
    zcdp_to_dp_bun_steinke,
    zcdp_to_dp_optimal,
)
from tests.guarantees.gaussian_oracle import (
    DPS,
    deltas,
    gaussian_delta_lower,
    gaussian_exact_epsilon,
    mp,
    mp_minimise,
    rhos,
)
from tests.guarantees.gaussian_oracle import (
    ulps as _ulps,
)

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




@pytest.mark.parametrize("slack", [5e-324, 1e-300, 0.5, 1 - 2**-53])
@pytest.mark.parametrize("rho", [5e-324, 1e-300, 1e-8, 1.0, 1e300])
def test_bun_steinke_extreme_inputs(rho: float, slack: float) -> None:
    """R23-Lem2.3 (ii) at subnormal, tiny, huge rho and delta'' down to 5e-324 and up to
    1 - 2**-53: the certified float is >= the closed form and within two ulps."""
    eps = float(zcdp_to_dp_bun_steinke(ZCDP(rho), slack).epsilon)
    with mpmath.workdps(DPS):
        ref = mp(rho) + 2 * mpmath.sqrt(mp(rho) * mpmath.log(1 / mp(slack)))
        assert mp(eps) >= ref
        assert _ulps(eps, ref) <= 2


@pytest.mark.parametrize("delta", [5e-324, 1e-300, 1 - 2**-53])
@pytest.mark.parametrize("rho", [1e-8, 1.0, 100.0])
def test_cks20_extreme_deltas_stay_safe(rho: float, delta: float) -> None:
    """EXT-CKS20 at extreme deltas: still >= the Gaussian's exact epsilon."""
    eps = float(zcdp_to_dp_optimal(ZCDP(rho), delta).epsilon)
    with mpmath.workdps(DPS):
        mu = mpmath.sqrt(2 * mp(rho))
        assert mp(eps) >= gaussian_exact_epsilon(mu, delta)
    assert eps <= float(zcdp_to_dp_bun_steinke(ZCDP(rho), delta).epsilon)


@settings(max_examples=20)
@given(rhos, deltas)
def test_bun_steinke_is_safe_for_the_gaussian(rho: float, slack: float) -> None:
    """R23-Lem2.3 (ii) against the exact curve of the Gaussian with mu = sqrt(2 rho)."""
    eps = float(zcdp_to_dp_bun_steinke(ZCDP(rho), slack).epsilon)
    with mpmath.workdps(DPS):
        assert gaussian_delta_lower(mpmath.sqrt(2 * mp(rho)), eps) <= mp(slack)
