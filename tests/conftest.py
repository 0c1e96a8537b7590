"""Shared test configuration: Hypothesis profiles (docs/design.md, profiles).

The ``ci`` profile (the default here and on CI) is derandomized, without deadline or
example database, so a run is reproducible; ``dev`` explores with fresh randomness.
Select with ``HYPOTHESIS_PROFILE=dev``.
"""

from __future__ import annotations

import os
from typing import Any

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    derandomize=True,
    deadline=None,
    database=None,
    max_examples=60,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", deadline=None, max_examples=200)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_collection_modifyitems(config: Any, items: list[Any]) -> None:
    """Browser tests need a built site and Chromium: collected only when ``-m`` names them."""
    if "browser" in (config.option.markexpr or ""):
        return
    keep = [item for item in items if item.get_closest_marker("browser") is None]
    if len(keep) < len(items):
        config.hook.pytest_deselected(items=[i for i in items if i not in keep])
        items[:] = keep
