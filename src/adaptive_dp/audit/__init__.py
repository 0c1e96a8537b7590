"""Grading other libraries' accounting claims (AUD-Verdict): a peer's claim
(:mod:`~adaptive_dp.audit.claims`), its verdict against certified bounds
(:mod:`~adaptive_dp.audit.verdict`), the adapters that run a peer
(:mod:`~adaptive_dp.audit.adapters`), the gallery of known failures
(:mod:`~adaptive_dp.audit.gallery`), the parameter sweep (:mod:`~adaptive_dp.audit.sweep`)
and the report (:mod:`~adaptive_dp.audit.report`)."""
