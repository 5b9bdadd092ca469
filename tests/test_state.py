"""The network's parameters as one object (core/model/state.Network) and the one integrator's save policies
(core/integrate/saveat: a uniform grid set by an event, a projection onto an invariant set), against
independent references: finite differences of the gradient through the flattened θ, a closed-form
linear flow, and the exact symmetry of a projected flow."""

from __future__ import annotations

import math

import numpy as np
import pytest

from gaugecli.core.integrate.flow import gradient_flow, population_flow_on_grid
from gaugecli.core.integrate.saveat import SaveAt, UniformGrid, integrate
from gaugecli.core.integrate.trajectory import NumericalFault
from gaugecli.core.model.gauge import duplicate_initial_condition
from gaugecli.core.model.model import standard_model
from gaugecli.core.model.state import Network
from gaugecli.core.population.dynamics import population_gradient, population_hessian, population_loss

EPS = float(np.finfo(np.float64).eps)


def _network(batch: tuple[int, ...], m: int, d: int, seed: int) -> Network:
    rng = np.random.default_rng(seed)
    return Network(rng.standard_normal(batch + (m,)), rng.standard_normal(batch + (m, d)))


@pytest.mark.parametrize("batch", [(), (3,), (2, 4)])
def test_flatten_then_unflatten_is_the_identity_and_member_major(batch: tuple[int, ...]) -> None:
    theta = _network(batch, 3, 5, 0)
    z = theta.flatten()
    assert z.shape == (math.prod(batch) * theta.size,) and theta.size == 3 * 6
    back = Network.unflatten(z, 3, 5, batch)
    np.testing.assert_array_equal(back.a, theta.a)  # a copy of the same numbers: exact
    np.testing.assert_array_equal(back.W, theta.W)
    # member-major: each network's (a_1 … a_m, w_1 … w_m) in one block of P entries
    members = theta.members()
    for k in range(members.a.shape[0]):
        block = z[k * theta.size : (k + 1) * theta.size]
        np.testing.assert_array_equal(block, np.concatenate([members.a[k], members.W[k].ravel()]))


def test_the_flattened_order_is_the_hessians_order() -> None:
    """Central differences of ∇L through unflatten reproduce population_hessian in the flattened
    coordinates: the order the solvers' Jacobians assume. Tolerance: central differences err by
    O(h²‖∇³L‖) + O(ε‖∇L‖/h); at h = 1e-5 both are ≲ 1e-8 for these O(1) weights."""
    model = standard_model(4, k=2, a_star=0.7)
    theta = _network((), 3, 4, 1)
    z0, m, d = theta.flatten(), theta.m, theta.d

    def grad(z: np.ndarray) -> np.ndarray:
        net = Network.unflatten(z, m, d)
        g = population_gradient(Network(net.a, net.W), model)
        return Network(g.a, g.W).flatten()

    h = 1e-5
    columns = [(grad(z0 + h * e) - grad(z0 - h * e)) / (2 * h) for e in np.eye(z0.size)]
    np.testing.assert_allclose(np.array(columns).T, population_hessian(theta, model), atol=1e-7)


def test_indexing_and_reshaping_keep_a_and_w_together() -> None:
    theta = _network((2, 3), 2, 4, 2)
    np.testing.assert_array_equal(theta[1].a, theta.a[1])
    np.testing.assert_array_equal(theta[1, 2].W, theta.W[1, 2])
    assert theta.reshaped((3, 2)).batch == (3, 2)
    with pytest.raises(ValueError, match="6 networks"):
        theta.reshaped((4,))
    # the analyses read the batch axes: one loss per network
    assert population_loss(theta, standard_model(4)).shape == (2, 3)


def test_a_uniform_grid_is_set_by_the_event_and_read_off_the_dense_output() -> None:
    """ẏ = −y from 1: the event y = 1/2 fires at ln 2, and the grid k·ln2/per to span·ln 2 carries
    exp(−t). Tolerance: the solver's rtol 1e-10 per step, accumulated over ~10² steps, on O(1) states."""

    def half(_t: float, y: np.ndarray) -> float:
        return 0.5 - float(y[0])

    half.direction = 1  # type: ignore[attr-defined]
    grid = UniformGrid(half, span=3.0, per=8, t_max=10.0)
    sol = integrate(
        lambda _t, y: -y,
        (0.0, 10.0),
        np.array([1.0]),
        method="LSODA",
        rtol=1e-10,
        atol=1e-13,
        save=SaveAt(uniform=grid),
    )
    assert sol.t_events[0][0] == pytest.approx(math.log(2.0), rel=1e-8)
    np.testing.assert_allclose(sol.t, np.arange(25) * sol.t_events[0][0] / 8)
    np.testing.assert_allclose(sol.y[0], np.exp(-sol.t), rtol=1e-8)
    assert sol.y[0, 0] == 1.0  # the start itself


def test_a_uniform_grid_whose_event_never_fires_says_so() -> None:
    def never(_t: float, y: np.ndarray) -> float:
        return -1.0 - float(y[0])

    grid = UniformGrid(never, span=2.0, per=4, t_max=1.0, unmet="no alignment by t = 1")
    with pytest.raises(NumericalFault, match="no alignment by t = 1"):
        integrate(
            lambda _t, y: -y,
            (0.0, 1.0),
            np.array([1.0]),
            method="LSODA",
            rtol=1e-8,
            atol=1e-11,
            save=SaveAt(uniform=grid),
        )


def test_the_projected_flow_keeps_duplicates_equal_and_follows_the_package_flow() -> None:
    """Two duplicates of one gauge class: on the invariant set (groups) they stay exactly equal;
    its T_spec on a span grid agrees with gradient_flow's located crossing to the tolerance the two
    solves are held to (rtol 1e-10 each, relative 1e-7 on T_spec with margin for their different
    step sequences)."""
    model = standard_model(4)
    a0, W0 = duplicate_initial_condition(model, np.array([4.0, 4.0, -4.0]))
    theta0 = Network(a0, W0)
    held = population_flow_on_grid(theta0, model, 0.01, span=1.5, per=20, groups=[[0, 1]])
    np.testing.assert_array_equal(held.theta.a[:, 0], held.theta.a[:, 1])  # Π averages: exactly equal
    np.testing.assert_array_equal(held.theta.W[:, 0], held.theta.W[:, 1])
    assert held.t_spec is not None and held.t.size == 31
    reference = gradient_flow(theta0, model, 2.0 * held.t_spec)
    t_ref = float(np.nanmin(reference.crossing_times))
    assert held.t_spec == pytest.approx(t_ref, rel=1e-7)
