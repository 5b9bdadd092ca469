"""Owners per teacher feature (SPEC §7): the ownership matrix, the final owner of every feature,
co-alignment and pruning — checked against an independent recomputation from the final state."""

from __future__ import annotations

import numpy as np
import pytest

from gaugecli.core.analyses.observables import observe
from gaugecli.core.analyses.ownership import FUNCTION_LEVEL, feature_owners
from gaugecli.core.model.metrics import final_owner
from gaugecli.core.model.state import Network
from gaugecli.experiments.common import integrate_ensemble
from gaugecli.experiments.config import DynamicsConfig, ModelConfig
from gaugecli.experiments.initial import initial_condition


def _run(k: int, deltas: tuple[float, ...], seed: int, d: int = 8):
    model = ModelConfig(d=d, k=k)
    a0, W0 = initial_condition(model, np.array([deltas]), "random", None, seed)
    traj, full = integrate_ensemble(model, DynamicsConfig(rtol=1e-8), Network(a0, W0))
    return model, traj, observe(traj, full, (0,)), a0[0], W0[0]


def _owners_by_hand(a: np.ndarray, W: np.ndarray, k: int, eps: float) -> list[int | None]:
    """From the final ``a (m,)``, ``W (m, d)`` and the teacher ``v_l = e_l`` alone."""
    norms = np.sqrt((W**2).sum(axis=1))
    c = a * norms
    out: list[int | None] = []
    for f in range(k):
        cos = W[:, f] / norms  # u_j · e_f
        aligned = [j for j in range(len(a)) if cos[j] >= 1 - eps]
        out.append(max(aligned, key=lambda j: c[j]) if aligned else None)
    return out


@pytest.mark.parametrize(
    ("k", "deltas", "seed"),
    [(2, (1.0, -1.0, 0.5, -0.5, 2.0), 3), (3, (0.3, -2.0, 1.0, -0.1, 0.7, -1.0), 11), (2, (0.0, 0.0, 0.0, 0.0), 5)],
)
def test_the_owner_of_every_feature_matches_a_recomputation_from_the_final_state(k, deltas, seed):
    model, traj, obs, _, _ = _run(k, deltas, seed)
    W_end = traj.input_weights()[0, -1]
    a_end = traj.a[0, -1]
    expected = _owners_by_hand(a_end, W_end, k, model.eps_align)
    assert obs.owners == expected
    assert all(o is not None for o in expected)  # these runs specialise every feature (else the test is empty)
    assert [o for o in obs.computed_owners] == expected
    assert obs.feature_specialized == [True] * k
    # the ownership matrix is c_j α_jk at every saved time: at t = 0 from the start, by hand
    a0, W0 = traj.a[0, 0], traj.input_weights()[0, 0]
    norms0 = np.sqrt((W0**2).sum(axis=1))
    by_hand = (a0 * norms0)[:, None] * (W0[:, :k] / norms0[:, None])
    assert obs.ownership.shape == (obs.t.size, len(deltas), k)
    np.testing.assert_allclose(obs.ownership[0], by_hand, rtol=1e-12, atol=1e-15)
    # k = 1's owner keeps its meaning: the aligned neuron with the largest c over every feature
    owner, _ = final_owner(obs.coefficient[-1], obs.alignment[-1], model.eps_align)
    assert obs.owner == int(owner)


def test_pruned_and_coaligned_neurons_and_the_per_feature_nonowner_norm():
    # δ > 0 beside the owner of v_1 co-aligns and shares it (C7's boundary); −δ neurons are pruned or not
    model, traj, obs, _, _ = _run(2, (1.0, -1.0, 0.5, -0.5), 3)
    W_end, a_end = traj.input_weights()[0, -1], traj.a[0, -1]
    norms = np.sqrt((W_end**2).sum(axis=1))
    c, cos = a_end * norms, W_end[:, :2] / norms[:, None]
    aligned = cos >= 1 - model.eps_align
    for j in range(4):
        assert obs.pruned[j] == (not aligned[j].any() and abs(c[j]) <= FUNCTION_LEVEL)
        for f in range(2):
            assert obs.coaligned[j][f] == (aligned[j, f] and abs(c[j]) > FUNCTION_LEVEL and j != obs.owners[f])
    assert any(any(row) for row in obs.coaligned)  # this start co-aligns (measured: neuron 2 on v_2)
    # P_k at the end by Monte Carlo over x ~ N(0, I): the neurons nearest to v_k other than its owner
    rng = np.random.default_rng(0)
    X = rng.standard_normal((200_000, model.d))
    nearest = np.argmax(cos, axis=1)
    for f in range(2):
        rest = [j for j in range(4) if nearest[j] == f and j != obs.owners[f]]
        g = np.maximum(X @ W_end[rest].T, 0.0) @ a_end[rest] if rest else np.zeros(len(X))
        mc = np.sqrt(np.mean(g**2))
        assert obs.feature_nonowner_norm[-1, f] == pytest.approx(mc, rel=0.02, abs=1e-12)


def test_a_tie_has_no_owner_and_one_feature_keeps_the_fields_empty():
    groups = [[0, 1]]
    c = np.array([0.5, 0.5, 0.1])
    alpha = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 0.3]])
    end = feature_owners(c, alpha, 0.01, groups)
    assert end.owners == [None, None]  # v_1: tied owner; v_2: none aligned
    assert end.tied == [True, False] and end.specialized == [True, False]
    assert end.computed_owners == [0, 2]  # argmax's choice; where none is aligned, argmax c·α
    _, _, obs, _, _ = _run(1, (1.0, -1.0), 2, d=4)
    assert obs.owners is None and obs.ownership is None and obs.owner is not None
