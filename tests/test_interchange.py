"""The JSON-lines interchange: exact decimals, every kind, errors naming line and field."""

from __future__ import annotations

from fractions import Fraction

import pytest

from adaptive_dp.guarantees.definitions import (
    GDP,
    RDP,
    ZCDP,
    ApproxDP,
    ApproxZCDP,
    ProbabilisticDP,
    PureDP,
    RDPCurve,
)
from adaptive_dp.interchange import (
    BrownianSpend,
    ExPostSpend,
    InterchangeError,
    kind_of,
    parse_line,
    read_spends,
)


def test_every_kind() -> None:
    assert parse_line('{"kind": "pure", "epsilon": "0.1"}') == PureDP("0.1")
    assert parse_line('{"kind": "approx", "epsilon": 0.1, "delta": 1e-7}') == ApproxDP(
        "0.1", "1e-7"
    )
    assert parse_line('{"kind": "pdp", "epsilon": 0.1, "delta": 1e-7}') == ProbabilisticDP(
        "0.1", "1e-7"
    )
    assert parse_line('{"kind": "zcdp", "rho": 0.005}') == ZCDP("0.005")
    assert parse_line('{"kind": "zcdp", "rho": 0.005, "delta": 0}') == ApproxZCDP("0.005", 0)
    assert parse_line('{"kind": "rdp", "alpha": 8, "epsilon": 0.2}') == RDP(8, "0.2")
    assert parse_line('{"kind": "rdp", "curve": [[2, 0.1], [8, 0.2]]}') == RDPCurve(
        [(2, "0.1"), (8, "0.2")]
    )
    assert parse_line('{"kind": "gdp", "mu": 0.3}') == GDP("0.3")
    assert parse_line(
        '{"kind": "expost", "max_epsilon": 0.5, "epsilon": 0.35, "delta": 0}'
    ) == ExPostSpend(Fraction(1, 2), Fraction(7, 20), Fraction(0))
    assert parse_line(
        '{"kind": "bm", "sensitivity": 1, "t_min": 10.0, "t_stop": 12.5}'
    ) == BrownianSpend(Fraction(1), Fraction(10), Fraction(25, 2))


def test_numbers_are_exact_decimals() -> None:
    spend = parse_line('{"kind": "pure", "epsilon": 0.1}')
    assert isinstance(spend, PureDP) and spend.epsilon == Fraction(1, 10)


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ('{"kind": "pure"}', "epsilon"),
        ('{"kind": "nope", "epsilon": 1}', "kind"),
        ('{"kind": "pure", "epsilon": -1}', "epsilon"),
        ('{"kind": "approx", "epsilon": 1, "delta": 1.5}', "delta"),
        ('{"kind": "pure", "epsilon": true}', "epsilon"),
        ('{"kind": "pure", "epsilon": 1, "rho": 2}', "rho"),
        ("not json", "<json>"),
        ('{"kind": "bm", "sensitivity": 1, "t_min": 10, "t_stop": 5}', "t_stop"),
    ],
)
def test_errors_name_line_and_field(text: str, field: str) -> None:
    with pytest.raises(InterchangeError) as info:
        parse_line(text, 7)
    assert info.value.line == 7 and info.value.field == field
    assert "line 7" in str(info.value) and field in str(info.value)


def test_read_spends_numbers_lines_and_skips_blanks() -> None:
    lines = ['{"kind": "pure", "epsilon": 1}', "", '{"kind": "gdp", "mu": 1}']
    assert [n for n, _ in read_spends(lines)] == [1, 3]


def test_kind_of_round_trips() -> None:
    for text in ('{"kind": "pdp", "epsilon": 1, "delta": 0}', '{"kind": "gdp", "mu": 1}'):
        spend = parse_line(text)
        assert kind_of(spend) in text
