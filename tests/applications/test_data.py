"""R23 section 7.2 data: synthetic Zipf histograms and the word-count loader."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from adaptive_dp.applications.data import (
    DOMAIN,
    word_count_histogram,
    zipf_histograms,
    zipf_probabilities,
)
from adaptive_dp.errors import ParameterError


def test_zipf_probabilities_follow_the_power_law() -> None:
    p = zipf_probabilities(DOMAIN, 1.0)
    assert DOMAIN == 300 and p.shape == (300,)
    assert p.sum() == pytest.approx(1.0, abs=1e-12)
    harmonic = sum(1.0 / k for k in range(1, 301))
    assert p[0] == pytest.approx(1 / harmonic, rel=1e-12)
    assert p[9] / p[19] == pytest.approx(2.0, rel=1e-12)
    q = zipf_probabilities(10, 2.0)
    assert q[0] / q[2] == pytest.approx(9.0, rel=1e-12)


def test_zipf_histograms_shape_and_totals() -> None:
    h = zipf_histograms(10_000, 4, np.random.default_rng(0))
    assert h.shape == (4, 300)
    assert np.all(h.sum(axis=1) == 10_000)
    assert np.all(h >= 0)
    assert zipf_histograms(0, 2, np.random.default_rng(0)).sum() == 0


@pytest.mark.parametrize(("kwargs", "name"), [
    ({"n": -1, "trials": 1}, "n"), ({"n": 5, "trials": 0}, "trials")])
def test_zipf_histograms_reject(kwargs: dict[str, int], name: str) -> None:
    with pytest.raises(ParameterError, match=name):
        zipf_histograms(rng=np.random.default_rng(0), **kwargs)


def test_zipf_probabilities_reject() -> None:
    with pytest.raises(ParameterError):
        zipf_probabilities(0)
    with pytest.raises(ParameterError):
        zipf_probabilities(10, 0.0)


def test_word_counts_count_each_user_once(tmp_path: Path) -> None:
    text = (
        "the cat saw the other cat\n"
        "The dog; the DOG!\n"
        "\n"
        "a cat's toy, the end\n"
    )
    path = tmp_path / "users.txt"
    path.write_text(text, encoding="utf-8")
    hist = word_count_histogram(path)
    counts = dict(zip(hist.tokens, hist.counts, strict=True))
    assert hist.users == 4
    assert counts["the"] == 3  # three users used it, however often
    assert counts["cat"] == 1
    assert counts["cat's"] == 1
    assert counts["dog"] == 1
    assert hist.tokens[0] == "the"
    assert list(hist.counts) == sorted(hist.counts, reverse=True)
    # each user changes each count by at most 1: removing one line moves counts by <= 1
    smaller = tmp_path / "fewer.txt"
    smaller.write_text("".join(text.splitlines(keepends=True)[1:]), encoding="utf-8")
    other = dict(zip(*(lambda h: (h.tokens, h.counts))(word_count_histogram(smaller)),
                     strict=True))
    for token, c in counts.items():
        assert 0 <= c - other.get(token, 0) <= 1


def test_word_counts_top_and_case(tmp_path: Path) -> None:
    path = tmp_path / "u.txt"
    path.write_text("b a\nA c\nc a\n", encoding="utf-8")
    top = word_count_histogram(path, top=2)
    assert top.tokens == ("a", "c") and top.counts == (3, 2)
    assert np.array_equal(top.as_array(), np.array([3, 2]))
    cased = word_count_histogram(path, lowercase=False)
    assert dict(zip(cased.tokens, cased.counts, strict=True))["a"] == 2
    with pytest.raises(ParameterError):
        word_count_histogram(path, top=0)
