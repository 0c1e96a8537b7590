"""adaptive_dp: a reference implementation of adaptive privacy composition.

Privacy filters, accumulators and odometers; ex-post privacy and noise reduction;
concurrent composition of interactive mechanisms; certified bound calculators. See
``adaptive-dp spec`` for the catalogue of implemented definitions and theorems.
"""

__version__ = "0.1.0"
