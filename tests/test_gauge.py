"""The hidden gauge: (c, u, δ) ↔ (a, w), named gauges, and the complete initial function (C1)."""

from __future__ import annotations

import numpy as np
import pytest

from gaugecli.core.model.gauge import (
    Gauge,
    duplicate_initial_condition,
    function_coordinates,
    gauge_imbalance,
    imbalance,
    initial_direction,
    owner_imbalances,
    parameters_from_function,
)
from gaugecli.core.model.model import Model, standard_model
from gaugecli.core.model.state import Network
from gaugecli.core.model.teacher import Teacher
from gaugecli.core.population.dynamics import population_loss


def _mp_norm_sq(c: float, delta: float) -> tuple[float, float]:
    """(a², ‖w‖²) from the textbook formula in 60-digit arithmetic (no cancellation issue)."""
    import mpmath as mp

    mp.mp.dps = 60
    c, delta = mp.mpf(c), mp.mpf(delta)
    w_sq = (-delta + mp.sqrt(delta**2 + 4 * c**2)) / 2
    return float(delta + w_sq), float(w_sq)


CASES = [
    (0.1, 4.0),
    (0.1, -4.0),
    (0.1, 0.0),
    (-0.37, 2.5),
    (-0.37, -2.5),
    (1.0, 1e4),
    (1.0, -1e4),
    (1e-3, 1e4),
    (1e-3, -1e4),
    (1e-9, 1e4),
    (-1e-9, -1e4),
    (1e-12, 1.0),
    (1e-12, -1.0),
    (2.0, 1e-12),
    (5.0, -3.0),
]


@pytest.mark.parametrize(("c", "delta"), CASES)
def test_parameters_from_function_round_trip(c: float, delta: float) -> None:
    rng = np.random.default_rng(abs(hash((c, delta))) % 2**32)
    u = rng.standard_normal(6) * 3.7  # not unit: the inverse must normalize it
    a, W = parameters_from_function(np.array([c]), u[None], np.array([delta]))
    c_back, U_back = function_coordinates(Network(a, W))
    assert c_back[0] == pytest.approx(c, rel=1e-13)
    np.testing.assert_allclose(U_back[0], u / np.linalg.norm(u), rtol=1e-14, atol=1e-15)
    # the imbalance is recovered to round-off of the larger of a², ‖w‖²
    assert abs(imbalance(Network(a, W))[0] - delta) <= 2e-15 * max(a[0] ** 2, np.sum(W**2))
    # each of a², ‖w‖² has full relative accuracy, even the tiny one (no cancellation)
    a_sq_ref, w_sq_ref = _mp_norm_sq(c, delta)
    assert a[0] ** 2 == pytest.approx(a_sq_ref, rel=1e-13)
    assert np.sum(W**2) == pytest.approx(w_sq_ref, rel=1e-13)
    assert np.sign(a[0]) == np.sign(c)


def test_round_trip_from_random_parameters() -> None:
    """(a, w) → (c, u, δ) → (a, w) is the identity (a ≠ 0, w ≠ 0)."""
    rng = np.random.default_rng(0)
    a = rng.standard_normal((4, 7)) * np.exp(rng.uniform(-5, 5, (4, 7)))
    W = rng.standard_normal((4, 7, 3)) * np.exp(rng.uniform(-5, 5, (4, 7, 1)))
    c, U = function_coordinates(Network(a, W))
    a2, W2 = parameters_from_function(c, U, imbalance(Network(a, W)))
    np.testing.assert_allclose(a2, a, rtol=1e-10)
    np.testing.assert_allclose(W2, W, rtol=1e-10)


def test_function_coordinates_and_imbalance_hand_values() -> None:
    a = np.array([2.0, -0.5])
    W = np.array([[3.0, 4.0], [0.0, 0.1]])
    c, U = function_coordinates(Network(a, W))
    np.testing.assert_allclose(c, [10.0, -0.05])
    np.testing.assert_allclose(U, [[0.6, 0.8], [0.0, 1.0]])
    np.testing.assert_allclose(imbalance(Network(a, W)), [4.0 - 25.0, 0.25 - 0.01])


def test_gauge_rescaling_invariance() -> None:
    """(a, w) → (a/λ, λw) leaves (c, u) unchanged and moves δ: it is the gauge."""
    rng = np.random.default_rng(1)
    a, W = rng.standard_normal(5), rng.standard_normal((5, 4))
    c, U = function_coordinates(Network(a, W))
    for lam in [1e-3, 0.5, 7.0]:
        c2, U2 = function_coordinates(Network(a / lam, lam * W))
        np.testing.assert_allclose(c2, c, rtol=1e-14)
        np.testing.assert_allclose(U2, U, rtol=1e-14, atol=1e-15)
        np.testing.assert_allclose(imbalance(Network(a / lam, lam * W)), a**2 / lam**2 - lam**2 * np.sum(W**2, axis=1))


