"""The judge: simulators, estimators, verdicts, the claim registry and negative controls.

Nothing but :mod:`adaptive_dp.cli` imports this package (docs/design.md, import direction).

- :mod:`.simulate`: vectorised adaptive interactions on worst-case neighbours, the batch
  rule protocol for filters, accumulators and odometers;
- :mod:`.adversaries`: strategy families of the ``Adversary`` protocol;
- :mod:`.estimators` and :mod:`.verdicts`: error-controlled estimates at 1 - 1e-6 and
  the violated / holds / weak rules;
- :mod:`.bounds`: the bounds under test, with one hook per ingredient;
- :mod:`.claims` (``REGISTRY``) and :mod:`.twins`: claims and negative controls;
- :mod:`.runner`: profiles, seeding and sharding, used by ``adaptive-dp verify``.
"""
