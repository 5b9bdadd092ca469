"""Finite-sample training: the empirical loss, its hand-written gradient and Hessian,
minibatches, the flow on L_n against small-step GD on the same sample, and the n^{-1/2}
approach of finite-sample GD to population GD (C8c)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
import torch

from gaugecli.core.integrate.descent import gradient_descent
from gaugecli.core.integrate.flow import FlowOptions, gradient_flow
from gaugecli.core.model.gauge import duplicate_initial_condition, owner_imbalances
from gaugecli.core.model.model import Model, standard_model
from gaugecli.core.model.state import Network
from gaugecli.core.model.teacher import Teacher
from gaugecli.core.population.dynamics import population_loss
from gaugecli.core.samples.empirical import EmpiricalSample
from gaugecli.core.samples.sample import (
    empirical_hessian,
    empirical_loss,
    empirical_loss_along,
    empirical_objective,
    empirical_oracle,
    minibatch_oracle,
    sample_memory_estimate,
)
from gaugecli.core.samples.sample_draw import DEFAULT_CHUNK_BYTES, draw_sample, resolve_device

d = 4
TEACHER = standard_model(d)
TEACHER3 = Model(
    Teacher(coefficients=np.array([1.0, -0.5, 0.8]), directions=np.random.default_rng(9).standard_normal((3, d)))
)


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
        return float(empirical_loss(Network(th[:m], th[m:].reshape(m, d)), X, y))

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
    assert float(empirical_loss(Network(a, W), X, y)) == pytest.approx(total / (2 * X.shape[0]), rel=1e-13)
    # batched members equal per-member calls
    aB, WB = CONFIGS["batched"]
    LB = empirical_loss(Network(aB, WB), X, y)
    assert LB.shape == (2, 3)
    for b in np.ndindex(2, 3):
        assert LB[b] == pytest.approx(float(empirical_loss(Network(aB[b], WB[b]), X, y)), rel=1e-13)


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
    assert float(empirical_loss(Network(a, W), X, y)) == pytest.approx(q.mean(), rel=1e-12)
    assert abs(float(empirical_loss(Network(a, W), X, y)) - float(population_loss(Network(a, W), TEACHER3))) <= 4 * se


def test_finite_sample_gd_records_the_empirical_loss() -> None:
    a0, W0 = duplicate_initial_condition(TEACHER, np.array([4.0]))
    X, y = draw_sample(TEACHER, 1000, seed=8)
    tr = gradient_descent(Network(a0, W0), TEACHER, 0.05, t_max=1.0, oracle=empirical_oracle(X, y))
    assert tr.empirical_loss is not None and tr.empirical_loss.shape == tr.t.shape
    np.testing.assert_allclose(tr.empirical_loss, empirical_loss(Network(tr.a, tr.W), X, y), rtol=1e-12)
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
    pop = gradient_descent(Network(a0, W0), TEACHER, eta, t_max)
    L_pop = population_loss(Network(pop.a, pop.W), TEACHER)
    ns = np.array([500, 2000, 8000, 32000])
    seeds = 24
    rms = []
    for n in ns:
        devs = []
        for s in range(seeds):
            X, y = draw_sample(TEACHER, int(n), seed=1000 * s + 17)
            emp = gradient_descent(Network(a0, W0), TEACHER, eta, t_max, oracle=empirical_oracle(X, y))
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


# ------------------------------------------------------------------------------------
# the empirical Hessian, minibatches, and the finite-sample flow


def _torch_hessian(a: np.ndarray, W: np.ndarray, X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """∇²L_n by autograd (double backward through relu, whose second derivative is 0 a.e.)."""
    m, d = W.shape
    Xt, yt = torch.tensor(X), torch.tensor(y)

    def loss(theta: torch.Tensor) -> torch.Tensor:
        at, Wt = theta[:m], theta[m:].reshape(m, d)
        f = torch.relu(Xt @ Wt.T) @ at
        return 0.5 * ((f - yt) ** 2).mean()

    theta = torch.tensor(np.concatenate([a, W.ravel()]))
    return torch.autograd.functional.hessian(loss, theta).numpy()


@pytest.mark.parametrize("name", ["random", "initial", "initial_unfav"])
def test_empirical_hessian_vs_autograd_and_finite_differences(name: str) -> None:
    """Gauss–Newton part plus the a–w cross terms equals autograd's Hessian and central
    differences of the closed-form gradient (away from the kinks)."""
    a, W = CONFIGS[name]
    m = a.size
    X, y = draw_sample(TEACHER3, 300, seed=11)
    H = empirical_hessian(Network(a, W), X, y)
    assert H.shape == (m * (d + 1), m * (d + 1))
    np.testing.assert_allclose(H, H.T, atol=1e-15)
    np.testing.assert_allclose(H, _torch_hessian(a, W, X, y), rtol=1e-11, atol=1e-13)
    oracle = empirical_oracle(X, y)
    theta = np.concatenate([a, W.ravel()])
    h = min(1e-7, 1e-3 * np.min(np.abs(X @ W.T)) / np.max(np.abs(X)))  # no kink within reach

    def grad(th: np.ndarray) -> np.ndarray:
        ga, gW, _ = oracle(th[:m], th[m:].reshape(m, d))
        return np.concatenate([ga, gW.ravel()])

    fd = np.stack([(grad(theta + h * e) - grad(theta - h * e)) / (2 * h) for e in np.eye(theta.size)], axis=1)
    # central differences lose ~ε·|∇L|/h to round-off when a kink forces a tiny h
    np.testing.assert_allclose(H, fd, rtol=1e-5, atol=max(1e-7, 1e-15 / h))
    # batched members are the per-member Hessians, and the objective hands out the same
    aB, WB = CONFIGS["batched"]
    HB = empirical_objective(X, y).hessian(aB, WB)
    np.testing.assert_allclose(HB[1, 2], empirical_hessian(Network(aB[1, 2], WB[1, 2]), X, y), rtol=1e-13, atol=1e-15)


def test_minibatch_oracle_fresh_and_resampled() -> None:
    a, W = CONFIGS["random"]
    # fresh: each call is the full-batch gradient on the next B draws of the seeded stream
    oracle = minibatch_oracle(TEACHER, 16, seed=3)
    rng = np.random.default_rng(3)
    for _ in range(3):
        X = rng.standard_normal((16, d))
        ga, gW, _ = oracle(a, W)
        ref_a, ref_W, _ = empirical_oracle(X, TEACHER(X))(a, W)
        np.testing.assert_allclose(ga, ref_a, rtol=1e-13)
        np.testing.assert_allclose(gW, ref_W, rtol=1e-13)
    # resampled: one epoch of n/B batches visits every sample point once, so the mean of the
    # batch gradients is the full-batch gradient
    X, y = draw_sample(TEACHER, 60, seed=12)
    oracle = minibatch_oracle(TEACHER, 20, seed=5, sample=(X, y))
    grads = [oracle(a, W) for _ in range(3)]
    full_a, full_W, _ = empirical_oracle(X, y)(a, W)
    np.testing.assert_allclose(np.mean([g[0] for g in grads], axis=0), full_a, rtol=1e-12)
    np.testing.assert_allclose(np.mean([g[1] for g in grads], axis=0), full_W, rtol=1e-12, atol=1e-16)
    assert not np.allclose(grads[0][0], grads[1][0])  # the batches differ
    # a batch as large as the sample is the whole sample (in some order)
    whole = minibatch_oracle(TEACHER, 100, seed=5, sample=(X, y))(a, W)
    np.testing.assert_allclose(whole[0], full_a, rtol=1e-12)


def test_finite_sample_flow_is_the_small_step_limit_of_gd_on_the_same_sample() -> None:
    """Independent reference: full-batch GD on the same L_n at η and η/2, Richardson-
    extrapolated to η → 0, lands on the flow's event-located T_spec (measured: 3e-5 relative;
    the flow's own error at rtol 1e-6 is ~1e-6, GD's O(η²) remainder ~1e-5)."""
    a0, W0 = duplicate_initial_condition(TEACHER, owner_imbalances(2, 4.0, 0))
    X, y = draw_sample(TEACHER, 2000, seed=13)
    objective = empirical_objective(X, y)
    flow = gradient_flow(Network(a0, W0), TEACHER, 1.0, objective=objective, options=FlowOptions(rtol=1e-6, atol=1e-9))
    assert flow.stats.objective == "empirical n=2000"
    t_flow = float(flow.crossing_times[0])
    eta = 2e-3 * t_flow
    t_gd = [
        float(
            gradient_descent(
                Network(a0, W0), TEACHER, e, 1.0, oracle=objective, stop_at_crossing=True, grid_points=3
            ).crossing_times[0]
        )
        for e in (eta, eta / 2)
    ]
    richardson = 2 * t_gd[1] - t_gd[0]
    assert abs(t_gd[0] - t_flow) > 1e-3 * t_flow  # GD alone is visibly off
    assert richardson == pytest.approx(t_flow, rel=2e-4)
    # and the flow on L_n is not the population flow: this sample shifts T_spec measurably
    pop = float(gradient_flow(Network(a0, W0), TEACHER, 1.0).crossing_times[0])
    assert abs(t_flow - pop) > 10 * abs(richardson - t_flow)


def test_flow_jacobian_exact_and_finite_difference_agree() -> None:
    """The closed-form Hessian and the solver's finite-difference Jacobian integrate the same
    flow (unfavorable gauge, BDF, which uses the Jacobian); T_spec agrees to the tolerance."""
    a0, W0 = duplicate_initial_condition(TEACHER, np.array([-4.0]))
    X, y = draw_sample(TEACHER, 1000, seed=14)
    objective = empirical_objective(X, y)
    runs = {
        jac: gradient_flow(
            Network(a0, W0),
            TEACHER,
            60.0,
            objective=objective,
            options=FlowOptions(rtol=1e-5, atol=1e-8, jacobian=jac, method="BDF"),
        )
        for jac in ("exact", "none")
    }
    assert runs["exact"].stats.n_hessian_evals >= 1 and runs["none"].stats.n_hessian_evals == 0
    t = {k: float(r.crossing_times[0]) for k, r in runs.items()}
    assert t["exact"] == pytest.approx(t["none"], rel=1e-4)


def test_empirical_loss_along_a_trajectory() -> None:
    aB, WB = CONFIGS["batched"]
    X, y = draw_sample(TEACHER3, 40, seed=15)
    np.testing.assert_allclose(
        empirical_loss_along(Network(aB, WB), X, y), empirical_loss(Network(aB, WB), X, y), rtol=1e-13
    )


# ------------------------------------------------------------------------------------
# large samples: chunked passes, a streamed sample, the device


def _chunked_and_whole(X: np.ndarray, y: np.ndarray, rows: int, width: int) -> tuple[EmpiricalSample, EmpiricalSample]:
    """The same sample read ``rows`` rows of ``width`` columns at a time (uneven last chunk) and in one chunk."""
    small = EmpiricalSample.from_arrays(X, y, chunk_bytes=8 * rows * max(width, X.shape[1]))
    whole = EmpiricalSample.from_arrays(X, y, chunk_bytes=2**40)
    return small, whole


@pytest.mark.parametrize("name", list(CONFIGS))
def test_chunked_gradient_hessian_and_loss_equal_the_unchunked_ones(name: str) -> None:
    """Chunks of 7 rows (43 chunks, the last of 6) change only the order of the additions:
    gradient, loss, loss along a trajectory and Hessian agree with one chunk to round-off,
    and both with autograd."""
    a, W = CONFIGS[name]
    X, y = draw_sample(TEACHER3, 300, seed=21)
    members = int(np.prod(W.shape[:-2]))
    small, whole = _chunked_and_whole(X, y, 7, members * a.shape[-1])
    assert small.rows_per_chunk(members * a.shape[-1]) == 7 and whole.rows_per_chunk(members * 5 * 17) >= 300
    for got, ref in zip(small.gradient(a, W), whole.gradient(a, W), strict=True):
        np.testing.assert_allclose(got, ref, rtol=1e-13, atol=1e-16)
    ref_loss, ref_ga, ref_gW = _torch_loss_and_grad(a, W, X, y)
    ga, gW, loss = small.gradient(a, W)
    np.testing.assert_allclose(loss, ref_loss, rtol=1e-13)
    np.testing.assert_allclose(ga, ref_ga, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(gW, ref_gW, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(
        small.loss(Network(a, W)), empirical_loss(Network(a, W), X, y, chunk_bytes=2**40), rtol=1e-13
    )
    np.testing.assert_allclose(empirical_loss(Network(a, W), X, y, chunk_bytes=8 * 5 * d), ref_loss, rtol=1e-13)
    # a trajectory of 5 states per member, read in blocks of one state (chunk_bytes / 8·1024·m)
    traj_a = np.stack([a * (1 + 0.1 * s) for s in range(5)], axis=-2)
    traj_W = np.stack([W * (1 - 0.05 * s) for s in range(5)], axis=-3)
    along = EmpiricalSample.from_arrays(X, y, chunk_bytes=8 * 1024 * a.shape[-1]).loss_along(Network(traj_a, traj_W))
    direct = np.stack(
        [empirical_loss(Network(traj_a[..., s, :], traj_W[..., s, :, :]), X, y) for s in range(5)], axis=-1
    )
    np.testing.assert_allclose(along, direct, rtol=1e-13)
    np.testing.assert_allclose(small.loss_along(Network(traj_a, traj_W)), direct, rtol=1e-13)
    # Hessian: J of 7 rows at a time (width members·P) against one J of all rows, and autograd
    P = a.shape[-1] * (d + 1)
    small_h = EmpiricalSample.from_arrays(X, y, chunk_bytes=8 * 7 * max(members * P, d))
    assert small_h.rows_per_chunk(members * P) == 7
    H = small_h.hessian(a, W)
    np.testing.assert_allclose(H, whole.hessian(a, W), rtol=1e-12, atol=1e-14)
    if W.ndim == 2:
        np.testing.assert_allclose(H, _torch_hessian(a, W, X, y), rtol=1e-11, atol=1e-13)


def test_a_streamed_sample_is_the_stored_sample_to_the_bit() -> None:
    """Regenerated block by block from its seed, the sample is numpy's single draw (the Gaussian
    stream does not depend on the block size), so every sum over it is bitwise the stored one's."""
    n, seed = 1000, np.random.SeedSequence([3, 1000])
    stored = EmpiricalSample.draw(TEACHER3, n, seed, store=True, chunk_bytes=8 * 64 * d)
    streamed = EmpiricalSample.draw(TEACHER3, n, seed, store=False, chunk_bytes=8 * 64 * d)
    assert stored.stored and not streamed.stored
    blocks = list(streamed.chunks(1))
    assert len(blocks) == 16  # 15 blocks of 64 rows and one of 40
    X = np.concatenate([b[0].numpy() for b in blocks])
    np.testing.assert_array_equal(X, np.random.default_rng(seed).standard_normal((n, d)))
    np.testing.assert_array_equal(np.concatenate([b[1].numpy() for b in blocks]), TEACHER3(X))
    np.testing.assert_array_equal(stored.arrays()[0], X)
    a, W = CONFIGS["batched"]
    for got, ref in zip(streamed.gradient(a, W), stored.gradient(a, W), strict=True):
        np.testing.assert_array_equal(got, ref)
    np.testing.assert_array_equal(streamed.hessian(a[0, 0], W[0, 0]), stored.hessian(a[0, 0], W[0, 0]))
    # resampled SGD needs random access to rows
    with pytest.raises(ValueError, match="stored sample"):
        minibatch_oracle(TEACHER3, 10, seed=0, sample=streamed)


