"""Applications: R23 section 7, releasing counts within a relative error (doubling method
with R23-Thm2 versus Brownian noise reduction with R23-Thm6), the exponential mechanism
charged per EXT-CR21, data loaders and the experiment driver.

Import the submodules: :mod:`.relative_error`, :mod:`.data`, :mod:`.experiment`; the
exponential mechanism lives in :mod:`adaptive_dp.mechanisms.exponential`.
"""
