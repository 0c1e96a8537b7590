"""Cross-checks of the loss oracles with dp_accounting (peers marker): R23-Def2.5 /
EXT-DRS19 Gaussian hockey-stick (same exact formula: agreement to a few ulps) and
R23-Lem2.1 Laplace (exact single; dp_accounting's pessimistic discretised k-fold
composition must lie above our exact value and close to it)."""

from __future__ import annotations

import pytest

from adaptive_dp.loss import GaussianPLD, LaplacePLD, laplace_composed_hockey_stick

pld_mech = pytest.importorskip("dp_accounting.pld.privacy_loss_mechanism")
pld_dist = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")

pytestmark = pytest.mark.peers


@pytest.mark.parametrize(("sigma", "eps"), [(1.0, 1.0), (0.5, 0.2), (3.0, 0.05), (0.8, 4.0)])
def test_gaussian_agrees_with_dp_accounting(sigma: float, eps: float) -> None:
    peer = pld_mech.GaussianPrivacyLoss(standard_deviation=sigma, sensitivity=1.0)
    assert GaussianPLD(1.0 / sigma).hockey_stick(eps) == pytest.approx(
        peer.get_delta_for_epsilon(eps), rel=1e-9
    )


@pytest.mark.parametrize(("scale", "eps"), [(2.0, 0.1), (1.0, 0.0), (0.5, 1.5)])
def test_laplace_agrees_with_dp_accounting(scale: float, eps: float) -> None:
    peer = pld_mech.LaplacePrivacyLoss(parameter=scale, sensitivity=1.0)
    assert LaplacePLD(1.0 / scale).hockey_stick(eps) == pytest.approx(
        peer.get_delta_for_epsilon(eps), rel=1e-12
    )


def test_laplace_composition_below_pessimistic_peer() -> None:
    peer = pld_dist.from_laplace_mechanism(
        parameter=2.0, sensitivity=1.0, value_discretization_interval=1e-4
    ).self_compose(5)
    for t in [0.1, 0.5, 1.2]:
        ours = laplace_composed_hockey_stick(0.5, 5, t)
        theirs = peer.get_delta_for_epsilon(t)
        assert ours <= theirs <= ours + 1e-4
