"""The progress bar of the long runs (``verify``, ``reproduce``): tqdm on standard error,
shown only when standard error is a terminal, and never when the run's JSON goes to
standard output."""

from __future__ import annotations

import sys
from typing import Any

from tqdm import tqdm

__all__ = ["progress"]


def progress(total: int, unit: str, *, quiet: bool = False) -> Any:
    """A bar of ``total`` steps counted in ``unit`` (tqdm decides by the terminal)."""
    return tqdm(total=total, file=sys.stderr, unit=unit, leave=False,
                disable=True if quiet else None)
