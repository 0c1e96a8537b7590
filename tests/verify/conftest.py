"""Make the Hypothesis strategies module beside these tests importable.

The suite runs with ``--import-mode=importlib``, which does not put test directories
on ``sys.path``; ``verify_strategies`` is shared by several test modules here.
"""

from __future__ import annotations

import sys
from pathlib import Path

_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)
