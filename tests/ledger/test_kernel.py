"""The kernel's single homes and typed spends (issue: one kernel).

Each closed form has exactly one definition in ``src/`` and every module that uses it
imports that one; every public spend parameter of the rules, accumulators and odometers
is typed with the spend type."""

from __future__ import annotations

import ast
import inspect
import typing
from pathlib import Path

import pytest

import adaptive_dp.evalues.boundaries as boundaries
import adaptive_dp.filters as filters
import adaptive_dp.guarantees.bounds as bounds
import adaptive_dp.odometers as odometers
from adaptive_dp.filters.base import FastFilterState, FilterState, FloatFilterState
from adaptive_dp.guarantees.spends import Spend
from adaptive_dp.ledger import Ledger
from adaptive_dp.odometers.accumulators import AccumulatorState
from adaptive_dp.odometers.w23 import FastOdometerState, OdometerState

SRC = Path(__file__).resolve().parents[2] / "src" / "adaptive_dp"

# closed form -> (home module, the modules that use it)
HOMES = {
    "W23Bound": (bounds, ["odometers.accumulators", "cli.figure"]),
    "BunSteinkeBound": (bounds, ["filters.zcdp", "guarantees.zcdp"]),
    "cks20_epsilon_ball": (bounds, ["guarantees.zcdp", "guarantees.rdp"]),
    "cks20_delta_upper": (bounds, ["guarantees.zcdp"]),
    "NormalMixtureBoundary": (boundaries, ["odometers.w23", "evalues.expost", "cli.expost"]),
    "HowardStitching": (boundaries, ["odometers.w23"]),
    "StitchedBoundary": (boundaries, ["cli.expost"]),
    "VilleBoundary": (boundaries, ["evalues.expost", "cli.expost"]),
    "exact_delta_split": (None, ["filters.w23", "filters.zcdp", "odometers.w23"]),
    "implies": (None, ["ledger.base"]),
    "require": (None, ["guarantees.composition"]),
    "within": (None, ["interactive.filtered"]),
}


def _definitions() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for path in SRC.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:  # module-level definitions
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                found.setdefault(node.name, []).append(str(path.relative_to(SRC)))
    return found


@pytest.mark.parametrize("name", sorted(HOMES))
def test_each_closed_form_is_defined_once_and_imported_from_its_home(name: str) -> None:
    import importlib

    places = _definitions().get(name, [])
    assert len(places) == 1, f"{name} is defined in {places}"
    home = importlib.import_module("adaptive_dp." + places[0][:-3].replace("/", "."))
    expected_home, users = HOMES[name]
    if expected_home is not None:
        assert home is expected_home
    for user in users:
        module = importlib.import_module(f"adaptive_dp.{user}")
        assert getattr(module, name) is getattr(home, name), (user, name)


def test_no_private_coercion_module_is_left() -> None:
    assert not (SRC / "odometers" / "_coerce.py").exists()
    assert not (SRC / "odometers" / "_fastmath.py").exists()


def _ledger_classes() -> list[type]:
    out = []
    for package in (filters, odometers):
        for name in package.__all__:
            value = getattr(package, name)
            if inspect.isclass(value) and issubclass(value, Ledger):
                out.append(value)
    return out


STATES = [FilterState, AccumulatorState, OdometerState]
SPEND_PARAMETERS = {"spend", "next"}


@pytest.mark.parametrize(
    "owner", _ledger_classes() + STATES, ids=lambda c: c.__name__
)
def test_every_spend_parameter_is_typed_with_the_spend_type(owner: type) -> None:
    checked = 0
    for name, member in inspect.getmembers(owner, inspect.isfunction):
        if name.startswith("_"):
            continue
        hints = typing.get_type_hints(member)
        for parameter in inspect.signature(member).parameters.values():
            hint = hints.get(parameter.name)
            assert hint is not object and hint is not typing.Any, (owner, name, parameter)
            if parameter.name in SPEND_PARAMETERS:
                assert hint == Spend, (owner, name, parameter.name, hint)
                checked += 1
    assert checked >= 1, f"{owner.__name__} has no spend parameter"


@pytest.mark.parametrize(
    "owner", [FastFilterState, FloatFilterState, FastOdometerState], ids=lambda c: c.__name__
)
def test_fast_states_take_no_untyped_parameter(owner: type) -> None:
    for name, member in inspect.getmembers(owner, inspect.isfunction):
        if name.startswith("_"):
            continue
        hints = typing.get_type_hints(member)
        for parameter in inspect.signature(member).parameters.values():
            if parameter.name == "self":
                continue
            assert hints.get(parameter.name) not in (None, object, typing.Any), (name, parameter)


def test_every_rule_is_importable_from_its_package() -> None:
    for name in ("UnifiedFilter", "BrownianFilter", "ExPostFilter", "AccumulatorFilter",
                 "W23Filter", "ZCDPFilter", "ZCDPSumFilter", "RDPFilter", "GDPFilter",
                 "RRUV16Filter", "BasicFilter", "PureDPFilter"):
        assert name in filters.__all__
    for name in ("W23StitchedOdometer", "W23MixtureOdometer", "ApproxDPAccumulator",
                 "BasicAccumulator", "ZCDPAccumulator", "RDPAccumulator"):
        assert name in odometers.__all__


@pytest.mark.parametrize("owner", _ledger_classes(), ids=lambda c: c.__name__)
def test_deltas_are_keyword_only(owner: type) -> None:
    for parameter in inspect.signature(owner).parameters.values():
        if "delta" in parameter.name:
            assert parameter.kind is inspect.Parameter.KEYWORD_ONLY, (owner, parameter.name)
