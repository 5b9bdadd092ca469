"""``observe()`` on a gradient-flow trajectory against independent estimates.

The trajectory starts from a generic (non-duplicate) point with mixed gauges, so that
every neuron moves differently. Each observable is checked against a route that does
not go through the library's formula: Monte Carlo for the loss and the non-owner norm,
a finite difference of the loss from a separate tight-tolerance integration for the
dissipation, the raw parameters for ``c`` and ``δ``, and the integrator's crossing
times for the owner and ``T_spec``.
"""

from __future__ import annotations

import numpy as np
import pytest

from gaugecli.core.analyses.observables import (
    DISSIPATION_IDENTITY_RTOL,
    RunObservables,
    dissipated,
    observe,
    resolved_residual,
)
from gaugecli.core.integrate.flow import FlowOptions, gradient_flow
from gaugecli.core.model.gauge import duplicate_initial_condition, initial_direction, parameters_from_function
from gaugecli.core.model.model import standard_model
from gaugecli.core.model.state import Network
from gaugecli.core.reduced.planar import solve_reduced

D = 4
TEACHER = standard_model(D)
DELTAS = np.array([2.0, -1.0, 0.5])  # owner-to-be (δ = 2), an input-heavy and a mildly output-heavy neuron
EPS = 0.01
T_MAX = 30.0
TIGHT = FlowOptions(rtol=1e-11, atol=1e-14)
MC_SAMPLES = 400_000


def _initial_point() -> tuple[np.ndarray, np.ndarray]:
    """Three neurons near ``u0 = e2`` with distinct directions and coefficients."""
    rng = np.random.default_rng(7)
    u0 = initial_direction(TEACHER, np.pi / 2)
    U = u0 + 0.3 * rng.standard_normal((3, D))
    c = np.array([0.04, 0.03, 0.02])
    return parameters_from_function(c, U, DELTAS)


@pytest.fixture(scope="module")
def run() -> tuple[object, RunObservables]:
    a0, W0 = _initial_point()
    traj = gradient_flow(Network(a0, W0), TEACHER, T_MAX, eps_align=EPS, options=TIGHT)
    return traj, observe(traj, TEACHER)


@pytest.fixture(scope="module")
def mc_inputs() -> np.ndarray:
    return np.random.default_rng(20260801).standard_normal((MC_SAMPLES, D))


def _net(a: np.ndarray, W: np.ndarray, X: np.ndarray) -> np.ndarray:
    return np.maximum(X @ W.T, 0.0) @ a


def _mean_and_se(values: np.ndarray) -> tuple[float, float]:
    return float(np.mean(values)), float(np.std(values, ddof=1) / np.sqrt(values.size))


def _time_index(obs: RunObservables, t: float) -> int:
    return int(np.argmin(np.abs(obs.t - t)))


def test_loss_matches_monte_carlo_at_saved_times(run, mc_inputs) -> None:
    traj, obs = run
    X = mc_inputs
    y = TEACHER(X)
    assert obs.t_spec is not None
    for t in (0.0, 0.5 * obs.t_spec, 3.0 * obs.t_spec):
        k = _time_index(obs, t)
        r = _net(traj.a[k], traj.W[k], X) - y
        mean, se = _mean_and_se(0.5 * r**2)
        assert abs(obs.loss[k] - mean) <= 4.0 * se, (obs.t[k], obs.loss[k], mean, se)
        assert se < 0.01 * mean  # the check has teeth: the estimate is to ~1%


def test_coefficient_and_norms_are_the_parameters(run) -> None:
    traj, obs = run
    norm_w = np.linalg.norm(traj.W, axis=-1)
    np.testing.assert_allclose(obs.coefficient, traj.a * norm_w, rtol=1e-14, atol=1e-300)
    np.testing.assert_allclose(obs.norm_a, np.abs(traj.a), rtol=0, atol=0)
    np.testing.assert_allclose(obs.norm_w, norm_w, rtol=1e-15)
    np.testing.assert_allclose(obs.imbalance, traj.a**2 - norm_w**2, rtol=1e-12, atol=1e-14)


def test_imbalance_is_conserved(run) -> None:
    _, obs = run
    assert obs.coefficient.shape == obs.imbalance.shape == (obs.t.size, 3)
    np.testing.assert_allclose(obs.imbalance, np.broadcast_to(DELTAS, obs.imbalance.shape), rtol=0, atol=1e-8)
    assert obs.imbalance_drift <= 1e-8


