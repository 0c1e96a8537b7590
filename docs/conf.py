"""Sphinx configuration of the adaptive_dp documentation (Sphinx + MyST, MathJax).

Build: ``sphinx-build -W -b html docs docs/_build/html`` from the repository root.
The spec catalogue pages are rendered at build time from ``spec/*.toml`` by the local
extension ``_ext/spec_catalogue.py`` (no generated files are written into ``docs/``).
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE / "_ext"))
sys.path.insert(0, str(ROOT / "src"))

project = "adaptive_dp"
author = "adaptive_dp contributors"
copyright = "2026, adaptive_dp contributors"

extensions = [
    "myst_nb",
    "sphinx.ext.autodoc",
    "sphinx.ext.mathjax",
    # MathJax 3 served from the site itself (no CDN: pages typeset offline and in CI)
    "sphinx-mathjax-offline",
    "spec_catalogue",
    "cli_reference",
    "proof_pages",
]

# MyST-NB reads every .md page; a page whose front matter declares a ``mystnb`` kernel is a
# notebook, executed at build time (cached under _build/.jupyter_cache; each under a minute).
nb_execution_mode = "cache"
nb_execution_cache_path = str(HERE / "_build" / ".jupyter_cache")
nb_execution_timeout = 120
nb_execution_raise_on_error = True
nb_execution_show_tb = True
root_doc = "index"
exclude_patterns = ["_build", "_ext", "results/**", "README.md"]

myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
myst_heading_anchors = 3
myst_dmath_double_inline = True

autodoc_member_order = "bysource"
autodoc_typehints = "description"

html_theme = "furo"
html_static_path: list[str] = []
html_title = "adaptive_dp"
