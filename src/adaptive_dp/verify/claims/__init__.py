"""The claim registry: ``REGISTRY: Mapping[str, Claim]`` keyed by ``<spec id>/<scenario>``.

Every module of this package other than :mod:`.base` (and private ``_*`` modules)
exposes ``CLAIMS: tuple[Claim, ...]`` and is discovered automatically: a later issue
registers its claims by adding a module here. The foundation's modules come first, in
the order of :data:`MODULES` (one per source tag: :mod:`.r23`, :mod:`.cs2080`,
:mod:`.ext`), then any other module alphabetically. A claim id registered twice is an
error. Values are described in :mod:`adaptive_dp.verify.claims.base`.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Mapping
from types import MappingProxyType

from adaptive_dp.verify.claims.base import Claim, Setup, Twin

__all__ = ["MODULES", "REGISTRY", "Claim", "Setup", "Twin", "claim_modules"]

MODULES = ("r23", "cs2080", "ext")
"""The foundation's claim modules, in registry order."""


def claim_modules() -> tuple[str, ...]:
    """The names of the claim modules, in registry order."""
    found = {m.name for m in pkgutil.iter_modules(__path__)
             if m.name != "base" and not m.name.startswith("_")}
    first = tuple(m for m in MODULES if m in found)
    return first + tuple(sorted(found - set(first)))


def _collect() -> Mapping[str, Claim]:
    found: dict[str, Claim] = {}
    for name in claim_modules():
        module = importlib.import_module(f"{__name__}.{name}")
        claims = getattr(module, "CLAIMS", None)
        if claims is None:
            raise RuntimeError(f"claim module {name!r} defines no CLAIMS")
        for claim in claims:
            if claim.id in found:
                raise RuntimeError(f"claim {claim.id!r} registered twice")
            found[claim.id] = claim
    return MappingProxyType(found)


REGISTRY: Mapping[str, Claim] = _collect()
