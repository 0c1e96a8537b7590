"""The claim registry: ``REGISTRY: Mapping[str, Claim]`` keyed by ``<spec id>/<scenario>``.

One module per source tag (:mod:`.r23`, :mod:`.cs2080`, :mod:`.ext`), each exposing
``CLAIMS``; later issues add their modules to :data:`MODULES`. Values are described in
:mod:`adaptive_dp.verify.claims.base`.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from types import MappingProxyType

from adaptive_dp.verify.claims.base import Claim, Setup, Twin

__all__ = ["MODULES", "REGISTRY", "Claim", "Setup", "Twin"]

MODULES = ("r23", "cs2080", "ext")


def _collect() -> Mapping[str, Claim]:
    found: dict[str, Claim] = {}
    for name in MODULES:
        module = importlib.import_module(f"{__name__}.{name}")
        for claim in module.CLAIMS:
            if claim.id in found:
                raise RuntimeError(f"claim {claim.id!r} registered twice")
            found[claim.id] = claim
    return MappingProxyType(found)


REGISTRY: Mapping[str, Claim] = _collect()