def test_named_gauges_and_balance() -> None:
    c, u = np.array([0.3]), np.array([[0.0, 1.0]])
    a, W = parameters_from_function(c, u, np.array([0.0]))  # balanced: a² = ‖w‖² = |c|
    assert a[0] ** 2 == pytest.approx(0.3) and np.sum(W**2) == pytest.approx(0.3)
    a, W = parameters_from_function(c, u, np.array([4.0]))  # favorable: output-heavy
    assert a[0] ** 2 > 4.0 > np.sum(W**2)
    a, W = parameters_from_function(c, u, np.array([-4.0]))  # unfavorable: input-heavy
    assert np.sum(W**2) > 4.0 > a[0] ** 2


def test_zero_coefficient() -> None:
    a, W = parameters_from_function(np.array([0.0, 0.0]), np.array([[1.0, 0.0], [0.0, 2.0]]), np.array([4.0, -4.0]))
    np.testing.assert_allclose(a, [2.0, 0.0])
    np.testing.assert_allclose(W, [[0.0, 0.0], [0.0, 2.0]])


@pytest.mark.parametrize(
    ("gauge", "strength", "expected"),
    [
        ("favorable", 4.0, 4.0),
        ("unfavorable", 4.0, -4.0),
        ("balanced", 4.0, 0.0),
        (Gauge.favorable, 2.5, 2.5),
        (Gauge.unfavorable, 1024, -1024.0),
        (Gauge.balanced, 7.0, 0.0),
        (2.5, 4.0, 2.5),
        (-3, 4.0, -3.0),
        (0.0, 4.0, 0.0),
        (np.float64(-0.75), 4.0, -0.75),
    ],
)
def test_gauge_imbalance(gauge, strength, expected) -> None:
    got = gauge_imbalance(gauge, strength)
    assert isinstance(got, float)
    assert got == expected


@pytest.mark.parametrize("bad", ["neutral", "Favorable", "", True])
def test_gauge_imbalance_rejects_unknown_words(bad) -> None:
    with pytest.raises(ValueError):
        gauge_imbalance(bad, 4.0)


def test_owner_imbalances() -> None:
    np.testing.assert_array_equal(owner_imbalances(5, 4.0, 2), [-4.0, -4.0, 4.0, -4.0, -4.0])
    np.testing.assert_array_equal(owner_imbalances(1, 3.0), [3.0])
    np.testing.assert_array_equal(owner_imbalances(3, 8.0), [8.0, -8.0, -8.0])
    for bad in [-1, 5, 6]:
        with pytest.raises(ValueError, match="owner"):
            owner_imbalances(5, 4.0, bad)


# ------------------------------------------------------------------------------------
# the complete initial function (C1)


def _student(a: np.ndarray, W: np.ndarray, X: np.ndarray) -> np.ndarray:
    return np.maximum(X @ W.T, 0.0) @ a


@pytest.mark.parametrize("d", [2, 5, 16])
@pytest.mark.parametrize("D", [0.5, 4.0, 64.0, 1e4])
def test_c1_invisibility_across_gauges_and_m(d: int, D: float) -> None:
    teacher = standard_model(d)
    c0 = 0.1
    X = np.random.default_rng(d).standard_normal((500, d))
    u0 = np.eye(d)[1]  # SPEC default u0 = e2 at θ0 = π/2
    f0 = c0 * np.maximum(X @ u0, 0.0)  # independent: the function itself
    loss0 = None
    for m in [1, 2, 3, 7]:
        settings = [np.full(m, D), np.full(m, -D), np.zeros(m)]
        if m > 1:
            settings += [owner_imbalances(m, D, m - 1), np.linspace(-D, D, m)]
        for deltas in settings:
            a, W = duplicate_initial_condition(teacher, deltas, c0=c0)
            assert a.shape == (m,) and W.shape == (m, d)
            np.testing.assert_allclose(imbalance(Network(a, W)), deltas, rtol=1e-12, atol=1e-12 * max(1.0, D))
            f = _student(a, W, X)
            np.testing.assert_allclose(f, f0, rtol=1e-12, atol=0)
            L = float(population_loss(Network(a, W), teacher))
            loss0 = L if loss0 is None else loss0
            assert L == pytest.approx(loss0, rel=1e-12)
    # and the common loss is the one of f0 = c0 relu(u0·x) against relu(v·x), u0 ⊥ v:
    # ½ (c0²/2 − 2 c0/(2π) + 1/2)
    assert loss0 == pytest.approx(0.5 * (c0**2 / 2 - c0 / np.pi + 0.5), rel=1e-13)


