"""EXT-GDPAccumulator: G(mu_1, ..., mu_k) = sqrt(sum mu_i^2), read rounded up; its filter
I(G <= mu) (EXT-ST22). Expectations are computed here in mpmath at 50 digits or in exact
rationals, independently of the library's arb enclosures."""

from __future__ import annotations

import json
import math
from fractions import Fraction

import mpmath
import pytest
from hypothesis import given
from hypothesis import strategies as st

from adaptive_dp.certify import certify_text
from adaptive_dp.errors import UnsupportedGuaranteeError
from adaptive_dp.filters.base import Decision
from adaptive_dp.filters.from_accumulator import AccumulatorFilter
from adaptive_dp.filters.gdp import GDPFilter
from adaptive_dp.filters.named import build_odometer
from adaptive_dp.guarantees.definitions import GDP, RDP, ZCDP, ApproxDP, PureDP
from adaptive_dp.odometers import GDPAccumulator

MUS = st.lists(st.decimals("0", "2", places=4).map(str), min_size=1, max_size=25)


def _exact_sqrt_sum(mus: list[str]) -> mpmath.mpf:
    with mpmath.workdps(50):
        return mpmath.sqrt(mpmath.fsum(mpmath.mpf(m) ** 2 for m in mus))


def _read(mus: list[str]) -> Fraction:
    s = GDPAccumulator().start()
    for m in mus:
        s = s.add(GDP(m))
    reading = s.reading()
    assert isinstance(reading, GDP)
    return reading.mu


@given(MUS)
def test_reading_is_the_exact_value_rounded_up_within_one_ulp(mus: list[str]) -> None:
    reading = _read(mus)
    exact = _exact_sqrt_sum(mus)
    with mpmath.workdps(50):
        r = mpmath.mpf(reading.numerator) / reading.denominator
        assert r >= exact
        assert r - exact <= math.ulp(float(exact)) if exact > 0 else r == 0


def test_reading_ball_encloses_the_exact_value_and_exact_sums_read_exactly() -> None:
    s = GDPAccumulator().start().add(GDP("0.6")).add(GDP("0.8"))
    assert s.reading() == GDP(1)  # 0.36 + 0.64 = 1 exactly
    s = s.add(GDP("0.1"))
    ball = s.reading_ball()
    assert ball is not None
    with mpmath.workdps(50):
        exact = mpmath.sqrt(mpmath.mpf("1.01"))
        lo, hi = (mpmath.mpf(x.str(40, radius=False)) for x in (ball.lower(), ball.upper()))
    assert lo <= exact <= hi and hi - lo < 1e-15
    assert GDPAccumulator().start().reading() == GDP(0)


def test_only_gdp_spends_are_supported() -> None:
    acc = GDPAccumulator()
    assert acc.supports(GDP(1))
    for spend in (PureDP(1), ApproxDP(1, "1e-6"), ZCDP(1), RDP(2, 1)):
        assert not acc.supports(spend)
        with pytest.raises(UnsupportedGuaranteeError):
            acc.start().add(spend)


def test_within_compares_the_sum_of_squares_with_mu_squared() -> None:
    s = GDPAccumulator().start().add(GDP("0.6")).add(GDP("0.8"))
    assert s.within(GDP(1))  # equality is within
    assert not s.add(GDP("1e-9")).within(GDP(1))
    # 0.4^2 + 0.4^2 = 0.32: above 0.5^2, below 0.5 (an unsquared budget would admit it)
    t = GDPAccumulator().start().add(GDP("0.4"))
    assert t.within(GDP("0.5")) and not t.add(GDP("0.4")).within(GDP("0.5"))
    with pytest.raises(UnsupportedGuaranteeError):
        s.within(ZCDP(1))
    with pytest.raises(UnsupportedGuaranteeError):
        AccumulatorFilter(GDPAccumulator(), PureDP(1))


@given(MUS, st.decimals("0", "3", places=3).map(str))
def test_filter_is_the_gdp_filter_and_decides_exactly(mus: list[str], budget: str) -> None:
    """I(G <= mu) admits iff sum mu_i^2 <= mu^2 over the admitted spends plus the next
    (exact rationals here), and GDPFilter decides the same."""
    via_acc = AccumulatorFilter(GDPAccumulator(), GDP(budget)).start()
    gdp = GDPFilter(budget).start()
    total, mu2 = Fraction(0), Fraction(budget) ** 2
    for m in mus:
        expected = total + Fraction(m) ** 2 <= mu2
        d1, via_acc = via_acc.spend(GDP(m))
        d2, gdp = gdp.spend(GDP(m))
        assert d1 is d2 is (Decision.CONTINUE if expected else Decision.HALT)
        total += Fraction(m) ** 2 if expected else 0


@given(MUS, st.decimals("0.001", "3", places=3).map(str))
def test_max_next_is_the_closed_form_rounded_down(mus: list[str], budget: str) -> None:
    state = AccumulatorFilter(GDPAccumulator(), GDP(budget)).start()
    for m in mus:
        state = state.spend(GDP(m))[1]
    exact_room = Fraction(budget) ** 2 - state.tally.sums[0]
    x = state.max_next()
    with mpmath.workdps(50):
        bound = mpmath.sqrt(mpmath.mpf(exact_room.numerator) / exact_room.denominator)
        assert x is not None and x <= bound and bound - x < 4 * math.ulp(float(bound)) + 1e-300
    assert state.decide(GDP(x)) is Decision.CONTINUE


@given(MUS, st.decimals("0", "3", places=3).map(str))
def test_fast_path_never_reads_below_the_certified_path(mus: list[str], budget: str) -> None:
    """The float sums stay >= the exact sums, and the float path admits only what the
    certified path admits (both charged what the float path admits)."""
    rule = AccumulatorFilter(GDPAccumulator(), GDP(budget))
    exact, fast = rule.start(), rule.float_session()
    for m in mus:
        x = float(m)
        if fast.decide(x):
            assert exact.decide(GDP(x)) is Decision.CONTINUE
            exact = exact.spend(GDP(x))[1]
            fast = fast.spend(x)[1]
        assert Fraction(float(fast.sums[0])) >= exact.tally.sums[0]


def test_named_odometer_and_transcript() -> None:
    acc = build_odometer("gdp", {})
    assert isinstance(acc, GDPAccumulator) and acc.SPEC == "EXT-GDPAccumulator"
    header = json.dumps({"transcript": 1, "odometer": "gdp"})
    rows = [json.dumps({"kind": "gdp", "mu": "0.6", "reading": "0.6000000000000001"}),
            json.dumps({"kind": "gdp", "mu": "0.8", "reading": "1"}),
            json.dumps({"kind": "gdp", "mu": "0.1", "reading": "1.004"})]
    # sqrt(1.01) = 1.00498...: a reported 1.004 under-reports the loss
    verdicts = [v.verdict for v in certify_text("\n".join([header, *rows])).verdicts]
    assert verdicts == ["agrees", "agrees", "unsafe"]
