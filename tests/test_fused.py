"""The compiled loops of ``gaugecli.core.population.fused`` against the numpy closed forms, finite differences
and the flows they drive.

The numpy route (``gaugecli.core.kernels.arccos`` and the activations' kernels, contracted in
``gaugecli.core.population.dynamics``) is the reference: the loops sum the same pair terms in another order,
so every entry agrees to a few ulps of the terms' scale. Tolerances: ``32 ε`` of the largest entry
(a sum of at most ``m + k ≤ 11`` pair terms, each a few roundings), and for the Hessian against
central differences of the gradient, the differences' ``O(h²)`` truncation plus their round-off.
"""

from __future__ import annotations

import numpy as np
import pytest

from gaugecli.core.activations import activation
from gaugecli.core.integrate.flow import FlowOptions, gradient_flow
from gaugecli.core.model.gauge import duplicate_initial_condition
from gaugecli.core.model.model import Model, standard_model
from gaugecli.core.model.state import Network
from gaugecli.core.population import dynamics, fused, route
from gaugecli.core.population.objective import population_objective

EPS = float(np.finfo(np.float64).eps)

ACTIVATIONS = {
    "relu": activation("relu"),
    "leaky-0.01": activation("leaky-relu", negative_slope=0.01),
    "leaky-0.3": activation("leaky-relu", negative_slope=0.3),
    "linear": activation("linear"),
}
SHAPES = [(1, 1, 2, 1), (15, 2, 2, 1), (7, 4, 5, 2), (3, 8, 10, 3)]  # members, m, r, k