def test_c1_invisibility_batched_deltas() -> None:
    teacher = standard_model(4)
    deltas = np.array([[4.0, -4.0, -4.0], [-4.0, 4.0, -4.0], [0.0, 0.0, 0.0], [1e3, -1e3, 2.0]])
    a, W = duplicate_initial_condition(teacher, deltas, c0=0.3)
    assert a.shape == (4, 3) and W.shape == (4, 3, 4)
    L = population_loss(Network(a, W), teacher)
    np.testing.assert_allclose(L, L[0], rtol=1e-12)
    c, U = function_coordinates(Network(a, W))
    np.testing.assert_allclose(c, 0.1, rtol=1e-13)
    np.testing.assert_allclose(U, np.broadcast_to(np.eye(4)[1], U.shape), atol=1e-15)


@pytest.mark.parametrize("theta0", [0.0, 0.3, np.pi / 4, np.pi / 2, 2.0, 3.0])
def test_initial_angle_is_honored(theta0: float) -> None:
    teacher = standard_model(6)
    a, W = duplicate_initial_condition(teacher, np.array([4.0, -4.0]), c0=0.2, theta0=theta0)
    c, U = function_coordinates(Network(a, W))
    np.testing.assert_allclose(U @ np.eye(6)[0], np.cos(theta0), atol=1e-14)
    np.testing.assert_allclose(np.linalg.norm(U, axis=1), 1.0, rtol=1e-15)
    np.testing.assert_allclose(c, 0.1, rtol=1e-13)
    # the direction lies in the (e1, e2) plane, on the e2 side
    np.testing.assert_allclose(U[:, 2:], 0.0, atol=1e-15)
    np.testing.assert_allclose(U[:, 1], np.sin(theta0), atol=1e-14)


def test_initial_direction_for_a_non_axis_teacher() -> None:
    v = np.array([2.0, 2.0, 0.0, 1.0])  # non-unit, not axis-aligned
    teacher = Model(Teacher(coefficients=np.array([1.5]), directions=v[None]))
    for theta0 in [0.1, np.pi / 2, 2.5]:
        u0 = initial_direction(teacher, theta0)
        assert np.linalg.norm(u0) == pytest.approx(1.0, rel=1e-14)
        assert u0 @ v / np.linalg.norm(v) == pytest.approx(np.cos(theta0), abs=1e-14)


@pytest.mark.parametrize("k", [2, 3])
def test_k_feature_teacher_orthogonality(k: int) -> None:
    d = 6
    teacher = standard_model(d, k=k, a_star=0.8)
    assert teacher.k == k and teacher.d == d
    np.testing.assert_array_equal(teacher.directions, np.eye(d)[:k])
    a, W = duplicate_initial_condition(teacher, owner_imbalances(3, 4.0, 1))
    c, U = function_coordinates(Network(a, W))
    np.testing.assert_allclose(c, 0.1 / 3, rtol=1e-13)
    # θ0 = π/2: orthogonal to every feature
    np.testing.assert_allclose(U @ teacher.directions.T, 0.0, atol=1e-15)
    # and the initial loss is the orthogonal closed form: ½(c0²/2 − 2 c0 Σ b_k/(2π) + Σ_kl b_k b_l κ(v_k, v_l))
    b = 0.8
    L_ref = 0.5 * (0.01 / 2 - 2 * 0.1 * k * b / (2 * np.pi) + k * b**2 / 2 + k * (k - 1) * b**2 / (2 * np.pi))
    assert float(population_loss(Network(a, W), teacher)) == pytest.approx(L_ref, rel=1e-13)
    # general θ0 for a k-feature teacher of non-axis directions: angle to v_1 is θ0, ⊥ others
    V = np.array([[1.0, 1.0, 0, 0, 0, 0], [0, 1.0, -1.0, 0, 0, 0], [0, 0, 0, 2.0, 0, 0]])[:k]
    t2 = Model(Teacher(coefficients=np.ones(k), directions=V))
    u0 = initial_direction(t2, 0.7)
    Vhat = V / np.linalg.norm(V, axis=1, keepdims=True)
    assert u0 @ Vhat[0] == pytest.approx(np.cos(0.7), abs=1e-14)
    # the component off v_1 is orthogonal to all teacher features
    r = u0 - np.cos(0.7) * Vhat[0]
    np.testing.assert_allclose(Vhat[1:] @ r, 0.0, atol=1e-14)


def test_standard_teacher_requires_room_for_u0() -> None:
    with pytest.raises(ValueError, match="k \\+ 1"):
        standard_model(2, k=2)
    with pytest.raises(ValueError):
        Teacher(coefficients=np.ones(2), directions=np.eye(3)[:1])
    with pytest.raises(ValueError):
        Teacher(coefficients=np.ones(1), directions=np.zeros((1, 3)))
