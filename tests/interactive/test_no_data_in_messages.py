"""No error message, repr or transcript entry of the shells contains the data (issue:
reliability and security): a curator passing the dataset in the wrong shape, and an
analyst making bad requests, see only types, sizes and public parameters."""

from __future__ import annotations

import pytest

from adaptive_dp.errors import AdaptiveDPError
from adaptive_dp.filters import PureDPFilter
from adaptive_dp.interactive.concurrent import Query
from adaptive_dp.interactive.mechanism import DiscreteGaussianCountIM, RandomizedResponseIM
from adaptive_dp.interactive.shell import ConcurrentFilter

SECRET = 7_341_029  # a value that cannot appear by chance in a message

HOSTILE_DATA: list[object] = [
    [1, 0, 1, SECRET],
    (1, 0, SECRET),
    {"row": SECRET},
    f"bits {SECRET}",
    [SECRET] * 3,
]


@pytest.mark.parametrize("data", HOSTILE_DATA, ids=lambda d: type(d).__name__)
@pytest.mark.parametrize("mechanism",
                         [RandomizedResponseIM("0.75", 2), DiscreteGaussianCountIM("0.5")],
                         ids=["rr", "gaussian"])
def test_messages_never_show_the_data(data: object, mechanism: object) -> None:
    messages: list[str] = []
    try:
        shell = ConcurrentFilter(data, PureDPFilter(5), seed=1)
        messages.append(repr(shell))
        child = shell.launch(mechanism)
        messages.append(repr(child))
        child.query(Query(1, 0))
    except (AdaptiveDPError, TypeError, ValueError) as error:
        messages.append(f"{type(error).__name__}: {error}")
    assert messages, "nothing was checked"
    for text in messages:
        assert str(SECRET) not in text, text
