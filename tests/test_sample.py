"""Finite-sample training: the empirical loss and its hand-written gradient, and the
n^{-1/2} approach of finite-sample GD to population GD (C8c)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from gaugecli.core.dynamics import population_loss
from gaugecli.core.gauge import duplicate_initial_condition, owner_imbalances
from gaugecli.core.integrate import gradient_descent
from gaugecli.core.sample import draw_sample, empirical_loss, empirical_oracle
from gaugecli.core.teacher import Teacher, standard_teacher

d = 4
TEACHER = standard_teacher(d)
TEACHER3 = Teacher(coefficients=np.array([1.0, -0.5, 0.8]), directions=np.random.default_rng(9).standard_normal((3, d)))


def _torch_loss_and_grad(a: np.ndarray, W: np.ndarray, X: np.ndarray, y: np.ndarray):
    """L_n and its autograd gradient from scratch (sum over batch members)."""
    at = torch.tensor(a, dtype=torch.float64, requires_grad=True)
    Wt = torch.tensor(W, dtype=torch.float64, requires_grad=True)
    Xt, yt = torch.tensor(X, dtype=torch.float64), torch.tensor(y, dtype=torch.float64)
    f = torch.einsum("...nm,...m->...n", torch.relu(torch.einsum("nd,...md->...nm", Xt, Wt)), at)
    loss = 0.5 * ((f - yt) ** 2).mean(dim=-1)
    ga, gW = torch.autograd.grad(loss.sum(), (at, Wt))
    return loss.detach().numpy(), ga.numpy(), gW.numpy()


def _configs():
    rng = np.random.default_rng(1)
    return {
        "random": (rng.standard_normal(3), rng.standard_normal((3, d))),
        "initial": duplicate_initial_condition(TEACHER, owner_imbalances(3, 4.0, 0)),
        "initial_unfav": duplicate_initial_condition(TEACHER, np.array([-16.0, -16.0])),
        "batched": (rng.standard_normal((2, 3, 2)), rng.standard_normal((2, 3, 2, d))),
    }


CONFIGS = _configs()


@pytest.mark.parametrize("teacher", [TEACHER, TEACHER3], ids=["k1", "k3"])
@pytest.mark.parametrize("name", list(CONFIGS))
def test_empirical_oracle_vs_torch_autograd(teacher: Teacher, name: str) -> None:
    a, W = CONFIGS[name]
    X, y = draw_sample(teacher, 300, seed=4)
    ga, gW, loss = empirical_oracle(X, y)(a, W)
    ref_loss, ref_ga, ref_gW = _torch_loss_and_grad(a, W, X, y)
    assert ga.shape == a.shape and gW.shape == W.shape and loss.shape == a.shape[:-1]
    np.testing.assert_allclose(loss, ref_loss, rtol=1e-13)
    np.testing.assert_allclose(ga, ref_ga, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(gW, ref_gW, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("name", ["random", "initial"])
def test_empirical_oracle_vs_finite_differences(name: str) -> None:
    a, W = CONFIGS[name]
    m = a.size
    X, y = draw_sample(TEACHER3, 200, seed=5)
    ga, gW, _ = empirical_oracle(X, y)(a, W)
    theta = np.concatenate([a, W.ravel()])
    h = 1e-7  # smaller than the distance of every w_j·x_i to the kink

    def L(th):
        return float(empirical_loss(th[:m], th[m:].reshape(m, d), X, y))

    margin = np.min(np.abs(X @ W.T))
    assert margin > 1e3 * h * np.max(np.abs(X))
    fd = np.array([(L(theta + h * e) - L(theta - h * e)) / (2 * h) for e in np.eye(theta.size)])
    np.testing.assert_allclose(np.concatenate([ga, gW.ravel()]), fd, rtol=1e-6, atol=1e-9)


def test_empirical_loss_vs_direct_loop() -> None:
    X, y = draw_sample(TEACHER3, 50, seed=6)
    a, W = CONFIGS["random"]
    total = 0.0
    for i in range(X.shape[0]):
        f = sum(a[j] * max(W[j] @ X[i], 0.0) for j in range(a.size))
        total += (f - y[i]) ** 2
    assert float(empirical_loss(a, W, X, y)) == pytest.approx(total / (2 * X.shape[0]), rel=1e-13)
    # batched members equal per-member calls
    aB, WB = CONFIGS["batched"]
    LB = empirical_loss(aB, WB, X, y)
    assert LB.shape == (2, 3)
    for b in np.ndindex(2, 3):
        assert LB[b] == pytest.approx(float(empirical_loss(aB[b], WB[b], X, y)), rel=1e-13)


def test_draw_sample_is_seeded_and_labelled_by_the_teacher() -> None:
    X, y = draw_sample(TEACHER3, 7, seed=123)
    X_ref = np.random.default_rng(123).standard_normal((7, d))
    np.testing.assert_array_equal(X, X_ref)
    y_ref = np.array(
        [sum(b * max(v @ x, 0.0) for b, v in zip(TEACHER3.coefficients, TEACHER3.directions, strict=True)) for x in X]
    )
    np.testing.assert_allclose(y, y_ref, rtol=1e-14, atol=1e-15)
    X2, _ = draw_sample(TEACHER3, 7, seed=124)
    assert not np.array_equal(X, X2)


def test_empirical_loss_is_an_unbiased_estimate_of_the_population_loss() -> None:
    a, W = CONFIGS["random"]
    X, y = draw_sample(TEACHER3, 400_000, seed=7)
    f = np.maximum(X @ W.T, 0.0) @ a
    q = 0.5 * (f - y) ** 2
    se = q.std() / np.sqrt(q.size)
    assert float(empirical_loss(a, W, X, y)) == pytest.approx(q.mean(), rel=1e-12)
    assert abs(float(empirical_loss(a, W, X, y)) - float(population_loss(a, W, TEACHER3))) <= 4 * se


def test_finite_sample_gd_records_the_empirical_loss() -> None:
    a0, W0 = duplicate_initial_condition(TEACHER, np.array([4.0]))
    X, y = draw_sample(TEACHER, 1000, seed=8)
    tr = gradient_descent(a0, W0, TEACHER, 0.05, t_max=1.0, oracle=empirical_oracle(X, y))
    assert tr.empirical_loss is not None and tr.empirical_loss.shape == tr.t.shape
    np.testing.assert_allclose(tr.empirical_loss, empirical_loss(tr.a, tr.W, X, y), rtol=1e-12)
    # GD by hand for two steps
    oracle = empirical_oracle(X, y)
    a, W = a0.copy(), W0.copy()
    for _ in range(2):
        ga, gW, _ = oracle(a, W)
        a, W = a - 0.05 * ga, W - 0.05 * gW
    k = int(np.flatnonzero(np.isclose(tr.t, 0.1))[0])
    np.testing.assert_allclose(tr.a[k], a, rtol=1e-13)
    np.testing.assert_allclose(tr.W[k], W, rtol=1e-13, atol=1e-17)


def test_finite_sample_deviation_shrinks_like_inverse_sqrt_n() -> None:
    """sup_t |L_n(θ_n(t)) − L(θ(t))| for empirical vs population GD (same η, same init):
    root-mean-square over seeds, fitted against n on log–log axes."""
    a0, W0 = duplicate_initial_condition(TEACHER, np.array([4.0]))
    eta, t_max = 0.05, 2.0
    pop = gradient_descent(a0, W0, TEACHER, eta, t_max)
    L_pop = population_loss(pop.a, pop.W, TEACHER)
    ns = np.array([500, 2000, 8000, 32000])
    seeds = 24
    rms = []
    for n in ns:
        devs = []
        for s in range(seeds):
            X, y = draw_sample(TEACHER, int(n), seed=1000 * s + 17)
            emp = gradient_descent(a0, W0, TEACHER, eta, t_max, oracle=empirical_oracle(X, y))
            np.testing.assert_array_equal(emp.t, pop.t)
            devs.append(np.max(np.abs(emp.empirical_loss - L_pop)))
        rms.append(np.sqrt(np.mean(np.square(devs))))
    rms = np.array(rms)
    assert np.all(np.diff(rms) < 0)
    slope = np.polyfit(np.log(ns), np.log(rms), 1)[0]
    assert slope == pytest.approx(-0.5, abs=0.2)
    # and the population trajectory specialises in this window while the deviation is small
    assert np.isfinite(pop.crossing_times[0])
    assert rms[-1] < 0.05 * L_pop[0]
