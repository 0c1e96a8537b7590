"""Fuzzing every public constructor (issue 18, item 1).

Every class exported by the public packages (filters, odometers, guarantees, mechanisms,
e-values, interactive mechanisms) is called with Hypothesis-drawn hostile arguments for
each required parameter, positional and keyword-only: NaN, infinities, signed zeros,
subnormals, 1e-400 and 1e400 as text, huge integers, wrong types (None, bools, lists,
tuples, dicts), malformed decimal text. The contract: the constructor returns, or raises an
``AdaptiveDPError`` (whose ``ValueError``/``TypeError`` subclasses name the parameter);
never an ``AttributeError``, ``IndexError``, an arithmetic error or a bare ``TypeError``
from deep inside. Protocols, enums and exception classes are not constructors of values
and are left out. The default run draws a modest number of examples; ``-m slow`` many more.
"""

from __future__ import annotations

import contextlib
import enum
import importlib
import inspect
from decimal import Decimal
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adaptive_dp.errors import AdaptiveDPError

PACKAGES = ("adaptive_dp.filters", "adaptive_dp.odometers", "adaptive_dp.guarantees",
            "adaptive_dp.mechanisms", "adaptive_dp.evalues", "adaptive_dp.interactive.mechanism")


def _constructors() -> list[tuple[str, type]]:
    found: list[tuple[str, type]] = []
    for package in PACKAGES:
        module = importlib.import_module(package)
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name)
            if (not inspect.isclass(obj) or issubclass(obj, (BaseException, enum.Enum))
                    or getattr(obj, "_is_protocol", False) or inspect.isabstract(obj)):
                continue
            found.append((f"{package}.{name}", obj))
    return found


CONSTRUCTORS = _constructors()
HOSTILE: tuple[object, ...] = (
    float("nan"), float("inf"), -float("inf"), -0.0, 0.0, 5e-324, 1e308, 10**400, -(10**400),
    -1, 0, 1, 2, 0.5, 1e-6, "1e400", "1e-400", "nan", "-inf", "abc", "", "0.5", "1/3",
    None, True, False, [], [1.0], (1.0,), (3.0, 2.0, 1.0), ((2.0, 0.5),), {}, {"a": 1},
    Fraction(1, 3), Fraction(-1, 3), Decimal("NaN"), Decimal("1e-400"), Decimal("1e400"),
)


def _required(cls: type) -> tuple[list[str], list[str]]:
    signature = inspect.signature(cls)
    positional = [p.name for p in signature.parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
                  and p.default is p.empty]
    keyword = [p.name for p in signature.parameters.values()
               if p.kind is p.KEYWORD_ONLY and p.default is p.empty]
    return positional, keyword


def _optional(cls: type) -> list[str]:
    return [p.name for p in inspect.signature(cls).parameters.values()
            if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and p.default is not p.empty]


def _call(cls: type, data: st.DataObject) -> None:
    positional, keyword = _required(cls)
    value = st.sampled_from(HOSTILE)
    args = [data.draw(value) for _ in positional]
    kwargs: dict[str, Any] = {k: data.draw(value) for k in keyword}
    for name in _optional(cls):
        if data.draw(st.booleans()):
            kwargs[name] = data.draw(value)
    with contextlib.suppress(AdaptiveDPError):
        cls(*args, **kwargs)


_SETTINGS = dict(deadline=None, derandomize=True, database=None,
                 suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize("name, cls", CONSTRUCTORS, ids=[n for n, _ in CONSTRUCTORS])
@settings(max_examples=40, **_SETTINGS)  # type: ignore[arg-type]
@given(data=st.data())
def test_constructor_validates_hostile_arguments(name: str, cls: type,
                                                  data: st.DataObject) -> None:
    _call(cls, data)


@pytest.mark.slow
@pytest.mark.parametrize("name, cls", CONSTRUCTORS, ids=[n for n, _ in CONSTRUCTORS])
@settings(max_examples=1000, **_SETTINGS)  # type: ignore[arg-type]
@given(data=st.data())
def test_constructor_long_campaign(name: str, cls: type, data: st.DataObject) -> None:
    _call(cls, data)


def test_the_public_constructors_are_found() -> None:
    names = {n.rsplit(".", 1)[1] for n, _ in CONSTRUCTORS}
    assert {"W23Filter", "ZCDPFilter", "W23StitchedOdometer", "ApproxDP", "GaussianMechanism",
            "NormalMixtureBoundary", "RandomizedResponseIM"} <= names