def test_store_limit_decides_between_keeping_and_streaming(monkeypatch: pytest.MonkeyPatch) -> None:
    import gaugecli.core.samples.sample_draw as sample_draw_module

    monkeypatch.setattr(sample_draw_module, "STORE_LIMIT_BYTES", 8 * 100 * (d + 1))
    assert EmpiricalSample.draw(TEACHER, 100, 0).stored
    assert not EmpiricalSample.draw(TEACHER, 101, 0).stored
    # the estimate makes the same decision, and counts the sample only when kept
    kept = sample_memory_estimate(100, d, 1, hessian=False)
    streamed = sample_memory_estimate(101, d, 1, hessian=False)
    assert kept - streamed >= 8 * 100 * (d + 1) - 8 * 6 * (d + 1)


def test_memory_estimate_at_ten_million_points() -> None:
    """n = 10⁷, d = 16, m = 1: the sample (1.36 GB) dominates; chunks add ≤ 6 × DEFAULT_CHUNK_BYTES."""
    est = sample_memory_estimate(10**7, 16, 1)
    assert 8 * 10**7 * 17 < est < 8 * 10**7 * 17 + 6 * DEFAULT_CHUNK_BYTES + 10**6
    # beyond the store limit it is streamed: memory no longer grows with n
    assert sample_memory_estimate(10**9, 16, 1) == sample_memory_estimate(10**10, 16, 1) < 2**30


