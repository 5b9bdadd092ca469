"""Population loss, gradient, Hessian and the reaction–transport split (C3) against
Monte Carlo, finite differences and independent closed forms."""

from __future__ import annotations

import numpy as np
import pytest

from gaugecli.core.model.gauge import duplicate_initial_condition, function_coordinates, imbalance, owner_imbalances
from gaugecli.core.model.model import Model, standard_model
from gaugecli.core.model.state import Network
from gaugecli.core.model.teacher import Teacher
from gaugecli.core.population.dynamics import (
    dissipation,
    function_gradient,
    population_gradient,
    population_hessian,
    population_loss,
    reaction_mobility,
    transport_mobility,
)

N_MC = 1_000_000
CHUNK = 200_000
EPS = float(np.finfo(np.float64).eps)


def _teachers() -> dict[str, Teacher]:
    rng = np.random.default_rng(100)
    return {
        "k1": standard_model(4),
        "k2": standard_model(4, k=2, a_star=0.7),
        "k3_general": Model(Teacher(coefficients=np.array([1.0, -0.5, 2.0]), directions=rng.standard_normal((3, 4)))),
    }


TEACHERS = _teachers()


def _random_params(m: int, d: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return rng.standard_normal(m), rng.standard_normal((m, d)) * rng.uniform(0.3, 2.0, (m, 1))


def _special_configs(d: int = 4) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(7)
    w = rng.standard_normal(d)
    e1 = np.eye(d)[0]
    return {
        # neurons 0 and 1 are duplicates (same direction, different norms)
        "duplicates": (np.array([0.4, -0.3, 0.8]), np.stack([w, 2.5 * w, rng.standard_normal(d)])),
        # neurons 0 and 1 antipodal
        "antipodal": (np.array([0.6, 0.9, -0.2]), np.stack([w, -0.4 * w, rng.standard_normal(d)])),
        # a neuron exactly along the teacher feature v = e1 (φ = 0 to the teacher) and one opposite
        "on_teacher": (np.array([0.7, 0.3]), np.stack([1.3 * e1, -0.5 * e1])),
        # the paper's complete initial function: three exact duplicates
        "initial": duplicate_initial_condition(standard_model(d), owner_imbalances(3, 4.0, 0)),
    }


SPECIAL = _special_configs()


def _flat(a: np.ndarray, W: np.ndarray) -> np.ndarray:
    return np.concatenate([a, W.ravel()])


def _unflat(theta: np.ndarray, m: int, d: int) -> tuple[np.ndarray, np.ndarray]:
    return theta[:m], theta[m:].reshape(m, d)


def _fd_gradient(fun, theta: np.ndarray, h: float) -> np.ndarray:
    out = []
    for i in range(theta.size):
        e = np.zeros_like(theta)
        e[i] = h
        out.append((fun(theta + e) - fun(theta - e)) / (2 * h))
    return np.stack(out, axis=-1)


# ------------------------------------------------------------------------------------
# loss


def _mc_loss(a: np.ndarray, W: np.ndarray, teacher: Teacher, seed: int) -> tuple[float, float]:
    rng = np.random.default_rng(seed)
    s1 = s2 = 0.0
    for _ in range(N_MC // CHUNK):
        X = rng.standard_normal((CHUNK, W.shape[1]))
        f = np.maximum(X @ W.T, 0.0) @ a
        y = np.maximum(X @ teacher.directions.T, 0.0) @ teacher.coefficients
        q = 0.5 * (f - y) ** 2
        s1 += q.sum()
        s2 += (q**2).sum()
    mean = s1 / N_MC
    return mean, np.sqrt((s2 / N_MC - mean**2) / N_MC)


CONFIG_SEEDS = {"random": 11, "duplicates": 12, "antipodal": 13}


@pytest.mark.parametrize("teacher_name", list(TEACHERS))
@pytest.mark.parametrize("config", list(CONFIG_SEEDS))
def test_population_loss_vs_monte_carlo(teacher_name: str, config: str) -> None:
    teacher = TEACHERS[teacher_name]
    a, W = _random_params(3, 4, seed=1) if config == "random" else SPECIAL[config]
    mean, se = _mc_loss(a, W, teacher, seed=CONFIG_SEEDS[config])
    L = float(population_loss(Network(a, W), teacher))
    assert abs(L - mean) <= 4 * se, (L, mean, se)
    assert se < 0.01 * mean  # informative comparison


def test_population_loss_hand_values() -> None:
    teacher = standard_model(3)
    # the student equals the teacher: zero loss
    assert float(population_loss(Network(np.array([1.0]), np.array([[1.0, 0.0, 0.0]])), teacher)) == pytest.approx(
        0, abs=1e-16
    )
    # split the teacher over two duplicates with any gauge: still zero
    a, W = np.array([2.0, 0.25]), np.array([[0.3, 0, 0], [1.6, 0, 0]])
    assert float(population_loss(Network(a, W), teacher)) == pytest.approx(0, abs=1e-15)
    # zero student: ½ E[relu(v·x)²] = 1/4
    assert float(population_loss(Network(np.array([0.0]), np.array([[0.0, 1.0, 0.0]])), teacher)) == pytest.approx(0.25)
    # antipodal student −relu(−v·x): ½ E[(relu(z) + relu(−z))²] = ½ E[z²] = ½
    assert float(population_loss(Network(np.array([-1.0]), np.array([[-1.0, 0, 0]])), teacher)) == pytest.approx(0.5)


def test_population_loss_batched() -> None:
    teacher = TEACHERS["k2"]
    rng = np.random.default_rng(3)
    a, W = rng.standard_normal((2, 3, 4)), rng.standard_normal((2, 3, 4, 4))
    L = population_loss(Network(a, W), teacher)
    assert L.shape == (2, 3)
    for b in np.ndindex(2, 3):
        assert L[b] == pytest.approx(float(population_loss(Network(a[b], W[b]), teacher)), rel=1e-14)


# ------------------------------------------------------------------------------------
# gradient and Hessian


CONFIG_NAMES = ["random", "duplicates", "antipodal", "on_teacher", "initial"]


def _config(name: str) -> tuple[np.ndarray, np.ndarray]:
    return _random_params(3, 4, seed=2) if name == "random" else SPECIAL[name]


@pytest.mark.parametrize("teacher_name", list(TEACHERS))
@pytest.mark.parametrize("config", CONFIG_NAMES)
def test_population_gradient_vs_finite_differences(teacher_name: str, config: str) -> None:
    teacher = TEACHERS[teacher_name]
    a, W = _config(config)
    m, d = W.shape
    g = population_gradient(Network(a, W), teacher)
    assert np.all(np.isfinite(g.a)) and np.all(np.isfinite(g.W))
    fd = _fd_gradient(lambda th: float(population_loss(Network(*_unflat(th, m, d)), teacher)), _flat(a, W), h=1e-6)
    np.testing.assert_allclose(_flat(g.a, g.W), fd, rtol=1e-6, atol=1e-8)


def test_gradient_vanishes_at_the_teacher() -> None:
    teacher = standard_model(5)
    for a, W in [
        (np.array([1.0]), np.eye(5)[:1]),
        (np.array([0.5, 2.0]), np.array([[1.0, 0, 0, 0, 0], [0.25, 0, 0, 0, 0]])),
    ]:
        g = population_gradient(Network(a, W), teacher)
        np.testing.assert_allclose(_flat(g.a, g.W), 0.0, atol=1e-15)


@pytest.mark.parametrize("teacher_name", ["k1", "k3_general"])
@pytest.mark.parametrize("seed", [2, 3])
def test_population_hessian_vs_finite_differences(teacher_name: str, seed: int) -> None:
    teacher = TEACHERS[teacher_name]
    a, W = _random_params(3, 4, seed=seed)
    m, d = W.shape
    H = population_hessian(Network(a, W), teacher)
    assert H.shape == (m * (d + 1),) * 2
    np.testing.assert_allclose(H, H.T, atol=1e-13)

    def grad(th):
        g = population_gradient(Network(*_unflat(th, m, d)), teacher)
        return _flat(g.a, g.W)

    fd = _fd_gradient(grad, _flat(a, W), h=1e-5)
    np.testing.assert_allclose(H, fd, atol=2e-8)


@pytest.mark.parametrize("config", ["duplicates", "initial", "on_teacher", "antipodal"])
def test_population_hessian_at_duplicates_and_antipodes(config: str) -> None:
    """At φ = 0 and φ = π the gradient is only C¹ (κ has a |Δw|³ term), so differences of
    step h converge at rate O(h): the error must fall ~100x when h does."""
    teacher = TEACHERS["k1"]
    a, W = SPECIAL[config]
    m, d = W.shape
    H = population_hessian(Network(a, W), teacher)
    assert np.all(np.isfinite(H))
    np.testing.assert_allclose(H, H.T, atol=1e-13)

    def grad(th):
        g = population_gradient(Network(*_unflat(th, m, d)), teacher)
        return _flat(g.a, g.W)

    err = [np.max(np.abs(H - _fd_gradient(grad, _flat(a, W), h=h))) for h in (1e-5, 1e-7)]
    assert err[1] <= 0.05 * err[0] + 1e-9
    assert err[1] <= 1e-6 * max(1.0, np.max(np.abs(H)))


def test_population_hessian_batched() -> None:
    teacher = TEACHERS["k2"]
    rng = np.random.default_rng(4)
    a, W = rng.standard_normal((3, 2)), rng.standard_normal((3, 2, 4))
    H = population_hessian(Network(a, W), teacher)
    assert H.shape == (3, 10, 10)
    for b in range(3):
        np.testing.assert_allclose(H[b], population_hessian(Network(a[b], W[b]), teacher), rtol=1e-13, atol=1e-15)


# ------------------------------------------------------------------------------------
# function coordinates


@pytest.mark.parametrize("config", CONFIG_NAMES)
def test_function_gradient_relations(config: str) -> None:
    teacher = TEACHERS["k3_general"]
    a, W = _config(config)
    g = population_gradient(Network(a, W), teacher)
    c, U = function_coordinates(Network(a, W))
    fg = function_gradient(c, U, teacher)
    norm = np.linalg.norm(W, axis=-1)
    # ∂L/∂c = (∂L/∂a) / ‖w‖
    np.testing.assert_allclose(fg.coefficient, g.a / norm, rtol=1e-12, atol=1e-14)
    # u·∂L/∂w = a ∂L/∂c and (I − uuᵀ) ∂L/∂w = grad_u L / ‖w‖
    np.testing.assert_allclose(np.sum(g.W * U, axis=-1), a * fg.coefficient, rtol=1e-12, atol=1e-14)
    tangent = g.W - np.sum(g.W * U, axis=-1, keepdims=True) * U
    np.testing.assert_allclose(fg.direction, norm[:, None] * tangent, rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(np.sum(fg.direction * U, axis=-1), 0.0, atol=1e-14)


def test_function_gradient_vs_finite_differences_in_c_and_u() -> None:
    """(c, u) parametrize the same function as (a, w) = (c, u): differentiate that directly."""
    teacher = TEACHERS["k2"]
    rng = np.random.default_rng(5)
    c = rng.standard_normal(3)
    U = rng.standard_normal((3, 4))
    U /= np.linalg.norm(U, axis=1, keepdims=True)
    fg = function_gradient(c, U, teacher)
    fd_c = _fd_gradient(lambda cc: float(population_loss(Network(cc, U), teacher)), c, h=1e-6)
    np.testing.assert_allclose(fg.coefficient, fd_c, rtol=1e-7, atol=1e-9)
    fd_u = _fd_gradient(
        lambda uu: float(population_loss(Network(c, uu.reshape(3, 4)), teacher)), U.ravel(), 1e-6
    ).reshape(3, 4)
    # population_loss(Network(c, U)) is degree-one homogeneous in each u_j: project to the sphere
    fd_u -= np.sum(fd_u * U, axis=-1, keepdims=True) * U
    np.testing.assert_allclose(fg.direction, fd_u, rtol=1e-6, atol=1e-8)


# ------------------------------------------------------------------------------------
# mobilities and the dissipation identity (C3)


def test_mobility_closed_forms_vs_parameters() -> None:
    rng = np.random.default_rng(6)
    a = rng.standard_normal(200) * np.exp(rng.uniform(-6, 6, 200))
    w_norm = np.exp(rng.uniform(-6, 6, 200))
    c, delta = a * w_norm, a**2 - w_norm**2
    np.testing.assert_allclose(reaction_mobility(c, delta), a**2 + w_norm**2, rtol=1e-12)
    np.testing.assert_allclose(transport_mobility(c, delta), 1 / w_norm**2, rtol=1e-9)


@pytest.mark.parametrize("D", [0.5, 4.0, 64.0, 1e4])
@pytest.mark.parametrize("c", [1e-3, 0.1, 1.0, -0.7])
def test_mobility_gauge_ratio(D: float, c: float) -> None:
    Mc_plus, Mc_minus = reaction_mobility(c, D), reaction_mobility(c, -D)
    assert Mc_plus == Mc_minus == pytest.approx(np.sqrt(D**2 + 4 * c**2), rel=1e-15)
    ratio = transport_mobility(c, D) / transport_mobility(c, -D)
    assert ratio == pytest.approx((D + np.sqrt(D**2 + 4 * c**2)) ** 2 / (4 * c**2), rel=1e-12)
    # and against the parameters built from (c, ±D) in 60-digit arithmetic
    import mpmath as mp

    mp.mp.dps = 60
    w_sq = [(-s * mp.mpf(D) + mp.sqrt(mp.mpf(D) ** 2 + 4 * mp.mpf(c) ** 2)) / 2 for s in (1, -1)]
    assert transport_mobility(c, D) == pytest.approx(float(1 / w_sq[0]), rel=1e-13)
    assert transport_mobility(c, -D) == pytest.approx(float(1 / w_sq[1]), rel=1e-13)
    # Θ(D²/c²): the ratio is within a factor 1.01 of D²/c² once D ≫ |c|
    if D / abs(c) >= 100:
        assert ratio * c**2 / D**2 == pytest.approx(1.0, rel=1e-2)


def _configs_for_dissipation() -> list[tuple[str, np.ndarray, np.ndarray, Teacher]]:
    out = []
    for i in range(6):
        a, W = _random_params(1 + i % 4, 4, seed=20 + i)
        out.append((f"random{i}", a, W, TEACHERS[list(TEACHERS)[i % 3]]))
    for name, (a, W) in SPECIAL.items():
        out.append((name, a, W, TEACHERS["k1"]))
    t16 = standard_model(16)
    for deltas in [np.array([4.0]), np.array([-4.0]), np.array([0.0]), owner_imbalances(5, 32.0, 2)]:
        a, W = duplicate_initial_condition(t16, deltas)
        out.append((f"ic{deltas.tolist()}", a, W, t16))
    return out


@pytest.mark.parametrize(
    ("name", "a", "W", "teacher"), _configs_for_dissipation(), ids=lambda x: x if isinstance(x, str) else ""
)
def test_c3_dissipation_identity(name: str, a: np.ndarray, W: np.ndarray, teacher: Teacher) -> None:
    diss = dissipation(Network(a, W), teacher)
    g = population_gradient(Network(a, W), teacher)
    gsq = np.sum(g.a**2) + np.sum(g.W**2)
    assert diss.grad_norm_sq == pytest.approx(gsq, rel=1e-14)
    assert gsq > 0
    assert diss.residual <= 1e-10
    # independent split from the parameter gradient: R = Σ (a²+‖w‖²)(∂L/∂a / ‖w‖)²,
    # T = Σ ‖(I − uuᵀ) ∂L/∂w‖²
    norm = np.linalg.norm(W, axis=-1)
    U = W / norm[:, None]
    R_ref = np.sum((a**2 + norm**2) * (g.a / norm) ** 2)
    T_ref = np.sum((g.W - np.sum(g.W * U, axis=-1, keepdims=True) * U) ** 2)
    assert diss.reaction == pytest.approx(R_ref, rel=1e-10, abs=1e-14 * gsq)
    assert diss.transport == pytest.approx(T_ref, rel=1e-8, abs=1e-14 * gsq)
    assert diss.reaction >= 0 and diss.transport >= 0


def test_c3_flow_velocities_in_function_coordinates() -> None:
    """Under θ̇ = −∇L: ċ = −M^c ∂L/∂c and u̇ = −M^u grad_u L, with ċ, u̇ obtained by the chain rule."""
    teacher = TEACHERS["k2"]
    for a, W in [_random_params(3, 4, seed=30), SPECIAL["initial"], SPECIAL["duplicates"]]:
        g = population_gradient(Network(a, W), teacher)
        a_dot, W_dot = -g.a, -g.W
        norm = np.linalg.norm(W, axis=-1)
        U = W / norm[:, None]
        c_dot = a_dot * norm + a * np.sum(U * W_dot, axis=-1)
        u_dot = (W_dot - np.sum(U * W_dot, axis=-1, keepdims=True) * U) / norm[:, None]
        c, _ = function_coordinates(Network(a, W))
        delta = imbalance(Network(a, W))
        fg = function_gradient(c, U, teacher)
        np.testing.assert_allclose(c_dot, -reaction_mobility(c, delta) * fg.coefficient, rtol=1e-10, atol=1e-14)
        np.testing.assert_allclose(u_dot, -transport_mobility(c, delta)[:, None] * fg.direction, rtol=1e-8, atol=1e-13)
        # d/dt δ = 2 a ȧ − 2 w·ẇ = 0 exactly (the conservation law behind C2), up to the rounding of two
        # sums of m + k ≤ 8 pair terms of a few ulps each: 32 ε of the terms' magnitude (the numpy
        # route was measured at ≤ 21 ε, the compiled one at ≤ 1.5 ε)
        a_term, w_term = 2 * a * a_dot, 2 * np.sum(W * W_dot, axis=-1)
        assert np.all(np.abs(a_term - w_term) <= 32 * EPS * (np.abs(a_term) + np.abs(w_term)))


def test_dissipation_batched() -> None:
    teacher = standard_model(4)
    a, W = duplicate_initial_condition(teacher, np.array([[4.0, -4.0], [-4.0, 4.0], [0.0, 0.0]]))
    diss = dissipation(Network(a, W), teacher)
    assert diss.reaction.shape == (3,)
    assert np.all(diss.residual <= 1e-10)
    for b in range(3):
        single = dissipation(Network(a[b], W[b]), teacher)
        assert diss.transport[b] == pytest.approx(float(single.transport), rel=1e-13)


def test_pair_hessian_blocks_are_the_blocks_of_the_full_hessian() -> None:
    """The O(m d²) pair blocks equal the corresponding blocks of the whole Hessian (itself
    checked against finite differences above), batched, with k = 2 teacher features."""
    from gaugecli.core.analyses.symmetry import _neuron_indices
    from gaugecli.core.population.dynamics import pair_hessian_blocks

    teacher = standard_model(5, k=2)
    rng = np.random.default_rng(1)
    a, W = rng.standard_normal((3, 4)), rng.standard_normal((3, 4, 5))
    H = population_hessian(Network(a, W), teacher)
    for i, j in [(0, 1), (2, 3), (3, 0)]:
        ii, jj = _neuron_indices(i, 4, 5), _neuron_indices(j, 4, 5)
        H_ii, H_ij = pair_hessian_blocks(Network(a, W), teacher, (i, j))
        np.testing.assert_allclose(H_ii, H[..., ii[:, None], ii[None, :]], rtol=1e-13, atol=1e-15)
        np.testing.assert_allclose(H_ij, H[..., ii[:, None], jj[None, :]], rtol=1e-13, atol=1e-15)