def test_reaction_plus_transport_is_minus_dl_dt(run) -> None:
    """``R + T`` at an interior time against a central difference of the loss from a
    separate integration started at that time (step h, error O(h²))."""
    traj, obs = run
    k = _time_index(obs, 0.5 * obs.t_spec)
    assert 0 < k < obs.t.size - 1
    a_k, W_k = traj.a[k], traj.W[k]
    h = 1e-3 * obs.t_spec
    far = observe(gradient_flow(Network(a_k, W_k), TEACHER, 2 * h, eps_align=EPS, options=TIGHT), TEACHER)
    mid = observe(gradient_flow(Network(a_k, W_k), TEACHER, h, eps_align=EPS, options=TIGHT), TEACHER)
    assert far.t[-1] == pytest.approx(2 * h, rel=1e-12)
    assert mid.t[-1] == pytest.approx(h, rel=1e-12)
    assert far.loss[0] == obs.loss[k]
    minus_dldt = (far.loss[0] - far.loss[-1]) / (2 * h)
    dissipated = mid.reaction[-1] + mid.transport[-1]
    assert minus_dldt > 0
    assert dissipated == pytest.approx(minus_dldt, rel=1e-4)
    # the split is exact along the whole trajectory, and both parts are positive
    assert resolved_residual(obs) <= 1e-10
    assert np.all(obs.reaction >= 0) and np.all(obs.transport >= 0)
    np.testing.assert_allclose(obs.reaction + obs.transport, obs.grad_norm_sq, rtol=1e-9, atol=1e-20)


def test_owner_and_t_spec_agree_with_crossing_times(run) -> None:
    traj, obs = run
    crossing = traj.crossing_times
    np.testing.assert_array_equal(obs.crossing_times, crossing)
    # final owner by the SPEC rule, recomputed from the last sample
    aligned = np.flatnonzero(obs.alignment[-1] >= 1 - EPS)
    assert aligned.size >= 1 and obs.specialized
    assert obs.owner == int(aligned[np.argmax(obs.coefficient[-1, aligned])])
    assert obs.owner == 0  # the largest δ
    assert obs.t_spec == crossing[obs.owner]
    # T_spec is on the output grid (event times are inserted), at the threshold exactly
    k = int(np.flatnonzero(obs.t == obs.t_spec)[0])
    assert obs.alignment[k, obs.owner] == pytest.approx(1 - EPS, abs=1e-9)
    assert np.all(obs.alignment[:k, obs.owner] < 1 - EPS)
    assert np.all(obs.alignment[k + 1 :, obs.owner] >= 1 - EPS - 1e-9)
    # every neuron that crossed did so at its first sample above threshold
    for j in range(3):
        above = np.flatnonzero(obs.alignment[:, j] >= 1 - EPS - 1e-9)
        if np.isnan(crossing[j]):
            assert above.size == 0
        else:
            assert obs.t[above[0]] == pytest.approx(crossing[j], rel=1e-9)
    # the instantaneous owner argmax_j c_j α_j
    np.testing.assert_array_equal(obs.instantaneous_owner, np.argmax(obs.coefficient * obs.alignment, axis=-1))


def test_nonowner_norm_matches_monte_carlo(run, mc_inputs) -> None:
    traj, obs = run
    X = mc_inputs
    k = _time_index(obs, 0.5 * obs.t_spec)
    keep = np.arange(3) != obs.owner
    g = _net(traj.a[k][keep], traj.W[k][keep], X)
    mean, se = _mean_and_se(g**2)
    assert obs.nonowner_norm[k] > 0.01
    assert abs(obs.nonowner_norm[k] ** 2 - mean) <= 4.0 * se, (obs.nonowner_norm[k] ** 2, mean, se)
    # at t = 0 with no owner removed the same formula would be the student's norm; with
    # the owner removed it is the other two neurons' norm
    g0 = _net(traj.a[0][keep], traj.W[0][keep], X)
    mean0, se0 = _mean_and_se(g0**2)
    assert abs(obs.nonowner_norm[0] ** 2 - mean0) <= 4.0 * se0


# ------------------------------------------------------------------------------------
# dissipation integrated over the run (SPEC §6, "C3, reading")


