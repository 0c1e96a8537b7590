"""The judge: what runs a claim and decides it, knowing nothing of which claims exist.

- :mod:`.claim`: the ``Claim``, ``Twin`` and ``Setup`` values a registry hands the judge;
- :mod:`.simulate`: vectorised adaptive interactions on worst-case neighbours and the batch
  rule protocol for filters, accumulators and odometers; :mod:`.batch`: the vectorised
  concurrent filtered composition of interactive children;
- :mod:`.adversaries`: strategy families of the ``Adversary`` protocol;
- :mod:`.estimators` and :mod:`.verdicts`: error-controlled estimates at 1 - 1e-6 and the
  violated / holds / weak rules;
- :mod:`.runner`: profiles, seeding and sharding, given a registry.
"""
