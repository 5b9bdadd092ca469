"""The invariant subspace S = span(teacher, initial students): its basis, and that the population
dynamics integrated in S equal the full-d integration (to solver tolerance for the flow, to
round-off for gradient descent, whose iterates are the same arithmetic in another basis)."""

from __future__ import annotations

import numpy as np
import pytest

from gaugecli.core.analyses.observables import observe
from gaugecli.core.integrate.descent import gradient_descent
from gaugecli.core.integrate.flow import FlowOptions, gradient_flow
from gaugecli.core.model.gauge import duplicate_initial_condition, owner_imbalances, parameters_from_function
from gaugecli.core.model.metrics import alignment
from gaugecli.core.model.model import standard_model
from gaugecli.core.model.state import Network
from gaugecli.core.model.subspace import invariant_subspace
from gaugecli.core.population.dynamics import population_loss
from gaugecli.experiments.common import duplicates, run_ensemble
from gaugecli.experiments.config import DynamicsConfig, ModelConfig

D = 8
TEACHER = standard_model(D)


def _generic_start() -> tuple[np.ndarray, np.ndarray]:
    """Three neurons in general position within the first four axes of R^8 (dim S = 4), mixed δ;
    neuron 0 (favorable, closest to the teacher) aligns at t ≈ 0.3."""
    rng = np.random.default_rng(3)
    U = rng.standard_normal((3, D))
    U[:, 4:] = 0.0
    return parameters_from_function(np.array([0.05, 0.03, 0.02]), U, np.array([2.0, -1.0, -3.0]))


def test_basis_of_duplicates_is_the_plane_of_teacher_and_u0() -> None:
    teacher = standard_model(100)
    _, W0 = duplicate_initial_condition(teacher, owner_imbalances(5, 4.0))
    space = invariant_subspace(teacher, W0)
    assert space is not None and space.r == 2 and space.d == 100
    np.testing.assert_allclose(space.basis.T @ space.basis, np.eye(2), atol=1e-15)
    np.testing.assert_allclose(space.embed(space.coordinates(W0)), W0, atol=1e-16)
    np.testing.assert_allclose(space.model(teacher).directions @ space.basis.T, teacher.directions, atol=1e-16)


def test_rank_is_k_plus_m_in_general_position_and_none_when_s_is_everything() -> None:
    _, W0 = _generic_start()
    space = invariant_subspace(TEACHER, W0)
    assert space is not None and space.r == 4
    rng = np.random.default_rng(0)
    assert invariant_subspace(standard_model(4), rng.standard_normal((5, 4))) is None


@pytest.mark.parametrize("rtol", [1e-8, 1e-10])
def test_flow_in_the_subspace_equals_the_full_flow_to_solver_tolerance(rtol: float) -> None:
    """Measured: T_spec, loss, α_j, c_j agree to ≤ 8e-9 at rtol 1e-8 and ≤ 5e-11 at 1e-10."""
    a0, W0 = _generic_start()
    space = invariant_subspace(TEACHER, W0)
    assert space is not None
    grid = np.concatenate([[0.0], np.geomspace(1e-3, 200.0, 50)])
    options = FlowOptions(rtol=rtol, atol=rtol * 1e-3)
    full = gradient_flow(Network(a0, W0), TEACHER, 200.0, options=options, t_grid=grid)
    red = gradient_flow(Network(a0, space.coordinates(W0)), space.model(TEACHER), 200.0, options=options, t_grid=grid)
    assert red.W.shape[-1] == 4 and full.W.shape[-1] == D
    tol = 100 * rtol
    np.testing.assert_allclose(red.crossing_times, full.crossing_times, rtol=tol)
    assert np.isfinite(full.crossing_times[0])
    loss_full = population_loss(Network(full.a, full.W), TEACHER)
    loss_red = population_loss(Network(red.a, red.W), space.model(TEACHER))
    assert np.max(np.abs(loss_red - loss_full)) <= tol * loss_full[0]
    np.testing.assert_allclose(alignment(red.W, space.model(TEACHER))[0], alignment(full.W, TEACHER)[0], atol=tol)
    c_full = full.a * np.linalg.norm(full.W, axis=-1)
    c_red = red.a * np.linalg.norm(red.W, axis=-1)
    np.testing.assert_allclose(c_red, c_full, atol=tol * np.max(np.abs(c_full)))
    np.testing.assert_allclose(space.embed(red.W), full.W, atol=tol)


def test_descent_in_the_subspace_is_the_same_arithmetic() -> None:
    a0, W0 = _generic_start()
    space = invariant_subspace(TEACHER, W0)
    assert space is not None
    full = gradient_descent(Network(a0, W0), TEACHER, 0.01, 20.0)
    red = gradient_descent(Network(a0, space.coordinates(W0)), space.model(TEACHER), 0.01, 20.0)
    np.testing.assert_allclose(space.embed(red.W), full.W, atol=1e-13)
    np.testing.assert_allclose(red.a, full.a, atol=1e-13)
    np.testing.assert_allclose(red.crossing_times, full.crossing_times, rtol=1e-12)


def test_observing_in_coordinates_equals_observing_the_embedded_weights() -> None:
    a0, W0 = _generic_start()
    space = invariant_subspace(TEACHER, W0)
    assert space is not None
    red = gradient_flow(Network(a0, space.coordinates(W0)), space.model(TEACHER), 50.0)
    red.basis = space.basis
    embedded = gradient_flow(Network(a0, space.coordinates(W0)), space.model(TEACHER), 50.0)
    embedded.W = space.embed(embedded.W)
    np.testing.assert_allclose(red.input_weights(), embedded.W, atol=1e-15)
    o_red, o_full = observe(red, TEACHER), observe(embedded, TEACHER)
    for name in ("loss", "alignment", "coefficient", "reaction", "transport", "nonowner_norm"):
        np.testing.assert_allclose(getattr(o_red, name), getattr(o_full, name), rtol=1e-10, atol=1e-15)
    assert o_red.t_spec == o_full.t_spec and o_red.owner == o_full.owner


def test_run_ensemble_in_high_dimension_equals_the_full_flow_at_d16() -> None:
    """The experiments' path: a d = 100 000 selection run (integrated in its plane) against the
    same start integrated in all of R^16 without reduction."""
    deltas = owner_imbalances(3, 4.0)[None]
    dynamics = DynamicsConfig(t_max=60.0)
    big = run_ensemble(ModelConfig(d=100_000), dynamics, Network(*duplicates(ModelConfig(d=100_000), deltas)))[0]
    a0, W0 = duplicates(ModelConfig(d=16), deltas)
    full = gradient_flow(Network(a0, W0), standard_model(16), 60.0)
    ref = observe(full, standard_model(16), (0,))
    assert big.owner == ref.owner == 0
    assert big.t_spec == pytest.approx(ref.t_spec, rel=1e-8)
    assert big.final_loss == pytest.approx(ref.final_loss, rel=1e-6)
    np.testing.assert_allclose(big.coefficient[-1], ref.coefficient[-1], rtol=1e-7, atol=1e-12)
