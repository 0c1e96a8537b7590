"""The registry: every registered claim with its negative controls, keyed by
``<spec id>/<scenario>`` (``REGISTRY``), and the one place where claim modules are found.

Every module of :mod:`.claims` (other than private ``_*`` modules) exposes
``CLAIMS: tuple[Claim, ...]`` and is discovered here: a new source of claims is a new
module there. The foundation's modules come first, in the order of :data:`MODULES` (one
per source tag), then every other module alphabetically; a claim id registered twice is an
error. The registry uses the judge (:mod:`adaptive_dp.verify.judge`: the ``Claim`` and
``Setup`` values, simulators, estimators); the judge never imports the registry
(docs/design.md, import direction). :mod:`.bounds` holds the bounds under test and
:mod:`.twins` the negative controls, one module per subject.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Mapping
from types import MappingProxyType

from adaptive_dp.verify.judge.claim import Claim
from adaptive_dp.verify.registry import claims

__all__ = ["MODULES", "REGISTRY", "claim_modules", "load"]

MODULES = ("r23", "cs2080", "ext")
"""The foundation's claim modules, in registry order."""


def claim_modules() -> tuple[str, ...]:
    """The names of the claim modules, in registry order."""
    found = {m.name for m in pkgutil.iter_modules(claims.__path__) if not m.name.startswith("_")}
    first = tuple(m for m in MODULES if m in found)
    return first + tuple(sorted(found - set(first)))


def _collect() -> Mapping[str, Claim]:
    found: dict[str, Claim] = {}
    for name in claim_modules():
        module = importlib.import_module(f"{claims.__name__}.{name}")
        registered = getattr(module, "CLAIMS", None)
        if registered is None:
            raise RuntimeError(f"claim module {name!r} defines no CLAIMS")
        for claim in registered:
            if claim.id in found:
                raise RuntimeError(f"claim {claim.id!r} registered twice")
            found[claim.id] = claim
    return MappingProxyType(found)


REGISTRY: Mapping[str, Claim] = _collect()


def load() -> Mapping[str, Claim]:
    """The registry (a module-level function, so worker processes can be handed it)."""
    return REGISTRY
