"""The compiled loops of ``gaugecli.core.population.fused_smooth`` (squared ReLU, square, erf) against the numpy
closed forms of the activations, and their routing from ``gaugecli.core.population.dynamics``.

The numpy route (the activations' kernels contracted in ``dynamics``) is the reference, itself checked against
finite differences and Monte Carlo elsewhere (tests/test_activations.py, tests/test_dynamics.py). The loops sum
the same pair terms in another order, so every entry agrees to a few ulps of the terms' scale: ``32 ε`` of the
largest entry (a sum of at most ``m + k ≤ 8`` pair terms, each a few roundings; measured ≤ 6 ε).
"""

from __future__ import annotations

import numpy as np
import pytest
from test_fused import _state as fused_state

from gaugecli.core.activations import activation
from gaugecli.core.integrate.flow import FlowOptions, gradient_flow
from gaugecli.core.model.gauge import duplicate_initial_condition
from gaugecli.core.model.model import standard_model
from gaugecli.core.model.state import Network
from gaugecli.core.population import dynamics, fused, fused_smooth, route
from gaugecli.core.population.objective import population_objective

EPS = float(np.finfo(np.float64).eps)
NAMES = ("relu2", "square", "erf")
SHAPES = [(1, 1, 2, 1), (5, 4, 5, 2), (2, 5, 16, 3)]  # members, m, r, k


def _state(members: int, m: int, r: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """test_fused's random neurons with a duplicate pair (φ = 0) and an antipodal pair (φ = π), and a fourth
    neuron at ``w = 0`` (the smooth kernels are defined there; the ReLU family's need ``w ≠ 0``)."""
    a, W = fused_state(members, m, r, seed)
    if m > 3:
        W[:, 3] = 0.0
    return a, W


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("shape", SHAPES)
def test_gradient_and_hessian_match_the_numpy_closed_forms(
    name: str, shape: tuple[int, int, int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    members, m, r, k = shape
    model = standard_model(r, k=k, activation=activation(name))
    a, W = _state(members, m, r, seed=members * 100 + m)
    assert dynamics._smooth_kind(model) == fused_smooth.KINDS[type(activation(name))]
    theta = Network(a, W)
    g, H = dynamics.population_gradient(theta, model), dynamics.population_hessian(theta, model)
    packed = dynamics.population_gradient_packed(model)
    assert packed is not None
    G = packed(fused.pack(a, W))
    with monkeypatch.context() as patch:
        patch.setattr(route, "_fused", False)
        assert dynamics._smooth_kind(model) is None and dynamics.population_gradient_packed(model) is None
        g0, H0 = dynamics.population_gradient(theta, model), dynamics.population_hessian(theta, model)
    scale = max(np.max(np.abs(g0.a)), np.max(np.abs(g0.W)))
    np.testing.assert_allclose(g.a, g0.a, rtol=0, atol=32 * EPS * scale)
    np.testing.assert_allclose(g.W, g0.W, rtol=0, atol=32 * EPS * scale)
    np.testing.assert_allclose(G[:, :m], g0.a, rtol=0, atol=32 * EPS * scale)
    np.testing.assert_allclose(G[:, m:], g0.W.reshape(members, m * r), rtol=0, atol=32 * EPS * scale)
    np.testing.assert_allclose(H, H0, rtol=0, atol=32 * EPS * np.max(np.abs(H0)))


def test_the_flow_objective_takes_the_compiled_loops(monkeypatch: pytest.MonkeyPatch) -> None:
    """The population objective of an erf student (with weight decay) evaluates its packed
    gradient by ``fused_smooth._gradient``: ``∇J = ∇L + λθ`` to ``4 ε`` of its scale (one rounding of the sum)."""
    calls: list[int] = []
    loop = fused_smooth._gradient

    def counted(*args: object) -> None:
        calls.append(1)
        loop(*args)

    monkeypatch.setattr(fused_smooth, "_gradient", counted)
    lam, m, r = 0.01, 3, 4
    model = standard_model(r, activation=activation("erf"), weight_decay=lam)
    objective = population_objective(model)
    assert objective.packed is not None
    a, W = _state(2, m, r, seed=3)
    G = objective.packed(fused.pack(a, W))
    assert calls
    ga, gW, _ = objective.gradient(a, W)
    scale = np.max(np.abs(G))
    np.testing.assert_allclose(G[:, :m], ga, rtol=0, atol=4 * EPS * scale)
    np.testing.assert_allclose(G[:, m:], gW.reshape(2, m * r), rtol=0, atol=4 * EPS * scale)


def test_cross_teachers_and_the_relu_family_keep_their_routes() -> None:
    """A teacher of another σ (the cross kernels) stays on numpy; the ReLU family stays on ``fused``."""
    assert (
        dynamics._smooth_kind(
            standard_model(3, activation=activation("relu2"), teacher_activation=activation("square"))
        )
        is None
    )
    assert dynamics._smooth_kind(standard_model(3)) is None


def test_compile_loops_covers_the_types_the_flows_pass() -> None:
    """``compile_loops`` (a ``plot`` worker's first task) compiles every signature a flow then calls: an erf
    and a squared-ReLU ±D flow (LSODA, the Hessian as its Jacobian) add none, so a worker loads them all from
    numba's cache instead of compiling (~3.5 CPU-s) in its first run."""
    fused_smooth.compile_loops()
    loops = (fused_smooth._gradient, fused_smooth._hessian)
    compiled = {loop: set(loop.signatures) for loop in loops}
    for name in ("erf", "relu2"):
        model = standard_model(4, activation=activation(name))
        for strength in (4.0, -4.0):
            a0, W0 = duplicate_initial_condition(model, np.array([strength]))
            gradient_flow(Network(a0, W0), model, 20.0, options=FlowOptions(rtol=1e-10, atol=1e-13))
    assert {loop: set(loop.signatures) for loop in loops} == compiled
