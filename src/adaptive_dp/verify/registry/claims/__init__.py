"""The claim modules: each (other than private ``_*`` modules) exposes
``CLAIMS: tuple[Claim, ...]``; :mod:`adaptive_dp.verify.registry` discovers them."""
