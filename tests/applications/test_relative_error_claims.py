"""The recording and the loss oracle of the R23-DoublingMethod and
R23-BrownianRelativeError claims (verify/registry/claims/application.py).

- recording what a run releases does not change the run (same seed, same outcome);
- the vectorised selection probabilities equal the mpmath Gumbel-max identity;
- the transcript lines up with the recorded releases: one check per doubling attempt, at
  the sigma its charge rho = 1/(2 sigma^2) implies, and the last check of each Brownian
  round at the charged time value t^(T).
"""

from __future__ import annotations

import numpy as np
import pytest

from adaptive_dp.applications.relative_error import Settings, run_method
from adaptive_dp.verify.registry.claims.application import (
    RELATIVE_X,
    RecordingSettings,
    _log_selection,
    _relative_options,
    selection_log_probabilities,
)

OPTIONS = dict(_relative_options("quick"))


@pytest.mark.parametrize("method", ["doubling", "brownian"])
def test_recording_does_not_change_the_run(method: str) -> None:
    histograms = np.broadcast_to(np.asarray(RELATIVE_X, dtype=np.float64), (200, 4))
    plain = run_method(method, histograms, Settings(**OPTIONS),  # type: ignore[arg-type]
                       np.random.default_rng(5))
    recorded = run_method(method, histograms,
                          RecordingSettings(**OPTIONS),  # type: ignore[arg-type]
                          np.random.default_rng(5))
    assert np.array_equal(plain.returned, recorded.returned)
    assert np.array_equal(plain.eps2_spent, recorded.eps2_spent)
    assert len(plain.steps) == len(recorded.steps)


def test_selection_probabilities_match_the_gumbel_max_identity() -> None:
    counts = np.array([21.0, 20.0, 20.0, 17.0])
    available = np.array([[1.0, 1.0, 0.0, 1.0]])
    expected = selection_log_probabilities((21, 20, 17), 4.0)
    for pick, value in zip((0, 1, 3), expected, strict=True):
        got = _log_selection(counts, available, np.array([float(pick)]), 4.0)[0]
        assert got == pytest.approx(value, rel=1e-12)


@pytest.mark.parametrize("method", ["doubling", "brownian"])
def test_transcript_lines_up_with_the_recorded_releases(method: str) -> None:
    histograms = np.broadcast_to(np.asarray(RELATIVE_X, dtype=np.float64), (50, 4))
    settings = RecordingSettings(**OPTIONS)  # type: ignore[arg-type]
    outcome = run_method(method, histograms, settings, np.random.default_rng(2))
    events = settings.recorder.events
    selects = [i for i, e in enumerate(events) if e[0] == "select"]
    charges = [s for s in outcome.steps if s.kind == ("zcdp" if method == "doubling" else "bm")]
    if method == "doubling":  # one charge per release, an attempt's rho = 1/(2 sigma^2)
        assert len(events) == len(outcome.steps)
        for (kind, _, sigma), step in zip(events, outcome.steps, strict=True):
            if kind == "check":
                rows = step.admitted
                assert np.allclose(0.5 / sigma[rows] ** 2, step.values[rows, 0], rtol=1e-12)
        return
    bm_rounds = 0
    for start, end in zip(selects, [*selects[1:], len(events)], strict=True):
        if end - start > 1:  # the round ran a BM: its last check is at t^(T)
            step = charges[bm_rounds]
            _, _, sigma = events[end - 1]
            rows = step.admitted
            assert np.allclose(sigma[rows] ** 2, step.values[rows, 1], rtol=1e-12)
            bm_rounds += 1
    assert bm_rounds == len(charges) > 0