def _state(members: int, m: int, r: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Random neurons with a duplicate pair and an antipodal pair (φ = 0 and φ = π exactly)."""
    rng = np.random.default_rng(seed)
    a, W = rng.normal(size=(members, m)), rng.normal(size=(members, m, r))
    if m > 1:
        W[:, 1] = W[:, 0]
    if m > 2:
        W[:, 2] = -2.0 * W[:, 0]
    return a, W


def _numpy_route(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(route, "_fused", False)


@pytest.mark.parametrize("name", ACTIVATIONS)
@pytest.mark.parametrize("shape", SHAPES)
def test_gradient_and_hessian_match_the_numpy_closed_forms(
    name: str, shape: tuple[int, int, int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    members, m, r, k = shape
    model = standard_model(r, k=k, activation=ACTIVATIONS[name])
    a, W = _state(members, m, r, seed=members * 100 + m)
    assert dynamics._fused_weights(model) is not None
    g, H = dynamics.population_gradient(Network(a, W), model), dynamics.population_hessian(Network(a, W), model)
    with monkeypatch.context() as patch:
        _numpy_route(patch)
        assert dynamics._fused_weights(model) is None
        g0, H0 = dynamics.population_gradient(Network(a, W), model), dynamics.population_hessian(Network(a, W), model)
    scale = max(np.max(np.abs(g0.a)), np.max(np.abs(g0.W)))
    np.testing.assert_allclose(g.a, g0.a, rtol=0, atol=32 * EPS * scale)
    np.testing.assert_allclose(g.W, g0.W, rtol=0, atol=32 * EPS * scale)
    np.testing.assert_allclose(H, H0, rtol=0, atol=32 * EPS * np.max(np.abs(H0)))


def test_kernel_weights_of_the_relu_family() -> None:
    """``σ = α relu + β id`` has ``K = α² κ + β(α + β) w·w'``: checked on one pair by Monte Carlo."""
    assert fused.kernel_weights(1.0, 0.0) == (1.0, 0.0)
    assert fused.kernel_weights(0.0, 1.0) == (0.0, 1.0)
    beta = 0.3
    A, B = fused.kernel_weights(1.0 - beta, beta)
    w, wp = np.array([1.0, 0.5, 0.0]), np.array([-0.2, 0.9, 0.4])
    x = np.random.default_rng(0).standard_normal((2_000_000, 3))
    sigma = ACTIVATIONS["leaky-0.3"].sigma
    samples = sigma(x @ w) * sigma(x @ wp)
    nw, nwp = np.linalg.norm(w), np.linalg.norm(wp)
    phi = np.arccos(w @ wp / (nw * nwp))
    kappa = nw * nwp * (np.sin(phi) + (np.pi - phi) * np.cos(phi)) / (2 * np.pi)
    se = samples.std() / np.sqrt(samples.size)
    assert abs(A * kappa + B * (w @ wp) - samples.mean()) <= 4 * se


@pytest.mark.parametrize("name", ["relu", "leaky-0.3", "linear"])
def test_hessian_is_the_derivative_of_the_gradient(name: str) -> None:
    """Central differences of the compiled gradient, step h: truncation ``O(h²)`` (≈ 1e-10 at h = 1e-5
    for these O(1) third derivatives) plus round-off ``ε·|∇L|/h`` (≈ 1e-11)."""
    m, r = 3, 4
    model = standard_model(r, k=2, activation=ACTIVATIONS[name])
    rng = np.random.default_rng(5)
    a, W = rng.normal(size=m), rng.normal(size=(m, r))
    H = dynamics.population_hessian(Network(a, W), model)
    theta = np.concatenate([a, W.ravel()])
    h = 1e-5

    def grad(t: np.ndarray) -> np.ndarray:
        g = dynamics.population_gradient(Network(t[:m], t[m:].reshape(m, r)), model)
        return np.concatenate([g.a, g.W.ravel()])

    fd = np.stack([(grad(theta + h * e) - grad(theta - h * e)) / (2 * h) for e in np.eye(theta.size)], axis=1)
    np.testing.assert_allclose(H, fd, rtol=0, atol=1e-8)
    np.testing.assert_allclose(H, H.T, rtol=0, atol=32 * EPS * np.max(np.abs(H)))


@pytest.mark.parametrize("batch", [(), (3,), (2, 3)])
def test_batch_axes_and_packing(batch: tuple[int, ...]) -> None:
    """Any leading axes, as the numpy route; the packed route is the same loops on the packed state."""
    m, r = 2, 3
    model = standard_model(r)
    rng = np.random.default_rng(len(batch))
    a, W = rng.normal(size=batch + (m,)), rng.normal(size=batch + (m, r))
    g = dynamics.population_gradient(Network(a, W), model)
    assert g.a.shape == a.shape and g.W.shape == W.shape
    assert dynamics.population_hessian(Network(a, W), model).shape == batch + (m * (r + 1),) * 2
    packed = dynamics.population_gradient_packed(model)
    assert packed is not None
    G = packed(fused.pack(a, W))
    scale = np.max(np.abs(G))
    np.testing.assert_allclose(G[:, :m], g.a.reshape(-1, m), rtol=0, atol=4 * EPS * scale)
    np.testing.assert_allclose(G[:, m:], g.W.reshape(-1, m * r), rtol=0, atol=4 * EPS * scale)


def test_weight_decay_on_the_packed_route() -> None:
    """``∇J = ∇L + λθ`` in the packing, as the objective's unpacked gradient."""
    m, r, lam = 3, 3, 0.05
    model = Model(standard_model(r).teacher, weight_decay=lam)
    objective = population_objective(model)
    assert objective.packed is not None
    a, W = _state(4, m, r, seed=9)
    ga, gW, _ = objective.gradient(a, W)
    G = objective.packed(fused.pack(a, W))
    scale = np.max(np.abs(G))
    np.testing.assert_allclose(G[:, :m], ga, rtol=0, atol=4 * EPS * scale)
    np.testing.assert_allclose(G[:, m:], gW.reshape(4, m * r), rtol=0, atol=4 * EPS * scale)


def test_linear_network_allows_a_neuron_at_zero() -> None:
    """The linear kernel has no angle: a neuron at ``w = 0`` has a finite gradient, ``∂L/∂a = 0`` there."""
    model = standard_model(3, activation=ACTIVATIONS["linear"])
    a, W = np.array([0.5, 0.7]), np.array([[0.0, 0.0, 0.0], [0.3, 0.4, 0.0]])
    g = dynamics.population_gradient(Network(a, W), model)
    assert np.all(np.isfinite(g.a)) and np.all(np.isfinite(g.W))
    assert g.a[0] == 0.0  # Σ_j c_j (0·x_j): a sum of exact zeros
    assert np.all(np.isfinite(dynamics.population_hessian(Network(a, W), model)))


def test_other_activations_and_cross_teachers_keep_the_numpy_route() -> None:
    for name in ("relu2", "square", "erf"):
        assert dynamics._fused_weights(standard_model(3, activation=activation(name))) is None
    relu_student_linear_teacher = standard_model(3, teacher_activation=activation("linear"))
    assert dynamics._fused_weights(relu_student_linear_teacher) is None


@pytest.mark.parametrize("strength", [4.0, -4.0])
def test_flows_agree_with_the_numpy_route(strength: float, monkeypatch: pytest.MonkeyPatch) -> None:
    """A ±D flow (m = 2 duplicates) on each route: T_spec agrees within what the solver's rtol = 1e-10
    allows for two runs whose right-hand sides differ by round-off (measured ≤ 2e-9 between solvers)."""
    model = standard_model(2)
    a0, W0 = duplicate_initial_condition(model, np.array([strength, -strength]))
    options = FlowOptions(rtol=1e-10, atol=1e-13)
    fast = gradient_flow(Network(a0, W0), model, 3.0 * 12.0 * abs(strength), options=options)
    with monkeypatch.context() as patch:
        _numpy_route(patch)
        slow = gradient_flow(Network(a0, W0), model, 3.0 * 12.0 * abs(strength), options=options)
    np.testing.assert_allclose(fast.crossing_times, slow.crossing_times, rtol=1e-8)
    np.testing.assert_allclose(fast.a[..., -1, :], slow.a[..., -1, :], rtol=1e-6, atol=1e-9)


def test_compile_loops_covers_the_types_the_flows_pass() -> None:
    """``compile_loops`` (a ``plot`` worker's first task) compiles every signature a flow then calls: a
    stiff ±D flow (C- and Fortran-ordered packed states, the Hessian as the solver's Jacobian) adds none,
    so a worker beside the one that compiled loads them all from numba's cache instead of compiling."""
    fused.compile_loops()
    compiled = {loop: set(loop.signatures) for loop in (fused._gradient, fused._hessian)}
    model = standard_model(2)
    for strength in (4.0, -4.0):
        a0, W0 = duplicate_initial_condition(model, np.array([strength, -strength]))
        gradient_flow(Network(a0, W0), model, 3.0 * 12.0 * abs(strength), options=FlowOptions(rtol=1e-10, atol=1e-13))
    assert {loop: set(loop.signatures) for loop in compiled} == compiled
    assert {sig[0].layout for sig in compiled[fused._gradient]} >= {"C", "F"}


@pytest.mark.parametrize("shape", [*SHAPES, (33, 1, 2, 1)])  # the last: a phase chunk's one-neuron runs
def test_reaction_and_transport_match_the_numpy_route(
    shape: tuple[int, int, int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``R`` and ``T`` of a ReLU student, compiled (``fused.reaction_transport``), against the numpy route's
    ``function_gradient``: each sum of at most ``m + k`` pair terms in another order, squared and weighted by the
    mobilities, so they agree to ``64 ε`` of ``Σ_j M_j S_j²``, ``S_j`` the sum of the terms' bounds
    (``|c_i κ(u_j, x_i)| ≤ |c_i| ‖x_i‖/2``, ``|c_j c_i ∂₁κ| ≤ |c_j c_i| ‖x_i‖``). Both gauges' signs of δ, the
    duplicate and antipodal pairs of ``_state``, and a neuron at ``w = 0`` (T NaN on both routes)."""
    members, m, r, k = shape
    model = standard_model(r, k=k)
    a, W = _state(members, m, r, seed=members * 10 + m)
    a[: members // 2] *= 3.0  # δ > 0 on the first members, mostly δ < 0 on the others
    if members > 1:
        W[-1, -1] = 0.0  # a neuron absorbed at w = 0
    R, T = dynamics.reaction_transport(Network(a, W), model)
    with monkeypatch.context() as patch:
        _numpy_route(patch)
        R0, T0 = dynamics.reaction_transport(Network(a, W), model)
    norm = np.linalg.norm(W, axis=-1)
    c, delta = a * norm, a**2 - norm**2
    S = np.sum(np.abs(c), axis=-1) + np.sum(np.abs(model.coefficients) * np.linalg.norm(model.directions, axis=-1))
    s = np.hypot(delta, 2.0 * c)
    with np.errstate(divide="ignore", invalid="ignore"):
        mobility_u = np.where(delta <= 0, 2.0 / (s - delta), (s + delta) / (2.0 * c**2))
        scale_T = np.sum(mobility_u * (c * S[..., None]) ** 2, axis=-1)
    np.testing.assert_allclose(R, R0, rtol=0, atol=64 * EPS * np.max(np.sum(s * S[..., None] ** 2, axis=-1)))
    assert np.array_equal(np.isnan(T), np.isnan(T0)) and bool(np.isnan(T[-1])) == (members > 1)
    finite = ~np.isnan(T0)
    assert np.all(np.abs(T - T0)[finite] <= 64 * EPS * scale_T[finite])
    leaky = standard_model(r, k=k, activation=ACTIVATIONS["leaky-0.3"])  # the compiled R, T are ReLU's only
    Rl, _ = dynamics.reaction_transport(Network(a, W), leaky)
    with monkeypatch.context() as patch:
        _numpy_route(patch)
        assert np.array_equal(Rl, dynamics.reaction_transport(Network(a, W), leaky)[0])
