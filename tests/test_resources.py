"""The shipped data folders are found in a checkout and in an installed wheel."""

from __future__ import annotations

import pytest

from adaptive_dp.resources import data_dir


@pytest.mark.parametrize("name", ["spec", "proofs"])
def test_data_dir_exists(name: str) -> None:
    assert data_dir(name).is_dir()


def test_missing_data_dir_raises() -> None:
    with pytest.raises(FileNotFoundError):
        data_dir("no-such-folder")
