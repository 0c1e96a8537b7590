"""Interactive mechanisms and their concurrent composition (Haney et al. 2023, H23
sections 1, 2 and 4; R23-Thm3).

- :mod:`.mechanism`: H23-Def1.4 state machines, launch requests, the ``privacy_loss``
  query (H23-Def1.12), refusal messages, concrete interactive mechanisms;
- :mod:`.sampling`: exact samplers (rational coins, the discrete Gaussian) for what the
  shells release (EXT-DiscreteGaussian);
- :mod:`.interaction`: H23-Def1.5 / Def1.6 interaction and view, exact view
  distributions;
- :mod:`.privacy`: H23-Def1.7, Def2.1, Def2.2 distances and checks;
- :mod:`.concurrent`: H23-Def2.4 / Alg1, H23-Comp, H23-Thm1.8 / R23-Thm1 and H23-Thm4.5;
  :mod:`.filtered`: Def2.5 / Alg2, Def2.7 / Alg3;
  :mod:`.odometer`: Def2.9 / Alg4, Def2.13 / Alg6; :mod:`.truncated`: Def2.10 / Alg5;
- :mod:`.pim`: Def2.15, Def2.16 / Alg7, Algs 8-15;
- :mod:`.liftings`: H23-Thm3.4, Cor3.5, Thm3.6 and section 4;
- :mod:`.shell`: the analyst-facing, lock-protected objects;
- :mod:`.r23_thm3`: R23-Thm3;
- :mod:`.games`: H23-Lem2.3 on small finite games (deterministic adversaries suffice);
- :mod:`.adversary`: the batch ``Adversary`` protocol of the verification harness.
"""
