"""The σ = x² model: closed-form moments against Monte Carlo, gradients against finite differences
and autograd, the conserved gauge a² − ‖w‖²/2, and the exact saddle at u0 ⊥ v."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from scipy.integrate import solve_ivp

from gaugecli.core import quadratic as qd
from gaugecli.core.gauge import owner_imbalances
from gaugecli.core.teacher import standard_teacher
from gaugecli.core.trajectory import NumericalFault

TEACHER = standard_teacher(5)


def _random(m: int = 3, d: int = 5, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return rng.standard_normal(m) * 0.5, rng.standard_normal((m, d)) * 0.6


def test_population_loss_matches_monte_carlo() -> None:
    """½((tr M)² + 2‖M‖²) against 10⁶ Gaussian samples, within 5 standard errors."""
    a, W = _random()
    X = np.random.default_rng(1).standard_normal((1_000_000, 5))
    r = ((X @ W.T) ** 2) @ a - qd.quadratic_labels(X, TEACHER)
    sq = 0.5 * r**2
    assert abs(qd.quadratic_loss(a, W, TEACHER) - sq.mean()) < 5 * sq.std() / np.sqrt(len(sq))


def test_gradient_matches_finite_differences() -> None:
    a, W = _random(seed=2)
    g = qd.quadratic_gradient(a, W, TEACHER)
    h = 1e-6
    theta = np.concatenate([a, W.ravel()])
    num = np.empty_like(theta)
    for i in range(theta.size):
        e = np.zeros_like(theta)
        e[i] = h
        plus, minus = theta + e, theta - e
        num[i] = (
            qd.quadratic_loss(plus[:3], plus[3:].reshape(3, 5), TEACHER)
            - qd.quadratic_loss(minus[:3], minus[3:].reshape(3, 5), TEACHER)
        ) / (2 * h)
    np.testing.assert_allclose(np.concatenate([g.a, g.W.ravel()]), num, rtol=1e-7, atol=1e-8)


def test_hessian_matches_differences_of_the_gradient() -> None:
    a, W = _random(seed=3)
    H = qd.quadratic_hessian(a, W, TEACHER)
    h = 1e-6
    theta = np.concatenate([a, W.ravel()])
    for i in (0, 4, 11):
        e = np.zeros_like(theta)
        e[i] = h
        gp = qd.quadratic_gradient((theta + e)[:3], (theta + e)[3:].reshape(3, 5), TEACHER)
        gm = qd.quadratic_gradient((theta - e)[:3], (theta - e)[3:].reshape(3, 5), TEACHER)
        col = (np.concatenate([gp.a, gp.W.ravel()]) - np.concatenate([gm.a, gm.W.ravel()])) / (2 * h)
        np.testing.assert_allclose(H[:, i], col, rtol=1e-6, atol=1e-7)


def test_empirical_oracle_matches_autograd() -> None:
    a, W = _random(seed=4)
    X = np.random.default_rng(5).standard_normal((200, 5))
    y = qd.quadratic_labels(X, TEACHER)
    ga, gW, loss = qd.quadratic_empirical_oracle(X, y)(a, W)
    at = torch.tensor(a, requires_grad=True)
    Wt = torch.tensor(W, requires_grad=True)
    ref = 0.5 * torch.mean((((torch.from_numpy(X) @ Wt.T) ** 2) @ at - torch.from_numpy(y)) ** 2)
    ref.backward()
    np.testing.assert_allclose(ga, at.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(gW, Wt.grad.numpy(), rtol=1e-12)
    assert loss == pytest.approx(ref.item(), rel=1e-13)


def test_flow_conserves_a2_minus_half_w2_not_the_relu_gauge() -> None:
    """Degree-2 homogeneity: δ = a² − ‖w‖²/2 is conserved (drift ≤ 1e-8 at rtol 1e-11); a² − ‖w‖² is not."""
    a0, W0 = _random(seed=6)

    def rhs(_t: float, y: np.ndarray) -> np.ndarray:
        g = qd.quadratic_gradient(y[:3], y[3:].reshape(3, 5), TEACHER)
        return -np.concatenate([g.a, g.W.ravel()])

    sol = solve_ivp(rhs, (0, 0.5), np.concatenate([a0, W0.ravel()]), method="LSODA", rtol=1e-11, atol=1e-13)
    a1, W1 = sol.y[:3, -1], sol.y[3:, -1].reshape(3, 5)
    np.testing.assert_allclose(qd.quadratic_imbalance(a1, W1), qd.quadratic_imbalance(a0, W0), atol=1e-8)
    relu_gauge = a1**2 - np.sum(W1**2, axis=-1) - (a0**2 - np.sum(W0**2, axis=-1))
    assert np.max(np.abs(relu_gauge)) > 1e-3


def test_function_coordinates_round_trip() -> None:
    """(c, u, δ) → (a, w) → (c, u, δ) for both signs of δ and c, including |δ| ≫ c."""
    rng = np.random.default_rng(8)
    c = np.array([0.02, -0.3, 1.5, 1e-3])
    delta = np.array([4.0, -4.0, 0.0, -1024.0])
    U = rng.standard_normal((4, 5))
    a, W = qd.quadratic_parameters_from_function(c, U, delta)
    c2, U2 = qd.quadratic_function_coordinates(a, W)
    np.testing.assert_allclose(c2, c, rtol=1e-13)
    np.testing.assert_allclose(qd.quadratic_imbalance(a, W), delta, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(U2, U / np.linalg.norm(U, axis=-1, keepdims=True), atol=1e-15)


def test_duplicates_are_one_function() -> None:
    """The complete initial function c0 (u0·x)² for any gauges (here +D, −D…)."""
    a, W = qd.quadratic_duplicates(TEACHER, owner_imbalances(4, 4.0, 1), 0.1)
    c, U = qd.quadratic_function_coordinates(a, W)
    np.testing.assert_allclose(np.sum(c), 0.1, rtol=1e-14)
    np.testing.assert_allclose(U, np.tile(np.eye(5)[1], (4, 1)), atol=1e-15)


def _gd(a: np.ndarray, W: np.ndarray, eta: float, steps: int) -> tuple[np.ndarray, np.ndarray]:
    for _ in range(steps):
        g = qd.quadratic_gradient(a, W, TEACHER)
        a, W = a - eta * g.a, W - eta * g.W
    return a, W


def test_population_flow_from_u0_perp_v_is_an_exact_saddle() -> None:
    """With u0 = e2 exactly ⊥ v = e1 the gradient has no v-component and population GD keeps W ⊥ v
    exactly; a 1° tilt aligns within the same time. The package's u0(θ0 = π/2) carries cos(π/2) = 6e-17
    along v: ``exact_saddle`` still flags it (tolerance 1e-14)."""
    deltas = owner_imbalances(3, 4.0, 0)
    a, W = qd.quadratic_parameters_from_function(np.full(3, 0.1 / 3), np.tile(np.eye(5)[1], (3, 1)), deltas)
    assert qd.exact_saddle(W, TEACHER)
    assert np.all(qd.quadratic_gradient(a, W, TEACHER).W[:, 0] == 0.0)
    eta = 0.2 * qd.quadratic_stable_step(a, W, TEACHER)
    _, W1 = _gd(a, W, eta, 3000)
    assert np.all(W1[:, 0] == 0.0) and np.all(qd.quadratic_alignment(W1, TEACHER) == 0.0)
    a, W = qd.quadratic_duplicates(TEACHER, deltas, 0.1, np.radians(89.0))
    assert not qd.exact_saddle(W, TEACHER)
    assert qd.quadratic_alignment(_gd(a, W, eta, 3000)[1], TEACHER)[0] > 0.99
    _, W = qd.quadratic_duplicates(TEACHER, deltas, 0.1, np.pi / 2)
    assert 0 < np.max(np.abs(W[:, 0])) < 1e-15 and qd.exact_saddle(W, TEACHER)


def test_gradient_descent_divergence_names_the_step() -> None:
    a, W = qd.quadratic_duplicates(TEACHER, owner_imbalances(3, 4.0, 0), 0.1)
    X = np.random.default_rng(0).standard_normal((500, 5))
    oracle = qd.quadratic_empirical_oracle(X, qd.quadratic_labels(X, TEACHER))
    bound = qd.quadratic_stable_step(a, W, TEACHER)
    with pytest.raises(NumericalFault, match=r"diverged at step \d+ with eta="):
        qd.quadratic_gradient_descent(a, W, oracle, 5 * bound, 200)