def test_device_auto_is_the_cpu_without_cuda(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert resolve_device("auto") == torch.device("cpu")
    assert resolve_device("cpu") == torch.device("cpu")
    with pytest.raises(ValueError, match="sees no CUDA device; use cpu or auto"):
        resolve_device("cuda")
    with pytest.raises(ValueError, match="one of cpu, cuda, auto"):
        resolve_device("tpu")
    sample = EmpiricalSample.draw(TEACHER, 50, 0, device="auto")
    assert sample.device.type == "cpu" and sample.name == "empirical n=50"
    X, y = draw_sample(TEACHER, 50, 0)
    a, W = CONFIGS["random"]
    for got, ref in zip(sample.gradient(a, W), EmpiricalSample.from_arrays(X, y).gradient(a, W), strict=True):
        np.testing.assert_array_equal(got, ref)


def test_device_option_in_the_dynamics_config(monkeypatch: pytest.MonkeyPatch) -> None:
    from gaugecli.experiments.common import run_ensemble
    from gaugecli.experiments.config import DynamicsConfig, ModelConfig
    from gaugecli.experiments.declare import ConfigError
    from gaugecli.experiments.params import DEFAULT_DEVICE

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert DynamicsConfig(mode="sample").torch_device == DEFAULT_DEVICE == "auto"
    assert DynamicsConfig(mode="sgd", device="cpu").torch_device == "cpu"
    with pytest.raises(ConfigError, match="no effect in mode flow") as err:
        DynamicsConfig(device="cpu")
    assert err.value.param == "device"
    with pytest.raises(ConfigError, match="must be one of cpu, cuda, auto"):
        DynamicsConfig(mode="sample", device="gpu")
    with pytest.raises(ConfigError, match="sees no CUDA device") as err:
        DynamicsConfig(mode="sample", device="cuda")
    assert err.value.param == "device"
    # auto on this CPU-only torch: the run happens, on the CPU
    a0, W0 = duplicate_initial_condition(TEACHER, np.array([[4.0]]))
    dyn = DynamicsConfig(mode="sample", n_samples=200, device="auto", t_max=0.5, grid_points=5)
    (run,) = run_ensemble(ModelConfig(d=d), dyn, Network(a0, W0), seed=1)
    assert run is not None


@pytest.mark.parametrize("chunk_bytes", [DEFAULT_CHUNK_BYTES, 8 * 24 * 7])
def test_a_stack_of_samples_gives_each_member_its_own_loss(chunk_bytes: int) -> None:
    """A stack (one sample per member) equals B separate samples: gradient, loss, Hessian, L_n along a
    trajectory and the objective of a subset of members — to round-off (the batched products sum in
    another order: a few ε of the terms' scale, 1e-12 relative here), also when chunked (7 rows)."""
    from gaugecli.core.samples.sample import stacked_empirical_objective

    rng = np.random.default_rng(4)
    B, n, m = 3, 50, 3
    samples = [draw_sample(TEACHER, n, seed) for seed in (11, 12, 13)]
    stack = EmpiricalSample.stack(samples)
    stack.chunk_bytes = chunk_bytes
    assert stack.members == B and "3 samples" in stack.name
    a, W = rng.standard_normal((B, m)), rng.standard_normal((B, m, d))
    ga, gW, loss = stack.gradient(a, W)
    H = stack.hessian(a, W)
    traj_a, traj_W = rng.standard_normal((B, 4, m)), rng.standard_normal((B, 4, m, d))
    along = stack.loss_along(Network(traj_a, traj_W))
    for b, (X, y) in enumerate(samples):
        one = EmpiricalSample.from_arrays(X, y, chunk_bytes=chunk_bytes)
        ga1, gW1, loss1 = one.gradient(a[b], W[b])
        np.testing.assert_allclose(ga[b], ga1, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(gW[b], gW1, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(loss[b], loss1, rtol=1e-12)
        np.testing.assert_allclose(H[b], one.hessian(a[b], W[b]), rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(along[b], one.loss_along(Network(traj_a[b], traj_W[b])), rtol=1e-12)
    part = stacked_empirical_objective(samples).restricted(np.array([2, 0]))
    ga_p, gW_p, _ = part.gradient(a[[2, 0]], W[[2, 0]])
    np.testing.assert_allclose(ga_p, ga[[2, 0]], rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(gW_p, gW[[2, 0]], rtol=1e-12, atol=1e-14)
    with pytest.raises(ValueError, match="share one shape"):
        EmpiricalSample.stack([samples[0], draw_sample(TEACHER, n + 1, 1)])


def test_a_stacked_finite_sample_flow_selects_as_each_seed_alone() -> None:
    """The selection sweep's ensemble (perturb (d)): each seed's finite-sample flow, integrated with the
    others under one step-size control, reaches the same outcome as alone — at n where selection is
    decided either way by the sample (n = 24: not every seed selects) and where it holds (n = 128)."""
    from dataclasses import replace

    from gaugecli.core.analyses.observables import observe
    from gaugecli.experiments.params import SAMPLE_RTOL
    from gaugecli.experiments.perturb import PerturbConfig, SelectionJob, sample_of, selection_job, selection_start
    from gaugecli.experiments.perturb.selection import SELECTION_METHOD
    from gaugecli.experiments.select import selected

    model = replace(PerturbConfig().model, d=8)
    net = model.build()
    a0, W0 = selection_start(model, 2, 4.0)
    options = FlowOptions(rtol=SAMPLE_RTOL, atol=SAMPLE_RTOL * 1e-3, method=SELECTION_METHOD, grid_points=3)
    horizon = 60.0
    shares = {}
    for n in (24, 128):
        seeds = (0, 1, 2, 3, 4, 5)
        alone = []
        for seed in seeds:
            tr = gradient_flow(
                Network(a0, W0),
                net,
                horizon,
                eps_align=0.01,
                options=options,
                objective=empirical_objective(*sample_of(net, n, seed)),
            )
            alone.append(selected(observe(tr, net, (0,)), 0))
        together = selection_job(SelectionJob(model, 2, 4.0, n, seeds, horizon)).success
        assert together == alone
        shares[n] = sum(alone) / len(alone)
    assert shares[24] < 1.0 and shares[128] == 1.0


@pytest.mark.parametrize("name", list(CONFIGS))
def test_numpy_and_torch_gradient_sums_agree(name: str) -> None:
    """On the CPU the gradient of ``L_n`` is summed in numpy (on the contiguous ``Xᵀ`` of a sample that
    is one chunk, on views of the rows otherwise); on a device, in torch. The routes are the same
    sums in the same layout: they agree to round-off (here on CPU tensors), in three chunks as in
    one, for a stored sample and a stack of samples."""
    from gaugecli.core.activations.relu import ReLU
    from gaugecli.core.samples.empirical import _gradient_sums, _gradient_sums_numpy

    a, W = CONFIGS[name]
    X, y = draw_sample(TEACHER3, 301, seed=5)
    width = max(int(np.prod(W.shape[:-1])), d)  # the widest intermediate's columns
    stacks = [EmpiricalSample.from_arrays(X, y, chunk_bytes=8 * 101 * width)]  # 101 rows a chunk: three
    assert len(list(stacks[0]._chunks_for(W))) == 3
    if a.ndim == 2:
        stacks.append(EmpiricalSample.stack([draw_sample(TEACHER3, 301, seed=s) for s in (6, 7)]))
    for sample in stacks:
        views = ((np.swapaxes(Xc.numpy(), -1, -2), yc.numpy()) for Xc, yc in sample._chunks_for(W))
        ref = _gradient_sums(torch.from_numpy(a), torch.from_numpy(W), sample._chunks_for(W), ReLU())
        for chunks in (sample._transposed_chunks(W), views):
            got = _gradient_sums_numpy(a, W, chunks, ReLU())
            for g, r in zip(got, ref, strict=True):
                np.testing.assert_allclose(g, r.numpy(), rtol=1e-12, atol=1e-12 * float(np.max(np.abs(r.numpy()))))


# -- Hessian–vector products and GD's stability bound by Lanczos -----------------------------------


@pytest.mark.parametrize("sigma", ["relu", "erf"])
def test_hessian_vector_product_is_the_dense_hessian_times_v(sigma: str) -> None:
    """``∇²L_n v`` without the matrix equals the dense closed form times ``v`` (erf: with its curved
    σ'' term); rtol 1e-12: the same float64 sums in another order (P = 25 terms per entry)."""
    from gaugecli.core.activations import activation

    rng = np.random.default_rng(21)
    m = 5
    a, W = rng.standard_normal(m), rng.standard_normal((m, d))
    X, y = draw_sample(TEACHER3, 200, seed=13)
    sample = EmpiricalSample.from_arrays(X, y, activation=activation(sigma))
    H = sample.hessian(a, W)
    for v in rng.standard_normal((3, m * (d + 1))):
        np.testing.assert_allclose(sample.hessian_vector(a, W, v), H @ v, rtol=1e-12, atol=1e-14)
    decayed = sample.objective().with_weight_decay(0.1)
    assert decayed.hessian_vector is not None
    np.testing.assert_allclose(decayed.hessian_vector(a, W, v), H @ v + 0.1 * v, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize(("m", "dim"), [(8, 60), (20, 30), (50, 12)])
def test_lanczos_lambda_max_is_the_dense_eigenvalue(m: int, dim: int) -> None:
    """GD's stability bound ``2/λ_max`` by Lanczos on Hessian–vector products (P = 488, 620, 650 ≥
    LANCZOS_MIN_SIZE) equals the dense eigensolve's to 1e-8 relative: ARPACK converges to
    LANCZOS_TOL = 1e-10 relative, and eigvalsh's error is ~P·ε·‖H‖ ≈ 1e-13 relative."""
    from gaugecli.core.integrate.descent import LANCZOS_MIN_SIZE, LANCZOS_TOL, stable_step_bound

    assert LANCZOS_TOL <= 1e-10 and m * (dim + 1) >= LANCZOS_MIN_SIZE
    teacher = standard_model(dim)
    rng = np.random.default_rng(m)
    a, W = rng.standard_normal(m) / np.sqrt(m), rng.standard_normal((m, dim)) / np.sqrt(dim)
    X, y = draw_sample(teacher, 400, seed=m)
    objective = empirical_objective(X, y)
    dense = 2.0 / np.linalg.eigvalsh(objective.hessian(a, W))[-1]
    lanczos = stable_step_bound(Network(a, W), teacher, objective)
    assert lanczos == pytest.approx(dense, rel=1e-8)
    # an ensemble of one (as the commands pass it) and the objective without products (dense path)
    assert stable_step_bound(Network(a[None], W[None]), teacher, objective) == pytest.approx(dense, rel=1e-8)
    plain = replace(objective, hessian_vector=None)
    assert stable_step_bound(Network(a, W), teacher, plain) == pytest.approx(dense, rel=1e-12)
