"""Locate the shipped ``spec/`` and ``proofs/`` folders.

In a wheel they are force-included as ``adaptive_dp/_data/<name>``; in a source
checkout (editable install) they sit at the repository root.
"""

from __future__ import annotations

from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path

__all__ = ["data_dir"]


def data_dir(name: str) -> Traversable:
    """The folder ``name`` ("spec" or "proofs") of the installed package."""
    packaged = files("adaptive_dp") / "_data" / name
    if packaged.is_dir():
        return packaged
    checkout = Path(__file__).resolve().parents[2] / name
    if checkout.is_dir():
        return checkout
    raise FileNotFoundError(f"adaptive_dp data folder {name!r} is not installed")
