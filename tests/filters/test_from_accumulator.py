"""H23-Lem2.19: the filter I(G <= d) built from an accumulator reproduces the direct
filter (H23-Thm3.8 -> H23-ThmB.3, H23-Thm4.11 -> H23-Thm4.10, H23-Thm4.9 -> H23-Thm4.6)."""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import given
from hypothesis import strategies as st

from adaptive_dp.filters.base import Decision, Rule
from adaptive_dp.filters.from_accumulator import AccumulatorFilter
from adaptive_dp.filters.rdp import RDPFilter
from adaptive_dp.filters.w23 import W23Filter
from adaptive_dp.filters.zcdp import ZCDPSumFilter
from adaptive_dp.guarantees.definitions import RDP, ZCDP, ApproxDP
from adaptive_dp.guarantees.spends import Spend
from adaptive_dp.odometers.accumulators import (
    ApproxDPAccumulator,
    RDPAccumulator,
    ZCDPAccumulator,
)


def decisions(rule: Rule, spends: Sequence[Spend]) -> list[Decision]:
    state = rule.start()
    out = []
    for s in spends:
        d, state = state.spend(s)
        out.append(d)
    return out


pairs = st.lists(
    st.tuples(
        st.decimals("0", "0.4", places=3).map(str),
        st.sampled_from(["0", "1e-7", "4e-7"]),
    ),
    min_size=1,
    max_size=30,
)


@given(pairs)
def test_approx_accumulator_filter_equals_w23(spends: list[tuple[str, str]]) -> None:
    values = [ApproxDP(e, d) for e, d in spends]
    direct = W23Filter(1, delta="2e-6", delta_slack="1e-6")
    via = AccumulatorFilter(
        ApproxDPAccumulator(delta="2e-6", delta_slack="1e-6"), ApproxDP(1, "2e-6")
    )
    assert decisions(direct, values) == decisions(via, values)


@given(st.lists(st.decimals("0", "0.3", places=2).map(str), min_size=1, max_size=20))
def test_sum_accumulators_filters_equal_direct(spends: list[str]) -> None:
    z = [ZCDP(s) for s in spends]
    assert decisions(ZCDPSumFilter(1), z) == decisions(
        AccumulatorFilter(ZCDPAccumulator(), ZCDP(1)), z
    )
    r = [RDP(3, s) for s in spends]
    assert decisions(RDPFilter(3, 1), r) == decisions(
        AccumulatorFilter(RDPAccumulator(3), RDP(3, 1)), r
    )