def test_dissipated_reaction_plus_transport_is_the_loss_drop(run) -> None:
    """``∫R dt + ∫T dt = L(0) − L(t_end)``: ``−dL/dt = R + T`` integrated — the quadrature
    of R and T against the closed-form loss at two instants (mixed gauges, m = 3)."""
    _, obs = run
    drop = obs.loss[0] - obs.loss[-1]
    assert obs.dissipated_reaction > 0 and obs.dissipated_transport > 0
    spent = obs.dissipated_reaction + obs.dissipated_transport
    assert spent == pytest.approx(drop, rel=DISSIPATION_IDENTITY_RTOL)


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_dissipated_integrals_match_the_reduced_solver(sign: float) -> None:
    """``∫R dt`` and ``∫T dt`` of the full flow (d = 16, output grid, quadrature) against the
    reduced (c, θ) equations, which integrate R and T alongside the state (rtol 1e-12).
    Measured agreement ≤ 6e-10 relative for D = 1 … 64; the trapezoid in t is off by ~5e-4."""
    teacher = standard_model(16)
    delta = np.array([[sign * 4.0]])
    a0, W0 = duplicate_initial_condition(teacher, delta, 0.1, np.pi / 2)
    traj = gradient_flow(Network(a0, W0), teacher, 200.0 * 5.0, options=FlowOptions(rtol=1e-10, atol=1e-13))
    obs = observe(traj, teacher, (0,))
    ref = solve_reduced(delta[0], t_max=1e4, rtol=1e-12, atol=1e-15)
    assert ref.converged and obs.converged
    assert obs.dissipated_reaction == pytest.approx(ref.dissipated_reaction, rel=1e-8)
    assert obs.dissipated_transport == pytest.approx(ref.dissipated_transport, rel=1e-8)
    # and the reading of SPEC §6: +D mostly reaction, −D mostly transport
    share = obs.dissipated_reaction / (obs.dissipated_reaction + obs.dissipated_transport)
    assert (share > 0.5) == (sign > 0)
    assert obs.dissipated_reaction + obs.dissipated_transport == pytest.approx(
        obs.loss[0] - obs.loss[-1], rel=DISSIPATION_IDENTITY_RTOL
    )


def test_dissipated_leaves_out_the_inserted_crossing_times() -> None:
    """On a log grid with a crossing time inserted the integral is that of the log-spaced nodes."""
    t = np.concatenate([[0.0], np.geomspace(1e-6, 10.0, 99)])
    with_event = np.unique(np.concatenate([t, [0.123]]))
    R, T = np.exp(-with_event), 2.0 * np.exp(-with_event / 3.0)
    keep = np.isin(with_event, t)
    expected = dissipated(with_event[keep], R[keep], T[keep])
    assert dissipated(with_event, R, T, np.array([[0.123, np.nan]])) == expected
    assert dissipated(with_event, R, T) != expected


def test_t_spec_is_the_owners_crossing_even_when_a_non_owner_crosses_first() -> None:
    """Neuron 0 starts just below the threshold (α = 0.9899, δ = 0, c = 0.01) and crosses at
    once; neuron 1 (δ = 16, from θ0 = π/2, c = 0.09) crosses later and ends as the owner. T_spec
    is the owner's crossing, not the first crossing of any neuron."""
    from gaugecli.core.model.gauge import initial_direction, parameters_from_function

    teacher = standard_model(4)
    U = np.array([initial_direction(teacher, np.arccos(0.9899)), initial_direction(teacher, np.pi / 2)])
    a, W = parameters_from_function(np.array([0.01, 0.09]), U, np.array([0.0, 16.0]))
    obs = observe(gradient_flow(Network(a[None], W[None]), teacher, t_max=500.0), teacher, (0,))
    first, second = obs.crossing_times
    assert first < 0.1 * second  # the non-owner crosses first ...
    assert obs.owner == 1 and obs.coefficient[-1, 1] > 0.9  # ... but neuron 1 takes the feature
    assert obs.t_spec == pytest.approx(second, rel=1e-12)
    # independent check: the owner's alignment passes 1 − ε at t_spec, by interpolation on the grid
    assert np.interp(obs.t_spec, obs.t, obs.alignment[:, 1]) == pytest.approx(0.99, abs=1e-3)
