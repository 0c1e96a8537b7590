"""Accumulators: CS2080-BasicComp sums, H23-Thm4.11 (zCDP), H23-Thm4.9 (RDP),
H23-Thm3.8 (= H23-ThmB.4, (epsilon, delta))."""

from __future__ import annotations

import mpmath
import pytest
from hypothesis import given
from hypothesis import strategies as st

from adaptive_dp.errors import DeltaRangeError, UnsupportedGuaranteeError
from adaptive_dp.guarantees.definitions import RDP, ZCDP, ApproxDP, PureDP
from adaptive_dp.odometers.accumulators import (
    EXHAUSTED,
    ApproxDPAccumulator,
    BasicAccumulator,
    RDPAccumulator,
    ZCDPAccumulator,
)

mpmath.mp.dps = 50


def test_basic_sums_exact() -> None:
    s = BasicAccumulator().start()
    for _ in range(3):
        s = s.add(ApproxDP("0.1", "1e-7"))
    assert s.reading() == ApproxDP("0.3", "3e-7")
    assert s.within(ApproxDP("0.3", "3e-7")) and not s.within(ApproxDP("0.29", "0.5"))


def test_zcdp_and_rdp_sums() -> None:
    z = ZCDPAccumulator().start().add(ZCDP("0.1")).add(PureDP("0.2"))
    assert z.reading() == ZCDP("0.12")
    r = RDPAccumulator(2).start().add(RDP(2, "0.5")).add(ZCDP("0.25"))
    assert r.reading() == RDP(2, 1)
    with pytest.raises(UnsupportedGuaranteeError):
        r.add(RDP(3, 1))


def test_h23_thm38_reading_and_exhaustion() -> None:
    acc = ApproxDPAccumulator(delta="2e-6", delta_slack="1e-6")
    s = acc.start()
    for _ in range(3):
        s = s.add(PureDP("0.1"))
    reading = s.reading()
    assert isinstance(reading, ApproxDP)
    exact = mpmath.sqrt(2 * mpmath.log(10**6) * mpmath.mpf("0.03")) + mpmath.mpf("0.015")
    assert reading.epsilon >= 0 and 0 <= float(reading.epsilon) - float(exact) < 1e-15
    assert reading.delta == ApproxDP(0, "2e-6").delta  # the target delta (A31)
    s = s.add(ApproxDP(0, "1e-6"))
    assert isinstance(s.reading(), ApproxDP)
    s = s.add(ApproxDP(0, "1e-18"))
    assert s.reading() is EXHAUSTED
    with pytest.raises(DeltaRangeError):
        ApproxDPAccumulator(delta="1e-7", delta_slack="1e-6")


@given(st.lists(st.decimals("0", "1", places=3).map(str), max_size=30))
def test_readings_non_decreasing(spends: list[str]) -> None:
    s = ApproxDPAccumulator(delta="1e-6").start()
    last = 0.0
    for e in spends:
        s = s.add(PureDP(e))
        r = s.reading()
        assert isinstance(r, ApproxDP)
        assert float(r.epsilon) >= last
        last = float(r.epsilon)
